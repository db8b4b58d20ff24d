/* steps/fill.c - `fill P [ring=yes|no]`: each cell wall with probability
 * P %, the outer ring wall unless ring=no (cells/fill.c; docs/randomness.md). */
#include <string.h>

#include "cells/fill.h"
#include "cells/par.h"
#include "core/diag.h"
#include "core/grid.h"
#include "engine/steps.h"

enum { KEY_RING };

static cg_status parse_fill(cg__step *step, const cg__args *a, cg_diag *diag)
{
    if (!a->positional.s)
        return cg__step_missing(step, a, "a wall percentage", diag);
    if (cg__parse_percent(&a->positional, a->line, "the fill", &step->u.fill.ppb, diag))
        return CG_EPARSE;
    step->u.fill.ring = 1;
    const cg__token *r = &a->values[KEY_RING];
    if (r->s) {
        if (r->len == 3 && memcmp(r->s, "yes", 3) == 0) {
            step->u.fill.ring = 1;
        } else if (r->len == 2 && memcmp(r->s, "no", 2) == 0) {
            step->u.fill.ring = 0;
        } else {
            cg__diag(diag, a->line, r->column, "ring must be yes or no, not '%.*s'", (int)r->len,
                     r->s);
            return CG_EPARSE;
        }
    }
    return CG_OK;
}

typedef struct fill_job {
    cg_grid *grid;
    uint64_t key;
    const cg__run *run;
    uint32_t ppb;
    int ring;
} fill_job;

static void fill_stripe(void *arg, uint32_t y0, uint32_t y1)
{
    const fill_job *j = arg;
    /* In a chunk the cells are drawn at their world coordinates, without the
     * ring (docs/scale.md); else the map's own, with it unless ring=no. */
    cg__fill_rows(j->grid, j->key, j->ppb, j->run->origin_x, j->run->origin_y,
                  j->ring && !j->run->chunk, y0, y1);
}

static cg_status run_fill(const cg__step *step, cg__run *run)
{
    fill_job job = {run->grid, cg__step_rand_key(step, run->seed), run, step->u.fill.ppb,
                    step->u.fill.ring};
    cg__par_rows(run->par, run->grid, fill_stripe, &job);
    cg__grid_prune_marks(run->grid);
    return CG_OK;
}

/* A fill reads no neighbour and overwrites every cell: what came before it
 * no longer matters. */
static uint64_t margin_fill(const cg__step *step, uint64_t margin)
{
    (void)step;
    (void)margin;
    return 0;
}

const cg__step_def cg__step_fill = {
    .name = "fill",
    .usage = "fill PERCENT [ring=yes|no]",
    .positional = 1,
    .keys = {[KEY_RING] = "ring"},
    .rand_kind = CG__RAND_FILL,
    .parse = parse_fill,
    .run = run_fill,
    .chunk_margin = margin_fill,
};
