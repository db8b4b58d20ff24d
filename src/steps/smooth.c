/* steps/smooth.c - `smooth N [walls=T]`: wall iff at least T of the 8
 * neighbours are walls (cells/automaton.c; docs/algorithms.md). */
#include "cells/automaton.h"
#include "core/diag.h"
#include "core/grid.h"
#include "engine/steps.h"
#include "steps/passes.h"

enum { KEY_WALLS };

static cg_status parse_smooth(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long t = 5;
    if (cg__parse_passes(a, &step->u.smooth.n, diag))
        return CG_EPARSE;
    if (a->values[KEY_WALLS].s &&
        cg__parse_int(&a->values[KEY_WALLS], a->line, "walls", 0, 9, &t, diag))
        return CG_EPARSE;
    step->u.smooth.walls = (int)t;
    return CG_OK;
}

/* Every row by the same rule, outside the map wall: where the rows lie in
 * the map does not matter. */
static void pass_smooth(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                        uint32_t y1, uint32_t top, uint32_t map_h)
{
    (void)top;
    (void)map_h;
    cg__smooth_rows(src, dst, step->u.smooth.walls, y0, y1);
}

static uint64_t margin_smooth(const cg__step *step, uint64_t margin)
{
    return cg__margin_passes(margin, step->u.smooth.n, 1);
}

static cg_status run_smooth(const cg__step *step, cg__run *run)
{
    return cg__run_passes(step, run, step->u.smooth.n, pass_smooth);
}

const cg__step_def cg__step_smooth = {
    .name = "smooth",
    .usage = "smooth [N] [walls=0..9]",
    .positional = 1,
    .keys = {[KEY_WALLS] = "walls"},
    .parse = parse_smooth,
    .run = run_smooth,
    .chunk_margin = margin_smooth,
};
