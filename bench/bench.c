/* bench.c - the C side of the benchmark (bench/run drives it; see
 * docs/PERFORMANCE.md). Times libcavegen's kernels and the C peers measured
 * beside them in the same process:
 *   - the scalar oracle of the test suite (tests/oracle.c, a bounds-checked
 *     per-cell loop on one byte per cell),
 *   - "naive C" (bench/naive.c: an int per cell, bounds-checked reads, loops
 *     over the neighbourhood, as the articles' code is written),
 *   - libpng with its default settings writing the same image as cg_write.
 *
 * Output: one line per case, tab-separated:
 *   case  median_seconds  units  unit_name  note
 * where units is what one run processes (cells, maps, bytes); a case that
 * cannot run prints median "nyi" (a step not implemented yet) or "error".
 *
 * Usage: cavegen_bench [-r REPS] [-m MAPFILE] [CASE-PREFIX...]
 * MAPFILE receives the 4096x4096 type2 map as raw bytes (1 = wall) for the
 * Python peers (scipy), so they time the very same cells. */
#define _POSIX_C_SOURCE 200809L
#include <png.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cells/automaton.h"
#include "cells/fill.h"
#include "core/cpu.h"
#include "core/rng.h"
#include "io/format.h"
#include "naive.h"
#include "oracle.h"

static int reps = 5;
static char **only;
static int nonly;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static int wanted(const char *name)
{
    if (nonly == 0)
        return 1;
    for (int i = 0; i < nonly; i++)
        if (strncmp(name, only[i], strlen(only[i])) == 0)
            return 1;
    return 0;
}

static void report(const char *name, double med, double units, const char *unit,
                   const char *note)
{
    printf("%s\t%.9f\t%.0f\t%s\t%s\n", name, med, units, unit, note ? note : "");
    fflush(stdout);
}

static void report_missing(const char *name, const char *why, const char *note)
{
    printf("%s\t%s\t0\t-\t%s\n", name, why, note ? note : "");
    fflush(stdout);
}

static void die(const char *what, const cg_diag *d)
{
    fprintf(stderr, "cavegen_bench: %s%s%s\n", what, d ? ": " : "", d ? d->message : "");
    exit(1);
}

static cg_pipeline *parse(const char *text, cg_diag *diag)
{
    cg_pipeline *p = NULL;
    if (cg_pipeline_new(&p) != CG_OK)
        die("out of memory", NULL);
    if (cg_pipeline_parse(p, text, strlen(text), diag) != CG_OK) {
        cg_pipeline_free(p);
        return NULL;
    }
    return p;
}

static cg_grid *run_text(const char *text, const cg_grid *in, uint32_t w, uint32_t h,
                         uint64_t seed)
{
    cg_diag diag = {0};
    cg_grid *out = NULL;
    cg_pipeline *p = parse(text, &diag);
    cg_run_options o = {.seed = seed, .width = w, .height = h, .input = in};
    if (!p || cg_pipeline_run(p, &o, &out, NULL, &diag) != CG_OK)
        die(text, &diag);
    cg_pipeline_free(p);
    return out;
}

static const char *const TYPE2 = "fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n";

/* ------------------------------------------------------------ sinks */

static int null_sink(void *ctx, const void *data, size_t len)
{
    (void)data;
    *(size_t *)ctx += len;
    return 0;
}

/* ------------------------------------------------------------ kernels */

typedef enum { K_GEN, K_SMOOTH, K_RULE, K_FILL } kernel;

static void time_kernel(const char *name, kernel k, uint32_t size, int a, int b, int self,
                        int path)
{
    if (!wanted(name))
        return;
    if (path != CG__PATH_AUTO && cg__set_kernel_path(path) != 0)
        return;
    cg_grid *src = NULL, *dst = NULL;
    if (cg_grid_new(&src, size, size) || cg_grid_new(&dst, size, size))
        die("out of memory", NULL);
    cg__fill(src, cg__step_key(1, CG__RAND_FILL, 0), 450000000u);
    double t[64];
    int n = reps * 2 > 64 ? 64 : reps * 2; /* kernels are fast: more runs */
    for (int r = 0; r < n; r++) {
        double t0 = now();
        switch (k) {
        case K_GEN:
            cg__generation(src, dst, a, b, self);
            break;
        case K_SMOOTH:
            cg__smooth(src, dst, a);
            break;
        case K_RULE:
            cg__rule(src, dst, a, b);
            break;
        case K_FILL:
            cg__fill(dst, cg__step_key((uint64_t)r, CG__RAND_FILL, 0), 450000000u);
            break;
        }
        t[r] = now() - t0;
    }
    char note[64];
    snprintf(note, sizeof note, "path=%s", cg__kernel_path_name(cg__kernel_path()));
    report(name, median(t, n), (double)size * size, "cells", note);
    cg__set_kernel_path(CG__PATH_AUTO);
    cg_grid_free(src);
    cg_grid_free(dst);
}

/* The same grid as one byte / one int per cell, for the peers. */
static uint8_t *grid_bytes(const cg_grid *g)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    uint8_t *c = malloc((size_t)w * h);
    if (!c)
        die("out of memory", NULL);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            c[(size_t)y * w + x] = cg_grid_get(g, x, y) == CG_WALL;
    return c;
}

typedef enum { P_ORACLE_GEN, P_ORACLE_SMOOTH, P_ORACLE_RULE, P_NAIVE_GEN } peer;

static void time_peer(const char *name, peer p, uint32_t size, int a, int b, int runs)
{
    if (!wanted(name))
        return;
    cg_grid *g = NULL;
    if (cg_grid_new(&g, size, size))
        die("out of memory", NULL);
    cg__fill(g, cg__step_key(1, CG__RAND_FILL, 0), 450000000u);
    uint8_t *src = grid_bytes(g);
    size_t n = (size_t)size * size;
    uint8_t *dst = malloc(n);
    int *isrc = malloc(n * sizeof(int)), *idst = malloc(n * sizeof(int));
    if (!dst || !isrc || !idst)
        die("out of memory", NULL);
    for (size_t i = 0; i < n; i++)
        isrc[i] = src[i];
    double t[16];
    runs = runs > 16 ? 16 : runs;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        switch (p) {
        case P_ORACLE_GEN:
            oracle_generation(src, dst, (int)size, (int)size, a, b, 1);
            break;
        case P_ORACLE_SMOOTH:
            oracle_smooth(src, dst, (int)size, (int)size, a);
            break;
        case P_ORACLE_RULE:
            oracle_rule(src, dst, (int)size, (int)size, a, b);
            break;
        case P_NAIVE_GEN:
            naive_generation(isrc, idst, (int)size, (int)size, a, b);
            break;
        }
        t[r] = now() - t0;
    }
    /* Keep the results alive. */
    volatile uint8_t sink = (uint8_t)(dst[n / 2] + idst[n / 3]);
    (void)sink;
    report(name, median(t, runs), (double)n, "cells", NULL);
    free(src);
    free(dst);
    free(isrc);
    free(idst);
    cg_grid_free(g);
}

/* ------------------------------------------------------------ writers */

static void time_writer(const char *name, const cg_grid *map, int png)
{
    if (!wanted(name))
        return;
    double t[16];
    int n = reps > 16 ? 16 : reps;
    size_t bytes = 0;
    for (int r = 0; r < n; r++) {
        cg_diag diag = {0};
        bytes = 0;
        double t0 = now();
        cg_status st = png ? cg__write_png(map, 4, NULL, null_sink, &bytes, &diag)
                           : cg__write_ascii(map, null_sink, &bytes, &diag);
        t[r] = now() - t0;
        if (st != CG_OK)
            die(name, &diag);
    }
    char note[64];
    snprintf(note, sizeof note, "%zu bytes out", bytes);
    uint64_t cells = (uint64_t)cg_grid_width(map) * cg_grid_height(map);
    report(name, median(t, n), (double)cells, "cells", note);
}

/* The peer: libpng with its defaults (no filter or zlib settings: for a
 * palette image that is filter None, zlib level 6, default strategy), the
 * same 1-bit palette image at scale 4, rows packed pixel by pixel. */
static void libpng_write(png_structp png, png_bytep data, size_t len)
{
    *(size_t *)png_get_io_ptr(png) += len;
    (void)data;
}

static void libpng_flush(png_structp png)
{
    (void)png;
}

static void time_libpng_default(const char *name, const cg_grid *map)
{
    if (!wanted(name))
        return;
    const uint32_t scale = 4;
    uint32_t w = cg_grid_width(map), h = cg_grid_height(map), pw = w * scale;
    png_bytep row = malloc((pw + 7) / 8);
    if (!row)
        die("out of memory", NULL);
    static const png_color pal[2] = {{46, 40, 36}, {226, 212, 178}};
    double t[16];
    int n = reps > 3 ? 3 : reps; /* slow: about a second a run */
    size_t bytes = 0;
    for (int r = 0; r < n; r++) {
        bytes = 0;
        double t0 = now();
        png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
        png_infop info = png_create_info_struct(png);
        if (setjmp(png_jmpbuf(png)))
            die("libpng failed", NULL);
        png_set_write_fn(png, &bytes, libpng_write, libpng_flush);
        png_set_IHDR(png, info, pw, h * scale, 1, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_PLTE(png, info, pal, 2);
        png_write_info(png, info);
        for (uint32_t y = 0; y < h; y++) {
            memset(row, 0, (pw + 7) / 8);
            for (uint32_t px = 0; px < pw; px++)
                if (cg_grid_get(map, px / scale, y) == CG_FLOOR)
                    row[px >> 3] |= (png_byte)(0x80 >> (px & 7));
            for (uint32_t k = 0; k < scale; k++)
                png_write_row(png, row);
        }
        png_write_end(png, NULL);
        png_destroy_write_struct(&png, &info);
        t[r] = now() - t0;
    }
    char note[64];
    snprintf(note, sizeof note, "%zu bytes out", bytes);
    report(name, median(t, n), (double)w * h, "cells", note);
    free(row);
}

/* ------------------------------------------------------------ two threads */

/* A cg_parallel_fn on two threads, as the CLI's -j 2 runs one: this thread
 * and one worker, started once, claim the indices from one counter. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    void (*task)(void *arg, size_t i);
    void *arg;
    size_t n;
    atomic_size_t next;
    unsigned long round, finished;
    int started;
} pool2 = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static void pool2_claim(void (*task)(void *, size_t), void *arg, size_t n)
{
    for (size_t i; (i = atomic_fetch_add(&pool2.next, 1)) < n;)
        task(arg, i);
}

static void *pool2_worker(void *unused)
{
    (void)unused;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool2.lock);
    for (;;) {
        while (pool2.round == seen)
            pthread_cond_wait(&pool2.wake, &pool2.lock);
        seen = pool2.round;
        void (*task)(void *, size_t) = pool2.task;
        void *arg = pool2.arg;
        size_t n = pool2.n;
        pthread_mutex_unlock(&pool2.lock);
        pool2_claim(task, arg, n);
        pthread_mutex_lock(&pool2.lock);
        pool2.finished = seen;
        pthread_cond_signal(&pool2.done);
    }
    return NULL;
}

static void pool2_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg)
{
    (void)ctx;
    pthread_mutex_lock(&pool2.lock);
    if (!pool2.started) {
        pthread_t t;
        if (pthread_create(&t, NULL, pool2_worker, NULL) != 0)
            die("cannot start a thread", NULL);
        pthread_detach(t);
        pool2.started = 1;
    }
    pool2.task = task;
    pool2.arg = arg;
    pool2.n = n;
    atomic_store(&pool2.next, 0);
    const unsigned long round = ++pool2.round;
    pthread_cond_signal(&pool2.wake);
    pthread_mutex_unlock(&pool2.lock);
    pool2_claim(task, arg, n);
    pthread_mutex_lock(&pool2.lock);
    while (pool2.finished != round)
        pthread_cond_wait(&pool2.done, &pool2.lock);
    pthread_mutex_unlock(&pool2.lock);
}

/* ------------------------------------------------------------ steps */

/* A step through the public pipeline on a copy of map (cg_pipeline_run
 * copies its input and allocates a second buffer: "pipeline_overhead" times
 * that alone). Steps other engineers are still writing may not parse yet:
 * then the case prints "nyi". par: the run's parallel loop, or NULL. */
static void time_step_par(const char *name, const char *text, const cg_grid *map, int runs,
                          cg_parallel_fn par)
{
    if (!wanted(name))
        return;
    cg_diag diag = {0};
    cg_pipeline *p = parse(text, &diag);
    if (!p) {
        report_missing(name, "nyi", text);
        return;
    }
    double t[16];
    runs = runs > 16 ? 16 : runs;
    cg_run_options o = {.seed = 1, .input = map, .parallel = par};
    for (int r = 0; r < runs; r++) {
        cg_grid *out = NULL;
        double t0 = now();
        cg_status st = cg_pipeline_run(p, &o, &out, NULL, &diag);
        t[r] = now() - t0;
        if (st != CG_OK) {
            report_missing(name, "error", diag.message);
            cg_pipeline_free(p);
            return;
        }
        cg_grid_free(out);
    }
    cg_pipeline_free(p);
    report(name, median(t, runs), (double)cg_grid_width(map) * cg_grid_height(map), "cells",
           text);
}

static void time_step(const char *name, const char *text, const cg_grid *map, int runs)
{
    time_step_par(name, text, map, runs, NULL);
}

/* The floor cell nearest the centre, for reach. */
static void centre_floor(const cg_grid *g, uint32_t *fx, uint32_t *fy)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    for (uint32_t d = 0; d < w || d < h; d++)
        for (uint32_t y = h / 2 > d ? h / 2 - d : 0; y <= h / 2 + d && y < h; y++)
            for (uint32_t x = w / 2 > d ? w / 2 - d : 0; x <= w / 2 + d && x < w; x++)
                if (cg_grid_get(g, x, y) == CG_FLOOR) {
                    *fx = x;
                    *fy = y;
                    return;
                }
    *fx = *fy = 0;
}

/* The peer of reach_full: a textbook BFS (a distance per cell, a FIFO
 * queue of cell indices, four neighbours with bounds checks) over the cells
 * as bytes, copied by cg_grid_copy before the timer, from the same start. */
static void time_bfs_queue(const char *name, const cg_grid *map, uint32_t sx, uint32_t sy,
                           int runs)
{
    if (!wanted(name))
        return;
    uint32_t w = cg_grid_width(map), h = cg_grid_height(map);
    size_t n = (size_t)w * h;
    uint8_t *wall = malloc(n);
    if (!wall || cg_grid_copy(map, wall, w, CG_COPY_CELLS) != CG_OK)
        die("out of memory", NULL);
    double t[16];
    runs = runs > 16 ? 16 : runs;
    uint64_t reached = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        uint32_t *dist = malloc(n * sizeof *dist);
        uint32_t *queue = malloc(n * sizeof *queue);
        if (!dist || !queue)
            die("out of memory", NULL);
        for (size_t i = 0; i < n; i++)
            dist[i] = UINT32_MAX;
        size_t head = 0, tail = 0;
        dist[(size_t)sy * w + sx] = 0;
        queue[tail++] = sy * w + sx;
        while (head < tail) {
            uint32_t at = queue[head++], x = at % w, y = at / w, nd = dist[at] + 1;
            if (x > 0 && wall[at - 1] == CG_FLOOR && dist[at - 1] == UINT32_MAX) {
                dist[at - 1] = nd;
                queue[tail++] = at - 1;
            }
            if (x + 1 < w && wall[at + 1] == CG_FLOOR && dist[at + 1] == UINT32_MAX) {
                dist[at + 1] = nd;
                queue[tail++] = at + 1;
            }
            if (y > 0 && wall[at - w] == CG_FLOOR && dist[at - w] == UINT32_MAX) {
                dist[at - w] = nd;
                queue[tail++] = at - w;
            }
            if (y + 1 < h && wall[at + w] == CG_FLOOR && dist[at + w] == UINT32_MAX) {
                dist[at + w] = nd;
                queue[tail++] = at + w;
            }
        }
        reached = tail;
        free(queue);
        free(dist);
        t[r] = now() - t0;
    }
    char note[64];
    snprintf(note, sizeof note, "%llu cells reached", (unsigned long long)reached);
    report(name, median(t, runs), (double)n, "cells", note);
    free(wall);
}

/* ------------------------------------------------------------ batch */

/* What `cavegen -n N` would do: N type2 80x50 maps (seeds 1..N), each
 * generated and written as ASCII into one stream, in one process. */
static void time_batch(const char *name, int maps)
{
    if (!wanted(name))
        return;
    cg_diag diag = {0};
    cg_pipeline *p = parse("size 80x50\n" "fill 45\ngenerations 5 r1=5 r2=-1\n"
                           "generations 1 r1=5 r2=0\n", &diag);
    if (!p)
        die("batch pipeline", &diag);
    cg_write_options opt = {.format = CG_FORMAT_ASCII};
    double t[16];
    int n = reps > 16 ? 16 : reps;
    for (int r = 0; r < n; r++) {
        size_t bytes = 0;
        double t0 = now();
        for (int i = 0; i < maps; i++) {
            cg_grid *g = NULL;
            cg_run_options o = {.seed = (uint64_t)i + 1};
            if (cg_pipeline_run(p, &o, &g, NULL, &diag) != CG_OK ||
                cg_write(g, &opt, null_sink, &bytes, &diag) != CG_OK)
                die("batch", &diag);
            cg_grid_free(g);
        }
        t[r] = now() - t0;
    }
    cg_pipeline_free(p);
    report(name, median(t, n), maps, "maps", "in-process, one core, ASCII into one stream");
}

/* What `cavegen -p level -n N -o 'x/%d.png'` does but the files: N level
 * maps of 80x50 (seeds 1..N, retried attempts included), each generated
 * and encoded as a PNG (the CLI's default scale) in memory, in one
 * process. The note gives the encoder's share of the time. */
static void time_batch_level_png(const char *name, int maps)
{
    if (!wanted(name))
        return;
    cg_diag diag = {0};
    size_t len = 0;
    const char *text = cg_preset_builtin("level", &len);
    cg_pipeline *p = NULL;
    if (!text || cg_pipeline_new(&p) != CG_OK || cg_pipeline_parse(p, text, len, &diag) != CG_OK)
        die("level pipeline", &diag);
    cg_write_options opt = {.format = CG_FORMAT_PNG};
    double t[16], enc[16];
    int n = reps > 16 ? 16 : reps;
    for (int r = 0; r < n; r++) {
        size_t bytes = 0;
        double t0 = now(), in_png = 0;
        for (int i = 0; i < maps; i++) {
            cg_grid *g = NULL;
            cg_run_options o = {.seed = (uint64_t)i + 1};
            if (cg_pipeline_run(p, &o, &g, NULL, &diag) != CG_OK)
                die("batch_level_png", &diag);
            double t1 = now();
            if (cg_write(g, &opt, null_sink, &bytes, &diag) != CG_OK)
                die("batch_level_png", &diag);
            in_png += now() - t1;
            cg_grid_free(g);
        }
        t[r] = now() - t0;
        enc[r] = in_png / t[r];
    }
    cg_pipeline_free(p);
    char note[96];
    snprintf(note, sizeof note, "in-process, one core, PNG in memory; PNG encoding %.0f%% of it",
             100 * median(enc, n));
    report(name, median(t, n), maps, "maps", note);
}

int main(int argc, char **argv)
{
    const char *mapfile = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
            mapfile = argv[++i];
        else
            break;
    }
    only = argv + i;
    nonly = argc - i;

    printf("#path\t%s\n", cg__kernel_path_name(cg__kernel_path()));
    for (int path = 0; path < CG__PATH_COUNT; path++)
        if (cg__kernel_path_available(path))
            printf("#available\t%s\n", cg__kernel_path_name(path));

    /* Kernels: the default path, then each path forced. */
    static const uint32_t sizes[] = {4096, 1000};
    for (int s = 0; s < 2; s++) {
        char n1[64], n2[64], n3[64];
        snprintf(n1, sizeof n1, "gen52_%u", sizes[s]);
        snprintf(n2, sizeof n2, "gen5m1_%u", sizes[s]);
        snprintf(n3, sizeof n3, "gen52noself_%u", sizes[s]);
        time_kernel(n1, K_GEN, sizes[s], 5, 2, 1, CG__PATH_AUTO);
        time_kernel(n2, K_GEN, sizes[s], 5, -1, 1, CG__PATH_AUTO);
        time_kernel(n3, K_GEN, sizes[s], 5, 2, 0, CG__PATH_AUTO);
    }
    time_kernel("smooth_4096", K_SMOOTH, 4096, 5, 0, 0, CG__PATH_AUTO);
    time_kernel("rule_4096", K_RULE, 4096, 5, 8, 0, CG__PATH_AUTO);
    time_kernel("fill_4096", K_FILL, 4096, 0, 0, 0, CG__PATH_AUTO);
    for (int path = 0; path < CG__PATH_COUNT; path++) {
        char n1[64], n2[64];
        snprintf(n1, sizeof n1, "path_gen52_%s", cg__kernel_path_name(path));
        snprintf(n2, sizeof n2, "path_fill_%s", cg__kernel_path_name(path));
        time_kernel(n1, K_GEN, 4096, 5, 2, 1, path);
        time_kernel(n2, K_FILL, 4096, 0, 0, 0, path);
    }

    /* C peers. */
    int slow = reps < 3 ? reps : 3;
    time_peer("oracle_gen52_4096", P_ORACLE_GEN, 4096, 5, 2, slow);
    time_peer("oracle_gen5m1_4096", P_ORACLE_GEN, 4096, 5, -1, slow);
    time_peer("naive_gen52_4096", P_NAIVE_GEN, 4096, 5, 2, slow);
    time_peer("naive_gen5m1_4096", P_NAIVE_GEN, 4096, 5, -1, slow);
    time_peer("oracle_gen52_1000", P_ORACLE_GEN, 1000, 5, 2, reps);
    time_peer("oracle_gen5m1_1000", P_ORACLE_GEN, 1000, 5, -1, reps);
    time_peer("naive_gen52_1000", P_NAIVE_GEN, 1000, 5, 2, reps);
    time_peer("naive_gen5m1_1000", P_NAIVE_GEN, 1000, 5, -1, reps);
    time_peer("oracle_smooth_4096", P_ORACLE_SMOOTH, 4096, 5, 0, slow);
    time_peer("oracle_rule_4096", P_ORACLE_RULE, 4096, 5, 8, slow);

    /* The type2 cave the writers, steps and Python peers use. */
    cg_grid *cave = run_text(TYPE2, NULL, 4096, 4096, 42);
    if (mapfile) {
        uint8_t *bytes = grid_bytes(cave);
        FILE *f = fopen(mapfile, "wb");
        if (!f || fwrite(bytes, 1, (size_t)4096 * 4096, f) != (size_t)4096 * 4096 || fclose(f))
            die("cannot write the map file", NULL);
        free(bytes);
    }
    time_writer("png_4096", cave, 1);
    time_libpng_default("libpng_default_4096", cave);
    time_writer("ascii_4096", cave, 0);

    /* Steps through the pipeline. Those of milliseconds run three times as
     * often as the rest (at most 16): a single slow run on a shared machine
     * moves the median of five by a third. */
    int steps = reps * 3 > 16 ? 16 : reps * 3;
    uint32_t fx, fy;
    centre_floor(cave, &fx, &fy);
    char reach_full[96], reach_small[96];
    snprintf(reach_full, sizeof reach_full, "reach from=%u,%u", fx, fy);
    snprintf(reach_small, sizeof reach_small, "reach from=%u,%u moves=20", fx, fy);
    time_step("pipeline_overhead_4096", "smooth 0", cave, steps);
    time_step("remove_floor_4096", "remove-floor min=50", cave, steps);
    time_step("remove_walls_4096", "remove-walls min=50", cave, steps);
    time_step("keep_largest_4096", "keep-largest", cave, steps);
    /* The same on two threads (the CLI's -j 2). */
    time_step_par("remove_floor_4096_j2", "remove-floor min=50", cave, steps, pool2_for);
    time_step_par("remove_walls_4096_j2", "remove-walls min=50", cave, steps, pool2_for);
    time_step_par("keep_largest_4096_j2", "keep-largest", cave, steps, pool2_for);
    time_step("connect_4096", "connect", cave, steps);
    time_step("reach_full_4096", reach_full, cave, steps);
    time_step_par("reach_full_4096_j2", reach_full, cave, steps, pool2_for);
    time_step("reach_small_4096", reach_small, cave, steps);
    time_bfs_queue("bfs_queue_4096", cave, fx, fy, steps);
    cg_grid *small = run_text(TYPE2, NULL, 400, 400, 42);
    time_step("connect_400", "connect", small, steps);
    cg_grid_free(small);
    cg_grid_free(cave);

    time_batch("batch_80x50", 2000);
    time_batch_level_png("batch_level_png", 500);
    return 0;
}
