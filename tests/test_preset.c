/* test_preset.c - the preset language (cg_pipeline_parse): syntax, comments,
 * line endings, every kind of error with its line and column, atomicity of a
 * failed parse; the built-in presets: their table, their meaning (docs/algorithms.md,
 * checked against fill + the oracle) and golden outputs (tests/golden/). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_FIXED */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "oracle.h"
#include "testutil.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef CG_TEST_DIR
#error "CG_TEST_DIR must name the tests/ directory"
#endif

/* ------------------------------------------------------------- syntax */

static size_t parse_count(const char *text)
{
    cg_pipeline *p = tu_pipeline(text);
    size_t n = cg_pipeline_step_count(p);
    cg_pipeline_free(p);
    return n;
}

static void new_pipeline_is_empty_with_default_size(void **state)
{
    (void)state;
    cg_pipeline *p = NULL;
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_step_count(p), 0);
    uint32_t w = 0, h = 0;
    cg_pipeline_default_size(p, &w, &h);
    assert_int_equal(w, 80);
    assert_int_equal(h, 50);
    assert_int_equal(cg_pipeline_uses_seed(p), 0);
    cg_pipeline_free(p);
    cg_pipeline_free(NULL);
}

static void preset_counts_one_step_per_line(void **state)
{
    (void)state;
    assert_int_equal(parse_count(""), 0);
    assert_int_equal(parse_count("\n\n\n"), 0);
    assert_int_equal(parse_count("fill 45"), 1);
    assert_int_equal(parse_count("fill 45\n"), 1);
    assert_int_equal(parse_count("fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n"),
                     3);
    assert_int_equal(parse_count("smooth 4\nsmooth 1 walls=3\nrule 4 floor=5..8\n"
                                 "rule 3 floor=5..9\n"),
                     4);
    assert_int_equal(parse_count("generations r1=5 r2=2\ngenerations 0 r1=0 r2=21 self=no\n"
                                 "generations 100000 r1=9 r2=-1 self=yes\n"),
                     3);
}

static void preset_ignores_comments_and_blank_lines(void **state)
{
    (void)state;
    const char *text = "# type2, from the cellular-automaton cave article\n"
                       "\n"
                       "   \n"
                       "\t\n"
                       "fill 45      # wall percentage\n"
                       "  # indented comment\n"
                       "generations 5 r1=5 r2=-1#no space before the comment\n"
                       "generations 1 r1=5 r2=0 # r2=7 is commented out\n"
                       "#generations 1 r1=5 r2=0\n"
                       "# unknown-step in a comment is fine\n";
    assert_int_equal(parse_count(text), 3);
}

static void preset_accepts_crlf_and_tabs(void **state)
{
    (void)state;
    assert_int_equal(parse_count("fill 45\r\ngenerations\t5\tr1=5 \t r2=-1\r\n\r\n"
                                 "smooth 2 walls=5\r\n"),
                     3);
    assert_int_equal(parse_count("\tfill 45\t\r\n  rule 1 floor=5..8  "), 2);
}

static void preset_with_crlf_runs_like_lf(void **state)
{
    (void)state;
    cg_grid *a = tu_run("fill 45\ngenerations 5 r1=5 r2=-1\nsmooth 1 walls=4\n", 42, 80, 50,
                        NULL);
    cg_grid *b = tu_run("fill 45\r\ngenerations 5 r1=5 r2=-1\r\nsmooth 1 walls=4\r\n", 42, 80,
                        50, NULL);
    assert_true(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
}

static void preset_text_need_not_be_nul_terminated(void **state)
{
    (void)state;
    /* Exactly len bytes, no terminator: the sanitizer build catches a read
     * past the end. The second line is outside len. */
    const char *src = "fill 45\nsmooth 2 walls=5bogus";
    size_t len = strlen("fill 45\nsmooth 2 walls=5");
    char *text = malloc(len);
    assert_non_null(text);
    memcpy(text, src, len);
    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_parse(p, text, len, &diag), CG_OK);
    assert_int_equal(cg_pipeline_step_count(p), 2);
    /* And a text cut in the middle of a token reads only what it is given. */
    assert_int_equal(cg_pipeline_parse(p, src, strlen("fill 4"), &diag), CG_OK);
    assert_int_equal(cg_pipeline_step_count(p), 3);
    cg_pipeline_free(p);
    free(text);
}

static void parse_appends_to_the_pipeline(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\n");
    cg_diag diag = {0};
    const char *more = "generations 5 r1=5 r2=-1\n";
    assert_int_equal(cg_pipeline_parse(p, more, strlen(more), &diag), CG_OK);
    assert_int_equal(cg_pipeline_step_count(p), 2);
    /* Running it equals running the concatenated text. */
    cg_grid *a = NULL;
    assert_int_equal(tu_run_pipeline(p, 3, 70, 30, NULL, &a, &diag), CG_OK);
    cg_grid *b = tu_run("fill 45\ngenerations 5 r1=5 r2=-1\n", 3, 70, 30, NULL);
    assert_true(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
    cg_pipeline_free(p);
}

static void size_line_sets_the_default_size_and_is_not_a_step(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("size 120x40\nfill 45\n");
    assert_int_equal(cg_pipeline_step_count(p), 1);
    uint32_t w = 0, h = 0;
    cg_pipeline_default_size(p, &w, &h);
    assert_int_equal(w, 120);
    assert_int_equal(h, 40);
    cg_pipeline_free(p);

    /* The last size line wins. */
    p = tu_pipeline("size 120x40\nsize 7x3\n");
    assert_int_equal(cg_pipeline_step_count(p), 0);
    cg_pipeline_default_size(p, &w, &h);
    assert_int_equal(w, 7);
    assert_int_equal(h, 3);
    cg_pipeline_free(p);

    p = tu_pipeline("size 1x1\n");
    cg_pipeline_default_size(p, &w, &h);
    assert_int_equal(w, 1);
    assert_int_equal(h, 1);
    cg_pipeline_free(p);
}

static void pipeline_uses_seed_iff_it_has_a_fill_step(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int uses;
    } cases[] = {
        {"", 0},
        {"size 80x50\n", 0},
        {"generations 5 r1=5 r2=-1\nsmooth 2\nrule 1 floor=5..8\n", 0},
        {"# fill 45\nsmooth 2\n", 0},
        {"fill 45\n", 1},
        {"smooth 2\nfill 0\n", 1},
        {"generations 5 r1=5 r2=-1\nfill 100\ngenerations 5 r1=5 r2=-1\n", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cg_pipeline *p = tu_pipeline(cases[k].text);
        if ((cg_pipeline_uses_seed(p) != 0) != cases[k].uses) {
            print_error("uses_seed of \"%s\" should be %s\n", cases[k].text,
                        cases[k].uses ? "nonzero" : "0");
            fail();
        }
        cg_pipeline_free(p);
    }
}

/* ------------------------------------------------------------- errors */

typedef struct parse_error {
    const char *text;
    int line, column;
} parse_error;

/* Parses text after a valid line into a pipeline and demands CG_EPARSE at
 * line:column, with a message, and the pipeline unchanged. Returns 0 if so;
 * else prints what differs and returns -1, so that a table of cases reports
 * every mismatch before failing. */
static int try_error(const parse_error *e, cg_diag *out)
{
    cg_pipeline *p = tu_pipeline("size 33x22\nfill 45\n");
    cg_diag diag = {0};
    int ok = 1;
    cg_status st = cg_pipeline_parse(p, e->text, strlen(e->text), &diag);
    if (st != CG_EPARSE || diag.line != e->line || diag.column != e->column) {
        print_error("parse of \"%s\": got %s at %d:%d (%s), want CG_EPARSE at %d:%d\n", e->text,
                    cg_strerror(st), diag.line, diag.column, diag.message, e->line, e->column);
        ok = 0;
    }
    if (strlen(diag.message) == 0 || strlen(diag.message) >= sizeof diag.message) {
        print_error("parse of \"%s\": no message\n", e->text);
        ok = 0;
    }
    /* A failed parse leaves the pipeline unchanged. */
    uint32_t w = 0, h = 0;
    cg_pipeline_default_size(p, &w, &h);
    if (cg_pipeline_step_count(p) != 1 || w != 33 || h != 22) {
        print_error("parse of \"%s\" changed the pipeline: %zu steps, size %ux%u\n", e->text,
                    cg_pipeline_step_count(p), w, h);
        ok = 0;
    }
    if (out)
        *out = diag;
    cg_pipeline_free(p);
    return ok ? 0 : -1;
}

static void check_error(const parse_error *e, cg_diag *out)
{
    if (try_error(e, out) != 0)
        fail();
}

static void check_errors(const parse_error *cases, size_t n)
{
    size_t bad = 0;
    for (size_t k = 0; k < n; k++)
        bad += try_error(&cases[k], NULL) != 0;
    if (bad) {
        print_error("%zu of %zu cases differ\n", bad, n);
        fail();
    }
}

static void preset_reports_unknown_step_position_and_lists_known_steps(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        {"bogus 3", 1, 1},
        {"   frobnicate r1=5", 1, 4},
        {"fill 45\n\n# comment\n  caves 2\n", 4, 3},
        {"fill45", 1, 1},
        {"generations5 r1=5 r2=2", 1, 1},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
    cg_diag diag;
    check_error(&cases[0], &diag);
    assert_non_null(strstr(diag.message, "generations"));
    assert_non_null(strstr(diag.message, "smooth"));
}

static void preset_reports_unknown_key_position(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        /*          1111111111222222222233333
           1234567890123456789012345678901234 */
        {"generations 3 r1=5 r2=2 colour=red", 1, 25},
        {"smooth 2 wals=4", 1, 10},
        {"rule 4 floors=5..8", 1, 8},
        {"smooth 2 walls=4 r1=5", 1, 18},
        {"fill 45\nsmooth 1\n\nrule 1 floor=5..8 walls=3\n", 4, 19},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
}

static void preset_reports_bad_value_position(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        /*          1111111111222222222233333
           1234567890123456789012345678901234 */
        {"generations 3 r1=10 r2=2", 1, 18},
        {"generations 3 r1=-1 r2=2", 1, 18},
        {"generations 3 r1=x r2=2", 1, 18},
        {"generations 3 r1=5x r2=2", 1, 18},
        {"generations 3 r1=5 r2=22", 1, 23},
        {"generations 3 r1=5 r2=-2", 1, 23},
        {"generations 3 r1=5 r2=2.5", 1, 23},
        {"generations 3 r1=5 r2=2 self=maybe", 1, 30},
        {"smooth 2 walls=10", 1, 16},
        {"smooth 2 walls=-1", 1, 16},
        {"smooth 2 walls=", 1, 16},
        {"rule 4 floor=5..10", 1, 14},
        {"rule 4 floor=6..5", 1, 14},
        {"rule 4 floor=5-8", 1, 14},
        {"rule 4 floor=5", 1, 14},
        {"rule 4 floor=-1..5", 1, 14},
        {"rule 4 floor=..5", 1, 14},
        {"generations 3 r1=99999999999999999999 r2=2", 1, 18},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
}

static void preset_reports_bad_positional_position(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        /*          11111111112
           12345678901234567890 */
        {"fill abc", 1, 6},
        {"fill -1", 1, 6},
        {"fill 100.5", 1, 6},
        {"fill 101", 1, 6},
        {"fill 4x5", 1, 6},
        {"smooth x", 1, 8},
        {"smooth -1", 1, 8},
        {"rule x floor=5..8", 1, 6},
        {"generations 100001 r1=5 r2=2", 1, 13},
        {"generations -1 r1=5 r2=2", 1, 13},
        {"generations 99999999999999999999 r1=5 r2=2", 1, 13},
        {"size 0x5", 1, 6},
        {"size 5x0", 1, 8}, /* the height itself */
        {"size 80", 1, 6},
        {"size x50", 1, 6},
        {"size 80x50x3", 1, 9},
        {"size -80x50", 1, 6},
        {"size 1048577x5", 1, 6},
        {"size 4294967297x5", 1, 6},
        {"fill 45\r\nsmooth x\r\n", 2, 8},
        {"smooth x#comment", 1, 8},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
}

static void preset_reports_unexpected_token_position(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        /*          1111111111222222222233333
           1234567890123456789012345678901234 */
        {"fill 45 50", 1, 9},
        {"size 80x50 90", 1, 12},
        {"generations 3 4 r1=5 r2=2", 1, 15},
        {"smooth 2 3", 1, 10},
        {"rule 4 floor=5..8 7", 1, 19},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
}

static void preset_reports_missing_option_at_the_step_name(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        {"generations 3 r2=2", 1, 1},
        {"generations", 1, 1},
        {"  generations 3 r2=-1", 1, 3},
        {"rule 4", 1, 1},
        {"fill 45\n\n  rule 4 # floor=5..8\n", 3, 3},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
}

static void preset_reports_duplicate_key_at_its_second_occurrence(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        /*          1111111111222222222233333
           1234567890123456789012345678901234 */
        {"generations 3 r1=5 r1=6 r2=2", 1, 20},
        {"generations 3 r1=5 r2=2 r2=2", 1, 25},
        {"smooth 1 walls=3 walls=3", 1, 18},
        {"rule 1 floor=5..8 floor=5..9", 1, 19},
        {"generations 3 r1=5 r2=2 self=no self=yes", 1, 33},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
}

static void preset_reports_errors_on_the_right_line_of_a_long_text(void **state)
{
    (void)state;
    static const parse_error cases[] = {
        {"# header\n"
         "\n"
         "fill 45   # walls\n"
         "\n"
         "   # indented comment\n"
         "generations 5 r1=5 r2=-1\n"
         "generations 1 r1=5 r2=z\n",
         7, 23},
        {"# crlf\r\n\r\nfill 45\r\n# x\r\nsmooth 2 walls=4\r\nrule 1 floor=9..0\r\n", 6, 14},
        {"fill 45\nsmooth 2\nsmooth 2\nsmooth 2\nsmooth 2\nsmooth 2\nsmooth 2\nsmooth 2\n"
         "smooth 2\nsmooth 2\nsmooth 2 walls=5 bogus=1\nsmooth 2\n",
         11, 18},
        /* An error on the last line, without a final newline. */
        {"fill 45\nfill 45\nfill xx", 3, 6},
    };
    check_errors(cases, sizeof cases / sizeof cases[0]);
}

static void failed_parse_leaves_the_pipeline_unchanged(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("fill 45\ngenerations 5 r1=5 r2=-1\n");
    cg_grid *before = NULL, *after = NULL;
    cg_diag diag = {0};
    assert_int_equal(tu_run_pipeline(p, 42, 0, 0, NULL, &before, &diag), CG_OK);
    /* Valid lines, including a size line, then an error. */
    const char *bad = "size 10x10\nsmooth 3\nfill 50\nrule 1 floor=5..8\nsmooth q\n";
    assert_int_equal(cg_pipeline_parse(p, bad, strlen(bad), &diag), CG_EPARSE);
    assert_int_equal(diag.line, 5);
    assert_int_equal(cg_pipeline_step_count(p), 2);
    uint32_t w = 0, h = 0;
    cg_pipeline_default_size(p, &w, &h);
    assert_int_equal(w, 80);
    assert_int_equal(h, 50);
    assert_int_equal(tu_run_pipeline(p, 42, 0, 0, NULL, &after, &diag), CG_OK);
    assert_true(tu_grids_equal(before, after));
    cg_grid_free(before);
    cg_grid_free(after);

    /* An empty pipeline that fails to parse still does not use the seed. */
    cg_pipeline_free(p);
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    const char *bad2 = "fill 45\nbogus\n";
    assert_int_equal(cg_pipeline_parse(p, bad2, strlen(bad2), &diag), CG_EPARSE);
    assert_int_equal(cg_pipeline_step_count(p), 0);
    assert_int_equal(cg_pipeline_uses_seed(p), 0);
    cg_pipeline_free(p);
}

static void parse_accepts_the_extreme_values(void **state)
{
    (void)state;
    assert_int_equal(parse_count("generations 0 r1=0 r2=-1\ngenerations 100000 r1=9 r2=21\n"
                                 "smooth 0 walls=0\nsmooth 1 walls=9\n"
                                 "rule 1 floor=0..0\nrule 1 floor=9..9\nrule 1 floor=0..9\n"
                                 "fill 0\nfill 100\nfill 0.0\nfill 100.0\nfill 45.5\nfill 0.001\n"),
                     13);
    cg_pipeline *p = tu_pipeline("size 1048576x1\n");
    uint32_t w = 0, h = 0;
    cg_pipeline_default_size(p, &w, &h);
    assert_int_equal(w, CG_MAX_DIM);
    assert_int_equal(h, 1);
    cg_pipeline_free(p);
}

/* ---------------------------------------------------- built-in presets */

static void builtin_table_lists_the_seed_presets(void **state)
{
    (void)state;
    size_t n = cg_preset_count();
    assert_true(n >= 4);
    const char *want[] = {"type1", "type2", "type3", "type4"};
    int found[4] = {0};
    for (size_t i = 0; i < n; i++) {
        const char *name = cg_preset_name(i);
        assert_non_null(name);
        assert_true(strlen(name) > 0);
        assert_non_null(cg_preset_summary(i));
        for (size_t k = 0; k < 4; k++)
            found[k] |= strcmp(name, want[k]) == 0;
        size_t len = 0;
        const char *text = cg_preset_builtin(name, &len);
        assert_non_null(text);
        assert_true(len > 0);
    }
    for (size_t k = 0; k < 4; k++) {
        if (!found[k]) {
            print_error("built-in preset %s is missing\n", want[k]);
            fail();
        }
    }
    size_t len = 1234;
    assert_null(cg_preset_builtin("no-such-preset", &len));
    assert_null(cg_preset_builtin("", &len));
    assert_null(cg_preset_builtin("type", &len));
}

static void every_builtin_preset_parses(void **state)
{
    (void)state;
    for (size_t i = 0; i < cg_preset_count(); i++) {
        size_t len = 0;
        const char *text = cg_preset_builtin(cg_preset_name(i), &len);
        cg_pipeline *p = NULL;
        cg_diag diag = {0};
        assert_int_equal(cg_pipeline_new(&p), CG_OK);
        cg_status st = cg_pipeline_parse(p, text, len, &diag);
        if (st != CG_OK) {
            print_error("preset %s: %s at %d:%d: %s\n", cg_preset_name(i), cg_strerror(st),
                        diag.line, diag.column, diag.message);
            fail();
        }
        assert_true(cg_pipeline_step_count(p) > 0);
        cg_pipeline_free(p);
    }
}

typedef struct stage {
    int n, r1, r2;
} stage;

typedef struct seed_preset {
    const char *name;
    const char *fill;
    stage stages[3];
    size_t nstages;
} seed_preset;

/* After the cellular-automaton cave article's "Quelques valeurs exemple"
 * (docs/algorithms.md). */
static const seed_preset seed_presets[] = {
    {"type1", "fill 40", {{10, 5, 2}, {10, 5, -1}, {1, 5, 2}}, 3},
    {"type2", "fill 45", {{5, 5, -1}, {1, 5, 0}}, 2},
    {"type3", "fill 45", {{5, 5, -1}, {1, 5, 1}}, 2},
    {"type4", "fill 45", {{10, 5, 2}, {10, 5, -1}}, 2},
};

static cg_grid *run_builtin(const char *name, uint64_t seed, uint32_t w, uint32_t h)
{
    cg_pipeline *p = tu_builtin_pipeline(name);
    cg_diag diag = {0};
    assert_true(cg_pipeline_uses_seed(p));
    cg_grid *out = NULL;
    assert_int_equal(tu_run_pipeline(p, seed, w, h, NULL, &out, &diag), CG_OK);
    cg_pipeline_free(p);
    return out;
}

/* The fill's hash is internal, so take the fill from the library (a pipeline
 * of the fill alone, same seed) and apply the stages with the oracle. */
static void builtin_seed_presets_are_fill_then_their_stages(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{80, 50}, {131, 37}, {64, 20}};
    static const uint64_t seeds[] = {42, 7, 1};
    for (size_t k = 0; k < sizeof seed_presets / sizeof seed_presets[0]; k++) {
        const seed_preset *sp = &seed_presets[k];
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
                uint32_t w = sizes[s][0], h = sizes[s][1];
                cg_grid *filled = tu_run(sp->fill, seeds[i], w, h, NULL);
                uint8_t *cells = tu_cells_from_grid(filled);
                for (size_t t = 0; t < sp->nstages; t++)
                    oracle_generations(cells, (int)w, (int)h, sp->stages[t].n, sp->stages[t].r1,
                                       sp->stages[t].r2, 1);
                cg_grid *got = run_builtin(sp->name, seeds[i], w, h);
                char what[64];
                snprintf(what, sizeof what, "preset %s seed %llu", sp->name,
                         (unsigned long long)seeds[i]);
                tu_assert_grid_equals(got, cells, (int)w, (int)h, what);
                cg_grid_free(got);
                cg_grid_free(filled);
                free(cells);
            }
        }
    }
}

/* ------------------------------------------------------------- golden */

typedef struct golden {
    const char *file;
    const char *preset;
    uint64_t seed;
    uint32_t w, h;
} golden;

/* Regenerate with the commands in tests/golden/README.md. */
static const golden goldens[] = {
    {"type1-seed42-80x50.txt", "type1", 42, 80, 50},
    {"type2-seed42-80x50.txt", "type2", 42, 80, 50},
    {"type3-seed42-80x50.txt", "type3", 42, 80, 50},
    {"type4-seed42-80x50.txt", "type4", 42, 80, 50},
    {"type2-seed7-131x37.txt", "type2", 7, 131, 37},
};

static void check_wall_ring_text(const char *text, size_t len, uint32_t w, uint32_t h,
                                 const char *file)
{
    assert_int_equal(len, (size_t)(w + 1) * h);
    for (uint32_t y = 0; y < h; y++) {
        const char *row = text + (size_t)y * (w + 1);
        if (row[w] != '\n' || row[0] != '#' || row[w - 1] != '#') {
            print_error("%s: row %u lacks its wall ring\n", file, y);
            fail();
        }
        if (y == 0 || y == h - 1)
            for (uint32_t x = 0; x < w; x++)
                if (row[x] != '#') {
                    print_error("%s: row %u is not all wall\n", file, y);
                    fail();
                }
    }
}

static void builtin_presets_match_golden_outputs(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof goldens / sizeof goldens[0]; k++) {
        const golden *g = &goldens[k];
        char path[512];
        snprintf(path, sizeof path, "%s/golden/%s", CG_TEST_DIR, g->file);
        size_t len = 0;
        char *want = tu_read_file(path, &len);
        if (!want) {
            print_error("cannot read %s (see tests/golden/README.md)\n", path);
            fail();
        }
        check_wall_ring_text(want, len, g->w, g->h, g->file);
        cg_grid *grid = run_builtin(g->preset, g->seed, g->w, g->h);
        char *got = tu_ascii(grid);
        if (strlen(got) != len || memcmp(got, want, len) != 0) {
            print_error("%s --seed %llu %ux%u differs from %s:\n%s\n", g->preset,
                        (unsigned long long)g->seed, g->w, g->h, path, got);
            fail();
        }
        free(got);
        free(want);
        cg_grid_free(grid);
    }
}

/* ------------------------------------------------------- hostile sizes */

/* A text of more than INT_MAX lines: 2^31 newlines, then "bogus" on line
 * 2^31 + 1. The 2 GiB are one 64 KiB file of newlines mapped 32768 times
 * side by side, so they take 64 KiB of memory. The line count must not
 * overflow (signed overflow is undefined): the diagnostic's line is capped
 * at INT_MAX. Four GiB scanned: only under CAVEGEN_TEST_THOROUGH=1. */
static void a_text_of_more_than_int_max_lines_reports_a_capped_line(void **state)
{
    (void)state;
    if (!tu_thorough())
        skip();
    const size_t piece = (size_t)1 << 16, pieces = (size_t)1 << 15;
    char tmpl[] = "/tmp/cavegen-lines-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    unlink(tmpl);
    char *nl = malloc(piece);
    assert_non_null(nl);
    memset(nl, '\n', piece);
    assert_int_equal(write(fd, nl, piece), (ssize_t)piece);
    free(nl);
    size_t total = piece * pieces + (size_t)sysconf(_SC_PAGESIZE);
    char *text = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(text != MAP_FAILED);
    for (size_t i = 0; i < pieces; i++)
        assert_true(mmap(text + i * piece, piece, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) !=
                    MAP_FAILED);
    char *tail = mmap(text + piece * pieces, total - piece * pieces, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    assert_true(tail != MAP_FAILED);
    close(fd);
    memcpy(tail, "bogus\n", 6);

    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_parse(p, text, piece * pieces + 6, &diag), CG_EPARSE);
    assert_int_equal(diag.line, INT_MAX);
    assert_int_equal(diag.column, 1);
    assert_non_null(strstr(diag.message, "unknown step 'bogus'"));
    /* And a good step there parses. */
    memcpy(tail, "fill 45\n", 8);
    assert_int_equal(cg_pipeline_parse(p, text, piece * pieces + 8, &diag), CG_OK);
    assert_int_equal(cg_pipeline_step_count(p), 1);
    cg_pipeline_free(p);
    munmap(text, total);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parsing is linear in the steps: 400,000 steps in one text, and 40,000
 * appended one parse at a time (as the tool does for --step), each take
 * seconds at most (quadratic, they took minutes). The ordinals stay what
 * they were: a pipeline parsed a line at a time makes the map of the same
 * text parsed at once. */
static void parsing_many_steps_is_linear(void **state)
{
    (void)state;
    const size_t n = 200000;
    const char *pair = "smooth 1\nfill 40\n";
    size_t plen = strlen(pair);
    char *text = malloc(n * plen + 1);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        memcpy(text + i * plen, pair, plen);
    text[n * plen] = '\0';
    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    double t0 = seconds();
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_parse(p, text, n * plen, &diag), CG_OK);
    double t1 = seconds();
    assert_int_equal(cg_pipeline_step_count(p), 2 * n);
    cg_pipeline_free(p);
    free(text);

    cg_pipeline *q = NULL;
    assert_int_equal(cg_pipeline_new(&q), CG_OK);
    for (size_t i = 0; i < 20000; i++) {
        assert_int_equal(cg_pipeline_parse(q, "fill 45", 7, &diag), CG_OK);
        assert_int_equal(cg_pipeline_parse(q, "smooth 1", 8, &diag), CG_OK);
    }
    double t2 = seconds();
    cg_pipeline_free(q);
    print_message("400000 steps in one text: %.2f s; 40000 one at a time: %.2f s\n", t1 - t0,
                  t2 - t1);
    assert_true(t1 - t0 < 20);
    assert_true(t2 - t1 < 20);

    const char *once_text = "fill 45\nsmooth 1\nfill 40\nsmooth 2\nfill 30 \n";
    const char *lines[] = {"fill 45", "smooth 1", "fill 40", "smooth 2", "fill 30"};
    cg_pipeline *once = tu_pipeline(once_text), *by_line = NULL;
    assert_int_equal(cg_pipeline_new(&by_line), CG_OK);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(cg_pipeline_parse(by_line, lines[i], strlen(lines[i]), &diag), CG_OK);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        cg_grid *a = NULL, *b = NULL;
        assert_int_equal(tu_run_pipeline(once, seed, 67, 13, NULL, &a, &diag), CG_OK);
        assert_int_equal(tu_run_pipeline(by_line, seed, 67, 13, NULL, &b, &diag), CG_OK);
        char *ta = tu_ascii(a), *tb = tu_ascii(b);
        assert_string_equal(ta, tb);
        free(ta);
        free(tb);
        cg_grid_free(a);
        cg_grid_free(b);
    }
    cg_pipeline_free(once);
    cg_pipeline_free(by_line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(new_pipeline_is_empty_with_default_size),
        cmocka_unit_test(preset_counts_one_step_per_line),
        cmocka_unit_test(preset_ignores_comments_and_blank_lines),
        cmocka_unit_test(preset_accepts_crlf_and_tabs),
        cmocka_unit_test(preset_with_crlf_runs_like_lf),
        cmocka_unit_test(preset_text_need_not_be_nul_terminated),
        cmocka_unit_test(parse_appends_to_the_pipeline),
        cmocka_unit_test(size_line_sets_the_default_size_and_is_not_a_step),
        cmocka_unit_test(pipeline_uses_seed_iff_it_has_a_fill_step),
        cmocka_unit_test(preset_reports_unknown_step_position_and_lists_known_steps),
        cmocka_unit_test(preset_reports_unknown_key_position),
        cmocka_unit_test(preset_reports_bad_value_position),
        cmocka_unit_test(preset_reports_bad_positional_position),
        cmocka_unit_test(preset_reports_unexpected_token_position),
        cmocka_unit_test(preset_reports_missing_option_at_the_step_name),
        cmocka_unit_test(preset_reports_duplicate_key_at_its_second_occurrence),
        cmocka_unit_test(preset_reports_errors_on_the_right_line_of_a_long_text),
        cmocka_unit_test(failed_parse_leaves_the_pipeline_unchanged),
        cmocka_unit_test(parse_accepts_the_extreme_values),
        cmocka_unit_test(builtin_table_lists_the_seed_presets),
        cmocka_unit_test(every_builtin_preset_parses),
        cmocka_unit_test(builtin_seed_presets_are_fill_then_their_stages),
        cmocka_unit_test(builtin_presets_match_golden_outputs),
        cmocka_unit_test(a_text_of_more_than_int_max_lines_reports_a_capped_line),
        cmocka_unit_test(parsing_many_steps_is_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
