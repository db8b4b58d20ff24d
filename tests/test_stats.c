/* test_stats.c - cg_grid_stats (the figures behind `cavegen --stats`) and
 * the marker listing: a hand-computed map, then every figure against a plain
 * per-cell reference on random maps of many sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

/* ---- plain references over byte maps (1 = wall, outside = wall) */

static int floor_at(const uint8_t *c, int w, int h, int x, int y)
{
    return x >= 0 && y >= 0 && x < w && y < h && !c[(size_t)y * (size_t)w + (size_t)x];
}

static uint64_t ref_dead_ends(const uint8_t *c, int w, int h)
{
    uint64_t n = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (floor_at(c, w, h, x, y) &&
                floor_at(c, w, h, x - 1, y) + floor_at(c, w, h, x + 1, y) +
                        floor_at(c, w, h, x, y - 1) + floor_at(c, w, h, x, y + 1) ==
                    1)
                n++;
    return n;
}

/* Breadth-first distances from (x0, y0) over floor; -1 unreached. */
static int *ref_distances(const uint8_t *c, int w, int h, int x0, int y0)
{
    size_t n = (size_t)w * (size_t)h;
    int *dist = malloc(n * sizeof *dist);
    int *queue = malloc(n * sizeof *queue);
    assert_non_null(dist);
    assert_non_null(queue);
    for (size_t i = 0; i < n; i++)
        dist[i] = -1;
    size_t head = 0, tail = 0;
    if (floor_at(c, w, h, x0, y0)) {
        dist[(size_t)y0 * (size_t)w + (size_t)x0] = 0;
        queue[tail++] = y0 * w + x0;
    }
    while (head < tail) {
        int i = queue[head++], x = i % w, y = i / w;
        static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; k++) {
            int nx = x + dx[k], ny = y + dy[k];
            if (floor_at(c, w, h, nx, ny) && dist[ny * w + nx] < 0) {
                dist[ny * w + nx] = dist[i] + 1;
                queue[tail++] = ny * w + nx;
            }
        }
    }
    free(queue);
    return dist;
}

static void ref_regions(const uint8_t *c, int w, int h, uint64_t *count, uint64_t *largest)
{
    size_t n = (size_t)w * (size_t)h;
    uint8_t *seen = calloc(n, 1);
    assert_non_null(seen);
    *count = *largest = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (!floor_at(c, w, h, x, y) || seen[(size_t)y * (size_t)w + (size_t)x])
                continue;
            int *dist = ref_distances(c, w, h, x, y);
            uint64_t size = 0;
            for (size_t i = 0; i < n; i++)
                if (dist[i] >= 0) {
                    seen[i] = 1;
                    size++;
                }
            free(dist);
            (*count)++;
            if (size > *largest)
                *largest = size;
        }
    free(seen);
}

static cg_stats stats_of(const cg_grid *g)
{
    cg_stats s;
    memset(&s, 0xAB, sizeof s);
    assert_int_equal(cg_grid_stats(g, NULL, &s, NULL), CG_OK);
    return s;
}

/* ------------------------------------------------------------------ */

static void hand_computed_map_has_the_expected_figures(void **state)
{
    (void)state;
    const char *rows[] = {
        "#########",
        "#.......#",
        "#.#####.#",
        "#.#...#.#",
        "#########",
    };
    cg_grid *g = tu_grid_from_rows(rows, 5);
    cg_stats s = stats_of(g);
    assert_int_equal(s.width, 9);
    assert_int_equal(s.height, 5);
    assert_int_equal(s.floor, 14);
    assert_int_equal(s.regions, 2);         /* the loop and the island of 3 */
    assert_int_equal(s.largest_region, 11);
    assert_int_equal(s.dead_ends, 4);       /* (1,3), (7,3), (3,3), (5,3) */
    assert_int_equal(s.points, 0);
    assert_int_equal(s.path_length, -1);    /* no entrance, no exit */
    assert_int_equal(cg_grid_set_marker(g, 1, 1, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(stats_of(g).path_length, -1); /* no exit yet */
    assert_int_equal(cg_grid_set_marker(g, 7, 3, CG_MARK_EXIT), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 4, 3, CG_MARK_POI), CG_OK);
    s = stats_of(g);
    assert_int_equal(s.path_length, 8);
    assert_int_equal(s.points, 1);
    assert_int_equal(s.floor, 14); /* markers sit on floor */
    /* An exit the entrance cannot reach. */
    assert_int_equal(cg_grid_set_marker(g, 7, 3, CG_MARK_NONE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 3, 3, CG_MARK_EXIT), CG_OK);
    assert_int_equal(stats_of(g).path_length, -1);
    cg_grid_free(g);
    const char *one[] = {"#.#"};
    g = tu_grid_from_rows(one, 1);
    s = stats_of(g);
    assert_int_equal(s.dead_ends, 0); /* a lone cell has no floor neighbour */
    assert_int_equal(s.regions, 1);
    assert_int_equal(s.largest_region, 1);
    cg_grid_free(g);
}

static void an_all_wall_map_has_no_floor_figures(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 70, 3), CG_OK);
    cg_stats s = stats_of(g);
    assert_int_equal(s.floor, 0);
    assert_int_equal(s.regions, 0);
    assert_int_equal(s.largest_region, 0);
    assert_int_equal(s.dead_ends, 0);
    assert_int_equal(s.path_length, -1);
    cg_grid_free(g);
}

static void figures_match_the_reference_on_random_maps(void **state)
{
    (void)state;
    uint64_t rng = 31;
    static const int sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {2, 2},  {63, 5},
                                   {64, 9}, {65, 7}, {130, 13}, {17, 41}, {200, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int trial = 0; trial < 6; trial++) {
            int w = sizes[s][0], h = sizes[s][1];
            uint8_t *cells = tu_alloc_cells(w, h);
            tu_random_cells(cells, w, h, 0.25 + 0.1 * trial, &rng);
            cg_grid *g = tu_grid_from_cells(cells, w, h);
            /* Entrance and exit on two random floor cells, if there are two. */
            int fx[2] = {-1, -1}, fy[2] = {-1, -1};
            for (int k = 0; k < 2; k++)
                for (int tries = 0; tries < 200; tries++) {
                    int x = tu_range(&rng, 0, w - 1), y = tu_range(&rng, 0, h - 1);
                    if (floor_at(cells, w, h, x, y) && (k == 0 || x != fx[0] || y != fy[0])) {
                        fx[k] = x;
                        fy[k] = y;
                        break;
                    }
                }
            int64_t want_path = -1;
            if (fx[0] >= 0 && fx[1] >= 0) {
                assert_int_equal(cg_grid_set_marker(g, fx[0], fy[0], CG_MARK_ENTRANCE), CG_OK);
                assert_int_equal(cg_grid_set_marker(g, fx[1], fy[1], CG_MARK_EXIT), CG_OK);
                /* Blocked cells on 8 % of the other floor: the path walks
                 * around them (walls to it); the cave's figures count them as
                 * floor (docs/placement.md, "Blocked cells"). */
                uint8_t *walk = tu_alloc_cells(w, h);
                memcpy(walk, cells, (size_t)w * (size_t)h);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        if (floor_at(cells, w, h, x, y) &&
                            cg_grid_marker(g, x, y) == CG_MARK_NONE && tu_unit(&rng) < 0.08) {
                            assert_int_equal(cg_grid_set_marker(g, x, y, CG_MARK_BLOCKED), CG_OK);
                            walk[(size_t)y * (size_t)w + (size_t)x] = 1;
                        }
                int *dist = ref_distances(walk, w, h, fx[0], fy[0]);
                want_path = dist[fy[1] * w + fx[1]];
                free(dist);
                free(walk);
            }
            uint64_t regions, largest;
            ref_regions(cells, w, h, &regions, &largest);
            cg_stats st = stats_of(g);
            assert_int_equal(st.floor, cg_grid_floor_count(g));
            assert_int_equal(st.regions, regions);
            assert_int_equal(st.largest_region, largest);
            assert_int_equal(st.dead_ends, ref_dead_ends(cells, w, h));
            if (st.path_length != want_path)
                fail_msg("%dx%d: path %lld, want %lld", w, h, (long long)st.path_length,
                         (long long)want_path);
            cg_grid_free(g);
            free(cells);
        }
}

static void the_path_never_enters_a_blocked_cell(void **state)
{
    (void)state;
    /* Reach stops at the x, and so does the path: there is none. */
    cg_grid *g = NULL;
    cg_diag d = {0};
    assert_int_equal(cg_read_ascii("#<.x.>#\n", 8, &g, &d), CG_OK);
    assert_int_equal(cg_grid_marker(g, 3, 0), CG_MARK_BLOCKED);
    cg_stats s = stats_of(g);
    assert_int_equal(s.path_length, -1);
    assert_int_equal(s.floor, 5); /* the x is floor to the cave's figures */
    assert_int_equal(s.regions, 1);
    cg_grid_free(g);
    /* Around it: 6 steps instead of 4. */
    static const char rows[] = "#######\n#<.x.>#\n#.....#\n#######\n";
    assert_int_equal(cg_read_ascii(rows, sizeof rows - 1, &g, &d), CG_OK);
    assert_int_equal(stats_of(g).path_length, 6);
    assert_int_equal(cg_grid_set_marker(g, 3, 1, CG_MARK_NONE), CG_OK);
    assert_int_equal(stats_of(g).path_length, 4);
    cg_grid_free(g);
}

static void markers_are_listed_in_row_order(void **state)
{
    (void)state;
    const char *rows[] = {"....", "....", "...."};
    cg_grid *g = tu_grid_from_rows(rows, 3);
    assert_int_equal(cg_grid_marker_count(g), 0);
    assert_int_equal(cg_grid_set_marker(g, 3, 2, CG_MARK_EXIT), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 2, 0, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 0, 2, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 1, 1, CG_MARK_BLOCKED), CG_OK);
    static const struct {
        uint32_t x, y;
        cg_marker kind;
    } want[] = {{2, 0, CG_MARK_POI},
                {1, 1, CG_MARK_BLOCKED},
                {0, 2, CG_MARK_ENTRANCE},
                {3, 2, CG_MARK_EXIT}};
    assert_int_equal(cg_grid_marker_count(g), 4);
    for (size_t i = 0; i < 4; i++) {
        uint32_t x, y;
        cg_marker kind;
        assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &kind), CG_OK);
        assert_int_equal(x, want[i].x);
        assert_int_equal(y, want[i].y);
        assert_int_equal(kind, want[i].kind);
    }
    uint32_t x = 9, y = 9;
    cg_marker kind = CG_MARK_NONE;
    assert_int_equal(cg_grid_marker_at(g, 4, &x, &y, &kind), CG_EINVAL);
    assert_int_equal(x, 9);
    cg_grid_free(g);
}

/* The two game presets, judged by their figures over many seeds and sizes. */
static void classic_and_level_presets_make_one_cave(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{80, 50}, {61, 33}, {130, 70}};
    const char *names[] = {"classic", "level"};
    for (size_t n = 0; n < 2; n++) {
        size_t len = 0;
        const char *text = cg_preset_builtin(names[n], &len);
        assert_non_null(text);
        cg_pipeline *p = NULL;
        cg_diag diag = {0};
        assert_int_equal(cg_pipeline_new(&p), CG_OK);
        assert_int_equal(cg_pipeline_parse(p, text, len, &diag), CG_OK);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (uint64_t seed = 1; seed <= 15; seed++) {
                uint32_t w = sizes[s][0], h = sizes[s][1];
                cg_grid *g = NULL;
                cg_run_info info;
                cg_run_options opt = {.seed = seed, .width = w, .height = h};
                cg_status st = cg_pipeline_run(p, &opt, &g, &info, &diag);
                if (st != CG_OK)
                    fail_msg("%s %ux%u seed %llu: %s", names[n], w, h,
                             (unsigned long long)seed, diag.message);
                cg_stats f = stats_of(g);
                uint64_t cells = (uint64_t)w * h;
                /* One cave, neither a speck nor an empty hall. */
                assert_int_equal(f.regions, 1);
                assert_true(f.floor * 100 >= cells * 25 && f.floor * 100 <= cells * 80);
                if (n == 1) {
                    assert_true(f.floor * 100 >= cells * 30); /* its require */
                    assert_int_equal(f.points, (8 * cells + 2000) / 4000); /* for=80x50 */
                    assert_true(f.path_length > 0);
                    assert_true(info.attempts <= 20);
                } else {
                    assert_int_equal(info.attempts, 1);
                    assert_int_equal(f.path_length, -1);
                }
                cg_grid_free(g);
            }
        cg_pipeline_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_computed_map_has_the_expected_figures),
        cmocka_unit_test(an_all_wall_map_has_no_floor_figures),
        cmocka_unit_test(figures_match_the_reference_on_random_maps),
        cmocka_unit_test(the_path_never_enters_a_blocked_cell),
        cmocka_unit_test(markers_are_listed_in_row_order),
        cmocka_unit_test(classic_and_level_presets_make_one_cave),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
