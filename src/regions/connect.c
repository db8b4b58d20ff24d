/* regions/connect.c - `connect [width=W]`: carve corridors until every floor region
 * is one region, joining regions at their closest points (the Russian
 * cellular-automata article, docs/algorithms.md: "cut a
 * corridor between the closest points of two regions").
 *
 * Which regions to join, and where, is a minimum spanning tree over the
 * regions weighted by the city-block distance between their closest cells.
 * It is found without comparing regions pairwise:
 *
 *  1. Label the floor regions (regions/regions.c, on runs).
 *  2. Grow every region at once, one ring of cells per layer: layer k is the
 *     set of cells at distance k from the nearest floor (a breadth-first
 *     search from all floor cells, 4-neighbour steps through any cell), and
 *     every cell is owned by a region that reaches it first (the discrete
 *     Voronoi diagram of the regions).
 *  3. Where neighbouring cells u, v are owned by different regions A, B,
 *     those regions are at most d(u) + 1 + d(v) apart. By Mehlhorn's lemma
 *     ("A faster approximation algorithm for the Steiner problem in
 *     graphs", IPL 27, 1988) a minimum spanning tree over these Voronoi
 *     edges alone is one of the complete distance graph of the regions.
 *  4. Kruskal's algorithm over them, lightest first, while the search runs:
 *     layer k meets every edge of weight 2k (a cell of layer k beside one of
 *     layer k - 1) and 2k + 1 (two cells of layer k), and none lighter is
 *     left, so the 2k edges are taken as they are met and the 2k + 1 ones at
 *     the end of the layer. The search stops when one region is left.
 *  5. An edge is carved between the floor cells of A and B nearest to u and
 *     v: the corridor runs straight between them.
 *
 * The search runs on bitboards, 64 cells per word operation, over only the
 * words where the wave front is. Cells are followed one by one only where
 * that cannot be avoided: the largest region's territory is a bitboard of
 * its own (a cell beside its territory joins it: ties go to the largest
 * region), so per-cell work is limited to the other regions' territories,
 * whose owners live in dense arrays in scan order, indexed by rank within
 * the front (popcount). In a typical cave one region holds most of the floor
 * and the others' territories are a small part of the map.
 *
 * connect runs the same search laid out row by row (regions/voronoi.c,
 * the same corridors, faster); the one below, whole layers at a time, is
 * kept as its twin for the tests (cg__connect_force_base). Both share the
 * carving and Kruskal's step here (regions/connect.h).
 *
 * The corridor is a line whose steps are 4-connected (it can be walked by a
 * 4-neighbour mover: no diagonal staircase touching only at corners), each
 * step advancing the axis whose progress lags, compared exactly in
 * integers, thickened with a W x W square brush into a passage W cells
 * wide. docs/regions.md has the details and the figures. */
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "engine/steps.h"
#include "regions/connect.h"
#include "regions/regions.h"

/* The default corridor width: the two cells of the type 2 corridors of the
 * cellular-automaton cave article, the narrowest passage that does not read
 * as a crack in the rock. */
#define CG__CONNECT_DEFAULT_WIDTH 2

#define NONE CG__NONE
#define BIG CG__BIG

/* A small-territory cell of the front: its region and the floor cell it was
 * reached from (a nearest one). */
typedef struct fcell {
    uint32_t reg, src;
} fcell;

typedef cg__end end;

typedef struct edge {
    end a, b;
} edge;

typedef struct vec {
    void *p;
    size_t n, cap, elem;
} vec;

static cg_status vec_grow(vec *v, size_t more)
{
    size_t cap = v->cap ? v->cap : 1024;
    while (cap < v->n + more) {
        if (cap > SIZE_MAX / 2 / v->elem)
            return CG_EOVERFLOW;
        cap *= 2;
    }
    void *p = cg__realloc(v->p, cap * v->elem);
    if (!p)
        return CG_ENOMEM;
    v->p = p;
    v->cap = cap;
    return CG_OK;
}

static inline cg_status vec_reserve(vec *v, size_t more)
{
    return v->n + more <= v->cap ? CG_OK : vec_grow(v, more);
}

/* A run of the first labelling: cells x0..x1-1 of its row, raw label. */
typedef struct run3 {
    uint32_t x0, x1, label;
} run3;

/* A word of layer k that needs per-cell work: its small cells, and its
 * largest-region cells beside small cells of layer k - 1. */
typedef struct work {
    uint64_t s, xb;
    uint32_t at;
} work;

#define INLINE static inline __attribute__((always_inline))

/* Bitboards here have a frame: one zero word on each side of a row and one
 * zero row above and below, so the 4-neighbourhood of any map word is read
 * without a test. Word i of row y is at (y + 1) * stride + i + 1. */
typedef struct joiner {
    cg__kruskal k; /* the tree and the carving */
    cg_grid *g;    /* the map being carved */
    uint32_t w, h;
    size_t nw, stride;
    uint64_t last;           /* in-map bits of a row's last word */
    uint64_t *reach;         /* cells of layers 0..k */
    uint64_t *terr;          /* the largest region's territory, layers 0..k */
    uint64_t *front;         /* layer k - 1 */
    uint64_t *next;          /* layer k */
    uint64_t *big;           /* the largest region's floor */
    uint32_t *pre_f, *pre_n; /* per word: small cells of its layer before it */
    vec act_f, act_n;        /* words of layer k - 1, k (framed index, increasing) */
    vec big_n;               /* per word of act_n: its largest-region cells */
    vec work;                /* words of layer k needing per-cell work */
    vec cells_f, cells_n;    /* fcell per small cell of layer k - 1, k, in scan order */
    uint64_t *cand;          /* per row: words to look at for layer k (ncw words) */
    size_t ncw;
    uint32_t *rows; /* rows with candidates, increasing */
    vec odd;        /* edges of weight 2k + 1 */
    vec runs;       /* run3 of the first labelling, in scan order */
    int oom;        /* an allocation failed inside the labelling hook */
} joiner;

/* ------------------------------------------------------------ helpers */

INLINE size_t at_of(const joiner *c, uint32_t y, size_t i)
{
    return ((size_t)y + 1) * c->stride + i + 1;
}

INLINE uint64_t in_map(const joiner *c, size_t i)
{
    return i + 1 == c->nw ? c->last : ~UINT64_C(0);
}

/* Rank of bit b among the set bits of mask (the small cells of framed word
 * wi), offset by the cells of the layer before that word. */
INLINE uint32_t rank_in(const uint32_t *pre, size_t wi, uint64_t mask, unsigned b)
{
    return pre[wi] + (uint32_t)__builtin_popcountll(mask & ((UINT64_C(1) << b) - 1));
}

static int uf_join(cg__kruskal *c, uint32_t a, uint32_t b)
{
    a = cg__uf_find(c->uf, a);
    b = cg__uf_find(c->uf, b);
    if (a == b)
        return 0;
    if (a < b)
        c->uf[b] = a;
    else
        c->uf[a] = b;
    c->regions--;
    return 1;
}

/* ------------------------------------------------------------- carving */

/* The brush's span on one axis: W cells around v (the extra one after v
 * when W is even), moved - never cut - to stay within the map and, on a map
 * at least 3 cells across (where the line is kept inside: clamp), off its
 * outer ring; cut to the cells inside the ring only where there are fewer
 * than W of them. It always holds v. */
static void brush_span(int64_t v, uint32_t width, uint32_t size, int inside, int64_t *lo,
                       int64_t *hi)
{
    int64_t min = inside ? 1 : 0, max = (int64_t)size - (inside ? 2 : 1);
    int64_t a = v - (int64_t)(width - 1) / 2, b = a + (int64_t)width - 1;
    if (a < min) {
        b += min - a;
        a = min;
    }
    if (b > max) {
        a -= b - max;
        b = max;
    }
    *lo = a < min ? min : a;
    *hi = b;
}

/* A line cell moved inside the outer ring, on a map with an inside (at
 * least 3x3): a corridor never runs along the ring, even between two
 * regions that touch it. Consecutive line cells stay 4-connected (or
 * equal), and an end cell on the ring (floor already) is beside its moved
 * copy - except at a corner, which carve_corridor handles. */
static inline int64_t clamp(int64_t v, uint32_t size, int inside)
{
    if (!inside)
        return v;
    return v < 1 ? 1 : v > (int64_t)size - 2 ? (int64_t)size - 2 : v;
}

/* Carves the W x W square around line cell (x, y), moved inside the ring.
 * It always holds the moved cell, so the squares of consecutive cells
 * overlap or share a side. */
static void carve_at(cg__kruskal *c, int64_t x, int64_t y)
{
    const int inside = c->w >= 3 && c->h >= 3;
    int64_t x0, x1, y0, y1;
    x = clamp(x, c->w, inside);
    y = clamp(y, c->h, inside);
    brush_span(x, c->width, c->w, inside, &x0, &x1);
    brush_span(y, c->width, c->h, inside, &y0, &y1);
    for (int64_t by = y0; by <= y1; by++)
        cg__set_span(cg__row(c->g, by), (uint32_t)x0, (uint32_t)x1 + 1, 0);
}

/* An end of a corridor in a corner of the ring, when the map has an inside:
 * its moved copy is diagonal to it. If neither ring cell beside it is floor
 * (the corner is a region of its own), the one the line steps through, (sx,
 * sy), is carved: the only ring cell connect ever digs. */
static void link_corner(cg__kruskal *c, int64_t x, int64_t y, int64_t sx, int64_t sy)
{
    const int64_t w = c->w, h = c->h;
    if (w < 3 || h < 3 || !((x == 0 || x == w - 1) && (y == 0 || y == h - 1)))
        return;
    const int64_t ax = x == 0 ? 1 : x - 1, ay = y == 0 ? 1 : y - 1;
    if (cg__is_floor(c->g, ax, y) || cg__is_floor(c->g, x, ay))
        return;
    cg__set_span(cg__row(c->g, sy), (uint32_t)sx, (uint32_t)sx + 1, 0);
}

/* A corridor from p to q: a line of 4-connected steps - each step advances
 * the axis whose progress (i + 1/2) / d lags, compared exactly as
 * (2i + 1) * d_other in integers; on a tie, y - thickened by the brush. */
static void carve_corridor(cg__kruskal *c, int64_t px, int64_t py, int64_t qx, int64_t qy)
{
    int64_t dx = qx > px ? qx - px : px - qx, dy = qy > py ? qy - py : py - qy;
    int64_t sx = qx > px ? 1 : -1, sy = qy > py ? 1 : -1;
    int64_t x = px, y = py, ix = 0, iy = 0;
    carve_at(c, x, y);
    while (ix < dx || iy < dy) {
        const int64_t ox = x, oy = y;
        if ((2 * ix + 1) * dy < (2 * iy + 1) * dx) {
            x += sx;
            ix++;
        } else {
            y += sy;
            iy++;
        }
        if (ix + iy == 1)
            link_corner(c, px, py, x, y);
        if (ix == dx && iy == dy)
            link_corner(c, qx, qy, ox, oy);
        carve_at(c, x, y);
    }
    c->corridors++;
}

/* The floor cell an end of an edge was reached from. For the largest
 * region that is not kept: the first cell of its floor at distance d from
 * the end's cell, on the diamond of radius d (top to bottom, left before
 * right). One exists: the cell joined the territory through a chain of d
 * neighbours from that floor. */
static void source_of(const cg__kruskal *c, const end *e, int64_t *px, int64_t *py)
{
    if (e->src != NONE) {
        *px = e->src % c->w;
        *py = e->src / c->w;
        return;
    }
    int64_t ux = e->cell % c->w, uy = e->cell / c->w, d = e->dist;
    for (int64_t oy = -d; oy <= d; oy++) {
        int64_t rest = d - (oy < 0 ? -oy : oy);
        for (int s = 0; s < (rest ? 2 : 1); s++) {
            int64_t x = ux + (s ? rest : -rest), y = uy + oy;
            if (x < 0 || y < 0 || x >= c->w || y >= c->h)
                continue;
            if (c->big
                    ? (c->big[((size_t)y + 1) * c->stride + ((size_t)x >> 6) + 1] >> (x & 63)) & 1
                    : (uint64_t)(c->big_at(c, x, y) != 0)) {
                *px = x;
                *py = y;
                return;
            }
        }
    }
    *px = ux; /* not reached, by the argument above */
    *py = uy;
}

void cg__connect_take(cg__kruskal *c, const end *a, const end *b)
{
    if (!uf_join(c, a->reg, b->reg))
        return;
    int64_t px, py, qx, qy;
    source_of(c, a, &px, &py);
    source_of(c, b, &qx, &qy);
    if (c->big) {
        carve_corridor(c, px, py, qx, qy);
        return;
    }
    if (c->deferred == c->defer_cap) {
        size_t cap = c->defer_cap ? c->defer_cap * 2 : 256;
        uint32_t *p =
            cap <= SIZE_MAX / 4 / sizeof *p ? cg__realloc(c->defer, cap * 4 * sizeof *p) : NULL;
        if (!p) {
            c->oom = 1;
            return;
        }
        c->defer = p;
        c->defer_cap = cap;
    }
    uint32_t *d = c->defer + 4 * c->deferred++;
    d[0] = (uint32_t)px;
    d[1] = (uint32_t)py;
    d[2] = (uint32_t)qx;
    d[3] = (uint32_t)qy;
}

cg_status cg__connect_carve_deferred(cg__kruskal *c)
{
    for (size_t i = 0; i < c->deferred && !c->oom; i++) {
        const uint32_t *d = c->defer + 4 * i;
        carve_corridor(c, d[0], d[1], d[2], d[3]);
    }
    cg__free(c->defer);
    c->defer = NULL;
    c->deferred = c->defer_cap = 0;
    return c->oom ? CG_ENOMEM : CG_OK;
}

/* The odd edges of a layer, in the order they were found. */
static void take_edges(joiner *c, const vec *v)
{
    const edge *e = v->p;
    for (size_t i = 0; i < v->n && c->k.regions > 1; i++)
        cg__connect_take(&c->k, &e[i].a, &e[i].b);
}

/* ------------------------------------------------------------- search */

/* An edge of weight 2k + 1, kept for the end of layer k unless its regions
 * are already joined (then it can never be taken). The list has room
 * (reserved per cell). */
INLINE void add_odd(joiner *c, end a, end b)
{
    if (!cg__joined(&c->k, a.reg, b.reg))
        ((edge *)c->odd.p)[c->odd.n++] = (edge){a, b};
}

/* An edge of weight 2k: nothing lighter is left (those of 2k - 1 were taken
 * at the end of layer k - 1), so it is taken at once, in the order found. */
INLINE void add_even(joiner *c, end a, end b)
{
    if (!cg__joined(&c->k, a.reg, b.reg))
        cg__connect_take(&c->k, &a, &b);
}

/* Words of layer k to compute when the front is sparse: every word of layer
 * k - 1 and its four neighbouring words. Fills c->rows; returns their count. */
static size_t candidates(joiner *c)
{
    const uint32_t *act = c->act_f.p;
    size_t nrows = 0;
    int64_t last = -1;
    for (size_t j = 0; j < c->act_f.n; j++) {
        uint32_t y = (uint32_t)(act[j] / c->stride - 1);
        size_t i = act[j] % c->stride - 1;
        for (int64_t yy = (int64_t)y - 1; yy <= (int64_t)y + 1; yy++) {
            if (yy < 0 || yy >= c->h)
                continue;
            uint64_t *cw = c->cand + (size_t)yy * c->ncw;
            cw[i >> 6] |= UINT64_C(1) << (i & 63);
            if (yy == y) {
                if (i > 0)
                    cw[(i - 1) >> 6] |= UINT64_C(1) << ((i - 1) & 63);
                if (i + 1 < c->nw)
                    cw[(i + 1) >> 6] |= UINT64_C(1) << ((i + 1) & 63);
            }
            if (yy > last) {
                c->rows[nrows++] = (uint32_t)yy;
                last = yy;
            }
        }
    }
    return nrows;
}

/* Computes word (y, i) of layer k. *small counts layer k's small cells. The
 * lists have room for one more word (reserved per row). */
INLINE void grow_word(joiner *c, uint32_t y, size_t i, uint32_t *small)
{
    const size_t at = at_of(c, y, i), s = c->stride;
    const uint64_t *f = c->front, *t = c->terr;
    const uint64_t f0 = f[at], fl = f[at - 1], fr = f[at + 1];
    uint64_t n = f0 | (f0 << 1) | (f0 >> 1) | (fl >> 63) | (fr << 63) | f[at - s] | f[at + s];
    n &= ~c->reach[at] & in_map(c, i);
    if (!n)
        return;
    const uint64_t t0 = t[at], tl = t[at - 1], tr = t[at + 1], tu = t[at - s], td = t[at + s];
    /* Ties go to the largest region: a cell beside its territory (of the
     * previous layer: older territory has no unreached neighbours) joins
     * it. */
    const uint64_t dt = t0 | (t0 << 1) | (t0 >> 1) | (tl >> 63) | (tr << 63) | tu | td;
    const uint64_t s0 = f0 & ~t0, sl = fl & ~tl, sr = fr & ~tr;
    const uint64_t ds = s0 | (s0 << 1) | (s0 >> 1) | (sl >> 63) | (sr << 63) | (f[at - s] & ~tu) |
                        (f[at + s] & ~td);
    const uint64_t b = n & dt, sm = n & ~b, xb = b & ds;
    ((uint32_t *)c->act_n.p)[c->act_n.n++] = (uint32_t)at;
    ((uint64_t *)c->big_n.p)[c->big_n.n++] = b;
    if (sm | xb)
        ((work *)c->work.p)[c->work.n++] = (work){sm, xb, (uint32_t)at};
    c->next[at] = n;
    c->reach[at] |= n;
    c->pre_n[at] = *small;
    *small += (uint32_t)__builtin_popcountll(sm);
}

/* Room for a row's words in the lists grow_word appends to. */
INLINE cg_status reserve_row(joiner *c, size_t words)
{
    cg_status st;
    if ((st = vec_reserve(&c->act_n, words)) != CG_OK ||
        (st = vec_reserve(&c->big_n, words)) != CG_OK)
        return st;
    return vec_reserve(&c->work, words);
}

/* Layer k's cells: where the front is dense every word is looked at, else
 * only the words around the front's. */
INLINE cg_status grow(joiner *c)
{
    uint32_t small = 0;
    cg_status st = CG_OK;
    c->act_n.n = c->big_n.n = c->work.n = c->cells_n.n = 0;
    if (c->act_f.n * 4 >= c->nw * c->h) {
        for (uint32_t y = 0; y < c->h && st == CG_OK; y++) {
            if ((st = reserve_row(c, c->nw)) != CG_OK)
                break;
            for (size_t i = 0; i < c->nw; i++)
                grow_word(c, y, i, &small);
        }
    } else {
        size_t nrows = candidates(c);
        for (size_t r = 0; r < nrows && st == CG_OK; r++) {
            const uint32_t y = c->rows[r];
            uint64_t *cw = c->cand + (size_t)y * c->ncw;
            if ((st = reserve_row(c, c->nw)) != CG_OK)
                break;
            for (size_t ci = 0; ci < c->ncw; ci++) {
                for (uint64_t bits = cw[ci]; bits; bits &= bits - 1)
                    grow_word(c, y, ci * 64 + (size_t)__builtin_ctzll(bits), &small);
                cw[ci] = 0;
            }
        }
    }
    if (st != CG_OK)
        return st;
    /* Only now: this layer's cells must not count as territory while the
     * layer itself is computed. */
    const uint32_t *act = c->act_n.p;
    const uint64_t *big = c->big_n.p;
    for (size_t j = 0; j < c->act_n.n; j++)
        c->terr[act[j]] |= big[j];
    return vec_reserve(&c->cells_n, small);
}

/* The small cell of layer k-1 at bit b of framed word wi, whose small-cell
 * mask is m. */
INLINE const fcell *prev_cell(const joiner *c, size_t wi, uint64_t m, unsigned b)
{
    return (const fcell *)c->cells_f.p + rank_in(c->pre_f, wi, m, b);
}

/* Owners of layer k's small cells and the Voronoi edges met at layer k. */
INLINE cg_status meet(joiner *c, uint32_t k)
{
    const work *wk = c->work.p;
    const uint64_t *f = c->front, *n = c->next, *t = c->terr;
    const size_t s = c->stride;
    const uint32_t w = c->w;
    fcell *now = c->cells_n.p;
    cg_status st;
    for (size_t j = 0; j < c->work.n; j++) {
        const size_t at = wk[j].at;
        const uint32_t y = (uint32_t)(at / s - 1);
        const uint32_t x0 = (uint32_t)((at % s - 1) * 64);
        /* Small cells of layer k - 1 around the word. */
        const uint64_t fu = f[at - s] & ~t[at - s], fd = f[at + s] & ~t[at + s];
        const uint64_t f0 = f[at] & ~t[at], fl = f[at - 1] & ~t[at - 1],
                       fr = f[at + 1] & ~t[at + 1];
        const uint64_t fleft = (f0 << 1) | (fl >> 63), fright = (f0 >> 1) | (fr << 63);
        /* Layer k around the word: the largest region's cells, small cells. */
        const uint64_t bu = n[at - s] & t[at - s], bd = n[at + s] & t[at + s];
        const uint64_t b0 = n[at] & t[at], bl = n[at - 1] & t[at - 1], br = n[at + 1] & t[at + 1];
        const uint64_t bleft = (b0 << 1) | (bl >> 63), bright = (b0 >> 1) | (br << 63);
        const uint64_t nu = n[at - s] & ~t[at - s], n0 = n[at] & ~t[at],
                       nl = n[at - 1] & ~t[at - 1];
        const uint64_t nleft = (n0 << 1) | (nl >> 63);
        for (uint64_t m = wk[j].s; m; m &= m - 1) {
            const unsigned b = (unsigned)__builtin_ctzll(m);
            const uint32_t x = x0 + b, cell = y * w + x;
            if ((st = vec_reserve(&c->odd, 4)) != CG_OK)
                return st;
            /* Neighbours in layer k - 1 (all small, or this cell would have
             * joined the largest region), up, left, right, down: the first
             * gives the owner, any other of another region an edge. */
            const fcell *nb[4];
            uint32_t nc[4];
            int cnt = 0;
            if ((fu >> b) & 1) {
                nb[cnt] = prev_cell(c, at - s, fu, b);
                nc[cnt++] = cell - w;
            }
            if ((fleft >> b) & 1) {
                nb[cnt] = b ? prev_cell(c, at, f0, b - 1) : prev_cell(c, at - 1, fl, 63);
                nc[cnt++] = cell - 1;
            }
            if ((fright >> b) & 1) {
                nb[cnt] = b < 63 ? prev_cell(c, at, f0, b + 1) : prev_cell(c, at + 1, fr, 0);
                nc[cnt++] = cell + 1;
            }
            if ((fd >> b) & 1) {
                nb[cnt] = prev_cell(c, at + s, fd, b);
                nc[cnt++] = cell + w;
            }
            const fcell me = *nb[0];
            *now++ = me;
            for (int q = 1; q < cnt; q++)
                if (nb[q]->reg != me.reg)
                    add_even(c, (end){me.reg, cell, k, me.src},
                             (end){nb[q]->reg, nc[q], k - 1, nb[q]->src});
            /* Layer k: the largest region's cells on any side; small cells
             * already placed (up, left). */
            const end mine = {me.reg, cell, k, me.src};
            if ((bu >> b) & 1)
                add_odd(c, mine, (end){BIG, cell - w, k, NONE});
            if ((bleft >> b) & 1)
                add_odd(c, mine, (end){BIG, cell - 1, k, NONE});
            if ((bright >> b) & 1)
                add_odd(c, mine, (end){BIG, cell + 1, k, NONE});
            if ((bd >> b) & 1)
                add_odd(c, mine, (end){BIG, cell + w, k, NONE});
            if ((nu >> b) & 1) {
                const fcell *o = (const fcell *)c->cells_n.p + rank_in(c->pre_n, at - s, nu, b);
                if (o->reg != me.reg)
                    add_odd(c, mine, (end){o->reg, cell - w, k, o->src});
            }
            if ((nleft >> b) & 1) {
                /* The small cell just before this one in scan order. */
                const fcell *o = now - 2;
                if (o->reg != me.reg)
                    add_odd(c, mine, (end){o->reg, cell - 1, k, o->src});
            }
        }
        /* The largest region's cells of layer k beside small cells of layer
         * k - 1: edges of weight 2k, seen from this side only. */
        for (uint64_t m = wk[j].xb; m; m &= m - 1) {
            const unsigned b = (unsigned)__builtin_ctzll(m);
            const uint32_t x = x0 + b, cell = y * w + x;
            const end mine = {BIG, cell, k, NONE};
            const fcell *o;
            if ((fu >> b) & 1) {
                o = prev_cell(c, at - s, fu, b);
                add_even(c, mine, (end){o->reg, cell - w, k - 1, o->src});
            }
            if ((fleft >> b) & 1) {
                o = b ? prev_cell(c, at, f0, b - 1) : prev_cell(c, at - 1, fl, 63);
                add_even(c, mine, (end){o->reg, cell - 1, k - 1, o->src});
            }
            if ((fright >> b) & 1) {
                o = b < 63 ? prev_cell(c, at, f0, b + 1) : prev_cell(c, at + 1, fr, 0);
                add_even(c, mine, (end){o->reg, cell + 1, k - 1, o->src});
            }
            if ((fd >> b) & 1) {
                o = prev_cell(c, at + s, fd, b);
                add_even(c, mine, (end){o->reg, cell + w, k - 1, o->src});
            }
        }
    }
    c->cells_n.n = (size_t)(now - (fcell *)c->cells_n.p);
    return CG_OK;
}

/* Swaps layer k into the front and clears what the old front held. */
static void advance(joiner *c)
{
    const uint32_t *act = c->act_f.p;
    for (size_t j = 0; j < c->act_f.n; j++)
        c->front[act[j]] = 0;
    uint64_t *t = c->front;
    c->front = c->next;
    c->next = t;
    uint32_t *p = c->pre_f;
    c->pre_f = c->pre_n;
    c->pre_n = p;
    vec v = c->act_f;
    c->act_f = c->act_n;
    c->act_n = v;
    v = c->cells_f;
    c->cells_f = c->cells_n;
    c->cells_n = v;
}

/* The layers, until one region is left. */
INLINE cg_status layers(joiner *c)
{
    cg_status st = CG_OK;
    for (uint32_t k = 1; st == CG_OK && c->k.regions > 1 && c->act_f.n; k++) {
        c->odd.n = 0;
        if ((st = grow(c)) != CG_OK || (st = meet(c, k)) != CG_OK)
            break;
        take_edges(c, &c->odd);
        advance(c);
    }
    return st;
}

static cg_status layers_base(joiner *c)
{
    return layers(c);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
__attribute__((target("popcnt,bmi,bmi2,lzcnt"))) static cg_status layers_popcnt(joiner *c)
{
    return layers(c);
}
#endif

/* Labelling hook: keeps every run, to sort the cells into layer 0. */
static void keep_runs(void *ctx, uint32_t y, const uint32_t *x0, const uint32_t *x1,
                      const uint32_t *label, size_t n)
{
    joiner *c = ctx;
    if (c->oom || vec_reserve(&c->runs, n) != CG_OK) {
        c->oom = 1; /* reported after the labelling */
        return;
    }
    run3 *r = n ? (run3 *)c->runs.p + c->runs.n : NULL; /* p is NULL before any run */
    for (size_t j = 0; j < n; j++)
        r[j] = (run3){x0[j], x1[j], label[j]};
    c->runs.n += n;
    c->rows[y] = (uint32_t)n; /* runs in row y */
}

/* Layer 0: all floor. The largest region's floor is its territory; the
 * others' cells get ids 1..R-1 (in scan order of their first cells) and go
 * to the dense array in scan order. */
static cg_status layer0(joiner *c, const cg__labeller *lb, uint32_t largest, uint64_t small_n)
{
    const cg_grid *g = c->g;
    const size_t nw = c->nw;
    cg_status st;
    uint32_t *reg = cg__malloc((lb->n ? lb->n : 1) * sizeof *reg);
    if (!reg)
        return CG_ENOMEM;
    uint32_t nid = 0;
    for (size_t l = 0; l < lb->n; l++)
        if (lb->parent[l] == l && l != largest)
            reg[l] = ++nid;
    reg[largest] = BIG;
    for (size_t l = 0; l < lb->n; l++)
        reg[l] = reg[lb->parent[l]];
    c->k.uf = cg__malloc(((size_t)nid + 1) * sizeof *c->k.uf);
    if (!c->k.uf || small_n > SIZE_MAX / sizeof(fcell) ||
        (st = vec_reserve(&c->cells_f, (size_t)small_n)) != CG_OK) {
        cg__free(reg);
        return CG_ENOMEM;
    }
    for (uint32_t r = 0; r <= nid; r++)
        c->k.uf[r] = r;
    c->k.regions = (uint64_t)nid + 1;
    const run3 *run = c->runs.p;
    fcell *cell = c->cells_f.p;
    uint32_t count = 0;
    for (uint32_t y = 0; y < c->h; y++) {
        const uint64_t *gr = cg__row(g, y);
        const size_t at = at_of(c, y, 0);
        for (size_t i = 0; i < nw; i++) {
            const uint64_t floor = ~gr[i] & in_map(c, i);
            c->reach[at + i] = c->front[at + i] = c->terr[at + i] = c->big[at + i] = floor;
        }
        for (uint32_t j = 0; j < c->rows[y]; j++, run++) {
            const uint32_t r = reg[run->label];
            if (r == BIG)
                continue;
            cg__set_span(&c->terr[at], run->x0, run->x1, 0);
            cg__set_span(&c->big[at], run->x0, run->x1, 0);
            for (uint32_t x = run->x0; x < run->x1; x++)
                *cell++ = (fcell){r, y * c->w + x};
        }
        for (size_t i = 0; i < nw; i++) {
            const uint64_t floor = c->front[at + i];
            c->pre_f[at + i] = count;
            count += (uint32_t)__builtin_popcountll(floor & ~c->terr[at + i]);
            if (floor) {
                if ((st = vec_reserve(&c->act_f, 1)) != CG_OK) {
                    cg__free(reg);
                    return st;
                }
                ((uint32_t *)c->act_f.p)[c->act_f.n++] = (uint32_t)(at + i);
            }
        }
    }
    c->cells_f.n = (size_t)(cell - (fcell *)c->cells_f.p);
    cg__free(reg);
    return CG_OK;
}

static void joiner_free(joiner *c)
{
    cg__free(c->reach);
    cg__free(c->terr);
    cg__free(c->front);
    cg__free(c->next);
    cg__free(c->big);
    cg__free(c->pre_f);
    cg__free(c->pre_n);
    cg__free(c->act_f.p);
    cg__free(c->act_n.p);
    cg__free(c->big_n.p);
    cg__free(c->work.p);
    cg__free(c->cells_f.p);
    cg__free(c->cells_n.p);
    cg__free(c->cand);
    cg__free(c->rows);
    cg__free(c->odd.p);
    cg__free(c->runs.p);
    cg__free(c->k.uf);
}

/* The first search: whole layers at a time (grow, then meet), over lists
 * of the words where the front is. The twin of cg__connect_voronoi. */
static cg_status connect_base(cg_grid *g, uint32_t width, uint64_t *corridors)
{
    joiner c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.w = g->w;
    c.h = g->h;
    c.nw = g->nw;
    c.stride = g->nw + 2;
    c.last = ~cg__tail_mask(g);
    c.k.g = g;
    c.k.w = c.w;
    c.k.h = c.h;
    c.k.stride = c.stride;
    c.k.width = width;
    c.ncw = (c.nw + 63) / 64;
    c.act_f.elem = c.act_n.elem = sizeof(uint32_t);
    c.big_n.elem = sizeof(uint64_t);
    c.work.elem = sizeof(work);
    c.cells_f.elem = c.cells_n.elem = sizeof(fcell);
    c.odd.elem = sizeof(edge);
    c.runs.elem = sizeof(run3);
    c.rows = cg__malloc((size_t)c.h * sizeof(uint32_t));
    if (!c.rows)
        return CG_ENOMEM;
    /* Room for every floor run at once (count their starts): growing the
     * list as the labelling goes would copy it over and over. */
    uint64_t nruns = 0;
    for (uint32_t y = 0; y < c.h; y++) {
        const uint64_t *r = cg__row(g, y);
        uint64_t carry = 0;
        for (size_t i = 0; i < c.nw; i++) {
            const uint64_t f = ~r[i] & in_map(&c, i);
            nruns += (uint64_t)__builtin_popcountll(f & ~((f << 1) | carry));
            carry = f >> 63;
        }
    }
    if (nruns > SIZE_MAX / sizeof(run3) || vec_reserve(&c.runs, (size_t)nruns) != CG_OK) {
        joiner_free(&c);
        return CG_ENOMEM;
    }
    cg__labeller lb;
    cg_status st = cg__label(&lb, g, 0, keep_runs, &c);
    if (st != CG_OK) {
        joiner_free(&c);
        return st;
    }
    uint64_t roots;
    const uint32_t largest = cg__largest_root(&lb, &roots);
    if (c.oom)
        st = CG_ENOMEM;
    if (roots > 1 && st == CG_OK) {
        const size_t words = c.stride * ((size_t)c.h + 2);
        c.reach = cg__calloc(words, sizeof(uint64_t));
        c.terr = cg__calloc(words, sizeof(uint64_t));
        c.front = cg__calloc(words, sizeof(uint64_t));
        c.next = cg__calloc(words, sizeof(uint64_t));
        c.big = cg__calloc(words, sizeof(uint64_t));
        c.k.big = c.big;
        c.pre_f = cg__malloc(words * sizeof(uint32_t));
        c.pre_n = cg__malloc(words * sizeof(uint32_t));
        c.cand = cg__calloc(c.ncw * c.h, sizeof(uint64_t));
        if (!c.reach || !c.terr || !c.front || !c.next || !c.big || !c.pre_f || !c.pre_n || !c.cand)
            st = CG_ENOMEM;
        if (st == CG_OK)
            st = layer0(&c, &lb, largest, cg_grid_floor_count(g) - lb.size[largest]);
        cg__free(c.runs.p);
        c.runs.p = NULL;
        cg__labeller_free(&lb);
        if (st == CG_OK) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
            if (cg__regions_popcnt())
                st = layers_popcnt(&c);
            else
#endif
                st = layers_base(&c);
        }
    } else {
        cg__labeller_free(&lb);
    }
    if (corridors)
        *corridors = c.k.corridors;
    joiner_free(&c);
    return st;
}

static int force_base;

void cg__connect_force_base(int on)
{
    force_base = on;
}

cg_status cg__connect(cg_grid *g, uint32_t width, uint64_t *corridors)
{
    if (corridors)
        *corridors = 0;
    /* Cells are named by 32-bit indices y * w + x. */
    if ((uint64_t)g->w * g->h > UINT32_MAX)
        return CG_EOVERFLOW;
    return force_base ? connect_base(g, width, corridors)
                      : cg__connect_voronoi(g, width, corridors);
}

/* Larger first; on equal sizes the smaller label (the first region in scan
 * order), as keep-largest breaks its ties. */
typedef struct root_size {
    uint64_t size;
    uint32_t label;
} root_size;

static int by_size(const void *a, const void *b)
{
    const root_size *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return (x->label > y->label) - (x->label < y->label);
}

/* The largest regions are copied to a grid of their own, without the
 * others, and joined there; the corridors carved are then carved in g too.
 * So the spanning tree and the corridors are those of a map holding only
 * those regions: the others neither attract corridors nor count as
 * stepping stones. */
cg_status cg__connect_largest(cg_grid *g, uint32_t width, uint32_t largest, uint64_t *corridors)
{
    if (corridors)
        *corridors = 0;
    if (largest == 0)
        return cg__connect(g, width, corridors);
    if ((uint64_t)g->w * g->h > UINT32_MAX)
        return CG_EOVERFLOW;
    cg__labeller lb;
    cg_status st = cg__label(&lb, g, 0, NULL, NULL);
    if (st != CG_OK)
        return st;
    uint64_t roots = 0;
    for (size_t l = 0; l < lb.n; l++)
        roots += lb.parent[l] == l;
    if (roots <= largest) { /* every region is among the largest */
        cg__labeller_free(&lb);
        return cg__connect(g, width, corridors);
    }
    root_size *rs = cg__malloc((size_t)roots * sizeof *rs);
    uint8_t *keep = cg__calloc(lb.n, 1);
    cg_grid *only = NULL;
    st = CG_ENOMEM;
    if (!rs || !keep || cg__grid_new_like(&only, g) != CG_OK)
        goto done;
    size_t n = 0;
    for (size_t l = 0; l < lb.n; l++)
        if (lb.parent[l] == l)
            rs[n++] = (root_size){lb.size[l], (uint32_t)l};
    qsort(rs, n, sizeof *rs, by_size);
    for (uint32_t i = 0; i < largest; i++)
        keep[rs[i].label] = 1;
    memcpy(only->mem, g->mem, ((size_t)g->h + 2 * CG__PAD) * g->stride * sizeof *g->mem);
    if ((st = cg__flip_regions_unless(only, &lb, keep)) != CG_OK ||
        (st = cg__connect(only, width, corridors)) != CG_OK)
        goto done;
    /* Floor in either is floor: g's other regions, and the corridors. */
    for (uint32_t y = 0; y < g->h; y++) {
        uint64_t *r = cg__row(g, y);
        const uint64_t *o = cg__row(only, y);
        for (size_t i = 0; i < g->nw; i++)
            r[i] &= o[i];
    }
done:
    cg_grid_free(only);
    cg__free(keep);
    cg__free(rs);
    cg__labeller_free(&lb);
    return st;
}

/* ----------------------------------------------------------------- step */

enum { CONNECT_WIDTH, CONNECT_LARGEST };

static cg_status parse_connect(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long v = CG__CONNECT_DEFAULT_WIDTH, n = 0;
    if (a->values[CONNECT_WIDTH].s && cg__parse_int(&a->values[CONNECT_WIDTH], a->line, "width", 1,
                                                    CG__CONNECT_MAX_WIDTH, &v, diag))
        return CG_EPARSE;
    if (a->values[CONNECT_LARGEST].s &&
        cg__parse_int(&a->values[CONNECT_LARGEST], a->line, "largest", 2, INT32_MAX, &n, diag))
        return CG_EPARSE;
    step->u.connect.width = (uint32_t)v;
    step->u.connect.largest = (uint32_t)n;
    return CG_OK;
}

static cg_status run_connect(const cg__step *step, cg__run *run)
{
    cg_status st =
        cg__connect_largest(run->grid, step->u.connect.width, step->u.connect.largest, NULL);
    if (st == CG_ENOMEM)
        cg__diag(run->diag, 0, 0, "out of memory for connect on a %ux%u map", run->grid->w,
                 run->grid->h);
    else if (st == CG_EOVERFLOW)
        cg__diag(run->diag, 0, 0, "connect handles maps of fewer than 2^32 cells, not %ux%u",
                 run->grid->w, run->grid->h);
    return st;
}

const cg__step_def cg__step_connect = {
    .name = "connect",
    .usage = "connect [width=1..16] [largest=N]",
    .keys = {[CONNECT_WIDTH] = "width", [CONNECT_LARGEST] = "largest"},
    .parse = parse_connect,
    .run = run_connect,
};
