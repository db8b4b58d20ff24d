/* test_badinput.c - the bad-input corpus (tests/data/bad/cases.tsv, the
 * format is described at its top): every case runs the built tool and must
 * exit with its status (2 usage, 1 runtime; never a signal), print nothing
 * on stdout, print one "cavegen: " line holding its message on stderr (plus
 * the pointer to --help exactly for usage errors), and leave its folder as
 * it was: no output file, no temporary file, old.txt untouched (docs/testing.md).
 *
 * Also here: limits (docs/testing.md, docs/testing.md) - absurd sizes and scales
 * fail at once with a message, before the work and before allocating.
 */
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

#define DATA_DIR CG_TEST_DIR "/data/bad"
#define OLD_TEXT "an existing file\n"
#define TRY_LINE "Try 'cavegen --help' for more information.\n"
#define MAX_ARGS 40

/* Runs the tool (argv[0]) in dir with stdin from stdin_path (NULL: empty). */
static tu_result run_in(const char *dir, const char *stdin_path, char *const *argv)
{
    tu_cmd cmd = {.dir = dir, .stdin_path = stdin_path};
    return tu_exec(&cmd, argv[0], (const char *const *)argv + 1);
}

/* The case folder: dir/ (a folder) and old.txt (an existing file). */
static void make_case_dir(void)
{
    char path[512];
    tu_path(path, sizeof path, "dir");
    assert_int_equal(mkdir(path, 0755), 0);
    tu_path(path, sizeof path, "old.txt");
    tu_write_text(path, OLD_TEXT);
}

static int setup(void **state)
{
    if (tu_workdir_setup(state) != 0)
        return -1;
    make_case_dir();
    return 0;
}

/* Expands @D and the escapes \t \n \r \\ of a field into a new string. */
static char *expand(const char *field)
{
    size_t cap = strlen(field) * 2 + sizeof DATA_DIR * 4 + 1;
    char *s = malloc(cap), *o = s;
    assert_non_null(s);
    for (const char *p = field; *p; p++) {
        if (p[0] == '@' && p[1] == 'D') {
            o += sprintf(o, "%s", DATA_DIR);
            p++;
        } else if (p[0] == '\\' && p[1]) {
            p++;
            *o++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return s;
}

/* Checks one run against its expectations; returns NULL or why it fails
 * (in buf). */
static const char *check(const tu_result *r, int want_status, const char *want,
                         const char *before, char *buf, size_t cap)
{
    char after[4096];
    tu_list_dir(tu_workdir, NULL, after, sizeof after);
    if (r->status != want_status) {
        snprintf(buf, cap, "exit %d, expected %d; stderr: %s", r->status, want_status, r->err);
        return buf;
    }
    if (r->out[0]) {
        snprintf(buf, cap, "wrote to stdout: %.80s", r->out);
        return buf;
    }
    const char *nl = strchr(r->err, '\n');
    if (strncmp(r->err, "cavegen: ", 9) != 0 || !nl) {
        snprintf(buf, cap, "stderr is not a 'cavegen: ' line: %s", r->err);
        return buf;
    }
    size_t first = (size_t)(nl - r->err);
    int found = want[0] == '='
                    ? first - 9 == strlen(want + 1) && !strncmp(r->err + 9, want + 1, first - 9)
                    : (memchr(r->err, '\0', first) == NULL && strstr(r->err, want) &&
                       (size_t)(strstr(r->err, want) - r->err) < first);
    if (!found) {
        snprintf(buf, cap, "message lacks '%s': %s", want, r->err);
        return buf;
    }
    const char *rest = nl + 1;
    if (want_status == 2 ? strcmp(rest, TRY_LINE) != 0 : rest[0] != '\0') {
        snprintf(buf, cap, "stderr has other lines: %s", r->err);
        return buf;
    }
    if (strcmp(before, after) != 0) {
        snprintf(buf, cap, "the folder changed: '%.900s' -> '%.900s'", before, after);
        return buf;
    }
    char old[512];
    snprintf(old, sizeof old, "%s/old.txt", tu_workdir);
    char *text = tu_read_file(old, NULL);
    int same = text && strcmp(text, OLD_TEXT) == 0;
    free(text);
    if (!same) {
        snprintf(buf, cap, "old.txt was changed");
        return buf;
    }
    return NULL;
}

static void every_bad_input_fails_with_its_status_and_message(void **state)
{
    (void)state;
    FILE *f = fopen(DATA_DIR "/cases.tsv", "r");
    assert_non_null(f);
    char line[8192], before[4096], why[2048];
    int cases = 0, failures = 0, usage = 0, runtime = 0, refused = 0;
    tu_list_dir(tu_workdir, NULL, before, sizeof before);

    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        /* NAME EXIT MESSAGE STDIN ARG... */
        char *fields[MAX_ARGS + 4];
        int nf = 0;
        for (char *p = line;; p++) {
            fields[nf++] = p;
            p = strchr(p, '\t');
            if (!p || nf == MAX_ARGS + 4)
                break;
            *p = '\0';
        }
        if (nf < 4)
            fail_msg("cases.tsv: a line with %d fields: %s", nf, line);
        char *argv[MAX_ARGS + 2];
        int argc = 0;
        argv[argc++] = (char *)CAVEGEN_EXE;
        for (int i = 4; i < nf; i++)
            argv[argc++] = expand(fields[i]);
        argv[argc] = NULL;
        char *message = expand(fields[2]);
        char stdin_path[512];
        if (strcmp(fields[3], "-") != 0)
            snprintf(stdin_path, sizeof stdin_path, "%s/%s", DATA_DIR, fields[3]);
        int want = atoi(fields[1]);

        tu_result r = run_in(tu_workdir, strcmp(fields[3], "-") ? stdin_path : NULL, argv);
        const char *bad = check(&r, want, message, before, why, sizeof why);
        /* A build without PNG (CAVEGEN_PNG=OFF) refuses a command line that
         * writes PNG as a usage error, before the runtime failure the case
         * expects (test_png_support.c); the rest of the check still holds. */
        if (bad && want == 1 && !cg_format_available(CG_FORMAT_PNG) &&
            !check(&r, 2, "built without PNG support", before, why, sizeof why)) {
            bad = NULL;
            refused++;
        }
        if (bad) {
            print_error("case %s: %s\n", fields[0], bad);
            failures++;
            /* Start the next case from a clean folder. */
            tu_workdir_empty();
            make_case_dir();
        }
        cases++;
        usage += want == 2;
        runtime += want == 1;
        tu_result_free(&r);
        free(message);
        for (int i = 1; i < argc; i++)
            free(argv[i]);
    }
    fclose(f);
    printf("%d bad-input cases (%d usage errors, %d runtime failures), %d failed\n", cases,
           usage, runtime, failures);
    if (refused)
        printf("%d runtime failures refused at once: built without PNG support\n", refused);
    assert_true(cases >= 100);
    assert_int_equal(failures, 0);
}

/* docs/testing.md: a size too big for memory fails before allocating - at once,
 * not after minutes of swapping or by the OOM killer. */
static void absurd_sizes_fail_at_once(void **state)
{
    (void)state;
    /* An image: PNG, or PBM in a build without PNG (CAVEGEN_PNG=OFF). */
    char image[8];
    snprintf(image, sizeof image, "x.%s", tu_image_ext());
    char *const cases[][12] = {
        {(char *)CAVEGEN_EXE, "-W", "1048576", "-H", "1048576", "-s", "1", "-o", image, NULL},
        {(char *)CAVEGEN_EXE, "-p", "classic", "--size", "1048576x1048576", "-s", "1", NULL},
        {(char *)CAVEGEN_EXE, "-p", "level", "--size", "1048576x1048576", "-s", "1", NULL},
        {(char *)CAVEGEN_EXE, "--size", "1048576x600000", "--step", "fill 50", "--step",
         "smooth 100000", "-s", "1", NULL},
        {(char *)CAVEGEN_EXE, "--max-memory", "64M", "--size", "100000x100000", "-s", "1", NULL},
        /* A broken-up 22000x22000 map (58 MiB) and the labels of its first
         * stripe pass 64 MiB: refused at the step, which the estimate
         * before the run cannot foresee. */
        {(char *)CAVEGEN_EXE, "--max-memory", "64M", "--size", "22000x22000", "--fill", "45",
         "--step", "keep-largest", "-s", "1", NULL},
    };
    char before[4096], why[2048];
    tu_list_dir(tu_workdir, NULL, before, sizeof before);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_result r = run_in(tu_workdir, NULL, cases[i]);
        const char *bad = check(&r, 1, "", before, why, sizeof why);
        if (bad)
            fail_msg("%s %s: %s", cases[i][1], cases[i][2], bad);
        /* The message says which check stopped it: the size limit or the
         * grids over the budget before the run (nothing allocated), or the
         * budget during it. No timing threshold (they flake on a shared
         * machine); ctest's timeout bounds a run that was not stopped. */
        int up_front = i + 1 < sizeof cases / sizeof *cases;
        if (up_front ? !strstr(r.err, "needs at least") && !strstr(r.err, "over the limit")
                     : !strstr(r.err, "more than the memory budget"))
            fail_msg("unexpected message: %s", r.err);
        tu_result_free(&r);
    }
}

/* Counts are not sizes: many passes on a small map are only slow in
 * proportion (docs/presets.md caps passes at 100000). */
static void a_huge_pass_count_on_a_small_map_is_fine(void **state)
{
    (void)state;
    char *const args[] = {(char *)CAVEGEN_EXE, "--size", "16x16",      "--fill", "50",
                          "--step",            "smooth 100000", "-s",  "1",      NULL};
    tu_result r = run_in(tu_workdir, NULL, args);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_int_equal(strlen(r.out), 17 * 16);
    tu_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(every_bad_input_fails_with_its_status_and_message, setup,
                                        tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(absurd_sizes_fail_at_once, setup, tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(a_huge_pass_count_on_a_small_map_is_fine, setup,
                                        tu_workdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
