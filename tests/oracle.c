/* oracle.c - the plain scalar reference for the cellular-automaton rules.
 *
 * Deliberately naive: one cell at a time, every read bounds-checked, and the
 * neighbourhoods spelled out as the seeds spell them, so that each function
 * can be checked against its seed by eye. See oracle.h for the contracts.
 */
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

uint8_t oracle_cell(const uint8_t *cells, int w, int h, int x, int y)
{
    /* For every neighbourhood count, cells outside the map are walls. */
    if (x < 0 || y < 0 || x >= w || y >= h)
        return 1;
    return cells[(size_t)y * (size_t)w + (size_t)x];
}

/* The cellular-automaton cave article's tables (docs/algorithms.md):
 * voisins_1 are the 8 cells around C (numbered 1..8 in its first figure),
 * voisins_2 the 12 further cells of the 5x5 block without its corners
 * (9..20 in its second figure). Its code then sums
 *     v1 = zone[C] + sum(voisins_1)
 *     v2 = v1 + sum(voisins_2)
 * so both counts include the cell itself; self=no drops that first term. */
static const int voisins_1[8][2] = {
    {-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1},
};
static const int voisins_2[12][2] = {
    {-2, -1}, {-2, 0}, {-2, 1}, {2, -1}, {2, 0}, {2, 1},
    {-1, -2}, {0, -2}, {1, -2}, {-1, 2}, {0, 2},  {1, 2},
};

static void generation(const uint8_t *src, uint8_t *dst, int w, int h, int r1, int r2, int self,
                       int ring)
{
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            /* The seed rewrites only zone[3:-3, 3:-3]: the outer ring of the
             * map stays wall. */
            if (ring && (x == 0 || y == 0 || x == w - 1 || y == h - 1)) {
                dst[i] = 1;
                continue;
            }
            int v1 = self ? oracle_cell(src, w, h, x, y) : 0;
            for (int k = 0; k < 8; k++)
                v1 += oracle_cell(src, w, h, x + voisins_1[k][0], y + voisins_1[k][1]);
            int v2 = v1;
            for (int k = 0; k < 12; k++)
                v2 += oracle_cell(src, w, h, x + voisins_2[k][0], y + voisins_2[k][1]);
            dst[i] = (v1 >= r1 || v2 <= r2) ? 1 : 0;
        }
    }
}

void oracle_generation(const uint8_t *src, uint8_t *dst, int w, int h, int r1, int r2, int self)
{
    generation(src, dst, w, h, r1, r2, self, 1);
}

void oracle_generation_open(const uint8_t *src, uint8_t *dst, int w, int h, int r1, int r2,
                            int self)
{
    generation(src, dst, w, h, r1, r2, self, 0);
}

/* The Russian cellular-automata article's count_wall_neighbors: the 8 neighbours, not the cell itself,
 * out of bounds counting as wall. */
static int count_wall_neighbors(const uint8_t *grid, int cx, int cy, int w, int h)
{
    int count = 0;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0)
                continue;
            count += oracle_cell(grid, w, h, cx + dx, cy + dy);
        }
    }
    return count;
}

void oracle_smooth(const uint8_t *src, uint8_t *dst, int w, int h, int walls)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dst[(size_t)y * (size_t)w + (size_t)x] =
                count_wall_neighbors(src, x, y, w, h) >= walls ? 1 : 0;
}

/* The level article: "le total de cases de sol parmi les 8 voisins d'une cellule + la
 * cellule elle-même" - floor cells among the 9 cells of the 3x3 block. */
static int count_floor_block(const uint8_t *grid, int cx, int cy, int w, int h)
{
    int count = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            count += oracle_cell(grid, w, h, cx + dx, cy + dy) ? 0 : 1;
    return count;
}

void oracle_rule(const uint8_t *src, uint8_t *dst, int w, int h, int lo, int hi)
{
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int floors = count_floor_block(src, x, y, w, h);
            dst[(size_t)y * (size_t)w + (size_t)x] = (floors >= lo && floors <= hi) ? 0 : 1;
        }
    }
}

enum oracle_kind { ORACLE_GENERATION, ORACLE_GENERATION_OPEN, ORACLE_SMOOTH, ORACLE_RULE };

static int oracle_repeat(uint8_t *cells, int w, int h, int n, enum oracle_kind kind, int a, int b,
                         int c)
{
    size_t size = (size_t)w * (size_t)h;
    uint8_t *scratch = malloc(size ? size : 1);
    if (!scratch)
        return -1;
    uint8_t *src = cells, *dst = scratch;
    for (int i = 0; i < n; i++) {
        switch (kind) {
        case ORACLE_GENERATION:
            oracle_generation(src, dst, w, h, a, b, c);
            break;
        case ORACLE_GENERATION_OPEN:
            oracle_generation_open(src, dst, w, h, a, b, c);
            break;
        case ORACLE_SMOOTH:
            oracle_smooth(src, dst, w, h, a);
            break;
        case ORACLE_RULE:
            oracle_rule(src, dst, w, h, a, b);
            break;
        }
        uint8_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != cells)
        memcpy(cells, src, size);
    free(scratch);
    return 0;
}

int oracle_generations(uint8_t *cells, int w, int h, int n, int r1, int r2, int self)
{
    return oracle_repeat(cells, w, h, n, ORACLE_GENERATION, r1, r2, self);
}

int oracle_generations_open(uint8_t *cells, int w, int h, int n, int r1, int r2, int self)
{
    return oracle_repeat(cells, w, h, n, ORACLE_GENERATION_OPEN, r1, r2, self);
}

int oracle_smooths(uint8_t *cells, int w, int h, int n, int walls)
{
    return oracle_repeat(cells, w, h, n, ORACLE_SMOOTH, walls, 0, 0);
}

int oracle_rules(uint8_t *cells, int w, int h, int n, int lo, int hi)
{
    return oracle_repeat(cells, w, h, n, ORACLE_RULE, lo, hi, 0);
}
