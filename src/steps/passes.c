/* steps/passes.c - running the automaton steps' passes (steps/passes.h). */
#include "steps/passes.h"
#include "cells/par.h"
#include "core/grid.h"

#define MAX_PASSES 100000

cg_status cg__parse_passes(const cg__args *a, uint32_t *n, cg_diag *diag)
{
    long v = 1;
    if (a->positional.s &&
        cg__parse_int(&a->positional, a->line, "the number of passes", 0, MAX_PASSES, &v, diag))
        return CG_EPARSE;
    *n = (uint32_t)v;
    return CG_OK;
}

typedef struct pass_job {
    const cg__step *step;
    const cg_grid *src;
    cg_grid *dst;
    cg__pass_fn pass;
} pass_job;

static void pass_stripe(void *arg, uint32_t y0, uint32_t y1)
{
    const pass_job *j = arg;
    j->pass(j->step, j->src, j->dst, y0, y1);
}

cg_status cg__run_passes(const cg__step *step, cg__run *run, uint32_t n, cg__pass_fn pass)
{
    /* Markers go with their cell as soon as it turns to wall, so N passes in
     * one step equal N one-pass steps. */
    for (uint32_t i = 0; i < n; i++) {
        pass_job job = {step, run->grid, run->scratch, pass};
        cg__par_rows(run->par, run->grid, pass_stripe, &job);
        cg__grid_swap_cells(run->grid, run->scratch);
        cg__grid_prune_marks(run->grid);
    }
    return CG_OK;
}
