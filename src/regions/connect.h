/* regions/connect.h - what connect's two searches share (regions/connect.c,
 * regions/voronoi.c): Kruskal's union-find over the regions and the carving
 * of a taken edge. docs/regions.md has the algorithm. */
#ifndef CG_CONNECT_H
#define CG_CONNECT_H

#include "core/grid.h"
#include "regions/regions.h"

#define CG__NONE UINT32_MAX
#define CG__BIG 0 /* the region id of the largest region; the others are 1..R-1 */

/* The spanning tree being built and the map it is carved into. */
typedef struct cg__kruskal {
    cg_grid *g; /* the map being carved */
    uint32_t w, h;
    size_t stride;       /* of big: one zero word each side of a row, a zero row above and below */
    const uint64_t *big; /* the largest region's floor, framed; or NULL: */
    /* Without big, whether (x, y) is the largest region's floor is asked of
     * big_at, and the corridors wait in defer (px, py, qx, qy each) for
     * cg__connect_carve_deferred: the map must not change under big_at. */
    int (*big_at)(const struct cg__kruskal *k, int64_t x, int64_t y);
    const void *ctx; /* big_at's */
    uint32_t *defer;
    size_t deferred, defer_cap;
    int oom; /* defer could not grow */
    uint32_t *uf;
    uint64_t regions; /* components left */
    uint32_t width;
    uint64_t corridors;
    uint32_t seen_a, seen_b; /* the last pair of regions found joined */
} cg__kruskal;

/* One end of a candidate edge: region, cell, its distance, and its source
 * floor cell (CG__NONE for the largest region's territory, found again on
 * the diamond of that radius when the edge is taken). */
typedef struct cg__end {
    uint32_t reg, cell, dist, src;
} cg__end;

/* Whether regions a and b are joined. Joins are never undone, so the last
 * pair found joined is remembered: along a border between two territories
 * the same pair comes up cell after cell. */
static inline __attribute__((always_inline)) int cg__joined(cg__kruskal *k, uint32_t a, uint32_t b)
{
    if ((a == k->seen_a && b == k->seen_b) || (a == k->seen_b && b == k->seen_a))
        return 1;
    if (cg__uf_find(k->uf, a) != cg__uf_find(k->uf, b))
        return 0;
    k->seen_a = a;
    k->seen_b = b;
    return 1;
}

/* Kruskal's step: takes edge (a, b) - carves its corridor from a's source
 * to b's - unless its regions are already joined. */
void cg__connect_take(cg__kruskal *k, const cg__end *a, const cg__end *b);

/* Carves the corridors kept in defer, in the order taken, and frees the
 * list; CG_ENOMEM if it could not hold them all. */
cg_status cg__connect_carve_deferred(cg__kruskal *k);

/* connect's search on the layers of one breadth-first search, row by row
 * (regions/voronoi.c); same corridors as the search in regions/connect.c. */
cg_status cg__connect_voronoi(cg_grid *g, uint32_t width, uint64_t *corridors);

/* TEST ONLY, not thread-safe: nonzero makes cg__connect run its first
 * search (regions/connect.c), the twin of cg__connect_voronoi. */
void cg__connect_force_base(int on);

/* TEST ONLY, not thread-safe: 1 makes cg__connect_voronoi plan its window
 * at the first layer it can, whatever it costs; 2 also with too near a
 * bound, so the search runs again without one (regions/voronoi.c). */
void cg__connect_force_window(int mode);

#endif
