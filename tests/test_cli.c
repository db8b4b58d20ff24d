/* test_cli.c - the cavegen executable end to end: exit codes, messages,
 * determinism, pipes, atomic output (docs/cli.md, docs/testing.md). Each case runs the built
 * binary (CAVEGEN_EXE) through tu_exec (testutil.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs cavegen in the work folder with args and stdin_text (NULL: empty). */
static tu_result run_v(const char *stdin_text, const char *const *args)
{
    tu_cmd cmd = {.dir = tu_workdir, .stdin_text = stdin_text ? stdin_text : ""};
    return tu_exec(&cmd, CAVEGEN_EXE, args);
}

#define RUN(stdin_text, ...) run_v(stdin_text, TU_ARGS(__VA_ARGS__))

/* stderr is exactly one "cavegen: " message line, optionally followed by
 * the pointer to --help, and contains needle. */
static void assert_one_message(const tu_result *r, const char *needle)
{
    if (strncmp(r->err, "cavegen: ", 9) != 0 || !strstr(r->err, needle))
        fail_msg("stderr %s lacks 'cavegen: ...%s'", r->err, needle);
    const char *nl = strchr(r->err, '\n');
    assert_non_null(nl);
    if (nl[1] != '\0' && strcmp(nl + 1, "Try 'cavegen --help' for more information.\n") != 0)
        fail_msg("more than one message line: %s", r->err);
}

/* ------------------------------------------------------------------ */

static void type2_seed42_prints_a_walled_80x50_map_every_time(void **state)
{
    (void)state;
    tu_result a = RUN(NULL, "--preset", "type2", "--seed", "42");
    tu_result b = RUN(NULL, "--preset", "type2", "--seed", "42");
    assert_int_equal(a.status, 0);
    assert_string_equal(a.err, "");
    assert_int_equal(a.outlen, 81 * 50);
    assert_memory_equal(a.out, b.out, a.outlen);
    for (int y = 0; y < 50; y++) {
        const char *row = a.out + y * 81;
        assert_int_equal(row[80], '\n');
        assert_int_equal(row[0], '#');
        assert_int_equal(row[79], '#');
        for (int x = 0; x < 80; x++) {
            assert_true(row[x] == '#' || row[x] == '.');
            if (y == 0 || y == 49)
                assert_int_equal(row[x], '#');
        }
    }
    char golden[400];
    snprintf(golden, sizeof golden, "%s/golden/type2-seed42-80x50.txt", CG_TEST_DIR);
    size_t glen;
    char *g = tu_read_file(golden, &glen);
    assert_non_null(g);
    assert_int_equal(glen, a.outlen);
    assert_memory_equal(g, a.out, glen);
    free(g);
    tu_result_free(&a);
    tu_result_free(&b);
}

static void default_pipeline_is_type2(void **state)
{
    (void)state;
    tu_result a = RUN(NULL, "--seed", "42");
    tu_result b = RUN(NULL, "-p", "type2", "-s", "42");
    assert_int_equal(a.status, 0);
    assert_int_equal(a.outlen, b.outlen);
    assert_memory_equal(a.out, b.out, a.outlen);
    tu_result_free(&a);
    tu_result_free(&b);
}

static void piping_composes_with_the_preset(void **state)
{
    (void)state;
    tu_result first = RUN(NULL, "--seed", "7", "--fill", "45", "--generations", "5:5,-1");
    assert_int_equal(first.status, 0);
    tu_result second = RUN(first.out, "-i", "-", "--generations", "1:5,0");
    tu_result whole = RUN(NULL, "--preset", "type2", "--seed", "7");
    assert_int_equal(second.status, 0);
    assert_int_equal(second.outlen, whole.outlen);
    assert_memory_equal(second.out, whole.out, whole.outlen);
    tu_result_free(&first);
    tu_result_free(&second);
    tu_result_free(&whole);
}

static void step_options_append_after_the_preset(void **state)
{
    (void)state;
    char preset[300];
    tu_path(preset, sizeof preset, "p.preset");
    tu_write_text(preset, "# p - test\nfill 45\ngenerations 5 r1=5 r2=-1\n");
    tu_result a = RUN(NULL, "-p", preset, "-s", "3", "--step", "generations 1 r1=5 r2=0");
    tu_result b = RUN(NULL, "-p", "type2", "-s", "3");
    assert_int_equal(a.status, 0);
    assert_int_equal(a.outlen, b.outlen);
    assert_memory_equal(a.out, b.out, a.outlen);
    tu_result_free(&a);
    tu_result_free(&b);
    unlink(preset);
}

static void size_options_set_the_map_size(void **state)
{
    (void)state;
    tu_result a = RUN(NULL, "-s", "1", "-W", "65", "-H", "3");
    assert_int_equal(a.status, 0);
    assert_int_equal(a.outlen, 66 * 3);
    tu_result_free(&a);
    tu_result b = RUN(NULL, "-s", "1", "--size", "1x7");
    assert_int_equal(b.status, 0);
    assert_string_equal(b.out, "#\n#\n#\n#\n#\n#\n#\n");
    tu_result_free(&b);
}

static void png_output_is_a_png_and_no_temporary_is_left(void **state)
{
    (void)state;
    TU_REQUIRE_PNG(); /* test_png_support.c: the build without it */
    tu_result a = RUN(NULL, "-p", "type3", "-s", "42", "-o", "cave.png");
    assert_int_equal(a.status, 0);
    char path[300];
    tu_path(path, sizeof path, "cave.png");
    size_t len;
    char *png = tu_read_file(path, &len);
    assert_non_null(png);
    assert_true(len > 8);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    free(png);
    char names[1000];
    tu_list_dir(tu_workdir, NULL, names, sizeof names);
    assert_string_equal(names, "cave.png ");
    unlink(path);
    tu_result_free(&a);
}

static void format_follows_the_extension_and_the_flag(void **state)
{
    (void)state;
    /* A build without PNG (CAVEGEN_PNG=OFF) checks the flag with PBM. */
    const char *image = tu_image_ext();
    tu_result a = RUN(NULL, "-s", "1", "-o", "m.txt");
    tu_result b = RUN(NULL, "-s", "1", "-f", image, "-o", "m.dat");
    tu_result c = RUN(NULL, "-s", "1");
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    char path[300];
    tu_path(path, sizeof path, "m.txt");
    size_t len;
    char *txt = tu_read_file(path, &len);
    assert_non_null(txt);
    assert_int_equal(len, c.outlen);
    assert_memory_equal(txt, c.out, len);
    free(txt);
    unlink(path);
    tu_path(path, sizeof path, "m.dat");
    char *png = tu_read_file(path, &len);
    assert_non_null(png);
    const char *magic = strcmp(image, "png") == 0 ? "\x89PNG" : "P4\n";
    assert_memory_equal(png, magic, strlen(magic));
    free(png);
    unlink(path);
    tu_result_free(&a);
    tu_result_free(&b);
    tu_result_free(&c);
}

static void input_map_is_converted_without_a_seed_report(void **state)
{
    (void)state;
    const char *map = "#####\n#.<.#\n#...#\n#####\n";
    tu_result a = RUN(map, "-i", "-");
    assert_int_equal(a.status, 0);
    assert_string_equal(a.out, map);
    assert_string_equal(a.err, "");
    tu_result_free(&a);
}

static void a_drawn_seed_is_reported_unless_quiet(void **state)
{
    (void)state;
    tu_result a = RUN(NULL, "-W", "10", "-H", "5");
    assert_int_equal(a.status, 0);
    assert_true(strncmp(a.err, "cavegen: seed ", 14) == 0);
    /* The reported seed reproduces the map. */
    char seed[32];
    size_t n = strcspn(a.err + 14, "\n");
    assert_true(n < sizeof seed);
    memcpy(seed, a.err + 14, n);
    seed[n] = '\0';
    tu_result b = RUN(NULL, "-W", "10", "-H", "5", "-s", seed);
    assert_string_equal(a.out, b.out);
    tu_result q = RUN(NULL, "-q", "-W", "10", "-H", "5");
    assert_int_equal(q.status, 0);
    assert_string_equal(q.err, "");
    tu_result_free(&a);
    tu_result_free(&b);
    tu_result_free(&q);
}

static void preset_listing_and_showing(void **state)
{
    (void)state;
    tu_result a = RUN(NULL, "--list-presets");
    assert_int_equal(a.status, 0);
    for (int i = 1; i <= 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "type%d", i);
        assert_non_null(strstr(a.out, name));
    }
    tu_result_free(&a);
    tu_result b = RUN(NULL, "--show-preset", "type2");
    assert_int_equal(b.status, 0);
    char path[400];
    snprintf(path, sizeof path, "%s/../presets/type2.preset", CG_TEST_DIR);
    char *text = tu_read_file(path, NULL);
    assert_non_null(text);
    /* The preset's text, then its settings as comments. */
    assert_memory_equal(b.out, text, strlen(text));
    assert_non_null(strstr(b.out + strlen(text), "\n#   fill=45\n#   generations.1=5\n"));
    free(text);
    tu_result_free(&b);
    tu_result c = RUN(NULL, "--show-preset", "nope");
    assert_int_equal(c.status, 2);
    assert_one_message(&c, "nope");
    tu_result_free(&c);
}

/* -D: a setting changes the preset as an edited copy would, shows in
 * --show-preset and in the map's recorded text; wrong ones are usage
 * errors quoting them. */
static void settings_change_a_preset(void **state)
{
    (void)state;
    tu_result a = RUN(NULL, "-p", "type2", "-s", "5", "-D", "fill=47", "-D",
                      "generations.2.r2=1");
    tu_result b = RUN(NULL, "-s", "5", "--fill", "47", "--generations", "5:5,-1",
                      "--generations", "1:5,1");
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    assert_string_equal(a.out, b.out);
    tu_result_free(&a);
    tu_result_free(&b);
    tu_result c = RUN(NULL, "--show-preset", "level", "--set", "poi.count=4");
    assert_int_equal(c.status, 0);
    assert_non_null(strstr(c.out, "\npoi count=4 spacing="));
    assert_non_null(strstr(c.out, "#   poi.count=4\n"));
    tu_result_free(&c);
    tu_result j = RUN(NULL, "-p", "type2", "-s", "5", "-D", "fill=47", "-f", "json");
    assert_int_equal(j.status, 0);
    assert_non_null(strstr(j.out, "fill 47\\n"));
    tu_result_free(&j);
    static const char *const bad[][2] = {
        {"poi.cont=4", "poi has no option 'cont'"},
        {"rule=3", "say which"},
        {"fill", "NAME=VALUE"},
        {"fill=200", "'fill=200'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_result e = RUN(NULL, "-p", "level", "-s", "1", "-D", bad[i][0]);
        assert_int_equal(e.status, 2);
        assert_one_message(&e, bad[i][1]);
        assert_string_equal(e.out, "");
        tu_result_free(&e);
    }
    /* -p NAME with NAME.preset beside it: named, not loaded in its place. */
    char path[512];
    snprintf(path, sizeof path, "%s/cli-test-mine.preset", tu_workdir);
    tu_write_text(path, "fill 45\n");
    tu_result m = RUN(NULL, "-p", "cli-test-mine", "-s", "1");
    remove(path);
    assert_int_equal(m.status, 2);
    assert_one_message(&m, "there is a file 'cli-test-mine.preset': use --preset "
                           "cli-test-mine.preset");
    tu_result_free(&m);
    tu_result n = RUN(NULL, "--step", "fill 45", "-D", "fill=40");
    assert_int_equal(n.status, 2);
    assert_one_message(&n, "no preset");
    tu_result_free(&n);
}

/* Half blocks per line of an ANSI picture, and its lines; -1 if a line
 * differs from the first in width. */
static int picture_width(const char *out, int *lines)
{
    int width = -1;
    *lines = 0;
    for (const char *p = out; *p; (*lines)++) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            return -1;
        int n = 0;
        for (const char *q = p; q + 2 < nl; q++)
            n += memcmp(q, "\xe2\x96\x80", 3) == 0;
        if (width >= 0 && n != width)
            return -1;
        width = n;
        p = nl + 1;
    }
    return width;
}

/* The terminal picture: --preview fits the terminal's width ($COLUMNS
 * when stdout is no terminal), a terminal gets it by default, a pipe gets
 * ASCII unless asked. */
static void preview_fits_the_terminal(void **state)
{
    (void)state;
    char line[1024];
    tu_cmd cmd = {.dir = tu_workdir, .stdin_text = ""};
    snprintf(line, sizeof line, "COLUMNS=40 '%s' --preview -p type2 -s 3", CAVEGEN_EXE);
    tu_result a = tu_shell(&cmd, line);
    int lines = 0;
    assert_int_equal(a.status, 0);
    assert_int_equal(picture_width(a.out, &lines), 40); /* 80 cells, 2 per column */
    assert_int_equal(lines, 13);                        /* 50 rows: 25 blocks, 2 per line */
    tu_result_free(&a);
    snprintf(line, sizeof line, "COLUMNS=200 '%s' --preview -p type2 -s 3", CAVEGEN_EXE);
    a = tu_shell(&cmd, line);
    assert_int_equal(picture_width(a.out, &lines), 80);
    assert_int_equal(lines, 25);
    tu_result_free(&a);
    /* A pipe without --preview: ASCII. */
    tu_result b = RUN(NULL, "-p", "type2", "-s", "3");
    assert_true(b.out[0] == '#');
    tu_result_free(&b);
    /* A terminal (script(1) gives one): the picture by default. */
    snprintf(line, sizeof line,
             "command -v script >/dev/null || exit 77; COLUMNS=40 script -qec \"'%s' -p type2 -s 3\" "
             "/dev/null",
             CAVEGEN_EXE);
    tu_result c = tu_shell(&cmd, line);
    if (c.status != 77) {
        assert_int_equal(c.status, 0);
        assert_non_null(strstr(c.out, "\xe2\x96\x80"));
        assert_null(strstr(c.out, "####"));
    }
    tu_result_free(&c);
    tu_result e = RUN(NULL, "--preview", "-o", "x.txt");
    assert_int_equal(e.status, 2);
    assert_one_message(&e, "--preview shows the map on standard output");
    tu_result_free(&e);
}

static void help_and_version_go_to_stdout(void **state)
{
    (void)state;
    tu_result h = RUN(NULL, "--help");
    assert_int_equal(h.status, 0);
    assert_non_null(strstr(h.out, "--preset"));
    assert_non_null(strstr(h.out, "--generations"));
    assert_string_equal(h.err, "");
    tu_result v = RUN(NULL, "-V");
    assert_int_equal(v.status, 0);
    char want[64];
    snprintf(want, sizeof want, "cavegen %s\n", cg_version_string());
    assert_string_equal(v.out, want);
    tu_result_free(&h);
    tu_result_free(&v);
}

/* Usage errors: exit 2, one message naming the problem, nothing on stdout. */
static void usage_errors_exit_2_with_one_message(void **state)
{
    (void)state;
    static const struct {
        const char *args[6];
        const char *needle;
    } cases[] = {
        {{"--bogus"}, "bogus"},
        {{"-s", "-1"}, "seed"},
        {{"-s", "abc"}, "seed"},
        {{"-s", "18446744073709551616"}, "seed"},
        {{"-s", ""}, "seed"},
        {{"-W", "0"}, "--width '0': the width must be an integer in 1..1048576"},
        {{"-H", "99999999999"}, "--height '99999999999': the height must be an integer in"},
        {{"--size", "10x"}, "size"},
        {{"--size", "10"}, "size"},
        {{"--scale", "0"}, "--scale: '0'"},
        {{"--scale", "65"}, "--scale: '65' is not in 1..64"},
        {{"--fill", "101"}, "--fill '101': the fill must be a percentage in 0..100"},
        {{"--fill", "x"}, "fill"},
        {{"--generations", "5:5"}, "generations"},
        {{"--generations", "5:10,0"}, "--generations '5:10,0': r1 must be an integer in 0..9"},
        {{"--generations", "5:5,22"}, "--generations '5:5,22': r2 must be an integer in -1..21"},
        {{"--step", "bogus 1"}, "unknown step"},
        {{"--step", "smooth walls=10"}, "walls"},
        {{"-p", "no-such-preset"}, "no-such-preset"},
        {{"-f", "gif"}, "gif"},
        {{"-i", "-", "-W", "10"}, "input"},
        {{"extra"}, "extra"},
        {{"-s"}, "s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r = run_v("#\n", cases[i].args);
        if (r.status != 2)
            fail_msg("case %zu (%s): exit %d, stderr %s", i, cases[i].args[0], r.status, r.err);
        assert_one_message(&r, cases[i].needle);
        assert_int_equal(r.outlen, 0);
        tu_result_free(&r);
    }
}

static void bad_files_exit_1_with_their_position(void **state)
{
    (void)state;
    char map[300], preset[300];
    tu_path(map, sizeof map, "ragged.txt");
    tu_write_text(map, "####\n#..#\n#.#\n####\n");
    tu_result a = RUN(NULL, "-i", map);
    assert_int_equal(a.status, 1);
    assert_one_message(&a, "ragged.txt:3:4:");
    tu_result_free(&a);

    tu_result b = RUN("##\n#@\n", "-i", "-");
    assert_int_equal(b.status, 1);
    assert_one_message(&b, ":2:2:");
    tu_result_free(&b);

    tu_path(preset, sizeof preset, "bad.preset");
    tu_write_text(preset, "# bad\nfill 45\n\ngenerations 5 r1=12 r2=0\n");
    tu_result c = RUN(NULL, "-p", preset);
    assert_int_equal(c.status, 1);
    assert_one_message(&c, "bad.preset:4:18: r1");
    tu_result_free(&c);

    tu_result d = RUN(NULL, "-i", "no-such-file.txt");
    assert_int_equal(d.status, 1);
    assert_one_message(&d, "no-such-file.txt");
    tu_result_free(&d);
    unlink(map);
    unlink(preset);
}

static void failed_writes_leave_no_file_and_keep_the_old_one(void **state)
{
    (void)state;
    /* A missing folder. */
    char missing[64];
    snprintf(missing, sizeof missing, "missing/dir/cave.%s", tu_image_ext());
    tu_result a = RUN(NULL, "-s", "1", "-o", missing);
    assert_int_equal(a.status, 1);
    assert_one_message(&a, missing);
    tu_result_free(&a);

    /* A folder as the output. */
    char dir[300];
    tu_path(dir, sizeof dir, "adir");
    assert_int_equal(mkdir(dir, 0755), 0);
    tu_result b = RUN(NULL, "-s", "1", "-o", "adir");
    assert_int_equal(b.status, 1);
    assert_one_message(&b, "adir");
    tu_result_free(&b);
    rmdir(dir);

    /* An existing file survives a run that fails. */
    char keep[300];
    tu_path(keep, sizeof keep, "keep.txt");
    tu_write_text(keep, "precious\n");
    tu_result c = RUN("#\n##\n", "-i", "-", "-o", "keep.txt");
    assert_int_equal(c.status, 1);
    char *text = tu_read_file(keep, NULL);
    assert_string_equal(text, "precious\n");
    free(text);
    tu_result_free(&c);

    /* ... and is replaced whole by one that succeeds. */
    tu_result d = RUN("#.#\n", "-i", "-", "-o", "keep.txt");
    assert_int_equal(d.status, 0);
    text = tu_read_file(keep, NULL);
    assert_string_equal(text, "#.#\n");
    free(text);
    tu_result_free(&d);
    unlink(keep);

    char names[1000];
    tu_list_dir(tu_workdir, NULL, names, sizeof names);
    assert_string_equal(names, "");
}

static void generation_step_follows_the_seed_rule_on_a_map(void **state)
{
    (void)state;
    /* Hand-computed: a 7x5 map; inside cells counted with the centre.
     * With r1=5 r2=-1 a cell is wall iff >= 5 walls in its 3x3 block. */
    const char *map = "#######\n"
                      "#..#..#\n"
                      "#.###.#\n"
                      "#.....#\n"
                      "#######\n";
    /* (1,1): block (0..2,0..2) walls: row0 3, row1 #.. 1, row2 #.# 2 = 6 -> wall.
     * (2,1): row0 3, row1 ..# 1, row2 .## 2 = 6 -> wall. (3,1): 3 + .#. 1 + ### 3 = 7.
     * (4,1): 3 + #.. 1 + ##. 2 = 6. (5,1): 3 + ..# 1 + #.# 2 = 6.
     * (1,2): #.. 1 + #.# 2 + #.. 1 = 4 -> floor. (2,2): ..# 1 + .## 2 + ... 0 = 3.
     * (3,2): .#. 1 + ### 3 + ... 0 = 4. (4,2): #.. 1 + ##. 2 + 0 = 3. (5,2): ..# 1 + #.# 2 + ..# 1 = 4.
     * (1,3): #.# 2 + #.. 1 + ### 3 = 6 -> wall. (2,3): .## 2 + 0 + 3 = 5 -> wall.
     * (3,3): ### 3 + 0 + 3 = 6. (4,3): ##. 2 + 0 + 3 = 5. (5,3): #.# 2 + ..# 1 + 3 = 6. */
    const char *expect = "#######\n"
                         "#######\n"
                         "#.....#\n"
                         "#######\n"
                         "#######\n";
    tu_result r = RUN(map, "-i", "-", "--step", "generations 1 r1=5 r2=-1");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, expect);
    tu_result_free(&r);
}

/* ------------------------------------------- placement, attempts, stats */

static size_t count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

/* --stats: one line on stderr after the map, key=value or a JSON object. */
static void stats_describe_the_written_map(void **state)
{
    (void)state;
    tu_result a = RUN(NULL, "--preset", "type2", "--seed", "42", "--stats");
    assert_int_equal(a.status, 0);
    assert_int_equal(a.outlen, 81 * 50);
    /* The keys of the JSON map's "stats", then how it was made. */
    char want[96];
    size_t floor = count_char(a.out, '.');
    snprintf(want, sizeof want, "width=80 height=50 floor=%zu floor_permille=%zu regions=", floor,
             floor * 1000 / 4000);
    if (strncmp(a.err, want, strlen(want)) != 0)
        fail_msg("stats %s do not start '%s'", a.err, want);
    assert_non_null(strstr(a.err, " largest_region="));
    assert_non_null(strstr(a.err, " dead_ends="));
    assert_non_null(strstr(a.err, " points=0 path_length=-1 attempts=1 seed=42 run_seed=42\n"));
    assert_int_equal(count_char(a.err, '\n'), 1);
    /* The same map as without --stats. */
    char golden[400];
    snprintf(golden, sizeof golden, "%s/golden/type2-seed42-80x50.txt", CG_TEST_DIR);
    char *g = tu_read_file(golden, NULL);
    assert_non_null(g);
    assert_string_equal(a.out, g);
    free(g);
    tu_result_free(&a);

    tu_result j = RUN(NULL, "-p", "level", "-s", "42", "--stats=json", "-o", "level.txt");
    assert_int_equal(j.status, 0);
    assert_true(strncmp(j.err, "{\"width\":80,\"height\":50,\"floor\":", 32) == 0);
    assert_non_null(strstr(j.err, ",\"floor_permille\":"));
    assert_non_null(strstr(j.err, ",\"regions\":1,\"largest_region\":"));
    assert_non_null(strstr(j.err, ",\"points\":8,\"path_length\":"));
    assert_non_null(strstr(j.err, ",\"seed\":\"42\",\"run_seed\":\""));
    assert_true(strcmp(j.err + strlen(j.err) - 3, "\"}\n") == 0);
    assert_int_equal(count_char(j.err, '\n'), 1);
    assert_null(strstr(j.err, "\"path_length\":-1"));
    tu_result_free(&j);
    /* The same figures, under the same keys, as the JSON map's "stats". */
    tu_result m = RUN(NULL, "-p", "level", "-s", "42", "-f", "json");
    tu_result k = RUN(NULL, "-p", "level", "-s", "42", "--stats=json", "-o", "level.txt");
    const char *stats = strstr(m.out, "\"stats\": {");
    assert_non_null(stats);
    static const char *const keys[] = {"floor", "floor_permille", "regions", "largest_region",
                                       "dead_ends", "points", "path_length"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char in_map[64], in_stats[64];
        snprintf(in_map, sizeof in_map, "\"%s\": ", keys[i]);
        snprintf(in_stats, sizeof in_stats, "\"%s\":", keys[i]);
        const char *a1 = strstr(stats, in_map), *b1 = strstr(k.err, in_stats);
        assert_non_null(a1);
        assert_non_null(b1);
        assert_int_equal(strtoll(a1 + strlen(in_map), NULL, 10),
                         strtoll(b1 + strlen(in_stats), NULL, 10));
    }
    tu_result_free(&m);
    tu_result_free(&k);
    /* A drawn seed: --stats carries it, nothing else on stderr. */
    tu_result d = RUN(NULL, "-p", "type2", "--stats=json", "-o", "level.txt");
    assert_int_equal(d.status, 0);
    assert_true(d.err[0] == '{');
    assert_int_equal(count_char(d.err, '\n'), 1);
    tu_result_free(&d);
    /* No seed (a map read, no random step): null, and none in text. */
    tu_result n = RUN("#####\n#<.>#\n#####\n", "-i", "-", "--stats=json", "-o", "level.txt");
    assert_non_null(strstr(n.err, ",\"seed\":null,\"run_seed\":null}"));
    tu_result_free(&n);
    n = RUN("#####\n#<.>#\n#####\n", "-i", "-", "--stats", "-o", "level.txt");
    assert_non_null(strstr(n.err, " path_length=2 attempts=1 seed=none run_seed=none\n"));
    tu_result_free(&n);
    char written[300];
    tu_path(written, sizeof written, "level.txt");
    assert_int_equal(unlink(written), 0);
}

/* cavegen --preset level --seed 42 -o level.png: the same bytes every time,
 * with an entrance, an exit and points (docs/placement.md, docs/formats.md). */
static void level_preset_places_markers_the_same_every_time(void **state)
{
    (void)state;
    /* A build without PNG (CAVEGEN_PNG=OFF) compares PBM files. */
    const char *image = tu_image_ext();
    char na[16], nb[16];
    snprintf(na, sizeof na, "a.%s", image);
    snprintf(nb, sizeof nb, "b.%s", image);
    tu_result a = RUN(NULL, "--preset", "level", "--seed", "42", "-o", na);
    tu_result b = RUN(NULL, "--preset", "level", "--seed", "42", "-o", nb);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    assert_string_equal(a.err, "");
    char pa[300], pb[300];
    tu_path(pa, sizeof pa, na);
    tu_path(pb, sizeof pb, nb);
    size_t la, lb;
    char *da = tu_read_file(pa, &la), *db = tu_read_file(pb, &lb);
    assert_non_null(da);
    assert_non_null(db);
    const char *magic = strcmp(image, "png") == 0 ? "\x89PNG" : "P4\n";
    assert_true(la > 8 && memcmp(da, magic, strlen(magic)) == 0);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);
    unlink(pa);
    unlink(pb);
    tu_result_free(&a);
    tu_result_free(&b);

    tu_result t = RUN(NULL, "--preset", "level", "--seed", "42");
    assert_int_equal(t.status, 0);
    assert_int_equal(count_char(t.out, '<'), 1);
    assert_int_equal(count_char(t.out, '>'), 1);
    assert_int_equal(count_char(t.out, '*'), 8);
    /* The ASCII map reads back with its markers. */
    tu_result back = RUN(t.out, "-i", "-");
    assert_int_equal(back.status, 0);
    assert_string_equal(back.out, t.out);
    tu_result_free(&back);
    tu_result_free(&t);
}

/* An impossible requirement: exit 1 after the attempts, one message naming
 * it, no output file (and an existing one kept). */
static void impossible_requirement_fails_without_an_output_file(void **state)
{
    (void)state;
    char out[16];
    snprintf(out, sizeof out, "out.%s", tu_image_ext());
    tu_result a = RUN(NULL, "-p", "level", "-s", "42", "--step", "require open>=99%",
                       "--max-attempts", "5", "-o", out);
    assert_int_equal(a.status, 1);
    assert_one_message(&a, "require open>=99%: ");
    assert_one_message(&a, "(best of 5 attempts)");
    assert_int_equal(a.outlen, 0);
    char names[1000];
    tu_list_dir(tu_workdir, NULL, names, sizeof names);
    assert_string_equal(names, "");
    tu_result_free(&a);

    char keep[300];
    tu_path(keep, sizeof keep, "keep.txt");
    tu_write_text(keep, "old map\n");
    tu_result b = RUN(NULL, "-p", "level", "-s", "1", "--step", "require open>=99%", "-o",
                       "keep.txt", "--stats");
    assert_int_equal(b.status, 1);
    assert_one_message(&b, "(best of 100 attempts)");
    char *old = tu_read_file(keep, NULL);
    assert_string_equal(old, "old map\n");
    free(old);
    unlink(keep);
    tu_list_dir(tu_workdir, NULL, names, sizeof names);
    assert_string_equal(names, "");
    tu_result_free(&b);
}

static void attempts_and_stats_options_are_checked(void **state)
{
    (void)state;
    static const struct {
        const char *args[4];
        const char *needle;
    } cases[] = {
        {{"--max-attempts", "0"}, "--max-attempts: '0' is not in 1..1000000"},
        {{"--max-attempts", "1000001"}, "1..1000000"},
        {{"--max-attempts", "x"}, "max-attempts"},
        {{"--max-attempts", "-3"}, "max-attempts"},
        {{"--stats=xml"}, "--stats: unknown format 'xml'"},
        {{"--stats", "json"}, "unexpected argument 'json'"},
        {{"--step", "poi count=0"}, "count"},
        {{"--step", "require open>=200%"}, "open"},
        {{"--step", "downscale 17"}, "1..16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r = run_v(NULL, cases[i].args);
        if (r.status != 2)
            fail_msg("case %zu (%s): exit %d, stderr %s", i, cases[i].args[0], r.status, r.err);
        assert_one_message(&r, cases[i].needle);
        tu_result_free(&r);
    }
    /* A later attempt's seed, reported by --stats, rebuilds the map at once. */
    tu_result a = RUN(NULL, "-p", "level", "-s", "42", "--stats");
    assert_int_equal(a.status, 0);
    const char *rs = strstr(a.err, "run_seed=");
    assert_non_null(rs);
    char seed[32];
    snprintf(seed, sizeof seed, "%.*s", (int)strcspn(rs + 9, "\n"), rs + 9);
    tu_result b = RUN(NULL, "-p", "level", "-s", seed, "--stats");
    assert_int_equal(b.status, 0);
    assert_string_equal(a.out, b.out);
    assert_non_null(strstr(b.err, " attempts=1 "));
    tu_result_free(&a);
    tu_result_free(&b);
}

static void reach_overlays_distances_on_an_input_map(void **state)
{
    (void)state;
    const char *map = "#######\n"
                      "#.....#\n"
                      "#.#x#.#\n"
                      "#.....#\n"
                      "#######\n";
    tu_result r = RUN(map, "-i", "-", "--reach", "1,1", "--moves", "3");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "#######\n"
                               "#0123.#\n"
                               "#1#x#.#\n"
                               "#23...#\n"
                               "#######\n");
    tu_result_free(&r);
    /* Two starts: the nearest counts; -f distances lists them. */
    tu_result c = RUN(map, "-i", "-", "--reach", "1,1", "--reach", "5,3", "-f", "distances");
    assert_int_equal(c.status, 0);
    assert_true(strncmp(c.out, "x,y,distance\n1,1,0\n2,1,1\n3,1,2\n4,1,3\n5,1,2\n", 43) == 0);
    tu_result_free(&c);
    tu_result bad = RUN(map, "-i", "-", "--reach", "0,0");
    assert_int_equal(bad.status, 1);
    assert_one_message(&bad, "0,0 is a wall");
    tu_result_free(&bad);
    /* From an occupied cell: the unit's own, where it starts. */
    tu_result unit = RUN(map, "-i", "-", "--reach", "3,2", "-f", "distances");
    assert_int_equal(unit.status, 0);
    assert_string_equal(unit.out, "x,y,distance\n1,1,3\n2,1,2\n3,1,1\n4,1,2\n5,1,3\n1,2,4\n"
                                  "3,2,0\n5,2,4\n1,3,3\n2,3,2\n3,3,1\n4,3,2\n5,3,3\n");
    tu_result_free(&unit);
}

static void reach_options_are_checked_as_usage(void **state)
{
    (void)state;
    static const struct {
        const char *args[6];
        const char *needle;
    } cases[] = {
        {{"--moves", "3"}, "--moves needs --reach"},
        {{"--reach", "3"}, "X,Y"},
        {{"--reach", "a,b"}, "X,Y"},
        {{"--reach", "1,1", "--moves", "-1"}, "--moves '-1': moves must be an integer in 0.."},
        {{"--reach", "1,1", "--moves", "x"}, "--moves: 'x' is not a number"},
        /* One reach step: the library's diagnostic names --moves or --reach. */
        {{"--reach", "2000000,1", "--moves", "5"}, "--reach '2000000,1': x must be an integer"},
        {{"--reach", "1,1", "--reach", "2,1048576"}, "--reach '1,1;2,1048576': y must be"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_result r = run_v(NULL, cases[i].args);
        if (r.status != 2)
            fail_msg("case %zu: exit %d, stderr %s", i, r.status, r.err);
        assert_one_message(&r, cases[i].needle);
        tu_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(type2_seed42_prints_a_walled_80x50_map_every_time),
        cmocka_unit_test(default_pipeline_is_type2),
        cmocka_unit_test(piping_composes_with_the_preset),
        cmocka_unit_test(step_options_append_after_the_preset),
        cmocka_unit_test(size_options_set_the_map_size),
        cmocka_unit_test(png_output_is_a_png_and_no_temporary_is_left),
        cmocka_unit_test(format_follows_the_extension_and_the_flag),
        cmocka_unit_test(input_map_is_converted_without_a_seed_report),
        cmocka_unit_test(a_drawn_seed_is_reported_unless_quiet),
        cmocka_unit_test(preset_listing_and_showing),
        cmocka_unit_test(settings_change_a_preset),
        cmocka_unit_test(preview_fits_the_terminal),
        cmocka_unit_test(help_and_version_go_to_stdout),
        cmocka_unit_test(usage_errors_exit_2_with_one_message),
        cmocka_unit_test(bad_files_exit_1_with_their_position),
        cmocka_unit_test(failed_writes_leave_no_file_and_keep_the_old_one),
        cmocka_unit_test(generation_step_follows_the_seed_rule_on_a_map),
        cmocka_unit_test(reach_overlays_distances_on_an_input_map),
        cmocka_unit_test(reach_options_are_checked_as_usage),
        cmocka_unit_test(stats_describe_the_written_map),
        cmocka_unit_test(level_preset_places_markers_the_same_every_time),
        cmocka_unit_test(impossible_requirement_fails_without_an_output_file),
        cmocka_unit_test(attempts_and_stats_options_are_checked),
    };
    return cmocka_run_group_tests(tests, tu_workdir_setup, tu_workdir_teardown);
}
