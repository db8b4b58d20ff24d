/* steps/generations.c - `generations N r1=A r2=B [self=yes|no]`: the r1/r2
 * rule of the cellular-automaton cave article (cells/automaton.c;
 * docs/algorithms.md). */
#include <string.h>

#include "cells/automaton.h"
#include "core/diag.h"
#include "core/grid.h"
#include "engine/steps.h"
#include "steps/passes.h"

enum { KEY_R1, KEY_R2, KEY_SELF };

static cg_status parse_generations(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long r1, r2;
    if (cg__parse_passes(a, &step->u.gen.n, diag))
        return CG_EPARSE;
    if (!a->values[KEY_R1].s)
        return cg__step_missing(step, a, "r1=", diag);
    if (!a->values[KEY_R2].s)
        return cg__step_missing(step, a, "r2=", diag);
    if (cg__parse_int(&a->values[KEY_R1], a->line, "r1", 0, 9, &r1, diag) ||
        cg__parse_int(&a->values[KEY_R2], a->line, "r2", -1, 21, &r2, diag))
        return CG_EPARSE;
    step->u.gen.r1 = (int)r1;
    step->u.gen.r2 = (int)r2;
    step->u.gen.self = 1;
    const cg__token *s = &a->values[KEY_SELF];
    if (s->s) {
        if (s->len == 3 && memcmp(s->s, "yes", 3) == 0) {
            step->u.gen.self = 1;
        } else if (s->len == 2 && memcmp(s->s, "no", 2) == 0) {
            step->u.gen.self = 0;
        } else {
            cg__diag(diag, a->line, s->column, "self must be yes or no, not '%.*s'", (int)s->len,
                     s->s);
            return CG_EPARSE;
        }
    }
    return CG_OK;
}

static void pass_generation(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                            uint32_t y1, uint32_t top, uint32_t map_h)
{
    cg__generation_rows_at(src, dst, step->u.gen.r1, step->u.gen.r2, step->u.gen.self, y0, y1, top,
                           map_h);
}

/* v1 reads the 3x3 block; v2, only tested when r2 >= 0, the 5x5 block. */
static uint64_t margin_generations(const cg__step *step, uint64_t margin)
{
    return cg__margin_passes(margin, step->u.gen.n, step->u.gen.r2 >= 0 ? 2 : 1);
}

static cg_status run_generations(const cg__step *step, cg__run *run)
{
    /* Small narrow maps: every pass at once on a packed copy, in place of
     * the second buffer's passes (a map run in place, as the tests force on
     * small maps, keeps that path). */
    if (run->scratch && cg__generation_passes(run->grid, step->u.gen.r1, step->u.gen.r2,
                                              step->u.gen.self, step->u.gen.n))
        return CG_OK;
    return cg__run_passes(step, run, step->u.gen.n, pass_generation);
}

const cg__step_def cg__step_generations = {
    .name = "generations",
    .usage = "generations [N] r1=0..9 r2=-1..21 [self=yes|no]",
    .positional = 1,
    .keys = {[KEY_R1] = "r1", [KEY_R2] = "r2", [KEY_SELF] = "self"},
    .parse = parse_generations,
    .run = run_generations,
    .chunk_margin = margin_generations,
};
