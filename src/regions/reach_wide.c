/* regions/reach_wide.c - the reach search for large budgets and no budget:
 * a breadth-first search that never waits on the distance array
 * (docs/reach.md, "How it is fast").
 *
 * A textbook queue BFS over a distance array reads the distance of every
 * neighbour of every cell it takes from the queue. On a 4096x4096 map that
 * array is 64 MiB; the frontier of a cave is a thin ragged line crossing
 * thousands of rows, so nearly every neighbour read is a cache miss, and
 * the search waits on memory for each. Here:
 *
 * - "may the search enter this cell?" is asked of a bitmap - one bit per
 *   cell of the padded distance array, at the same index, set for a free
 *   cell not reached yet (2 MiB for 4096x4096, which stays in cache). A
 *   neighbour is taken by clearing its bit, and appended to the queue
 *   without a branch.
 * - the distance array is only written: once per reached cell, when the
 *   cell leaves the queue, its level. The queue holds the next cells in
 *   order, so the line a cell will be written to is prefetched a few dozen
 *   cells ahead (software prefetching as in Ainsworth and Jones, "Software
 *   prefetching for indirect memory accesses", CGO 2017): stores never
 *   stall the search on a miss.
 * - the queue is a ring holding one level and the next, not every cell
 *   reached: it stays small and in cache (it grows if a frontier needs it).
 * - on Linux the distance array is backed by transparent huge pages when
 *   the system allows them on request: 32 page faults instead of 16384 for
 *   4096x4096, and no TLB misses on the frontier's rows.
 *
 * Levels are processed one at a time, so a budget is the level at which
 * the search stops. Nothing here depends on timing or memory: the distances
 * are those of any BFS (tests/test_reach.c compares them with the queue
 * BFS of reach.c and a plain one). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise */
#include <sys/mman.h>
#endif
#include <stdint.h>
#include <string.h>

#include "core/grid.h"
#include "core/mem.h"
#include "regions/reach.h"

/* Cells ahead in the queue whose distance line is prefetched. */
#define PREFETCH_AHEAD 32

/* Huge pages for the whole 2 MiB pages inside a large block: advice only,
 * ignored where not supported. */
static void advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* ORs the nbits bits of src (bits past nbits clear) into dst from bit off. */
static void or_bits(uint64_t *dst, size_t off, const uint64_t *src, size_t nbits)
{
    uint64_t *d = dst + (off >> 6);
    unsigned s = (unsigned)(off & 63);
    size_t words = (nbits + 63) / 64;
    if (s == 0) {
        for (size_t k = 0; k < words; k++)
            d[k] |= src[k];
        return;
    }
    for (size_t k = 0; k < words; k++) {
        d[k] |= src[k] << s;
        d[k + 1] |= src[k] >> (64 - s);
    }
}

/* The open bitmap: bit i set when padded cell i is a free cell of the
 * window (floor, not blocked). One spare word at the end for or_bits. */
static uint64_t *open_bits(const cg_grid *g, const cg__reach *r)
{
    size_t n = r->stride * ((size_t)r->h + 2);
    uint64_t *open = cg__calloc(n / 64 + 2, sizeof *open);
    uint64_t *row = cg__malloc(((size_t)r->w + 63) / 64 * sizeof *row);
    if (!open || !row) {
        cg__free(open);
        cg__free(row);
        return NULL;
    }
    for (uint32_t wy = 0; wy < r->h; wy++) {
        cg__reach_floor_bits(g, r->y0 + wy, r->x0, r->w, row);
        or_bits(open, (size_t)(wy + 1) * r->stride + 1, row, r->w);
    }
    cg__free(row);
    /* Blocked cells: never entered (a start on one is placed by hand). */
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        if (m->kind == CG_MARK_BLOCKED && m->y >= r->y0 && m->y - r->y0 < r->h && m->x >= r->x0 &&
            m->x - r->x0 < r->w) {
            size_t at = (size_t)(m->y - r->y0 + 1) * r->stride + (m->x - r->x0 + 1);
            open[at >> 6] &= ~(UINT64_C(1) << (at & 63));
        }
    }
    return open;
}

/* The ring queue: entries head .. tail-1 at q[i & mask], mask + 1 a power
 * of two. Every slot holds a valid cell index, read or not: the prefetch
 * looks ahead without checking the tail. */
typedef struct ring {
    uint32_t *q;
    size_t mask;
} ring;

/* Makes room for `room` entries past head (keeping head .. tail-1). */
static int ring_reserve(ring *rq, size_t head, size_t tail, size_t room, uint32_t fill)
{
    size_t cap = rq->mask + 1;
    if (room < cap)
        return 1;
    while (cap <= room)
        cap *= 2;
    uint32_t *q = cg__malloc(cap * sizeof *q);
    if (!q)
        return 0;
    for (size_t i = 0; i < cap; i++)
        q[i] = fill;
    for (size_t i = head; i < tail; i++)
        q[i & (cap - 1)] = rq->q[i & rq->mask];
    cg__free(rq->q);
    rq->q = q;
    rq->mask = cap - 1;
    return 1;
}

cg_status cg__reach_search_wide(cg__reach *r, const cg_grid *g, const cg_point *starts,
                                size_t nstarts, uint32_t max_moves)
{
    size_t n = r->stride * ((size_t)r->h + 2);
    uint64_t *open = open_bits(g, r);
    ring rq = {NULL, 0};
    if (!open)
        goto nomem;
    /* Every cell unreached (CG_UNREACHED: all bits set) until reached. */
    advise_huge(r->dist, n * sizeof *r->dist);
    memset(r->dist, 0xff, n * sizeof *r->dist);
    const size_t first = (size_t)(starts[0].y - r->y0 + 1) * r->stride + (starts[0].x - r->x0 + 1);
    if (!ring_reserve(&rq, 0, 0, 4096 > nstarts ? 4096 : nstarts, (uint32_t)first))
        goto nomem;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < nstarts; i++) {
        size_t at = (size_t)(starts[i].y - r->y0 + 1) * r->stride + (starts[i].x - r->x0 + 1);
        /* A start may be a blocked cell: the unit's own (docs/reach.md). */
        if (r->dist[at] != 0) {
            r->dist[at] = 0;
            open[at >> 6] &= ~(UINT64_C(1) << (at & 63));
            rq.q[tail++] = (uint32_t)at;
        }
    }
    const size_t stride = r->stride;
    uint32_t *dist = r->dist;
    for (uint32_t d = 0; head < tail; d++) {
        size_t end = tail;
        r->max_distance = d;
        if (d == max_moves) {
            for (; head < end; head++)
                dist[rq.q[head & rq.mask]] = d;
            break;
        }
        /* The level and the next: each cell adds at most its four sides
         * (three, but a start four), plus the slots written past the tail. */
        if (!ring_reserve(&rq, head, tail, 5 * (end - head) + 4, (uint32_t)first))
            goto nomem;
        uint32_t *q = rq.q;
        const size_t mask = rq.mask;
        for (; head < end; head++) {
            __builtin_prefetch(&dist[q[(head + PREFETCH_AHEAD) & mask]], 1, 3);
            size_t at = q[head & mask];
            dist[at] = d;
            /* Each side: appended without a branch (a write past the new
             * tail is overwritten later), its open bit cleared either way. */
#define VISIT(nb)                                                                                  \
    do {                                                                                           \
        size_t nb_ = (nb);                                                                         \
        uint64_t *w_ = &open[nb_ >> 6];                                                            \
        uint64_t v_ = *w_, f_ = v_ & (UINT64_C(1) << (nb_ & 63));                                  \
        q[tail & mask] = (uint32_t)nb_;                                                            \
        tail += f_ != 0;                                                                           \
        *w_ = v_ ^ f_;                                                                             \
    } while (0)
            VISIT(at - 1);
            VISIT(at + 1);
            VISIT(at - stride);
            VISIT(at + stride);
#undef VISIT
        }
    }
    r->count = tail;
    cg__free(open);
    cg__free(rq.q);
    return CG_OK;
nomem:
    cg__free(open);
    cg__free(rq.q);
    return CG_ENOMEM;
}
