/* core/grid_copy.c - cg_grid_copy: the cells of a map into a caller's byte
 * array in one call (a numpy array, a game's tile map), rather than one
 * cg_grid_get per cell: eight cells at a time through a table, as the ASCII
 * writer does. */
#include <string.h>

#include "core/grid.h"
#include "core/table8.h"

/* Entry v: the eight cells whose wall bits are v, a byte each (core/table8.h):
 * 1 wall, 0 floor, and the ASCII format's '#' and '.'. */
#define CELL_BIT(v, b) (uint8_t)(((v) >> (b)) & 1)
#define CELL_SYM(v, b) (uint8_t)((((v) >> (b)) & 1) ? '#' : '.')
static const uint8_t cells8[256][8] = CG__TABLE8(CELL_BIT);
static const uint8_t syms8[256][8] = CG__TABLE8(CELL_SYM);
#undef CELL_BIT
#undef CELL_SYM

/* The w cells of a row: a word's eight groups in turn (shifting the word,
 * not indexing a byte of it per group: a batch of small maps copies each
 * one, so this loop is a part of every map's cost). */
static void copy_row(const uint64_t *row, uint8_t *o, uint32_t w, const uint8_t (*t)[8])
{
    const uint32_t whole = w / 64, rest = w % 64;
    for (uint32_t q = 0; q < whole; q++, o += 64) {
        uint64_t x = row[q];
        for (unsigned k = 0; k < 8; k++, x >>= 8)
            memcpy(o + 8 * k, t[x & 0xff], 8);
    }
    if (rest) {
        uint64_t x = row[whole];
        unsigned k = 0;
        for (; 8 * k + 8 <= rest; k++, x >>= 8)
            memcpy(o + 8 * k, t[x & 0xff], 8);
        if (rest % 8)
            memcpy(o + 8 * k, t[x & 0xff], rest % 8);
    }
}

cg_status cg_grid_copy(const cg_grid *grid, uint8_t *out, size_t stride, cg_copy_mode mode)
{
    if (!grid || !out || stride < grid->w || (mode != CG_COPY_CELLS && mode != CG_COPY_SYMBOLS))
        return CG_EINVAL;
    const uint8_t(*t)[8] = mode == CG_COPY_CELLS ? cells8 : syms8;
    size_t mi = 0;
    for (uint32_t y = 0; y < grid->h; y++) {
        uint8_t *o = out + (size_t)y * stride;
        copy_row(cg__row(grid, y), o, grid->w, t);
        if (mode == CG_COPY_CELLS)
            continue;
        /* Then the markers' own characters. */
        for (; mi < grid->nmarks && grid->marks[mi].y == y; mi++)
            o[grid->marks[mi].x] = grid->marks[mi].sym;
    }
    return CG_OK;
}
