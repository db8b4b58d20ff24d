/* reach.h - reach results (regions/reach.c; docs/reach.md). */
#ifndef CG_REGIONS_REACH_H
#define CG_REGIONS_REACH_H

#include <stddef.h>
#include <stdint.h>

#include "core/grid.h"

/* Distances over a window of the map, held in a padded array (one cell on
 * each side) so the search needs no bounds tests. Cells outside the window
 * are unreached. A cell holds its distance plus one, 0 when unreached: the
 * array starts as zeroed memory (the system's fresh pages), so a search
 * writes only the cells it reaches. The cells are 16 bits while every
 * distance + 1 fits (half the bytes to write and for the system to zero),
 * 32 bits past that: exactly one of d16 and d32 is set, and cg__reach_dist
 * reads either. */
typedef struct cg__reach {
    uint32_t x0, y0, w, h; /* the window */
    size_t stride;         /* w + 2 */
    /* (h + 2) * stride cells; cell (x, y) at (y-y0+1)*stride + x-x0+1,
     * holding its distance + 1, or 0 */
    uint16_t *d16;
    uint32_t *d32;
    uint32_t max_distance;
    uint64_t count; /* cells reached */
} cg__reach;

/* The largest distance a 16-bit array holds (stored as 65535). */
#define CG__REACH_D16_MAX (UINT16_MAX - 1u)

/* The distance of padded cell i: CG_UNREACHED (UINT32_MAX) for a stored 0,
 * by the wrap of unsigned arithmetic. */
static inline uint32_t cg__reach_dist(const cg__reach *r, size_t i)
{
    return r->d32 ? r->d32[i] - 1u : (uint32_t)r->d16[i] - 1u;
}

/* The index of cell (x, y) of the window's row y, column x (window-local). */
static inline size_t cg__reach_at(const cg__reach *r, uint32_t wx, uint32_t wy)
{
    return (size_t)(wy + 1) * r->stride + wx + 1;
}

/* Turns a 16-bit array into a 32-bit one holding the same values (in place,
 * by a reallocation): 0 when out of memory, the reach unchanged. */
int cg__reach_widen(cg__reach *r);

cg_status cg__reach_clone(cg__reach **out, const cg__reach *src);
void cg__reach_free(cg__reach *r);
struct cg__par;
/* The search for large budgets and no budget (regions/reach_wide.c): fills
 * the 16-bit r->d16 (the window set in r; widened when a distance passes
 * CG__REACH_D16_MAX), r->count and r->max_distance; on two
 * threads through par (NULL: one) when the window is large. */
cg_status cg__reach_search_wide(cg__reach *r, const cg_grid *g, const cg_point *starts,
                                size_t nstarts, uint32_t max_moves, const struct cg__par *par);
/* cg_grid_reach with the run's parallel loop (NULL: one thread); the same
 * distances for any loop. */
cg_status cg__grid_reach_par(cg_grid *grid, const cg_point *starts, size_t nstarts,
                             uint32_t max_moves, const struct cg__par *par, cg_diag *diag);
/* Cells x0 .. x0+n-1 of map row y as bits, 1 = floor (blocked cells too),
 * into out[0 .. ceil(n/64)-1], the bits past n clear. */
void cg__reach_floor_bits(const cg_grid *g, uint32_t y, uint32_t x0, uint32_t n, uint64_t *out);
/* Test hook: -1 chooses the search by budget, 0 forces the queue BFS, 1 the
 * bitboard search, 2 the wide search. Not thread-safe; tests only. */
void cg__reach_force_path(int path);
/* Test hook: nonzero makes the wide search use two threads (when given a
 * parallel loop) at any window size. Not thread-safe; tests only. */
void cg__reach_force_split(int on);

#endif
