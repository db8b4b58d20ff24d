/* testutil.h - helpers shared by the test programs. Include after <cmocka.h>.
 *
 * Everything is static inline so each test program takes what it uses.
 * Grids cross between the library and the oracle as byte arrays (1 = wall),
 * built and read only through the public API.
 */
#ifndef CG_TESTUTIL_H
#define CG_TESTUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavegen/cavegen.h"
#include "grid_equal.h" /* tu_grids_equal, tu_cells_equal */

/* The two depths of the heaviest sweeps (docs/testing.md, "Two
 * depths"): under CAVEGEN_TEST_THOROUGH=1 (as .ci/run sets it) a sweep runs
 * every combination; otherwise tu_sampled(i) keeps one in three of them,
 * rotating, so that every size, kind and path is still met. */
static inline int tu_thorough(void)
{
    const char *v = getenv("CAVEGEN_TEST_THOROUGH");
    return v && *v && strcmp(v, "0") != 0;
}

static inline int tu_sampled(size_t i)
{
    return i % 3 == 0 || tu_thorough();
}

/* splitmix64 (Steele, Lea, Flood 2014): the tests' own deterministic PRNG. */
static inline uint64_t tu_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double tu_unit(uint64_t *state)
{
    return (double)(tu_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in lo..hi inclusive. */
static inline int tu_range(uint64_t *state, int lo, int hi)
{
    return lo + (int)(tu_next(state) % (uint64_t)(hi - lo + 1));
}

static inline uint8_t *tu_alloc_cells(int w, int h)
{
    uint8_t *cells = malloc((size_t)w * (size_t)h);
    assert_non_null(cells);
    return cells;
}

/* Each cell wall with probability density. */
static inline void tu_random_cells(uint8_t *cells, int w, int h, double density, uint64_t *state)
{
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        cells[i] = tu_unit(state) < density ? 1 : 0;
}

static inline cg_grid *tu_grid_from_cells(const uint8_t *cells, int w, int h)
{
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)h), CG_OK);
    assert_non_null(g);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            cg_grid_set(g, x, y, cells[(size_t)y * (size_t)w + (size_t)x] ? CG_WALL : CG_FLOOR);
    return g;
}

/* A grid from rows of '#' (wall) and '.' (floor). */
static inline cg_grid *tu_grid_from_rows(const char *const *rows, int h)
{
    int w = (int)strlen(rows[0]);
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)h), CG_OK);
    for (int y = 0; y < h; y++) {
        assert_int_equal((int)strlen(rows[y]), w);
        for (int x = 0; x < w; x++)
            cg_grid_set(g, x, y, rows[y][x] == '#' ? CG_WALL : CG_FLOOR);
    }
    return g;
}

static inline uint8_t *tu_cells_from_rows(const char *const *rows, int h)
{
    int w = (int)strlen(rows[0]);
    uint8_t *cells = tu_alloc_cells(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            cells[(size_t)y * (size_t)w + (size_t)x] = rows[y][x] == '#' ? 1 : 0;
    return cells;
}

static inline uint8_t *tu_cells_from_grid(const cg_grid *g)
{
    int w = (int)cg_grid_width(g), h = (int)cg_grid_height(g);
    uint8_t *cells = tu_alloc_cells(w, h);
    assert_int_equal(cg_grid_copy(g, cells, (size_t)w, CG_COPY_CELLS), CG_OK);
    return cells;
}

/* Prints a window of both maps around (fx, fy) to help read a failure. */
static inline void tu_print_window(const uint8_t *got, const uint8_t *want, int w, int h, int fx,
                                   int fy)
{
    int x0 = fx - 8 < 0 ? 0 : fx - 8, x1 = fx + 8 >= w ? w - 1 : fx + 8;
    int y0 = fy - 4 < 0 ? 0 : fy - 4, y1 = fy + 4 >= h ? h - 1 : fy + 4;
    print_error("  got (library)        want (oracle)   window x %d..%d, y %d..%d\n", x0, x1, y0,
                y1);
    for (int y = y0; y <= y1; y++) {
        char a[32], b[32];
        int n = 0;
        for (int x = x0; x <= x1; x++, n++) {
            a[n] = got[(size_t)y * (size_t)w + (size_t)x] ? '#' : '.';
            b[n] = want[(size_t)y * (size_t)w + (size_t)x] ? '#' : '.';
        }
        a[n] = b[n] = '\0';
        print_error("  %-20s %-20s\n", a, b);
    }
}

/* Fails the test, naming `what`, unless grid g is w x h and equals want. */
static inline void tu_assert_grid_equals(const cg_grid *g, const uint8_t *want, int w, int h,
                                         const char *what)
{
    if ((int)cg_grid_width(g) != w || (int)cg_grid_height(g) != h) {
        print_error("%s: grid is %ux%u, want %dx%d\n", what, cg_grid_width(g), cg_grid_height(g),
                    w, h);
        fail();
    }
    uint8_t *got = tu_cells_from_grid(g);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            if (got[i] != want[i]) {
                print_error("%s: %dx%d map differs first at (%d,%d): got %s, want %s\n", what, w,
                            h, x, y, got[i] ? "wall" : "floor", want[i] ? "wall" : "floor");
                tu_print_window(got, want, w, h, x, y);
                free(got);
                fail();
            }
        }
    }
    free(got);
}

static inline void tu_assert_grid_equals_rows(const cg_grid *g, const char *const *rows, int h,
                                              const char *what)
{
    uint8_t *want = tu_cells_from_rows(rows, h);
    tu_assert_grid_equals(g, want, (int)strlen(rows[0]), h, what);
    free(want);
}

/* Parses text into a new pipeline; fails the test on any error. */
static inline cg_pipeline *tu_pipeline(const char *text)
{
    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    cg_status st = cg_pipeline_parse(p, text, strlen(text), &diag);
    if (st != CG_OK) {
        print_error("parse of \"%s\" failed: %s at %d:%d: %s\n", text, cg_strerror(st), diag.line,
                    diag.column, diag.message);
        fail();
    }
    return p;
}

/* A new pipeline of the built-in preset name; fails the test if there is
 * none or it does not parse. */
static inline cg_pipeline *tu_builtin_pipeline(const char *name)
{
    size_t len = 0;
    const char *text = cg_preset_builtin(name, &len);
    assert_non_null(text);
    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_parse(p, text, len, &diag), CG_OK);
    return p;
}

/* cg_pipeline_run with a seed, a size (0: the default) and an input map
 * (NULL: none), every other option at its default. */
static inline cg_status tu_run_pipeline(const cg_pipeline *p, uint64_t seed, uint32_t w,
                                        uint32_t h, const cg_grid *input, cg_grid **out,
                                        cg_diag *diag)
{
    cg_run_options o = {.seed = seed, .width = w, .height = h, .input = input};
    return cg_pipeline_run(p, &o, out, NULL, diag);
}

/* Parses and runs text; fails the test on any error. */
static inline cg_grid *tu_run(const char *text, uint64_t seed, uint32_t w, uint32_t h,
                              const cg_grid *input)
{
    cg_pipeline *p = tu_pipeline(text);
    cg_grid *out = NULL;
    cg_diag diag = {0};
    cg_status st = tu_run_pipeline(p, seed, w, h, input, &out, &diag);
    if (st != CG_OK) {
        print_error("run of \"%s\" failed: %s: %s\n", text, cg_strerror(st), diag.message);
        fail();
    }
    assert_non_null(out);
    cg_pipeline_free(p);
    return out;
}

/* A growable memory sink for cg_write. fail_at: the callback returns nonzero
 * on that call (1-based); 0 never fails. */
typedef struct tu_buf {
    char *data;
    size_t len, cap;
    int calls, fail_at;
} tu_buf;

static inline int tu_buf_write(void *ctx, const void *data, size_t len)
{
    tu_buf *b = ctx;
    b->calls++;
    if (b->fail_at && b->calls >= b->fail_at)
        return -1;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + len + 1 > cap)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p)
            return -1;
        b->data = p;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

/* Appends printf-formatted text to b (never failing it). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void tu_buf_printf(tu_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    assert_int_equal(tu_buf_write(b, text, (size_t)n), 0);
    free(text);
}

static inline void tu_buf_free(tu_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* The ASCII rendering of g, NUL-terminated; the caller frees. */
static inline char *tu_ascii(const cg_grid *g)
{
    tu_buf b = {0};
    cg_write_options opt = {.format = CG_FORMAT_ASCII, .scale = 0};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &diag), CG_OK);
    if (!b.data) {
        b.data = malloc(1);
        assert_non_null(b.data);
        b.data[0] = '\0';
    }
    return b.data;
}

/* Reads a whole file, NUL-terminated; returns NULL if it cannot be opened.
 * len may be NULL. */
static inline char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *data = malloc(cap + 1);
    assert_non_null(data);
    for (;;) {
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        data = realloc(data, cap + 1);
        assert_non_null(data);
    }
    fclose(f);
    data[n] = '\0';
    if (len)
        *len = n;
    return data;
}

/* Writes len bytes to path. */
static inline void tu_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static inline void tu_write_text(const char *path, const char *text)
{
    tu_write_file(path, text, strlen(text));
}

/* Fails unless text is a one-line pipeline that does not parse, with the
 * error at column and a message holding needle. */
static inline void tu_expect_parse_error(const char *text, int column, const char *needle)
{
    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_parse(p, text, strlen(text), &diag), CG_EPARSE);
    if (diag.line != 1 || diag.column != column || !strstr(diag.message, needle)) {
        print_error("\"%s\": got %d:%d: %s; want 1:%d: ...%s...\n", text, diag.line,
                    diag.column, diag.message, column, needle);
        fail();
    }
    cg_pipeline_free(p);
}

/* ------------------------------------------------ programs (testutil.c)
 *
 * One way to run a program - the built tool, or a shell command line - and
 * capture what it did: tu_exec runs it to the end; tu_start and tu_finish
 * let a test signal it or watch its files meanwhile. Its standard output
 * and error go to unlinked temporary files (nothing in the work folder), or
 * where tu_cmd says. */

/* How to run it; {0} (or NULL): here, stdin from /dev/null, both outputs
 * captured. */
typedef struct tu_cmd {
    const char *dir;         /* chdir there first (NULL: stay) */
    const char *stdin_text;  /* the whole standard input, or NULL */
    const char *stdin_path;  /* without stdin_text: the file (NULL: /dev/null) */
    const char *stdout_path; /* NULL: captured into tu_result.out, in a file */
    /* Without stdout_path: captured through a pipe instead, as a shell's
     * command substitution does (a child writing more than the pipe holds
     * waits for tu_finish). The tool treats -o /dev/stdout on a pipe as a
     * stream, on a regular file as that file. */
    int stdout_pipe;
    const char *stderr_path; /* NULL: captured into tu_result.err (but see pass_stderr) */
    int pass_stderr;         /* without stderr_path: the test's own stderr, not captured */
    /* Called in the child after the redirections and chdir, before exec;
     * it may _exit (125 or 126 by convention) when its setup fails. */
    void (*child_setup)(const void *ctx);
    const void *ctx;
} tu_cmd;

typedef struct tu_child {
    int pid;
    int out_fd, err_fd; /* the capture files (or pipe), or -1 */
    int out_pipe;
} tu_child;

typedef struct tu_result {
    int status; /* exit status, or 128 + signal */
    char *out;  /* standard output, NUL-terminated ("" unless captured) */
    size_t outlen;
    char *err; /* standard error, NUL-terminated ("" unless captured) */
} tu_result;

/* A NULL-terminated argument list, for tu_start and tu_exec. */
#define TU_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Runs program (a path) with the arguments after argv[0] (NULL-terminated;
 * NULL: none). Exit 127: it could not be run. */
tu_child tu_start(const tu_cmd *cmd, const char *program, const char *const *args);
/* Waits for it; the caller frees the result with tu_result_free. */
tu_result tu_finish(tu_child *c);
tu_result tu_exec(const tu_cmd *cmd, const char *program, const char *const *args);
/* /bin/sh -c line. */
tu_result tu_shell(const tu_cmd *cmd, const char *line);
void tu_result_free(tu_result *r);

/* ------------------------------------ parallel loops (testutil.c) */

/* cg_parallel_fn loops for the tests of code that splits its work: the
 * tasks out of order (the last first, then the even ones, then the odd
 * ones), and on three threads pulling the indices. */
void tu_shuffled_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg);
void tu_threads_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg);

/* ----------------------------------------- temporary folders (testutil.c) */

/* A fresh folder (name in buf) in TMPDIR; tu_rmtree removes it and all in
 * it, read-only folders included (0, or -1 on failure). */
void tu_mkdtemp(char *buf, size_t cap);
int tu_rmtree(const char *dir);

/* The work folder of a test: tu_workdir_setup and tu_workdir_teardown are
 * cmocka setup and teardown functions (for a test or a group) that make a
 * fresh tu_workdir and remove it. */
extern char tu_workdir[256];
int tu_workdir_setup(void **state);
int tu_workdir_teardown(void **state);
/* Removes everything in tu_workdir (dot files too). */
void tu_workdir_empty(void);
/* tu_workdir/name into buf. */
void tu_path(char *buf, size_t cap, const char *name);

/* The names in dir but "." and "..", and those in except (NULL-terminated,
 * or NULL), sorted and each followed by a space ("" if none); returns how
 * many. */
int tu_list_dir(const char *dir, const char *const *except, char *buf, size_t cap);

/* The extension of an image file for tests about files and runs rather than
 * the format: "png", or "pbm" in a build without PNG (CAVEGEN_PNG=OFF). */
static inline const char *tu_image_ext(void)
{
    return cg_format_available(CG_FORMAT_PNG) ? "png" : "pbm";
}

/* Skips the calling test in a build without PNG (CAVEGEN_PNG=OFF). */
#define TU_REQUIRE_PNG()                                                                           \
    do {                                                                                           \
        if (!cg_format_available(CG_FORMAT_PNG)) {                                                 \
            print_message("SKIPPED: built without PNG support\n");                                 \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

#endif
