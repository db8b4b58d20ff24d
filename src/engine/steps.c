/* engine/steps.c - the step table: each step's syntax, argument checks and run
 * function. Adding a step means adding a row here (SPEC 3). */
#include <string.h>

#include "cells/automaton.h"
#include "cells/fill.h"
#include "cells/par.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/rng.h"
#include "engine/steps.h"

#define MAX_PASSES 100000

static cg_status missing(const cg__args *a, const char *what, const char *usage,
                         cg_diag *diag)
{
    cg__diag(diag, a->line, a->name.column, "%.*s needs %s (usage: %s)", (int)a->name.len,
             a->name.s, what, usage);
    return CG_EPARSE;
}

/* The optional pass count N shared by the automaton steps (default 1). */
static cg_status parse_passes(const cg__args *a, uint32_t *n, cg_diag *diag)
{
    long v = 1;
    if (a->positional.s &&
        cg__parse_int(&a->positional, a->line, "the number of passes", 0, MAX_PASSES, &v, diag))
        return CG_EPARSE;
    *n = (uint32_t)v;
    return CG_OK;
}

/* Runs a double-buffered automaton step n times. A pass computes rows
 * y0..y1-1 of dst from src; big maps run it in stripes (cg__par_rows). */
typedef void (*pass_fn)(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                        uint32_t y1);

typedef struct pass_job {
    const cg__step *step;
    const cg_grid *src;
    cg_grid *dst;
    pass_fn pass;
} pass_job;

static void pass_stripe(void *arg, uint32_t y0, uint32_t y1)
{
    const pass_job *j = arg;
    j->pass(j->step, j->src, j->dst, y0, y1);
}

static cg_status run_passes(const cg__step *step, cg__run *run, uint32_t n, pass_fn pass)
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

/* Chunk margins (cg__step_def.chunk_margin): each pass of a rule reads its
 * neighbours up to its radius away. */
static uint64_t margin_passes(uint64_t margin, uint32_t n, uint32_t radius)
{
    return margin + (uint64_t)n * radius;
}

/* ---- size WxH */

static cg_status parse_size(cg__step *step, const cg__args *a, cg_diag *diag)
{
    const cg__token *p = &a->positional;
    if (!p->s)
        return missing(a, "a size", step->def->usage, diag);
    const char *x = memchr(p->s, 'x', p->len);
    if (!x) {
        cg__diag(diag, a->line, p->column, "size must be WIDTHxHEIGHT, not '%.*s'",
                 (int)p->len, p->s);
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

/* ---- fill P */

static cg_status parse_fill(cg__step *step, const cg__args *a, cg_diag *diag)
{
    if (!a->positional.s)
        return missing(a, "a wall percentage", step->def->usage, diag);
    return cg__parse_percent(&a->positional, a->line, "the fill", &step->u.fill.ppb, diag);
}

typedef struct fill_job {
    cg_grid *grid;
    uint64_t key;
    const cg__run *run;
    uint32_t ppb;
} fill_job;

static void fill_stripe(void *arg, uint32_t y0, uint32_t y1)
{
    const fill_job *j = arg;
    /* In a chunk the cells are drawn at their world coordinates, without the
     * ring (docs/scale.md); else the map's own, with it. */
    cg__fill_rows(j->grid, j->key, j->ppb, j->run->origin_x, j->run->origin_y, !j->run->chunk, y0,
                  y1);
}

static cg_status run_fill(const cg__step *step, cg__run *run)
{
    fill_job job = {run->grid, cg__step_key(run->seed, CG__RAND_FILL, step->ordinal), run,
                    step->u.fill.ppb};
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

/* ---- generations N r1=A r2=B [self=yes|no] */

static cg_status parse_generations(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long r1, r2;
    if (parse_passes(a, &step->u.gen.n, diag))
        return CG_EPARSE;
    if (!a->values[0].s)
        return missing(a, "r1=", step->def->usage, diag);
    if (!a->values[1].s)
        return missing(a, "r2=", step->def->usage, diag);
    if (cg__parse_int(&a->values[0], a->line, "r1", 0, 9, &r1, diag) ||
        cg__parse_int(&a->values[1], a->line, "r2", -1, 21, &r2, diag))
        return CG_EPARSE;
    step->u.gen.r1 = (int)r1;
    step->u.gen.r2 = (int)r2;
    step->u.gen.self = 1;
    const cg__token *s = &a->values[2];
    if (s->s) {
        if (s->len == 3 && memcmp(s->s, "yes", 3) == 0) {
            step->u.gen.self = 1;
        } else if (s->len == 2 && memcmp(s->s, "no", 2) == 0) {
            step->u.gen.self = 0;
        } else {
            cg__diag(diag, a->line, s->column, "self must be yes or no, not '%.*s'",
                     (int)s->len, s->s);
            return CG_EPARSE;
        }
    }
    return CG_OK;
}

static void pass_generation(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                            uint32_t y1)
{
    cg__generation_rows(src, dst, step->u.gen.r1, step->u.gen.r2, step->u.gen.self, y0, y1);
}

/* v1 reads the 3x3 block; v2, only tested when r2 >= 0, the 5x5 block. */
static uint64_t margin_generations(const cg__step *step, uint64_t margin)
{
    return margin_passes(margin, step->u.gen.n, step->u.gen.r2 >= 0 ? 2 : 1);
}

static cg_status run_generations(const cg__step *step, cg__run *run)
{
    return run_passes(step, run, step->u.gen.n, pass_generation);
}

/* ---- smooth N [walls=T] */

static cg_status parse_smooth(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long t = 5;
    if (parse_passes(a, &step->u.smooth.n, diag))
        return CG_EPARSE;
    if (a->values[0].s && cg__parse_int(&a->values[0], a->line, "walls", 0, 9, &t, diag))
        return CG_EPARSE;
    step->u.smooth.walls = (int)t;
    return CG_OK;
}

static void pass_smooth(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                        uint32_t y1)
{
    cg__smooth_rows(src, dst, step->u.smooth.walls, y0, y1);
}

static uint64_t margin_smooth(const cg__step *step, uint64_t margin)
{
    return margin_passes(margin, step->u.smooth.n, 1);
}

static cg_status run_smooth(const cg__step *step, cg__run *run)
{
    return run_passes(step, run, step->u.smooth.n, pass_smooth);
}

/* ---- rule N floor=LO..HI */

static cg_status parse_rule(cg__step *step, const cg__args *a, cg_diag *diag)
{
    if (parse_passes(a, &step->u.rule.n, diag))
        return CG_EPARSE;
    const cg__token *v = &a->values[0];
    if (!v->s)
        return missing(a, "floor=LO..HI", step->def->usage, diag);
    const char *dots = NULL;
    for (size_t i = 0; i + 1 < v->len; i++)
        if (v->s[i] == '.' && v->s[i + 1] == '.') {
            dots = v->s + i;
            break;
        }
    if (!dots) {
        cg__diag(diag, a->line, v->column, "floor must be a range LO..HI, not '%.*s'",
                 (int)v->len, v->s);
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

static void pass_rule(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                      uint32_t y1)
{
    cg__rule_rows(src, dst, step->u.rule.lo, step->u.rule.hi, y0, y1);
}

static uint64_t margin_rule(const cg__step *step, uint64_t margin)
{
    return margin_passes(margin, step->u.rule.n, 1);
}

static cg_status run_rule(const cg__step *step, cg__run *run)
{
    return run_passes(step, run, step->u.rule.n, pass_rule);
}

/* The last column, chunk_margin: non-NULL for the local steps that may run
 * in a chunk of the infinite cave; NULL for those that need the whole map. */
const cg__step_def cg__step_defs[] = {
    {"size", "size WIDTHxHEIGHT", 1, {NULL}, {NULL}, 1, 0, parse_size, NULL, NULL},
    {"fill", "fill PERCENT", 1, {NULL}, {NULL}, 0, 1, parse_fill, run_fill, margin_fill},
    {"generations", "generations [N] r1=0..9 r2=-1..21 [self=yes|no]", 1,
     {"r1", "r2", "self", NULL}, {NULL}, 0, 0, parse_generations, run_generations,
     margin_generations},
    {"smooth", "smooth [N] [walls=0..9]", 1, {"walls", NULL}, {NULL}, 0, 0, parse_smooth,
     run_smooth, margin_smooth},
    {"rule", "rule [N] floor=LO..HI", 1, {"floor", NULL}, {NULL}, 0, 0, parse_rule, run_rule,
     margin_rule},
    {"downscale", "downscale K", 1, {NULL}, {NULL}, 0, 1, cg__parse_downscale,
     cg__run_downscale, NULL},
    {"entrance", "entrance", 0, {NULL}, {NULL}, 0, 1, cg__parse_entrance, cg__run_entrance,
     NULL},
    {"exit", "exit", 0, {NULL}, {NULL}, 0, 1, cg__parse_entrance, cg__run_exit, NULL},
    {"poi", "poi count=K [spacing=D]", 0, {"count", "spacing", NULL}, {NULL}, 0, 1,
     cg__parse_poi, cg__run_poi, NULL},
    /* "open>=P%" splits at '=' like any key=value: the key is "open>". */
    {"require", "require open>=PERCENT", 0, {"open>", NULL}, {NULL}, 0, 0, cg__parse_require,
     cg__run_require, NULL},
    /* `loops` is both a flag and a key (`loops`, `loops=30%`); place/maze.c reads the flags in
     * this order. */
    {"maze", "maze [connected] [loops[=PERCENT]] [no-isolated]", 0, {"loops", NULL},
     {"connected", "loops", "no-isolated", NULL}, 0, 1, cg__maze_parse, cg__maze_run,
     NULL},
    {"reach", "reach from=X,Y[;X,Y...]|entrance [moves=M]", 0, {"from", "moves", NULL}, {NULL},
     0, 0, cg__parse_reach, cg__run_reach, NULL},
    {"remove-floor", "remove-floor min=N", 0, {"min", NULL}, {NULL}, 0, 0, cg__parse_remove,
     cg__run_remove_floor, NULL},
    {"remove-walls", "remove-walls min=N", 0, {"min", NULL}, {NULL}, 0, 0, cg__parse_remove,
     cg__run_remove_walls, NULL},
    {"keep-largest", "keep-largest", 0, {NULL}, {NULL}, 0, 0, cg__parse_keep_largest,
     cg__run_keep_largest, NULL},
    {"connect", "connect [width=1..16]", 0, {"width", NULL}, {NULL}, 0, 0, cg__parse_connect,
     cg__run_connect, NULL},
};
const size_t cg__step_def_count = sizeof cg__step_defs / sizeof cg__step_defs[0];
