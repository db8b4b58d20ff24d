/* test_batch.c - batches, threads and chunks through the cavegen executable
 * (docs/determinism.md; docs/cli.md, docs/scale.md): -n with a %d pattern, the
 * stream, --stats per map, -j giving the same bytes for any N, the
 * progress bar on a terminal only, Ctrl-C, --chunk. The pattern formatter
 * of src/cli/pattern.c is also checked directly against printf. */
#define _XOPEN_SOURCE 700 /* posix_openpt and friends */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pattern.h"

/* cavegen runs in the work folder, its outputs captured. */
static const tu_cmd in_workdir = {.dir = tu_workdir};

#define ARGS TU_ARGS
#define START(...) tu_start(&in_workdir, CAVEGEN_EXE, ARGS(__VA_ARGS__))
#define RUN(...) tu_exec(&in_workdir, CAVEGEN_EXE, ARGS(__VA_ARGS__))

static void assert_ok(const tu_result *r)
{
    if (r->status != 0)
        fail_msg("exit %d: %s", r->status, r->err);
}

static void assert_usage_error(const tu_result *r, const char *needle)
{
    if (r->status != 2 || strncmp(r->err, "cavegen: ", 9) != 0 || !strstr(r->err, needle))
        fail_msg("expected exit 2 and 'cavegen: ...%s', got %d: %s", needle, r->status, r->err);
}

/* The ASCII map a single run with this seed writes to stdout. */
static char *single(const char *preset, uint64_t seed, size_t *len)
{
    char s[32];
    snprintf(s, sizeof s, "%" PRIu64, seed);
    tu_result r = RUN("-p", preset, "-s", s);
    assert_ok(&r);
    free(r.err);
    *len = r.outlen;
    return r.out;
}

static char *file_in(const char *name, size_t *len)
{
    char path[512];
    tu_path(path, sizeof path, name);
    return tu_read_file(path, len);
}

/* ------------------------------------------------------------ batches */

/* The criterion: map 3 of --seed 42 -n 10 is --seed 45; the
 * folder of the pattern is created. */
static void map_i_of_a_batch_is_the_map_of_seed_plus_i(void **state)
{
    (void)state;
    tu_workdir_empty();
    tu_result r = RUN("--preset", "type2", "--seed", "42", "-n", "10", "-o", "out/%02d.txt");
    assert_ok(&r);
    assert_string_equal(r.err, "");
    tu_result_free(&r);
    for (int i = 0; i < 10; i++) {
        char name[32];
        size_t len = 0, want_len = 0;
        snprintf(name, sizeof name, "out/%02d.txt", i);
        char *got = file_in(name, &len);
        if (!got)
            fail_msg("%s missing", name);
        char *want = single("type2", 42 + (uint64_t)i, &want_len);
        assert_int_equal(len, want_len);
        assert_memory_equal(got, want, len);
        free(got);
        free(want);
    }
    /* Only the ten maps: no temporary file is left. */
    char dir[300];
    tu_path(dir, sizeof dir, "out");
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, 10);
}

/* Seeds wrap modulo 2^64 (docs/cli.md). */
static void seeds_wrap_around(void **state)
{
    (void)state;
    tu_workdir_empty();
    tu_result r = RUN("-p", "type3", "-s", "18446744073709551615", "-n", "2", "-o", "m%d.txt");
    assert_ok(&r);
    tu_result_free(&r);
    size_t a = 0, b = 0;
    char *got = file_in("m1.txt", &a);
    char *want = single("type3", 0, &b);
    assert_non_null(got);
    assert_int_equal(a, b);
    assert_memory_equal(got, want, a);
    free(got);
    free(want);
}

/* -o - (or no -o): every map on stdout, one blank line between two. */
static void the_stream_holds_every_map_a_blank_line_apart(void **state)
{
    (void)state;
    tu_result r = RUN("-p", "type1", "-s", "7", "-n", "4", "--size", "33x9");
    assert_ok(&r);
    tu_result r2 = RUN("-p", "type1", "-s", "7", "-n", "4", "--size", "33x9", "-o", "-");
    assert_ok(&r2);
    assert_int_equal(r.outlen, r2.outlen);
    assert_memory_equal(r.out, r2.out, r.outlen);
    const char *p = r.out;
    for (int i = 0; i < 4; i++) {
        char s[16];
        snprintf(s, sizeof s, "%d", 7 + i);
        tu_result one = RUN("-p", "type1", "-s", s, "--size", "33x9");
        assert_ok(&one);
        assert_memory_equal(p, one.out, one.outlen);
        p += one.outlen;
        if (i < 3)
            assert_int_equal(*p++, '\n');
        tu_result_free(&one);
    }
    assert_ptr_equal(p, r.out + r.outlen);
    tu_result_free(&r);
    tu_result_free(&r2);
}

/* One thread writes each map of a stream straight into stdout as it is
 * made, several threads buffer a round and write it in order: the same
 * bytes and --stats lines either way, and map i is the map of a run of its
 * own with seed + i, in text and in JSON, markers included. */
static void a_stream_on_one_thread_equals_the_maps_run_one_at_a_time(void **state)
{
    (void)state;
    static const char *const formats[] = {"ascii", "json"};
    for (size_t f = 0; f < 2; f++) {
        tu_result one =
            RUN("-p", "level", "-s", "11", "-n", "25", "-j", "1", "-f", formats[f], "--stats");
        tu_result two =
            RUN("-p", "level", "-s", "11", "-n", "25", "-j", "2", "-f", formats[f], "--stats");
        assert_ok(&one);
        assert_ok(&two);
        assert_int_equal(one.outlen, two.outlen);
        assert_memory_equal(one.out, two.out, one.outlen);
        assert_string_equal(one.err, two.err);
        const char *p = one.out;
        for (int i = 0; i < 25; i++) {
            char seed[16];
            snprintf(seed, sizeof seed, "%d", 11 + i);
            tu_result r = RUN("-p", "level", "-s", seed, "-f", formats[f]);
            assert_ok(&r);
            assert_true((size_t)(one.out + one.outlen - p) >= r.outlen);
            assert_memory_equal(p, r.out, r.outlen);
            p += r.outlen;
            if (i < 24)
                assert_int_equal(*p++, '\n');
            tu_result_free(&r);
        }
        assert_ptr_equal(p, one.out + one.outlen);
        tu_result_free(&one);
        tu_result_free(&two);
    }
}

/* Without --seed: one seed drawn and reported, map i with drawn + i. */
static void a_drawn_seed_is_reported_once_and_numbers_the_maps(void **state)
{
    (void)state;
    tu_result r = RUN("-p", "type2", "-n", "3", "--size", "20x10");
    assert_ok(&r);
    uint64_t seed = 0;
    assert_int_equal(sscanf(r.err, "cavegen: seed %" SCNu64, &seed), 1);
    assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
    char s[32];
    snprintf(s, sizeof s, "%" PRIu64, seed + 2);
    tu_result last = RUN("-p", "type2", "-s", s, "--size", "20x10");
    assert_ok(&last);
    assert_memory_equal(r.out + r.outlen - last.outlen, last.out, last.outlen);
    tu_result_free(&r);
    tu_result_free(&last);
}

/* --keep-going: a map whose requirements fail is skipped - no file, no
 * stream entry, its folder removed - the others are written under their
 * own index (so file i is still seed + i), the skipped ones reported at the
 * end, or in --stats in map order; exit 0 if any map was written. Each
 * written map is the map of its seed alone. */
static void keep_going_skips_the_maps_that_fail(void **state)
{
    (void)state;
    const char *strict = "require open>=40%"; /* about a third pass at one attempt */
    tu_result r = RUN("-p", "level", "--size", "24x16", "--step", strict, "--max-attempts", "1",
                      "-s", "1", "-n", "12", "-j", "3", "--keep-going", "-o", "kg/%02d/map.txt");
    assert_int_equal(r.status, 0);
    /* Which maps pass, one by one. */
    int passed = 0, skipped = 0;
    for (int i = 0; i < 12; i++) {
        char seed[8], path[512], name[32];
        snprintf(seed, sizeof seed, "%d", 1 + i);
        tu_result one = RUN("-p", "level", "--size", "24x16", "--step", strict, "--max-attempts",
                            "1", "-s", seed);
        snprintf(name, sizeof name, "kg/%02d/map.txt", i);
        tu_path(path, sizeof path, name);
        char *text = tu_read_file(path, NULL);
        if (one.status == 0) {
            passed++;
            assert_non_null(text);
            assert_string_equal(text, one.out);
        } else {
            skipped++;
            assert_null(text);
            char folder[512];
            snprintf(name, sizeof name, "kg/%02d", i);
            tu_path(folder, sizeof folder, name);
            struct stat st;
            assert_int_not_equal(stat(folder, &st), 0); /* made for it, removed */
            char want[64];
            snprintf(want, sizeof want, "%d (seed %d)", i, 1 + i);
            assert_non_null(strstr(r.err, want));
        }
        free(text);
        tu_result_free(&one);
    }
    assert_true(passed > 0 && skipped > 0);
    char want[96];
    snprintf(want, sizeof want, "cavegen: skipped %d of 12 maps whose requirements were not met",
             skipped);
    assert_true(strncmp(r.err, want, strlen(want)) == 0);
    tu_result_free(&r);
    /* --stats: a line per map, the skipped ones saying so. */
    tu_result t = RUN("-p", "level", "--size", "24x16", "--step", strict, "--max-attempts", "1",
                      "-s", "1", "-n", "12", "--keep-going", "--stats=json", "-o", "-");
    assert_int_equal(t.status, 0);
    int lines = 0, marked = 0;
    for (const char *p = t.err; *p; p = strchr(p, '\n') + 1) {
        char head[32];
        snprintf(head, sizeof head, "{\"index\":%d,", lines);
        assert_true(strncmp(p, head, strlen(head)) == 0);
        marked += strncmp(p + strlen(head), "\"skipped\":true", 14) == 0;
        lines++;
    }
    assert_int_equal(lines, 12);
    assert_int_equal(marked, skipped);
    tu_result_free(&t);
    /* Every map skipped: a failure. */
    tu_result f = RUN("-p", "level", "--size", "24x16", "--step", "require open>=99%",
                      "--max-attempts", "1", "-s", "1", "-n", "3", "--keep-going", "-o", "-");
    assert_int_equal(f.status, 1);
    assert_non_null(strstr(f.err, "every map failed its requirements (3 of 3 skipped"));
    assert_string_equal(f.out, "");
    tu_result_free(&f);
}

/* --stats: one line per map, in map order, starting with its index; -j
 * changes neither the maps nor the lines. */
static void stats_come_one_line_per_map_in_order(void **state)
{
    (void)state;
    tu_result t = RUN("-p", "level", "-s", "100", "-n", "40", "--stats", "-j", "4", "-o", "-");
    assert_ok(&t);
    const char *line = t.err;
    for (int i = 0; i < 40; i++) {
        char want[64];
        snprintf(want, sizeof want, "index=%d width=80 height=50 ", i);
        if (strncmp(line, want, strlen(want)) != 0)
            fail_msg("line %d: %.60s", i, line);
        char seed[40];
        snprintf(seed, sizeof seed, " seed=%d run_seed=", 100 + i);
        const char *nl = strchr(line, '\n');
        assert_non_null(nl);
        if (!strstr(line, seed) || strstr(line, seed) > nl)
            fail_msg("line %d lacks '%s'", i, seed);
        line = nl + 1;
    }
    assert_string_equal(line, "");
    tu_result j = RUN("-p", "level", "-s", "100", "-n", "40", "--stats=json", "-j", "1", "-o",
                       "-");
    assert_ok(&j);
    assert_int_equal(j.outlen, t.outlen);
    assert_memory_equal(j.out, t.out, t.outlen);
    line = j.err;
    for (int i = 0; i < 40; i++) {
        char want[64];
        snprintf(want, sizeof want, "{\"index\":%d,\"width\":80,", i);
        if (strncmp(line, want, strlen(want)) != 0)
            fail_msg("json line %d: %.60s", i, line);
        line = strchr(line, '\n') + 1;
    }
    tu_result_free(&t);
    tu_result_free(&j);
}

/* docs/determinism.md: output identical for any -j, files and stream alike. */
static void jobs_never_change_the_output(void **state)
{
    (void)state;
    static const char *const jobs[] = {"1", "2", "8", "0"};
    char *first = NULL;
    size_t first_len = 0;
    for (size_t k = 0; k < 4; k++) {
        tu_result r = RUN("-p", "type4", "-s", "5", "-n", "300", "--size", "61x23", "-j",
                           jobs[k]);
        assert_ok(&r);
        if (!first) {
            first = r.out;
            first_len = r.outlen;
            free(r.err);
            continue;
        }
        assert_int_equal(r.outlen, first_len);
        assert_memory_equal(r.out, first, first_len);
        tu_result_free(&r);
    }
    free(first);

    tu_workdir_empty();
    /* Images: PNG, or PBM in a build without PNG (CAVEGEN_PNG=OFF). */
    const char *image = tu_image_ext();
    char pa[32], pb[32];
    snprintf(pa, sizeof pa, "a/%%d.%s", image);
    snprintf(pb, sizeof pb, "b/%%d.%s", image);
    tu_result a = RUN("-p", "classic", "-s", "9", "-n", "12", "-j", "1", "-o", pa);
    tu_result b = RUN("-p", "classic", "-s", "9", "-n", "12", "-j", "8", "-o", pb);
    assert_ok(&a);
    assert_ok(&b);
    for (int i = 0; i < 12; i++) {
        char na[32], nb[32];
        size_t la = 0, lb = 0;
        snprintf(na, sizeof na, "a/%d.%s", i, image);
        snprintf(nb, sizeof nb, "b/%d.%s", i, image);
        char *fa = file_in(na, &la), *fb = file_in(nb, &lb);
        assert_non_null(fa);
        assert_non_null(fb);
        assert_int_equal(la, lb);
        assert_memory_equal(fa, fb, la);
        free(fa);
        free(fb);
    }
    tu_result_free(&a);
    tu_result_free(&b);
}

/* One big map splits its passes among the threads: same bytes. */
static void one_big_map_is_the_same_on_any_number_of_threads(void **state)
{
    (void)state;
    static const char *const presets[] = {"type1", "classic", "level"};
    for (size_t p = 0; p < 3; p++) {
        tu_result a = RUN("-p", presets[p], "-s", "3", "--size", "1500x1400", "-j", "1");
        tu_result b = RUN("-p", presets[p], "-s", "3", "--size", "1500x1400", "-j", "3");
        assert_ok(&a);
        assert_ok(&b);
        assert_int_equal(a.outlen, b.outlen);
        assert_memory_equal(a.out, b.out, a.outlen);
        tu_result_free(&a);
        tu_result_free(&b);
    }
}

static void patterns_and_their_errors(void **state)
{
    (void)state;
    static const struct {
        const char *pattern, *first, *last; /* names of maps 0 and 10 */
    } good[] = {
        {"m%d.txt", "m0.txt", "m10.txt"},
        {"m%04d.txt", "m0000.txt", "m0010.txt"},
        {"m%3d.txt", "m  0.txt", "m 10.txt"},
        {"m%-3d.txt", "m0  .txt", "m10 .txt"},
        {"m%+d.txt", "m+0.txt", "m+10.txt"},
        {"m%.3d.txt", "m000.txt", "m010.txt"},
        {"100%%-%d.txt", "100%-0.txt", "100%-10.txt"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tu_workdir_empty();
        tu_result r = RUN("-p", "type2", "-s", "1", "--size", "9x9", "-n", "11", "-o",
                           good[i].pattern);
        assert_ok(&r);
        tu_result_free(&r);
        size_t len;
        char *a = file_in(good[i].first, &len), *b = file_in(good[i].last, &len);
        if (!a || !b)
            fail_msg("%s: no '%s' or '%s'", good[i].pattern, good[i].first, good[i].last);
        free(a);
        free(b);
    }
    static const struct {
        const char *pattern, *needle;
    } bad[] = {
        {"out.txt", "no %d"},        {"%d-%d.txt", "more than one"}, {"%s.txt", "'%'"},
        {"%ld.txt", "'%'"},          {"%5.txt", "'%'"},              {"map%", "'%'"},
        {"%#d.txt", "'%'"},          {"%65d.txt", "width"},          {"%.99d.txt", "precision"},
        {"%*d.txt", "'%'"},          {"50%.txt", "'%'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_result r = RUN("-s", "1", "-n", "2", "-o", bad[i].pattern);
        assert_usage_error(&r, bad[i].needle);
        tu_result_free(&r);
    }
    /* A batch on stdout must be text; PNG maps go to files. */
    tu_result r = RUN("-s", "1", "-n", "2", "-f", "png");
    assert_usage_error(&r, "must be text");
    tu_result_free(&r);
    r = RUN("-s", "1", "-n", "0");
    assert_usage_error(&r, "--count");
    tu_result_free(&r);
    r = RUN("-s", "1", "-j", "-1");
    assert_usage_error(&r, "--jobs");
    tu_result_free(&r);
    /* Without -n the name is a name, '%' and all. */
    tu_workdir_empty();
    r = RUN("-s", "1", "--size", "5x5", "-o", "50%.txt");
    assert_ok(&r);
    tu_result_free(&r);
    size_t len;
    char *f = file_in("50%.txt", &len);
    assert_non_null(f);
    free(f);
}

/* Direct check of the formatter against the C library's printf. */
static void the_pattern_formatter_agrees_with_printf(void **state)
{
    (void)state;
    static const char *const patterns[] = {
        "%d",    "%0d",  "%05d",  "%5d",     "%-5d|",  "%+d",   "% d",  "%+05d",      "%-+6d|",
        "% 04d", "%.3d", "%8.3d", "%-8.3d|", "%08.3d", "%+.2d", "%64d", "x%%y%3dz%%",
    };
    static const int values[] = {0, 1, 9, 10, 99, 100, 12345, 2147483647};
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        const char *why = NULL;
        if (cli_pattern_check(patterns[p], &why) != 0)
            fail_msg("'%s' refused: %s", patterns[p], why);
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            char want[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            snprintf(want, sizeof want, patterns[p], values[v]);
#pragma GCC diagnostic pop
            char *got = cli_pattern_format(patterns[p], (uint64_t)values[v]);
            assert_non_null(got);
            if (strcmp(got, want) != 0)
                fail_msg("'%s' of %d: got '%s', printf '%s'", patterns[p], values[v], got, want);
            free(got);
        }
    }
    /* Precision 0 prints no digit for 0, so map 0 would have no name
     * ("%.0d"), a folder's ("dir/%.d") or one at the root ("%.0d/x"):
     * refused, whatever the flags and width. */
    static const char *const no_digit[] = {"%.0d",  "%.d",     "%-.d",   "%5.0d",
                                           "%+.0d", "dir/%.d", "%.0d/x", "%00.00d"};
    for (size_t p = 0; p < sizeof no_digit / sizeof no_digit[0]; p++) {
        const char *why = NULL;
        if (cli_pattern_check(no_digit[p], &why) == 0)
            fail_msg("'%s' accepted", no_digit[p]);
        assert_non_null(strstr(why, "precision must be at least 1"));
    }
    /* Every map gets its own name, also once normalised: a '..' that climbs
     * out of the folder holding the number is refused; others are not. */
    static const char *const same_name[] = {"c/%d/../same.txt", "c/%d/..",       "%d/../x",
                                            "c/x%dy//./../s",   "a%d/b/../../c", "%d/./../x"};
    for (size_t p = 0; p < sizeof same_name / sizeof same_name[0]; p++) {
        const char *why = NULL;
        if (cli_pattern_check(same_name[p], &why) == 0)
            fail_msg("'%s' accepted", same_name[p]);
        assert_non_null(strstr(why, "same name"));
    }
    static const char *const distinct[] = {"../%d.txt", "a/../%d/x", "a%d/b/../c", "%d/b/../c",
                                           "a/%d//./x", "%d..txt",   "%d/..x/y"};
    for (size_t p = 0; p < sizeof distinct / sizeof distinct[0]; p++) {
        const char *why = NULL;
        if (cli_pattern_check(distinct[p], &why) != 0)
            fail_msg("'%s' refused: %s", distinct[p], why);
    }
    /* Indexes beyond int are formatted too. */
    char *big = cli_pattern_format("%012d", UINT64_C(4294967295));
    assert_string_equal(big, "004294967295");
    free(big);
}

/* ----------------------------------------------------- progress, signals */

/* No bar when stderr is not a terminal (every case above: stderr empty). */
static void no_progress_bar_off_a_terminal(void **state)
{
    (void)state;
    tu_result r = RUN("-s", "1", "-n", "50", "--size", "30x20", "-o", "-");
    assert_ok(&r);
    assert_string_equal(r.err, "");
    tu_result_free(&r);
}

/* On a terminal: a bar with a rate and an ETA, erased at the end. */
static void a_progress_bar_on_a_terminal(void **state)
{
    (void)state;
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        if (master >= 0)
            close(master);
        skip();
    }
    char slave[128];
    snprintf(slave, sizeof slave, "%s", ptsname(master));
    /* stderr on the terminal (tu_start closes its own copy, so the reads
     * below end when the child closes it), stdout to /dev/null. */
    tu_cmd on_terminal = {.stdout_path = "/dev/null", .stderr_path = slave};
    tu_child c = tu_start(&on_terminal, CAVEGEN_EXE,
                          ARGS("-s", "1", "-n", "3000", "--size", "40x20", "-o", "-"));
    char buf[1 << 16];
    size_t n = 0;
    for (;;) {
        ssize_t got = read(master, buf + n, sizeof buf - 1 - n);
        if (got <= 0)
            break; /* EIO once the child has closed the terminal */
        n += (size_t)got;
        if (n == sizeof buf - 1)
            n = 0; /* keep reading; the end is what matters */
    }
    buf[n] = '\0';
    tu_result r = tu_finish(&c);
    close(master);
    assert_int_equal(r.status, 0);
    tu_result_free(&r);
    /* The last draw shows every map, then the line is erased. */
    if (!strstr(buf, "3000/3000 maps") || !strstr(buf, "maps/s") || !strstr(buf, "ETA"))
        fail_msg("no bar in '%s'", buf);
    size_t len = strlen(buf);
    assert_true(len >= 4 && strcmp(buf + len - 4, "\r\033[K") == 0);
}

/* On a terminal, an error in the middle of a batch starts its own line:
 * the bar is erased first, whatever the error (here a name whose folder is
 * a file, met in a later round, after the bar is drawn). */
static void an_error_erases_the_progress_bar_first(void **state)
{
    (void)state;
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        if (master >= 0)
            close(master);
        skip();
    }
    char slave[128], out[512], blocker[600];
    snprintf(slave, sizeof slave, "%s", ptsname(master));
    tu_workdir_empty();
    tu_path(out, sizeof out, "o");
    assert_int_equal(mkdir(out, 0755), 0);
    snprintf(blocker, sizeof blocker, "%s/150", out);
    tu_write_text(blocker, "a file where a folder goes\n");
    tu_cmd on_terminal = {.dir = tu_workdir, .stdout_path = "/dev/null", .stderr_path = slave};
    tu_child c = tu_start(&on_terminal, CAVEGEN_EXE,
                          ARGS("-s", "1", "-n", "200", "--size", "40x20", "-o", "o/%03d/m.txt"));
    char buf[1 << 16];
    size_t n = 0;
    for (;;) {
        ssize_t got = read(master, buf + n, sizeof buf - 1 - n);
        if (got <= 0)
            break;
        n += (size_t)got;
        if (n == sizeof buf - 1)
            n = 0;
    }
    buf[n] = '\0';
    tu_result r = tu_finish(&c);
    close(master);
    assert_int_equal(r.status, 1);
    tu_result_free(&r);
    const char *msg = strstr(buf, "cavegen: cannot write 'o/150/m.txt'");
    if (!msg || !strstr(buf, " maps"))
        fail_msg("no bar and message in '%s'", buf);
    /* The bar was erased just before: "\r\033[K" then the message. */
    if (msg - buf < 4 || memcmp(msg - 4, "\r\033[K", 4) != 0)
        fail_msg("the message follows the bar on its line: '%s'", buf);
    tu_workdir_empty();
}

/* Ctrl-C: the tool dies by SIGINT (a shell shows 130), every map file it
 * left is complete, and no temporary file remains. */
static void an_interrupted_batch_leaves_complete_files_only(void **state)
{
    (void)state;
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t s = 0; s < 2; s++) {
        tu_workdir_empty();
        tu_child c = START("-p", "type1", "-s", "500", "-n", "100000", "--size", "300x200", "-j",
                           "2", "-o", "w/%06d.txt");
        /* Wait for a few maps, then interrupt. */
        char dir[300];
        tu_path(dir, sizeof dir, "w");
        for (int tries = 0; tries < 2000; tries++) {
            DIR *d = opendir(dir);
            int n = 0;
            if (d) {
                for (struct dirent *e; (e = readdir(d));)
                    n += e->d_name[0] != '.';
                closedir(d);
            }
            if (n >= 5)
                break;
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        kill(c.pid, sigs[s]);
        tu_result r = tu_finish(&c);
        assert_int_equal(r.status, 128 + sigs[s]);
        tu_result_free(&r);
        DIR *d = opendir(dir);
        assert_non_null(d);
        int files = 0;
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if (e->d_name[0] == '.')
                fail_msg("temporary file '%s' left", e->d_name);
            unsigned idx = 0;
            assert_int_equal(sscanf(e->d_name, "%06u.txt", &idx), 1);
            files++;
            if (files > 12) /* check a dozen against their own runs */
                continue;
            char name[240], s2[32];
            size_t len = 0;
            snprintf(name, sizeof name, "w/%.200s", e->d_name);
            snprintf(s2, sizeof s2, "%u", 500 + idx);
            char *got = file_in(name, &len);
            tu_result one = RUN("-p", "type1", "-s", s2, "--size", "300x200");
            assert_ok(&one);
            assert_int_equal(len, one.outlen);
            assert_memory_equal(got, one.out, len);
            free(got);
            tu_result_free(&one);
        }
        closedir(d);
        assert_true(files >= 5 && files < 100000);
    }
}

/* -------------------------------------------------------------- chunks */

/* --chunk CX,CY is the window at (CX*W, CY*H): the chunk to the right is
 * the right half of a chunk twice as wide, through the tool too. */
static void chunks_of_the_tool_stitch(void **state)
{
    (void)state;
    static const char *const presets[] = {"type1", "type2", "type3", "type4"};
    for (size_t p = 0; p < 4; p++) {
        tu_result wide = RUN("-p", presets[p], "-s", "11", "--chunk", "-1,0", "--size", "50x20");
        tu_result left = RUN("-p", presets[p], "-s", "11", "--chunk", "-2,0", "--size", "25x20");
        tu_result right = RUN("-p", presets[p], "-s", "11", "--chunk", "-1,0", "--size", "25x20");
        assert_ok(&wide);
        assert_ok(&left);
        assert_ok(&right);
        assert_int_equal(wide.outlen, 20 * 51);
        for (int y = 0; y < 20; y++) {
            assert_memory_equal(wide.out + y * 51, left.out + y * 26, 25);
            assert_memory_equal(wide.out + y * 51 + 25, right.out + y * 26, 25);
        }
        tu_result_free(&wide);
        tu_result_free(&left);
        tu_result_free(&right);
    }
}

static void chunk_errors_are_usage_errors(void **state)
{
    (void)state;
    tu_result r = RUN("-p", "classic", "-s", "1", "--chunk", "0,0");
    assert_usage_error(&r, "'remove-floor' needs the whole map");
    tu_result_free(&r);
    r = RUN("-s", "1", "--chunk", "0,0", "--reach", "3,3");
    assert_usage_error(&r, "'reach' needs the whole map");
    tu_result_free(&r);
    r = RUN("-s", "1", "--chunk", "0,0", "-i", "-");
    assert_usage_error(&r, "--input");
    tu_result_free(&r);
    static const char *const bad[] = {"1", "1,", ",1", "1,2,3", "a,b", "1, 2", "--1,2", "+1,2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = RUN("-s", "1", "--chunk", bad[i]);
        assert_usage_error(&r, "is not CX,CY");
        tu_result_free(&r);
    }
    r = RUN("-s", "1", "--chunk", "2147483648,0");
    assert_usage_error(&r, "must be in");
    tu_result_free(&r);
    r = RUN("-s", "1", "--chunk", "-2147483647,2147483647", "--size", "4x4");
    assert_ok(&r);
    tu_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(map_i_of_a_batch_is_the_map_of_seed_plus_i),
        cmocka_unit_test(seeds_wrap_around),
        cmocka_unit_test(the_stream_holds_every_map_a_blank_line_apart),
        cmocka_unit_test(a_stream_on_one_thread_equals_the_maps_run_one_at_a_time),
        cmocka_unit_test(a_drawn_seed_is_reported_once_and_numbers_the_maps),
        cmocka_unit_test(keep_going_skips_the_maps_that_fail),
        cmocka_unit_test(stats_come_one_line_per_map_in_order),
        cmocka_unit_test(jobs_never_change_the_output),
        cmocka_unit_test(one_big_map_is_the_same_on_any_number_of_threads),
        cmocka_unit_test(patterns_and_their_errors),
        cmocka_unit_test(the_pattern_formatter_agrees_with_printf),
        cmocka_unit_test(no_progress_bar_off_a_terminal),
        cmocka_unit_test(an_error_erases_the_progress_bar_first),
        cmocka_unit_test(a_progress_bar_on_a_terminal),
        cmocka_unit_test(an_interrupted_batch_leaves_complete_files_only),
        cmocka_unit_test(chunks_of_the_tool_stitch),
        cmocka_unit_test(chunk_errors_are_usage_errors),
    };
    return cmocka_run_group_tests(tests, tu_workdir_setup, tu_workdir_teardown);
}
