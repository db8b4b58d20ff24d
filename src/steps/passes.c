/* steps/passes.c - running the automaton steps' passes (steps/passes.h).
 *
 * A pass computes every row from the rows up to two above and below it in
 * the map before the pass. Small maps keep a second buffer: the pass writes
 * it, then the two swap. A big map has no room to spare for a second copy
 * (a 65536x65536 map is 512 MiB), so its passes run in place: each stripe of
 * rows goes down in blocks of BLOCK_ROWS rows, and a block's source rows -
 * its own and two on either side - are first copied into a small window,
 * from which the pass writes the block's rows of the map. The two rows
 * above a block were written by the block before it, but the window still
 * holds them as they were (they move to its top); the two rows above and
 * below a stripe, which the stripes beside it may write at any time, are
 * copied before the stripes start. So every row is computed from the map
 * before the pass, exactly as with the second buffer. */
#include <string.h>

#include "cells/par.h"
#include "core/grid.h"
#include "core/mem.h"
#include "steps/passes.h"

#define MAX_PASSES 100000

cg_status cg__parse_passes(const cg__args *a, uint32_t *n, cg_diag *diag)
{
    long v = 1;
    if (a->positional.s &&
        cg__parse_int(&a->positional, a->line, "the number of passes", 0, MAX_PASSES, &v, diag))
        return CG_EPARSE;
    *n = (uint32_t)v;
    return CG_OK;
}

/* Maps of at least this many cells (8 MiB) run their passes in place. */
#define IN_PLACE_CELLS (UINT64_C(1) << 26)
/* Rows a window computes at once, and the most stripes in place (each has
 * a window of BLOCK_ROWS + 4 rows and two rows of halo). */
#define BLOCK_ROWS 16u
#define MAX_IN_PLACE_STRIPES 64u

static uint64_t in_place_cells = IN_PLACE_CELLS;

void cg__set_in_place_cells(uint64_t cells)
{
    in_place_cells = cells ? cells : IN_PLACE_CELLS;
}

int cg__passes_in_place(uint32_t w, uint32_t h)
{
    return (uint64_t)w * h >= in_place_cells;
}

typedef struct pass_job {
    const cg__step *step;
    const cg_grid *src;
    cg_grid *dst;
    cg__pass_fn pass;
} pass_job;

static void pass_stripe(void *arg, uint32_t y0, uint32_t y1)
{
    const pass_job *j = arg;
    j->pass(j->step, j->src, j->dst, y0, y1, 0, j->src->h);
}

/* The passes of a map in place: per stripe, a window of BLOCK_ROWS + 4 rows
 * (the block and two rows on either side, in the padding rows of a grid of
 * BLOCK_ROWS rows) and the two rows below the stripe. */
typedef struct place_job {
    const cg__step *step;
    cg_grid *g;
    cg__pass_fn pass;
    uint64_t *windows, *below;
} place_job;

#define WINDOW_WORDS(g) ((size_t)(BLOCK_ROWS + 2 * CG__PAD) * (g)->stride)

/* Row r of the map with its frame words: where a row starts in memory. */
static inline uint64_t *row_start(const cg_grid *g, int64_t r)
{
    return cg__row(g, r) - 1;
}

static void place_stripe(void *arg, uint32_t i, uint32_t y0, uint32_t y1)
{
    const place_job *j = arg;
    const cg_grid *g = j->g;
    const size_t stride = g->stride, bytes = stride * sizeof(uint64_t);
    uint64_t *win = j->windows + i * WINDOW_WORDS(g);
    const uint64_t *below = j->below + (size_t)i * 2 * stride;
    uint32_t done = 0; /* rows of the block before */
    for (uint32_t y = y0; y < y1; y += done) {
        uint32_t b = y1 - y < BLOCK_ROWS ? y1 - y : BLOCK_ROWS;
        /* Window row v (v = -2 .. b+1) is map row y + v, at win[(v + 2) * stride]. */
        uint32_t from = 0;
        if (y > y0) { /* rows y-2 .. y+1 as the last block saw them */
            memmove(win, win + (size_t)done * stride, 4 * bytes);
            from = 2;
        }
        for (uint32_t v = from; v < b + 2; v++) {
            uint32_t r = y + v;
            memcpy(win + (size_t)(v + 2) * stride,
                   r < y1 ? row_start(g, r) : below + (size_t)(r - y1) * stride, bytes);
        }
        cg_grid src = *g, dst = *g;
        src.h = dst.h = b;
        src.mem = win;
        dst.mem = g->mem + (size_t)y * stride; /* row v: map row y + v */
        j->pass(j->step, &src, &dst, 0, b, y, g->h);
        done = b;
    }
}

static cg_status run_in_place(const cg__step *step, cg__run *run, uint32_t n, cg__pass_fn pass)
{
    cg_grid *g = run->grid;
    uint32_t stripes = cg__par_count(run->par, g);
    stripes = stripes > MAX_IN_PLACE_STRIPES ? MAX_IN_PLACE_STRIPES : stripes;
    const size_t stride = g->stride, bytes = stride * sizeof(uint64_t);
    place_job job = {step, g, pass, NULL, NULL};
    job.windows = cg__malloc(stripes * WINDOW_WORDS(g) * sizeof(uint64_t));
    job.below = cg__malloc((size_t)stripes * 2 * bytes);
    if (!job.windows || !job.below) {
        cg__free(job.windows);
        cg__free(job.below);
        return CG_ENOMEM;
    }
    for (uint32_t k = 0; k < n; k++) {
        /* The rows around each stripe, before any stripe writes: the two
         * above go to the top of its window, the two below aside (rows -2,
         * -1, h and h + 1 are the grid's all-wall padding). */
        for (uint32_t i = 0; i < stripes; i++) {
            int64_t y0 = (int64_t)((uint64_t)g->h * i / stripes);
            int64_t y1 = (int64_t)((uint64_t)g->h * (i + 1) / stripes);
            uint64_t *win = job.windows + i * WINDOW_WORDS(g);
            memcpy(win, row_start(g, y0 - 2), 2 * bytes);
            memcpy(job.below + (size_t)i * 2 * stride, row_start(g, y1), 2 * bytes);
        }
        cg__par_stripes(run->par, g, stripes, place_stripe, &job);
        cg__grid_prune_marks(g);
    }
    cg__free(job.windows);
    cg__free(job.below);
    return CG_OK;
}

cg_status cg__run_passes(const cg__step *step, cg__run *run, uint32_t n, cg__pass_fn pass)
{
    /* Markers go with their cell as soon as it turns to wall, so N passes in
     * one step equal N one-pass steps. */
    if (!run->scratch)
        return n ? run_in_place(step, run, n, pass) : CG_OK;
    for (uint32_t i = 0; i < n; i++) {
        pass_job job = {step, run->grid, run->scratch, pass};
        cg__par_rows(run->par, run->grid, pass_stripe, &job);
        cg__grid_swap_cells(run->grid, run->scratch);
        cg__grid_prune_marks(run->grid);
    }
    return CG_OK;
}
