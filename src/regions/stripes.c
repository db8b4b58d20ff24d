/* regions/stripes.c - `remove-floor min=N` and `remove-walls min=N` on a big
 * map through the run's parallel loop: row-parallel labelling.
 *
 * The map is cut into horizontal stripes of rows, fixed by its size alone.
 * Each stripe is labelled on its own by the run-based labeller
 * (cg__label_rows: its own label arrays, O(width + labels)), which records
 * the labels of the runs of its first and last rows. The stripes are then
 * joined as in strip-parallel connected-component labelling (label each
 * strip, then merge the labels along the strip borders; e.g. Cabaret,
 * Lacassagne & Etiemble, "Parallel Light Speed Labeling", 2018): a
 * union-find over the roots that
 * touch a stripe's first or last row only - O(width) per stripe - unites,
 * at each boundary, the roots of the overlapping runs of the last row above
 * and the first row below; sizes are summed at the global roots, which are
 * the smallest (stripe, label), i.e. the region's first part in scan
 * order, and with walls every stripe's outside (its label 0) is one.
 *
 * A region that touches neither boundary row of its stripe lies inside the
 * stripe: its size is its stripe's, and the stripes flip those at once, each
 * in a view of the grid holding its own rows only (a flood cannot leave
 * them, so no two threads touch a word of the same row). The regions that
 * cross or touch a boundary are flipped after, one at a time, by the flood
 * from their first cell. Which regions go depends only on the regions and
 * their sizes, so the cells are those of cg__remove_small for any stripes
 * and any threads. */
#include <stdlib.h>
#include <string.h>

#include "cells/par.h"
#include "core/grid.h"
#include "core/mem.h"
#include "regions/regions.h"

/* Maps of at least this many cells go in stripes when there is a loop; at
 * most MAX_STRIPES stripes, of about STRIPE_CELLS cells each (the joins cost
 * O(width) each, and their labels of two rows per stripe stay small). */
#define STRIPED_CELLS (UINT64_C(1) << 24)
#define STRIPE_CELLS (UINT64_C(1) << 22)
#define MAX_STRIPES 64u
/* keep-largest floods the stripes' inner largest through the loop when
 * they hold this many cells in all. */
#define INNER_PAR_CELLS (UINT64_C(1) << 16)

static uint32_t forced_rows;

void cg__regions_set_stripe_rows(uint32_t n)
{
    forced_rows = n;
}

typedef struct stripe {
    uint32_t y0, y1;
    uint32_t *top, *bot; /* labels of the runs of rows y0, y1-1; then their edge roots' indices */
    size_t ntop, nbot;
    size_t nedge;  /* the roots on an edge row (with walls, the outside first) */
    uint64_t *esize; /* their sizes in the stripe */
    uint32_t *ex, *ey; /* their first cells (map rows) */
    uint64_t peak;   /* bytes the task held at once */
    uint64_t kept;   /* bytes it keeps for the join */
    cg_status st;
    int any; /* a region flipped */
    /* keep-largest only: the edge roots' labels (sorted), the largest
     * region inside the stripe (ties: the first; NONE: none, or flipped
     * already: not the map's largest) with its size
     * and first cell (map row), and the number of regions inside. */
    uint32_t *edge;
    uint64_t isize, inner;
    uint32_t ilabel, ix, iy;
    int drop_inner; /* flip that region after the join */
} stripe;

#define NONE UINT32_MAX

typedef struct job {
    cg_grid *g;
    int walls;
    int largest; /* keep-largest, not removal of the small ones */
    uint64_t min;
    stripe *s;
    int live; /* the stripes are labelled in order on this thread, counted by the run */
} job;

/* Keeps the labels of the stripe's first and last rows. */
static void keep_edges(void *ctx, uint32_t y, const uint32_t *x0, const uint32_t *x1,
                       const uint32_t *label, size_t n)
{
    (void)x0, (void)x1;
    stripe *s = ctx;
    for (int k = 0; k < 2; k++) {
        if (y != (k ? s->y1 - 1 : s->y0))
            continue;
        uint32_t *l = cg__malloc((n ? n : 1) * sizeof *l);
        if (!l) {
            s->st = CG_ENOMEM;
            return;
        }
        memcpy(l, label, n * sizeof *l);
        *(k ? &s->bot : &s->top) = l;
        *(k ? &s->nbot : &s->ntop) = n;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The view of g holding stripe s's rows only. */
static cg_grid stripe_view(const cg_grid *g, const stripe *s)
{
    cg_grid view = *g;
    view.h = s->y1 - s->y0;
    view.mem = g->mem + (size_t)s->y0 * g->stride;
    return view;
}

/* The index of label l in the sorted list e of n labels (l is there). */
static uint32_t index_of(const uint32_t *e, size_t n, uint32_t l)
{
    const uint32_t *p = bsearch(&l, e, n, sizeof *e, cmp_u32);
    return (uint32_t)(p - e);
}

/* Stripe s's work once labelled: its edge labels become roots, and the
 * roots on an edge a sorted list, whose sizes and first cells are kept,
 * indexed as top and bot then are. Removal flips the small regions inside
 * the stripe at once, in a view of its rows (they do not touch its edge
 * rows, which the join reads, and a flood cannot leave the view, so no
 * other stripe's rows are read or written). keep-largest finds the
 * largest region inside (ties: the first) and flips the other regions
 * inside at once, the same way: none of them can be the map's largest -
 * that is the first of the largest, and the stripe's largest inside is as
 * large and comes first - and if the stripe has two regions inside, the
 * map has two regions, so keep-largest flips something; the largest inside
 * goes too when a part of an edge region is larger. Nothing else of
 * the labelling is kept. */
static cg_status finish_stripe(const job *j, stripe *s, cg__labeller *lb)
{
    uint32_t *parent = lb->parent;
    uint32_t *e = cg__malloc((s->ntop + s->nbot + 1) * sizeof *e);
    if (!e)
        return CG_ENOMEM;
    size_t n = 0;
    if (j->walls)
        e[n++] = 0;
    for (size_t k = 0; k < s->ntop; k++)
        e[n++] = s->top[k] = parent[s->top[k]];
    for (size_t k = 0; k < s->nbot; k++)
        e[n++] = s->bot[k] = parent[s->bot[k]];
    qsort(e, n, sizeof *e, cmp_u32);
    size_t u = 0;
    for (size_t k = 0; k < n; k++)
        if (u == 0 || e[k] != e[u - 1])
            e[u++] = e[k];
    cg_status st = CG_OK;
    cg_grid view = stripe_view(j->g, s);
    if (!j->largest) {
        st = cg__flip_small_roots(&view, lb, j->min, e, u, &s->any);
    } else {
        /* The roots not on an edge, in label order: scan order. */
        s->ilabel = NONE;
        size_t k = 0;
        for (size_t l = 0; l < lb->n; l++) {
            if (parent[l] != l)
                continue;
            while (k < u && e[k] < l)
                k++;
            if (k < u && e[k] == l)
                continue;
            s->inner++;
            if (s->ilabel == NONE || lb->size[l] > s->isize) {
                s->isize = lb->size[l];
                s->ilabel = (uint32_t)l;
            }
        }
        /* A part of a region on an edge larger than the largest inside
         * makes that region larger still: then the largest inside is not
         * the map's largest either, and goes now with the others inside
         * (on the stripe's thread, not after the join). */
        uint64_t edge_most = 0;
        for (k = 0; k < u; k++)
            edge_most = lb->size[e[k]] > edge_most ? lb->size[e[k]] : edge_most;
        const int out = s->ilabel != NONE && edge_most > s->isize;
        if (out) {
            st = cg__flip_small_roots(&view, lb, UINT64_MAX, e, u, &s->any);
            s->ilabel = NONE;
        } else if (s->inner > 1) {
            /* Every root but the edge ones and the largest inside. */
            uint32_t *skip = cg__malloc((u + 1) * sizeof *skip);
            if (!skip) {
                st = CG_ENOMEM;
            } else {
                size_t m = 0;
                int put = 0;
                for (k = 0; k < u; k++) {
                    if (!put && s->ilabel < e[k]) {
                        skip[m++] = s->ilabel;
                        put = 1;
                    }
                    skip[m++] = e[k];
                }
                if (!put)
                    skip[m++] = s->ilabel;
                st = cg__flip_small_roots(&view, lb, UINT64_MAX, skip, m, &s->any);
                cg__free(skip);
            }
        }
        if (s->ilabel != NONE) {
            cg__label_first(lb, s->ilabel, &s->ix, &s->iy);
            s->iy += s->y0;
        }
    }
    const size_t c = u ? u : 1;
    s->esize = cg__malloc(c * sizeof *s->esize);
    s->ex = cg__malloc(c * sizeof *s->ex);
    s->ey = cg__malloc(c * sizeof *s->ey);
    if (st == CG_OK && !(s->esize && s->ex && s->ey))
        st = CG_ENOMEM;
    if (st == CG_OK) {
        for (size_t k = 0; k < u; k++) {
            uint32_t x, y;
            cg__label_first(lb, e[k], &x, &y);
            s->esize[k] = lb->size[e[k]];
            s->ex[k] = x;
            s->ey[k] = s->y0 + y;
        }
        for (size_t k = 0; k < s->ntop; k++)
            s->top[k] = index_of(e, u, s->top[k]);
        for (size_t k = 0; k < s->nbot; k++)
            s->bot[k] = index_of(e, u, s->bot[k]);
        s->nedge = u;
    }
    if (st == CG_OK && j->largest) {
        s->edge = e;
        return st;
    }
    cg__free(e);
    return st;
}

/* Task i: labels stripe i and finishes it (finish_stripe). Through a
 * parallel loop, the stripe's blocks are counted by a budget of the task's
 * own, whatever the thread, for the figure the run admits after
 * (run_stripes). */
static void label_task(void *arg, size_t i)
{
    const job *j = arg;
    stripe *s = &j->s[i];
    cg__budget b;
    if (!j->live)
        cg__budget_begin(&b, 0);
    /* The one-run specks of the stripe's inner rows go first: those rows
     * and the ones beside them are the stripe's own (the edge rows, which
     * the join reads, are left to the labelling). */
    if (j->walls && !j->largest && s->y1 - s->y0 > 2)
        cg__drop_wall_specks(j->g, s->y0 + 1, s->y1 - 1, j->min);
    cg__labeller lb;
    cg_status st = cg__label_rows(&lb, j->g, j->walls, s->y0, s->y1, keep_edges, s);
    if (st == CG_OK) {
        if (s->st == CG_OK)
            st = finish_stripe(j, s, &lb);
        cg__labeller_free(&lb);
    }
    if (s->st == CG_OK)
        s->st = st;
    if (!j->live) {
        s->peak = b.peak;
        s->kept = b.used;
        cg__budget_end(&b);
    }
}

/* Task i of keep-largest, after the join: flips the largest region inside
 * stripe i unless it is the map's largest (drop_inner), in a view of the
 * stripe's rows. */
static void inner_task(void *arg, size_t i)
{
    const job *j = arg;
    stripe *s = &j->s[i];
    if (!s->drop_inner)
        return;
    cg_grid view = stripe_view(j->g, s);
    s->st = cg__flip_region_at(&view, s->ix, s->iy - s->y0, s->isize, 0);
}

/* Runs task(j, i) for every stripe, through par when there is one, with
 * the run's budget suspended (keep-largest's flips: a few blocks each,
 * freed before they return). */
static void run_tasks(const cg__par *par, size_t n, void (*task)(void *arg, size_t i), job *j)
{
    cg__budget *budget = cg__budget_suspend();
    if (!par || !par->fn || n < 2) {
        for (size_t i = 0; i < n; i++)
            task(j, i);
    } else {
        par->fn(par->ctx, n, task, j);
    }
    cg__budget_resume(budget);
}

/* The cells of the kind in word i of row r (none past the map). */
static uint64_t kind_word(const cg_grid *g, const uint64_t *r, size_t i, uint64_t flip)
{
    const uint64_t m = r[i] ^ flip;
    return i + 1 == g->nw ? m & ~cg__tail_mask(g) : m;
}

/* The runs of the kind in row y: x0[k] .. x1[k]-1, in order. */
static size_t row_runs(const cg_grid *g, uint32_t y, uint64_t flip, uint32_t *x0, uint32_t *x1)
{
    const uint64_t *r = cg__row(g, y);
    size_t n = 0, e = 0;
    uint64_t carry = 0, next = kind_word(g, r, 0, flip);
    for (size_t i = 0; i < g->nw; i++) {
        const uint64_t m = next;
        next = i + 1 < g->nw ? kind_word(g, r, i + 1, flip) : 0;
        uint64_t st = m & ~((m << 1) | carry);
        uint64_t en = m & ~((m >> 1) | (next << 63));
        carry = m >> 63;
        for (; st; st &= st - 1)
            x0[n++] = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(st));
        for (; en; en &= en - 1)
            x1[e++] = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(en) + 1);
    }
    return n;
}

/* Joins the stripes (see the top): parent[] and size[] over the edge
 * roots of all stripes, stripe i's edge root k having the global id
 * base_i + k (so ids are in scan order of the parts' first cells); after
 * it, the global roots (parent[id] == id) are the smallest id of each
 * region, its first part, and size[] at them is the region's. */
static cg_status join(const cg_grid *g, int walls, const stripe *s, size_t n, uint32_t *parent,
                      uint64_t *size, uint32_t total)
{
    const size_t rcap = (size_t)g->w / 2 + 2;
    uint32_t *runs = cg__malloc(4 * rcap * sizeof *runs);
    if (!runs)
        return CG_ENOMEM;
    uint32_t b = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < s[i].nedge; k++) {
            parent[b + k] = b + (uint32_t)k;
            size[b + k] = s[i].esize[k];
        }
        if (walls && i > 0)
            cg__uf_unite(parent, 0, b); /* its index 0 is the stripe's outside, label 0 */
        b += (uint32_t)s[i].nedge;
    }
    /* The overlapping runs of the rows either side of each boundary: the
     * same runs, in the same order, as the labeller's. */
    const uint64_t flip = walls ? 0 : ~UINT64_C(0);
    uint32_t *ax0 = runs, *ax1 = runs + rcap, *bx0 = runs + 2 * rcap, *bx1 = runs + 3 * rcap;
    uint32_t ba = 0;
    for (size_t i = 1; i < n; i++) {
        const uint32_t bb = ba + (uint32_t)s[i - 1].nedge;
        const size_t na = row_runs(g, s[i - 1].y1 - 1, flip, ax0, ax1);
        const size_t nb = row_runs(g, s[i].y0, flip, bx0, bx1);
        const uint32_t *la = s[i - 1].bot, *lbl = s[i].top;
        size_t p = 0, q = 0;
        while (p < na && q < nb) {
            if (ax0[p] < bx1[q] && bx0[q] < ax1[p])
                cg__uf_unite(parent, ba + la[p], bb + lbl[q]);
            if (ax1[p] < bx1[q])
                p++;
            else
                q++;
        }
        ba = bb;
    }
    for (uint32_t k = 0; k < total; k++) {
        const uint32_t r = cg__uf_find(parent, k);
        if (r != k)
            size[r] += size[k];
    }
    cg__free(runs);
    return CG_OK;
}

/* After the join: removal flips the small regions on the stripes' edge
 * rows, one at a time from their first cells (those inside went with
 * their stripes). keep-largest finds the largest region - among the
 * stripes' inner largest and the joined ones, ties to the first in scan
 * order, i.e. the smallest (stripe, label) - then flips the stripes'
 * inner largest but that one (the other regions inside went with their
 * stripes), each stripe at once when they hold many cells (a loop's round
 * costs more than a few small floods), and the regions on the edges but
 * that one one at a time. */
static cg_status flip_after(job *j, const cg__par *par, size_t n, const uint32_t *parent,
                            const uint64_t *size, int *any)
{
    stripe *s = j->s;
    cg_status st = CG_OK;
    uint32_t best = NONE, best_stripe = 0; /* an edge id, or NONE: the inner one of best_stripe */
    uint64_t best_size = 0, regions = 0;
    if (j->largest) {
        int found = 0;
        uint32_t id = 0;
        for (size_t i = 0; i < n; i++) {
            regions += s[i].inner;
            /* Candidates in label order within the stripe: a larger size
             * wins, a tie goes to the first. */
            int inner_done = s[i].ilabel == NONE;
            for (size_t k = 0; k <= s[i].nedge; k++) {
                if (!inner_done && (k == s[i].nedge || s[i].ilabel < s[i].edge[k])) {
                    inner_done = 1;
                    if (!found || s[i].isize > best_size) {
                        found = 1;
                        best = NONE, best_stripe = (uint32_t)i;
                        best_size = s[i].isize;
                    }
                }
                if (k == s[i].nedge)
                    break;
                const uint32_t e = id + (uint32_t)k;
                if (parent[e] != e)
                    continue;
                regions++;
                if (!found || size[e] > best_size) {
                    found = 1;
                    best = e, best_stripe = (uint32_t)i;
                    best_size = size[e];
                }
            }
            id += (uint32_t)s[i].nedge;
        }
        if (regions < 2)
            return CG_OK;
        uint64_t cells = 0;
        for (size_t i = 0; i < n; i++) {
            s[i].drop_inner = s[i].ilabel != NONE && !(best == NONE && i == best_stripe);
            cells += s[i].drop_inner ? s[i].isize : 0;
            *any |= s[i].drop_inner;
        }
        run_tasks(cells >= INNER_PAR_CELLS ? par : NULL, n, inner_task, j);
        for (size_t i = 0; i < n; i++) {
            if (s[i].st != CG_OK && st == CG_OK)
                st = s[i].st;
            *any |= s[i].any;
        }
    }
    uint32_t id = 0;
    for (size_t i = 0; i < n && st == CG_OK; i++) {
        for (size_t k = 0; k < s[i].nedge && st == CG_OK; k++, id++) {
            if (parent[id] != id || id == best)
                continue;
            if (!j->largest && (size[id] >= j->min || (j->walls && id == 0)))
                continue;
            st = cg__flip_region_at(j->g, s[i].ex[k], s[i].ey[k], size[id], j->walls);
            *any = 1;
        }
    }
    return st;
}

/* The striped removal or keep-largest of j, in stripes of rows. */
static cg_status run_stripes(job *j, const cg__par *par, uint32_t rows)
{
    cg_grid *g = j->g;
    const size_t n = ((size_t)g->h + rows - 1) / rows;
    stripe *s = cg__calloc(n, sizeof *s);
    if (!s)
        return CG_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        s[i].y0 = (uint32_t)(i * rows);
        s[i].y1 = i + 1 == n ? g->h : (uint32_t)((i + 1) * rows);
    }
    j->s = s;
    /* Without a loop the stripes are labelled in order and their blocks
     * counted by the run as they are made (refused where they would pass
     * its limit). Through a loop they count against no budget of the run;
     * the run then admits, at once, what the stripes in order would have
     * made it hold at most - the blocks every stripe before kept, and the
     * most a stripe held at once - and keeps admitted what they all keep:
     * the same peak and the same refusals whatever the threads. */
    j->live = !par || !par->fn || n < 2;
    if (j->live) {
        for (size_t i = 0; i < n; i++) {
            label_task(j, i);
            if (s[i].st != CG_OK)
                break;
        }
    } else {
        cg__budget *budget = cg__budget_suspend();
        par->fn(par->ctx, n, label_task, j);
        cg__budget_resume(budget);
    }
    cg_status st = CG_OK;
    uint64_t held = 0, most = 0, id = 0;
    size_t total = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].st != CG_OK && st == CG_OK)
            st = s[i].st;
        most = held + s[i].peak > most ? held + s[i].peak : most;
        held += s[i].kept;
        total += s[i].nedge;
        any |= s[i].any;
    }
    if (st == CG_OK && total >= UINT32_MAX)
        st = CG_EOVERFLOW;
    int admitted = 0;
    if (st == CG_OK && !j->live) {
        if (most > SIZE_MAX || !cg__mem_admit((size_t)most, &id)) {
            st = CG_ENOMEM;
        } else {
            cg__mem_release((size_t)(most - held), id);
            admitted = 1;
        }
    }
    uint32_t *parent = NULL;
    uint64_t *size = NULL;
    if (st == CG_OK) {
        parent = cg__malloc((total ? total : 1) * sizeof *parent);
        size = cg__malloc((total ? total : 1) * sizeof *size);
        st = parent && size ? join(g, j->walls, s, n, parent, size, (uint32_t)total) : CG_ENOMEM;
    }
    if (st == CG_OK)
        st = flip_after(j, par, n, parent, size, &any);
    cg__free(parent);
    cg__free(size);
    if (admitted)
        cg__mem_release((size_t)held, id);
    for (size_t i = 0; i < n; i++) {
        cg__free(s[i].top);
        cg__free(s[i].bot);
        cg__free(s[i].esize);
        cg__free(s[i].ex);
        cg__free(s[i].ey);
        cg__free(s[i].edge);
    }
    cg__free(s);
    if (any && !j->walls)
        cg__grid_prune_marks(g);
    return st;
}

/* The stripes' height for g, or 0 for the serial labeller: maps of
 * STRIPED_CELLS and more, threads or not (the stripes are fixed by the
 * map's size, and so is the memory a run admits). */
static uint32_t stripe_rows(const cg_grid *g)
{
    if (forced_rows)
        return forced_rows;
    const uint64_t cells = (uint64_t)g->w * g->h;
    if (cells < STRIPED_CELLS)
        return 0;
    uint64_t n = cells / STRIPE_CELLS;
    if (n > MAX_STRIPES)
        n = MAX_STRIPES;
    return (uint32_t)((g->h + n - 1) / n);
}

cg_status cg__remove_small_par(cg_grid *g, int walls, uint64_t min, const cg__par *par)
{
    const uint32_t rows = min <= 1 || g->h == 0 ? 0 : stripe_rows(g);
    if (!rows)
        return cg__remove_small(g, walls, min);
    job j = {g, walls, 0, min, NULL, 0};
    return run_stripes(&j, par, rows);
}

cg_status cg__keep_largest_par(cg_grid *g, const cg__par *par)
{
    const uint32_t rows = g->h == 0 ? 0 : stripe_rows(g);
    if (!rows)
        return cg__keep_largest_floor(g);
    job j = {g, 0, 1, 0, NULL, 0};
    return run_stripes(&j, par, rows);
}
