/* tools.h - running the external programs that check our output formats the
 * way their users' tools read them: python3's json and xml modules, Tiled's
 * tmxrasterizer, netpbm, pngcheck. Include after <cmocka.h>.
 *
 * A missing program skips the test on a developer's machine, but fails it
 * under CI (CI set in the environment, as .ci/run has it), which installs
 * them all: a green CI run has really run every check. */
#ifndef CG_TEST_TOOLS_H
#define CG_TEST_TOOLS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The python interpreter (tests/CMakeLists.txt finds it: the program
 * itself, not a version manager's launcher), quoted for the shell. */
#ifndef CG_PYTHON3
#define CG_PYTHON3 "python3"
#endif
#define TT_PYTHON "'" CG_PYTHON3 "'"

/* Nonzero if program is on PATH (or, with a slash, an executable file). */
static inline int tt_have(const char *program)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", program);
    return system(cmd) == 0;
}

/* Skips the calling test when program is missing, except under CI. */
#define TT_REQUIRE(program)                                                                        \
    do {                                                                                           \
        if (!tt_have(program)) {                                                                   \
            const char *ci_ = getenv("CI");                                                        \
            if (ci_ && *ci_) {                                                                     \
                print_error("%s is not installed (.ci/run installs it)\n", program);               \
                fail();                                                                            \
            }                                                                                      \
            print_message("SKIPPED: %s is not installed\n", program);                              \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Runs a shell command (tu_shell, testutil.h: stdin from /dev/null, stdout
 * a pipe, stderr the test's) and returns its standard output, NUL-terminated (the caller
 * frees); fails the test, with the command and its output, unless it exits
 * 0. */
static inline char *tt_run_ok(const char *cmd)
{
    tu_cmd how = {.stdout_pipe = 1, .pass_stderr = 1};
    tu_result r = tu_shell(&how, cmd);
    if (r.status != 0) {
        print_error("command failed (status %d): %s\n%s\n", r.status, cmd, r.out);
        tu_result_free(&r);
        fail();
    }
    free(r.err);
    return r.out;
}

/* Checking files the way python reads them: a test's script (the text of
 * a python program) prints what it makes of each file named on its command
 * line, then "@@end@@". */
#define TT_PATH_CAP 400

/* Runs script on the n files in one go (python takes a tenth of a second to
 * start): each file's lines, then "@@end@@". Writes the script to
 * tu_workdir/flatten.py. */
static inline char *tt_python_flat(const char *script, char paths[][TT_PATH_CAP], size_t n)
{
    char path[300];
    tu_path(path, sizeof path, "flatten.py");
    tu_write_text(path, script);
    size_t cap = 64 + strlen(path) + n * (TT_PATH_CAP + 3);
    char *cmd = malloc(cap);
    assert_non_null(cmd);
    size_t len = (size_t)snprintf(cmd, cap, TT_PYTHON " '%s'", path);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(cmd + len, cap - len, " '%s'", paths[i]);
    snprintf(cmd + len, cap - len, " 2>&1");
    char *out = tt_run_ok(cmd);
    free(cmd);
    return out;
}

/* Fails unless script reads file i as want[i], for every i; frees want[]. */
static inline void tt_assert_read_back(const char *script, char paths[][TT_PATH_CAP],
                                       char **want, size_t n)
{
    char *got = tt_python_flat(script, paths, n);
    const char *g = got;
    for (size_t i = 0; i < n; i++) {
        const char *end = strstr(g, "@@end@@\n");
        size_t glen = end ? (size_t)(end - g) : strlen(g), k = 0, line = 1;
        if (!end || glen != strlen(want[i]) || memcmp(g, want[i], glen) != 0) {
            while (k < glen && g[k] == want[i][k])
                line += g[k++] == '\n';
            print_error("%s: python read back something else, first at line %zu:\n"
                        " got: %.100s\nwant: %.100s\n",
                        paths[i], line, g + k, want[i] + k);
            fail();
        }
        g = end + 8;
        free(want[i]);
    }
    free(got);
}

/* A cg_write_fn into a FILE *. */
static inline int tt_file_write(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? 0 : -1;
}

#endif
