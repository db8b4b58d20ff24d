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
 *   cell leaves the queue, its level + 1 (0, unreached, is what the zeroed
 *   array holds already: no pass fills it). The queue holds the next cells
 *   in order, so the line a cell will be written to is prefetched a few dozen
 *   cells ahead (software prefetching as in Ainsworth and Jones, "Software
 *   prefetching for indirect memory accesses", CGO 2017): a store never
 *   waits for its line to be read. What is left is the traffic itself (on
 *   4096x4096 about a third of a one-thread search is spent on it).
 * - the queue is two levels, the one being searched and the next, not
 *   every cell reached: they stay small and in cache (grown when a level
 *   needs it).
 * - on Linux the distance array is backed by transparent huge pages when
 *   the system allows them on request: 32 page faults instead of 16384 for
 *   4096x4096, and no TLB misses on the frontier's rows.
 *
 * Levels are processed one at a time, so a budget is the level at which
 * the search stops. Given a parallel loop and a large window, the search
 * and the distance writes go to two threads (search_two, below). Nothing
 * here depends on timing or memory: the distances are those of any BFS
 * (tests/test_reach.c compares them with the queue BFS of reach.c and a
 * plain one). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* sched_yield */
#include <sched.h>
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cells/par.h"
#include "core/grid.h"
#include "core/mem.h"
#include "regions/reach.h"

/* Cells ahead in the queue whose distance line is prefetched. */
#define PREFETCH_AHEAD 32

/* Windows from this many cells search on two threads when the run has a
 * parallel loop. Below it the search takes a few milliseconds at most, and
 * starting the loop's tasks and handing levels over are a larger share of
 * it (a round figure, not a measured break-even). */
#define SPLIT_MIN_CELLS ((size_t)1 << 20)

static int split_forced; /* test hook: two threads at any size */

void cg__reach_force_split(int on)
{
    split_forced = on;
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

/* A level of the search: its cells in four groups by the move that reached
 * them, group g at cell + g * room with n[g] cells. A cell reached by a
 * move to the right came from its left side, taken already: it has three
 * sides to take, not four (a quarter fewer bitmap operations). Level 0, the
 * starts, is all in group 0 and takes its fourth side apart. */
typedef struct level {
    uint32_t *cell;
    size_t cap, room, n[4];
} level;

enum { MOVED_RIGHT, MOVED_LEFT, MOVED_DOWN, MOVED_UP };

static size_t level_cells(const level *l)
{
    return l->n[0] + l->n[1] + l->n[2] + l->n[3];
}

/* Room for `room` cells in each group of an emptied level. */
static int level_reserve(level *l, size_t room)
{
    l->n[0] = l->n[1] = l->n[2] = l->n[3] = 0;
    l->room = room;
    if (4 * room <= l->cap)
        return 1;
    size_t cap = l->cap ? l->cap : 4096;
    while (cap < 4 * room)
        cap *= 2;
    uint32_t *c = cg__malloc(cap * sizeof *c);
    if (!c)
        return 0;
    cg__free(l->cell);
    l->cell = c;
    l->cap = cap;
    return 1;
}

/* Stores v in cell at of a 16-bit (w32 0) or 32-bit array, the line of cell
 * ahead prefetched. Inlined with a constant w32: no test left. */
static inline __attribute__((always_inline)) void store(void *dist, int w32, size_t at,
                                                        size_t ahead, uint32_t v)
{
    if (w32) {
        __builtin_prefetch((uint32_t *)dist + ahead, 1, 3);
        ((uint32_t *)dist)[at] = v;
    } else {
        __builtin_prefetch((uint16_t *)dist + ahead, 1, 3);
        ((uint16_t *)dist)[at] = (uint16_t)v;
    }
}

/* Takes sides s0, s1, s2 (offsets) of the len cells c into the next
 * level's groups, all at q: the tails *t0, *t1, *t2 count from q, group g
 * from g * room, so one register holds the three groups' base (with three,
 * the loop ran out of registers and kept values on the stack). With dist
 * (of w32 ? 32 : 16 bits), first stores v (the cells' distance + 1), the
 * line of a cell PREFETCH_AHEAD on prefetched, the last PREFETCH_AHEAD
 * cells in a loop of their own (no bound on the prefetch's index). Inlined:
 * a NULL dist leaves no test in the loop. */
static inline __attribute__((always_inline)) void
take_three(uint64_t *open, const uint32_t *c, size_t len, void *dist, int w32, uint32_t v,
           size_t s0, size_t s1, size_t s2, uint32_t *q, size_t *t0, size_t *t1, size_t *t2)
{
    size_t a = *t0, b = *t1, e = *t2, i = 0;
    if (dist)
        for (; i + PREFETCH_AHEAD < len; i++) {
            size_t at = c[i];
            store(dist, w32, at, c[i + PREFETCH_AHEAD], v);
            a = take(open, q, a, at + s0);
            b = take(open, q, b, at + s1);
            e = take(open, q, e, at + s2);
        }
    for (; i < len; i++) {
        size_t at = c[i];
        if (dist)
            store(dist, w32, at, at, v);
        a = take(open, q, a, at + s0);
        b = take(open, q, b, at + s1);
        e = take(open, q, e, at + s2);
    }
    *t0 = a;
    *t1 = b;
    *t2 = e;
}

/* Level d + 1 from level d (cur) into nxt, reserved with room for each of
 * cur's cells plus the slot written past the last; with dist (of w32 ? 32 :
 * 16 bits), the distances of cur written on the way. */
static inline __attribute__((always_inline)) void
expand(uint64_t *open, size_t stride, const level *cur, level *nxt, void *dist, int w32, uint32_t d)
{
    const size_t room = nxt->room, one = 1, up = (size_t)0 - stride, left = (size_t)0 - 1;
    uint32_t *q = nxt->cell;
    /* The groups' tails, from q. */
    size_t tr = MOVED_RIGHT * room, tl = MOVED_LEFT * room, td = MOVED_DOWN * room,
           tu = MOVED_UP * room;
    const uint32_t *c = cur->cell;
    if (d == 0) /* the starts: their left sides too */
        for (size_t i = 0; i < cur->n[0]; i++)
            tl = take(open, q, tl, c[i] - 1);
    const uint32_t v = d + 1;
    take_three(open, c, cur->n[MOVED_RIGHT], dist, w32, v, one, up, stride, q, &tr, &tu, &td);
    c += cur->room;
    take_three(open, c, cur->n[MOVED_LEFT], dist, w32, v, left, up, stride, q, &tl, &tu, &td);
    c += cur->room;
    take_three(open, c, cur->n[MOVED_DOWN], dist, w32, v, stride, left, one, q, &td, &tl, &tr);
    c += cur->room;
    take_three(open, c, cur->n[MOVED_UP], dist, w32, v, up, left, one, q, &tu, &tl, &tr);
    nxt->n[MOVED_RIGHT] = tr - MOVED_RIGHT * room;
    nxt->n[MOVED_LEFT] = tl - MOVED_LEFT * room;
    nxt->n[MOVED_DOWN] = td - MOVED_DOWN * room;
    nxt->n[MOVED_UP] = tu - MOVED_UP * room;
}

/* write_cells in one width (w32 as in store). */
static inline __attribute__((always_inline)) void write_cells_w(void *dist, int w32, const level *l,
                                                                uint32_t d)
{
    const uint32_t v = d + 1;
    for (int g = 0; g < 4; g++) {
        const uint32_t *c = l->cell + (size_t)g * l->room;
        const size_t n = l->n[g];
        for (size_t i = 0; i < n; i++)
            store(dist, w32, c[i], c[i + PREFETCH_AHEAD < n ? i + PREFETCH_AHEAD : i], v);
    }
}

/* Writes distance d for every cell of l (stored as d + 1), in r's width. */
static void write_cells(cg__reach *r, const level *l, uint32_t d)
{
    if (r->d32)
        write_cells_w(r->d32, 1, l, d);
    else
        write_cells_w(r->d16, 0, l, d);
}

/* The search on one thread from level d0 (cur): each level's distances
 * written as its cells leave the queue, the lines they go to prefetched.
 * The 16-bit array is widened when the first level whose distance + 1 does
 * not fit comes up: every level before it is written by then. */
static cg_status search_one(cg__reach *r, uint64_t *open, level *cur, level *nxt, uint32_t d0,
                            uint32_t max_moves)
{
    for (uint32_t d = d0;; d++) {
        const size_t len = level_cells(cur);
        if (len == 0)
            break;
        r->max_distance = d;
        r->count += len;
        if (d > CG__REACH_D16_MAX && r->d16 && !cg__reach_widen(r))
            return CG_ENOMEM;
        if (d == max_moves) {
            write_cells(r, cur, d);
            break;
        }
        if (!level_reserve(nxt, len + 1))
            return CG_ENOMEM;
        if (r->d32)
            expand(open, r->stride, cur, nxt, r->d32, 1, d);
        else
            expand(open, r->stride, cur, nxt, r->d16, 0, d);
        level t = *cur;
        *cur = *nxt;
        *nxt = t;
    }
    return CG_OK;
}

/* ---- the search on two threads: one searches, one writes distances.
 *
 * Without its distance writes the search runs on the bitmap and the two
 * levels alone, all in cache; the writes - random stores over the whole
 * array, which miss - go to the other thread. The searcher leaves each level
 * in a ring of RING levels and goes on; the writer takes the levels from the
 * ring and stores their distances. Nobody waits for a thread that is not
 * running: the searcher writes a level itself when its slot is needed again
 * and the writer has not taken it yet, and the roles go to the tasks in the
 * order they start, so a parallel loop that runs the two tasks one after the
 * other (or a writer that starts late) costs time, never a deadlock. Each
 * slot is taken by an atomic exchange of its state, so every level is
 * written once; a distance does not depend on who writes it or when. */

#define RING 64

enum { SLOT_FREE, SLOT_READY, SLOT_TAKEN };

typedef struct slot {
    level l;
    uint32_t d;
    atomic_int state;
} slot;

typedef struct split {
    cg__reach *r;
    uint64_t *open;
    uint32_t max_moves;
    const level *start; /* level 0, the starts */
    level rest;         /* the first level past 16 bits, if reached */
    uint32_t rest_d;    /* its distance */
    slot ring[RING];
    atomic_int roles;    /* tasks started */
    atomic_int finished; /* the searcher is done (release: its last level is in the ring) */
    int failed;          /* out of memory; read after the parallel loop */
} split;

/* One turn of a wait for the other thread; *turns counts them. After a
 * few, the thread gives its core up: on a machine busier than its cores,
 * the thread waited for may be the one that needs it. */
static void spin(unsigned *turns)
{
#if defined(__linux__)
    if (++*turns > 64) {
        sched_yield();
        return;
    }
#else
    (void)turns;
#endif
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Stores the distances of a taken slot's level and frees the slot. */
static void write_level(cg__reach *r, slot *s)
{
    write_cells(r, &s->l, s->d);
    atomic_store_explicit(&s->state, SLOT_FREE, memory_order_release);
}

/* Takes a ready slot for writing: 1 if this thread got it. */
static int take_slot(slot *s)
{
    int ready = SLOT_READY;
    return atomic_compare_exchange_strong_explicit(&s->state, &ready, SLOT_TAKEN,
                                                   memory_order_acquire, memory_order_relaxed);
}

static void searcher(split *j)
{
    cg__reach *r = j->r;
    /* Level 0 copied: every level in the ring is allocated by this task. */
    const size_t starts = j->start->n[0];
    if (!level_reserve(&j->ring[0].l, starts)) {
        j->failed = 1;
        atomic_store_explicit(&j->finished, 1, memory_order_release);
        return;
    }
    memcpy(j->ring[0].l.cell, j->start->cell, starts * sizeof *j->start->cell);
    j->ring[0].l.n[0] = starts;
    atomic_store_explicit(&j->ring[0].state, SLOT_READY, memory_order_release);
    for (uint32_t d = 0;; d++) {
        slot *cur = &j->ring[d % RING], *nxt = &j->ring[(d + 1) % RING];
        r->max_distance = d;
        const size_t len = level_cells(&cur->l);
        r->count += len;
        if (d == j->max_moves)
            break;
        /* The slot of level d + 1 - RING: written by whoever gets it. */
        if (atomic_load_explicit(&nxt->state, memory_order_relaxed) == SLOT_READY && take_slot(nxt))
            write_level(r, nxt);
        for (unsigned turns = 0;
             atomic_load_explicit(&nxt->state, memory_order_acquire) != SLOT_FREE;)
            spin(&turns); /* the writer is storing it */
        if (!level_reserve(&nxt->l, len + 1)) {
            j->failed = 1;
            break;
        }
        expand(j->open, r->stride, &cur->l, &nxt->l, NULL, 0, d);
        if (level_cells(&nxt->l) == 0)
            break;
        /* A level the 16-bit array cannot hold: left for one thread, after
         * the writer has stored every level before it and the array is
         * widened (only a window with that many levels pays for it). */
        if (d + 1 > CG__REACH_D16_MAX) {
            j->rest = nxt->l;
            j->rest_d = d + 1;
            nxt->l = (level){0};
            break;
        }
        nxt->d = d + 1;
        atomic_store_explicit(&nxt->state, SLOT_READY, memory_order_release);
    }
    atomic_store_explicit(&j->finished, 1, memory_order_release);
}

static void writer(split *j)
{
    cg__reach *r = j->r;
    for (size_t k = 0;; k++) {
        slot *s = &j->ring[k % RING];
        /* Wait for level k (or a later one in its slot); move on if the
         * searcher is writing it. */
        for (unsigned turns = 0;;) {
            /* Read before the exchange: a waiting writer must not take the
             * slot's line from the searcher at every turn. */
            int st = atomic_load_explicit(&s->state, memory_order_relaxed);
            if (st == SLOT_READY && take_slot(s)) {
                write_level(r, s);
                break;
            }
            if (st == SLOT_TAKEN)
                break;
            if (atomic_load_explicit(&j->finished, memory_order_acquire)) {
                for (size_t i = 0; i < RING; i++) /* the levels left */
                    if (take_slot(&j->ring[i]))
                        write_level(r, &j->ring[i]);
                return;
            }
            spin(&turns);
        }
    }
}

static void split_task(void *arg, size_t i)
{
    (void)i;
    split *j = arg;
    if (atomic_fetch_add_explicit(&j->roles, 1, memory_order_relaxed) == 0)
        searcher(j);
    else
        writer(j);
}

static cg_status search_two(cg__reach *r, uint64_t *open, const level *start, uint32_t max_moves,
                            const cg__par *par)
{
    split *j = cg__calloc(1, sizeof *j);
    if (!j)
        return CG_ENOMEM;
    j->r = r;
    j->open = open;
    j->max_moves = max_moves;
    for (size_t i = 0; i < RING; i++)
        atomic_init(&j->ring[i].state, SLOT_FREE);
    atomic_init(&j->roles, 0);
    atomic_init(&j->finished, 0);
    j->start = start;
    /* The levels count against no budget, as any memory other threads hold
     * (they are freed before the step ends). */
    cg__budget *budget = cg__budget_suspend();
    par->fn(par->ctx, 2, split_task, j);
    cg__budget_resume(budget);
    cg_status st = j->failed ? CG_ENOMEM : CG_OK;
    if (st == CG_OK && level_cells(&j->rest)) {
        level tmp = {0};
        st = cg__reach_widen(r) ? search_one(r, open, &j->rest, &tmp, j->rest_d, max_moves)
                                : CG_ENOMEM;
        cg__free(tmp.cell);
    }
    cg__free(j->rest.cell);
    for (size_t i = 0; i < RING; i++)
        cg__free(j->ring[i].l.cell);
    cg__free(j);
    return st;
}

cg_status cg__reach_search_wide(cg__reach *r, const cg_grid *g, const cg_point *starts,
                                size_t nstarts, uint32_t max_moves, const cg__par *par)
{
    size_t n = r->stride * ((size_t)r->h + 2);
    uint64_t *open = open_bits(g, r);
    level cur = {0}, nxt = {0};
    cg_status st = CG_ENOMEM;
    if (!open || !level_reserve(&cur, nstarts))
        goto done;
    cg__mem_advise_huge(r->d16, n * sizeof *r->d16);
    /* Level 0: each start once (the distances are written with the level). */
    for (size_t i = 0; i < nstarts; i++) {
        size_t at = (size_t)(starts[i].y - r->y0 + 1) * r->stride + (starts[i].x - r->x0 + 1);
        size_t k = 0;
        while (k < cur.n[0] && cur.cell[k] != at)
            k++;
        if (k < cur.n[0])
            continue;
        /* A start may be a blocked cell: the unit's own (docs/reach.md). */
        open[at >> 6] &= ~(UINT64_C(1) << (at & 63));
        cur.cell[cur.n[0]++] = (uint32_t)at;
    }
    r->count = 0;
    if (par && par->fn && (n >= SPLIT_MIN_CELLS || split_forced)) {
        st = search_two(r, open, &cur, max_moves, par);
    } else {
        st = search_one(r, open, &cur, &nxt, 0, max_moves);
    }
done:
    cg__free(open);
    cg__free(cur.cell);
    cg__free(nxt.cell);
    return st;
}
