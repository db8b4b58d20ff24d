/* flood.h - 4-connected searches over floor (regions/flood.c). Markers are
 * floor to the cave's shape (cg__flood); a unit's moves never enter a
 * blocked cell but may start on one (cg__flood_moves, cg__path_length). */
#ifndef CG_REGIONS_FLOOD_H
#define CG_REGIONS_FLOOD_H

#include <stdint.h>

#include "core/grid.h"

/* reached (same size as g, allocated by the caller) becomes the floor cells
 * connected to (x, y) - 0 bits, every other bit 1, so it is a valid grid
 * holding only that region; *count gets their number, 0 if (x, y) is wall. */
cg_status cg__flood(const cg_grid *g, uint32_t x, uint32_t y, cg_grid *reached, uint64_t *count);
/* Test hook: nonzero makes cg__flood use its span fill on narrow maps too. */
void cg__flood_force_span(int on);
/* As cg__flood, but the cells a unit standing on (x, y) can walk to: no
 * blocked cell is entered, (x, y) itself is reached even if blocked. */
cg_status cg__flood_moves(const cg_grid *g, uint32_t x, uint32_t y, cg_grid *reached,
                          uint64_t *count);
/* Nonzero if g has a blocked marker. */
int cg__has_blocked(const cg_grid *g);
/* The fewest steps from (x0, y0) to (x1, y1) never entering a blocked cell
 * ((x0, y0) may be one), -1 if unreachable or either is wall. */
cg_status cg__path_length(const cg_grid *g, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                          int64_t *length);

#endif
