/* test_fill.c - the `fill P` step: determinism, dependence on the seed, the
 * extremes 0 and 100, the wall fraction, the wall ring (and ring=no), and the crop property
 * (docs/determinism.md: a pure function of seed, step ordinal, x and y, so a small map is
 * the top-left corner of a bigger one). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"
/* The test-only hook that forces a kernel code path (cg__set_kernel_path). */
#include "core/cpu.h"
/* The words of a row, to check the bits past the width (cg__row). */
#include "core/grid.h"

static const uint64_t seeds[] = {
    0, 1, 2, 42, 7, 123456789, UINT64_C(0x8000000000000000), UINT64_C(0xFFFFFFFFFFFFFFFF),
    UINT64_C(0x00000000FFFFFFFF), UINT64_C(0xDEADBEEFCAFEBABE),
};
#define N_SEEDS (sizeof seeds / sizeof seeds[0])

static cg_grid *fill(const char *text, uint64_t seed, uint32_t w, uint32_t h)
{
    return tu_run(text, seed, w, h, NULL);
}

static int on_ring(uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
    return x == 0 || y == 0 || x == w - 1 || y == h - 1;
}

static void assert_wall_ring(const cg_grid *g)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            if (on_ring(x, y, w, h) && cg_grid_get(g, x, y) != CG_WALL) {
                print_error("%ux%u map: ring cell (%u,%u) is floor\n", w, h, x, y);
                fail();
            }
}

/* Walls among the cells off the outer ring. */
static uint64_t interior_walls(const cg_grid *g)
{
    uint64_t w = cg_grid_width(g), h = cg_grid_height(g);
    uint64_t ring = (w <= 2 || h <= 2) ? w * h : 2 * w + 2 * h - 4;
    return w * h - cg_grid_floor_count(g) - ring;
}

static uint64_t cells_differing(const cg_grid *a, const cg_grid *b)
{
    uint64_t n = 0;
    for (uint32_t y = 0; y < cg_grid_height(a); y++)
        for (uint32_t x = 0; x < cg_grid_width(a); x++)
            n += cg_grid_get(a, x, y) != cg_grid_get(b, x, y);
    return n;
}

static void same_seed_gives_the_same_fill(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SEEDS; i++) {
        cg_grid *a = fill("fill 45", seeds[i], 80, 50);
        cg_grid *b = fill("fill 45", seeds[i], 80, 50);
        assert_true(tu_grids_equal(a, b));
        cg_grid_free(a);
        cg_grid_free(b);
    }
    /* One pipeline, run twice. */
    cg_pipeline *p = tu_pipeline("fill 45.5");
    cg_grid *a = NULL, *b = NULL;
    cg_diag diag = {0};
    assert_int_equal(tu_run_pipeline(p, 9, 131, 37, NULL, &a, &diag), CG_OK);
    assert_int_equal(tu_run_pipeline(p, 9, 131, 37, NULL, &b, &diag), CG_OK);
    assert_true(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
    cg_pipeline_free(p);
}

static void different_seeds_give_different_fills(void **state)
{
    (void)state;
    /* On 200x100 two independent fills at 50% differ in about half the
     * interior cells; demand a quarter, for every pair of seeds. */
    cg_grid *g[N_SEEDS];
    for (size_t i = 0; i < N_SEEDS; i++)
        g[i] = fill("fill 50", seeds[i], 200, 100);
    for (size_t i = 0; i < N_SEEDS; i++) {
        for (size_t j = i + 1; j < N_SEEDS; j++) {
            uint64_t d = cells_differing(g[i], g[j]);
            if (d < 198 * 98 / 4) {
                print_error("seeds %llu and %llu: only %llu cells differ\n",
                            (unsigned long long)seeds[i], (unsigned long long)seeds[j],
                            (unsigned long long)d);
                fail();
            }
        }
    }
    for (size_t i = 0; i < N_SEEDS; i++)
        cg_grid_free(g[i]);
}

static void fill_zero_leaves_floor_inside_the_wall_ring(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {2, 2}, {3, 3}, {1, 9}, {9, 1}, {2, 7},
                                        {65, 3}, {64, 4}, {63, 5}, {129, 33}, {80, 50}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t w = sizes[i][0], h = sizes[i][1];
        cg_grid *g = fill("fill 0", 5, w, h);
        assert_int_equal(cg_grid_width(g), w);
        assert_int_equal(cg_grid_height(g), h);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                assert_int_equal(cg_grid_get(g, x, y), on_ring(x, y, w, h) ? CG_WALL : CG_FLOOR);
        cg_grid_free(g);
    }
}

static void fill_hundred_makes_every_cell_wall(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {3, 3}, {65, 3}, {129, 33}, {200, 130}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t s = 0; s < 3; s++) {
            cg_grid *g = fill("fill 100", seeds[s], sizes[i][0], sizes[i][1]);
            assert_int_equal(cg_grid_floor_count(g), 0);
            cg_grid_free(g);
        }
    }
}

static void fill_walls_the_outer_ring(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {2, 2}, {1, 5}, {5, 1}, {63, 7}, {64, 9},
                                        {65, 3}, {127, 40}, {129, 33}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t s = 0; s < N_SEEDS; s++) {
            cg_grid *g = fill("fill 30", seeds[s], sizes[i][0], sizes[i][1]);
            assert_wall_ring(g);
            cg_grid_free(g);
        }
    }
}

/* fill P ring=no: the outer ring is drawn like every other cell, so over
 * many maps some ring cells are floor, at about the fill's share; the
 * cells inside are those of the default fill, whose ring is all wall. */
static void fill_ring_no_draws_the_ring_at_random(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {1, 6}, {6, 1}, {2, 2}, {20, 12},
                                        {63, 7}, {65, 3}, {131, 41}};
    uint64_t ring_cells = 0, ring_floor = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t w = sizes[i][0], h = sizes[i][1];
        for (uint64_t seed = 1; seed <= 60; seed++) {
            cg_grid *walled = fill("fill 45", seed, w, h);
            cg_grid *open = fill("fill 45 ring=no", seed, w, h);
            cg_grid *same = fill("fill 45 ring=yes", seed, w, h);
            assert_wall_ring(walled);
            assert_true(tu_grids_equal(walled, same));
            for (uint32_t y = 0; y < h; y++) {
                for (uint32_t x = 0; x < w; x++) {
                    cg_cell c = cg_grid_get(open, x, y);
                    if (on_ring(x, y, w, h)) {
                        ring_cells++;
                        ring_floor += c == CG_FLOOR;
                    } else if (c != cg_grid_get(walled, x, y)) {
                        print_error("%ux%u seed %llu: inner cell (%u,%u) differs with ring=no\n",
                                    w, h, (unsigned long long)seed, x, y);
                        fail();
                    }
                }
            }
            cg_grid_free(walled);
            cg_grid_free(open);
            cg_grid_free(same);
        }
    }
    /* 55 % floor expected; thousands of ring cells make 45..65 % certain */
    double share = (double)ring_floor / (double)ring_cells;
    if (ring_cells < 10000 || share < 0.45 || share > 0.65) {
        print_error("ring=no: %llu of %llu ring cells floor\n", (unsigned long long)ring_floor,
                    (unsigned long long)ring_cells);
        fail();
    }
    /* ring=no at 0 % and 100 %: all floor, all wall */
    cg_grid *g = fill("fill 0 ring=no", 3, 65, 4);
    assert_int_equal(cg_grid_floor_count(g), 65 * 4);
    cg_grid_free(g);
    g = fill("fill 100 ring=no", 3, 65, 4);
    assert_int_equal(cg_grid_floor_count(g), 0);
    cg_grid_free(g);
}

static void fill_ring_takes_yes_or_no(void **state)
{
    (void)state;
    tu_expect_parse_error("fill 45 ring=maybe", 14, "ring must be yes or no, not 'maybe'");
    tu_expect_parse_error("fill 45 ring=", 14, "ring must be yes or no");
    tu_expect_parse_error("fill 45 ring=no ring=yes", 17, "ring");
    tu_expect_parse_error("fill ring=no", 1, "wall percentage");
}

static void check_fraction(const char *text, uint64_t seed, double lo, double hi)
{
    cg_grid *g = fill(text, seed, 1000, 1000);
    double frac = (double)interior_walls(g) / (998.0 * 998.0);
    if (frac < lo || frac > hi) {
        print_error("\"%s\" seed %llu: interior wall fraction %.5f, want %.4f..%.4f\n", text,
                    (unsigned long long)seed, frac, lo, hi);
        fail();
    }
    assert_wall_ring(g);
    cg_grid_free(g);
}

static void fill_wall_fraction_matches_the_percentage(void **state)
{
    (void)state;
    check_fraction("fill 45", 42, 0.44, 0.46);
    check_fraction("fill 45", 7, 0.44, 0.46);
    check_fraction("fill 10", 1, 0.09, 0.11);
    check_fraction("fill 90", 2, 0.89, 0.91);
}

static void fill_percentage_may_be_fractional(void **state)
{
    (void)state;
    /* 0.5% of 996004 cells is 4980 (sigma ~70): rounding the percentage to
     * 0 or 1 would land far outside 0.4%..0.6%. */
    check_fraction("fill 0.5", 3, 0.004, 0.006);
    check_fraction("fill 99.5", 4, 0.994, 0.996);
    check_fraction("fill 45.5", 5, 0.445, 0.465);
}

/* The interior of a small fill equals the same cells of a bigger fill. */
static void check_crop(const char *text, uint64_t seed, uint32_t sw, uint32_t sh, uint32_t bw,
                       uint32_t bh)
{
    cg_grid *small = fill(text, seed, sw, sh);
    cg_grid *big = fill(text, seed, bw, bh);
    for (uint32_t y = 1; y + 1 < sh; y++) {
        for (uint32_t x = 1; x + 1 < sw; x++) {
            if (cg_grid_get(small, x, y) != cg_grid_get(big, x, y)) {
                print_error("\"%s\" seed %llu: (%u,%u) differs between %ux%u and %ux%u\n", text,
                            (unsigned long long)seed, x, y, sw, sh, bw, bh);
                fail();
            }
        }
    }
    cg_grid_free(small);
    cg_grid_free(big);
}

static void small_fill_is_the_corner_of_a_bigger_fill(void **state)
{
    (void)state;
    for (size_t s = 0; s < N_SEEDS; s++) {
        check_crop("fill 45", seeds[s], 40, 20, 80, 50);
        check_crop("fill 45", seeds[s], 40, 20, 200, 130);
        check_crop("fill 45", seeds[s], 80, 50, 200, 130);
    }
}

static void fill_crop_holds_across_word_boundaries(void **state)
{
    (void)state;
    static const uint32_t widths[] = {3, 63, 64, 65, 66, 127, 128, 129, 130};
    for (size_t s = 0; s < 4; s++) {
        for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
            check_crop("fill 45.5", seeds[s], widths[i], 9, 200, 130);
            check_crop("fill 45.5", seeds[s], widths[i], 9, 131, 11);
        }
        check_crop("fill 50", seeds[s], 1, 1, 5, 5);
        check_crop("fill 50", seeds[s], 3, 3, 64, 64);
    }
}

/* Each cell is drawn on its own: at 50%, a cell agrees with the cell d
 * columns or rows away about half of the time (sigma ~0.0013 on 400x400).
 * A hash of x mod 64, or of the row alone, would agree far more often. */
static void fill_cells_do_not_repeat_across_words_or_rows(void **state)
{
    (void)state;
    static const int offsets[] = {1, 2, 31, 32, 63, 64, 65, 128, 192};
    cg_grid *g = fill("fill 50", 42, 402, 402);
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        int d = offsets[k];
        for (int vertical = 0; vertical <= 1; vertical++) {
            uint64_t same = 0, total = 0;
            for (int y = 1; y <= 400 - (vertical ? d : 0); y++) {
                for (int x = 1; x <= 400 - (vertical ? 0 : d); x++) {
                    same += cg_grid_get(g, x, y) ==
                            cg_grid_get(g, x + (vertical ? 0 : d), y + (vertical ? d : 0));
                    total++;
                }
            }
            double agree = (double)same / (double)total;
            if (agree < 0.49 || agree > 0.51) {
                print_error("cells %d %s apart agree %.4f of the time, want about 0.5\n", d,
                            vertical ? "rows" : "columns", agree);
                fail();
            }
        }
    }
    cg_grid_free(g);
}

static void fill_ignores_the_input_cells(void **state)
{
    (void)state;
    uint64_t rng = 11;
    int w = 131, h = 37;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.5, &rng);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg_grid *a = tu_run("fill 45", 42, 0, 0, in);
    cg_grid *b = fill("fill 45", 42, (uint32_t)w, (uint32_t)h);
    assert_true(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
    cg_grid_free(in);
    free(cells);
}

static void each_fill_step_draws_its_own_cells(void **state)
{
    (void)state;
    for (size_t s = 0; s < 4; s++) {
        /* A second fill is not a copy of the first. */
        cg_grid *one = fill("fill 50", seeds[s], 200, 100);
        cg_grid *two = fill("fill 50\nfill 50", seeds[s], 200, 100);
        assert_true(cells_differing(one, two) > 198 * 98 / 4);
        /* The ordinal counts fill steps only: other steps before the second
         * fill do not change it, nor does the first fill's percentage. */
        cg_grid *three = fill("fill 30\nsmooth 2\ngenerations 1 r1=5 r2=2\nfill 50", seeds[s],
                              200, 100);
        assert_true(tu_grids_equal(two, three));
        cg_grid_free(one);
        cg_grid_free(two);
        cg_grid_free(three);
    }
}

/* ------------------------------------------------------------ code paths */

/* docs/randomness.md, written out again here independently of src/core/rng.c:
 * the fill is pinned to this formula, whatever path computes it. */
static uint64_t doc_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t doc_fill_hash(uint64_t seed, uint32_t ordinal, uint64_t x, uint64_t y)
{
    uint64_t k = doc_mix64(seed + UINT64_C(0x9E3779B97F4A7C15));
    uint64_t key = doc_mix64(k ^ ((UINT64_C(1) << 32) | ordinal));
    uint64_t row = doc_mix64(key ^ (y * UINT64_C(0xD1B54A32D192ED03)));
    return doc_mix64(row + x * UINT64_C(0x9E3779B97F4A7C15));
}

static int doc_fill_wall(uint64_t seed, uint32_t ordinal, uint64_t ppb, uint64_t x, uint64_t y)
{
    return (doc_fill_hash(seed, ordinal, x, y) >> 32) < (ppb << 32) / 1000000000u;
}

/* Every path the machine can run (src/cells/automaton.c: scalar, vector, AVX2,
 * AVX-512) draws exactly the documented cells, on maps narrower and wider
 * than a word and than the 8-word vectors, at the extremes and in between. */
static void every_path_fills_the_documented_cells(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t ppb;
    } fills[] = {
        {"fill 0", 0},
        {"fill 0.5", 5000000},
        {"fill 45", 450000000},
        {"fill 45.5", 455000000},
        {"fill 99.9999999", 999999999},
        {"fill 100", 1000000000},
        /* Thresholds either side of 2^31, where the vector paths change how
         * they fold the hash's last step into the comparison. */
        {"fill 50", 500000000},
        {"fill 50.0000001", 500000001},
        {"fill 75", 750000000},
    };
    static const uint32_t sizes[][2] = {
        {1, 1},  {3, 2},   {63, 5},  {64, 3},  {65, 4},   {80, 50},  {131, 7},  {200, 3},
        {449, 3}, {513, 4}, {1000, 3}, {4161, 2}, {1, 50},  {2, 3},    {63, 50},  {64, 2},
        {65, 1},  {80, 1},  {80, 2},  {80, 3},  {127, 50}, {128, 3},  {129, 50}, {131, 2},
        {2, 1},   {127, 2}, {128, 50}, {129, 1},
    };
    int paths = 0;
    for (int path = 0; path < CG__PATH_COUNT; path++) {
        if (!cg__kernel_path_available(path))
            continue;
        assert_int_equal(cg__set_kernel_path(path), 0);
        paths++;
        for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                uint64_t seed = seeds[(f * 3 + i) % N_SEEDS];
                uint32_t w = sizes[i][0], h = sizes[i][1];
                /* ring=no: the ring's cells are drawn by the same formula */
                for (int ring = 1; ring >= 0; ring--) {
                    char text[64];
                    snprintf(text, sizeof text, "%s%s", fills[f].text, ring ? "" : " ring=no");
                    cg_grid *g = fill(text, seed, w, h);
                    for (uint32_t y = 0; y < h; y++) {
                        for (uint32_t x = 0; x < w; x++) {
                            int want = (ring && on_ring(x, y, w, h)) ||
                                       doc_fill_wall(seed, 0, fills[f].ppb, x, y);
                            if ((cg_grid_get(g, x, y) == CG_WALL) != want) {
                                print_error("path %s, \"%s\" seed %llu, %ux%u: cell (%u,%u) is "
                                            "%s\n",
                                            cg__kernel_path_name(path), text,
                                            (unsigned long long)seed, w, h, x, y,
                                            want ? "floor, want wall" : "wall, want floor");
                                fail();
                            }
                        }
                    }
                    /* The bits past the width stay wall in every row. */
                    for (uint32_t y = 0; y < h; y++)
                        if ((cg__row(g, y)[g->nw - 1] & cg__tail_mask(g)) != cg__tail_mask(g))
                            fail_msg("path %s, \"%s\", %ux%u: row %u's tail bits are not wall",
                                     cg__kernel_path_name(path), text, w, h, y);
                    cg_grid_free(g);
                }
            }
        }
    }
    assert_true(paths >= 1);
    cg__set_kernel_path(CG__PATH_AUTO);
}

/* The vector paths fold mix64's last step, z ^ (z >> 31), into the
 * comparison (cells/fill.c): the top half of the hash is z's top half with
 * its lowest bit flipped where bit 63 is set, which only matters when z's
 * top half sits right at the threshold - a chance of 2^-31 a cell, which
 * random maps never meet. So pick the threshold from a cell's hash: the one
 * value where a flip decides (the hash's top half + 1 if even, itself if
 * odd), when a fill in parts per billion has it; cells with bit 63 set and
 * clear, so thresholds above and below 2^31. Every path must draw exactly
 * the documented cells of that map. */
static void every_path_draws_cells_whose_hash_sits_at_the_threshold(void **state)
{
    (void)state;
    const uint32_t w = 200, h = 40;
    int found[2] = {0, 0}; /* cells with bit 63 clear, set */
    for (uint32_t y = 1; y < h - 1 && found[0] + found[1] < 8; y++) {
        for (uint32_t x = 1; x < w - 1 && found[0] + found[1] < 8; x++) {
            uint64_t seed = 77, ppb;
            uint64_t top = doc_fill_hash(seed, 0, x, y) >> 32;
            uint64_t target = top & 1 ? top : top + 1;
            ppb = (target * 1000000000u + (UINT64_C(1) << 32) - 1) >> 32;
            if (found[top >> 31] == 4 || ppb > 1000000000u || (ppb << 32) / 1000000000u != target)
                continue;
            found[top >> 31]++;
            char text[64];
            snprintf(text, sizeof text, "fill %llu.%07llu", (unsigned long long)(ppb / 10000000),
                     (unsigned long long)(ppb % 10000000));
            for (int path = 0; path < CG__PATH_COUNT; path++) {
                if (!cg__kernel_path_available(path))
                    continue;
                assert_int_equal(cg__set_kernel_path(path), 0);
                cg_grid *g = fill(text, seed, w, h);
                int want = doc_fill_wall(seed, 0, ppb, x, y);
                assert_int_equal(want, (top & 1) == 0); /* the case the flip decides */
                if ((cg_grid_get(g, x, y) == CG_WALL) != want)
                    fail_msg("path %s, \"%s\": cell (%u,%u) is %s", cg__kernel_path_name(path),
                             text, x, y, want ? "floor, want wall" : "wall, want floor");
                for (uint32_t yy = 0; yy < h; yy++)
                    for (uint32_t xx = 0; xx < w; xx++)
                        assert_int_equal(cg_grid_get(g, xx, yy) == CG_WALL,
                                         on_ring(xx, yy, w, h) ||
                                             doc_fill_wall(seed, 0, ppb, xx, yy));
                cg_grid_free(g);
            }
        }
    }
    cg__set_kernel_path(CG__PATH_AUTO);
    assert_int_equal(found[0], 4);
    assert_int_equal(found[1], 4);
}

static int path_teardown(void **state)
{
    (void)state;
    cg__set_kernel_path(CG__PATH_AUTO);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_gives_the_same_fill),
        cmocka_unit_test(different_seeds_give_different_fills),
        cmocka_unit_test(fill_zero_leaves_floor_inside_the_wall_ring),
        cmocka_unit_test(fill_hundred_makes_every_cell_wall),
        cmocka_unit_test(fill_walls_the_outer_ring),
        cmocka_unit_test(fill_ring_no_draws_the_ring_at_random),
        cmocka_unit_test(fill_ring_takes_yes_or_no),
        cmocka_unit_test(fill_wall_fraction_matches_the_percentage),
        cmocka_unit_test(fill_percentage_may_be_fractional),
        cmocka_unit_test(small_fill_is_the_corner_of_a_bigger_fill),
        cmocka_unit_test(fill_crop_holds_across_word_boundaries),
        cmocka_unit_test(fill_cells_do_not_repeat_across_words_or_rows),
        cmocka_unit_test(fill_ignores_the_input_cells),
        cmocka_unit_test(each_fill_step_draws_its_own_cells),
        cmocka_unit_test_teardown(every_path_draws_cells_whose_hash_sits_at_the_threshold,
                                  path_teardown),
        cmocka_unit_test_teardown(every_path_fills_the_documented_cells, path_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
