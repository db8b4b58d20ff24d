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
 * - the queue is two arrays, the level being searched and the next, not
 *   every cell reached: they stay small and in cache (grown when a level
 *   needs it).
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

/* One side of a cell: cell nb is appended at q[tail] whether open or not
 * (a write past the new tail is overwritten later), the tail moves on if
 * its open bit was set, and the bit is cleared either way: no branch. On
 * x86-64 one BTR clears the bit and leaves its old value in the carry flag,
 * which ADC adds to the tail; in C the same takes a shift by a variable
 * count, three micro-ops on Intel cores (the flags it must keep), and a
 * mask - about a quarter more time for the whole search (measured on
 * 4096x4096: docs/reach.md). */
static inline size_t take(uint64_t *open, uint32_t *q, size_t tail, size_t nb)
{
    uint64_t *w = &open[nb >> 6];
    uint64_t v = *w;
    q[tail] = (uint32_t)nb;
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("btrq %2, %0\n\tadcq $0, %1" : "+r"(v), "+r"(tail) : "r"(nb) : "cc");
#else
    tail += (size_t)((v >> (nb & 63)) & 1);
    v &= ~(UINT64_C(1) << (nb & 63));
#endif
    *w = v;
    return tail;
}

/* A level of the search: the cells in queue order, room for cap. */
typedef struct level {
    uint32_t *cell;
    size_t n, cap;
} level;

/* Room for `room` cells in an emptied level. */
static int level_reserve(level *l, size_t room)
{
    if (room <= l->cap)
        return 1;
    size_t cap = l->cap ? l->cap : 4096;
    while (cap < room)
        cap *= 2;
    uint32_t *c = cg__malloc(cap * sizeof *c);
    if (!c)
        return 0;
    cg__free(l->cell);
    l->cell = c;
    l->cap = cap;
    return 1;
}

cg_status cg__reach_search_wide(cg__reach *r, const cg_grid *g, const cg_point *starts,
                                size_t nstarts, uint32_t max_moves)
{
    size_t n = r->stride * ((size_t)r->h + 2);
    uint64_t *open = open_bits(g, r);
    level cur = {NULL, 0, 0}, nxt = {NULL, 0, 0};
    cg_status st = CG_ENOMEM;
    if (!open || !level_reserve(&cur, nstarts))
        goto done;
    /* Every cell unreached (CG_UNREACHED: all bits set) until reached. */
    advise_huge(r->dist, n * sizeof *r->dist);
    memset(r->dist, 0xff, n * sizeof *r->dist);
    uint32_t *dist = r->dist;
    for (size_t i = 0; i < nstarts; i++) {
        size_t at = (size_t)(starts[i].y - r->y0 + 1) * r->stride + (starts[i].x - r->x0 + 1);
        /* A start may be a blocked cell: the unit's own (docs/reach.md). */
        if (dist[at] != 0) {
            dist[at] = 0;
            open[at >> 6] &= ~(UINT64_C(1) << (at & 63));
            cur.cell[cur.n++] = (uint32_t)at;
        }
    }
    const size_t stride = r->stride;
    r->count = 0;
    for (uint32_t d = 0; cur.n > 0; d++) {
        r->max_distance = d;
        r->count += cur.n;
        const uint32_t *c = cur.cell;
        const size_t len = cur.n;
        if (d == max_moves) {
            for (size_t i = 0; i < len; i++)
                dist[c[i]] = d;
            break;
        }
        /* A cell adds at most its four sides (three, but a start four),
         * plus the slot written past the last. */
        if (!level_reserve(&nxt, 4 * len + 1))
            goto done;
        uint32_t *q = nxt.cell;
        size_t tail = 0;
        for (size_t i = 0; i < len; i++) {
            __builtin_prefetch(&dist[c[i + PREFETCH_AHEAD < len ? i + PREFETCH_AHEAD : i]], 1, 3);
            size_t at = c[i];
            dist[at] = d;
            tail = take(open, q, tail, at - 1);
            tail = take(open, q, tail, at + 1);
            tail = take(open, q, tail, at - stride);
            tail = take(open, q, tail, at + stride);
        }
        nxt.n = tail;
        level t = cur;
        cur = nxt;
        nxt = t;
        nxt.n = 0;
    }
    st = CG_OK;
done:
    cg__free(open);
    cg__free(cur.cell);
    cg__free(nxt.cell);
    return st;
}
