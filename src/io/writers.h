/* writers.h - one writer per format (io/<format>.c); cg_write (io/write.c)
 * checks the options and dispatches. */
#ifndef CG_IO_WRITERS_H
#define CG_IO_WRITERS_H

#include <stdint.h>

#include "core/grid.h"

cg_status cg__write_ascii(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag);
cg_status cg__write_png(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                        cg_diag *diag);
cg_status cg__write_json(const cg_grid *g, const cg_map_info *info, cg_write_fn write, void *ctx,
                         cg_diag *diag);
/* json: 0 writes TMX (XML), 1 TMJ (JSON). */
cg_status cg__write_tiled(const cg_grid *g, const cg_map_info *info, int json, cg_write_fn write,
                          void *ctx, cg_diag *diag);
cg_status cg__write_pbm(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                        cg_diag *diag);
/* The attached reach as CSV lines "x,y,distance". */
cg_status cg__write_distances(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag);

#endif
