/* reach_budgets.c - reach on a 4096x4096 type4 map from one start, each
 * budget through the automatic choice and both search paths
 * (docs/PERFORMANCE.md, "Reach"). Build and run from the top folder:
 *   cc -O2 -Iinclude bench/reach_budgets.c build/libcavegen.a -lpng -lz -o /tmp/rb && /tmp/rb
 * cg__reach_force_path is the library's internal test hook. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cavegen/cavegen.h"

void cg__reach_force_path(int path);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 4096;
    size_t len;
    const char *text = cg_preset_builtin("type4", &len);
    cg_pipeline *p;
    cg_grid *g;
    cg_diag d = {0};
    cg_run_options o = {.seed = 42, .width = n, .height = n};
    if (cg_pipeline_new(&p) || cg_pipeline_parse(p, text, len, &d) ||
        cg_pipeline_run(p, &o, &g, NULL, &d))
        return 1;
    cg_point s = {n / 2, n / 2};
    while (cg_grid_get(g, s.x, s.y) == CG_WALL)
        s.x++;
    static const uint32_t budgets[] = {6, 20, 64, 65, 1000, CG_MOVES_UNLIMITED};
    static const char *paths[] = {"auto", "queue", "bitboard"};
    printf("%ux%u type4 seed 42, start %u,%u\n", n, n, s.x, s.y);
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        for (int path = -1; path <= 1; path++) {
            if (budgets[b] == CG_MOVES_UNLIMITED && path == 1)
                continue; /* level by level over the whole map: not a contender */
            cg__reach_force_path(path);
            int reps = budgets[b] <= 65 ? 2000 : 5;
            double best = 1e9;
            for (int r = 0; r < reps; r++) {
                double t0 = now();
                if (cg_grid_reach(g, &s, 1, budgets[b], &d) != CG_OK)
                    return 1;
                double dt = now() - t0;
                best = dt < best ? dt : best;
            }
            uint64_t reached = cg_grid_reached_count(g);
            printf("moves=%-10u %-8s reached=%-9llu best %10.2f us  %.3g reached cells/s\n",
                   budgets[b], paths[path + 1], (unsigned long long)reached, best * 1e6,
                   (double)reached / best);
        }
    }
    cg_grid_free(g);
    cg_pipeline_free(p);
    return 0;
}
