/* test_io_ascii.c - cg_read_ascii and cg_write(CG_FORMAT_ASCII): the alphabet
 * (docs/formats.md), canonical output, round trips, line endings, errors with their
 * line and column, and a failing write callback. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"
/* The test-only hook that forces a kernel code path (cg__set_kernel_path). */
#include "core/cpu.h"

static cg_grid *read_ok(const char *text, size_t len)
{
    cg_grid *g = NULL;
    cg_diag diag = {0};
    cg_status st = cg_read_ascii(text, len, &g, &diag);
    if (st != CG_OK) {
        print_error("reading \"%s\": %s at %d:%d: %s\n", text, cg_strerror(st), diag.line,
                    diag.column, diag.message);
        fail();
    }
    assert_non_null(g);
    return g;
}

static cg_grid *read_str(const char *text)
{
    return read_ok(text, strlen(text));
}

static void assert_text(const cg_grid *g, const char *want)
{
    char *got = tu_ascii(g);
    if (strcmp(got, want) != 0) {
        print_error("wrote:\n%s\nwant:\n%s\n", got, want);
        fail();
    }
    free(got);
}

static void reader_maps_each_character(void **state)
{
    (void)state;
    const char *text = "########\n"
                       "#.<>*x #\n"
                       "#09az+y#\n"
                       "########\n";
    cg_grid *g = read_str(text);
    assert_int_equal(cg_grid_width(g), 8);
    assert_int_equal(cg_grid_height(g), 4);
    static const struct {
        int x, y;
        cg_cell cell;
        cg_marker marker;
    } want[] = {
        {0, 0, CG_WALL, CG_MARK_NONE},      {1, 1, CG_FLOOR, CG_MARK_NONE},
        {2, 1, CG_FLOOR, CG_MARK_ENTRANCE}, {3, 1, CG_FLOOR, CG_MARK_EXIT},
        {4, 1, CG_FLOOR, CG_MARK_POI},      {5, 1, CG_FLOOR, CG_MARK_BLOCKED},
        {6, 1, CG_FLOOR, CG_MARK_NONE},     {7, 1, CG_WALL, CG_MARK_NONE},
        {1, 2, CG_FLOOR, CG_MARK_NONE},     {2, 2, CG_FLOOR, CG_MARK_NONE},
        {3, 2, CG_FLOOR, CG_MARK_NONE},     {4, 2, CG_FLOOR, CG_MARK_NONE},
        {5, 2, CG_FLOOR, CG_MARK_NONE},     {6, 2, CG_FLOOR, CG_MARK_NONE},
        {7, 3, CG_WALL, CG_MARK_NONE},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        assert_int_equal(cg_grid_get(g, want[k].x, want[k].y), want[k].cell);
        assert_int_equal(cg_grid_marker(g, want[k].x, want[k].y), want[k].marker);
    }
    assert_int_equal(cg_grid_floor_count(g), 12);
    cg_grid_free(g);
}

static void reader_accepts_every_reach_overlay_character_as_floor(void **state)
{
    (void)state;
    char row[64];
    size_t n = 0;
    for (char c = '0'; c <= '9'; c++)
        row[n++] = c;
    for (char c = 'a'; c <= 'z'; c++)
        if (c != 'x')
            row[n++] = c;
    row[n++] = '+';
    row[n++] = ' ';
    row[n++] = '.';
    row[n] = '\0';
    cg_grid *g = read_str(row);
    assert_int_equal(cg_grid_width(g), n);
    assert_int_equal(cg_grid_height(g), 1);
    for (size_t x = 0; x < n; x++) {
        assert_int_equal(cg_grid_get(g, (int64_t)x, 0), CG_FLOOR);
        assert_int_equal(cg_grid_marker(g, (int64_t)x, 0), CG_MARK_NONE);
    }
    /* They are written back as plain floor. */
    char want[66];
    memset(want, '.', n);
    want[n] = '\n';
    want[n + 1] = '\0';
    assert_text(g, want);
    cg_grid_free(g);
}

static void writer_renders_cells_and_markers(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 7, 3), CG_OK);
    for (int x = 1; x <= 5; x++)
        cg_grid_set(g, x, 1, CG_FLOOR);
    assert_int_equal(cg_grid_set_marker(g, 1, 1, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 2, 1, CG_MARK_EXIT), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 3, 1, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 4, 1, CG_MARK_BLOCKED), CG_OK);
    assert_text(g, "#######\n#<>*x.#\n#######\n");
    cg_grid_free(g);
}

static void writer_handles_degenerate_sizes(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 1, 1), CG_OK);
    assert_text(g, "#\n");
    cg_grid_set(g, 0, 0, CG_FLOOR);
    assert_text(g, ".\n");
    cg_grid_free(g);

    assert_int_equal(cg_grid_new(&g, 1, 4), CG_OK);
    cg_grid_set(g, 0, 2, CG_FLOOR);
    assert_text(g, "#\n#\n.\n#\n");
    cg_grid_free(g);

    assert_int_equal(cg_grid_new(&g, 5, 1), CG_OK);
    cg_grid_set(g, 4, 0, CG_FLOOR);
    assert_text(g, "####.\n");
    cg_grid_free(g);
}

static void round_trip_gives_the_canonical_text(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"#\n", "#\n"},
        {".", ".\n"},
        {"#", "#\n"},
        {"#.#\n.<.\n#>#\n", "#.#\n.<.\n#>#\n"},
        {"#.#\n.<.\n#>#", "#.#\n.<.\n#>#\n"},         /* final newline optional */
        {"#.#\r\n.*.\r\n#x#\r\n", "#.#\n.*.\n#x#\n"}, /* CRLF */
        {"#.#\r\n.*.\n#x#", "#.#\n.*.\n#x#\n"},       /* mixed */
        {"# #\n 0 \n#+#\n", "#.#\n...\n#.#\n"},       /* space and reach overlay */
        {"#\n#\n#\n", "#\n#\n#\n"},
        {"..........\n", "..........\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cg_grid *g = read_str(cases[k].in);
        assert_text(g, cases[k].out);
        cg_grid_free(g);
        /* The canonical text reads back to the same text. */
        g = read_str(cases[k].out);
        assert_text(g, cases[k].out);
        cg_grid_free(g);
    }
}

static void random_maps_survive_write_then_read(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {65, 3}, {63, 7}, {64, 8},
                                   {129, 5}, {300, 200}};
    uint64_t rng = 77;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        uint8_t *cells = tu_alloc_cells(w, h);
        tu_random_cells(cells, w, h, 0.5, &rng);
        cg_grid *g = tu_grid_from_cells(cells, w, h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (!cells[(size_t)y * (size_t)w + (size_t)x] && tu_unit(&rng) < 0.2)
                    assert_int_equal(
                        cg_grid_set_marker(g, x, y, (cg_marker)tu_range(&rng, 1, 4)), CG_OK);
        char *text = tu_ascii(g);
        assert_int_equal(strlen(text), (size_t)(w + 1) * (size_t)h);
        cg_grid *back = read_str(text);
        assert_true(tu_grids_equal(g, back));
        char *again = tu_ascii(back);
        assert_string_equal(text, again);
        free(text);
        free(again);
        cg_grid_free(back);
        cg_grid_free(g);
        free(cells);
    }
}

/* The writer makes a row's characters 8 cells at a time from a table, or
 * on the AVX-512 paths 64 at a time from a byte mask: every path the
 * machine can run writes the scalar path's text, on maps narrower and
 * wider than a word, with markers, all wall and all floor. */
static void every_path_writes_the_same_text(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1},   {7, 3},   {63, 4},  {64, 5},  {65, 6},
                                   {80, 50}, {131, 7}, {200, 3}, {1000, 2}};
    uint64_t rng = 91;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        for (int fill = 0; fill < 3; fill++) {
            uint8_t *cells = tu_alloc_cells(w, h);
            tu_random_cells(cells, w, h, fill == 0 ? 0.5 : fill == 1 ? 1.0 : -1.0, &rng);
            cg_grid *g = tu_grid_from_cells(cells, w, h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    if (!cells[(size_t)y * (size_t)w + (size_t)x] && tu_unit(&rng) < 0.1)
                        assert_int_equal(
                            cg_grid_set_marker(g, x, y, (cg_marker)tu_range(&rng, 1, 4)), CG_OK);
            assert_int_equal(cg__set_kernel_path(CG__PATH_SCALAR), 0);
            char *want = tu_ascii(g);
            for (int path = 0; path < CG__PATH_COUNT; path++) {
                if (!cg__kernel_path_available(path))
                    continue;
                assert_int_equal(cg__set_kernel_path(path), 0);
                char *got = tu_ascii(g);
                if (strcmp(got, want) != 0)
                    fail_msg("path %s, %dx%d: the text differs", cg__kernel_path_name(path), w, h);
                free(got);
            }
            cg__set_kernel_path(CG__PATH_AUTO);
            free(want);
            cg_grid_free(g);
            free(cells);
        }
    }
}

static void reader_reads_only_len_bytes(void **state)
{
    (void)state;
    /* No terminator: the sanitizer build catches a read past the end. */
    const char *src = "#.#\n.<.\n";
    size_t len = strlen(src);
    char *text = malloc(len);
    assert_non_null(text);
    memcpy(text, src, len);
    cg_grid *g = read_ok(text, len);
    assert_text(g, "#.#\n.<.\n");
    cg_grid_free(g);
    free(text);
    /* A prefix: the second row is cut. */
    g = read_ok("#.#\n.<.\nGARBAGE", len);
    assert_text(g, "#.#\n.<.\n");
    cg_grid_free(g);
}

typedef struct ascii_error {
    const char *text;
    int line, column;
} ascii_error;

static int try_read_error(const ascii_error *e)
{
    cg_grid *g = (cg_grid *)&g; /* must be reset to NULL */
    cg_diag diag = {0};
    cg_status st = cg_read_ascii(e->text, strlen(e->text), &g, &diag);
    int ok = 1;
    if (st != CG_EPARSE || diag.line != e->line || diag.column != e->column) {
        print_error("reading \"%s\": got %s at %d:%d (%s), want CG_EPARSE at %d:%d\n", e->text,
                    cg_strerror(st), diag.line, diag.column, diag.message, e->line, e->column);
        ok = 0;
    }
    if (g != NULL) {
        print_error("reading \"%s\": output not NULL after an error\n", e->text);
        if (st == CG_OK)
            cg_grid_free(g);
        ok = 0;
    }
    if (strlen(diag.message) == 0) {
        print_error("reading \"%s\": no message\n", e->text);
        ok = 0;
    }
    return ok ? 0 : -1;
}

static void check_read_errors(const ascii_error *cases, size_t n)
{
    size_t bad = 0;
    for (size_t k = 0; k < n; k++)
        bad += try_read_error(&cases[k]) != 0;
    if (bad) {
        print_error("%zu of %zu cases differ\n", bad, n);
        fail();
    }
}

static void reader_reports_unknown_character_position(void **state)
{
    (void)state;
    static const ascii_error cases[] = {
        {"@", 1, 1},
        {"#.#\n#?#\n", 2, 2},
        {"#.#\n#.#\n##~\n", 3, 3},
        {"#\t#\n", 1, 2},
        {"##\r\n#!\r\n", 2, 2},
        {"#\xc3\xa9#\n", 1, 2},
        {"###\n###\n###\n##,", 4, 3},
        {"...\n..#\n.-.\n", 3, 2},
    };
    check_read_errors(cases, sizeof cases / sizeof cases[0]);
}

static void reader_reports_ragged_row_position(void **state)
{
    (void)state;
    static const ascii_error cases[] = {
        /* column min(len, width) + 1 */
        {"###\n##\n", 2, 3},
        {"###\n####\n", 2, 4},
        {"###\n#####\n", 2, 4},
        {"###\n###\n#\n", 3, 2},
        {"###\r\n##\r\n", 2, 3},
        {"###\n###\n##", 3, 3},
        {"#\n##\n", 2, 2},
        {"#####\n#####\n\n#####\n", 3, 1},
    };
    check_read_errors(cases, sizeof cases / sizeof cases[0]);
}

static void reader_rejects_empty_input_at_line_one(void **state)
{
    (void)state;
    static const ascii_error e = {"", 1, 1};
    check_read_errors(&e, 1);
}

static void failing_write_callback_gives_eio(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 70, 40), CG_OK);
    cg_write_options opt = {.format = CG_FORMAT_ASCII, .scale = 0};
    /* Count the calls of a successful write, then fail each one in turn. */
    tu_buf ok = {0};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &opt, tu_buf_write, &ok, &diag), CG_OK);
    assert_true(ok.calls >= 1);
    for (int at = 1; at <= ok.calls; at++) {
        tu_buf b = {0};
        b.fail_at = at;
        cg_diag d = {0};
        assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &d), CG_EIO);
        assert_int_equal(b.calls, at); /* no further writes after a failure */
        tu_buf_free(&b);
    }
    tu_buf_free(&ok);
    cg_grid_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reader_maps_each_character),
        cmocka_unit_test(reader_accepts_every_reach_overlay_character_as_floor),
        cmocka_unit_test(writer_renders_cells_and_markers),
        cmocka_unit_test(writer_handles_degenerate_sizes),
        cmocka_unit_test(round_trip_gives_the_canonical_text),
        cmocka_unit_test(random_maps_survive_write_then_read),
        cmocka_unit_test(every_path_writes_the_same_text),
        cmocka_unit_test(reader_reads_only_len_bytes),
        cmocka_unit_test(reader_reports_unknown_character_position),
        cmocka_unit_test(reader_reports_ragged_row_position),
        cmocka_unit_test(reader_rejects_empty_input_at_line_one),
        cmocka_unit_test(failing_write_callback_gives_eio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
