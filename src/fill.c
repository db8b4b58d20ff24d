/* fill.c - the initial random fill (seed 000: "initialisation avec un seuil").
 *
 * Cell (x, y) is wall iff the top 32 bits of its hash are below
 * ppb * 2^32 / 1e9, i.e. with probability ppb/1e9; the hash depends only on
 * (seed, fill ordinal, x, y), so a smaller map's fill is the top-left crop of
 * a larger one's (before the wall ring is drawn). Words are assembled 64 cells
 * at a time so the bitboard is written once. */
#include "internal.h"

void cg__fill(cg_grid *g, uint64_t key, uint32_t ppb)
{
    uint64_t threshold = ((uint64_t)ppb << 32) / 1000000000u;
    for (uint32_t y = 0; y < g->h; y++) {
        uint64_t *r = cg__row(g, y);
        for (size_t i = 0; i < g->nw; i++) {
            uint64_t word = 0;
            uint64_t x0 = (uint64_t)i * 64;
            unsigned n = g->w - x0 < 64 ? (unsigned)(g->w - x0) : 64;
            for (unsigned b = 0; b < n; b++) {
                uint64_t h = cg__cell_hash(key, (int64_t)(x0 + b), y) >> 32;
                word |= (uint64_t)(h < threshold) << b;
            }
            r[i] = word;
        }
    }
    cg__grid_wall_ring(g);
}
