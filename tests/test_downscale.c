/* test_downscale.c - `downscale K` (the level article, docs/presets.md): the size of the
 * result and of the run before it, the documented formula against a plain
 * per-cell reference, the wall share of a block as the wall probability,
 * purity (a cell depends only on its block and (seed, x, y)), markers, and
 * bad arguments. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"
/* The test-only hook that forces a kernel code path (cg__set_kernel_path). */
#include "core/cpu.h"

/* ---- the construction of docs/randomness.md, written out plainly */

static uint64_t ref_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t ref_step_key(uint64_t seed, uint32_t kind, uint32_t ordinal)
{
    uint64_t k = ref_mix64(seed + UINT64_C(0x9E3779B97F4A7C15));
    return ref_mix64(k ^ (((uint64_t)kind << 32) | ordinal));
}

static uint64_t ref_cell_hash(uint64_t key, uint64_t x, uint64_t y)
{
    uint64_t row = ref_mix64(key ^ (y * UINT64_C(0xD1B54A32D192ED03)));
    return ref_mix64(row + x * UINT64_C(0x9E3779B97F4A7C15));
}

/* Downscales cells (w x h, 1 = wall) by k: cell (x, y) is wall iff
 * (hash >> 32) * k^2 < walls << 32, outside cells counting as walls. */
static uint8_t *ref_downscale(const uint8_t *cells, int w, int h, int k, uint64_t seed,
                              uint32_t ordinal, int *ow, int *oh)
{
    *ow = (w + k - 1) / k;
    *oh = (h + k - 1) / k;
    uint8_t *out = tu_alloc_cells(*ow, *oh);
    uint64_t key = ref_step_key(seed, 2, ordinal);
    for (int y = 0; y < *oh; y++)
        for (int x = 0; x < *ow; x++) {
            uint64_t walls = 0;
            for (int j = 0; j < k; j++)
                for (int i = 0; i < k; i++) {
                    int bx = x * k + i, by = y * k + j;
                    walls += bx >= w || by >= h ? 1 : cells[(size_t)by * (size_t)w + (size_t)bx];
                }
            uint64_t hash = ref_cell_hash(key, (uint64_t)x, (uint64_t)y) >> 32;
            out[(size_t)y * (size_t)*ow + (size_t)x] = hash * (uint64_t)(k * k) < walls << 32;
        }
    return out;
}

/* Newton's square root: the tests link no libm. */
static double sqrt_approx(double v)
{
    double r = v > 1 ? v : 1;
    for (int i = 0; i < 80; i++)
        r = (r + v / r) / 2;
    return r;
}

static cg_grid *downscale_input(const cg_grid *in, int k, uint64_t seed)
{
    char text[32];
    snprintf(text, sizeof text, "downscale %d", k);
    return tu_run(text, seed, 0, 0, in);
}

/* ------------------------------------------------------------------ */

static void downscale_matches_the_documented_formula(void **state)
{
    (void)state;
    uint64_t rng = 5;
    static const int sizes[][2] = {{1, 1}, {2, 2}, {7, 3}, {64, 5}, {65, 9}, {130, 17},
                                   {3, 70}, {200, 1}, {127, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        for (int k = 1; k <= 16; k += k < 4 ? 1 : 5) {
            uint8_t *cells = tu_alloc_cells(w, h);
            tu_random_cells(cells, w, h, tu_unit(&rng), &rng);
            cg_grid *in = tu_grid_from_cells(cells, w, h);
            uint64_t seed = tu_next(&rng);
            cg_grid *out = downscale_input(in, k, seed);
            int ow, oh;
            uint8_t *want = ref_downscale(cells, w, h, k, seed, 0, &ow, &oh);
            char what[64];
            snprintf(what, sizeof what, "downscale %d of %dx%d", k, w, h);
            tu_assert_grid_equals(out, want, ow, oh, what);
            free(want);
            free(cells);
            cg_grid_free(in);
            cg_grid_free(out);
        }
    }
}

/* downscale 2 has a word-at-a-time path (mixed blocks hashed one by one)
 * and, on the AVX-512 paths, one that hashes every cell of a word and
 * decides by the hash's top two bits: each path the machine can run
 * against the documented formula, on the level preset's 160x100 and on
 * odd sizes, all densities, all wall and all floor. */
static void every_path_downscales_by_2_as_the_formula(void **state)
{
    (void)state;
    static const int sizes[][2] = {{160, 100}, {1, 1},   {3, 5},   {127, 9}, {128, 8},
                                   {129, 7},   {257, 3}, {64, 64}, {2, 130}};
    for (int path = 0; path < CG__PATH_COUNT; path++) {
        if (!cg__kernel_path_available(path))
            continue;
        assert_int_equal(cg__set_kernel_path(path), 0);
        uint64_t rng = 17 + (uint64_t)path;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int w = sizes[i][0], h = sizes[i][1];
            for (int d = 0; d < 4; d++) {
                uint8_t *cells = tu_alloc_cells(w, h);
                tu_random_cells(cells, w, h, d == 0 ? -1.0 : d == 1 ? 2.0 : tu_unit(&rng), &rng);
                cg_grid *in = tu_grid_from_cells(cells, w, h);
                uint64_t seed = tu_next(&rng);
                cg_grid *out = downscale_input(in, 2, seed);
                int ow, oh;
                uint8_t *want = ref_downscale(cells, w, h, 2, seed, 0, &ow, &oh);
                char what[96];
                snprintf(what, sizeof what, "path %s, downscale 2 of %dx%d",
                         cg__kernel_path_name(path), w, h);
                tu_assert_grid_equals(out, want, ow, oh, what);
                free(want);
                free(cells);
                cg_grid_free(in);
                cg_grid_free(out);
            }
        }
    }
    cg__set_kernel_path(CG__PATH_AUTO);
}

static void second_downscale_uses_its_own_ordinal(void **state)
{
    (void)state;
    uint64_t rng = 9;
    int w = 36, h = 20;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.5, &rng);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg_grid *out = tu_run("downscale 1\ndownscale 2", 77, 0, 0, in);
    int ow, oh;
    uint8_t *want = ref_downscale(cells, w, h, 2, 77, 1, &ow, &oh);
    tu_assert_grid_equals(out, want, ow, oh, "second downscale");
    free(want);
    free(cells);
    cg_grid_free(in);
    cg_grid_free(out);
}

static void output_has_the_requested_size(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {7, 3}, {1, 40}, {65, 2}, {80, 50}, {130, 17}};
    const char *texts[] = {"fill 45\ndownscale 2", "fill 45\ndownscale 3\nsmooth 1",
                           "fill 40\nrule 2 floor=5..8\ndownscale 2\nrule 1 floor=5..9\n"
                           "downscale 3",
                           "downscale 1"};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
            cg_grid *g = tu_run(texts[t], 3, sizes[s][0], sizes[s][1], NULL);
            assert_int_equal(cg_grid_width(g), sizes[s][0]);
            assert_int_equal(cg_grid_height(g), sizes[s][1]);
            cg_grid_free(g);
        }
    /* The default size is the result's too. */
    cg_grid *g = tu_run("size 30x11\nfill 45\ndownscale 4", 3, 0, 0, NULL);
    assert_int_equal(cg_grid_width(g), 30);
    assert_int_equal(cg_grid_height(g), 11);
    cg_grid_free(g);
}

static void steps_before_a_downscale_run_at_k_times_the_size(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{40, 25}, {33, 7}, {1, 1}, {70, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint32_t k = 2; k <= 4; k++) {
            uint32_t w = sizes[s][0], h = sizes[s][1];
            cg_grid *big = tu_run("fill 40\nrule 3 floor=5..8", 11, w * k, h * k, NULL);
            char text[64];
            snprintf(text, sizeof text, "downscale %u", k);
            cg_grid *two_runs = tu_run(text, 11, 0, 0, big);
            snprintf(text, sizeof text, "fill 40\nrule 3 floor=5..8\ndownscale %u", k);
            cg_grid *one_run = tu_run(text, 11, w, h, NULL);
            assert_true(tu_grids_equal(two_runs, one_run));
            cg_grid_free(big);
            cg_grid_free(two_runs);
            cg_grid_free(one_run);
        }
    /* Two downscales multiply: 2 * 3 = 6 times the size before both. */
    uint32_t sw = 0, sh = 0;
    cg_pipeline *p = tu_pipeline("fill 45\ndownscale 2\nsmooth 1\ndownscale 3");
    assert_int_equal(cg_pipeline_start_size(p, 80, 50, &sw, &sh), CG_OK);
    assert_int_equal(sw, 480);
    assert_int_equal(sh, 300);
    assert_int_equal(cg_pipeline_start_size(p, 0, 0, &sw, &sh), CG_OK);
    assert_int_equal(sw, 480);
    assert_int_equal(sh, 300);
    cg_pipeline_free(p);
}

static void uniform_blocks_are_kept(void **state)
{
    (void)state;
    uint64_t rng = 17;
    for (int k = 1; k <= 5; k++) {
        int ow = 23, oh = 9;
        uint8_t *small = tu_alloc_cells(ow, oh);
        tu_random_cells(small, ow, oh, 0.5, &rng);
        uint8_t *big = tu_alloc_cells(ow * k, oh * k);
        for (int y = 0; y < oh * k; y++)
            for (int x = 0; x < ow * k; x++)
                big[(size_t)y * (size_t)(ow * k) + (size_t)x] =
                    small[(size_t)(y / k) * (size_t)ow + (size_t)(x / k)];
        cg_grid *in = tu_grid_from_cells(big, ow * k, oh * k);
        for (uint64_t seed = 0; seed < 5; seed++) {
            cg_grid *out = downscale_input(in, k, seed);
            tu_assert_grid_equals(out, small, ow, oh, "uniform blocks");
            cg_grid_free(out);
        }
        cg_grid_free(in);
        free(big);
        free(small);
    }
}

/* The share of walls among the results of downscaling a map whose every
 * block has `walls` walls, over several seeds. */
static double wall_share(int k, int walls, int ow, int oh, int seeds)
{
    int w = ow * k, h = oh * k;
    uint8_t *cells = tu_alloc_cells(w, h);
    uint64_t rng = (uint64_t)(k * 100 + walls);
    /* Each block gets exactly `walls` walls at random places. */
    for (int by = 0; by < oh; by++)
        for (int bx = 0; bx < ow; bx++) {
            int order[256];
            for (int i = 0; i < k * k; i++)
                order[i] = i;
            for (int i = k * k - 1; i > 0; i--) {
                int j = tu_range(&rng, 0, i), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (int i = 0; i < k * k; i++) {
                int x = bx * k + order[i] % k, y = by * k + order[i] / k;
                cells[(size_t)y * (size_t)w + (size_t)x] = i < walls;
            }
        }
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    uint64_t wall = 0;
    for (int s = 0; s < seeds; s++) {
        cg_grid *out = downscale_input(in, k, (uint64_t)s * 1000 + 1);
        wall += (uint64_t)ow * (uint64_t)oh - cg_grid_floor_count(out);
        cg_grid_free(out);
    }
    cg_grid_free(in);
    free(cells);
    return (double)wall / ((double)ow * oh * seeds);
}

static void wall_share_of_a_block_is_the_wall_probability(void **state)
{
    (void)state;
    static const int cases[][2] = {{2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 4}, {3, 8}, {4, 5},
                                   {16, 100}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int k = cases[c][0], walls = cases[c][1];
        int ow = 64, oh = 40, seeds = 8; /* 20480 cells */
        double p = (double)walls / (k * k);
        double got = wall_share(k, walls, ow, oh, seeds);
        /* Five standard deviations of a binomial share. */
        double tol = 5 * sqrt_approx(p * (1 - p) / (ow * oh * seeds));
        if (got < p - tol || got > p + tol)
            fail_msg("k=%d, %d walls per block: wall share %.4f, want %.4f +- %.4f", k, walls,
                     got, p, tol);
    }
}

static void each_cell_depends_only_on_its_block_and_position(void **state)
{
    (void)state;
    uint64_t rng = 23;
    int k = 3, ow = 30, oh = 14, w = ow * k, h = oh * k;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.5, &rng);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg_grid *out = downscale_input(in, k, 99);
    /* Changing one block changes at most its own cell. */
    for (int trial = 0; trial < 20; trial++) {
        int bx = tu_range(&rng, 0, ow - 1), by = tu_range(&rng, 0, oh - 1);
        cg_grid *in2 = NULL;
        assert_int_equal(cg_grid_clone(&in2, in), CG_OK);
        for (int j = 0; j < k; j++)
            for (int i = 0; i < k; i++)
                cg_grid_set(in2, bx * k + i, by * k + j, tu_range(&rng, 0, 1) ? CG_WALL : CG_FLOOR);
        cg_grid *out2 = downscale_input(in2, k, 99);
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++)
                if (x != bx || y != by)
                    assert_int_equal(cg_grid_get(out, x, y), cg_grid_get(out2, x, y));
        cg_grid_free(in2);
        cg_grid_free(out2);
    }
    /* A crop of the input (whole blocks) downscales to the same crop. */
    int cw = 11, ch = 5;
    uint8_t *crop = tu_alloc_cells(cw * k, ch * k);
    for (int y = 0; y < ch * k; y++)
        for (int x = 0; x < cw * k; x++)
            crop[(size_t)y * (size_t)(cw * k) + (size_t)x] =
                cells[(size_t)y * (size_t)w + (size_t)x];
    cg_grid *cin = tu_grid_from_cells(crop, cw * k, ch * k);
    cg_grid *cout = downscale_input(cin, k, 99);
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++)
            assert_int_equal(cg_grid_get(cout, x, y), cg_grid_get(out, x, y));
    cg_grid_free(cin);
    cg_grid_free(cout);
    free(crop);
    cg_grid_free(in);
    cg_grid_free(out);
    free(cells);
}

static void downscale_is_deterministic_and_follows_the_seed(void **state)
{
    (void)state;
    cg_grid *a = tu_run("fill 50\ndownscale 2", 42, 80, 50, NULL);
    cg_grid *b = tu_run("fill 50\ndownscale 2", 42, 80, 50, NULL);
    cg_grid *c = tu_run("fill 50\ndownscale 2", 43, 80, 50, NULL);
    assert_true(tu_grids_equal(a, b));
    assert_false(tu_grids_equal(a, c));
    cg_grid_free(a);
    cg_grid_free(b);
    cg_grid_free(c);
    /* The downscale draw has its own key: with the same big grid, another
     * seed gives another result. */
    uint8_t half[16 * 16];
    for (int i = 0; i < 16 * 16; i++)
        half[i] = (uint8_t)((i + i / 16) & 1); /* a checkerboard: 2 walls per 2x2 block */
    cg_grid *in = tu_grid_from_cells(half, 16, 16);
    a = downscale_input(in, 2, 1);
    b = downscale_input(in, 2, 2);
    assert_false(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
    cg_grid_free(in);
}

static void partial_blocks_count_outside_cells_as_walls(void **state)
{
    (void)state;
    /* A 1x1 floor map downscaled by 2: one floor cell out of four, so the
     * result is wall three times in four. */
    const char *rows[] = {"."};
    cg_grid *in = tu_grid_from_rows(rows, 1);
    int walls = 0, n = 4000;
    for (int s = 0; s < n; s++) {
        cg_grid *out = downscale_input(in, 2, (uint64_t)s);
        assert_int_equal(cg_grid_width(out), 1);
        assert_int_equal(cg_grid_height(out), 1);
        walls += cg_grid_get(out, 0, 0) == CG_WALL;
        cg_grid_free(out);
    }
    cg_grid_free(in);
    assert_in_range(walls, 3000 - 150, 3000 + 150); /* 5.5 standard deviations */
}

static void markers_move_to_their_block(void **state)
{
    (void)state;
    /* Blocks of 2: the left block is all floor, the middle one all wall,
     * the right one all floor with two markers. */
    const char *rows[] = {"..##..", "..##.."};
    cg_grid *in = tu_grid_from_rows(rows, 2);
    assert_int_equal(cg_grid_set_marker(in, 1, 1, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(in, 5, 0, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_set_marker(in, 4, 1, CG_MARK_EXIT), CG_OK);
    cg_grid *out = downscale_input(in, 2, 1);
    const char *want[] = {".#."};
    tu_assert_grid_equals_rows(out, want, 1, "blocks");
    assert_int_equal(cg_grid_marker(out, 0, 0), CG_MARK_ENTRANCE);
    /* Two markers in one block: the first in (y, x) order wins. */
    assert_int_equal(cg_grid_marker(out, 2, 0), CG_MARK_POI);
    assert_int_equal(cg_grid_marker_count(out), 2);
    cg_grid_free(out);
    cg_grid_free(in);
    /* A marker whose block becomes wall is dropped. */
    const char *rows2[] = {"..", "#."};
    in = tu_grid_from_rows(rows2, 2);
    assert_int_equal(cg_grid_set_marker(in, 1, 1, CG_MARK_POI), CG_OK);
    for (uint64_t s = 0; s < 40; s++) {
        out = downscale_input(in, 2, s);
        assert_int_equal(cg_grid_marker_count(out), cg_grid_get(out, 0, 0) == CG_FLOOR ? 1 : 0);
        cg_grid_free(out);
    }
    cg_grid_free(in);
}

static void bad_factors_are_refused_with_their_column(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int column;
        const char *needle;
    } cases[] = {
        {"downscale", 1, "needs a factor"},
        {"downscale 0", 11, "1..16"},
        {"downscale 17", 11, "1..16"},
        {"downscale two", 11, "integer"},
        {"downscale 2 k=3", 13, "no option"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        tu_expect_parse_error(cases[i].text, cases[i].column, cases[i].needle);
}

static void a_start_size_over_the_limit_is_refused(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\ndownscale 16\ndownscale 16\ndownscale 16");
    uint32_t sw = 7, sh = 7;
    assert_int_equal(cg_pipeline_start_size(p, 300, 10, &sw, &sh), CG_EINVAL);
    assert_int_equal(sw, 7);
    assert_int_equal(cg_pipeline_start_size(p, 256, 1, &sw, &sh), CG_OK);
    assert_int_equal(sw, 1048576);
    assert_int_equal(sh, 4096);
    cg_grid *out = NULL;
    cg_diag diag = {0};
    assert_int_equal(tu_run_pipeline(p, 1, 300, 10, NULL, &out, &diag), CG_EINVAL);
    assert_null(out);
    if (!strstr(diag.message, "over the limit"))
        fail_msg("message: %s", diag.message);
    cg_pipeline_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(downscale_matches_the_documented_formula),
        cmocka_unit_test(every_path_downscales_by_2_as_the_formula),
        cmocka_unit_test(second_downscale_uses_its_own_ordinal),
        cmocka_unit_test(output_has_the_requested_size),
        cmocka_unit_test(steps_before_a_downscale_run_at_k_times_the_size),
        cmocka_unit_test(uniform_blocks_are_kept),
        cmocka_unit_test(wall_share_of_a_block_is_the_wall_probability),
        cmocka_unit_test(each_cell_depends_only_on_its_block_and_position),
        cmocka_unit_test(downscale_is_deterministic_and_follows_the_seed),
        cmocka_unit_test(partial_blocks_count_outside_cells_as_walls),
        cmocka_unit_test(markers_move_to_their_block),
        cmocka_unit_test(bad_factors_are_refused_with_their_column),
        cmocka_unit_test(a_start_size_over_the_limit_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
