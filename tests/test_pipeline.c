/* test_pipeline.c - cg_pipeline_run: the starting grid (input or all wall, the
 * default size), markers across steps, independence of input and output, and
 * chains of steps against the oracle. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "oracle.h"
#include "testutil.h"

static void assert_all_wall(const cg_grid *g, uint32_t w, uint32_t h)
{
    assert_int_equal(cg_grid_width(g), w);
    assert_int_equal(cg_grid_height(g), h);
    assert_int_equal(cg_grid_floor_count(g), 0);
}

static void run_without_input_starts_all_wall_at_the_given_size(void **state)
{
    (void)state;
    cg_grid *g = tu_run("", 1, 20, 10, NULL);
    assert_all_wall(g, 20, 10);
    cg_grid_free(g);
    g = tu_run("", 1, 1, 1, NULL);
    assert_all_wall(g, 1, 1);
    cg_grid_free(g);
    g = tu_run("", 1, 129, 3, NULL);
    assert_all_wall(g, 129, 3);
    cg_grid_free(g);
    /* Steps that keep walls walls: still all wall. */
    g = tu_run("smooth 3\ngenerations 2 r1=5 r2=-1\n", 1, 65, 9, NULL);
    assert_all_wall(g, 65, 9);
    cg_grid_free(g);
}

static void run_with_zero_size_uses_the_default_size(void **state)
{
    (void)state;
    cg_grid *g = tu_run("", 1, 0, 0, NULL);
    assert_all_wall(g, 80, 50);
    cg_grid_free(g);
    g = tu_run("fill 45", 1, 0, 0, NULL);
    assert_int_equal(cg_grid_width(g), 80);
    assert_int_equal(cg_grid_height(g), 50);
    cg_grid_free(g);
    g = tu_run("size 17x9\nfill 45\n", 1, 0, 0, NULL);
    assert_int_equal(cg_grid_width(g), 17);
    assert_int_equal(cg_grid_height(g), 9);
    cg_grid_free(g);
    /* An explicit size wins over the size line. */
    g = tu_run("size 17x9\nfill 45\n", 1, 30, 5, NULL);
    assert_int_equal(cg_grid_width(g), 30);
    assert_int_equal(cg_grid_height(g), 5);
    cg_grid_free(g);
}

/* `size min=`: runs below it are refused, naming the size that works, at it
 * and above they run; an input map is held to it too; the default size line
 * and the minimum are independent. */
static void runs_below_the_minimum_size_are_refused(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("size min=40x30\nfill 45\n");
    uint32_t mw, mh, dw, dh;
    cg_pipeline_min_size(p, &mw, &mh);
    cg_pipeline_default_size(p, &dw, &dh);
    assert_int_equal(mw, 40);
    assert_int_equal(mh, 30);
    assert_int_equal(dw, 80); /* min= alone keeps the default size */
    assert_int_equal(dh, 50);
    const uint32_t sizes[][3] = {{39, 30, 0}, {40, 29, 0}, {1, 1, 0}, {40, 30, 1}, {41, 300, 1},
                                 {0, 0, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        cg_grid *g = NULL;
        cg_diag d = {0};
        cg_status st = tu_run_pipeline(p, 7, sizes[i][0], sizes[i][1], NULL, &g, &d);
        uint64_t bytes = 0;
        cg_run_options o = {.width = sizes[i][0], .height = sizes[i][1]};
        cg_status mst = cg_pipeline_memory(p, &o, &bytes);
        if (sizes[i][2]) {
            assert_int_equal(st, CG_OK);
            assert_int_equal(mst, CG_OK);
            cg_grid_free(g);
        } else {
            assert_int_equal(st, CG_EINVAL);
            assert_int_equal(mst, CG_EINVAL);
            assert_null(g);
            assert_non_null(strstr(d.message, "use at least 40x30"));
            assert_int_equal(d.line, 1);
        }
    }
    cg_grid *small = NULL, *out = NULL;
    assert_int_equal(cg_grid_new(&small, 39, 40), CG_OK);
    cg_diag d = {0};
    assert_int_equal(tu_run_pipeline(p, 7, 0, 0, small, &out, &d), CG_EINVAL);
    cg_grid_free(small);
    cg_pipeline_free(p);

    p = tu_pipeline("size 60x40 min=20x10\nfill 45\n");
    cg_pipeline_min_size(p, &mw, &mh);
    cg_pipeline_default_size(p, &dw, &dh);
    assert_true(mw == 20 && mh == 10 && dw == 60 && dh == 40);
    cg_pipeline_free(p);
    p = tu_pipeline("fill 45\n");
    cg_pipeline_min_size(p, &mw, &mh);
    assert_true(mw == 1 && mh == 1);
    cg_pipeline_free(p);
    tu_expect_parse_error("size 30x20 min=40x10", 16, "below its own min");
    tu_expect_parse_error("size min=40", 10, "WIDTHxHEIGHT");
    tu_expect_parse_error("size min=40x0", 13, "height");
}

static void run_from_an_input_keeps_its_size(void **state)
{
    (void)state;
    uint64_t rng = 21;
    uint8_t *cells = tu_alloc_cells(33, 7);
    tu_random_cells(cells, 33, 7, 0.5, &rng);
    cg_grid *in = tu_grid_from_cells(cells, 33, 7);
    const char *texts[] = {"", "smooth 1", "size 100x100\nfill 45\n", "rule 2 floor=5..9"};
    for (size_t k = 0; k < 4; k++) {
        cg_grid *out = tu_run(texts[k], 1, 100, 100, in);
        assert_int_equal(cg_grid_width(out), 33);
        assert_int_equal(cg_grid_height(out), 7);
        cg_grid_free(out);
        out = tu_run(texts[k], 1, 0, 0, in);
        assert_int_equal(cg_grid_width(out), 33);
        assert_int_equal(cg_grid_height(out), 7);
        cg_grid_free(out);
    }
    cg_grid_free(in);
    free(cells);
}

static void empty_pipeline_copies_the_input_with_its_markers(void **state)
{
    (void)state;
    uint64_t rng = 22;
    int w = 70, h = 6;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.5, &rng);
    cells[1 * w + 1] = cells[2 * w + 64] = cells[3 * w + 69] = cells[5 * w + 0] = 0;
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    assert_int_equal(cg_grid_set_marker(in, 1, 1, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(in, 64, 2, CG_MARK_EXIT), CG_OK);
    assert_int_equal(cg_grid_set_marker(in, 69, 3, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_set_marker(in, 0, 5, CG_MARK_BLOCKED), CG_OK);
    cg_grid *out = tu_run("", 1, 0, 0, in);
    assert_ptr_not_equal(out, in);
    assert_true(tu_grids_equal(in, out));
    /* The output is a new grid: changing it leaves the input alone. */
    cg_grid_set(out, 1, 1, CG_WALL);
    assert_int_equal(cg_grid_get(in, 1, 1), CG_FLOOR);
    assert_int_equal(cg_grid_marker(in, 1, 1), CG_MARK_ENTRANCE);
    cg_grid_free(out);
    cg_grid_free(in);
    free(cells);
}

/* Runs `text` on a random map with random markers and checks that markers
 * survive exactly on the cells that were floor after every pass. passes[0..n-1]
 * are single passes that together do what text does; the prefixes of that
 * list are run on the same map to learn which cells were floor after each.
 * Returns the number of marked cells that are floor at the end but were wall
 * in between (so lost their marker). */
static int check_markers(const char *text, const char *const *passes, size_t n, int w, int h,
                         uint64_t seed)
{
    uint64_t rng = seed;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.45, &rng);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg_marker *marks = calloc((size_t)w * (size_t)h, sizeof *marks);
    uint8_t *survives = tu_alloc_cells(w, h);
    assert_non_null(marks);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            survives[i] = 1;
            if (!cells[i] && tu_unit(&rng) < 0.3) {
                marks[i] = (cg_marker)tu_range(&rng, 1, 4);
                assert_int_equal(cg_grid_set_marker(in, x, y, marks[i]), CG_OK);
            }
        }
    }
    char prefix[1024] = "";
    for (size_t k = 0; k < n; k++) {
        assert_true(strlen(prefix) + strlen(passes[k]) + 2 < sizeof prefix);
        strcat(prefix, passes[k]);
        strcat(prefix, "\n");
        cg_grid *g = tu_run(prefix, seed, 0, 0, in);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (cg_grid_get(g, x, y) == CG_WALL)
                    survives[(size_t)y * (size_t)w + (size_t)x] = 0;
        cg_grid_free(g);
    }
    cg_grid *out = tu_run(text, seed, 0, 0, in);
    int kept = 0, dropped = 0, lost_between = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            cg_marker want = survives[i] ? marks[i] : CG_MARK_NONE;
            if (cg_grid_marker(out, x, y) != want) {
                print_error("\"%s\": marker at (%d,%d) is %d, want %d (cell %s now, %s)\n",
                            text, x, y, (int)cg_grid_marker(out, x, y), (int)want,
                            cg_grid_get(out, x, y) == CG_FLOOR ? "floor" : "wall",
                            survives[i] ? "floor after every pass" : "wall after some pass");
                fail();
            }
            if (marks[i]) {
                *(survives[i] ? &kept : &dropped) += 1;
                lost_between += !survives[i] && cg_grid_get(out, x, y) == CG_FLOOR;
            }
        }
    }
    /* The map must exercise both cases for the test to mean anything. */
    assert_true(kept > 0);
    assert_true(dropped > 0);
    cg_grid_free(out);
    cg_grid_free(in);
    free(survives);
    free(marks);
    free(cells);
    return lost_between;
}

static void check_markers_after(const char *step, int w, int h, uint64_t seed)
{
    check_markers(step, &step, 1, w, h, seed);
}

static void markers_on_cells_that_become_wall_are_dropped(void **state)
{
    (void)state;
    check_markers_after("smooth 1", 67, 20, 31);
    check_markers_after("smooth 1 walls=4", 130, 17, 32);
    check_markers_after("rule 1 floor=5..8", 66, 20, 33);
    check_markers_after("generations 1 r1=5 r2=-1", 65, 30, 34);
    check_markers_after("generations 1 r1=5 r2=2 self=no", 64, 30, 35);
    /* A cell that is wall after one step and floor again after a later one
     * has lost its marker. */
    const char *text = "smooth 1\nrule 1 floor=4..9\ngenerations 1 r1=6 r2=-1\n";
    const char *chain[] = {"smooth 1", "rule 1 floor=4..9", "generations 1 r1=6 r2=-1"};
    assert_true(check_markers(text, chain, 3, 90, 25, 37) > 0);
}

/* The same within one step of several passes: a cell that is wall after
 * pass 1 and floor again after pass 3 has lost its marker. */
static void markers_dropped_by_any_pass_of_a_multi_pass_step(void **state)
{
    (void)state;
    /* The smallest case: a marked 1x1 floor map under rule floor=0..0. Pass
     * 1: its block has 1 floor cell (itself), not in 0..0 -> wall, marker
     * gone. Pass 2: 0 floor cells -> floor again, without the marker. Two
     * passes in one step or in two steps give the same map. */
    cg_grid *one = NULL;
    assert_int_equal(cg_grid_new(&one, 1, 1), CG_OK);
    cg_grid_set(one, 0, 0, CG_FLOOR);
    assert_int_equal(cg_grid_set_marker(one, 0, 0, CG_MARK_ENTRANCE), CG_OK);
    const char *texts[] = {"rule 1 floor=0..0\nrule 1 floor=0..0", "rule 2 floor=0..0"};
    for (size_t k = 0; k < 2; k++) {
        cg_grid *out = tu_run(texts[k], 1, 0, 0, one);
        assert_int_equal(cg_grid_get(out, 0, 0), CG_FLOOR);
        if (cg_grid_marker(out, 0, 0) != CG_MARK_NONE) {
            print_error("\"%s\" on a marked 1x1 floor map kept the marker\n", texts[k]);
            fail();
        }
        cg_grid_free(out);
    }
    cg_grid_free(one);

    static const struct {
        const char *text, *pass;
    } cases[] = {
        {"rule 3 floor=2..5", "rule 1 floor=2..5"},
        {"smooth 3 walls=3", "smooth 1 walls=3"},
        {"generations 3 r1=6 r2=8", "generations 1 r1=6 r2=8"},
    };
    int lost_between = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *passes[] = {cases[k].pass, cases[k].pass, cases[k].pass};
        lost_between += check_markers(cases[k].text, passes, 3, 97, 31, 40 + k);
    }
    assert_true(lost_between > 0);
}

/* The same rule for a fill over an input map: a marked floor cell that the
 * fill leaves floor keeps its marker. */
static void markers_on_cells_a_fill_leaves_floor_are_kept(void **state)
{
    (void)state;
    /* The smallest case: fill 0 leaves the centre of a 3x3 map floor. */
    const char *rows[] = {"###", "#.#", "###"};
    cg_grid *in = tu_grid_from_rows(rows, 3);
    assert_int_equal(cg_grid_set_marker(in, 1, 1, CG_MARK_ENTRANCE), CG_OK);
    cg_grid *out = tu_run("fill 0", 1, 0, 0, in);
    assert_int_equal(cg_grid_get(out, 1, 1), CG_FLOOR);
    if (cg_grid_marker(out, 1, 1) != CG_MARK_ENTRANCE) {
        print_error("\"fill 0\" dropped the marker of a cell it leaves floor\n");
        fail();
    }
    cg_grid_free(out);
    cg_grid_free(in);

    check_markers_after("fill 50", 129, 20, 36);
    const char *chain[] = {"fill 30", "smooth 1"};
    check_markers("fill 30\nsmooth 1\n", chain, 2, 70, 20, 38);
}

static void runs_without_fill_ignore_the_seed(void **state)
{
    (void)state;
    uint64_t rng = 23;
    uint8_t *cells = tu_alloc_cells(50, 20);
    tu_random_cells(cells, 50, 20, 0.5, &rng);
    cg_grid *in = tu_grid_from_cells(cells, 50, 20);
    const char *text = "smooth 2\ngenerations 3 r1=5 r2=1\nrule 1 floor=5..9\n";
    cg_grid *a = tu_run(text, 1, 0, 0, in);
    cg_grid *b = tu_run(text, UINT64_C(0xFFFFFFFFFFFFFFFF), 0, 0, in);
    assert_true(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
    cg_grid_free(in);
    free(cells);
}

/* Chains of steps, each step applied to the previous one's output. */
static void step_chains_match_the_oracle(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {2, 3}, {5, 5}, {63, 7}, {64, 9}, {65, 3},
                                   {127, 40}, {129, 33}, {200, 61}};
    const char *text = "smooth 2 walls=4\n"
                       "rule 3 floor=5..8\n"
                       "generations 2 r1=5 r2=1 self=no\n"
                       "smooth 1\n"
                       "generations 1 r1=4 r2=3\n";
    cg_pipeline *p = tu_pipeline(text);
    uint64_t rng = 24;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int rep = 0; rep < 4; rep++) {
            int w = sizes[s][0], h = sizes[s][1];
            uint8_t *cells = tu_alloc_cells(w, h);
            tu_random_cells(cells, w, h, 0.3 + 0.1 * rep, &rng);
            cg_grid *in = tu_grid_from_cells(cells, w, h), *out = NULL;
            cg_diag diag = {0};
            assert_int_equal(tu_run_pipeline(p, 5, 0, 0, in, &out, &diag), CG_OK);
            assert_int_equal(oracle_smooths(cells, w, h, 2, 4), 0);
            assert_int_equal(oracle_rules(cells, w, h, 3, 5, 8), 0);
            assert_int_equal(oracle_generations(cells, w, h, 2, 5, 1, 0), 0);
            assert_int_equal(oracle_smooths(cells, w, h, 1, 5), 0);
            assert_int_equal(oracle_generations(cells, w, h, 1, 4, 3, 1), 0);
            tu_assert_grid_equals(out, cells, w, h, "step chain");
            cg_grid_free(in);
            cg_grid_free(out);
            free(cells);
        }
    }
    cg_pipeline_free(p);
}

/* The level article's automaton: fill, 4 passes "floor if 5..8", 3 passes "floor if 5..9". */
static void fill_then_rules_match_fill_then_oracle(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{80, 50}, {160, 100}, {65, 33}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        for (uint64_t seed = 1; seed <= 3; seed++) {
            cg_grid *filled = tu_run("fill 45", seed, w, h, NULL);
            uint8_t *cells = tu_cells_from_grid(filled);
            oracle_rules(cells, (int)w, (int)h, 4, 5, 8);
            oracle_rules(cells, (int)w, (int)h, 3, 5, 9);
            oracle_smooths(cells, (int)w, (int)h, 2, 5);
            cg_grid *got = tu_run("fill 45\nrule 4 floor=5..8\nrule 3 floor=5..9\nsmooth 2\n",
                                  seed, w, h, NULL);
            tu_assert_grid_equals(got, cells, (int)w, (int)h, "fill + rule + smooth");
            cg_grid_free(got);
            cg_grid_free(filled);
            free(cells);
        }
    }
}

static void run_leaves_the_pipeline_reusable(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n");
    cg_grid *a = NULL, *b = NULL, *c = NULL;
    cg_diag diag = {0};
    assert_int_equal(tu_run_pipeline(p, 42, 0, 0, NULL, &a, &diag), CG_OK);
    assert_int_equal(tu_run_pipeline(p, 43, 0, 0, NULL, &b, &diag), CG_OK);
    assert_int_equal(tu_run_pipeline(p, 42, 0, 0, NULL, &c, &diag), CG_OK);
    assert_true(tu_grids_equal(a, c));
    assert_false(tu_grids_equal(a, b));
    assert_int_equal(cg_pipeline_step_count(p), 3);
    cg_grid_free(a);
    cg_grid_free(b);
    cg_grid_free(c);
    cg_pipeline_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_without_input_starts_all_wall_at_the_given_size),
        cmocka_unit_test(run_with_zero_size_uses_the_default_size),
        cmocka_unit_test(run_from_an_input_keeps_its_size),
        cmocka_unit_test(empty_pipeline_copies_the_input_with_its_markers),
        cmocka_unit_test(markers_on_cells_that_become_wall_are_dropped),
        cmocka_unit_test(markers_dropped_by_any_pass_of_a_multi_pass_step),
        cmocka_unit_test(markers_on_cells_a_fill_leaves_floor_are_kept),
        cmocka_unit_test(runs_without_fill_ignore_the_seed),
        cmocka_unit_test(step_chains_match_the_oracle),
        cmocka_unit_test(fill_then_rules_match_fill_then_oracle),
        cmocka_unit_test(run_leaves_the_pipeline_reusable),
        cmocka_unit_test(runs_below_the_minimum_size_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
