/* flood.h - 4-connected searches over floor (regions/flood.c); markers are
 * floor. */
#ifndef CG_REGIONS_FLOOD_H
#define CG_REGIONS_FLOOD_H

#include <stdint.h>

#include "core/grid.h"

/* reached (same size as g, allocated by the caller) becomes the floor cells
 * connected to (x, y) - 0 bits, every other bit 1, so it is a valid grid
 * holding only that region; *count gets their number, 0 if (x, y) is wall. */
cg_status cg__flood(const cg_grid *g, uint32_t x, uint32_t y, cg_grid *reached, uint64_t *count);
/* The fewest steps from (x0, y0) to (x1, y1), -1 if unreachable or either
 * is wall. */
cg_status cg__path_length(const cg_grid *g, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                          int64_t *length);

#endif
