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

cg_status cg_pipeline_run(const cg_pipeline *pipeline, uint64_t seed, uint32_t width,
                          uint32_t height, const cg_grid *input, cg_grid **out, cg_diag *diag)
{
    *out = NULL;
    cg_grid *grid = NULL, *scratch = NULL;
    cg_status st;
    if (input) {
        st = cg_grid_clone(&grid, input);
    } else {
        uint32_t dw, dh;
        cg_pipeline_default_size(pipeline, &dw, &dh);
        width = width ? width : dw;
        height = height ? height : dh;
        st = cg_grid_new(&grid, width, height);
        if (st == CG_EINVAL)
            cg__diag(diag, 0, 0, "a map must be 1..%u cells wide and high, not %ux%u",
                     CG_MAX_DIM, width, height);
    }
    if (st == CG_OK && cg_pipeline_step_count(pipeline) > 0)
        st = cg__grid_new_like(&scratch, grid);
    if (st == CG_ENOMEM || st == CG_EOVERFLOW)
        cg__diag(diag, 0, 0, "out of memory for a %ux%u map",
                 input ? input->w : width, input ? input->h : height);
    cg__run run = {grid, scratch, seed, diag};
    for (size_t i = 0; st == CG_OK && i < pipeline->n; i++) {
        const cg__step *s = &pipeline->steps[i];
        if (s->def->run)
            st = s->def->run(s, &run);
    }
    cg_grid_free(scratch);
    if (st != CG_OK) {
        cg_grid_free(grid);
        return st;
    }
    *out = grid;
    return CG_OK;
}
