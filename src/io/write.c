/* io/write.c - cg_write and cg_write_ex: check the options and hand the grid to
 * the writer of the chosen format (one file per format: io/ascii.c,
 * io/png.c, io/json.c, io/tiled.c, io/pbm.c); the table of format names.
 * io/png.c and io/png_reach.c are compiled only with libpng (CG_HAVE_PNG,
 * the CMake option CAVEGEN_PNG). */
#include <string.h>

#include "core/diag.h"
#include "core/mem.h"
#include "io/writers.h"

static const struct {
    cg_format format;
    const char *name;
    const char *ext; /* the file name extension that selects it */
} formats[] = {
    {CG_FORMAT_ASCII, "ascii", ".txt"}, {CG_FORMAT_PNG, "png", ".png"},
    {CG_FORMAT_JSON, "json", ".json"},  {CG_FORMAT_TMX, "tmx", ".tmx"},
    {CG_FORMAT_TMJ, "tmj", ".tmj"},     {CG_FORMAT_PBM, "pbm", ".pbm"},
    {CG_FORMAT_DISTANCES, "distances", ".csv"},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* ASCII-only, so a format name never depends on the locale. */
static int equal_nocase(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        ca = ca >= 'A' && ca <= 'Z' ? ca - 'A' + 'a' : ca;
        cb = cb >= 'A' && cb <= 'Z' ? cb - 'A' + 'a' : cb;
        if (ca != cb)
            return 0;
        if (ca == '\0')
            return 1;
    }
}

const char *cg_format_name(cg_format format)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].format == format)
            return formats[i].name;
    return NULL;
}

cg_status cg_format_from_name(const char *name, cg_format *format)
{
    for (size_t i = 0; name && i < NFORMATS; i++) {
        if (equal_nocase(name, formats[i].name)) {
            *format = formats[i].format;
            return CG_OK;
        }
    }
    return CG_EINVAL;
}

cg_status cg_format_from_path(const char *path, cg_format *format)
{
    if (!path)
        return CG_EINVAL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    /* ".png" alone is a hidden file's name, not an extension. */
    if (!dot || dot == base)
        return CG_EINVAL;
    for (size_t i = 0; i < NFORMATS; i++) {
        if (equal_nocase(dot, formats[i].ext)) {
            *format = formats[i].format;
            return CG_OK;
        }
    }
    return CG_EINVAL;
}

int cg_format_available(cg_format format)
{
#ifndef CG_HAVE_PNG
    if (format == CG_FORMAT_PNG)
        return 0;
#endif
    return cg_format_name(format) != NULL;
}

static cg_status write_format(const cg_grid *grid, cg_format format, uint32_t scale,
                              const cg_map_info *in, cg_write_fn write, void *ctx, cg_diag *diag)
{
    switch (format) {
    case CG_FORMAT_ASCII:
        return cg__write_ascii(grid, write, ctx, diag);
    case CG_FORMAT_PNG:
#ifdef CG_HAVE_PNG
        return cg__write_png(grid, scale, write, ctx, diag);
#else
        cg__diag(diag, 0, 0, "cannot write PNG: libcavegen was built without PNG support");
        return CG_EUNSUPPORTED;
#endif
    case CG_FORMAT_JSON:
        return cg__write_json(grid, in, write, ctx, diag);
    case CG_FORMAT_TMX:
        return cg__write_tiled(grid, in, 0, write, ctx, diag);
    case CG_FORMAT_TMJ:
        return cg__write_tiled(grid, in, 1, write, ctx, diag);
    case CG_FORMAT_PBM:
        return cg__write_pbm(grid, scale, write, ctx, diag);
    case CG_FORMAT_DISTANCES:
        return cg__write_distances(grid, write, ctx, diag);
    }
    cg__diag(diag, 0, 0, "unknown format %d", (int)format);
    return CG_EINVAL;
}

cg_status cg_write_ex(const cg_grid *grid, const cg_write_options *options, const cg_map_info *info,
                      cg_write_fn write, void *ctx, cg_diag *diag)
{
    static const cg_write_options defaults = {CG_FORMAT_ASCII, 0, 0};
    static const cg_map_info unknown = {0, 0, 0, 0, NULL, NULL, 0};
    const cg_write_options *o = options ? options : &defaults;
    const cg_map_info *in = info ? info : &unknown;
    uint32_t scale = o->scale ? o->scale : 4;
    if (!grid || !write) {
        cg__diag(diag, 0, 0, "no %s to write", grid ? "write callback" : "map");
        return CG_EINVAL;
    }
    if (scale > 64) {
        cg__diag(diag, 0, 0, "scale must be in 1..64, not %u", scale);
        return CG_EINVAL;
    }
    if (in->preset_text_len > 0 && !in->preset_text) {
        cg__diag(diag, 0, 0, "the map info has a preset text length but no text");
        return CG_EINVAL;
    }
    /* The writers hold a few rows, but JSON's figures label the regions:
     * held to the caller's budget like a run (core/mem.h). */
    cg__budget budget = {0};
    if (o->max_memory)
        cg__budget_begin(&budget, o->max_memory);
    cg_status st = write_format(grid, o->format, scale, in, write, ctx, diag);
    if (o->max_memory)
        cg__budget_end(&budget);
    if (st == CG_ENOMEM && budget.refused) {
        char limit[32];
        cg__format_bytes(limit, budget.limit, 0);
        cg__diag(diag, 0, 0, "writing a %ux%u map as %s needs more than the memory budget of %s",
                 grid->w, grid->h, cg_format_name(o->format), limit);
    } else if (st == CG_ENOMEM && diag && !diag->message[0]) {
        cg__diag(diag, 0, 0, "out of memory writing a %ux%u map as %s", grid->w, grid->h,
                 cg_format_name(o->format));
    }
    return st;
}

cg_status cg_write(const cg_grid *grid, const cg_write_options *options, cg_write_fn write,
                   void *ctx, cg_diag *diag)
{
    return cg_write_ex(grid, options, NULL, write, ctx, diag);
}
