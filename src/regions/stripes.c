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
} stripe;

typedef struct job {
    cg_grid *g;
    int walls;
    uint64_t min;
    stripe *s;
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

/* Stripe s's work once labelled: its edge labels become roots, and the
 * roots on an edge a sorted list; the small regions inside it are flipped
 * at once, in a view of its rows (they do not touch its edge rows, which
 * the join reads, and a flood cannot leave the view, so no other stripe's
 * rows are read or written); of its labelling only the edge roots are
 * kept - their sizes and first cells, indexed as top and bot now are. */
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
    cg_grid view = *j->g;
    view.h = s->y1 - s->y0;
    view.mem = j->g->mem + (size_t)s->y0 * j->g->stride;
    cg_status st = cg__flip_small_roots(&view, lb, j->min, e, u, &s->any);
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
            parent[e[k]] = (uint32_t)k; /* (the roots' parents are not read again) */
        }
        for (size_t k = 0; k < s->ntop; k++)
            s->top[k] = parent[s->top[k]];
        for (size_t k = 0; k < s->nbot; k++)
            s->bot[k] = parent[s->bot[k]];
        s->nedge = u;
    }
    cg__free(e);
    return st;
}

/* Task i: labels stripe i, flips the small regions inside it, and keeps
 * what the join needs of the rest. The stripes' blocks are counted by a
 * budget of the task's own, whatever the thread, for the figure the run
 * admits after (remove_striped). */
static void label_task(void *arg, size_t i)
{
    const job *j = arg;
    stripe *s = &j->s[i];
    cg__budget b;
    cg__budget_begin(&b, 0);
    cg__labeller lb;
    cg_status st = cg__label_rows(&lb, j->g, j->walls, s->y0, s->y1, keep_edges, s);
    if (st == CG_OK) {
        if (s->st == CG_OK)
            st = finish_stripe(j, s, &lb);
        cg__labeller_free(&lb);
    }
    if (s->st == CG_OK)
        s->st = st;
    s->peak = b.peak;
    s->kept = b.used;
    cg__budget_end(&b);
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

/* Joins the stripes and flips the regions on their edge rows that are
 * small (see the top). */
static cg_status join_and_flip(cg_grid *g, int walls, uint64_t min, const stripe *s, size_t n,
                               int *any)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += s[i].nedge;
    if (total >= UINT32_MAX)
        return CG_EOVERFLOW;
    uint32_t *parent = cg__malloc((total ? total : 1) * sizeof *parent);
    uint64_t *size = cg__malloc((total ? total : 1) * sizeof *size);
    const size_t rcap = (size_t)g->w / 2 + 2;
    uint32_t *runs = cg__malloc(4 * rcap * sizeof *runs);
    cg_status st = parent && size && runs ? CG_OK : CG_ENOMEM;
    if (st == CG_OK) {
        /* Global ids: stripe i's edge root k is base_i + k, so ids are in
         * scan order of the parts' first cells. */
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
        /* The overlapping runs of the rows either side of each boundary:
         * the same runs, in the same order, as the labeller's. */
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
        /* Sizes at the roots; then every small root is flipped from its
         * first part's first cell. */
        for (uint32_t k = 0; k < total; k++) {
            const uint32_t r = cg__uf_find(parent, k);
            if (r != k)
                size[r] += size[k];
        }
        uint32_t id = 0;
        for (size_t i = 0; i < n && st == CG_OK; i++) {
            for (size_t k = 0; k < s[i].nedge && st == CG_OK; k++, id++) {
                if (parent[id] != id || size[id] >= min || (walls && id == 0))
                    continue;
                st = cg__flip_region_at(g, s[i].ex[k], s[i].ey[k], size[id], walls);
                *any = 1;
            }
        }
    }
    cg__free(parent);
    cg__free(size);
    cg__free(runs);
    return st;
}

static cg_status remove_striped(cg_grid *g, int walls, uint64_t min, const cg__par *par,
                                uint32_t rows)
{
    const size_t n = ((size_t)g->h + rows - 1) / rows;
    stripe *s = cg__calloc(n, sizeof *s);
    if (!s)
        return CG_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        s[i].y0 = (uint32_t)(i * rows);
        s[i].y1 = i + 1 == n ? g->h : (uint32_t)((i + 1) * rows);
    }
    job j = {g, walls, min, s};
    /* The stripes' blocks count against no budget of the run, on this
     * thread or others; what the run admits instead is what one thread
     * doing the stripes in order would hold at most - what every stripe
     * keeps for the join, and the most any stripe held at once - so
     * --max-memory refuses the same maps whatever the threads. */
    cg__budget *budget = cg__budget_suspend();
    if (!par || !par->fn || n < 2) {
        for (size_t i = 0; i < n; i++)
            label_task(&j, i);
    } else {
        par->fn(par->ctx, n, label_task, &j);
    }
    cg__budget_resume(budget);
    cg_status st = CG_OK;
    uint64_t held = 0, most = 0, id = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].st != CG_OK && st == CG_OK)
            st = s[i].st;
        held += s[i].kept;
        most = s[i].peak - s[i].kept > most ? s[i].peak - s[i].kept : most;
        any |= s[i].any;
    }
    held += most;
    int admitted = 0;
    if (st == CG_OK) {
        if (held > SIZE_MAX || !cg__mem_admit((size_t)held, &id))
            st = CG_ENOMEM;
        else
            admitted = 1;
    }
    if (st == CG_OK)
        st = join_and_flip(g, walls, min, s, n, &any);
    if (admitted)
        cg__mem_release((size_t)held, id);
    for (size_t i = 0; i < n; i++) {
        cg__free(s[i].top);
        cg__free(s[i].bot);
        cg__free(s[i].esize);
        cg__free(s[i].ex);
        cg__free(s[i].ey);
    }
    cg__free(s);
    if (any && !walls)
        cg__grid_prune_marks(g);
    return st;
}

cg_status cg__remove_small_par(cg_grid *g, int walls, uint64_t min, const cg__par *par)
{
    if (min <= 1 || g->h == 0)
        return cg__remove_small(g, walls, min);
    uint32_t rows = forced_rows;
    if (!rows) {
        const uint64_t cells = (uint64_t)g->w * g->h;
        if (cells < STRIPED_CELLS)
            return cg__remove_small(g, walls, min);
        uint64_t n = cells / STRIPE_CELLS;
        if (n > MAX_STRIPES)
            n = MAX_STRIPES;
        rows = (uint32_t)((g->h + n - 1) / n);
    }
    return remove_striped(g, walls, min, par, rows);
}
