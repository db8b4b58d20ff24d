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
#include <sys/wait.h>

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

/* Runs a shell command; returns its standard output (NUL-terminated, the
 * caller frees) and its exit status in *status (-1 if it did not exit). */
static inline char *tt_run(const char *cmd, int *status, size_t *len)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap + 1);
    assert_non_null(out);
    size_t got;
    while ((got = fread(out + n, 1, cap - n, p)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            out = realloc(out, cap + 1);
            assert_non_null(out);
        }
    }
    int st = pclose(p);
    out[n] = '\0';
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (len)
        *len = n;
    return out;
}

/* tt_run, failing the test (with the command and its output) unless it
 * exits 0. */
static inline char *tt_run_ok(const char *cmd)
{
    int status;
    char *out = tt_run(cmd, &status, NULL);
    if (status != 0) {
        print_error("command failed (status %d): %s\n%s\n", status, cmd, out);
        free(out);
        fail();
    }
    return out;
}

/* A fresh temporary folder (name in buf); tt_rmdir removes it and all in it. */
static inline void tt_mkdir(char *buf, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, cap, "%s/cavegen-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(buf));
}

static inline void tt_rmdir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Writes len bytes to path. */
static inline void tt_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A cg_write_fn into a FILE *. */
static inline int tt_file_write(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? 0 : -1;
}

#endif
