/* fill.h - the random fill (cells/fill.c; docs/randomness.md). */
#ifndef CG_CELLS_FILL_H
#define CG_CELLS_FILL_H

#include <stdint.h>

#include "core/grid.h"

/* Each cell wall with probability ppb / 1e9 (ppb = parts per billion,
 * 0..1e9), outer ring wall. */
void cg__fill(cg_grid *g, uint64_t key, uint32_t ppb);
/* The same for rows y0..y1-1 only (a stripe: disjoint stripes may be filled
 * at once), cell (x, y) drawn as world cell (ox + x, oy + y); ring: 0 leaves
 * out the outer ring (a window of the infinite cave, docs/scale.md). */
void cg__fill_rows(cg_grid *g, uint64_t key, uint32_t ppb, int64_t ox, int64_t oy, int ring,
                   uint32_t y0, uint32_t y1);

#endif
