/* test_mem.c - the memory budget of a run (src/core/mem.c, cg_run_options.
 * max_memory): the peak a run reports is exactly what it needs (a budget of
 * that much gives the same map, one byte less fails cleanly at the step that
 * passes it), a size over the estimate fails before allocating, and budgets
 * of runs on different threads do not mix. */
#include <pthread.h>
#include <string.h>

/* cmocka.h needs these included before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// clang-format off
#include <cmocka.h>
// clang-format on

#include "testutil.h"

typedef struct run_result {
    cg_status st;
    cg_grid *map;
    cg_run_info info;
    cg_diag diag;
} run_result;

static unsigned checked; /* runs check_exact compared */

static run_result run_with(const cg_pipeline *p, uint64_t seed, uint32_t w, uint32_t h,
                           const cg_grid *input, uint64_t max_memory)
{
    run_result r = {0};
    cg_run_options o = {
        .seed = seed, .width = w, .height = h, .input = input, .max_memory = max_memory};
    r.st = cg_pipeline_run(p, &o, &r.map, &r.info, &r.diag);
    return r;
}

/* Runs text once without a budget to learn its peak P (which the estimate
 * must not pass), then with P - the same map and peak - and with P - 1:
 * CG_ENOMEM marked over budget, no map, a message naming the budget. */
static void check_exact(const char *text, uint64_t seed, uint32_t w, uint32_t h,
                        const cg_grid *input)
{
    cg_pipeline *p = tu_pipeline(text);
    run_result free_run = run_with(p, seed, w, h, input, 0);
    /* A requirement this seed cannot meet, or a size the pipeline refuses
     * (a maze's even side): nothing to compare. */
    if (free_run.st == CG_EFAIL || free_run.st == CG_EINVAL) {
        cg_pipeline_free(p);
        return;
    }
    checked++;
    if (free_run.st != CG_OK)
        fail_msg("%s at %ux%u: %s: %s", text, w, h, cg_strerror(free_run.st),
                 free_run.diag.message);
    const uint64_t peak = free_run.info.peak_memory;
    assert_true(peak > 0);
    assert_int_equal(free_run.info.over_budget, 0);

    cg_run_options o = {.seed = seed, .width = w, .height = h, .input = input};
    uint64_t estimate = 0;
    assert_int_equal(cg_pipeline_memory(p, &o, &estimate), CG_OK);

    /* The estimate is a lower bound: a budget of the peak passes it. */
    if (estimate > peak)
        fail_msg("%s at %ux%u: estimate %llu over the peak %llu", text, w, h,
                 (unsigned long long)estimate, (unsigned long long)peak);
    run_result enough = run_with(p, seed, w, h, input, peak);
    if (enough.st != CG_OK)
        fail_msg("%s at %ux%u: a budget of its peak %llu failed: %s", text, w, h,
                 (unsigned long long)peak, enough.diag.message);
    assert_true(tu_grids_equal(enough.map, free_run.map));
    assert_int_equal(enough.info.peak_memory, peak);
    assert_int_equal(enough.info.attempts, free_run.info.attempts);

    run_result short_run = run_with(p, seed, w, h, input, peak - 1);
    if (short_run.st != CG_ENOMEM)
        fail_msg("%s at %ux%u: a budget of %llu - 1 gave %s", text, w, h, (unsigned long long)peak,
                 cg_strerror(short_run.st));
    assert_null(short_run.map);
    assert_int_equal(short_run.info.over_budget, 1);
    assert_non_null(strstr(short_run.diag.message, "memory budget"));
    assert_true(short_run.info.peak_memory <= peak - 1);

    cg_grid_free(free_run.map);
    cg_grid_free(enough.map);
    cg_pipeline_free(p);
}

static void every_preset_needs_exactly_its_peak(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 37},   {37, 1},   {3, 65},   {65, 3},
                                        {131, 71}, {130, 70}, {201, 129}};
    checked = 0;
    for (size_t i = 0; i < cg_preset_count(); i++) {
        size_t len = 0;
        const char *text = cg_preset_builtin(cg_preset_name(i), &len);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            check_exact(text, 7 + s, sizes[s][0], sizes[s][1], NULL);
    }
    /* Every preset ran at most sizes (mazes refuse even sides). */
    assert_true(checked >= cg_preset_count() * 4);
}

/* The steps whose memory depends on the map: labels, corridors, queues,
 * candidate lists, distances; and a run from an input map. */
static void map_dependent_steps_need_exactly_their_peak(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "fill 45\nremove-walls min=10\n",
        "fill 50\nremove-floor min=20\n",
        "fill 45\nkeep-largest\n",
        "fill 45\nconnect width=2\n",
        "fill 40\nsmooth 2\nentrance\nexit\npoi count=5 spacing=3\nreach from=entrance\n",
        "fill 30\nreach from=1,1 moves=10\n",
        "maze connected loops=10%\nreach from=1,1\n",
        "fill 45\ndownscale 2\nconnect\nrequire open>=10%\n",
    };
    checked = 0;
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            check_exact(texts[i], seed, 97, 61, NULL);
            check_exact(texts[i], seed, 301, 3, NULL);
        }
    assert_true(checked >= 40);
    cg_grid *input = tu_run("fill 45\n", 5, 150, 90, NULL);
    check_exact("remove-walls min=5\nconnect\n", 1, 0, 0, input);
    cg_grid_free(input);
}

/* Grids over the budget (cg_pipeline_memory): refused before allocating. */
static void a_size_over_the_estimate_fails_at_once(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\nsmooth 4\n");
    run_result r = run_with(p, 1, 1 << 20, 1 << 20, NULL, UINT64_C(1) << 30);
    assert_int_equal(r.st, CG_ENOMEM);
    assert_null(r.map);
    assert_int_equal(r.info.over_budget, 1);
    assert_int_equal(r.info.peak_memory, 0); /* nothing was allocated */
    assert_non_null(strstr(r.diag.message, "a 1048576x1048576 map needs at least"));
    assert_non_null(strstr(r.diag.message, "over the memory budget of 1024 MiB"));
    cg_pipeline_free(p);
}

/* A step over the budget is named, with its line and column. */
static void the_step_over_the_budget_is_named(void **state)
{
    (void)state;
    const char *text = "fill 45\n\n  remove-walls min=10\n";
    cg_pipeline *p = tu_pipeline(text);
    run_result free_run = run_with(p, 3, 500, 400, NULL, 0);
    assert_int_equal(free_run.st, CG_OK);
    cg_run_options o = {.seed = 3, .width = 500, .height = 400};
    uint64_t estimate = 0;
    assert_int_equal(cg_pipeline_memory(p, &o, &estimate), CG_OK);
    assert_true(free_run.info.peak_memory > estimate); /* labels are not in the estimate */
    /* Twice the grids, far from the labels of a map this broken up. */
    run_result r = run_with(p, 3, 500, 400, NULL, 2 * estimate);
    assert_int_equal(r.st, CG_ENOMEM);
    assert_int_equal(r.info.over_budget, 1);
    assert_int_equal(r.diag.line, 3);
    assert_int_equal(r.diag.column, 3);
    assert_non_null(strstr(r.diag.message, "remove-walls on a 500x400 map needs more than"));
    cg_grid_free(free_run.map);
    cg_pipeline_free(p);
}

/* A failure that is not the budget's keeps over_budget clear. */
static void other_failures_are_not_over_budget(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\nrequire open>=100%\n");
    run_result r = run_with(p, 1, 40, 30, NULL, UINT64_C(1) << 30);
    assert_int_equal(r.st, CG_EFAIL);
    assert_int_equal(r.info.over_budget, 0);
    assert_true(r.info.peak_memory > 0);
    cg_pipeline_free(p);
}

/* Runs on two threads at once, each with its exact budget: each is counted
 * on its own, so both succeed with the maps of a lone run. */
typedef struct thread_job {
    const cg_pipeline *p;
    uint64_t seed, budget;
    run_result r;
} thread_job;

static void *thread_run(void *arg)
{
    thread_job *j = arg;
    for (int k = 0; k < 20 && (k == 0 || j->r.st == CG_OK); k++) {
        cg_grid_free(j->r.map);
        j->r = run_with(j->p, j->seed, 160, 100, NULL, j->budget);
    }
    return NULL;
}

static void budgets_of_runs_on_other_threads_do_not_mix(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\nconnect\nremove-walls min=4\n");
    thread_job jobs[2] = {{p, 11, 0, {0}}, {p, 12, 0, {0}}};
    cg_grid *alone[2];
    for (int i = 0; i < 2; i++) {
        run_result r = run_with(p, jobs[i].seed, 160, 100, NULL, 0);
        assert_int_equal(r.st, CG_OK);
        jobs[i].budget = r.info.peak_memory;
        alone[i] = r.map;
    }
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thread_run, &jobs[i]), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(jobs[i].r.st, CG_OK);
        assert_true(tu_grids_equal(jobs[i].r.map, alone[i]));
        assert_int_equal(jobs[i].r.info.peak_memory, jobs[i].budget);
        cg_grid_free(jobs[i].r.map);
        cg_grid_free(alone[i]);
    }
    cg_pipeline_free(p);
}

static int discard(void *ctx, const void *data, size_t len)
{
    (void)ctx;
    (void)data;
    (void)len;
    return 0;
}

/* cg_stats_options.max_memory and cg_write_options.max_memory: the figures label the
 * map's regions, and JSON computes them inside the writer, where they count
 * against the writer's budget. */
static void statistics_and_writers_are_held_to_their_budget(void **state)
{
    (void)state;
    cg_grid *map = tu_run("fill 50\n", 9, 2000, 1000, NULL); /* about 10^6 regions */
    cg_stats want, got;
    cg_diag diag = {0};
    assert_int_equal(cg_grid_stats(map, NULL, &want, NULL), CG_OK);
    cg_stats_options so = {.max_memory = UINT64_C(1) << 30};
    assert_int_equal(cg_grid_stats(map, &so, &got, &diag), CG_OK);
    assert_memory_equal(&got, &want, sizeof got);
    so.max_memory = UINT64_C(1) << 20;
    assert_int_equal(cg_grid_stats(map, &so, &got, &diag), CG_ENOMEM);
    assert_string_equal(diag.message, "the statistics of a 2000x1000 map need more than the "
                                      "memory budget of 1 MiB");

    cg_write_options o = {.format = CG_FORMAT_ASCII, .max_memory = UINT64_C(1) << 20};
    memset(&diag, 0, sizeof diag);
    assert_int_equal(cg_write(map, &o, discard, NULL, &diag), CG_OK);
    o.format = CG_FORMAT_JSON;
    assert_int_equal(cg_write(map, &o, discard, NULL, &diag), CG_ENOMEM);
    assert_string_equal(diag.message, "writing a 2000x1000 map as json needs more than the "
                                      "memory budget of 1 MiB");
    o.max_memory = UINT64_C(1) << 30;
    tu_buf a = {0}, b = {0};
    assert_int_equal(cg_write(map, &o, tu_buf_write, &a, &diag), CG_OK);
    o.max_memory = 0;
    assert_int_equal(cg_write(map, &o, tu_buf_write, &b, &diag), CG_OK);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    tu_buf_free(&a);
    tu_buf_free(&b);
    cg_grid_free(map);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_preset_needs_exactly_its_peak),
        cmocka_unit_test(map_dependent_steps_need_exactly_their_peak),
        cmocka_unit_test(a_size_over_the_estimate_fails_at_once),
        cmocka_unit_test(the_step_over_the_budget_is_named),
        cmocka_unit_test(other_failures_are_not_over_budget),
        cmocka_unit_test(budgets_of_runs_on_other_threads_do_not_mix),
        cmocka_unit_test(statistics_and_writers_are_held_to_their_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
