/* format.h - output formats as data: each format's file defines one
 * `const cg__format_def cg__format_NAME` (name, extension, text or binary,
 * writer); io/format_table.c lists them in cg_format order and io/write.c
 * dispatches through the table (docs/contributing.md). */
#ifndef CG_IO_FORMAT_H
#define CG_IO_FORMAT_H

#include <stdint.h>

#include "core/grid.h"

/* What a writer is given besides the grid. */
typedef struct cg__write_args {
    uint32_t scale;          /* pixels per cell, 1..64 (PNG, PBM) */
    uint32_t columns;        /* the widest picture in characters (ANSI); 0: no limit */
    const cg_map_info *info; /* never NULL */
    cg_write_fn write;
    void *ctx;
    cg_diag *diag;
    const struct cg__par *par; /* the caller's parallel loop (PNG's stripes); NULL: none */
} cg__write_args;

typedef struct cg__format_def {
    const char *name;      /* for -f and messages: "png" */
    const char *extension; /* the file name extension that selects it: ".png" */
    const char *summary;   /* one line for help texts */
    int binary;            /* bytes that are not text: never to a terminal */
    int stream;            /* maps may follow one another in one stream */
    int tileset;           /* a file of it references CG_TILESET_IMAGE beside it */
    int needs_png;         /* written with libpng: absent from a build without it */
    cg_status (*write)(const cg_grid *g, const cg__write_args *a);
} cg__format_def;

/* The formats, indexed by cg_format (io/format_table.c). */
extern const cg__format_def *const cg__formats[];
extern const size_t cg__format_count;

/* Eight cells as eight ASCII characters: entry v is the cells whose wall
 * bits are v (bit j = cell j: '#' if set, else '.'); io/ascii.c. */
extern const char cg__cells8[256][8];

/* The writers, for the format definitions and the benchmark. */
cg_status cg__write_ascii(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag);
struct cg__par;
cg_status cg__write_png(const cg_grid *g, uint32_t scale, const struct cg__par *par,
                        cg_write_fn write, void *ctx, cg_diag *diag);

#endif
