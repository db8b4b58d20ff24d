/* steps/rule.c - `rule N floor=LO..HI`: floor iff LO..HI of the 9 cells of
 * the 3x3 block are floor (cells/automaton.c; docs/algorithms.md). */
#include "cells/automaton.h"
#include "core/diag.h"
#include "core/grid.h"
#include "engine/steps.h"
#include "steps/passes.h"

enum { KEY_FLOOR };

static cg_status parse_rule(cg__step *step, const cg__args *a, cg_diag *diag)
{
    if (cg__parse_passes(a, &step->u.rule.n, diag))
        return CG_EPARSE;
    const cg__token *v = &a->values[KEY_FLOOR];
    if (!v->s)
        return cg__step_missing(step, a, "floor=LO..HI", diag);
    const char *dots = NULL;
    for (size_t i = 0; i + 1 < v->len; i++)
        if (v->s[i] == '.' && v->s[i + 1] == '.') {
            dots = v->s + i;
            break;
        }
    if (!dots) {
        cg__diag(diag, a->line, v->column, "floor must be a range LO..HI, not '%.*s'", (int)v->len,
                 v->s);
        return CG_EPARSE;
    }
    size_t ll = (size_t)(dots - v->s);
    cg__token lt = {v->s, ll, v->column};
    cg__token ht = {dots + 2, v->len - ll - 2, v->column};
    long lo, hi;
    if (cg__parse_int(&lt, a->line, "the low end of floor", 0, 9, &lo, diag) ||
        cg__parse_int(&ht, a->line, "the high end of floor", 0, 9, &hi, diag))
        return CG_EPARSE;
    if (lo > hi) {
        cg__diag(diag, a->line, v->column, "floor range %ld..%ld is empty", lo, hi);
        return CG_EPARSE;
    }
    step->u.rule.lo = (int)lo;
    step->u.rule.hi = (int)hi;
    return CG_OK;
}

/* Every row by the same rule, outside the map wall: where the rows lie in
 * the map does not matter. */
static void pass_rule(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                      uint32_t y1, uint32_t top, uint32_t map_h)
{
    (void)top;
    (void)map_h;
    cg__rule_rows(src, dst, step->u.rule.lo, step->u.rule.hi, y0, y1);
}

static uint64_t margin_rule(const cg__step *step, uint64_t margin)
{
    return cg__margin_passes(margin, step->u.rule.n, 1);
}

static cg_status run_rule(const cg__step *step, cg__run *run)
{
    return cg__run_passes(step, run, step->u.rule.n, pass_rule);
}

const cg__step_def cg__step_rule = {
    .name = "rule",
    .usage = "rule [N] floor=LO..HI",
    .positional = 1,
    .keys = {[KEY_FLOOR] = "floor"},
    .parse = parse_rule,
    .run = run_rule,
    .chunk_margin = margin_rule,
};
