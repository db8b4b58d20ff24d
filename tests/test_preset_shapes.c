/* test_preset_shapes.c - properties every built-in preset's maps have
 * (docs/presets.md, "Built-in presets"): a closed outer ring of wall over
 * many seeds and sizes, and walls no more ragged than type1's (the
 * single-cell teeth of bench/smoothness.py, docs/algorithms.md). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

/* Runs a built-in preset with up to `attempts` attempts (0: the default).
 * A refusal (a size the preset cannot make, or a requirement no attempt
 * met) returns NULL; any other failure fails. Few attempts refuse a size a
 * preset cannot fill quickly, and a map made in them is the map made with
 * more. */
static cg_grid *run_preset(const char *name, uint64_t seed, uint32_t w, uint32_t h,
                           uint32_t attempts)
{
    cg_pipeline *p = tu_builtin_pipeline(name);
    cg_diag diag = {0};
    cg_run_options o = {.seed = seed, .width = w, .height = h, .max_attempts = attempts};
    cg_grid *g = NULL;
    cg_status st = cg_pipeline_run(p, &o, &g, NULL, &diag);
    cg_pipeline_free(p);
    if (st == CG_EFAIL || st == CG_EINVAL) {
        assert_null(g);
        assert_true(diag.message[0] != '\0'); /* a refusal says why */
        return NULL;
    }
    if (st != CG_OK) {
        print_error("%s seed %llu %ux%u: %s: %s\n", name, (unsigned long long)seed, w, h,
                    cg_strerror(st), diag.message);
        fail();
    }
    return g;
}

/* The first floor cell on the outer ring, or -1 (x in *fx, y in *fy). */
static int ring_floor(const cg_grid *g, int64_t *fx, int64_t *fy)
{
    int64_t w = cg_grid_width(g), h = cg_grid_height(g);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            if (y != 0 && y != h - 1 && x != 0 && x != w - 1)
                continue;
            if (cg_grid_get(g, x, y) == CG_FLOOR) {
                *fx = x;
                *fy = y;
                return 0;
            }
        }
    return -1;
}

static void every_builtin_preset_has_a_wall_ring(void **state)
{
    (void)state;
    /* Small and odd sizes (the mazes take only odd ones; 24x16 is level's
     * smallest), the preset's own (0x0), widths that are not a multiple of
     * 64 and one past two words: 990 maps a preset at most. */
    static const uint32_t sizes[][2] = {{1, 7},   {3, 5},   {20, 12},  {21, 13},
                                        {24, 16}, {25, 17}, {48, 32},  {49, 33},
                                        {0, 0},   {131, 41}, {120, 80}};
    enum { SEEDS = 90 };
    for (size_t i = 0; i < cg_preset_count(); i++) {
        const char *name = cg_preset_name(i);
        int checked = 0, sizes_checked = 0;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int here = 0;
            for (uint64_t seed = 1; seed <= SEEDS; seed++) {
                cg_grid *g = run_preset(name, seed, sizes[s][0], sizes[s][1], 20);
                if (!g)
                    continue;
                int64_t x = 0, y = 0;
                if (ring_floor(g, &x, &y) == 0) {
                    print_error("%s seed %llu at %ux%u: floor on the outer ring at (%lld,%lld)\n",
                                name, (unsigned long long)seed, cg_grid_width(g), cg_grid_height(g),
                                (long long)x, (long long)y);
                    fail();
                }
                cg_grid_free(g);
                here++;
            }
            checked += here;
            sizes_checked += here > 0;
        }
        /* Not a test that passes by refusing everything: every preset makes
         * maps at three sizes or more (the mazes' odd ones). */
        print_message("%-13s %d maps at %d sizes\n", name, checked, sizes_checked);
        if (sizes_checked < 3 || checked < 200) {
            print_error("%s: only %d maps at %d sizes checked\n", name, checked, sizes_checked);
            fail();
        }
    }
}

/* Single-cell teeth (a cell that differs from 3 or 4 of its side
 * neighbours, outside the map being wall) and the edges of the wall/floor
 * boundary (side-neighbour pairs, one wall and one floor), as
 * bench/smoothness.py counts them. */
static void count_teeth(const cg_grid *g, long *teeth, long *edges)
{
    int64_t w = cg_grid_width(g), h = cg_grid_height(g);
    static const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            cg_cell v = cg_grid_get(g, x, y);
            int differ = 0;
            for (int k = 0; k < 4; k++)
                differ += cg_grid_get(g, x + d[k][0], y + d[k][1]) != v;
            *teeth += differ >= 3;
            /* each edge once: right and down, and the left and top edges
             * that face outside */
            *edges += (cg_grid_get(g, x + 1, y) != v) + (cg_grid_get(g, x, y + 1) != v);
            *edges += (x == 0 && v == CG_FLOOR) + (y == 0 && v == CG_FLOOR);
        }
}

static double teeth_per_100_edges(const char *name, uint32_t w, uint32_t h, int seeds)
{
    long teeth = 0, edges = 0;
    for (uint64_t seed = 1; seed <= (uint64_t)seeds; seed++) {
        cg_grid *g = run_preset(name, seed, w, h, 0);
        assert_non_null(g);
        count_teeth(g, &teeth, &edges);
        cg_grid_free(g);
    }
    assert_true(edges > 0);
    return 100.0 * (double)teeth / (double)edges;
}

/* The teeth a map must not have: here is how each is counted. */
static void teeth_are_spikes_notches_and_lone_cells(void **state)
{
    (void)state;
    static const char *const smooth[] = {"######", "#....#", "#....#", "######"};
    static const char *const ragged[] = {"#######", "#..#..#", "#.....#", "###.###", "#######"};
    cg_grid *a = tu_grid_from_rows(smooth, 4), *b = tu_grid_from_rows(ragged, 5);
    long ta = 0, ea = 0, tb = 0, eb = 0;
    count_teeth(a, &ta, &ea);
    count_teeth(b, &tb, &eb);
    assert_int_equal(ta, 0);
    assert_int_equal(ea, 12); /* the 4x2 room's outline */
    /* the spike at (3,1) and the notch at (3,3): each a tooth, each adding
     * two edges to the 5x2 room's 14 */
    assert_int_equal(tb, 2);
    assert_int_equal(eb, 18);
    cg_grid_free(a);
    cg_grid_free(b);
}

static void classic_and_level_walls_are_as_smooth_as_type1(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{0, 0}, {120, 80}};
    for (size_t s = 0; s < 2; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        double type1 = teeth_per_100_edges("type1", w, h, 40);
        static const char *const names[] = {"classic", "level"};
        for (size_t i = 0; i < 2; i++) {
            double t = teeth_per_100_edges(names[i], w, h, 40);
            if (t > type1) {
                print_error("%s at %ux%u: %.2f teeth per 100 edges of wall, type1 %.2f\n", names[i],
                            w, h, t, type1);
                fail();
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_builtin_preset_has_a_wall_ring),
        cmocka_unit_test(teeth_are_spikes_notches_and_lone_cells),
        cmocka_unit_test(classic_and_level_walls_are_as_smooth_as_type1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
