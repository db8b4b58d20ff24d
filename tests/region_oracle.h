/* region_oracle.h - the plain scalar reference for 4-connected regions
 * (the Russian cellular-automata article): a textbook breadth-first flood fill over a byte per cell,
 * bounds-checked, exactly as the article describes it ("walk the matrix, find an
 * unvisited floor cell, BFS in four directions, mark visited"). The library's
 * run-based labeller is tested bit for bit against it. Include after
 * testutil.h. Maps are row-major bytes, 1 = wall, 0 = floor.
 */
#ifndef CG_REGION_ORACLE_H
#define CG_REGION_ORACLE_H

#include <stdint.h>
#include <stdlib.h>

typedef struct ro_regions {
    int n;         /* regions, numbered 1..n in scan order of their first cell */
    int *lab;      /* per cell: its region, 0 for cells of the other kind */
    int64_t *size; /* size[r], r in 1..n */
    uint8_t *edge; /* edge[r]: the region touches the map's edge */
} ro_regions;

/* Labels the regions of the cells equal to kind (1 walls, 0 floor). */
static inline ro_regions ro_label(const uint8_t *cells, int w, int h, uint8_t kind)
{
    size_t n = (size_t)w * (size_t)h;
    ro_regions r = {0, calloc(n, sizeof(int)), calloc(n + 1, sizeof(int64_t)), calloc(n + 1, 1)};
    int *queue = malloc(n * sizeof *queue);
    assert_non_null(r.lab);
    assert_non_null(r.size);
    assert_non_null(r.edge);
    assert_non_null(queue);
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int at = y * w + x;
            if (cells[at] != kind || r.lab[at])
                continue;
            int id = ++r.n, head = 0, tail = 0;
            r.lab[at] = id;
            queue[tail++] = at;
            while (head < tail) {
                int c = queue[head++], cx = c % w, cy = c / w;
                r.size[id]++;
                if (cx == 0 || cy == 0 || cx == w - 1 || cy == h - 1)
                    r.edge[id] = 1;
                for (int d = 0; d < 4; d++) {
                    int nx = cx + dx[d], ny = cy + dy[d];
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                        continue;
                    int nb = ny * w + nx;
                    if (cells[nb] == kind && !r.lab[nb]) {
                        r.lab[nb] = id;
                        queue[tail++] = nb;
                    }
                }
            }
        }
    }
    free(queue);
    return r;
}

static inline void ro_free(ro_regions *r)
{
    free(r->lab);
    free(r->size);
    free(r->edge);
}

/* remove-floor min=N: floor regions of fewer than min cells become wall. */
static inline void ro_remove_floor(uint8_t *cells, int w, int h, int64_t min)
{
    ro_regions r = ro_label(cells, w, h, 0);
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        if (r.lab[i] && r.size[r.lab[i]] < min)
            cells[i] = 1;
    ro_free(&r);
}

/* remove-walls min=N: wall regions of fewer than min cells that do not touch
 * the map's edge become floor. */
static inline void ro_remove_walls(uint8_t *cells, int w, int h, int64_t min)
{
    ro_regions r = ro_label(cells, w, h, 1);
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        if (r.lab[i] && !r.edge[r.lab[i]] && r.size[r.lab[i]] < min)
            cells[i] = 0;
    ro_free(&r);
}

/* keep-largest: every floor region but the largest (ties: the first in scan
 * order) becomes wall. */
static inline void ro_keep_largest(uint8_t *cells, int w, int h)
{
    ro_regions r = ro_label(cells, w, h, 0);
    int best = 0;
    for (int i = 1; i <= r.n; i++)
        if (!best || r.size[i] > r.size[best])
            best = i;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        if (r.lab[i] && r.lab[i] != best)
            cells[i] = 1;
    ro_free(&r);
}

/* The number of floor regions and the size of the largest. */
static inline int ro_floor_regions(const uint8_t *cells, int w, int h, int64_t *largest)
{
    ro_regions r = ro_label(cells, w, h, 0);
    int n = r.n;
    *largest = 0;
    for (int i = 1; i <= r.n; i++)
        if (r.size[i] > *largest)
            *largest = r.size[i];
    ro_free(&r);
    return n;
}

#endif
