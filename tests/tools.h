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

/* Nonzero if program is on PATH. */
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

/* A cg_write_fn into a FILE *. */
static inline int tt_file_write(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? 0 : -1;
}

#endif
