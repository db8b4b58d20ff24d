/* place/occupy.c - `occupy count=N [spacing=D]`: N occupied cells (blocked,
 * 'x'), the units of the reachable-cells article standing on a generated
 * map (docs/placement.md). They are drawn like points of interest - from
 * the shuffled floor the entrance reaches, each at least D from every other
 * marker - and never cut a route: a cell is taken only if its free
 * 4-neighbours stay connected to one another inside its 3x3 block without
 * it, which keeps every route between the other free cells (any path
 * through the cell can go round it inside the block). */
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "engine/steps.h"
#include "place/place.h"

#define OCCUPY_MAX_COUNT 100000
#define OCCUPY_MAX_SPACING (2 * CG_MAX_DIM)

enum { OCCUPY_COUNT, OCCUPY_SPACING };

static cg_status parse_occupy(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long count, spacing = 0;
    if (!a->values[OCCUPY_COUNT].s)
        return cg__step_missing(step, a, "count=", diag);
    if (cg__parse_int(&a->values[OCCUPY_COUNT], a->line, "count", 1, OCCUPY_MAX_COUNT, &count,
                      diag) ||
        (a->values[OCCUPY_SPACING].s &&
         cg__parse_int(&a->values[OCCUPY_SPACING], a->line, "spacing", 0, OCCUPY_MAX_SPACING,
                       &spacing, diag)))
        return CG_EPARSE;
    step->u.occupy.count = (uint32_t)count;
    step->u.occupy.spacing = (uint32_t)spacing;
    return CG_OK;
}

/* Spacing counts from every marker: entrance, exit, points, occupied cells. */
static int counts_every_marker(const cg__mark *m)
{
    (void)m;
    return 1;
}

/* Free cells: floor without a unit on it, the ones drawn so far included
 * (walls in this copy of the map). */
static int free_at(const cg_grid *walk, int64_t x, int64_t y)
{
    return cg__is_floor(walk, x, y);
}

/* The 8 cells around one, in a ring: consecutive cells share a side, so the
 * free cells of the block without its centre are connected (4-neighbours)
 * exactly along runs of the ring. Sides are the even indices. */
static const int ring_dx[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const int ring_dy[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

/* Whether occupying (x, y) keeps its free side neighbours connected inside
 * its 3x3 block: all of them lie on one run of free cells of the ring. */
static int keeps_routes(const cg_grid *walk, int64_t x, int64_t y)
{
    int f[8], start = -1, sides = 0;
    for (int k = 0; k < 8; k++) {
        f[k] = free_at(walk, x + ring_dx[k], y + ring_dy[k]);
        sides += f[k] && !(k & 1);
        if (!f[k])
            start = k;
    }
    if (sides <= 1 || start < 0) /* a dead end, a lone cell, or open all round */
        return 1;
    /* Walk the ring from a cell that is not free, numbering runs. */
    int run = 0, side_run = 0;
    for (int i = 1; i <= 8; i++) {
        int k = (start + i) & 7;
        if (!f[k])
            continue;
        if (!f[(k + 7) & 7])
            run++;
        if (!(k & 1)) {
            if (side_run && side_run != run)
                return 0;
            side_run = run;
        }
    }
    return 1;
}

static int fits_occupy(void *ctx, uint64_t x, uint64_t y)
{
    cg_grid *walk = ctx;
    if (!keeps_routes(walk, (int64_t)x, (int64_t)y))
        return 0;
    cg__row(walk, (int64_t)y)[x >> 6] |= UINT64_C(1) << (x & 63); /* now occupied */
    return 1;
}

static cg_status run_occupy(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    const uint32_t count = step->u.occupy.count;
    const uint64_t spacing = step->u.occupy.spacing;
    /* The free cells: the map with the units already there as walls. */
    cg_grid *walk = NULL;
    cg_status st = cg__grid_new_like(&walk, g);
    if (st != CG_OK)
        return cg__place_oom(step, run, st);
    memcpy(walk->mem, g->mem, g->stride * ((size_t)g->h + 2 * CG__PAD) * sizeof *g->mem);
    for (size_t i = 0; i < g->nmarks; i++)
        if (g->marks[i].kind == CG_MARK_BLOCKED)
            cg__row(walk, g->marks[i].y)[g->marks[i].x >> 6] |= UINT64_C(1) << (g->marks[i].x & 63);
    cg__draw d = {.count = count,
                  .spacing = spacing,
                  .counts = counts_every_marker,
                  .fits = fits_occupy,
                  .ctx = walk};
    uint64_t *cells = NULL;
    uint32_t chosen = 0;
    st = cg__draw_cells(step, run, &d, &cells, &chosen);
    cg_grid_free(walk);
    if (st != CG_OK)
        return cg__place_oom(step, run, st);
    if (chosen < count) {
        cg__free(cells);
        run->fail_score = chosen;
        cg__diag(run->diag, step->line, step->column, "occupy count=%u spacing=%u: only %u fit",
                 count, (unsigned)spacing, chosen);
        return CG_EFAIL;
    }
    st = cg__add_marks(g, cells, chosen, CG_MARK_BLOCKED, cg__mark_symbol(CG_MARK_BLOCKED));
    cg__free(cells);
    return st == CG_OK ? CG_OK : cg__place_oom(step, run, st);
}

const cg__step_def cg__step_occupy = {
    .name = "occupy",
    .usage = "occupy count=N [spacing=D]",
    .keys = {[OCCUPY_COUNT] = "count", [OCCUPY_SPACING] = "spacing"},
    .rand_kind = CG__RAND_OCCUPY,
    .parse = parse_occupy,
    .run = run_occupy,
};
