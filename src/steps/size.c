/* steps/size.c - `size [WxH] [min=WxH]`: the map's default size and the
 * smallest map the pipeline is made for, settings (the command line's
 * -W/-H/--size win over the default; nothing goes below the minimum). */
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "engine/steps.h"

enum { KEY_MIN };

static cg_status parse_size(cg__step *step, const cg__args *a, cg_diag *diag)
{
    const cg__token *p = &a->positional, *min = &a->values[KEY_MIN];
    if (!p->s && !min->s)
        return cg__step_missing(step, a, "a size or min=", diag);
    step->u.size.w = step->u.size.h = 0;
    step->u.size.min_w = step->u.size.min_h = 0;
    if (p->s && cg__parse_dims(p, a->line, "size", &step->u.size.w, &step->u.size.h, diag))
        return CG_EPARSE;
    if (min->s && cg__parse_dims(min, a->line, "min", &step->u.size.min_w, &step->u.size.min_h, diag))
        return CG_EPARSE;
    if (p->s && min->s &&
        (step->u.size.w < step->u.size.min_w || step->u.size.h < step->u.size.min_h)) {
        cg__diag(diag, a->line, min->column, "the size %ux%u is below its own min=%ux%u",
                 step->u.size.w, step->u.size.h, step->u.size.min_w, step->u.size.min_h);
        return CG_EPARSE;
    }
    return CG_OK;
}

const cg__step_def cg__step_size = {
    .name = "size",
    .usage = "size [WIDTHxHEIGHT] [min=WIDTHxHEIGHT]",
    .positional = 1,
    .keys = {[KEY_MIN] = "min"},
    .setting = 1,
    .parse = parse_size,
};
