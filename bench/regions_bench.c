/* regions_bench.c - timings of region labelling, small-region removal,
 * keep-largest and `connect` on a big type2 map (docs/PERFORMANCE.md,
 * "Regions and connect"). Not built by default; build it against a Release
 * libcavegen:
 *
 *   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release -DCAVEGEN_TESTS=OFF
 *   cmake --build build-rel -j2
 *   cc -O2 -std=c11 -Iinclude bench/regions_bench.c build-rel/libcavegen.a -lpng -lz \
 *      -o build-rel/regions_bench
 *   cd build-rel && ./regions_bench [SIZE [SEED [REPS]]]   (default 4096 42 7)
 *
 * The map is `--preset type2` at SIZE x SIZE with that seed. Each step runs
 * REPS times on a fresh copy of it (the copy is not timed) through the
 * library's internal entry points, so the figure is the step alone, without
 * the pipeline's copy of its input; the best and the median are printed.
 * The map is also written as raw bytes (1 = wall) to regions_bench.map in
 * the current directory, so that bench/regions_scipy.py (run from the same
 * directory) times scipy on the very same cells. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cavegen/cavegen.h"

/* Internal entry points of libcavegen (src/regions/regions.h). */
cg_status cg__floor_regions(const cg_grid *g, uint64_t *count, uint64_t *largest);
cg_status cg__remove_small(cg_grid *g, int walls, uint64_t min);
cg_status cg__keep_largest_floor(cg_grid *g);
cg_status cg__connect(cg_grid *g, uint32_t width, uint64_t *corridors);
void cg__drop_wall_specks(cg_grid *g, uint32_t y0, uint32_t y1, uint64_t min);

#define MAX_REPS 64

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

static cg_grid *type2(uint32_t size, uint64_t seed)
{
    static const char text[] = "fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n";
    cg_pipeline *p = NULL;
    cg_grid *out = NULL;
    cg_diag diag = {0};
    cg_run_options o = {.seed = seed, .width = size, .height = size};
    if (cg_pipeline_new(&p) || cg_pipeline_parse(p, text, strlen(text), &diag) ||
        cg_pipeline_run(p, &o, &out, NULL, &diag)) {
        fprintf(stderr, "regions_bench: type2 failed: %s\n", diag.message);
        exit(1);
    }
    cg_pipeline_free(p);
    return out;
}

typedef enum { LABEL, REMOVE_FLOOR, REMOVE_WALLS, WALL_SPECKS, KEEP_LARGEST, CONNECT } task;

static const char *const names[] = {
    "label the floor regions", "remove-floor min=50", "remove-walls min=50",
    "  its specks' blocks alone", "keep-largest", "connect (width 2)",
};

/* Runs task reps times on copies of map; prints best and median. *out_map
 * (if not NULL) gets the last result. */
static void time_task(const cg_grid *map, task t, int reps, cg_grid **out_map)
{
    double ts[MAX_REPS];
    uint64_t a = 0, b = 0;
    for (int r = 0; r < reps; r++) {
        cg_grid *g = NULL;
        if (cg_grid_clone(&g, map)) {
            fprintf(stderr, "regions_bench: out of memory\n");
            exit(1);
        }
        cg_status st = CG_OK;
        double t0 = now();
        switch (t) {
        case LABEL:
            st = cg__floor_regions(g, &a, &b);
            break;
        case REMOVE_FLOOR:
            st = cg__remove_small(g, 0, 50);
            break;
        case REMOVE_WALLS:
            st = cg__remove_small(g, 1, 50);
            break;
        case WALL_SPECKS: /* the first pass of REMOVE_WALLS (regions/specks.c) */
            cg__drop_wall_specks(g, 0, cg_grid_height(g), 50);
            break;
        case KEEP_LARGEST:
            st = cg__keep_largest_floor(g);
            break;
        case CONNECT:
            st = cg__connect(g, 2, &b);
            break;
        }
        ts[r] = now() - t0;
        if (st != CG_OK) {
            fprintf(stderr, "regions_bench: %s: %s\n", names[t], cg_strerror(st));
            exit(1);
        }
        if (out_map && r + 1 == reps)
            *out_map = g;
        else
            cg_grid_free(g);
    }
    qsort(ts, (size_t)reps, sizeof ts[0], cmp_double);
    double med = reps % 2 ? ts[reps / 2] : (ts[reps / 2 - 1] + ts[reps / 2]) / 2;
    double cells = (double)cg_grid_width(map) * cg_grid_height(map);
    printf("%-28s best %8.2f ms  median %8.2f ms  %6.2f Gcells/s (median)", names[t], ts[0] * 1e3,
           med * 1e3, cells / med * 1e-9);
    if (t == LABEL)
        printf("  %llu regions, largest %llu", (unsigned long long)a, (unsigned long long)b);
    if (t == CONNECT)
        printf("  %llu corridors", (unsigned long long)b);
    printf("\n");
}

int main(int argc, char **argv)
{
    uint32_t size = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 4096;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
    int reps = argc > 3 ? atoi(argv[3]) : 7;
    if (size < 1 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: regions_bench [SIZE [SEED [REPS (1..%d)]]]\n", MAX_REPS);
        return 2;
    }
    cg_grid *map = type2(size, seed);

    FILE *f = fopen("regions_bench.map", "wb");
    unsigned char *row = malloc(size);
    if (!f || !row) {
        fprintf(stderr, "regions_bench: cannot write regions_bench.map\n");
        return 1;
    }
    for (uint32_t y = 0; y < size; y++) {
        for (uint32_t x = 0; x < size; x++)
            row[x] = cg_grid_get(map, x, y) == CG_WALL;
        fwrite(row, 1, size, f);
    }
    free(row);
    fclose(f);

    printf("type2 %ux%u seed %llu, floor %llu cells, best and median of %d\n", size, size,
           (unsigned long long)seed, (unsigned long long)cg_grid_floor_count(map), reps);
    time_task(map, LABEL, reps, NULL);
    time_task(map, REMOVE_FLOOR, reps, NULL);
    time_task(map, REMOVE_WALLS, reps, NULL);
    time_task(map, WALL_SPECKS, reps, NULL);
    time_task(map, KEEP_LARGEST, reps, NULL);
    time_task(map, CONNECT, reps, NULL);
    /* connect after remove-floor, the order the classic preset uses. */
    cg_grid *clean = NULL;
    time_task(map, REMOVE_FLOOR, 1, &clean);
    printf("after remove-floor min=50:\n");
    time_task(clean, CONNECT, reps, NULL);
    cg_grid_free(clean);
    cg_grid_free(map);
    return 0;
}
