/* core/grid_copy.c - cg_grid_copy: the cells of a map into a caller's byte
 * array in one call (a numpy array, a game's tile map), rather than one
 * cg_grid_get per cell. */
#include <string.h>

#include "core/grid.h"

cg_status cg_grid_copy(const cg_grid *grid, uint8_t *out, size_t stride, cg_copy_mode mode)
{
    if (!grid || !out || stride < grid->w || (mode != CG_COPY_CELLS && mode != CG_COPY_SYMBOLS))
        return CG_EINVAL;
    const uint8_t wall = mode == CG_COPY_SYMBOLS ? '#' : CG_WALL;
    const uint8_t floor = mode == CG_COPY_SYMBOLS ? '.' : CG_FLOOR;
    size_t mi = 0;
    for (uint32_t y = 0; y < grid->h; y++) {
        const uint64_t *row = cg__row(grid, y);
        uint8_t *o = out + (size_t)y * stride;
        for (size_t i = 0; i < grid->nw; i++) {
            uint64_t word = row[i];
            uint32_t x0 = (uint32_t)(i * 64), n = grid->w - x0 < 64 ? grid->w - x0 : 64;
            for (uint32_t b = 0; b < n; b++)
                o[x0 + b] = (word >> b) & 1 ? wall : floor;
        }
        for (; mi < grid->nmarks && grid->marks[mi].y == y; mi++)
            if (mode == CG_COPY_SYMBOLS)
                o[grid->marks[mi].x] = grid->marks[mi].sym;
    }
    return CG_OK;
}
