/* grid_equal.h - grid comparisons through the public API, shared by the
 * cmocka tests (testutil.h) and the fuzz targets (fuzz/fuzz_common.h): it
 * needs nothing but cavegen.h. */
#ifndef CG_GRID_EQUAL_H
#define CG_GRID_EQUAL_H

#include <stdint.h>

#include "cavegen/cavegen.h"

static inline int tu_grids_compare(const cg_grid *a, const cg_grid *b, int markers)
{
    uint32_t w = cg_grid_width(a), h = cg_grid_height(a);
    if (w != cg_grid_width(b) || h != cg_grid_height(b))
        return 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            if (cg_grid_get(a, x, y) != cg_grid_get(b, x, y) ||
                (markers && cg_grid_marker(a, x, y) != cg_grid_marker(b, x, y)))
                return 0;
    return 1;
}

/* Same size and cells (markers aside). */
static inline int tu_cells_equal(const cg_grid *a, const cg_grid *b)
{
    return tu_grids_compare(a, b, 0);
}

/* Same size, same cells, same markers. */
static inline int tu_grids_equal(const cg_grid *a, const cg_grid *b)
{
    return tu_grids_compare(a, b, 1);
}

#endif
