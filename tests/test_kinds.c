/* test_kinds.c - named kinds of points of interest (docs/placement.md,
 * "Kinds of points"): `poi kind=NAME [symbol=L]`, spacing across kinds, the
 * letters in ASCII and back through the reader, the names in JSON and the
 * library calls cg_grid_marker_symbol, cg_grid_point_kind_name and
 * cg_grid_set_point; the letters survive a clone and a downscale. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

static cg_grid *read_map(const char *text)
{
    cg_grid *g = NULL;
    cg_diag d = {0};
    assert_int_equal(cg_read_ascii(text, strlen(text), &g, &d), CG_OK);
    return g;
}

static char *json_of(const cg_grid *g)
{
    tu_buf b = {0};
    cg_write_options opt = {.format = CG_FORMAT_JSON};
    cg_diag d = {0};
    assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &d), CG_OK);
    tu_buf_printf(&b, "%s", "");
    return b.data;
}

/* The level with three more lines: chests, monsters (M, their first
 * letter) and keys on Q. */
static const char kinds_tail[] = "\npoi kind=chest count=4 spacing=8\n"
                                 "poi kind=monster count=5 spacing=6\n"
                                 "poi kind=key count=2 spacing=5 symbol=Q\n";

static void each_kind_has_its_count_letter_and_spacing(void **state)
{
    (void)state;
    size_t len;
    const char *level = cg_preset_builtin("level", &len);
    char text[4096];
    assert_true(len + sizeof kinds_tail < sizeof text);
    memcpy(text, level, len);
    memcpy(text + len, kinds_tail, sizeof kinds_tail);
    /* Steps in order of placement and the spacing each one kept from the
     * markers before it: the level's own points (spacing 10), then ours. */
    static const struct {
        char sym;
        const char *name;
        uint32_t count, spacing;
    } steps[] = {
        {'*', NULL, 8, 10}, {'C', "chest", 4, 8}, {'M', "monster", 5, 6}, {'Q', "key", 2, 5}};
    static const uint32_t sizes[][2] = {{80, 50}, {120, 80}, {97, 61}};
    int made = 0;
    for (size_t s = 0; s < 3; s++)
        for (uint64_t seed = 1; seed <= 40; seed++) {
            cg_pipeline *p = tu_pipeline(text);
            cg_run_options opt = {
                .seed = seed, .width = sizes[s][0], .height = sizes[s][1], .max_attempts = 300};
            cg_grid *g = NULL;
            cg_diag diag = {0};
            cg_status st = cg_pipeline_run(p, &opt, &g, NULL, &diag);
            cg_pipeline_free(p);
            if (st == CG_EFAIL)
                continue;
            assert_int_equal(st, CG_OK);
            made++;
            size_t n = cg_grid_marker_count(g);
            uint32_t got[4] = {0};
            for (size_t i = 0; i < n; i++) {
                uint32_t x, y;
                cg_marker k;
                assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
                char sym = cg_grid_marker_symbol(g, x, y);
                if (k != CG_MARK_POI) {
                    assert_int_equal(sym, k == CG_MARK_ENTRANCE ? '<'
                                          : k == CG_MARK_EXIT   ? '>'
                                                                : 'x');
                    continue;
                }
                size_t step = 0;
                while (step < 4 && steps[step].sym != sym)
                    step++;
                assert_true(step < 4);
                got[step]++;
                /* At least its step's spacing from the entrance, the exit
                 * and every point of an earlier or the same step. */
                for (size_t j = 0; j < n; j++) {
                    uint32_t x2, y2;
                    cg_marker k2;
                    assert_int_equal(cg_grid_marker_at(g, j, &x2, &y2, &k2), CG_OK);
                    if (j == i || k2 == CG_MARK_BLOCKED)
                        continue;
                    size_t step2 = 0;
                    char sym2 = cg_grid_marker_symbol(g, x2, y2);
                    while (k2 == CG_MARK_POI && steps[step2].sym != sym2)
                        step2++;
                    if (k2 == CG_MARK_POI && step2 > step)
                        continue; /* the later one answers for the pair */
                    int64_t dx = (int64_t)x - x2, dy = (int64_t)y - y2;
                    if (dx * dx + dy * dy < (int64_t)steps[step].spacing * steps[step].spacing)
                        fail_msg("%ux%u seed %llu: %c at (%u,%u) closer than %u to %c at (%u,%u)",
                                 sizes[s][0], sizes[s][1], (unsigned long long)seed, sym, x, y,
                                 steps[step].spacing, sym2, x2, y2);
                }
            }
            for (size_t k = 0; k < 4; k++) {
                /* The level's own points are an 80x50 map's 8 (for=80x50):
                 * on this map 8 * its area / 4000, rounded. */
                uint64_t area = (uint64_t)sizes[s][0] * sizes[s][1];
                uint32_t want = k ? steps[k].count : (uint32_t)((8 * area + 2000) / 4000);
                if (got[k] != want)
                    fail_msg("%ux%u seed %llu step %zu: %u points, want %u", sizes[s][0],
                             sizes[s][1], (unsigned long long)seed, k, got[k], want);
                if (steps[k].name)
                    assert_string_equal(cg_grid_point_kind_name(g, steps[k].sym), steps[k].name);
            }
            assert_null(cg_grid_point_kind_name(g, '*'));
            cg_stats fig;
            assert_int_equal(cg_grid_stats(g, NULL, &fig, NULL), CG_OK);
            assert_int_equal(fig.points, n - 2); /* every point of every kind: all but < and > */
            cg_grid_free(g);
        }
    assert_true(made >= 100);
}

static void plain_points_stay_stars_and_the_level_is_unchanged(void **state)
{
    (void)state;
    /* A kind placed after the level's points changes none of them: the
     * stream of a poi step is keyed by its ordinal among poi steps. */
    size_t len;
    const char *level = cg_preset_builtin("level", &len);
    char text[4096];
    memcpy(text, level, len);
    memcpy(text + len, kinds_tail, sizeof kinds_tail);
    for (uint64_t seed = 1; seed <= 10; seed++) {
        cg_grid *a = tu_run(level, seed, 0, 0, NULL);
        cg_grid *b = tu_run(text, seed, 0, 0, NULL);
        char *sa = tu_ascii(a), *sb = tu_ascii(b);
        assert_int_equal(strlen(sa), strlen(sb));
        for (size_t i = 0; sa[i]; i++)
            if (sa[i] != sb[i]) /* only floor became a letter */
                assert_true(sa[i] == '.' && strchr("CMQ", sb[i]));
        assert_null(strpbrk(sa, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"));
        free(sa);
        free(sb);
        cg_grid_free(a);
        cg_grid_free(b);
    }
}

static void letters_are_written_and_read_back_as_unnamed_kinds(void **state)
{
    (void)state;
    cg_grid *g = tu_run("fill 45\nsmooth 3\nentrance\npoi kind=chest count=3\n"
                        "poi kind=bat count=2 symbol=V\npoi count=2",
                        5, 40, 25, NULL);
    char *text = tu_ascii(g);
    cg_grid *back = read_map(text);
    char *again = tu_ascii(back);
    assert_string_equal(text, again); /* the same letters, where they were */
    size_t letters = 0;
    for (size_t i = 0; text[i]; i++)
        letters += text[i] == 'C' || text[i] == 'V';
    assert_int_equal(letters, 5);
    /* The reader knows the letters, not the names: a kind is its letter. */
    assert_string_equal(cg_grid_point_kind_name(g, 'C'), "chest");
    assert_string_equal(cg_grid_point_kind_name(back, 'C'), "C");
    assert_string_equal(cg_grid_point_kind_name(back, 'V'), "V");
    assert_string_equal(cg_grid_point_kind_name(back, 'A'), "A");
    assert_null(cg_grid_point_kind_name(back, 'x'));
    assert_null(cg_grid_point_kind_name(back, 'a'));
    char *json = json_of(g), *json_back = json_of(back);
    assert_non_null(strstr(json, "\"kind\": \"chest\", \"symbol\": \"C\"}"));
    assert_non_null(strstr(json, "\"kind\": \"bat\", \"symbol\": \"V\"}"));
    assert_non_null(strstr(json_back, "\"kind\": \"C\", \"symbol\": \"C\"}"));
    /* A step may name a letter read back unnamed; then it has that name. */
    cg_grid *named = tu_run("poi kind=crate count=1 symbol=C", 1, 0, 0, back);
    assert_string_equal(cg_grid_point_kind_name(named, 'C'), "crate");
    free(json);
    free(json_back);
    free(text);
    free(again);
    cg_grid_free(named);
    cg_grid_free(back);
    cg_grid_free(g);
}

static void a_letter_names_one_kind_per_map(void **state)
{
    (void)state;
    /* chest and coin both start with C: the second needs its own symbol=. */
    cg_pipeline *p =
        tu_pipeline("fill 45\nsmooth 3\npoi kind=chest count=2\npoi kind=coin count=2");
    cg_run_options opt = {.seed = 1, .width = 40, .height = 30};
    cg_grid *g = NULL;
    cg_run_info info;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_run(p, &opt, &g, &info, &diag), CG_EINVAL);
    assert_null(g);
    assert_int_equal(diag.line, 4);
    assert_non_null(strstr(diag.message, "poi kind=coin: the letter C is kind chest's"));
    assert_int_equal(info.attempts, 1); /* no attempt can mend it */
    cg_pipeline_free(p);
    /* The same kind twice, or with symbol=, is fine. */
    g = tu_run("fill 45\nsmooth 3\npoi kind=chest count=2\npoi kind=chest count=1\n"
               "poi kind=coin count=2 symbol=O",
               1, 40, 30, NULL);
    char *text = tu_ascii(g);
    size_t c = 0, o = 0;
    for (size_t i = 0; text[i]; i++) {
        c += text[i] == 'C';
        o += text[i] == 'O';
    }
    assert_int_equal(c, 3);
    assert_int_equal(o, 2);
    free(text);
    cg_grid_free(g);
}

static void the_library_sets_and_reads_kinds(void **state)
{
    (void)state;
    cg_grid *g = read_map("#####\n#...#\n#.<.#\n#####\n");
    assert_int_equal(cg_grid_marker_symbol(g, 2, 2), '<');
    assert_int_equal(cg_grid_marker_symbol(g, 1, 1), 0);
    assert_int_equal(cg_grid_marker_symbol(g, -1, 1), 0);
    assert_int_equal(cg_grid_set_point(g, 1, 1, 'G', "gem"), CG_OK);
    assert_int_equal(cg_grid_marker(g, 1, 1), CG_MARK_POI);
    assert_int_equal(cg_grid_marker_symbol(g, 1, 1), 'G');
    assert_string_equal(cg_grid_point_kind_name(g, 'G'), "gem");
    assert_int_equal(cg_grid_set_point(g, 2, 1, 'G', NULL), CG_OK); /* keeps the name */
    assert_int_equal(cg_grid_set_point(g, 3, 1, '*', NULL), CG_OK);
    assert_int_equal(cg_grid_marker_symbol(g, 3, 1), '*');
    /* Refused: a wall, off the map, other symbols, bad or taken names. */
    assert_int_equal(cg_grid_set_point(g, 0, 0, 'G', NULL), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 9, 1, 'G', NULL), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'g', NULL), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'x', NULL), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, '*', "gem"), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'G', "ruby"), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'E', "exit"), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'E', "9lives"), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'E', "a b"), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'E', ""), CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'E', "abcdefghijklmnopqrstuvwxyz0123456"),
                     CG_EINVAL);
    assert_int_equal(cg_grid_set_point(g, 3, 2, 'E', "abcdefghijklmnopqrstuvwxyz012345"), CG_OK);
    assert_int_equal(cg_grid_marker_symbol(g, 3, 2), 'E');
    /* A clone keeps letters and names; setting the marker again makes a
     * plain point; a wall drops it. */
    cg_grid *c = NULL;
    assert_int_equal(cg_grid_clone(&c, g), CG_OK);
    assert_int_equal(cg_grid_marker_symbol(c, 2, 1), 'G');
    assert_string_equal(cg_grid_point_kind_name(c, 'G'), "gem");
    assert_int_equal(cg_grid_set_marker(c, 2, 1, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_marker_symbol(c, 2, 1), '*');
    cg_grid_set(c, 1, 1, CG_WALL);
    assert_int_equal(cg_grid_marker_symbol(c, 1, 1), 0);
    cg_grid_free(c);
    cg_grid_free(g);
}

static void a_downscale_keeps_the_letters_and_names(void **state)
{
    (void)state;
    /* Points placed at twice the size follow their 2x2 block; 3 apart, no
     * two share one, and an all-floor map keeps every block floor. */
    cg_grid *in = NULL;
    assert_int_equal(cg_grid_new(&in, 30, 20), CG_OK);
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 30; x++)
            cg_grid_set(in, x, y, CG_FLOOR);
    cg_grid *g =
        tu_run("poi kind=torch count=6 spacing=3\npoi count=2 spacing=3\ndownscale 2", 4, 0, 0, in);
    cg_grid_free(in);
    char *text = tu_ascii(g);
    size_t t = 0, stars = 0;
    for (size_t i = 0; text[i]; i++) {
        t += text[i] == 'T';
        stars += text[i] == '*';
    }
    assert_int_equal(t + stars, 8);
    assert_int_equal(t, 6);
    assert_string_equal(cg_grid_point_kind_name(g, 'T'), "torch");
    free(text);
    cg_grid_free(g);
}

static void kind_arguments_are_checked_with_their_column(void **state)
{
    (void)state;
    tu_expect_parse_error("poi count=1 kind=9lives", 18, "a kind is 1..32 letters");
    tu_expect_parse_error("poi count=1 kind=exit", 18, "not entrance, exit, poi or blocked");
    tu_expect_parse_error("poi count=1 kind=a.b", 18, "not 'a.b'");
    tu_expect_parse_error("poi count=1 symbol=C", 20, "give kind=");
    tu_expect_parse_error("poi count=1 kind=chest symbol=c", 31, "one capital letter A..Z");
    tu_expect_parse_error("poi count=1 kind=chest symbol=CC", 31, "not 'CC'");
    tu_expect_parse_error("poi count=1 kind=chest symbol=*", 31, "one capital letter");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_kind_has_its_count_letter_and_spacing),
        cmocka_unit_test(plain_points_stay_stars_and_the_level_is_unchanged),
        cmocka_unit_test(letters_are_written_and_read_back_as_unnamed_kinds),
        cmocka_unit_test(a_letter_names_one_kind_per_map),
        cmocka_unit_test(the_library_sets_and_reads_kinds),
        cmocka_unit_test(a_downscale_keeps_the_letters_and_names),
        cmocka_unit_test(kind_arguments_are_checked_with_their_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
