/* engine/pipeline.c - a pipeline is the list of parsed steps; running it applies
 * them in order to one grid (one engine; presets are data).
 *
 * Scale (docs/scale.md): the second buffer of the automaton steps lives only
 * from the first of them to the last, so the steps after (regions, placement)
 * have its memory, and a big map has none (its passes run in place); big
 * maps run their fill and passes in stripes of rows through the caller's
 * parallel loop; chunk mode runs the local steps on the window plus a halo
 * and cuts the window out (engine/chunk.c). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cells/par.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "core/rng.h"
#include "engine/steps.h"
#include "steps/passes.h"

#define DEFAULT_WIDTH 80
#define DEFAULT_HEIGHT 50

/* What a run asks of the steps, found once when they change (parse) rather
 * than by a walk over them at every map of a batch. */
typedef struct pipeline_facts {
    uint64_t id;                  /* unique in the process: keys the memo of run_plan_memory */
    uint32_t default_w, default_h; /* cg_pipeline_default_size */
    size_t min_size;              /* the last `size min=` line, or SIZE_MAX */
    uint64_t downscale;           /* the product of the downscale factors, capped */
    int uses_seed;                /* cg_pipeline_uses_seed */
    int shrinks;                  /* a step replaces the grids (downscale) */
    size_t first_pass, last_pass; /* the steps that need the second buffer: SIZE_MAX, none */
} pipeline_facts;

struct cg_pipeline {
    cg__step *steps;
    size_t n, cap;
    pipeline_facts facts;
};

static void find_facts(cg_pipeline *pipeline, size_t from);

cg_status cg_pipeline_new(cg_pipeline **out)
{
    *out = cg__calloc(1, sizeof **out);
    if (*out)
        find_facts(*out, 0);
    return *out ? CG_OK : CG_ENOMEM;
}

void cg_pipeline_free(cg_pipeline *pipeline)
{
    if (!pipeline)
        return;
    cg__free(pipeline->steps);
    cg__free(pipeline);
}

cg_status cg_pipeline_parse(cg_pipeline *pipeline, const char *text, size_t len, cg_diag *diag)
{
    size_t before = pipeline->n;
    cg_status st = cg__parse_steps(text, len, &pipeline->steps, &pipeline->n, &pipeline->cap, diag);
    find_facts(pipeline, pipeline->n >= before ? before : 0);
    return st;
}

size_t cg_pipeline_step_count(const cg_pipeline *pipeline)
{
    size_t n = 0;
    for (size_t i = 0; i < pipeline->n; i++)
        n += !pipeline->steps[i].def->setting;
    return n;
}

void cg_pipeline_default_size(const cg_pipeline *pipeline, uint32_t *width, uint32_t *height)
{
    *width = pipeline->facts.default_w;
    *height = pipeline->facts.default_h;
}

/* The last `size min=` line, or NULL. */
static const cg__step *min_size_step(const cg_pipeline *pipeline)
{
    size_t i = pipeline->facts.min_size;
    return i == SIZE_MAX ? NULL : &pipeline->steps[i];
}

void cg_pipeline_min_size(const cg_pipeline *pipeline, uint32_t *width, uint32_t *height)
{
    const cg__step *s = min_size_step(pipeline);
    *width = s ? s->u.size.min_w : 1;
    *height = s ? s->u.size.min_h : 1;
}

/* Refuses a map smaller than the pipeline's `size min=`, naming the size
 * that works. */
static cg_status check_min_size(const cg_pipeline *pipeline, uint64_t w, uint64_t h,
                                cg_diag *diag)
{
    const cg__step *s = min_size_step(pipeline);
    if (!s || (w >= s->u.size.min_w && h >= s->u.size.min_h))
        return CG_OK;
    cg__diag(diag, s->line, s->column,
             "a %llux%llu map is smaller than this preset is made for: use at least %ux%u",
             (unsigned long long)w, (unsigned long long)h, s->u.size.min_w, s->u.size.min_h);
    return CG_EINVAL;
}

int cg_pipeline_uses_seed(const cg_pipeline *pipeline)
{
    return pipeline->facts.uses_seed;
}

/* The product of the downscale factors: the run starts that much larger.
 * Capped just above CG_MAX_DIM so it cannot overflow. */
static uint64_t downscale_factor(const cg_pipeline *pipeline)
{
    return pipeline->facts.downscale;
}

cg_status cg_pipeline_start_size(const cg_pipeline *pipeline, uint32_t width, uint32_t height,
                                 uint32_t *start_w, uint32_t *start_h)
{
    uint32_t dw, dh;
    cg_pipeline_default_size(pipeline, &dw, &dh);
    uint64_t f = downscale_factor(pipeline);
    uint64_t w = (uint64_t)(width ? width : dw) * f, h = (uint64_t)(height ? height : dh) * f;
    if (w < 1 || h < 1 || w > CG_MAX_DIM || h > CG_MAX_DIM)
        return CG_EINVAL;
    *start_w = (uint32_t)w;
    *start_h = (uint32_t)h;
    return CG_OK;
}

/* The seed of attempt a (docs/randomness.md): attempt 0 runs with the seed
 * itself, so pipelines without requirements keep their maps; later attempts
 * with a fresh seed per attempt. */
static uint64_t attempt_seed(uint64_t seed, uint32_t a)
{
    return a == 0 ? seed : cg__mix64(cg__mix64(seed) + a);
}

/* Nonzero for a step that reads neighbours from a second buffer (the
 * automaton steps with at least one pass). */
static int needs_scratch(const cg__step *s)
{
    return s->def->chunk_margin && s->def->chunk_margin(s, 0) > 0;
}

/* The walk over the steps that run_once makes and cg_pipeline_memory
 * counts: which steps run, and when the second buffer lives - from the
 * first step that needs it to the last one (a downscale between them
 * resizes it). One definition, so the estimate cannot drift from the run. */
typedef struct step_walk {
    const cg_pipeline *pipeline;
    size_t i, last_pass;
    int scratch; /* the second buffer is alive */
} step_walk;

static void walk_begin(step_walk *w, const cg_pipeline *pipeline)
{
    *w = (step_walk){pipeline, 0, pipeline->facts.last_pass, 0};
}

/* The next step that runs, or NULL; w->scratch says whether the second
 * buffer must exist while it runs: from the first step that runs and
 * needs it (facts.first_pass) to the last. */
static const cg__step *walk_next(step_walk *w)
{
    while (w->i < w->pipeline->n) {
        const cg__step *s = &w->pipeline->steps[w->i++];
        if (!s->def->run)
            continue;
        if (w->i - 1 >= w->pipeline->facts.first_pass && w->i - 1 <= w->last_pass)
            w->scratch = 1;
        return s;
    }
    return NULL;
}

static atomic_uint_fast64_t next_pipeline_id = 1;

/* Folds steps from.. into the facts (from 0: afresh), so that a pipeline
 * parsed a line at a time costs a walk over each step once, not over all
 * of them at every line. */
static void find_facts(cg_pipeline *pipeline, size_t from)
{
    pipeline_facts *f = &pipeline->facts;
    f->id = (uint64_t)atomic_fetch_add_explicit(&next_pipeline_id, 1, memory_order_relaxed);
    if (from == 0)
        *f = (pipeline_facts){.id = f->id, .default_w = DEFAULT_WIDTH,
                              .default_h = DEFAULT_HEIGHT, .min_size = SIZE_MAX,
                              .downscale = 1, .first_pass = SIZE_MAX, .last_pass = SIZE_MAX};
    for (size_t i = from; i < pipeline->n; i++) {
        const cg__step *s = &pipeline->steps[i];
        if (s->def->setting && s->u.size.w) {
            f->default_w = s->u.size.w;
            f->default_h = s->u.size.h;
        }
        if (s->def->setting && s->u.size.min_w)
            f->min_size = i;
        if (s->def->shrink) {
            /* Capped just above CG_MAX_DIM so it cannot overflow. */
            f->downscale *= s->def->shrink(s);
            if (f->downscale > CG_MAX_DIM)
                f->downscale = (uint64_t)CG_MAX_DIM + 1;
            f->shrinks = 1;
        }
        f->uses_seed |= s->def->rand_kind != 0;
        if (needs_scratch(s)) {
            f->last_pass = i;
            if (f->first_pass == SIZE_MAX && s->def->run)
                f->first_pass = i;
        }
    }
}

/* After the step walk_next gave: nonzero when the second buffer goes. */
static int walk_scratch_ends(step_walk *w)
{
    if (w->i - 1 != w->last_pass)
        return 0;
    w->scratch = 0;
    return 1;
}

/* How one attempt runs: on an input map or a fresh all-wall grid of
 * width x height; in chunk mode the grid is the window plus its halo. */
typedef struct run_plan {
    const cg_grid *input;
    uint32_t width, height; /* the grid the steps start on */
    cg__par par;
    int chunk;
    uint32_t halo;
    int64_t origin_x, origin_y; /* world cell of the grid's (0, 0) */
} run_plan;

/* The message of a run stopped by its memory budget (core/mem.h): which step
 * (NULL: setting up the map) on what size of map. */
static void over_budget(const cg__budget *b, const cg__step *s, uint32_t w, uint32_t h,
                        cg_diag *diag)
{
    char limit[32];
    cg_format_bytes(limit, b->limit, 0);
    if (s)
        cg__diag(diag, s->line, s->column,
                 "%s on a %ux%u map needs more than the memory budget of %s", s->def->name, w, h,
                 limit);
    else
        cg__diag(diag, 0, 0, "a %ux%u map needs more than the memory budget of %s", w, h, limit);
}

/* A small map's second buffer lives on run_once's stack: a batch of small
 * maps would otherwise allocate and free one a map. */
#define STACK_SCRATCH_WORDS 1024

typedef struct stack_scratch {
    cg_grid grid;
    uint64_t id_grid, id_mem; /* the budget's ids for the bytes counted */
    uint64_t mem[STACK_SCRATCH_WORDS];
} stack_scratch;

/* The second buffer for run->grid: on the stack when it fits and no step
 * replaces the grids (downscale frees them), else a grid of its own. The
 * stack's is counted against the budget as cg_grid_new counts its two
 * blocks (core/mem.h), so a budget refuses the same runs either way. */
static cg_status new_scratch(const cg_pipeline *pipeline, cg__run *run, stack_scratch *ss)
{
    const cg_grid *g = run->grid;
    size_t words = g->stride * ((size_t)g->h + 2 * CG__PAD);
    if (pipeline->facts.shrinks || words > STACK_SCRATCH_WORDS)
        return cg__grid_new_like(&run->scratch, g);
    if (!cg__mem_fits(sizeof ss->grid, &ss->id_grid))
        return CG_ENOMEM;
    if (!cg__mem_fits(words * sizeof(uint64_t), &ss->id_mem)) {
        cg__mem_release(sizeof(cg__mem_hdr) + sizeof ss->grid, ss->id_grid);
        return CG_ENOMEM;
    }
    ss->grid = (cg_grid){.w = g->w, .h = g->h, .nw = g->nw, .stride = g->stride, .mem = ss->mem};
    memset(ss->mem, 0xff, words * sizeof(uint64_t));
    run->scratch = &ss->grid;
    return CG_OK;
}

/* Ends the second buffer. The passes swap the buffers' cells: if the map's
 * are on the stack, they go back to the map's own block. */
static void free_scratch(cg__run *run, stack_scratch *ss)
{
    if (run->scratch != &ss->grid) {
        cg_grid_free(run->scratch);
        run->scratch = NULL;
        return;
    }
    const cg_grid *g = run->grid;
    size_t words = g->stride * ((size_t)g->h + 2 * CG__PAD);
    if (g->mem == ss->mem) {
        memcpy(ss->grid.mem, ss->mem, words * sizeof(uint64_t));
        cg__grid_swap_cells(run->grid, &ss->grid);
    }
    cg__mem_release(sizeof(cg__mem_hdr) + words * sizeof(uint64_t), ss->id_mem);
    cg__mem_release(sizeof(cg__mem_hdr) + sizeof ss->grid, ss->id_grid);
    run->scratch = NULL;
}

static void wall_stripe(void *arg, uint32_t y0, uint32_t y1)
{
    cg__grid_wall_rows(arg, y0, y1);
}

/* A fresh all-wall grid of width x height, cg_grid_new's: a big one is
 * written in stripes through the caller's threads, so that its first touch
 * (the kernel zeroing its pages, then the walls) is not on one thread
 * while the others wait. */
static cg_status new_grid(cg_grid **out, uint32_t width, uint32_t height, const cg__par *par)
{
    if (!par->fn)
        return cg_grid_new(out, width, height);
    cg_status st = cg__grid_new_unset(out, width, height);
    if (st == CG_OK)
        cg__par_rows(par, *out, wall_stripe, *out);
    return st;
}

typedef struct copy_job {
    cg_grid *g;
    const cg_grid *src;
} copy_job;

static void copy_stripe(void *arg, uint32_t y0, uint32_t y1)
{
    const copy_job *j = arg;
    cg__grid_copy_rows(j->g, j->src, y0, y1);
}

/* A copy of the run's input, cg_grid_clone's: a big one is copied in
 * stripes through the caller's threads, as new_grid walls a fresh one (the
 * first touch of its pages and the copy are not on one thread while the
 * others wait). */
static cg_status clone_input(cg_grid **out, const cg_grid *input, const cg__par *par)
{
    if (!par->fn)
        return cg_grid_clone(out, input);
    cg_status st = cg__grid_new_unset(out, input->w, input->h);
    if (st != CG_OK)
        return st;
    copy_job j = {*out, input};
    cg__par_rows(par, *out, copy_stripe, &j);
    if (cg__grid_clone_rest(*out, input) != CG_OK) {
        cg_grid_free(*out);
        *out = NULL;
        return CG_ENOMEM;
    }
    return CG_OK;
}

/* One attempt: runs every step on a fresh grid. On CG_EFAIL *failed is the
 * index of the step that failed and *score how close it came. */
static cg_status run_once(const cg_pipeline *pipeline, const run_plan *plan, uint64_t seed,
                          const cg__budget *budget, cg_grid **out, cg_diag *diag, size_t *failed,
                          uint64_t *score)
{
    cg_grid *grid = NULL;
    const cg_grid *input = plan->input;
    cg_status st = input ? clone_input(&grid, input, &plan->par)
                         : new_grid(&grid, plan->width, plan->height, &plan->par);
    if (st != CG_OK) {
        cg__diag(diag, 0, 0, "out of memory for a %ux%u map", input ? input->w : plan->width,
                 input ? input->h : plan->height);
        if (budget->refused)
            over_budget(budget, NULL, input ? input->w : plan->width,
                        input ? input->h : plan->height, diag);
        return st;
    }
    cg__run run = {.grid = grid, .seed = seed, .diag = diag};
    stack_scratch ss;
    run.par = &plan->par;
    run.chunk = plan->chunk;
    run.origin_x = plan->origin_x;
    run.origin_y = plan->origin_y;
    step_walk walk;
    walk_begin(&walk, pipeline);
    const cg__step *s;
    while (st == CG_OK && (s = walk_next(&walk)) != NULL) {
        /* A big map's passes run in place (steps/passes.c): no second buffer. */
        if (walk.scratch && !run.scratch && !cg__passes_in_place(run.grid->w, run.grid->h) &&
            (st = new_scratch(pipeline, &run, &ss)) != CG_OK) {
            cg__diag(diag, 0, 0, "out of memory for a %ux%u map", run.grid->w, run.grid->h);
            if (budget->refused)
                over_budget(budget, s, run.grid->w, run.grid->h, diag);
            break;
        }
        /* A reach describes the cells it was computed on, which any later
         * step may change: it is dropped (docs/reach.md). */
        if (!s->def->keeps_reach)
            cg_grid_clear_reach(run.grid);
        st = s->def->run(s, &run);
        if (st == CG_ENOMEM && budget->refused)
            over_budget(budget, s, run.grid->w, run.grid->h, diag);
        if (st == CG_EFAIL) {
            *failed = walk.i - 1;
            *score = run.fail_score;
        }
        if (walk_scratch_ends(&walk))
            free_scratch(&run, &ss);
    }
    /* A step may have replaced the grids (downscale). */
    if (run.scratch)
        free_scratch(&run, &ss);
    cg_grid_free(run.connected);
    if (st == CG_OK && plan->chunk) {
        cg_grid *window = NULL;
        st = cg__grid_crop(&window, run.grid, plan->halo, plan->halo, plan->width - 2 * plan->halo,
                           plan->height - 2 * plan->halo);
        if (st != CG_OK) {
            cg__diag(diag, 0, 0, "out of memory for a %ux%u map", plan->width - 2 * plan->halo,
                     plan->height - 2 * plan->halo);
            if (budget->refused)
                over_budget(budget, NULL, plan->width - 2 * plan->halo,
                            plan->height - 2 * plan->halo, diag);
        }
        cg_grid_free(run.grid);
        run.grid = window;
    }
    if (st != CG_OK) {
        cg_grid_free(run.grid);
        return st;
    }
    *out = run.grid;
    return CG_OK;
}

/* The most a chunk's origin may be from (0, 0), so that the world
 * coordinates of its halo never overflow. */
#define MAX_ORIGIN (INT64_C(1) << 62)

/* Chunk mode: the grid is the window plus the halo on every side. Returns
 * CG_EINVAL with diag saying why when the pipeline or size cannot run so. */
static cg_status plan_chunk(const cg_pipeline *pipeline, const cg_run_options *options,
                            run_plan *plan, cg_diag *diag)
{
    uint32_t halo;
    if (options->input) {
        cg__diag(diag, 0, 0,
                 "a chunk is a window of the infinite cave of a seed; it cannot "
                 "start from an input map");
        return CG_EINVAL;
    }
    cg_status st = cg_pipeline_chunk_halo(pipeline, &halo, diag);
    if (st != CG_OK)
        return st;
    if (options->origin_x < -MAX_ORIGIN || options->origin_x > MAX_ORIGIN ||
        options->origin_y < -MAX_ORIGIN || options->origin_y > MAX_ORIGIN) {
        cg__diag(diag, 0, 0, "a chunk's origin must be within 2^62 cells of (0,0)");
        return CG_EINVAL;
    }
    uint32_t dw, dh;
    cg_pipeline_default_size(pipeline, &dw, &dh);
    uint64_t w = options->width ? options->width : dw, h = options->height ? options->height : dh;
    if (w > CG_MAX_DIM || h > CG_MAX_DIM || w + 2 * (uint64_t)halo > CG_MAX_DIM ||
        h + 2 * (uint64_t)halo > CG_MAX_DIM) {
        cg__diag(diag, 0, 0,
                 "a %llux%llu chunk with its halo of %u cells is over the limit of %u cells a "
                 "side",
                 (unsigned long long)w, (unsigned long long)h, halo, CG_MAX_DIM);
        return CG_EINVAL;
    }
    plan->chunk = 1;
    plan->halo = halo;
    plan->width = (uint32_t)(w + 2 * (uint64_t)halo);
    plan->height = (uint32_t)(h + 2 * (uint64_t)halo);
    plan->origin_x = options->origin_x - halo;
    plan->origin_y = options->origin_y - halo;
    return CG_OK;
}

/* The grid an ordinary run starts on (downscale makes it larger). */
static cg_status plan_map(const cg_pipeline *pipeline, const cg_run_options *options,
                          run_plan *plan, cg_diag *diag)
{
    if (options->input) {
        plan->input = options->input;
        return check_min_size(pipeline, options->input->w, options->input->h, diag);
    }
    uint32_t w = options->width, h = options->height, dw, dh;
    cg_pipeline_default_size(pipeline, &dw, &dh);
    w = w ? w : dw;
    h = h ? h : dh;
    if (check_min_size(pipeline, w, h, diag) != CG_OK)
        return CG_EINVAL;
    if (cg_pipeline_start_size(pipeline, options->width, options->height, &plan->width,
                               &plan->height) == CG_OK)
        return CG_OK;
    uint64_t f = downscale_factor(pipeline);
    if (w > CG_MAX_DIM || h > CG_MAX_DIM || f == 1)
        cg__diag(diag, 0, 0, "a map must be 1..%u cells wide and high, not %ux%u", CG_MAX_DIM, w,
                 h);
    else
        cg__diag(diag, 0, 0,
                 "a %ux%u map downscaled by %llu starts at %llux%llu, over the limit of "
                 "%u cells a side",
                 w, h, (unsigned long long)f, (unsigned long long)(w * f),
                 (unsigned long long)(h * f), CG_MAX_DIM);
    return CG_EINVAL;
}

/* The attempts of a run (cg_pipeline_run), each on a fresh map. */
static cg_status run_attempts(const cg_pipeline *pipeline, const cg_run_options *options,
                              const run_plan *plan, const cg__budget *budget, cg_grid **out,
                              cg_run_info *info, cg_diag *diag)
{
    cg_status st = CG_OK;
    uint32_t max = options->max_attempts ? options->max_attempts : CG_DEFAULT_ATTEMPTS;
    /* Without a random step every attempt would build the same map. */
    if (!cg_pipeline_uses_seed(pipeline))
        max = 1;

    cg_diag best = {0};
    size_t best_step = 0;
    uint64_t best_score = 0, seed = options->seed;
    for (uint32_t a = 0; a < max; a++) {
        cg_diag d = {0};
        size_t failed = 0;
        uint64_t score = 0;
        seed = attempt_seed(options->seed, a);
        if (info)
            *info = (cg_run_info){.attempts = a + 1, .seed = seed};
        st = run_once(pipeline, plan, seed, budget, out, &d, &failed, &score);
        if (st != CG_EFAIL) {
            if (st != CG_OK && diag)
                *diag = d;
            return st;
        }
        /* Report the attempt that got furthest: the latest step, then the
         * highest score; the first such attempt on a tie. */
        if (a == 0 || failed > best_step || (failed == best_step && score > best_score)) {
            best = d;
            best_step = failed;
            best_score = score;
        }
    }
    if (max > 1)
        cg__diag(diag, 0, 0, "%.200s (best of %u attempts)", best.message, max);
    else if (cg_pipeline_uses_seed(pipeline))
        cg__diag(diag, 0, 0, "%.200s (1 attempt)", best.message);
    else
        cg__diag(diag, 0, 0, "%.160s (the pipeline has no random step to retry with)",
                 best.message);
    return CG_EFAIL;
}

/* cg_pipeline_run and cg_pipeline_memory without options: every field zero. */
static const cg_run_options run_defaults;

/* The estimate of cg_pipeline_memory for a plan already made (each map of a
 * batch with a budget plans once). */
static cg_status plan_memory(const cg_pipeline *pipeline, const run_plan *plan, uint64_t *bytes);

/* plan_memory, remembered per thread for the last pipeline and grid: the
 * maps of a batch are all the same size, so it walks the steps once. The
 * estimate depends on the steps (the pipeline's id changes with them) and
 * the grid's size, nothing else. */
static cg_status memo_plan_memory(const cg_pipeline *pipeline, const run_plan *plan,
                                  uint64_t *bytes)
{
    static _Thread_local struct {
        uint64_t id, bytes;
        uint32_t w, h, halo;
        int chunk;
        cg_status st;
    } memo;
    uint32_t w = plan->input ? plan->input->w : plan->width;
    uint32_t h = plan->input ? plan->input->h : plan->height;
    if (memo.id != pipeline->facts.id || memo.w != w || memo.h != h || memo.halo != plan->halo ||
        memo.chunk != plan->chunk) {
        memo.id = pipeline->facts.id;
        memo.w = w;
        memo.h = h;
        memo.halo = plan->halo;
        memo.chunk = plan->chunk;
        memo.bytes = 0;
        memo.st = plan_memory(pipeline, plan, &memo.bytes);
    }
    if (memo.st == CG_OK)
        *bytes = memo.bytes;
    return memo.st;
}

cg_status cg_pipeline_run(const cg_pipeline *pipeline, const cg_run_options *options,
                          cg_grid **out, cg_run_info *info, cg_diag *diag)
{
    if (!options)
        options = &run_defaults;
    if (out)
        *out = NULL;
    if (info)
        *info = (cg_run_info){.seed = options->seed};
    if (!pipeline || !out) {
        cg__diag(diag, 0, 0, "a run needs a pipeline and a pointer for the map");
        return CG_EINVAL;
    }
    cg_status st = cg__reserved_zero(options->reserved,
                                     sizeof options->reserved / sizeof options->reserved[0],
                                     "cg_run_options", diag);
    if (st != CG_OK)
        return st;
    uint32_t max = options->max_attempts ? options->max_attempts : CG_DEFAULT_ATTEMPTS;
    if (max > CG_MAX_ATTEMPTS) {
        cg__diag(diag, 0, 0, "the number of attempts must be in 1..%u, not %u", CG_MAX_ATTEMPTS,
                 max);
        return CG_EINVAL;
    }
    run_plan plan = {0};
    plan.par.fn = options->parallel;
    plan.par.ctx = options->parallel_ctx;
    st = options->chunk ? plan_chunk(pipeline, options, &plan, diag)
                        : plan_map(pipeline, options, &plan, diag);
    if (st != CG_OK)
        return st;
    /* A size the budget cannot hold fails before anything is allocated;
     * the budget then holds the run to it allocation by allocation. */
    uint64_t estimate = 0;
    if (options->max_memory && memo_plan_memory(pipeline, &plan, &estimate) != CG_OK)
        estimate = UINT64_MAX; /* does not fit in 64 bits */
    if (options->max_memory && estimate > options->max_memory) {
        uint32_t w = plan.input ? plan.input->w : plan.width - 2 * plan.halo;
        uint32_t h = plan.input ? plan.input->h : plan.height - 2 * plan.halo;
        char need[32], limit[32];
        cg_format_bytes(need, estimate, 1);
        cg_format_bytes(limit, options->max_memory, 0);
        cg__diag(diag, 0, 0, "a %ux%u map needs at least %s, over the memory budget of %s", w, h,
                 need, limit);
        if (info)
            info->over_budget = 1;
        return CG_ENOMEM;
    }
    cg__budget budget;
    cg__budget_begin(&budget, options->max_memory);
    st = run_attempts(pipeline, options, &plan, &budget, out, info, diag);
    cg__budget_end(&budget);
    if (info) {
        info->peak_memory = budget.peak;
        info->over_budget = st == CG_ENOMEM && budget.refused;
    }
    return st;
}

cg_status cg_pipeline_chunk_halo(const cg_pipeline *pipeline, uint32_t *halo, cg_diag *diag)
{
    uint64_t h = 0;
    size_t bad = 0;
    if (cg__chunk_halo(pipeline->steps, pipeline->n, &h, &bad) != CG_OK) {
        const cg__step *s = &pipeline->steps[bad];
        char local[128];
        cg__local_step_names(local, sizeof local);
        cg__diag(diag, s->line, s->column,
                 "'%s' needs the whole map, so it cannot run in a chunk of the infinite cave "
                 "(chunks take only the local steps: %s)",
                 s->def->name, local);
        return CG_EINVAL;
    }
    if (h > CG_MAX_DIM) {
        cg__diag(diag, 0, 0, "the steps read more than %u cells beyond a chunk", CG_MAX_DIM);
        return CG_EINVAL;
    }
    *halo = (uint32_t)h;
    return CG_OK;
}

/* Saturating arithmetic for the memory estimate. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t grid_bytes(uint32_t w, uint32_t h)
{
    uint64_t b = 0;
    return cg_grid_bytes(w, h, &b) == CG_OK ? b : UINT64_MAX;
}

cg_status cg_pipeline_memory(const cg_pipeline *pipeline, const cg_run_options *options,
                             uint64_t *bytes)
{
    if (!options)
        options = &run_defaults;
    run_plan plan = {0};
    cg_status st = cg__reserved_zero(options->reserved,
                                     sizeof options->reserved / sizeof options->reserved[0],
                                     "cg_run_options", NULL);
    if (st == CG_OK)
        st = options->chunk ? plan_chunk(pipeline, options, &plan, NULL)
                            : plan_map(pipeline, options, &plan, NULL);
    if (st != CG_OK)
        return st;
    return plan_memory(pipeline, &plan, bytes);
}

static cg_status plan_memory(const cg_pipeline *pipeline, const run_plan *p, uint64_t *bytes)
{
    const run_plan plan = *p;
    uint32_t w = plan.input ? plan.input->w : plan.width;
    uint32_t h = plan.input ? plan.input->h : plan.height;
    /* Walk the steps as run_once does, adding up the grids alive at each:
     * what every run that succeeds allocates. The steps' own arrays depend
     * on the map (a reach's window, a poi's candidates, connect's planes
     * only with several regions, labels): the budget counts them as they
     * come, and leaving them out keeps this a lower bound, so a budget of a
     * run's peak is never refused up front. */
    uint64_t map = grid_bytes(w, h), scratch = 0, connected = 0, peak = map;
    step_walk walk;
    walk_begin(&walk, pipeline);
    for (const cg__step *s; (s = walk_next(&walk)) != NULL;) {
        if (walk.scratch && !cg__passes_in_place(w, h))
            scratch = map;
        uint64_t now = sat_add(sat_add(map, scratch), connected);
        if (s->def->keeps_region)
            now = sat_add(now, map); /* the flood it keeps, made before the old one goes */
        if (s->def->shrink) {
            uint32_t k = s->def->shrink(s);
            w = (uint32_t)((w + (uint64_t)k - 1) / k);
            h = (uint32_t)((h + (uint64_t)k - 1) / k);
            uint64_t small = grid_bytes(w, h);
            now = sat_add(now, scratch ? sat_mul(small, 2) : small);
            map = small;
            scratch = scratch ? small : 0;
            connected = 0;
        }
        if (s->def->keeps_region)
            connected = map;
        if (now > peak)
            peak = now;
        if (walk_scratch_ends(&walk))
            scratch = 0;
    }
    if (plan.chunk) { /* the window is cut out while the grid is alive */
        uint64_t now = sat_add(map, grid_bytes(w - 2 * plan.halo, h - 2 * plan.halo));
        if (now > peak)
            peak = now;
    }
    if (peak == UINT64_MAX)
        return CG_EOVERFLOW;
    *bytes = peak;
    return CG_OK;
}
