/* flood.c - the 4-connected searches over floor that placement and the
 * figures share: a flood fill by runs of a row and a breadth-first shortest
 * path (regions/flood.h). The rule for blocked cells (docs/placement.md,
 * "Blocked cells"): the cave's shape counts them as floor (cg__flood); a
 * unit's moves never enter them, though it may start on one
 * (cg__flood_moves, cg__path_length). Every other marker is floor. */
#include "core/grid.h"
#include <string.h>

#include "core/mem.h"
#include "regions/flood.h"

/* -------------------------------------------------------------- the queue */

/* A growable ring buffer of cells packed as y << 32 | x. */
typedef struct queue {
    uint64_t *v;
    size_t cap, head, n; /* cap: 0 or a power of two */
} queue;

static cg_status q_push(queue *q, uint64_t item)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 1024;
        if (cap > SIZE_MAX / sizeof *q->v)
            return CG_EOVERFLOW;
        uint64_t *v = cg__malloc(cap * sizeof *v);
        if (!v)
            return CG_ENOMEM;
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) & (q->cap - 1)];
        cg__free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    q->v[(q->head + q->n) & (q->cap - 1)] = item;
    q->n++;
    return CG_OK;
}

static uint64_t q_pop(queue *q)
{
    uint64_t item = q->v[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return item;
}

/* ------------------------------------------------------------- searches */

/* The first wall after floor cell x of a row (the tail bits and the framing
 * word are wall, so the scan stops). */
static uint64_t wall_after(const uint64_t *row, uint64_t x)
{
    size_t i = (size_t)(x >> 6);
    uint64_t v = row[i] >> (x & 63);
    if (v)
        return x + (uint64_t)__builtin_ctzll(v);
    while (!row[++i])
        ;
    return (uint64_t)i * 64 + (uint64_t)__builtin_ctzll(row[i]);
}

/* The last wall before floor cell x of a row, as a signed position (-1:
 * the framing word before the map). */
static int64_t wall_before(const uint64_t *row, uint64_t x)
{
    ptrdiff_t i = (ptrdiff_t)(x >> 6);
    uint64_t v = row[i] << (63 - (x & 63));
    if (v)
        return (int64_t)x - __builtin_clzll(v);
    while (!row[--i])
        ;
    return (int64_t)i * 64 + 63 - __builtin_clzll(row[i]);
}

/* Bits lo..hi (inclusive, in one word) set. */
static inline uint64_t range_mask(unsigned lo, unsigned hi)
{
    return (~UINT64_C(0) << lo) & (~UINT64_C(0) >> (63 - hi));
}

/* Pushes the first cell of every run of floor-and-unreached cells of row y
 * within l..r: the span fill's seeds for a neighbouring row. */
static cg_status push_runs(queue *q, const cg_grid *g, const cg_grid *reached, uint32_t y,
                           uint64_t l, uint64_t r)
{
    const uint64_t *gr = cg__row(g, y), *rr = cg__row(reached, y);
    uint64_t carry = 0;
    for (size_t i = (size_t)(l >> 6); i <= (size_t)(r >> 6); i++) {
        unsigned lo = i == (size_t)(l >> 6) ? (unsigned)(l & 63) : 0;
        unsigned hi = i == (size_t)(r >> 6) ? (unsigned)(r & 63) : 63;
        uint64_t open = ~gr[i] & rr[i] & range_mask(lo, hi);
        uint64_t starts = open & ~(open << 1 | carry);
        carry = open >> 63;
        while (starts) {
            cg_status st =
                q_push(q, cg__pack_xy((uint64_t)i * 64 + (uint64_t)__builtin_ctzll(starts), y));
            if (st != CG_OK)
                return st;
            starts &= starts - 1;
        }
    }
    return CG_OK;
}

/* Maps at most NARROW_W cells wide and NARROW_H high flood a row of words
 * at a time (flood_narrow). */
#define NARROW_W 128u
#define NARROW_H 512u

static int force_span;

void cg__flood_force_span(int on)
{
    force_span = on;
}

/* The runs of floor f (a row of two words, f1 above f0) that hold a bit of
 * s (s within f), in place of s. Up the row by an addition: its carries run
 * from each seed through the floor above it to the run's end (the carry
 * trick of bitboard fills). Down by an occluded Kogge-Stone fill: six
 * shifts of 1 to 32 within the two words, then one of 64 across them, 127
 * cells in all. */
static inline void runs_of(uint64_t f0, uint64_t f1, uint64_t *s0, uint64_t *s1)
{
    uint64_t a0 = f0 + *s0;
    uint64_t a1 = f1 + *s1 + (a0 < f0);
    uint64_t u0 = *s0 | ((a0 ^ f0 ^ *s0) & f0), u1 = *s1 | ((a1 ^ f1 ^ *s1) & f1);
    uint64_t g0 = f0, g1 = f1;
    for (unsigned sh = 1; sh < 64; sh *= 2) {
        u0 |= g0 & (u0 >> sh | u1 << (64 - sh));
        u1 |= g1 & (u1 >> sh);
        g0 &= g0 >> sh | g1 << (64 - sh);
        g1 &= g1 >> sh;
    }
    *s0 = u0 | (g0 & u1);
    *s1 = u1;
}

/* cg__flood on a map of at most NARROW_W x NARROW_H cells: the reached
 * cells as two words a row, grown by sweeps down and up the rows (each row
 * takes the floor its neighbour in the sweep's direction touches, widened
 * to whole runs by runs_of) until a down and an up sweep add nothing. A
 * cave needs a few sweep pairs; a row with nothing new costs a few word
 * operations, where the span fill queued and looked up every run. The same
 * cells as the span fill (tests/test_place.c compares them). */
static void flood_narrow(const cg_grid *g, uint32_t x, uint32_t y, cg_grid *reached,
                         uint64_t *count)
{
    /* The reached cells (8 KiB at most, on the stack); the floor is read
     * from g's rows (tail and frame bits are wall). */
    uint64_t r[NARROW_H][2];
    const uint32_t h = g->h;
    const int two = g->nw > 1;
#define FLOOR(i, j) ((j) == 0 ? ~cg__row(g, i)[0] : two ? ~cg__row(g, i)[1] : 0)
    memset(r, 0, (size_t)h * sizeof r[0]);
    r[y][x >> 6] = UINT64_C(1) << (x & 63);
    runs_of(FLOOR(y, 0), FLOOR(y, 1), &r[y][0], &r[y][1]);
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = 1; i < h; i++) {
            uint64_t f0 = FLOOR(i, 0), f1 = FLOOR(i, 1);
            uint64_t s0 = r[i - 1][0] & f0 & ~r[i][0], s1 = r[i - 1][1] & f1 & ~r[i][1];
            if (s0 | s1) {
                runs_of(f0, f1, &s0, &s1);
                r[i][0] |= s0;
                r[i][1] |= s1;
                changed = 1;
            }
        }
        for (uint32_t i = h - 1; i-- > 0;) {
            uint64_t f0 = FLOOR(i, 0), f1 = FLOOR(i, 1);
            uint64_t s0 = r[i + 1][0] & f0 & ~r[i][0], s1 = r[i + 1][1] & f1 & ~r[i][1];
            if (s0 | s1) {
                runs_of(f0, f1, &s0, &s1);
                r[i][0] |= s0;
                r[i][1] |= s1;
                changed = 1;
            }
        }
    }
#undef FLOOR
    for (uint32_t i = 0; i < h; i++) {
        uint64_t *rr = cg__row(reached, i);
        for (size_t j = 0; j < g->nw; j++)
            rr[j] &= ~r[i][j];
    }
    /* The reached cells are reached's floor: counted with POPCNT where the
     * CPU has it (the baseline build's popcount is a library call). */
    *count = cg_grid_floor_count(reached);
}

cg_status cg__flood(const cg_grid *g, uint32_t x, uint32_t y, cg_grid *reached, uint64_t *count)
{
    /* A span fill (Smith, "Tint fill", 1979) on the bitboard: each popped
     * seed grows to its whole run of floor in the row, found a word at a
     * time, and seeds the runs that touch it in the rows above and below.
     * Every cell is reached once; the queue holds runs, not cells. */
    *count = 0;
    if (cg_grid_get(g, x, y) != CG_FLOOR)
        return CG_OK;
    if (g->w <= NARROW_W && g->h <= NARROW_H && !force_span) {
        flood_narrow(g, x, y, reached, count);
        return CG_OK;
    }
    queue q = {0};
    cg_status st = q_push(&q, cg__pack_xy(x, y));
    while (st == CG_OK && q.n) {
        uint64_t item = q_pop(&q);
        uint64_t cx = item & 0xFFFFFFFFu;
        uint32_t cy = (uint32_t)(item >> 32);
        uint64_t *rr = cg__row(reached, cy);
        if (!cg__bit(rr, cx))
            continue; /* reached through another run meanwhile */
        const uint64_t *gr = cg__row(g, cy);
        uint64_t l = (uint64_t)(wall_before(gr, cx) + 1), r = wall_after(gr, cx) - 1;
        for (size_t i = (size_t)(l >> 6); i <= (size_t)(r >> 6); i++) {
            unsigned lo = i == (size_t)(l >> 6) ? (unsigned)(l & 63) : 0;
            unsigned hi = i == (size_t)(r >> 6) ? (unsigned)(r & 63) : 63;
            rr[i] &= ~range_mask(lo, hi);
        }
        *count += r - l + 1;
        if (cy > 0)
            st = push_runs(&q, g, reached, cy - 1, l, r);
        if (st == CG_OK && cy + 1 < g->h)
            st = push_runs(&q, g, reached, cy + 1, l, r);
    }
    cg__free(q.v);
    return st;
}

int cg__has_blocked(const cg_grid *g)
{
    for (size_t i = 0; i < g->nmarks; i++)
        if (g->marks[i].kind == CG_MARK_BLOCKED)
            return 1;
    return 0;
}

/* A copy of g's cells (no markers) in which every blocked cell but (sx, sy)
 * is wall: what a unit standing on (sx, sy) can walk on. */
static cg_status walkable_copy(const cg_grid *g, uint32_t sx, uint32_t sy, cg_grid **out)
{
    cg_status st = cg__grid_new_like(out, g);
    if (st != CG_OK)
        return st;
    memcpy((*out)->mem, g->mem, g->stride * ((size_t)g->h + 2 * CG__PAD) * sizeof *g->mem);
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        if (m->kind == CG_MARK_BLOCKED && !(m->x == sx && m->y == sy))
            cg__row(*out, m->y)[m->x >> 6] |= UINT64_C(1) << (m->x & 63);
    }
    return CG_OK;
}

cg_status cg__flood_moves(const cg_grid *g, uint32_t x, uint32_t y, cg_grid *reached,
                          uint64_t *count)
{
    if (!cg__has_blocked(g))
        return cg__flood(g, x, y, reached, count);
    cg_grid *walk = NULL;
    cg_status st = walkable_copy(g, x, y, &walk);
    if (st == CG_OK)
        st = cg__flood(walk, x, y, reached, count);
    cg_grid_free(walk);
    return st;
}

cg_status cg__path_length(const cg_grid *g, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                          int64_t *length)
{
    /* Breadth-first search, one layer of the frontier per step, on a copy
     * of the map in which every visited cell is made wall: one bit test per
     * neighbour. Cells are addressed as (x + 64, y) from the word before
     * each row, so x - 1 = -1 reads the framing word and y +- 1 the padding
     * rows: all wall, no bounds test. */
    *length = -1;
    if (!cg__is_floor(g, x0, y0) || !cg__is_floor(g, x1, y1))
        return CG_OK;
    if (x0 == x1 && y0 == y1) {
        *length = 0;
        return CG_OK;
    }
    /* Blocked cells are walls to it, but for the start (a unit's own cell). */
    cg_grid *open = NULL;
    cg_status st = walkable_copy(g, x0, y0, &open);
    if (st != CG_OK)
        return st;
    const ptrdiff_t stride = (ptrdiff_t)g->stride;
    uint64_t *base = cg__row(open, 0) - 1; /* bit (x + 64) of row y: base + y*stride */
    const uint64_t target = cg__pack_xy((uint64_t)x1 + 64, y1);
    queue q = {0};
    uint64_t start = (uint64_t)x0 + 64;
    base[(ptrdiff_t)y0 * stride + (ptrdiff_t)(start >> 6)] |= UINT64_C(1) << (start & 63);
    st = q_push(&q, cg__pack_xy(start, y0));
    int64_t dist = 1;
    size_t layer = 1, next = 0;
    while (st == CG_OK && q.n) {
        uint64_t item = q_pop(&q);
        uint64_t cx = item & 0xFFFFFFFFu, cy = item >> 32;
        uint64_t nb[4] = {cg__pack_xy(cx + 1, cy), cg__pack_xy(cx - 1, cy), cg__pack_xy(cx, cy + 1),
                          cg__pack_xy(cx, cy - 1)};
        for (int k = 0; k < 4; k++) {
            uint64_t nx = nb[k] & 0xFFFFFFFFu;
            /* Row -1 wraps to 2^32 - 1 in the packing: take it as signed. */
            ptrdiff_t ny = (ptrdiff_t)(int32_t)(uint32_t)(nb[k] >> 32);
            uint64_t *w = &base[ny * stride + (ptrdiff_t)(nx >> 6)];
            uint64_t m = UINT64_C(1) << (nx & 63);
            if (*w & m)
                continue;
            if (nb[k] == target) {
                *length = dist;
                goto done;
            }
            *w |= m;
            if ((st = q_push(&q, nb[k])) != CG_OK)
                goto done;
            next++;
        }
        if (--layer == 0) {
            dist++;
            layer = next;
            next = 0;
        }
    }
done:
    cg__free(q.v);
    cg_grid_free(open);
    return st;
}
