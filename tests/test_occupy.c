/* test_occupy.c - `occupy count=N [spacing=D]` (place/occupy.c,
 * docs/placement.md): occupied cells on the floor the entrance reaches, at
 * least D from every other marker, that never cut a route - checked over
 * many seeds and sizes against a plain flood fill of the free cells - and
 * drawn from a stream of their own. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

/* Labels of the 4-connected components of the cells where open[i] is set
 * (0 elsewhere, 1.. for components); returns their number. */
static uint32_t label(const uint8_t *open, int w, int h, uint32_t *lab)
{
    size_t n = (size_t)w * (size_t)h;
    uint32_t *queue = malloc(n * sizeof *queue);
    assert_non_null(queue);
    memset(lab, 0, n * sizeof *lab);
    uint32_t next = 0;
    for (size_t s = 0; s < n; s++) {
        if (!open[s] || lab[s])
            continue;
        lab[s] = ++next;
        size_t head = 0, tail = 0;
        queue[tail++] = (uint32_t)s;
        while (head < tail) {
            uint32_t i = queue[head++];
            int x = (int)(i % (uint32_t)w), y = (int)(i / (uint32_t)w);
            static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
            for (int k = 0; k < 4; k++) {
                int nx = x + dx[k], ny = y + dy[k];
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                size_t j = (size_t)ny * (size_t)w + (size_t)nx;
                if (open[j] && !lab[j]) {
                    lab[j] = next;
                    queue[tail++] = (uint32_t)j;
                }
            }
        }
    }
    free(queue);
    return next;
}

/* Checks a map made by `occupy`: count blocked cells, each at least spacing
 * from every other marker; the free cells (floor without a unit) of each
 * floor region still one component, so no route was cut; with an entrance,
 * every unit on a cell the entrance reached. */
static void check_occupied(const cg_grid *g, uint32_t count, uint32_t spacing, const char *what)
{
    int w = (int)cg_grid_width(g), h = (int)cg_grid_height(g);
    size_t n = (size_t)w * (size_t)h, nm = cg_grid_marker_count(g);
    uint8_t *floor = calloc(n, 1), *open = calloc(n, 1);
    uint32_t *shape = malloc(n * sizeof *shape), *walk = malloc(n * sizeof *walk);
    assert_true(floor && open && shape && walk);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            floor[i] = cg_grid_get(g, x, y) == CG_FLOOR;
            open[i] = floor[i] && cg_grid_marker(g, x, y) != CG_MARK_BLOCKED;
        }
    uint32_t regions = label(floor, w, h, shape);
    label(open, w, h, walk);
    /* Each region's free cells are one component. */
    uint32_t *seen = calloc((size_t)regions + 1, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < n; i++) {
        if (!open[i])
            continue;
        if (!seen[shape[i]])
            seen[shape[i]] = walk[i];
        else if (seen[shape[i]] != walk[i])
            fail_msg("%s: (%zu,%zu) was cut off its cave", what, i % (size_t)w, i / (size_t)w);
    }
    uint32_t blocked = 0, ex = 0, ey = 0;
    int have_entrance = 0;
    for (size_t i = 0; i < nm; i++) {
        uint32_t x, y;
        cg_marker k;
        assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
        if (k == CG_MARK_ENTRANCE) {
            have_entrance = 1;
            ex = x;
            ey = y;
        }
        if (k != CG_MARK_BLOCKED)
            continue;
        blocked++;
        assert_int_equal(cg_grid_marker_symbol(g, x, y), 'x');
        for (size_t j = 0; j < nm; j++) {
            uint32_t x2, y2;
            cg_marker k2;
            assert_int_equal(cg_grid_marker_at(g, j, &x2, &y2, &k2), CG_OK);
            int64_t dx = (int64_t)x - x2, dy = (int64_t)y - y2;
            if (j != i && dx * dx + dy * dy < (int64_t)spacing * spacing)
                fail_msg("%s: the unit at (%u,%u) is closer than %u to the marker at (%u,%u)", what,
                         x, y, spacing, x2, y2);
        }
    }
    assert_int_equal(blocked, count);
    if (have_entrance) {
        /* The entrance reached every unit's cell before it was taken: it is
         * in the entrance's cave (next to free cells of it, or to units that
         * are). */
        uint32_t mine = shape[(size_t)ey * (size_t)w + ex];
        for (size_t i = 0; i < nm; i++) {
            uint32_t x, y;
            cg_marker k;
            assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
            if (k == CG_MARK_BLOCKED && shape[(size_t)y * (size_t)w + x] != mine)
                fail_msg("%s: the unit at (%u,%u) is not on floor the entrance reaches", what, x,
                         y);
        }
    }
    free(seen);
    free(floor);
    free(open);
    free(shape);
    free(walk);
}

static void occupied_cells_never_cut_a_route(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{80, 50}, {81, 37},  {1, 40},  {40, 1},
                                        {65, 20}, {130, 40}, {7, 128}, {20, 20}};
    static const struct {
        uint32_t count, spacing;
    } counts[] = {{1, 0}, {12, 0}, {30, 2}, {6, 5}};
    static const char *const bodies[] = {
        "fill 45\nsmooth 3\nentrance\n",                   /* one cave, an entrance */
        "fill 40\nrule 4 floor=5..8\nrule 3 floor=5..9\n", /* several caves, no entrance */
        "fill 40\nrule 4 floor=5..8\nrule 3 floor=5..9\ndownscale 2\nentrance\nexit\n"
        "poi count=3 spacing=4\n"}; /* a level */
    char text[512], what[600];
    int made = 0;
    for (size_t b = 0; b < 3; b++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (uint64_t seed = 0; seed < 6; seed++) {
                    snprintf(text, sizeof text, "%soccupy count=%u spacing=%u", bodies[b],
                             counts[c].count, counts[c].spacing);
                    cg_pipeline *p = tu_pipeline(text);
                    cg_run_options opt = {.seed = seed,
                                          .width = sizes[s][0],
                                          .height = sizes[s][1],
                                          .max_attempts = 20};
                    cg_grid *g = NULL;
                    cg_diag diag = {0};
                    cg_status st = cg_pipeline_run(p, &opt, &g, NULL, &diag);
                    cg_pipeline_free(p);
                    if (st == CG_EFAIL) { /* thin maps: no room, or no floor at all */
                        assert_true(strstr(diag.message, "occupy count=") ||
                                    strstr(diag.message, "entrance: ") ||
                                    strstr(diag.message, "exit: ") ||
                                    strstr(diag.message, "poi count="));
                        continue;
                    }
                    assert_int_equal(st, CG_OK);
                    snprintf(what, sizeof what, "%ux%u seed %llu '%s'", sizes[s][0], sizes[s][1],
                             (unsigned long long)seed, text);
                    check_occupied(g, counts[c].count, counts[c].spacing, what);
                    /* Entrance, exit and points are still joined: a path. */
                    cg_stats st2;
                    assert_int_equal(cg_grid_stats(g, NULL, &st2, NULL), CG_OK);
                    if (b == 2)
                        assert_true(st2.path_length > 0);
                    made++;
                    cg_grid_free(g);
                }
    assert_true(made >= 400);
}

static void a_corridor_one_cell_wide_is_never_occupied(void **state)
{
    (void)state;
    /* Two rooms joined by a corridor: occupying any corridor cell would cut
     * the rooms apart, so the units go in the rooms. */
    cg_grid *in = NULL;
    cg_diag diag = {0};
    const char *rows = "##############\n"
                       "#....####....#\n"
                       "#....####....#\n"
                       "#...........<#\n"
                       "#....####....#\n"
                       "#....####....#\n"
                       "##############\n";
    assert_int_equal(cg_read_ascii(rows, strlen(rows), &in, &diag), CG_OK);
    int failed = 0;
    for (uint64_t seed = 0; seed < 200; seed++) {
        cg_pipeline *p = tu_pipeline("occupy count=12");
        cg_run_options opt = {.seed = seed, .input = in, .max_attempts = 1};
        cg_grid *g = NULL;
        cg_status st = cg_pipeline_run(p, &opt, &g, NULL, &diag);
        cg_pipeline_free(p);
        if (st == CG_EFAIL) { /* the shuffle walled itself in: some orders do */
            assert_non_null(strstr(diag.message, "occupy count=12 spacing=0: only "));
            failed++;
            continue;
        }
        assert_int_equal(st, CG_OK);
        for (int x = 5; x <= 8; x++)
            assert_int_not_equal(cg_grid_marker(g, x, 3), CG_MARK_BLOCKED);
        check_occupied(g, 12, 0, "rooms");
        cg_grid_free(g);
    }
    assert_true(failed < 20);
    cg_grid_free(in);
}

static void occupy_fails_when_too_few_fit_and_says_how_many(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\nsmooth 3\nentrance\noccupy count=40 spacing=30");
    cg_run_options opt = {.seed = 3, .width = 60, .height = 40, .max_attempts = 4};
    cg_grid *g = NULL;
    cg_run_info info;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_run(p, &opt, &g, &info, &diag), CG_EFAIL);
    assert_null(g);
    assert_non_null(strstr(diag.message, "occupy count=40 spacing=30: only "));
    assert_non_null(strstr(diag.message, "(best of 4 attempts)"));
    assert_int_equal(info.attempts, 4);
    cg_pipeline_free(p);
}

static void occupy_draws_from_its_own_stream(void **state)
{
    (void)state;
    /* Adding `occupy` changes no other step's draws: the level's markers
     * stay where they were, and the same seed gives the same units. */
    size_t len;
    const char *level = cg_preset_builtin("level", &len);
    char text[4096];
    assert_true(len + 64 < sizeof text);
    for (uint64_t seed = 1; seed <= 30; seed++) {
        memcpy(text, level, len);
        text[len] = '\0';
        cg_grid *a = tu_run(text, seed, 0, 0, NULL);
        strcat(text, "\noccupy count=10 spacing=3\n");
        cg_grid *b = tu_run(text, seed, 0, 0, NULL);
        cg_grid *c = tu_run(text, seed, 0, 0, NULL);
        size_t na = cg_grid_marker_count(a), nb = cg_grid_marker_count(b);
        assert_int_equal(nb, na + 10);
        size_t j = 0;
        for (size_t i = 0; i < nb; i++) {
            uint32_t x, y, x2, y2;
            cg_marker k, k2;
            assert_int_equal(cg_grid_marker_at(b, i, &x, &y, &k), CG_OK);
            assert_int_equal(cg_grid_marker_at(c, i, &x2, &y2, &k2), CG_OK);
            assert_true(x == x2 && y == y2 && k == k2);
            if (k == CG_MARK_BLOCKED)
                continue;
            assert_int_equal(cg_grid_marker_at(a, j++, &x2, &y2, &k2), CG_OK);
            assert_true(x == x2 && y == y2 && k == k2);
        }
        check_occupied(b, 10, 3, "level");
        cg_grid_free(a);
        cg_grid_free(b);
        cg_grid_free(c);
    }
}

static void a_unit_placed_by_occupy_can_be_a_reach_start(void **state)
{
    (void)state;
    cg_grid *g = tu_run("fill 45\nsmooth 3\nentrance\noccupy count=5 spacing=4", 9, 60, 40, NULL);
    size_t n = cg_grid_marker_count(g);
    int units = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        cg_marker k;
        assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
        if (k != CG_MARK_BLOCKED)
            continue;
        cg_point start = {x, y};
        cg_diag diag = {0};
        assert_int_equal(cg_grid_reach(g, &start, 1, CG_MOVES_UNLIMITED, &diag), CG_OK);
        assert_int_equal(cg_grid_distance(g, x, y), 0);
        /* It reaches the entrance's cave but no other unit. */
        assert_true(cg_grid_reached_count(g) > 1);
        for (size_t j = 0; j < n; j++) {
            uint32_t x2, y2;
            cg_marker k2;
            assert_int_equal(cg_grid_marker_at(g, j, &x2, &y2, &k2), CG_OK);
            if (k2 == CG_MARK_BLOCKED && j != i)
                assert_int_equal(cg_grid_distance(g, x2, y2), CG_UNREACHED);
            if (k2 == CG_MARK_ENTRANCE)
                assert_int_not_equal(cg_grid_distance(g, x2, y2), CG_UNREACHED);
        }
        units++;
    }
    assert_int_equal(units, 5);
    cg_grid_free(g);
}

static void occupy_arguments_are_checked_with_their_column(void **state)
{
    (void)state;
    tu_expect_parse_error("occupy", 1, "needs count=");
    tu_expect_parse_error("occupy count=0", 14, "1..100000");
    tu_expect_parse_error("occupy count=3 spacing=-1", 24, "spacing must be");
    tu_expect_parse_error("occupy count=3 gap=1", 16, "no option 'gap'");
    tu_expect_parse_error("occupy 3", 8, "unexpected '3'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(occupied_cells_never_cut_a_route),
        cmocka_unit_test(a_corridor_one_cell_wide_is_never_occupied),
        cmocka_unit_test(occupy_fails_when_too_few_fit_and_says_how_many),
        cmocka_unit_test(occupy_draws_from_its_own_stream),
        cmocka_unit_test(a_unit_placed_by_occupy_can_be_a_reach_start),
        cmocka_unit_test(occupy_arguments_are_checked_with_their_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
