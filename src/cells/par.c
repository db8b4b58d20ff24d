/* par.c - a big map's rows in stripes, through the caller's parallel loop
 * (cells/par.h). */
#include "cells/par.h"
#include "core/grid.h"
#include "core/mem.h"

/* Rows of at least this many cells make a stripe worth a task of its own; at
 * most MAX_STRIPES stripes. The count depends on the grid only, never on the
 * threads, and every stripe computes its rows from the same source: the map
 * is the same however many threads run them. */
#define STRIPE_CELLS (UINT64_C(1) << 20)
#define MAX_STRIPES 256u

uint32_t cg__par_count(const cg__par *par, const cg_grid *g)
{
    uint64_t n = (uint64_t)g->nw * 64 * g->h / STRIPE_CELLS;
    if (n > MAX_STRIPES)
        n = MAX_STRIPES;
    if (n > g->h / 16) /* a stripe re-reads 2 rows above and below its own */
        n = g->h / 16;
    return !par || !par->fn || n < 2 ? 1 : (uint32_t)n;
}

typedef struct stripe_job {
    void (*stripe)(void *arg, uint32_t i, uint32_t y0, uint32_t y1);
    void *arg;
    uint32_t h, n;
} stripe_job;

static void stripe_task(void *arg, size_t i)
{
    const stripe_job *j = arg;
    uint32_t y0 = (uint32_t)((uint64_t)j->h * i / j->n);
    uint32_t y1 = (uint32_t)((uint64_t)j->h * (i + 1) / j->n);
    j->stripe(j->arg, (uint32_t)i, y0, y1);
}

void cg__par_stripes(const cg__par *par, const cg_grid *g, uint32_t n,
                     void (*stripe)(void *arg, uint32_t i, uint32_t y0, uint32_t y1), void *arg)
{
    if (n == 1) { /* a small map: one stripe, no job to build */
        stripe(arg, 0, 0, g->h);
        return;
    }
    stripe_job job = {stripe, arg, g->h, n};
    if (!par || !par->fn || n < 2) {
        for (uint32_t i = 0; i < n; i++)
            stripe_task(&job, i);
        return;
    }
    cg__budget *budget = cg__budget_suspend(); /* the stripes allocate nothing */
    par->fn(par->ctx, n, stripe_task, &job);
    cg__budget_resume(budget);
}

typedef struct rows_job {
    void (*rows)(void *arg, uint32_t y0, uint32_t y1);
    void *arg;
} rows_job;

static void rows_stripe(void *arg, uint32_t i, uint32_t y0, uint32_t y1)
{
    (void)i;
    const rows_job *j = arg;
    j->rows(j->arg, y0, y1);
}

void cg__par_rows(const cg__par *par, const cg_grid *g,
                  void (*rows)(void *arg, uint32_t y0, uint32_t y1), void *arg)
{
    /* A map of fewer than 32 rows is one stripe (cg__par_count): its rows
     * run here, without the count's division or the stripes' jobs. */
    if (g->h < 32 || !par || !par->fn) {
        rows(arg, 0, g->h);
        return;
    }
    rows_job job = {rows, arg};
    cg__par_stripes(par, g, cg__par_count(par, g), rows_stripe, &job);
}
