/* engine/step_table.c - every step of the preset language. Each step's file
 * defines one `const cg__step_def cg__step_NAME`; adding a step is that file
 * and one line here (docs/contributing.md). The order is the order messages
 * list the steps in; it changes no map. */
#include "core/diag.h"
#include "engine/steps.h"

#define CG__STEP_LIST(X)                                                                           \
    X(size)                                                                                        \
    X(fill)                                                                                        \
    X(generations)                                                                                 \
    X(smooth)                                                                                      \
    X(rule)                                                                                        \
    X(downscale)                                                                                   \
    X(entrance)                                                                                    \
    X(exit)                                                                                        \
    X(poi)                                                                                         \
    X(occupy)                                                                                      \
    X(require)                                                                                     \
    X(maze)                                                                                        \
    X(reach)                                                                                       \
    X(remove_floor)                                                                                \
    X(remove_walls)                                                                                \
    X(keep_largest)                                                                                \
    X(connect)

#define DECLARE(name) extern const cg__step_def cg__step_##name;
CG__STEP_LIST(DECLARE)
#undef DECLARE

#define ENTRY(name) &cg__step_##name,
const cg__step_def *const cg__steps[] = {CG__STEP_LIST(ENTRY)};
#undef ENTRY
const size_t cg__step_count = sizeof cg__steps / sizeof cg__steps[0];

cg_status cg__step_missing(const cg__step *step, const cg__args *a, const char *what, cg_diag *diag)
{
    cg__diag(diag, a->line, a->name.column, "%.*s needs %s (usage: %s)", (int)a->name.len,
             a->name.s, what, step->def->usage);
    return CG_EPARSE;
}
