/* pipeline.c - a pipeline is the list of parsed steps; running it applies
 * them in order to one grid (SPEC 2: one engine, presets are data). */
#include <stdlib.h>

#include "steps.h"

#define DEFAULT_WIDTH 80
#define DEFAULT_HEIGHT 50

struct cg_pipeline {
    cg__step *steps;
    size_t n, cap;
};

cg_status cg_pipeline_new(cg_pipeline **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? CG_OK : CG_ENOMEM;
}

void cg_pipeline_free(cg_pipeline *pipeline)
{
    if (!pipeline)
        return;
    free(pipeline->steps);
    free(pipeline);
}

cg_status cg_pipeline_parse(cg_pipeline *pipeline, const char *text, size_t len, cg_diag *diag)
{
    return cg__parse_steps(text, len, &pipeline->steps, &pipeline->n, &pipeline->cap, diag);
}

size_t cg_pipeline_step_count(const cg_pipeline *pipeline)
{
    size_t n = 0;
    for (size_t i = 0; i < pipeline->n; i++)
        n += !pipeline->steps[i].def->is_setting;
    return n;
}

void cg_pipeline_default_size(const cg_pipeline *pipeline, uint32_t *width, uint32_t *height)
{
    *width = DEFAULT_WIDTH;
    *height = DEFAULT_HEIGHT;
    for (size_t i = 0; i < pipeline->n; i++) {
        const cg__step *s = &pipeline->steps[i];
        if (s->def->run == NULL && s->def->is_setting) {
            *width = s->u.size.w;
            *height = s->u.size.h;
        }
    }
}

int cg_pipeline_uses_seed(const cg_pipeline *pipeline)
{
    for (size_t i = 0; i < pipeline->n; i++)
        if (pipeline->steps[i].def->random)
            return 1;
    return 0;
}

/* The product of the downscale factors: the run starts that much larger.
 * Capped just above CG_MAX_DIM so it cannot overflow. */
static uint64_t downscale_factor(const cg_pipeline *pipeline)
{
    uint64_t f = 1;
    for (size_t i = 0; i < pipeline->n; i++)
        if (pipeline->steps[i].def->run == cg__run_downscale) {
            f *= pipeline->steps[i].u.downscale.k;
            if (f > CG_MAX_DIM)
                f = (uint64_t)CG_MAX_DIM + 1;
        }
    return f;
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

/* One attempt: runs every step on a fresh grid. On CG_EFAIL *failed is the
 * index of the step that failed and *score how close it came. */
static cg_status run_once(const cg_pipeline *pipeline, const cg_grid *input, uint32_t width,
                          uint32_t height, uint64_t seed, cg_grid **out, cg_diag *diag,
                          size_t *failed, uint64_t *score)
{
    cg_grid *grid = NULL, *scratch = NULL;
    cg_status st = input ? cg_grid_clone(&grid, input) : cg_grid_new(&grid, width, height);
    if (st == CG_OK && cg_pipeline_step_count(pipeline) > 0)
        st = cg__grid_new_like(&scratch, grid);
    if (st != CG_OK) {
        cg__diag(diag, 0, 0, "out of memory for a %ux%u map", input ? input->w : width,
                 input ? input->h : height);
        cg_grid_free(grid);
        return st;
    }
    cg__run run = {.grid = grid, .scratch = scratch, .seed = seed, .diag = diag};
    for (size_t i = 0; st == CG_OK && i < pipeline->n; i++) {
        const cg__step *s = &pipeline->steps[i];
        if (!s->def->run)
            continue;
        st = s->def->run(s, &run);
        if (st == CG_EFAIL) {
            *failed = i;
            *score = run.fail_score;
        }
    }
    /* A step may have replaced the grids (downscale). */
    cg_grid_free(run.scratch);
    cg_grid_free(run.connected);
    if (st != CG_OK) {
        cg_grid_free(run.grid);
        return st;
    }
    *out = run.grid;
    return CG_OK;
}

cg_status cg_pipeline_run_ex(const cg_pipeline *pipeline, const cg_run_options *options,
                             cg_grid **out, cg_run_info *info, cg_diag *diag)
{
    *out = NULL;
    if (info)
        *info = (cg_run_info){0, options->seed};
    uint32_t max = options->max_attempts ? options->max_attempts : CG_DEFAULT_ATTEMPTS;
    if (max > CG_MAX_ATTEMPTS) {
        cg__diag(diag, 0, 0, "the number of attempts must be in 1..%u, not %u", CG_MAX_ATTEMPTS,
                 max);
        return CG_EINVAL;
    }
    uint32_t width = 0, height = 0;
    if (!options->input &&
        cg_pipeline_start_size(pipeline, options->width, options->height, &width, &height)) {
        uint32_t w = options->width, h = options->height, dw, dh;
        cg_pipeline_default_size(pipeline, &dw, &dh);
        w = w ? w : dw;
        h = h ? h : dh;
        uint64_t f = downscale_factor(pipeline);
        if (w > CG_MAX_DIM || h > CG_MAX_DIM || f == 1)
            cg__diag(diag, 0, 0, "a map must be 1..%u cells wide and high, not %ux%u", CG_MAX_DIM,
                     w, h);
        else
            cg__diag(diag, 0, 0,
                     "a %ux%u map downscaled by %llu starts at %llux%llu, over the limit of "
                     "%u cells a side",
                     w, h, (unsigned long long)f, (unsigned long long)(w * f),
                     (unsigned long long)(h * f), CG_MAX_DIM);
        return CG_EINVAL;
    }
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
            *info = (cg_run_info){a + 1, seed};
        cg_status st =
            run_once(pipeline, options->input, width, height, seed, out, &d, &failed, &score);
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

cg_status cg_pipeline_run(const cg_pipeline *pipeline, uint64_t seed, uint32_t width,
                          uint32_t height, const cg_grid *input, cg_grid **out, cg_diag *diag)
{
    cg_run_options options = {seed, width, height, input, 0};
    return cg_pipeline_run_ex(pipeline, &options, out, NULL, diag);
}
