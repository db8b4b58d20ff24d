/* place/place.c - what the placement steps of the level article share
 * (docs/placement.md): the floor the entrance reaches, the spacing between
 * markers, the candidate cells and the draws of a shuffle. The steps are
 * one file each: entrance.c (`entrance`, `exit`), poi.c, occupy.c,
 * require.c. A step that cannot be satisfied returns CG_EFAIL, and the
 * pipeline starts again with its next attempt (engine/pipeline.c), as the
 * article does. */
#include <stdlib.h>
#include <string.h>

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
    *out = NULL;
    *taken = 0;
    cg_status st = cg__entrance_region(run, &region, &have_entrance, &reached);
    if (st == CG_OK)
        st = cg__list_candidates(g, region ? region : g, &cells, &n);
    cg_grid_free(region);
    if (st == CG_OK)
        st = cg__points_init(&p, g->nmarks + d->count, d->spacing);
    if (st != CG_OK) {
        cg__free(cells);
        cg__points_free(&p);
        return st;
    }
    for (size_t i = 0; i < g->nmarks; i++)
        if (d->counts(&g->marks[i]))
            cg__points_add(&p, g->marks[i].x, g->marks[i].y);
    /* The level article, F: shuffle the connected cells and take them one by
     * one. A cell taken is kept at the front: cells[0 .. chosen-1], all
     * among the ones already looked at. */
    cg__rng rng = {cg__step_rand_key(step, run->seed)};
    uint32_t chosen = 0;
    for (size_t i = 0; i < n && chosen < d->count; i++) {
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
    cg__points_free(&p);
    *out = cells;
    *taken = chosen;
    return CG_OK;
}
