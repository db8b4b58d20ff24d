/* regions/reach.c - cells reachable within M moves, with their distances
 * (Les cellules accessibles, docs/algorithms.md).
 *
 * The article's lessons: go from neighbour to neighbour and never re-explore a
 * cell (each cell enters the search once); and a bitboard version - rows as
 * machine words, the frontier grown by shifts and ORs, ANDed with the free
 * cells - is far cheaper than cell-by-cell code. Both are here:
 *
 * - small budgets: level-synchronous bitboard search over the window that
 *   the budget allows (starts +- M). Level d's frontier is the previous one
 *   shifted left/right/up/down, ANDed with free & ~visited; its cells get
 *   distance d. Work per level is the window's words between the frontier's
 *   top and bottom rows.
 * - no budget or a large one: the wide search (regions/reach_wide.c), a
 *   queue BFS that tests an open-cell bitmap and only writes distances.
 * - the queue BFS over a padded distance array (sentinels around the
 *   window, so no bounds tests) that the wide search replaced: kept as its
 *   twin in the tests, reached through cg__reach_force_path.
 *
 * Memory and time are proportional to the window, never to the map: a
 * budget of 6 on a 4096x4096 map touches a 13x13 window. The plain BFS the
 * tests compare every path with is in tests/test_reach.c. */
#include <stdlib.h>
#include <string.h>

#include "cells/par.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "engine/steps.h"
#include "regions/reach.h"

/* Budgets up to this use the bitboard search (measured: docs/PERFORMANCE.md). */
#define BITBOARD_MAX_MOVES 24

enum { PATH_QUEUE, PATH_BITBOARD, PATH_WIDE };
static int reach_path_override = -1; /* test hook: -1 auto, else a PATH_ */

void cg__reach_force_path(int path)
{
    reach_path_override = path;
}

void cg__reach_free(cg__reach *r)
{
    if (!r)
        return;
    cg__free(r->d16);
    cg__free(r->d32);
    cg__free(r);
}

cg_status cg__reach_clone(cg__reach **out, const cg__reach *src)
{
    size_t n = src->stride * ((size_t)src->h + 2);
    size_t bytes = n * (src->d32 ? sizeof *src->d32 : sizeof *src->d16);
    cg__reach *r = cg__malloc(sizeof *r);
    void *d = cg__malloc(bytes);
    if (!r || !d) {
        cg__free(r);
        cg__free(d);
        *out = NULL;
        return CG_ENOMEM;
    }
    *r = *src;
    if (src->d32) {
        memcpy(d, src->d32, bytes);
        r->d32 = d;
    } else {
        memcpy(d, src->d16, bytes);
        r->d16 = d;
    }
    *out = r;
    return CG_OK;
}

int cg__reach_widen(cg__reach *r)
{
    size_t n = r->stride * ((size_t)r->h + 2);
    uint16_t *d16 = r->d16;
    /* Reallocated, not copied into a new array: on a large window the
     * system moves the pages and the two never coexist. */
    void *p = cg__realloc(d16, n * sizeof *r->d32);
    if (!p)
        return 0;
    d16 = p;
    uint32_t *d32 = p;
    /* From the end down: cell i's 32 bits overwrite 16-bit cells 2i and
     * 2i + 1, converted already (cell 0 reads before it writes). */
    for (size_t i = n; i-- > 0;)
        d32[i] = d16[i];
    r->d16 = NULL;
    r->d32 = d32;
    cg__mem_advise_huge(d32, n * sizeof *d32);
    return 1;
}

void cg_grid_clear_reach(cg_grid *grid)
{
    cg__reach_free(grid->reach);
    grid->reach = NULL;
}

uint32_t cg_grid_distance(const cg_grid *grid, int64_t x, int64_t y)
{
    const cg__reach *r = grid->reach;
    if (!r || x < r->x0 || y < r->y0 || x >= (int64_t)r->x0 + r->w || y >= (int64_t)r->y0 + r->h)
        return CG_UNREACHED;
    return cg__reach_dist(r, cg__reach_at(r, (uint32_t)(x - r->x0), (uint32_t)(y - r->y0)));
}

uint64_t cg_grid_reached_count(const cg_grid *grid)
{
    return grid->reach ? grid->reach->count : 0;
}

void cg__reach_floor_bits(const cg_grid *g, uint32_t y, uint32_t x0, uint32_t n, uint64_t *out)
{
    const uint64_t *row = cg__row(g, y) + (x0 >> 6);
    unsigned s = x0 & 63;
    size_t words = ((size_t)n + 63) / 64;
    for (size_t k = 0; k < words; k++) {
        uint64_t w = s ? (row[k] >> s) | (row[k + 1] << (64 - s)) : row[k];
        out[k] = ~w;
    }
    if (n & 63)
        out[words - 1] &= (UINT64_C(1) << (n & 63)) - 1;
}

/* Window-local free bits: nwords per row plus one zero word on each side and
 * one zero row above and below, blocked cells cleared. */
typedef struct bitwin {
    size_t nwords, stride;
    uint64_t *bits; /* (h + 2) * stride */
} bitwin;

static inline uint64_t *bw_row(const bitwin *b, int64_t wy)
{
    return b->bits + (size_t)(wy + 1) * b->stride + 1;
}

static cg_status bitwin_init(bitwin *b, const cg_grid *g, const cg__reach *r)
{
    b->nwords = ((size_t)r->w + 63) / 64;
    b->stride = b->nwords + 2;
    b->bits = cg__calloc(b->stride * ((size_t)r->h + 2), sizeof(uint64_t));
    if (!b->bits)
        return CG_ENOMEM;
    for (uint32_t wy = 0; wy < r->h; wy++)
        cg__reach_floor_bits(g, r->y0 + wy, r->x0, r->w, bw_row(b, wy));
    /* Blocked cells: the markers are sorted by (y, x). */
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        if (m->kind == CG_MARK_BLOCKED && m->y >= r->y0 && m->y - r->y0 < r->h && m->x >= r->x0 &&
            m->x - r->x0 < r->w) {
            uint32_t wx = m->x - r->x0;
            bw_row(b, m->y - r->y0)[wx >> 6] &= ~(UINT64_C(1) << (wx & 63));
        }
    }
    return CG_OK;
}

/* Stores v (a distance + 1) for cell (wx, wy) in either width. */
static inline void set_dist(cg__reach *r, uint32_t wx, uint32_t wy, uint32_t v)
{
    size_t i = cg__reach_at(r, wx, wy);
    if (r->d32)
        r->d32[i] = v;
    else
        r->d16[i] = (uint16_t)v;
}

/* The queue BFS's cell (wx, wy): its array is 32 bits. */
static inline uint32_t *dist_at(cg__reach *r, uint32_t wx, uint32_t wy)
{
    return &r->d32[cg__reach_at(r, wx, wy)];
}

/* Level-synchronous bitboard search (the article's "utilisation du binaire"). */
static cg_status search_bitboard(cg__reach *r, const bitwin *fr, const cg_point *starts,
                                 size_t nstarts, uint32_t max_moves)
{
    size_t n = fr->stride * ((size_t)r->h + 2);
    uint64_t *mem = cg__calloc(3 * n, sizeof(uint64_t));
    if (!mem)
        return CG_ENOMEM;
    bitwin vis = {fr->nwords, fr->stride, mem};
    bitwin cur = {fr->nwords, fr->stride, mem + n};
    bitwin nxt = {fr->nwords, fr->stride, mem + 2 * n};
    int64_t top = INT64_MAX, bottom = -1; /* rows holding the frontier */
    for (size_t i = 0; i < nstarts; i++) {
        uint32_t wx = starts[i].x - r->x0, wy = starts[i].y - r->y0;
        uint64_t bit = UINT64_C(1) << (wx & 63);
        if (!(bw_row(&vis, wy)[wx >> 6] & bit)) {
            bw_row(&vis, wy)[wx >> 6] |= bit;
            bw_row(&cur, wy)[wx >> 6] |= bit;
            set_dist(r, wx, wy, 1); /* distance 0 */
            r->count++;
        }
        top = wy < top ? wy : top;
        bottom = wy > bottom ? wy : bottom;
    }
    for (uint32_t d = 1; d <= max_moves && top <= bottom; d++) {
        int64_t ntop = INT64_MAX, nbottom = -1;
        int64_t lo = top > 0 ? top - 1 : 0;
        int64_t hi = bottom + 1 < (int64_t)r->h ? bottom + 1 : (int64_t)r->h - 1;
        for (int64_t y = lo; y <= hi; y++) {
            const uint64_t *c = bw_row(&cur, y), *up = bw_row(&cur, y - 1);
            const uint64_t *dn = bw_row(&cur, y + 1), *f = bw_row(fr, y);
            uint64_t *v = bw_row(&vis, y), *o = bw_row(&nxt, y);
            uint64_t any = 0;
            for (size_t k = 0; k < fr->nwords; k++) {
                uint64_t grow = up[k] | dn[k] | (c[k] << 1) | (*(c + k - 1) >> 63) | (c[k] >> 1) |
                                (c[k + 1] << 63);
                uint64_t fresh = grow & f[k] & ~v[k];
                o[k] = fresh;
                v[k] |= fresh;
                any |= fresh;
                for (uint64_t m = fresh; m; m &= m - 1) {
                    uint32_t wx = (uint32_t)(k * 64 + (unsigned)__builtin_ctzll(m));
                    set_dist(r, wx, (uint32_t)y, d + 1);
                    r->count++;
                }
            }
            if (any) {
                ntop = y < ntop ? y : ntop;
                nbottom = y;
            }
        }
        /* The old frontier's rows are cleared so `cur` can take the next. */
        for (int64_t y = top; y <= bottom; y++)
            memset(bw_row(&cur, y), 0, fr->nwords * sizeof(uint64_t));
        bitwin t = cur;
        cur = nxt;
        nxt = t;
        top = ntop;
        bottom = nbottom;
        if (top <= bottom)
            r->max_distance = d;
    }
    cg__free(mem);
    return CG_OK;
}

/* Queue BFS over the padded distance array, the textbook way: every free
 * cell starts at UNSEEN, everything else (and the frame) at BLOCKED, and a
 * reached cell holds its distance; the array is turned into the stored form
 * (distance + 1, 0 unreached) at the end. */
#define UNSEEN UINT32_MAX
#define BLOCKED (UINT32_MAX - 1)

static cg_status search_queue(cg__reach *r, const bitwin *fr, const cg_point *starts,
                              size_t nstarts, uint32_t max_moves)
{
    for (uint32_t wy = 0; wy < r->h; wy++) {
        const uint64_t *f = bw_row(fr, wy);
        uint32_t *d = dist_at(r, 0, wy);
        for (uint32_t wx = 0; wx < r->w; wx++) /* UNSEEN - 1 is BLOCKED */
            d[wx] = BLOCKED + (uint32_t)((f[wx >> 6] >> (wx & 63)) & 1);
    }
    uint64_t cells = (uint64_t)r->w * r->h;
    uint32_t *queue = cg__malloc(((size_t)cells + 4) * sizeof *queue); /* + room for VISIT */
    if (!queue)
        return CG_ENOMEM;
    size_t head = 0, tail = 0;
    const size_t stride = r->stride;
    for (size_t i = 0; i < nstarts; i++) {
        uint32_t *d = dist_at(r, starts[i].x - r->x0, starts[i].y - r->y0);
        /* A start may be a blocked cell: the unit's own (docs/reach.md). */
        if (*d == UNSEEN || *d == BLOCKED) {
            *d = 0;
            queue[tail++] = (uint32_t)(d - r->d32);
        }
    }
    while (head < tail) {
        uint32_t at = queue[head++];
        uint32_t nd = r->d32[at] + 1;
        if (nd > max_moves)
            break; /* FIFO order: every later cell is at least as far */
        uint32_t *d = r->d32;
        /* Unrolled: the four neighbours, appended without a branch on the
         * queue tail (a write past the new tail is overwritten later). */
#define VISIT(n)                                                                                   \
    do {                                                                                           \
        size_t n_ = (n);                                                                           \
        int fresh_ = d[n_] == UNSEEN;                                                              \
        d[n_] = fresh_ ? nd : d[n_];                                                               \
        queue[tail] = (uint32_t)n_;                                                                \
        tail += (size_t)fresh_;                                                                    \
    } while (0)
        VISIT(at - 1);
        VISIT(at + 1);
        VISIT(at - stride);
        VISIT(at + stride);
#undef VISIT
    }
    r->count = tail;
    r->max_distance = tail ? r->d32[queue[tail - 1]] : 0;
    cg__free(queue);
    const size_t n = stride * ((size_t)r->h + 2);
    for (size_t i = 0; i < n; i++) /* UNSEEN and BLOCKED: unreached */
        r->d32[i] = r->d32[i] >= BLOCKED ? 0 : r->d32[i] + 1;
    return CG_OK;
}

cg_status cg_grid_reach(cg_grid *grid, const cg_point *starts, size_t nstarts, uint32_t max_moves,
                        cg_diag *diag)
{
    return cg__grid_reach_par(grid, starts, nstarts, max_moves, NULL, diag);
}

cg_status cg__grid_reach_par(cg_grid *grid, const cg_point *starts, size_t nstarts,
                             uint32_t max_moves, const cg__par *par, cg_diag *diag)
{
    if (nstarts == 0) {
        cg__diag(diag, 0, 0, "reach needs at least one start");
        return CG_EINVAL;
    }
    uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    for (size_t i = 0; i < nstarts; i++) {
        uint32_t x = starts[i].x, y = starts[i].y;
        const char *why = NULL;
        if (x >= grid->w || y >= grid->h)
            why = "outside the map";
        else if (cg_grid_get(grid, x, y) == CG_WALL)
            why = "a wall";
        if (why) {
            cg__diag(diag, 0, 0, "reach start %u,%u is %s", x, y, why);
            return CG_EINVAL;
        }
        x0 = x < x0 ? x : x0;
        y0 = y < y0 ? y : y0;
        x1 = x > x1 ? x : x1;
        y1 = y > y1 ? y : y1;
    }
    /* The window: every cell within max_moves of a start, clipped. */
    uint32_t m = max_moves;
    cg__reach *r = cg__calloc(1, sizeof *r);
    if (!r) {
        cg__diag(diag, 0, 0, "out of memory for the reach");
        return CG_ENOMEM;
    }
    r->x0 = x0 > m ? x0 - m : 0;
    r->y0 = y0 > m ? y0 - m : 0;
    r->w = (uint32_t)(((uint64_t)x1 + m < grid->w ? x1 + m : grid->w - 1) - r->x0 + 1);
    r->h = (uint32_t)(((uint64_t)y1 + m < grid->h ? y1 + m : grid->h - 1) - r->y0 + 1);
    r->stride = (size_t)r->w + 2;
    size_t n = r->stride * ((size_t)r->h + 2);
    cg_status st = CG_ENOMEM;
    bitwin fr = {0, 0, NULL};
    /* Queue indices are 32-bit: windows beyond 4e9 cells are refused. */
    if (n >= UINT32_MAX) {
        cg__reach_free(r);
        cg__diag(diag, 0, 0, "reach window too large");
        return CG_EOVERFLOW;
    }
    int path = reach_path_override >= 0          ? reach_path_override
               : max_moves <= BITBOARD_MAX_MOVES ? PATH_BITBOARD
                                                 : PATH_WIDE;
    /* Zeroed: every cell unreached (from fresh pages on a large window, no
     * pass over the array at all). 16 bits when every distance + 1 fits -
     * the wide search widens the array itself when a level passes - and 32
     * for the queue BFS, which keeps its markers in the array. */
    if (path == PATH_QUEUE || (path == PATH_BITBOARD && max_moves > CG__REACH_D16_MAX))
        r->d32 = cg__calloc(n, sizeof *r->d32);
    else
        r->d16 = cg__calloc(n, sizeof *r->d16);
    const int have = r->d16 || r->d32;
    if (have && path == PATH_WIDE) {
        st = cg__reach_search_wide(r, grid, starts, nstarts, max_moves, par);
    } else if (have && (st = bitwin_init(&fr, grid, r)) == CG_OK) {
        if (path == PATH_BITBOARD) {
            st = search_bitboard(r, &fr, starts, nstarts, max_moves);
        } else {
            for (size_t i = 0; i < r->stride; i++) /* the frame rows */
                r->d32[i] = r->d32[n - 1 - i] = BLOCKED;
            for (uint32_t wy = 0; wy < r->h; wy++) /* the frame columns */
                dist_at(r, 0, wy)[-1] = dist_at(r, r->w - 1, wy)[1] = BLOCKED;
            st = search_queue(r, &fr, starts, nstarts, max_moves);
        }
    }
    cg__free(fr.bits);
    if (st != CG_OK) {
        cg__reach_free(r);
        cg__diag(diag, 0, 0, "out of memory for the reach");
        return st;
    }
    cg__reach_free(grid->reach);
    grid->reach = r;
    return CG_OK;
}

/* ---- the `reach` step: from=X,Y[;X,Y...]|entrance [moves=M] */

enum { REACH_FROM, REACH_MOVES };

static cg_status parse_reach(cg__step *step, const cg__args *a, cg_diag *diag)
{
    const cg__token *from = &a->values[REACH_FROM];
    if (!from->s)
        return cg__step_missing(step, a, "from=X,Y or from=entrance", diag);
    size_t i = 0;
    while (i <= from->len) {
        size_t j = i;
        while (j < from->len && from->s[j] != ';')
            j++;
        cg__token item = {from->s + i, j - i, from->column + (int)i};
        if (item.len == 8 && memcmp(item.s, "entrance", 8) == 0) {
            step->u.reach.from_entrance = 1;
        } else {
            const char *comma = memchr(item.s, ',', item.len);
            if (!comma) {
                cg__diag(diag, a->line, item.column, "a reach start is X,Y or entrance, not '%.*s'",
                         (int)item.len, item.s);
                return CG_EPARSE;
            }
            if (step->u.reach.nstarts == CG__REACH_MAX_STARTS) {
                cg__diag(diag, a->line, item.column, "at most %d reach starts in one step",
                         CG__REACH_MAX_STARTS);
                return CG_EPARSE;
            }
            size_t xl = (size_t)(comma - item.s);
            cg__token xt = {item.s, xl, item.column};
            cg__token yt = {comma + 1, item.len - xl - 1, item.column};
            long x, y;
            if (cg__parse_int(&xt, a->line, "x", 0, CG_MAX_DIM - 1, &x, diag) ||
                cg__parse_int(&yt, a->line, "y", 0, CG_MAX_DIM - 1, &y, diag))
                return CG_EPARSE;
            step->u.reach.starts[step->u.reach.nstarts++] = (cg_point){(uint32_t)x, (uint32_t)y};
        }
        i = j + 1;
    }
    step->u.reach.moves = CG_MOVES_UNLIMITED;
    long m;
    if (a->values[REACH_MOVES].s) {
        if (cg__parse_int(&a->values[REACH_MOVES], a->line, "moves", 0, INT32_MAX, &m, diag))
            return CG_EPARSE;
        step->u.reach.moves = (uint32_t)m;
    }
    return CG_OK;
}

static cg_status run_reach(const cg__step *step, cg__run *run)
{
    cg_point starts[CG__REACH_MAX_STARTS + 1];
    size_t n = step->u.reach.nstarts;
    memcpy(starts, step->u.reach.starts, n * sizeof *starts);
    if (step->u.reach.from_entrance) {
        const cg_grid *g = run->grid;
        size_t k = 0;
        while (k < g->nmarks && g->marks[k].kind != CG_MARK_ENTRANCE)
            k++;
        if (k == g->nmarks) {
            cg__diag(run->diag, step->line, step->column,
                     "reach from=entrance: the map has no entrance");
            return CG_EINVAL;
        }
        starts[n++] = (cg_point){g->marks[k].x, g->marks[k].y};
    }
    cg_status st =
        cg__grid_reach_par(run->grid, starts, n, step->u.reach.moves, run->par, run->diag);
    if (st == CG_EINVAL && run->diag)
        run->diag->line = step->line;
    return st;
}

/* The reach it attaches is what it leaves: the one step that keeps it. */
const cg__step_def cg__step_reach = {
    .name = "reach",
    .usage = "reach from=X,Y[;X,Y...]|entrance [moves=M]",
    .keys = {[REACH_FROM] = "from", [REACH_MOVES] = "moves"},
    .keeps_reach = 1,
    .parse = parse_reach,
    .run = run_reach,
};
