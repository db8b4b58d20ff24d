/* steps/size.c - `size WxH`: the map's default size, a setting (the command
 * line's -W/-H/--size win). */
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "engine/steps.h"

static cg_status parse_size(cg__step *step, const cg__args *a, cg_diag *diag)
{
    const cg__token *p = &a->positional;
    if (!p->s)
        return cg__step_missing(step, a, "a size", diag);
    const char *x = memchr(p->s, 'x', p->len);
    if (!x) {
        cg__diag(diag, a->line, p->column, "size must be WIDTHxHEIGHT, not '%.*s'", (int)p->len,
                 p->s);
        return CG_EPARSE;
    }
    size_t wl = (size_t)(x - p->s);
    cg__token wt = {p->s, wl, p->column};
    cg__token ht = {x + 1, p->len - wl - 1, p->column};
    long w, h;
    if (cg__parse_int(&wt, a->line, "the width", 1, CG_MAX_DIM, &w, diag) ||
        cg__parse_int(&ht, a->line, "the height", 1, CG_MAX_DIM, &h, diag))
        return CG_EPARSE;
    step->u.size.w = (uint32_t)w;
    step->u.size.h = (uint32_t)h;
    return CG_OK;
}

const cg__step_def cg__step_size = {
    .name = "size",
    .usage = "size WIDTHxHEIGHT",
    .positional = 1,
    .setting = 1,
    .parse = parse_size,
};
