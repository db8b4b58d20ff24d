/* grid_equal.h - grid comparisons through the public API, shared by the
 * cmocka tests (testutil.h) and the fuzz targets (fuzz/fuzz_common.h): it
 * needs nothing but cavegen.h. */
#ifndef CG_GRID_EQUAL_H
#define CG_GRID_EQUAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cavegen/cavegen.h"

/* Same size and cells, and (markers) the same markers: the cells through
 * one cg_grid_copy each, the markers as their lists (one marker a cell, in
 * row order), so a comparison costs a copy of the map, not a marker search
 * per cell. A failed allocation counts as a difference. */
static inline int tu_grids_compare(const cg_grid *a, const cg_grid *b, int markers)
{
    uint32_t w = cg_grid_width(a), h = cg_grid_height(a);
    if (w != cg_grid_width(b) || h != cg_grid_height(b))
        return 0;
    size_t n = (size_t)w * h;
    uint8_t *ca = malloc(n + 1), *cb = malloc(n + 1);
    int same = ca && cb && cg_grid_copy(a, ca, w, CG_COPY_CELLS) == CG_OK &&
               cg_grid_copy(b, cb, w, CG_COPY_CELLS) == CG_OK && memcmp(ca, cb, n) == 0;
    free(ca);
    free(cb);
    if (!same || !markers)
        return same;
    size_t count = cg_grid_marker_count(a);
    if (count != cg_grid_marker_count(b))
        return 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t xa, ya, xb, yb;
        cg_marker ka, kb;
        if (cg_grid_marker_at(a, i, &xa, &ya, &ka) != CG_OK ||
            cg_grid_marker_at(b, i, &xb, &yb, &kb) != CG_OK || xa != xb || ya != yb || ka != kb)
            return 0;
    }
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
