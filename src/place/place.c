/* place/place.c - what the placement steps of the level article share
 * (docs/placement.md): the floor the entrance reaches, the spacing between
 * markers, the candidate cells and the draws of a shuffle. The steps are
 * one file each: entrance.c (`entrance`, `exit`), poi.c, occupy.c,
 * require.c. A step that cannot be satisfied returns CG_EFAIL, and the
 * pipeline starts again with its next attempt (engine/pipeline.c), as the
 * article does. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "core/rng.h"
#include "place/place.h"
#include "regions/flood.h"

/* Whether the map is still what `entrance` left: then all its floor is
 * connected to the entrance and no flood fill is needed. */
static int unchanged_since_entrance(const cg__run *run, uint32_t x, uint32_t y)
{
    const cg_grid *g = run->grid, *c = run->connected;
    return c && c->w == g->w && c->h == g->h && run->connected_x == x && run->connected_y == y &&
           memcmp(c->mem, g->mem, g->stride * ((size_t)g->h + 2 * CG__PAD) * sizeof *g->mem) == 0;
}

cg_status cg__entrance_region(const cg__run *run, cg_grid **region, int *have, uint64_t *count)
{
    const cg_grid *g = run->grid;
    uint32_t x, y;
    *region = NULL;
    *count = 0;
    *have = cg__find_mark(g, CG_MARK_ENTRANCE, &x, &y);
    if (!*have)
        return CG_OK;
    if (!cg__has_blocked(g) && unchanged_since_entrance(run, x, y)) {
        *count = cg_grid_floor_count(g);
        return CG_OK;
    }
    cg_status st = cg__grid_new_like(region, g);
    if (st == CG_OK)
        st = cg__flood_moves(g, x, y, *region, count);
    if (st != CG_OK) {
        cg_grid_free(*region);
        *region = NULL;
    }
    return st;
}

cg_status cg__place_oom(const cg__step *step, cg__run *run, cg_status st)
{
    cg__diag(run->diag, step->line, step->column, "%s: out of memory for a %ux%u map",
             step->def->name, run->grid->w, run->grid->h);
    return st;
}

cg_status cg__points_init(cg__points *p, size_t max, uint64_t spacing)
{
    memset(p, 0, sizeof *p);
    if (max >= UINT32_MAX / 4)
        return CG_EOVERFLOW;
    size_t slots = 16;
    while (slots < 2 * max)
        slots *= 2;
    p->xy = cg__malloc(max * sizeof *p->xy);
    p->next = cg__malloc(max * sizeof *p->next);
    p->keys = cg__calloc(slots, sizeof *p->keys);
    p->heads = cg__malloc(slots * sizeof *p->heads);
    p->mask = slots - 1;
    p->side = spacing ? spacing : 1;
    p->spacing2 = spacing * spacing;
    return p->xy && p->next && p->keys && p->heads ? CG_OK : CG_ENOMEM;
}

void cg__points_free(cg__points *p)
{
    cg__free(p->xy);
    cg__free(p->next);
    cg__free(p->keys);
    cg__free(p->heads);
}

/* The slot of bucket (bx, by): where it is, or the empty slot it would take. */
static size_t points_slot(const cg__points *p, uint64_t bx, uint64_t by)
{
    uint64_t key = cg__pack_xy(bx, by) + 1;
    size_t i = (size_t)cg__mix64(key) & p->mask;
    while (p->keys[i] && p->keys[i] != key)
        i = (i + 1) & p->mask;
    return i;
}

int cg__points_far(const cg__points *p, uint64_t x, uint64_t y)
{
    uint64_t bx = x / p->side, by = y / p->side;
    for (uint64_t j = by ? by - 1 : 0; j <= by + 1; j++)
        for (uint64_t i = bx ? bx - 1 : 0; i <= bx + 1; i++) {
            size_t s = points_slot(p, i, j);
            if (!p->keys[s])
                continue;
            for (uint32_t k = p->heads[s]; k != UINT32_MAX; k = p->next[k]) {
                int64_t dx = (int64_t)(p->xy[k] & 0xFFFFFFFFu) - (int64_t)x;
                int64_t dy = (int64_t)(p->xy[k] >> 32) - (int64_t)y;
                if ((uint64_t)(dx * dx + dy * dy) < p->spacing2)
                    return 0;
            }
        }
    return 1;
}

void cg__points_add(cg__points *p, uint64_t x, uint64_t y)
{
    size_t s = points_slot(p, x / p->side, y / p->side);
    if (!p->keys[s]) {
        p->keys[s] = cg__pack_xy(x / p->side, y / p->side) + 1;
        p->heads[s] = UINT32_MAX;
    }
    p->xy[p->n] = cg__pack_xy(x, y);
    p->next[p->n] = p->heads[s];
    p->heads[s] = p->n++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

cg_status cg__add_marks(cg_grid *g, uint64_t *cells, size_t n, cg_marker kind, uint8_t sym)
{
    qsort(cells, n, sizeof *cells, cmp_u64); /* packed y << 32 | x sorts by (y, x) */
    size_t total = g->nmarks + n;
    cg__mark *m = cg__malloc(total * sizeof *m);
    if (!m)
        return CG_ENOMEM;
    size_t i = 0, j = 0, k = 0;
    while (i < g->nmarks || j < n) {
        if (j == n || (i < g->nmarks && cg__pack_xy(g->marks[i].x, g->marks[i].y) < cells[j])) {
            m[k++] = g->marks[i++];
        } else {
            m[k++] = (cg__mark){(uint32_t)(cells[j] & 0xFFFFFFFFu), (uint32_t)(cells[j] >> 32),
                                (uint8_t)kind, sym};
            j++;
        }
    }
    cg__free(g->marks);
    g->marks = m;
    g->nmarks = g->capmarks = total;
    return CG_OK;
}

cg_status cg__list_candidates(const cg_grid *g, const cg_grid *from, uint64_t **out, size_t *n)
{
    uint64_t floor = cg_grid_floor_count(from);
    *out = NULL;
    *n = 0;
    if (floor > SIZE_MAX / sizeof **out)
        return CG_EOVERFLOW;
    uint64_t *v = cg__malloc((size_t)(floor ? floor : 1) * sizeof *v);
    if (!v)
        return CG_ENOMEM;
    /* The markers are sorted by (y, x): those of each row are taken off
     * its words before the floor bits are listed, so the cells come out a
     * bit at a time with no look-up per cell. */
    size_t k = 0, mi = 0;
    for (uint32_t y = 0; y < from->h; y++) {
        const uint64_t *r = cg__row(from, y);
        size_t me = mi;
        while (me < g->nmarks && g->marks[me].y == y)
            me++;
        for (size_t i = 0; i < from->nw; i++) {
            uint64_t open = ~r[i];
            for (size_t m = mi; m < me; m++)
                if (g->marks[m].x >> 6 == i)
                    open &= ~(UINT64_C(1) << (g->marks[m].x & 63));
            const uint64_t base = cg__pack_xy((uint64_t)i * 64, y);
            while (open) {
                v[k++] = base + (uint64_t)__builtin_ctzll(open);
                open &= open - 1;
            }
        }
        mi = me;
    }
    *out = v;
    *n = k;
    return CG_OK;
}

uint64_t cg__below64(cg__rng *rng, uint64_t n)
{
    if (n <= UINT32_MAX)
        return cg__rng_below(rng, (uint32_t)n);
    uint64_t mask = ~UINT64_C(0) >> __builtin_clzll(n - 1), v;
    do
        v = cg__rng_next(rng) & mask;
    while (v >= n);
    return v;
}

/* Maps of at most LAZY_W x LAZY_H cells draw from the candidates without
 * listing them (draw_lazy), while at most LAZY_MOVES cells of the shuffle
 * have moved. */
#define LAZY_W 128u
#define LAZY_H 512u
#define LAZY_MOVES 256u

static int force_list;

void cg__draw_force_list(int on)
{
    force_list = on;
}

/* The candidates of a small map as a bitboard, two words a row, with the
 * number of candidates before each row; the shuffle's array is implicit:
 * position k holds the k-th candidate in scan order unless a swap moved
 * another cell there (at[m] and cell[m]: such a position and its cell). */
typedef struct lazy {
    uint64_t bits[LAZY_H][2];
    uint32_t before[LAZY_H + 1];
    uint32_t h;
    uint32_t nmoved;
    uint64_t at[LAZY_MOVES], cell[LAZY_MOVES];
} lazy;

static inline uint64_t lazy_init_rows(lazy *z, const cg_grid *g, const cg_grid *from)
{
    size_t mi = 0;
    z->h = from->h;
    z->nmoved = 0;
    z->before[0] = 0;
    for (uint32_t y = 0; y < from->h; y++) {
        const uint64_t *r = cg__row(from, y);
        z->bits[y][0] = ~r[0];
        z->bits[y][1] = from->nw > 1 ? ~r[1] : 0; /* tail and frame bits are wall */
        for (; mi < g->nmarks && g->marks[mi].y == y; mi++)
            z->bits[y][g->marks[mi].x >> 6] &= ~(UINT64_C(1) << (g->marks[mi].x & 63));
        z->before[y + 1] = z->before[y] + (uint32_t)__builtin_popcountll(z->bits[y][0]) +
                           (uint32_t)__builtin_popcountll(z->bits[y][1]);
    }
    return z->before[from->h];
}

#if defined(CG__HAVE_X86)
/* With the POPCNT instruction (the baseline build's popcount is a library
 * call). */
__attribute__((target("popcnt"))) static uint64_t lazy_init_popcnt(lazy *z, const cg_grid *g,
                                                                  const cg_grid *from)
{
    return lazy_init_rows(z, g, from);
}
#endif

/* Fills z from the floor of `from` less the cells with a marker in g;
 * returns the number of candidates. */
static uint64_t lazy_init(lazy *z, const cg_grid *g, const cg_grid *from)
{
#if defined(CG__HAVE_X86)
    if (__builtin_cpu_supports("popcnt"))
        return lazy_init_popcnt(z, g, from);
#endif
    return lazy_init_rows(z, g, from);
}

/* The k-th candidate in scan order (k < their number). */
static uint64_t lazy_select(const lazy *z, uint64_t k)
{
    uint32_t lo = 0, hi = z->h; /* the row y with before[y] <= k < before[y + 1] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (z->before[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t r = k - z->before[lo], w = z->bits[lo][0];
    unsigned word = 0, n0 = (unsigned)__builtin_popcountll(w);
    if (r >= n0) {
        r -= n0;
        w = z->bits[lo][1];
        word = 1;
    }
    while (r--)
        w &= w - 1;
    return cg__pack_xy(64u * word + (uint64_t)__builtin_ctzll(w), lo);
}

/* The cell at position k of the shuffle, and its slot m in at[] and cell[]
 * (nmoved if it was never moved). */
static uint64_t lazy_get(const lazy *z, uint64_t k, uint32_t *slot)
{
    for (uint32_t m = 0; m < z->nmoved; m++)
        if (z->at[m] == k) {
            *slot = m;
            return z->cell[m];
        }
    *slot = z->nmoved;
    return lazy_select(z, k);
}

cg_status cg__draw_cells(const cg__step *step, cg__run *run, const cg__draw *d, uint64_t **out,
                         uint32_t *taken)
{
    cg_grid *g = run->grid;
    cg_grid *region = NULL;
    uint64_t *cells = NULL;
    size_t n = 0;
    uint64_t reached;
    int have_entrance;
    cg__points p = {0};
    lazy *z = NULL;
    uint32_t chosen = 0;
    *out = NULL;
    *taken = 0;
    cg_status st = cg__entrance_region(run, &region, &have_entrance, &reached);
    const cg_grid *from = region ? region : g;
    if (st == CG_OK && from->w <= LAZY_W && from->h <= LAZY_H && !force_list) {
        /* Only the cells drawn are stored: the candidates stay bits. */
        z = cg__malloc(sizeof *z);
        if (z) {
            n = (size_t)lazy_init(z, g, from);
            cells = cg__malloc((n < d->count ? (n ? n : 1) : d->count) * sizeof *cells);
        }
        if (!z || !cells)
            st = CG_ENOMEM;
    } else if (st == CG_OK) {
        st = cg__list_candidates(g, from, &cells, &n);
    }
    if (st == CG_OK)
        st = cg__points_init(&p, g->nmarks + d->count, d->spacing);
    if (st != CG_OK)
        goto done;
    for (size_t i = 0; i < g->nmarks; i++)
        if (d->counts(&g->marks[i]))
            cg__points_add(&p, g->marks[i].x, g->marks[i].y);
    /* The level article, F: shuffle the connected cells and take them one by
     * one. A cell taken is kept at the front: cells[0 .. chosen-1], all
     * among the ones already looked at. */
    cg__rng rng = {cg__step_rand_key(step, run->seed)};
    size_t i = 0;
    /* Lazily: position i's cell swaps with position j's; position i is
     * never looked at again, so only j needs to remember the cell that was
     * at i. When too many cells have moved, the list is made after all,
     * with the moved cells in their places, and the draw goes on there. */
    for (; z && i < n && chosen < d->count; i++) {
        if (z->nmoved == LAZY_MOVES) {
            uint64_t *all = NULL;
            size_t all_n = 0;
            st = cg__list_candidates(g, from, &all, &all_n);
            if (st != CG_OK)
                goto done;
            for (uint32_t m = 0; m < z->nmoved; m++)
                all[z->at[m]] = z->cell[m];
            memcpy(all, cells, chosen * sizeof *cells); /* positions before i */
            cg__free(cells);
            cells = all;
            cg__free(z);
            z = NULL;
            break;
        }
        size_t j = i + (size_t)cg__below64(&rng, n - i);
        uint32_t si, sj;
        uint64_t ci = lazy_get(z, i, &si), c = lazy_get(z, j, &sj);
        (void)si;
        if (j != i) {
            if (sj == z->nmoved)
                z->at[z->nmoved++] = j;
            z->cell[sj] = ci;
        }
        uint64_t x = c & 0xFFFFFFFFu, y = c >> 32;
        if (cg__points_far(&p, x, y) && (!d->fits || d->fits(d->ctx, x, y))) {
            cg__points_add(&p, x, y);
            cells[chosen++] = c;
        }
    }
    for (; !z && i < n && chosen < d->count; i++) {
        size_t j = i + (size_t)cg__below64(&rng, n - i);
        uint64_t c = cells[j];
        cells[j] = cells[i];
        cells[i] = c;
        uint64_t x = c & 0xFFFFFFFFu, y = c >> 32;
        if (cg__points_far(&p, x, y) && (!d->fits || d->fits(d->ctx, x, y))) {
            cg__points_add(&p, x, y);
            cells[chosen++] = c;
        }
    }
done:
    cg_grid_free(region);
    cg__free(z);
    cg__points_free(&p);
    if (st != CG_OK) {
        cg__free(cells);
        return st;
    }
    *out = cells;
    *taken = chosen;
    return CG_OK;
}
