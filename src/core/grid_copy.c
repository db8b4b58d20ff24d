/* core/grid_copy.c - cg_grid_copy: the cells of a map into a caller's byte
 * array in one call (a numpy array, a game's tile map), rather than one
 * cg_grid_get per cell: eight cells at a time through a table, as the ASCII
 * writer does. */
#include <string.h>

#include "core/grid.h"
#include "core/table8.h"

/* Entry v: the eight cells whose wall bits are v, a byte each, 1 wall, 0
 * floor (core/table8.h). */
#define CELL_BIT(v, b) (uint8_t)(((v) >> (b)) & 1)
static const uint8_t cells8[256][8] = CG__TABLE8(CELL_BIT);
#undef CELL_BIT

cg_status cg_grid_copy(const cg_grid *grid, uint8_t *out, size_t stride, cg_copy_mode mode)
{
    if (!grid || !out || stride < grid->w || (mode != CG_COPY_CELLS && mode != CG_COPY_SYMBOLS))
        return CG_EINVAL;
    const size_t whole = grid->w / 8, rest = grid->w % 8;
    size_t mi = 0;
    for (uint32_t y = 0; y < grid->h; y++) {
        const uint64_t *row = cg__row(grid, y);
        uint8_t *o = out + (size_t)y * stride;
        for (size_t k = 0; k < whole; k++)
            memcpy(o + 8 * k, cells8[(row[k >> 3] >> (8 * (k & 7))) & 0xff], 8);
        if (rest)
            memcpy(o + 8 * whole, cells8[(row[whole >> 3] >> (8 * (whole & 7))) & 0xff], rest);
        if (mode == CG_COPY_CELLS)
            continue;
        /* '#' for 1, '.' for 0, then the markers' own characters. */
        for (uint32_t x = 0; x < grid->w; x++)
            o[x] = o[x] ? '#' : '.';
        for (; mi < grid->nmarks && grid->marks[mi].y == y; mi++)
            o[grid->marks[mi].x] = grid->marks[mi].sym;
    }
    return CG_OK;
}
