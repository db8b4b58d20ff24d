/* test_passes.c - the automaton steps' passes in place (steps/passes.c), the
 * way a big map runs them, against the second buffer that small maps use:
 * the same cells, frame and tail bits and markers for every rule, size,
 * seed and parallel loop (none, out of order, threads). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"
/* White box: the switch to the in-place passes, and the grid's words. */
#include "../src/core/grid.h"
#include "../src/steps/passes.h"

/* Every word of the grids, padding and frame included, and the markers. */
static int same_words(const cg_grid *a, const cg_grid *b)
{
    return a->w == b->w && a->h == b->h && a->stride == b->stride &&
           memcmp(a->mem, b->mem, (a->h + 2 * CG__PAD) * a->stride * sizeof *a->mem) == 0 &&
           tu_grids_equal(a, b);
}

static cg_grid *run(const char *text, uint32_t w, uint32_t h, uint64_t seed, const cg_grid *input,
                    cg_parallel_fn par)
{
    cg_pipeline *p = tu_pipeline(text);
    cg_run_options o = {.seed = seed, .width = w, .height = h, .input = input, .parallel = par};
    cg_grid *g = NULL;
    cg_diag diag = {0};
    cg_status st = cg_pipeline_run(p, &o, &g, NULL, &diag);
    if (st != CG_OK) {
        print_error("%s on %ux%u: %s\n", text, w, h, diag.message);
        fail();
    }
    cg_pipeline_free(p);
    return g;
}

/* The map of text in place (with each loop) equals the double-buffered one. */
static void check(const char *text, uint32_t w, uint32_t h, uint64_t seed, const cg_grid *input)
{
    static const cg_parallel_fn loops[] = {NULL, tu_shuffled_for, tu_threads_for};
    cg__set_in_place_cells(UINT64_MAX);
    cg_grid *want = run(text, w, h, seed, input, NULL);
    cg__set_in_place_cells(1);
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        cg_grid *got = run(text, w, h, seed, input, loops[k]);
        if (!same_words(want, got)) {
            print_error("'%s' on %ux%u, seed %llu, loop %zu: in place differs\n", text, w, h,
                        (unsigned long long)seed, k);
            fail();
        }
        cg_grid_free(got);
    }
    cg__set_in_place_cells(0);
    cg_grid_free(want);
}

static const char *const pipelines[] = {
    "fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0",
    "fill 50\ngenerations 3 r1=5 r2=2 self=no",
    "fill 40\nsmooth 4 walls=5",
    "fill 55\nrule 3 floor=5..8",
    "fill 48\ngenerations 2 r1=5 r2=2\ndownscale 2\nsmooth 2 walls=5",
    "fill 45\ngenerations 4 r1=5 r2=-1\nentrance\nexit\npoi count=3\nsmooth 1 walls=5\nrule 1 "
    "floor=3..9",
};

/* Small maps (one stripe: blocks of rows, the last one short), 1xN and Nx1,
 * widths about 64. */
static void in_place_passes_equal_the_second_buffer(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1},   {1, 37},  {37, 1},  {2, 2},    {3, 300},
                                        {63, 40}, {64, 41}, {65, 39}, {131, 70}, {200, 129}};
    for (size_t p = 0; p < sizeof pipelines / sizeof pipelines[0]; p++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (uint64_t seed = 0; seed < 3; seed++)
                if (p != 5 || (sizes[i][0] >= 20 && sizes[i][1] >= 20))
                    check(pipelines[p], sizes[i][0], sizes[i][1], seed * 7919, NULL);
}

/* Maps big enough for several stripes, so that each stripe's window starts
 * from the rows the stripe above may already have written. */
static void in_place_passes_in_stripes_equal_the_second_buffer(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{2111, 1201}, {64, 40000}, {700, 4003}};
    for (size_t p = 0; p < 4; p++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            check(pipelines[p], sizes[i][0], sizes[i][1], 42 + p, NULL);
}

/* Input maps: all wall, all floor, a checkerboard, random. */
static void in_place_passes_on_uniform_and_checkered_maps(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 50}, {64, 64}, {65, 33}, {131, 19}, {1100, 2000}};
    uint64_t rng = 3;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = (int)sizes[i][0], h = (int)sizes[i][1];
        for (int kind = 0; kind < 4; kind++) {
            uint8_t *cells = tu_alloc_cells(w, h);
            tu_random_cells(cells, w, h, 0.5, &rng);
            for (int k = 0; k < w * h && kind < 3; k++)
                cells[k] = (uint8_t)(kind == 0 ? 1 : kind == 1 ? 0 : (k % w + k / w) % 2);
            cg_grid *in = tu_grid_from_cells(cells, w, h);
            free(cells);
            check("generations 2 r1=5 r2=2\nsmooth 1 walls=4\nrule 1 floor=4..9\n"
                  "generations 1 r1=5 r2=-1 self=no",
                  0, 0, 0, in);
            cg_grid_free(in);
        }
    }
}

/* A map that runs in place, then downscaled below the size that does: the
 * passes after the downscale get a second buffer again, and the map is the
 * same; the estimate still bounds the run. */
static void in_place_then_double_buffered_after_a_downscale(void **state)
{
    (void)state;
    const char *text = "fill 48\ngenerations 2 r1=5 r2=2\ndownscale 2\nsmooth 2 walls=5\n"
                       "generations 1 r1=5 r2=-1";
    cg__set_in_place_cells(UINT64_MAX);
    cg_grid *want = run(text, 300, 200, 9, NULL, NULL);
    cg__set_in_place_cells(600 * 400); /* the start, at twice the size */
    cg_grid *got = run(text, 300, 200, 9, NULL, tu_shuffled_for);
    assert_true(same_words(want, got));
    cg_pipeline *p = tu_pipeline(text);
    cg_run_options o = {.seed = 9, .width = 300, .height = 200};
    cg_run_info info;
    cg_grid *g = NULL;
    assert_int_equal(cg_pipeline_run(p, &o, &g, &info, NULL), CG_OK);
    uint64_t estimate = 0;
    assert_int_equal(cg_pipeline_memory(p, &o, &estimate), CG_OK);
    assert_true(estimate <= info.peak_memory);
    cg_grid_free(g);
    cg_pipeline_free(p);
    cg__set_in_place_cells(0);
    cg_grid_free(want);
    cg_grid_free(got);
}

/* A pipeline's memory estimate leaves out the second buffer exactly when
 * the run makes none: a budget of the run's peak is never refused. */
static void in_place_runs_fit_a_budget_of_their_peak(void **state)
{
    (void)state;
    cg__set_in_place_cells(1);
    cg_pipeline *p = tu_pipeline(pipelines[0]);
    cg_run_options o = {.seed = 5, .width = 300, .height = 200};
    cg_grid *g = NULL;
    cg_run_info info;
    assert_int_equal(cg_pipeline_run(p, &o, &g, &info, NULL), CG_OK);
    uint64_t estimate = 0;
    assert_int_equal(cg_pipeline_memory(p, &o, &estimate), CG_OK);
    assert_true(estimate <= info.peak_memory);
    cg_grid_free(g);
    o.max_memory = info.peak_memory;
    assert_int_equal(cg_pipeline_run(p, &o, &g, NULL, NULL), CG_OK);
    cg_grid_free(g);
    cg_pipeline_free(p);
    cg__set_in_place_cells(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_place_passes_equal_the_second_buffer),
        cmocka_unit_test(in_place_passes_in_stripes_equal_the_second_buffer),
        cmocka_unit_test(in_place_passes_on_uniform_and_checkered_maps),
        cmocka_unit_test(in_place_then_double_buffered_after_a_downscale),
        cmocka_unit_test(in_place_runs_fit_a_budget_of_their_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
