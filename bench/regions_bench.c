/* regions_bench.c - timings of region labelling, small-region removal and
 * `connect` on a big type2 map (SPEC 9; docs/PERFORMANCE.md, "Regions and
 * connect"). Not built by default; build against a Release libcavegen:
 *
 *   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release -DCAVEGEN_TESTS=OFF
 *   cmake --build build-rel -j2
 *   cc -O2 -std=c11 -Iinclude bench/regions_bench.c build-rel/libcavegen.a -lpng -o regions_bench
 *   ./regions_bench [SIZE [SEED [REPS]]]          (default 4096 42 5)
 *
 * Each figure is the best of REPS runs on a fresh copy of the same map
 * (copying is not timed). It also writes the map as raw bytes (1 = wall) to
 * regions_bench.map so bench/regions_scipy.py can time scipy on the very same
 * cells. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cavegen/cavegen.h"

/* Internal entry points of libcavegen (src/internal.h, src/regions.h). */
cg_status cg__floor_regions(const cg_grid *g, uint64_t *count, uint64_t *largest);
cg_status cg__remove_small(cg_grid *g, int walls, uint64_t min);
cg_status cg__connect(cg_grid *g, uint32_t width, uint64_t *corridors);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static cg_grid *run_text(const char *text, const cg_grid *in, uint32_t w, uint32_t h,
                         uint64_t seed)
{
    cg_pipeline *p = NULL;
    cg_grid *out = NULL;
    cg_diag diag = {0};
    if (cg_pipeline_new(&p) || cg_pipeline_parse(p, text, strlen(text), &diag) ||
        cg_pipeline_run(p, seed, w, h, in, &out, &diag)) {
        fprintf(stderr, "regions_bench: '%s' failed: %s\n", text, diag.message);
        exit(1);
    }
    cg_pipeline_free(p);
    return out;
}

typedef enum { LABEL, REMOVE_FLOOR, REMOVE_WALLS, CONNECT, CONNECT_AFTER } task;

static uint64_t corridors;

static double time_task(const cg_grid *map, task t, int reps, uint64_t *a, uint64_t *b)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        cg_grid *g = NULL;
        if (cg_grid_clone(&g, map)) {
            fprintf(stderr, "regions_bench: out of memory\n");
            exit(1);
        }
        double t0 = now();
        cg_status st = CG_OK;
        cg_grid *out = NULL;
        switch (t) {
        case LABEL:
            st = cg__floor_regions(g, a, b);
            break;
        case REMOVE_FLOOR:
            st = cg__remove_small(g, 0, 50);
            break;
        case REMOVE_WALLS:
            st = cg__remove_small(g, 1, 50);
            break;
        case CONNECT:
        case CONNECT_AFTER:
            st = cg__connect(g, 2, &corridors);
            out = g;
            g = NULL;
            break;
        }
        double dt = now() - t0;
        if (st != CG_OK) {
            fprintf(stderr, "regions_bench: %s\n", cg_strerror(st));
            exit(1);
        }
        if (out) {
            cg__floor_regions(out, a, b);
            cg_grid_free(out);
        }
        cg_grid_free(g);
        if (dt < best)
            best = dt;
    }
    return best;
}

int main(int argc, char **argv)
{
    uint32_t size = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 4096;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    cg_grid *map = run_text("fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n", NULL,
                            size, size, seed);
    double cells = (double)size * size;
    uint64_t regions = 0, largest = 0;

    FILE *f = fopen("regions_bench.map", "wb");
    if (f) {
        unsigned char *row = malloc(size);
        for (uint32_t y = 0; y < size && row; y++) {
            for (uint32_t x = 0; x < size; x++)
                row[x] = cg_grid_get(map, x, y) == CG_WALL;
            fwrite(row, 1, size, f);
        }
        free(row);
        fclose(f);
    }

    double t = time_task(map, LABEL, reps, &regions, &largest);
    printf("type2 %ux%u seed %llu: %llu floor regions, largest %llu, floor %llu\n", size, size,
           (unsigned long long)seed, (unsigned long long)regions, (unsigned long long)largest,
           (unsigned long long)cg_grid_floor_count(map));
    printf("label floor regions          %8.2f ms  %6.2f Gcells/s\n", t * 1e3, cells / t * 1e-9);
    t = time_task(map, REMOVE_FLOOR, reps, &regions, &largest);
    printf("remove-floor min=50          %8.2f ms  %6.2f Gcells/s\n", t * 1e3, cells / t * 1e-9);
    t = time_task(map, REMOVE_WALLS, reps, &regions, &largest);
    printf("remove-walls min=50          %8.2f ms  %6.2f Gcells/s\n", t * 1e3, cells / t * 1e-9);
    t = time_task(map, CONNECT, reps, &regions, &largest);
    printf("connect (all regions)        %8.2f ms  -> %llu region(s), %llu corridors\n",
           t * 1e3, (unsigned long long)regions, (unsigned long long)corridors);
    cg_grid *clean = NULL;
    cg_grid_clone(&clean, map);
    cg__remove_small(clean, 0, 50);
    t = time_task(clean, CONNECT_AFTER, reps, &regions, &largest);
    printf("connect after remove-floor   %8.2f ms  -> %llu region(s), %llu corridors\n",
           t * 1e3, (unsigned long long)regions, (unsigned long long)corridors);
    cg_grid_free(clean);
    cg_grid_free(map);
    return 0;
}
