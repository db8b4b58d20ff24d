/* test_settings.c - cg_preset_apply: settings address a step's own value, a
 * key, a flag, or the N-th line of a step; untouched lines are kept byte for
 * byte and comments survive; every wrong setting is refused with a message
 * quoting it; the result parses and runs like a hand-edited copy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h> /* after the four above, which it needs */

#include "grid_equal.h"
#include "testutil.h"

/* Applies settings to text; the result NUL-terminated (caller frees). */
static char *apply(const char *text, const char *const *set, size_t n, cg_status want,
                   const char *needle)
{
    size_t len = strlen(text), cap = len + 3;
    for (size_t i = 0; i < n; i++)
        cap += strlen(set[i]) + 3; /* the documented bound */
    char *out = malloc(cap + 1);
    assert_non_null(out);
    size_t out_len = 0;
    cg_diag diag = {0};
    cg_status st = cg_preset_apply(text, len, set, n, out, cap, &out_len, &diag);
    if (st != want || (needle && !strstr(diag.message, needle))) {
        print_error("settings on \"%s\": got %s (%s), want %s with '%s'\n", text, cg_strerror(st),
                    diag.message, cg_strerror(want), needle ? needle : "");
        fail();
    }
    if (st != CG_OK) {
        free(out);
        return NULL;
    }
    assert_true(out_len <= cap);
    out[out_len] = '\0';
    return out;
}

static void expect(const char *text, const char *const *set, size_t n, const char *want)
{
    char *got = apply(text, set, n, CG_OK, NULL);
    if (strcmp(got, want) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", got, want);
        fail();
    }
    free(got);
}

#define N(a) (sizeof(a) / sizeof(a)[0])

static void settings_rewrite_the_lines_they_address(void **state)
{
    (void)state;
    const char *text = "# a comment\n"
                       "fill 40\n"
                       "rule 4 floor=5..8   # stage one\n"
                       "rule 3 floor=5..9\n"
                       "poi count=8 spacing=10\n"
                       "maze connected loops\n";
    const char *none[] = {"fill=40"}; /* the same value: same text */
    expect(text, none, 0, text);
    const char *fill[] = {"fill=47.5"};
    expect("fill 40\nsmooth 5\n", fill, 1, "fill 47.5\nsmooth 5\n");
    const char *keys[] = {"poi.count=4", "rule.2.floor=4..9", "rule.1=2"};
    expect(text, keys, N(keys),
           "# a comment\n"
           "fill 40\n"
           "rule 2 floor=5..8  # stage one\n"
           "rule 3 floor=4..9\n"
           "poi count=4 spacing=10\n"
           "maze connected loops\n");
    /* A key the line lacks is added; a flag set to no goes, to yes comes. */
    const char *add[] = {"maze.loops=no", "maze.no-isolated=yes", "smooth.walls=4"};
    expect("maze connected loops\nsmooth 2", add, N(add),
           "maze connected no-isolated\nsmooth 2 walls=4");
    /* A step's own value where the line has none yet: it goes first. */
    const char *count[] = {"smooth=3"};
    expect("smooth walls=4\n", count, 1, "smooth 3 walls=4\n");
    /* The last setting of the same value wins. */
    const char *twice[] = {"fill=41", "fill=42"};
    expect("fill 40\n", twice, N(twice), "fill 42\n");
}

static void wrong_settings_are_refused_quoting_them(void **state)
{
    (void)state;
    const char *text = "fill 40\nrule 4 floor=5..8\nrule 3 floor=5..9\npoi count=8\nentrance\n";
    static const struct {
        const char *setting, *needle;
    } bad[] = {
        {"poi.count", "NAME=VALUE"},
        {"=4", "NAME=VALUE"},
        {"poi.count=", "one word"},
        {"poi.count=4 5", "one word"},
        {"poi.count=4#", "one word"},
        {"pio.count=4", "no step is called 'pio'"},
        {"poi.cont=4", "poi has no option 'cont'"},
        {"poi.count=abc", "'poi.count=abc': count must be"},
        {"poi.count=0", "count must be"},
        {"rule=3", "2 rule lines; say which, as rule.1 to rule.2"},
        {"rule.3=3", "has 2 rule lines"},
        {"rule.0=3", "1, 2"},
        {"smooth=3", "has no smooth line"},
        {"entrance=3", "takes no value"},
        {"size=10x10", "-W/-H"},
        {"fill=101", "'fill=101'"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        const char *set[] = {bad[i].setting};
        assert_null(apply(text, set, 1, CG_EINVAL, bad[i].needle));
    }
    const char *flag[] = {"maze.connected=maybe"};
    assert_null(apply("maze loops\n", flag, 1, CG_EINVAL, "yes or no"));
    /* Too small a buffer: the bytes needed, then the same text with room. */
    const char *set[] = {"fill=45.25"};
    char small[4];
    size_t need = 0;
    cg_diag diag = {0};
    assert_int_equal(cg_preset_apply("fill 40\n", 8, set, 1, small, sizeof small, &need, &diag),
                     CG_EOVERFLOW);
    assert_int_equal(need, strlen("fill 45.25\n"));
}

/* A preset with settings runs exactly as the same preset edited by hand. */
static void an_applied_preset_runs_as_the_edited_copy(void **state)
{
    (void)state;
    size_t len = 0;
    const char *level = cg_preset_builtin("type1", &len);
    assert_non_null(level);
    const char *set[] = {"fill=45", "generations.3.r2=1"};
    char out[4096];
    size_t out_len = 0;
    cg_diag diag = {0};
    assert_int_equal(cg_preset_apply(level, len, set, N(set), out, sizeof out, &out_len, &diag),
                     CG_OK);
    out[out_len] = '\0';
    assert_non_null(strstr(out, "\nfill 45\n"));
    assert_non_null(strstr(out, "generations 1 r1=5 r2=1"));
    cg_grid *a = tu_run(out, 42, 60, 40, NULL);
    cg_grid *b = tu_run("fill 45\ngenerations 10 r1=5 r2=2\ngenerations 10 r1=5 r2=-1\n"
                        "generations 1 r1=5 r2=1\n",
                        42, 60, 40, NULL);
    assert_true(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
}

/* cg_nearest_name: typos (added, dropped, changed, swapped letters, any
 * case) within a third of the word find their name; prefixes of 3+ letters
 * too; words far from every name find none. */
static void nearest_names_are_typos_or_prefixes(void **state)
{
    (void)state;
    static const char *const names[] = {"smooth",       "fill", "generations", "remove-floor",
                                        "remove-walls", "poi",  "png",         "json"};
    static const struct {
        const char *word, *want;
    } cases[] = {
        {"smoth", "smooth"},
        {"smooht", "smooth"},
        {"SMOOTH", "smooth"},
        {"fil", "fill"},
        {"fiil", "fill"},
        {"generatoins", "generations"},
        {"pio", "poi"},
        {"pgn", "png"},
        {"remove", "remove-floor"},
        {"remove-wals", "remove-walls"},
        {"xyzzy", NULL},
        {"js", NULL},
        {"", NULL},
        {"generationsxxxxxx", NULL},
    };
    for (size_t i = 0; i < N(cases); i++) {
        const char *got = cg_nearest_name(cases[i].word, strlen(cases[i].word), names, N(names));
        if ((got == NULL) != (cases[i].want == NULL) || (got && strcmp(got, cases[i].want) != 0)) {
            print_error("'%s': got %s, want %s\n", cases[i].word, got ? got : "none",
                        cases[i].want ? cases[i].want : "none");
            fail();
        }
    }
    assert_null(cg_nearest_name("smoth", 5, NULL, 0));
    assert_null(cg_nearest_name(NULL, 0, names, N(names)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_rewrite_the_lines_they_address),
        cmocka_unit_test(wrong_settings_are_refused_quoting_them),
        cmocka_unit_test(an_applied_preset_runs_as_the_edited_copy),
        cmocka_unit_test(nearest_names_are_typos_or_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
