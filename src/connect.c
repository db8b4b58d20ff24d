/* connect.c - `connect [width=W]`: carve corridors until every floor region
 * is one region, joining regions at their closest points (seed 002: "cut a
 * corridor between the closest points of two regions").
 *
 * Which regions to join, and where, is a minimum spanning tree over the
 * regions weighted by the city-block distance between their closest cells.
 * It is found without comparing regions pairwise:
 *
 *  1. Label the floor regions (regions.c, on runs).
 *  2. Grow every region at once, one ring of cells per layer: layer k is the
 *     set of cells at distance k from the nearest floor (a breadth-first
 *     search from all floor cells, 4-neighbour steps through any cell), and
 *     every cell is owned by the region that reached it first (the discrete
 *     Voronoi diagram of the regions).
 *  3. Where neighbouring cells u, v are owned by different regions A, B,
 *     those regions are at most d(u) + 1 + d(v) apart. By Mehlhorn's lemma
 *     ("A faster approximation algorithm for the Steiner problem in
 *     graphs", IPL 27, 1988) a minimum spanning tree over these Voronoi
 *     edges alone is one of the complete distance graph of the regions.
 *  4. Kruskal's algorithm over them, lightest first. Edges of weight 2k and
 *     2k + 1 are all known when layer k is done and nothing lighter is found
 *     later, so they are taken layer by layer while the search runs, and the
 *     search stops as soon as one region is left.
 *  5. Each chosen edge is carved between the two cells of A and B nearest to
 *     u and v: the corridor runs straight between them.
 *
 * The search runs on bitboards, 64 cells per word op, over only the words
 * where the wave front is (linear in the map, not in map x layers). Cells
 * are tracked one by one only where that is unavoidable: the largest
 * region's territory is a bitboard of its own (a cell next to it in the
 * previous layer joins it: ties go to the largest region), so per-cell work
 * is limited to the territories of the other regions, whose owners live in
 * dense arrays indexed by rank within the front (popcount), read in scan
 * order. On a typical cave, one region holds most of the floor and the
 * others' territories are a small part of the map.
 *
 * The corridor is a line whose steps are 4-connected (it can be walked by a
 * 4-neighbour mover; no diagonal staircase that only touches at corners),
 * each step advancing the axis whose progress lags, compared exactly in
 * integers, thickened with a W x W square brush into a passage W cells
 * wide. docs/regions.md has the details and the figures. */
#include <stdlib.h>
#include <string.h>

#include "regions.h"
#include "steps.h"

/* The default corridor width: the two cells of seed 000's type 2 corridors,
 * the narrowest passage that does not read as a crack in the rock. */
#define CG__CONNECT_DEFAULT_WIDTH 2

#define NONE UINT32_MAX
#define BIG 0 /* the region id of the largest region; the others are 1..R-1 */

/* A small-territory cell of the front: its region and the floor cell it was
 * reached from (a nearest one). */
typedef struct fcell {
    uint32_t reg, src;
} fcell;

/* One end of a candidate edge: region, cell, its distance, and its source
 * floor cell (NONE for the largest region's territory, found again on the
 * diamond of that radius when the edge is taken). */
typedef struct end {
    uint32_t reg, cell, dist, src;
} end;

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
    void *p = realloc(v->p, cap * v->elem);
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

typedef struct joiner {
    cg_grid *g; /* the map being carved */
    uint32_t w, h;
    size_t nw;       /* words per row of the bitboards below (no frame) */
    uint64_t last;   /* in-map bits of a row's last word */
    uint64_t *reach; /* cells of layers 0..k */
    uint64_t *terr;  /* the largest region's territory, layers 0..k */
    uint64_t *front; /* layer k - 1 */
    uint64_t *next;  /* layer k */
    uint64_t *big;   /* the largest region's floor */
    uint32_t *pre_f, *pre_n;  /* per word: small cells of the layer before it */
    vec act_f, act_n;         /* active words of layer k-1, k (y * nw + i, increasing) */
    vec big_n;                /* per active word of layer k: its largest-region bits */
    vec cells_f, cells_n;     /* fcell per small cell of layer k-1, k, in scan order */
    uint64_t *cand;           /* per row: words to look at in layer k (ncw words) */
    size_t ncw;
    uint32_t *rows;           /* rows with candidates, increasing */
    vec even, odd;            /* edges of weight 2k, 2k + 1 */
    uint32_t *uf;
    uint64_t regions;         /* components left */
    uint32_t width;
    uint64_t corridors;
} joiner;

/* ------------------------------------------------------------ helpers */

static inline uint64_t in_map(const joiner *c, size_t i)
{
    return i + 1 == c->nw ? c->last : ~UINT64_C(0);
}

static inline int bit(const uint64_t *bb, const joiner *c, uint32_t x, uint32_t y)
{
    return (int)((bb[(size_t)y * c->nw + (x >> 6)] >> (x & 63)) & 1);
}

/* Small cells (front & ~terr) before bit x in word wi, plus the word's rank. */
static inline uint32_t rank_small(const uint64_t *layer, const uint64_t *terr,
                                  const uint32_t *pre, size_t wi, uint32_t x)
{
    uint64_t below = (UINT64_C(1) << (x & 63)) - 1;
    return pre[wi] + (uint32_t)__builtin_popcountll(layer[wi] & ~terr[wi] & below);
}

/* Dilation of bitboard bb at word (y, i): the word and its 4-neighbours. */
static inline uint64_t dilate(const joiner *c, const uint64_t *bb, uint32_t y, size_t i)
{
    const size_t nw = c->nw, at = (size_t)y * nw + i;
    uint64_t m = bb[at];
    uint64_t d = m | (m << 1) | (m >> 1);
    if (i > 0)
        d |= bb[at - 1] >> 63;
    if (i + 1 < nw)
        d |= bb[at + 1] << 63;
    if (y > 0)
        d |= bb[at - nw];
    if (y + 1 < c->h)
        d |= bb[at + nw];
    return d;
}

/* Dilation of the previous layer's small cells (front & ~terr) at (y, i). */
static inline uint64_t dilate_small(const joiner *c, uint32_t y, size_t i)
{
    const size_t nw = c->nw, at = (size_t)y * nw + i;
    const uint64_t *f = c->front, *t = c->terr;
    uint64_t m = f[at] & ~t[at];
    uint64_t d = m | (m << 1) | (m >> 1);
    if (i > 0)
        d |= (f[at - 1] & ~t[at - 1]) >> 63;
    if (i + 1 < nw)
        d |= (f[at + 1] & ~t[at + 1]) << 63;
    if (y > 0)
        d |= f[at - nw] & ~t[at - nw];
    if (y + 1 < c->h)
        d |= f[at + nw] & ~t[at + nw];
    return d;
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

static int uf_join(joiner *c, uint32_t a, uint32_t b)
{
    a = uf_find(c->uf, a);
    b = uf_find(c->uf, b);
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
 * when W is even), moved - never cut - to keep off the map's outer ring
 * where the map is wide enough, but always holding v itself: a corridor
 * that must run along the ring (both ends on it) stays W cells thick. */
static void brush_span(int64_t v, uint32_t width, uint32_t size, int64_t *lo, int64_t *hi)
{
    int64_t min = 0, max = (int64_t)size - 1;
    if (size >= width + 2) {
        min = v < 1 ? v : 1;
        max = v > (int64_t)size - 2 ? v : (int64_t)size - 2;
    }
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

/* Carves the W x W square around line cell (x, y). It always holds (x, y),
 * so the squares of consecutive cells overlap or share a side. */
static void carve_at(joiner *c, int64_t x, int64_t y)
{
    int64_t x0, x1, y0, y1;
    brush_span(x, c->width, c->w, &x0, &x1);
    brush_span(y, c->width, c->h, &y0, &y1);
    for (int64_t by = y0; by <= y1; by++)
        cg__set_span(cg__row(c->g, by), (uint32_t)x0, (uint32_t)x1 + 1, 0);
}

/* A corridor from p to q: a line of 4-connected steps - each step advances
 * the axis whose progress (i + 1/2) / d lags, compared exactly as
 * (2i + 1) * d_other in integers; on a tie, y - thickened by the brush. */
static void carve_corridor(joiner *c, int64_t px, int64_t py, int64_t qx, int64_t qy)
{
    int64_t dx = qx > px ? qx - px : px - qx, dy = qy > py ? qy - py : py - qy;
    int64_t sx = qx > px ? 1 : -1, sy = qy > py ? 1 : -1;
    int64_t x = px, y = py, ix = 0, iy = 0;
    carve_at(c, x, y);
    while (ix < dx || iy < dy) {
        if ((2 * ix + 1) * dy < (2 * iy + 1) * dx) {
            x += sx;
            ix++;
        } else {
            y += sy;
            iy++;
        }
        carve_at(c, x, y);
    }
    c->corridors++;
}

/* The floor cell an end of an edge was reached from. For the largest
 * region that is not kept: the first cell of its floor at distance d from
 * the end's cell, on the diamond of radius d (top to bottom, left before
 * right). One exists: the cell joined the territory through a chain of d
 * neighbours from that floor. */
static void source_of(const joiner *c, const end *e, int64_t *px, int64_t *py)
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
            if (x >= 0 && y >= 0 && x < c->w && y < c->h &&
                bit(c->big, c, (uint32_t)x, (uint32_t)y)) {
                *px = x;
                *py = y;
                return;
            }
        }
    }
    *px = ux; /* not reached, by the argument above */
    *py = uy;
}

/* Kruskal's step over edges of one weight, in the order they were found. */
static void take_edges(joiner *c, const vec *v)
{
    const edge *e = v->p;
    for (size_t i = 0; i < v->n && c->regions > 1; i++) {
        if (!uf_join(c, e[i].a.reg, e[i].b.reg))
            continue;
        int64_t px, py, qx, qy;
        source_of(c, &e[i].a, &px, &py);
        source_of(c, &e[i].b, &qx, &qy);
        carve_corridor(c, px, py, qx, qy);
    }
}

/* ------------------------------------------------------------- search */

/* Records the edge between small cell (reg, cell, k, src) and a neighbour,
 * unless their regions are already joined. */
static inline void add_edge(joiner *c, vec *list, end a, end b)
{
    if (uf_find(c->uf, a.reg) == uf_find(c->uf, b.reg))
        return;
    ((edge *)list->p)[list->n++] = (edge){a, b};
}

/* Words of layer k to compute: every active word of layer k - 1 and its
 * four neighbouring words. Fills c->rows; returns their count. */
static size_t candidates(joiner *c)
{
    const uint32_t *act = c->act_f.p;
    size_t nrows = 0;
    int64_t last = -1;
    for (size_t j = 0; j < c->act_f.n; j++) {
        uint32_t y = (uint32_t)(act[j] / c->nw);
        size_t i = act[j] % c->nw;
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

/* Layer k's cells, its active words, the largest region's share of it,
 * prefix counts of its small cells. */
static cg_status grow(joiner *c)
{
    size_t nrows = candidates(c);
    uint32_t small = 0;
    c->act_n.n = c->big_n.n = c->cells_n.n = 0;
    for (size_t r = 0; r < nrows; r++) {
        const uint32_t y = c->rows[r];
        uint64_t *cw = c->cand + (size_t)y * c->ncw;
        for (size_t ci = 0; ci < c->ncw; ci++) {
            uint64_t bits = cw[ci];
            cw[ci] = 0;
            while (bits) {
                size_t i = ci * 64 + (size_t)__builtin_ctzll(bits);
                bits &= bits - 1;
                size_t at = (size_t)y * c->nw + i;
                uint64_t n = dilate(c, c->front, y, i) & ~c->reach[at] & in_map(c, i);
                if (!n)
                    continue;
                /* Ties go to the largest region: a cell beside its territory
                 * of the previous layer joins it. */
                uint64_t b = n & dilate(c, c->terr, y, i);
                cg_status st;
                if ((st = vec_reserve(&c->act_n, 1)) != CG_OK ||
                    (st = vec_reserve(&c->big_n, 1)) != CG_OK)
                    return st;
                ((uint32_t *)c->act_n.p)[c->act_n.n++] = (uint32_t)at;
                ((uint64_t *)c->big_n.p)[c->big_n.n++] = b;
                c->next[at] = n;
                c->reach[at] |= n;
                c->pre_n[at] = small;
                small += (uint32_t)__builtin_popcountll(n & ~b);
            }
        }
    }
    /* Only now: this layer's cells must not count as territory while the
     * layer itself is computed. */
    const uint32_t *act = c->act_n.p;
    const uint64_t *big = c->big_n.p;
    for (size_t j = 0; j < c->act_n.n; j++)
        c->terr[act[j]] |= big[j];
    return vec_reserve(&c->cells_n, small);
}

/* Owners of layer k's small cells, and the Voronoi edges found at layer k. */
static cg_status meet(joiner *c, uint32_t k)
{
    const uint32_t *act = c->act_n.p;
    const uint64_t *bigw = c->big_n.p;
    const fcell *fprev = c->cells_f.p;
    fcell *fnow = c->cells_n.p;
    const size_t nw = c->nw;
    const uint32_t w = c->w;
    size_t nnow = 0;
    static const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1}; /* up, left, right, down */
    for (size_t j = 0; j < c->act_n.n; j++) {
        const uint32_t y = act[j] / (uint32_t)nw;
        const size_t i = act[j] % nw;
        const uint64_t n = c->next[act[j]], b = bigw[j];
        cg_status st;
        for (uint64_t s = n & ~b; s; s &= s - 1) {
            const uint32_t x = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(s));
            const uint32_t cell = y * w + x;
            fcell me = {NONE, NONE};
            if ((st = vec_reserve(&c->even, 4)) != CG_OK ||
                (st = vec_reserve(&c->odd, 4)) != CG_OK)
                return st;
            for (int d = 0; d < 4; d++) {
                int64_t nx = (int64_t)x + dx[d], ny = (int64_t)y + dy[d];
                if (nx < 0 || ny < 0 || nx >= w || ny >= c->h)
                    continue;
                const uint32_t ux = (uint32_t)nx, uy = (uint32_t)ny;
                const size_t wi = (size_t)uy * nw + (ux >> 6);
                const uint32_t ncell = uy * w + ux;
                if (bit(c->front, c, ux, uy)) {
                    /* Previous layer: small (a cell beside the territory
                     * would have joined it). */
                    const fcell *f = &fprev[rank_small(c->front, c->terr, c->pre_f, wi, ux)];
                    if (me.reg == NONE) {
                        me = *f; /* the first by priority: up, left, right, down */
                    } else if (f->reg != me.reg) {
                        add_edge(c, &c->even, (end){me.reg, cell, k, me.src},
                                 (end){f->reg, ncell, k - 1, f->src});
                    }
                }
            }
            fnow[nnow++] = me;
            /* Same layer: the largest region's cells on any side, small
             * cells already placed (left, up). */
            for (int d = 0; d < 4; d++) {
                int64_t nx = (int64_t)x + dx[d], ny = (int64_t)y + dy[d];
                if (nx < 0 || ny < 0 || nx >= w || ny >= c->h)
                    continue;
                const uint32_t ux = (uint32_t)nx, uy = (uint32_t)ny;
                if (!bit(c->next, c, ux, uy))
                    continue;
                const uint32_t ncell = uy * w + ux;
                if (bit(c->terr, c, ux, uy)) {
                    add_edge(c, &c->odd, (end){me.reg, cell, k, me.src},
                             (end){BIG, ncell, k, NONE});
                } else if (d < 2) {
                    const size_t wi = (size_t)uy * nw + (ux >> 6);
                    const fcell *f = &fnow[rank_small(c->next, c->terr, c->pre_n, wi, ux)];
                    if (f->reg != me.reg)
                        add_edge(c, &c->odd, (end){me.reg, cell, k, me.src},
                                 (end){f->reg, ncell, k, f->src});
                }
            }
        }
        /* The largest region's new cells beside small cells of layer k - 1:
         * edges of weight 2k, seen from this side only. */
        for (uint64_t s = b & dilate_small(c, y, i); s; s &= s - 1) {
            const uint32_t x = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(s));
            const uint32_t cell = y * w + x;
            if ((st = vec_reserve(&c->even, 4)) != CG_OK)
                return st;
            for (int d = 0; d < 4; d++) {
                int64_t nx = (int64_t)x + dx[d], ny = (int64_t)y + dy[d];
                if (nx < 0 || ny < 0 || nx >= w || ny >= c->h)
                    continue;
                const uint32_t ux = (uint32_t)nx, uy = (uint32_t)ny;
                if (!bit(c->front, c, ux, uy) || bit(c->terr, c, ux, uy))
                    continue;
                const size_t wi = (size_t)uy * nw + (ux >> 6);
                const fcell *f = &fprev[rank_small(c->front, c->terr, c->pre_f, wi, ux)];
                add_edge(c, &c->even, (end){BIG, cell, k, NONE},
                         (end){f->reg, uy * w + ux, k - 1, f->src});
            }
        }
    }
    c->cells_n.n = nnow;
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

/* Labelling hook of the small regions: their cells' raw labels, in scan
 * order, become layer 0's owners (resolved afterwards). */
static void small_cells(void *ctx, uint32_t y, const uint32_t *x0, const uint32_t *x1,
                        const uint32_t *label, size_t n)
{
    joiner *c = ctx;
    fcell *f = (fcell *)c->cells_f.p + c->cells_f.n;
    for (size_t j = 0; j < n; j++)
        for (uint32_t x = x0[j]; x < x1[j]; x++)
            *f++ = (fcell){label[j], y * c->w + x};
    c->cells_f.n = (size_t)(f - (fcell *)c->cells_f.p);
}

/* Layer 0: all floor; the largest region's floor is its territory; the
 * other regions' cells get ids 1..R-1 from a labelling of their floor. */
static cg_status layer0(joiner *c, cg_grid *big, uint64_t small_cells_n)
{
    const cg_grid *g = c->g;
    const size_t nw = c->nw;
    cg_status st;
    /* The small regions' floor as a grid: floor in g, wall in big. */
    cg_grid *sm = NULL;
    if ((st = cg__grid_new_like(&sm, g)) != CG_OK)
        return st;
    for (uint32_t y = 0; y < c->h; y++) {
        const uint64_t *gr = cg__row(g, y), *br = cg__row(big, y);
        uint64_t *sr = cg__row(sm, y);
        for (size_t i = 0; i < nw; i++)
            sr[i] = gr[i] | ~br[i];
    }
    cg__grid_fix_tail(sm);
    if ((st = vec_reserve(&c->cells_f, small_cells_n)) != CG_OK) {
        cg_grid_free(sm);
        return st;
    }
    cg__labeller lb;
    st = cg__label(&lb, sm, 0, small_cells, c);
    cg_grid_free(sm);
    if (st != CG_OK)
        return st;
    /* Raw labels to ids 1..S, roots in scan order. */
    uint32_t *id = malloc((lb.n ? lb.n : 1) * sizeof *id);
    if (!id) {
        cg__labeller_free(&lb);
        return CG_ENOMEM;
    }
    uint32_t nid = 0;
    for (size_t l = 0; l < lb.n; l++)
        if (lb.parent[l] == l)
            id[l] = ++nid;
    fcell *f = c->cells_f.p;
    for (size_t j = 0; j < c->cells_f.n; j++)
        f[j].reg = id[lb.parent[f[j].reg]];
    free(id);
    cg__labeller_free(&lb);
    c->uf = malloc(((size_t)nid + 1) * sizeof *c->uf);
    if (!c->uf)
        return CG_ENOMEM;
    for (uint32_t r = 0; r <= nid; r++)
        c->uf[r] = r;
    c->regions = (uint64_t)nid + 1;
    /* Bitboards and prefix counts of layer 0. */
    uint32_t count = 0;
    for (uint32_t y = 0; y < c->h; y++) {
        const uint64_t *gr = cg__row(g, y), *br = cg__row(big, y);
        for (size_t i = 0; i < nw; i++) {
            const size_t at = (size_t)y * nw + i;
            const uint64_t floor = ~gr[i] & in_map(c, i), bigf = ~br[i] & in_map(c, i);
            c->reach[at] = c->front[at] = floor;
            c->terr[at] = c->big[at] = bigf;
            c->pre_f[at] = count;
            count += (uint32_t)__builtin_popcountll(floor & ~bigf);
            if (floor) {
                if ((st = vec_reserve(&c->act_f, 1)) != CG_OK)
                    return st;
                ((uint32_t *)c->act_f.p)[c->act_f.n++] = (uint32_t)at;
            }
        }
    }
    return CG_OK;
}

static void joiner_free(joiner *c)
{
    free(c->reach);
    free(c->terr);
    free(c->front);
    free(c->next);
    free(c->big);
    free(c->pre_f);
    free(c->pre_n);
    free(c->act_f.p);
    free(c->act_n.p);
    free(c->big_n.p);
    free(c->cells_f.p);
    free(c->cells_n.p);
    free(c->cand);
    free(c->rows);
    free(c->even.p);
    free(c->odd.p);
    free(c->uf);
}

cg_status cg__connect(cg_grid *g, uint32_t width, uint64_t *corridors)
{
    if (corridors)
        *corridors = 0;
    /* Cells are named by 32-bit indices y * w + x. */
    if ((uint64_t)g->w * g->h > UINT32_MAX)
        return CG_EOVERFLOW;
    cg__labeller lb;
    cg_status st = cg__label(&lb, g, 0, NULL, NULL);
    if (st != CG_OK)
        return st;
    uint64_t roots;
    uint32_t largest = cg__largest_root(&lb, &roots);
    if (roots <= 1) {
        cg__labeller_free(&lb);
        return CG_OK;
    }
    /* The largest region alone, as a grid. */
    cg_grid *big = NULL;
    st = cg__grid_new_like(&big, g);
    if (st == CG_OK) {
        memcpy(big->mem, g->mem, g->stride * ((size_t)g->h + 2 * CG__PAD) * sizeof(uint64_t));
        st = cg__flip_regions_except(big, &lb, largest);
    }
    uint64_t small_n = cg_grid_floor_count(g) - lb.size[largest];
    cg__labeller_free(&lb);

    joiner c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.w = g->w;
    c.h = g->h;
    c.nw = g->nw;
    c.last = ~cg__tail_mask(g);
    c.width = width;
    c.ncw = (c.nw + 63) / 64;
    c.act_f.elem = c.act_n.elem = sizeof(uint32_t);
    c.big_n.elem = sizeof(uint64_t);
    c.cells_f.elem = c.cells_n.elem = sizeof(fcell);
    c.even.elem = c.odd.elem = sizeof(edge);
    const size_t words = c.nw * c.h; /* <= cells / 64 + h: no overflow below 2^32 cells */
    if (st == CG_OK) {
        c.reach = malloc(words * sizeof(uint64_t));
        c.terr = malloc(words * sizeof(uint64_t));
        c.front = malloc(words * sizeof(uint64_t));
        c.next = calloc(words, sizeof(uint64_t));
        c.big = malloc(words * sizeof(uint64_t));
        c.pre_f = malloc(words * sizeof(uint32_t));
        c.pre_n = malloc(words * sizeof(uint32_t));
        c.cand = calloc(c.ncw * c.h, sizeof(uint64_t));
        c.rows = malloc((size_t)c.h * sizeof(uint32_t));
        if (!c.reach || !c.terr || !c.front || !c.next || !c.big || !c.pre_f || !c.pre_n ||
            !c.cand || !c.rows)
            st = CG_ENOMEM;
    }
    if (st == CG_OK)
        st = layer0(&c, big, small_n);
    cg_grid_free(big);
    for (uint32_t k = 1; st == CG_OK && c.regions > 1 && c.act_f.n; k++) {
        c.even.n = c.odd.n = 0;
        if ((st = grow(&c)) != CG_OK || (st = meet(&c, k)) != CG_OK)
            break;
        take_edges(&c, &c.even);
        take_edges(&c, &c.odd);
        advance(&c);
    }
    if (corridors)
        *corridors = c.corridors;
    joiner_free(&c);
    return st;
}

/* ----------------------------------------------------------------- step */

cg_status cg__parse_connect(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long v = CG__CONNECT_DEFAULT_WIDTH;
    if (a->values[0].s && cg__parse_int(&a->values[0], a->line, "width", 1,
                                        CG__CONNECT_MAX_WIDTH, &v, diag))
        return CG_EPARSE;
    step->u.connect.width = (uint32_t)v;
    return CG_OK;
}

cg_status cg__run_connect(const cg__step *step, cg__run *run)
{
    cg_status st = cg__connect(run->grid, step->u.connect.width, NULL);
    if (st == CG_ENOMEM)
        cg__diag(run->diag, 0, 0, "out of memory for connect on a %ux%u map", run->grid->w,
                 run->grid->h);
    else if (st == CG_EOVERFLOW)
        cg__diag(run->diag, 0, 0, "connect handles maps of up to 2^32 cells, not %ux%u",
                 run->grid->w, run->grid->h);
    return st;
}
