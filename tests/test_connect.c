/* test_connect.c - `connect [width=W]` (the Russian cellular-automata
 * article, docs/presets.md): on many random maps of awkward sizes and every width, exactly one floor region remains,
 * no floor is lost, every carved cell belongs to a passage (4-connected to
 * the old floor, W cells thick off the map's ring), and the corridors are no
 * longer in total than a minimum spanning tree over the regions' true
 * closest distances (a brute-force oracle); and the row-by-row search
 * carves, bit for bit, what its twin, the first search, carves. Plus
 * hand-computed cases. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "oracle.h"
#include "testutil.h"
#include "region_oracle.h"
/* The test-only hook that forces a kernel code path (cg__set_kernel_path):
 * the row-by-row search computes its dense rows with the AVX2 copy on the
 * AVX2 path, the AVX-512 one on the AVX-512 paths. */
#include "core/cpu.h"

/* Internal (src/regions/regions.h): the step's body, which also counts corridors. */
cg_status cg__connect(cg_grid *g, uint32_t width, uint64_t *corridors);
/* Forces the baseline-ISA loops of labelling and connect (tests only). */
void cg__regions_force_base(int on);
/* Makes cg__connect run its first search, the row-by-row one's twin
 * (src/regions/connect.h; tests only). */
void cg__connect_force_base(int on);
void cg__connect_force_window(int mode);

static const int sizes[][2] = {
    {1, 1},  {1, 2},  {2, 1},   {1, 77},  {77, 1},  {2, 2},   {3, 3},   {5, 7},    {63, 9},
    {64, 9}, {65, 9}, {127, 5}, {129, 6}, {63, 63}, {64, 64}, {65, 65}, {130, 31}, {300, 200},
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static uint8_t *random_map(int w, int h, uint64_t *state, int variant)
{
    static const double density[] = {0.5, 0.7, 0.85, 0.45, 0.55, 0.95};
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, density[variant % 6], state);
    if (variant % 6 >= 3)
        assert_int_equal(oracle_smooths(cells, w, h, 2, 5), 0);
    return cells;
}

static cg_grid *run_connect(const uint8_t *cells, int w, int h, int width)
{
    char step[32];
    snprintf(step, sizeof step, "connect width=%d", width);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg_grid *out = tu_run(step, 0, 0, 0, in);
    cg_grid_free(in);
    return out;
}

/* The invariants of one run; returns the number of carved cells. */
static int64_t check_connected(const uint8_t *before, const uint8_t *after, int w, int h, int width,
                               const char *what)
{
    size_t n = (size_t)w * (size_t)h;
    int64_t largest, carved = 0, had_floor = 0;
    int regions = ro_floor_regions(after, w, h, &largest);
    for (size_t i = 0; i < n; i++) {
        had_floor += before[i] == 0;
        if (before[i] == 0 && after[i] != 0) {
            print_error("%s: floor cell (%d,%d) became wall\n", what, (int)(i % (size_t)w),
                        (int)(i / (size_t)w));
            fail();
        }
        carved += before[i] == 1 && after[i] == 0;
    }
    if (regions != (had_floor ? 1 : 0)) {
        print_error("%s: %d floor regions after connect\n", what, regions);
        fail();
    }
    if (!had_floor)
        assert_int_equal(carved, 0);
    /* Every piece of carved passage (a 4-connected set of new floor) touches
     * the old floor: nothing floats. */
    uint8_t *mask = tu_alloc_cells(w, h);
    for (size_t i = 0; i < n; i++)
        mask[i] = before[i] == 1 && after[i] == 0 ? 0 : 1;
    ro_regions pieces = ro_label(mask, w, h, 0);
    uint8_t *touches = calloc((size_t)pieces.n + 1, 1);
    assert_non_null(touches);
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p = pieces.lab[(size_t)y * (size_t)w + (size_t)x];
            for (int d = 0; p && d < 4; d++) {
                int nx = x + dx[d], ny = y + dy[d];
                if (nx >= 0 && ny >= 0 && nx < w && ny < h &&
                    before[(size_t)ny * (size_t)w + (size_t)nx] == 0)
                    touches[p] = 1;
            }
        }
    for (int p = 1; p <= pieces.n; p++)
        assert_true(touches[p]);
    free(touches);
    ro_free(&pieces);
    free(mask);
    /* Nothing is carved on the outer ring of a map with an inside, but the
     * one ring cell that links a corner region of a single cell. */
    for (int y = 0; y < h && w >= 3 && h >= 3; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            if (!(x == 0 || y == 0 || x == w - 1 || y == h - 1) || !(before[i] == 1 && after[i] == 0))
                continue;
            int lone_corner = 0;
            for (int cy = 0; cy < h; cy += h - 1)
                for (int cx = 0; cx < w; cx += w - 1) {
                    int ax = cx ? cx - 1 : 1, ay = cy ? cy - 1 : 1;
                    if (abs(cx - x) + abs(cy - y) == 1 && before[(size_t)cy * (size_t)w + (size_t)cx] == 0 &&
                        before[(size_t)cy * (size_t)w + (size_t)ax] == 1 &&
                        before[(size_t)ay * (size_t)w + (size_t)cx] == 1)
                        lone_corner = 1;
                }
            if (!lone_corner) {
                print_error("%s: ring cell (%d,%d) carved\n", what, x, y);
                fail();
            }
        }
    /* A passage, not a crack: off the outer ring, every carved cell lies in
     * a width x width square of floor (when the map has room for one). */
    if (width >= 2 && w >= width + 2 && h >= width + 2) {
        for (int y = 1; y + 1 < h; y++)
            for (int x = 1; x + 1 < w; x++) {
                size_t i = (size_t)y * (size_t)w + (size_t)x;
                if (!(before[i] == 1 && after[i] == 0))
                    continue;
                int found = 0;
                for (int sy = y - width + 1; sy <= y && !found; sy++)
                    for (int sx = x - width + 1; sx <= x && !found; sx++) {
                        if (sx < 0 || sy < 0 || sx + width > w || sy + width > h)
                            continue;
                        int all = 1;
                        for (int yy = sy; yy < sy + width && all; yy++)
                            for (int xx = sx; xx < sx + width && all; xx++)
                                all = after[(size_t)yy * (size_t)w + (size_t)xx] == 0;
                        found = all;
                    }
                if (!found) {
                    print_error("%s: carved cell (%d,%d) is not in a %dx%d floor square\n", what, x,
                                y, width, width);
                    fail();
                }
            }
    }
    return carved;
}

static void connect_invariants(uint64_t rng)
{
    static const int widths[] = {1, 2, 3, 5};
    for (size_t s = 0; s < NSIZES; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        int rounds = w * h > 20000 ? 2 : 6;
        for (int v = 0; v < rounds; v++) {
            uint8_t *cells = random_map(w, h, &rng, v);
            for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
                cg_grid *out = run_connect(cells, w, h, widths[k]);
                uint8_t *after = tu_cells_from_grid(out);
                char what[96];
                snprintf(what, sizeof what, "connect width=%d on %dx%d (variant %d)", widths[k], w,
                         h, v);
                check_connected(cells, after, w, h, widths[k], what);
                free(after);
                cg_grid_free(out);
            }
            free(cells);
        }
    }
}

static void after_connect_one_region_remains_and_no_floor_is_lost(void **state)
{
    (void)state;
    connect_invariants(0xc0ec7);
}

/* connect's search is compiled twice too (baseline ISA, POPCNT/BMI): both
 * copies carve the same corridors. */
static void the_baseline_search_carves_the_same_corridors(void **state)
{
    (void)state;
    uint64_t rng = 8;
    for (int i = 0; i < 30; i++) {
        int w = tu_range(&rng, 1, 200), h = tu_range(&rng, 1, 100);
        uint8_t *cells = random_map(w, h, &rng, i);
        cg_grid *fast = run_connect(cells, w, h, 1 + i % 4);
        cg__regions_force_base(1);
        cg_grid *base = run_connect(cells, w, h, 1 + i % 4);
        cg__regions_force_base(0);
        assert_true(tu_grids_equal(fast, base));
        cg_grid_free(fast);
        cg_grid_free(base);
        free(cells);
    }
}

/* A map for the twin test: kind picks the pattern. */
static uint8_t *twin_map(int w, int h, int kind, uint64_t *rng)
{
    uint8_t *cells = tu_alloc_cells(w, h);
    const size_t n = (size_t)w * (size_t)h;
    switch (kind) {
    case 0: /* noise, from mostly floor to a few specks */
    case 1:
    case 2: {
        static const double density[] = {0.3, 0.5, 0.6, 0.75, 0.9, 0.97};
        tu_random_cells(cells, w, h, density[tu_range(rng, 0, 5)], rng);
        break;
    }
    case 3: /* a smoothed cave: one large region and many small ones */
        tu_random_cells(cells, w, h, tu_range(rng, 40, 60) / 100.0, rng);
        assert_int_equal(oracle_smooths(cells, w, h, tu_range(rng, 1, 4), 5), 0);
        break;
    case 4: /* everything wall */
        memset(cells, 1, n);
        break;
    case 5: /* everything floor */
        memset(cells, 0, n);
        break;
    case 6: /* a checkerboard: every floor cell a region, all of one size */
    case 7:
        for (size_t i = 0; i < n; i++)
            cells[i] = (uint8_t)(((i % (size_t)w) + (i / (size_t)w) + (size_t)kind) & 1);
        break;
    case 8: { /* a few blobs far apart in rock: many layers, a sparse front */
        memset(cells, 1, n);
        int blobs = tu_range(rng, 2, 6);
        for (int b = 0; b < blobs; b++) {
            int bx = tu_range(rng, 0, w - 1), by = tu_range(rng, 0, h - 1);
            int bw = tu_range(rng, 1, 4), bh = tu_range(rng, 1, 4);
            for (int y = by; y < by + bh && y < h; y++)
                for (int x = bx; x < bx + bw && x < w; x++)
                    cells[(size_t)y * (size_t)w + (size_t)x] = 0;
        }
        break;
    }
    default: { /* corridors 1 to 3 wide, across or down, walls 1 to 3 wide,
                * broken here and there: regions of equal shape (ties) */
        int across = tu_range(rng, 0, 1), cw = tu_range(rng, 1, 3), ww = tu_range(rng, 1, 3);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int v = across ? y : x;
                cells[(size_t)y * (size_t)w + (size_t)x] =
                    (uint8_t)(v % (cw + ww) >= cw || tu_range(rng, 0, 30) == 0);
            }
        break;
    }
    }
    return cells;
}

/* Connects a map of the given cells both ways, the search in use and the
 * twin (the first search), and fails unless they carve the same cells and
 * the same number of corridors; `what` names the case in the message. */
static void assert_connect_like_twin(const uint8_t *cells, int w, int h, int kind,
                                     uint32_t width, const char *what)
{
    cg_grid *fast = tu_grid_from_cells(cells, w, h);
    cg_grid *twin = tu_grid_from_cells(cells, w, h);
    uint64_t nf = 0, nt = 0;
    assert_int_equal(cg__connect(fast, width, &nf), CG_OK);
    cg__connect_force_base(1);
    assert_int_equal(cg__connect(twin, width, &nt), CG_OK);
    cg__connect_force_base(0);
    if (!tu_grids_equal(fast, twin) || nf != nt) {
        print_error("%dx%d, map kind %d, width %u, %s: %llu corridors, twin %llu%s\n", w, h,
                    kind, width, what, (unsigned long long)nf, (unsigned long long)nt,
                    tu_grids_equal(fast, twin) ? "" : ", cells differ");
        fail();
    }
    /* The window on the later layers (regions/voronoi.c), planned as soon
     * as a bound is found (1), and with a bound too near (2: the search
     * runs again without it). */
    for (int mode = 1; mode <= 2; mode++) {
        cg_grid *win = tu_grid_from_cells(cells, w, h);
        uint64_t nw = 0;
        cg__connect_force_window(mode);
        assert_int_equal(cg__connect(win, width, &nw), CG_OK);
        cg__connect_force_window(0);
        if (!tu_grids_equal(win, twin) || nw != nt) {
            print_error("%dx%d, map kind %d, width %u, %s, window %d: %llu corridors, twin "
                        "%llu%s\n",
                        w, h, kind, width, what, mode, (unsigned long long)nw,
                        (unsigned long long)nt, tu_grids_equal(win, twin) ? "" : ", cells differ");
            fail();
        }
        cg_grid_free(win);
    }
    cg_grid_free(fast);
    cg_grid_free(twin);
}

/* The row-by-row search (the default) against its twin, the first search
 * (cg__connect_force_base): the same cells carved, bit for bit, and the
 * same number of corridors, on maps of awkward sizes and every pattern
 * (noise, caves, all wall, all floor, checkerboards, far-apart blobs,
 * narrow corridors), at corridor widths 1 to 5, on both compiled copies. */
static void the_row_search_carves_what_its_twin_carves(void **state)
{
    (void)state;
    static const int twin_sizes[][2] = {
        {1, 1},   {1, 2},    {2, 1},     {1, 97},  {97, 1},   {1, 300}, {300, 1},  {2, 50},
        {50, 2},  {3, 3},    {63, 17},   {64, 17}, {65, 17},  {63, 63}, {64, 64},  {65, 65},
        {131, 9}, {131, 40}, {200, 129}, {127, 3}, {129, 70}, {5, 131}, {192, 64}, {257, 33},
    };
    uint64_t rng = 0x7e1d;
    for (int round = 0; round < 2; round++) {
        cg__regions_force_base(round);
        for (size_t si = 0; si < sizeof twin_sizes / sizeof twin_sizes[0]; si++) {
            for (int kind = 0; kind < 12; kind++) {
                const int w = twin_sizes[si][0], h = twin_sizes[si][1];
                uint8_t *cells = twin_map(w, h, kind, &rng);
                const uint32_t width = (uint32_t)tu_range(&rng, 1, 5);
                assert_connect_like_twin(cells, w, h, kind, width,
                                         round ? "baseline copy" : "fast copy");
                free(cells);
            }
        }
    }
    cg__regions_force_base(0);
}

/* Every kernel path forced in turn (the row-by-row search's dense rows:
 * portable, AVX2, AVX-512), against the twin: rows of 1 to 65 words, so
 * the vector copies' last lanes, part-filled vectors and two 64-word spans
 * a row are all met, on odd heights and every map pattern, many seeds. */
static void every_kernel_path_carves_what_the_twin_carves(void **state)
{
    (void)state;
    static const int widths[] = {1, 2, 63, 64, 65, 131, 191, 257, 520, 1000, 4100};
    static const int heights[] = {1, 3, 17, 33, 65};
    uint64_t rng = 0x9a7b;
    for (int path = 0; path < CG__PATH_COUNT; path++) {
        if (!cg__kernel_path_available(path))
            continue;
        assert_int_equal(cg__set_kernel_path(path), 0);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++) {
                const int w = widths[wi], h = heights[hi];
                if ((int64_t)w * h > 70000 && hi > 2)
                    continue; /* the widest rows on low maps only */
                for (int kind = 0; kind < 12; kind++) {
                    if (!tu_sampled((size_t)path + wi + hi + (size_t)kind))
                        continue;
                    uint8_t *cells = twin_map(w, h, kind, &rng);
                    const uint32_t width = (uint32_t)tu_range(&rng, 1, 3);
                    assert_connect_like_twin(cells, w, h, kind, width,
                                             cg__kernel_path_name(path));
                    free(cells);
                }
            }
    }
    assert_int_equal(cg__set_kernel_path(CG__PATH_AUTO), 0);
}

/* The same on random sizes, and through `connect largest=N`. */
static void the_row_search_carves_what_its_twin_carves_on_random_maps(void **state)
{
    (void)state;
    uint64_t rng = 0x5eed;
    for (int i = 0; i < 300; i++) {
        const int w = tu_range(&rng, 1, 160), h = tu_range(&rng, 1, 120);
        uint8_t *cells = twin_map(w, h, i % 12, &rng);
        char step[64];
        snprintf(step, sizeof step, "connect width=%d%s", tu_range(&rng, 1, 16),
                 i % 3 == 0   ? " largest=2"
                 : i % 3 == 1 ? " largest=5"
                              : "");
        cg_grid *in = tu_grid_from_cells(cells, w, h);
        cg_grid *fast = tu_run(step, 0, 0, 0, in);
        cg__connect_force_base(1);
        cg_grid *twin = tu_run(step, 0, 0, 0, in);
        cg__connect_force_base(0);
        if (!tu_grids_equal(fast, twin)) {
            print_error("%dx%d, map kind %d, %s: the cells differ\n", w, h, i % 12, step);
            fail();
        }
        cg_grid_free(in);
        cg_grid_free(fast);
        cg_grid_free(twin);
        free(cells);
    }
}

/* The window on the last layers (regions/voronoi.c) as the search plans it
 * by itself, and forced at the first layer it can be (with a bound that
 * holds, and one too near: the search runs again), against the twin: caves
 * with many small regions around one large one - where it pays - on awkward
 * sizes, one large cave with a few specks far out in rock (few regions
 * apart, many layers), one region, many tiny regions, all wall. */
static void the_window_carves_what_the_twin_carves(void **state)
{
    (void)state;
    static const int wsizes[][2] = {
        {1, 300}, {300, 1}, {63, 200}, {64, 200}, {65, 200}, {131, 150}, {400, 300}, {257, 129},
    };
    uint64_t rng = 0x3f1d;
    for (size_t si = 0; si < sizeof wsizes / sizeof wsizes[0]; si++) {
        const int w = wsizes[si][0], h = wsizes[si][1];
        const size_t n = (size_t)w * (size_t)h;
        for (int kind = 0; kind < 6; kind++) {
            uint8_t *cells = tu_alloc_cells(w, h);
            switch (kind) {
            case 0: /* a cave: one large region, many small ones */
            case 1:
                tu_random_cells(cells, w, h, tu_range(&rng, 42, 50) / 100.0, &rng);
                assert_int_equal(oracle_smooths(cells, w, h, tu_range(&rng, 2, 4), 5), 0);
                break;
            case 2: { /* a large cave on the left, specks far out in rock */
                memset(cells, 1, n);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w / 3; x++)
                        cells[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)(x % 7 == 6);
                for (int b = tu_range(&rng, 1, 5); b > 0; b--) {
                    const int x = tu_range(&rng, 0, w - 1), y = tu_range(&rng, 0, h - 1);
                    cells[(size_t)y * (size_t)w + (size_t)x] = 0;
                }
                break;
            }
            case 3: /* one region */
                memset(cells, 0, n);
                break;
            case 4: /* many tiny regions */
                for (size_t i = 0; i < n; i++)
                    cells[i] = (uint8_t)(((i % (size_t)w) % 2) | ((i / (size_t)w) % 2));
                break;
            default: /* all wall */
                memset(cells, 1, n);
                break;
            }
            for (uint32_t width = 1; width <= 3; width += 2)
                assert_connect_like_twin(cells, w, h, kind, width, "window");
            free(cells);
        }
    }
}

static void connect_after_a_cave_pipeline_leaves_one_region(void **state)
{
    (void)state;
    uint64_t rng = 5;
    for (int seed = 0; seed < 16; seed++) {
        int w = tu_range(&rng, 20, 220), h = tu_range(&rng, 10, 120);
        static const char *const pre[] = {
            "fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n",
            "fill 55\nsmooth 4\n",
            "fill 62\ngenerations 3 r1=5 r2=-1\n",
        };
        const char *p = pre[seed % 3];
        char text[200];
        snprintf(text, sizeof text, "%sconnect\n", p);
        cg_grid *before = tu_run(p, (uint64_t)seed, (uint32_t)w, (uint32_t)h, NULL);
        cg_grid *after = tu_run(text, (uint64_t)seed, (uint32_t)w, (uint32_t)h, NULL);
        uint8_t *b = tu_cells_from_grid(before), *a = tu_cells_from_grid(after);
        check_connected(b, a, w, h, 2, p);
        /* Same seed, same map. */
        cg_grid *again = tu_run(text, (uint64_t)seed, (uint32_t)w, (uint32_t)h, NULL);
        assert_true(tu_grids_equal(after, again));
        cg_grid_free(again);
        free(a);
        free(b);
        cg_grid_free(before);
        cg_grid_free(after);
    }
}

/* Brute force: the minimum spanning tree over regions, weighted by the
 * smallest city-block distance between their cells; returns its weight. */
static int64_t mst_cells(const uint8_t *cells, int w, int h)
{
    ro_regions r = ro_label(cells, w, h, 0);
    int n = r.n;
    if (n <= 1) {
        ro_free(&r);
        return 0;
    }
    int64_t *dist = malloc((size_t)n * (size_t)n * sizeof *dist);
    assert_non_null(dist);
    for (int i = 0; i < n * n; i++)
        dist[i] = INT64_MAX;
    size_t cells_n = (size_t)w * (size_t)h;
    for (size_t i = 0; i < cells_n; i++) {
        if (!r.lab[i])
            continue;
        int xi = (int)(i % (size_t)w), yi = (int)(i / (size_t)w);
        for (size_t j = i + 1; j < cells_n; j++) {
            if (!r.lab[j] || r.lab[j] == r.lab[i])
                continue;
            int xj = (int)(j % (size_t)w), yj = (int)(j / (size_t)w);
            int64_t d = abs(xi - xj) + abs(yi - yj);
            int a = r.lab[i] - 1, b = r.lab[j] - 1;
            if (d < dist[a * n + b])
                dist[a * n + b] = dist[b * n + a] = d;
        }
    }
    /* Prim. */
    int64_t *best = malloc((size_t)n * sizeof *best), total = 0;
    uint8_t *in = calloc((size_t)n, 1);
    assert_non_null(best);
    assert_non_null(in);
    for (int i = 0; i < n; i++)
        best[i] = dist[i];
    in[0] = 1;
    for (int step = 1; step < n; step++) {
        int pick = -1;
        for (int i = 0; i < n; i++)
            if (!in[i] && (pick < 0 || best[i] < best[pick]))
                pick = i;
        total += best[pick];
        in[pick] = 1;
        for (int i = 0; i < n; i++)
            if (!in[i] && dist[pick * n + i] < best[i])
                best[i] = dist[pick * n + i];
    }
    free(best);
    free(in);
    free(dist);
    ro_free(&r);
    return total;
}

/* Kruskal over the Voronoi edges picks corridors of total weight at most the
 * minimum spanning tree's (Mehlhorn 1988; fewer when a corridor crosses a
 * third region and joins it for free), and a corridor of weight d needs at
 * most d - 1 new cells. So with C corridors, carved <= MST - C. */
static void one_wide_corridors_are_no_longer_than_the_minimum_spanning_tree(void **state)
{
    (void)state;
    uint64_t rng = 31;
    for (int i = 0; i < 60; i++) {
        int w = tu_range(&rng, 2, 48), h = tu_range(&rng, 2, 30);
        uint8_t *cells = random_map(w, h, &rng, i);
        /* Half the maps with a wall ring (then corridors are straight lines
         * between the closest cells); on the others two regions on the ring
         * may be joined by a corridor moved inside it, which can need d + 1
         * cells. */
        int ringed = i % 2 == 0;
        for (int y = 0; y < h && ringed; y++)
            for (int x = 0; x < w; x++)
                if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                    cells[(size_t)y * (size_t)w + (size_t)x] = 1;
        int64_t mst = mst_cells(cells, w, h);
        cg_grid *g = tu_grid_from_cells(cells, w, h);
        uint64_t corridors = 0;
        assert_int_equal(cg__connect(g, 1, &corridors), CG_OK);
        uint8_t *after = tu_cells_from_grid(g);
        int64_t carved = check_connected(cells, after, w, h, 1, "connect width=1");
        if (carved > mst - (int64_t)corridors + (ringed ? 0 : 2 * (int64_t)corridors)) {
            print_error("%dx%d: carved %lld cells in %llu corridors, spanning tree weight %lld\n",
                        w, h, (long long)carved, (unsigned long long)corridors, (long long)mst);
            fail();
        }
        free(after);
        cg_grid_free(g);
        free(cells);
    }
}

static void two_regions_are_joined_between_their_closest_cells(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "##########", "#.########", "#.########", "#.#####.##", "#.########", "##########",
    };
    static const char *const want[] = {
        "##########", "#.########", "#.########", "#.......##", "#.########", "##########",
    };
    cg_grid *g = tu_grid_from_rows(rows, 6);
    cg_grid *out = tu_run("connect width=1", 0, 0, 0, g);
    tu_assert_grid_equals_rows(out, want, 6, "connect width=1");
    cg_grid_free(out);
    cg_grid_free(g);
}

static void a_diagonal_corridor_steps_four_connected(void **state)
{
    (void)state;
    /* Two single cells 7 across and 4 down: a one-wide corridor is a
     * 4-connected path of exactly 7 + 4 - 1 new cells, never a diagonal
     * staircase whose cells only meet at corners. */
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 10, 7), CG_OK);
    cg_grid_set(g, 1, 1, CG_FLOOR);
    cg_grid_set(g, 8, 5, CG_FLOOR);
    cg_grid *out = tu_run("connect width=1", 0, 0, 0, g);
    assert_int_equal(cg_grid_floor_count(out), 2 + 10);
    uint8_t *cells = tu_cells_from_grid(out);
    int64_t largest;
    assert_int_equal(ro_floor_regions(cells, 10, 7, &largest), 1);
    free(cells);
    cg_grid_free(out);
    /* Width 3: a band three cells thick. */
    out = tu_run("connect width=3", 0, 0, 0, g);
    uint8_t *before = tu_cells_from_grid(g), *after = tu_cells_from_grid(out);
    check_connected(before, after, 10, 7, 3, "connect width=3");
    free(before);
    free(after);
    cg_grid_free(out);
    cg_grid_free(g);
}

static void maps_with_one_region_or_none_are_left_alone(void **state)
{
    (void)state;
    static const char *const one[] = {
        "#####",
        "#..##",
        "###.#",
        "#####",
    };
    static const char *const one_region[] = {
        "#####",
        "#...#",
        "##..#",
        "#####",
    };
    cg_grid *g = tu_grid_from_rows(one_region, 4);
    cg_grid *out = tu_run("connect width=4", 0, 0, 0, g);
    assert_true(tu_grids_equal(out, g));
    cg_grid_free(out);
    cg_grid_free(g);
    /* Diagonal neighbours are two regions (4-connectivity): joined. */
    g = tu_grid_from_rows(one, 4);
    out = tu_run("connect width=1", 0, 0, 0, g);
    assert_int_equal(cg_grid_floor_count(out), 4);
    cg_grid_free(out);
    cg_grid_free(g);
    assert_int_equal(cg_grid_new(&g, 33, 9), CG_OK);
    out = tu_run("connect", 0, 0, 0, g);
    assert_int_equal(cg_grid_floor_count(out), 0);
    cg_grid_free(out);
    cg_grid_free(g);
}

static void markers_survive_connect(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "..####..",
        "..####..",
        "########",
        "..####..",
    };
    cg_grid *g = tu_grid_from_rows(rows, 4);
    assert_int_equal(cg_grid_set_marker(g, 0, 0, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 7, 3, CG_MARK_EXIT), CG_OK);
    cg_grid *out = tu_run("connect", 0, 0, 0, g);
    assert_int_equal(cg_grid_marker(out, 0, 0), CG_MARK_ENTRANCE);
    assert_int_equal(cg_grid_marker(out, 7, 3), CG_MARK_EXIT);
    uint8_t *cells = tu_cells_from_grid(out);
    int64_t largest;
    assert_int_equal(ro_floor_regions(cells, 8, 4, &largest), 1);
    free(cells);
    cg_grid_free(out);
    cg_grid_free(g);
}

/* `connect largest=N` on a map of R > N regions: the N largest (ties: the
 * first in scan order) end as one region M holding every carved cell; each
 * other region is either unchanged - the same cells, a region of its own -
 * or was crossed or touched by a corridor and is part of M. Returns how
 * many were left unchanged. */
static int check_largest(const uint8_t *before, const uint8_t *after, int w, int h, int n,
                         const char *what)
{
    ro_regions a = ro_label(before, w, h, 0), b = ro_label(after, w, h, 0);
    assert_true(a.n > n);
    /* The n largest of the oracle's regions, by size then scan order. */
    int *pick = calloc((size_t)a.n + 1, sizeof *pick);
    assert_non_null(pick);
    for (int k = 0; k < n; k++) {
        int best = 0;
        for (int r = 1; r <= a.n; r++)
            if (!pick[r] && (best == 0 || a.size[r] > a.size[best]))
                best = r;
        pick[best] = 1;
    }
    int merged = -1, unchanged = 0;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        if (before[i] == 0 && after[i] != 0) {
            print_error("%s: floor lost\n", what);
            fail();
        }
        if (before[i] == 0 && pick[a.lab[i]]) {
            if (merged >= 0 && b.lab[i] != merged) {
                print_error("%s: the %d largest regions are not one region\n", what, n);
                fail();
            }
            merged = b.lab[i];
        }
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        if (before[i] == 1 && after[i] == 0 && b.lab[i] != merged) {
            print_error("%s: carved cell (%d,%d) outside the joined region\n", what,
                        (int)(i % (size_t)w), (int)(i / (size_t)w));
            fail();
        }
    /* Each other region: unchanged or inside M. */
    for (int r = 1; r <= a.n; r++) {
        if (pick[r])
            continue;
        int into = -1;
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
            if (a.lab[i] == r)
                into = b.lab[i];
        if (into == merged)
            continue;
        if (b.size[into] != a.size[r]) {
            print_error("%s: region %d (%lld cells) changed\n", what, r, (long long)a.size[r]);
            fail();
        }
        unchanged++;
    }
    assert_int_equal(b.n, 1 + unchanged);
    free(pick);
    ro_free(&a);
    ro_free(&b);
    return unchanged;
}

static void connect_largest_joins_only_the_largest_regions(void **state)
{
    (void)state;
    uint64_t rng = 77;
    int cases = 0, untouched = 0, crossed = 0;
    static const int widths[] = {1, 2, 3};
    for (int i = 0; i < 120; i++) {
        int w = tu_range(&rng, 3, 90), h = tu_range(&rng, 3, 60);
        uint8_t *cells = random_map(w, h, &rng, i);
        int64_t largest;
        int regions = ro_floor_regions(cells, w, h, &largest);
        for (int n = 2; n <= 4; n++) {
            if (regions <= n)
                continue;
            int width = widths[(i + n) % 3];
            char step[48], what[96];
            snprintf(step, sizeof step, "connect width=%d largest=%d", width, n);
            snprintf(what, sizeof what, "%s on %dx%d (map %d)", step, w, h, i);
            cg_grid *in = tu_grid_from_cells(cells, w, h);
            cg_grid *out = tu_run(step, 0, 0, 0, in);
            uint8_t *after = tu_cells_from_grid(out);
            int kept = check_largest(cells, after, w, h, n, what);
            untouched += kept;
            crossed += regions - n - kept;
            cases++;
            free(after);
            cg_grid_free(out);
            cg_grid_free(in);
        }
        free(cells);
    }
    /* Not vacuous: many maps, most other regions untouched, and the rule
     * for crossed ones exercised. */
    assert_true(cases > 100 && untouched > 1000 && crossed > 0);
}

/* With N at least the number of regions, largest=N is plain connect. */
static void connect_largest_of_all_regions_is_connect(void **state)
{
    (void)state;
    uint64_t rng = 5;
    for (int i = 0; i < 40; i++) {
        int w = tu_range(&rng, 1, 70), h = tu_range(&rng, 1, 40);
        uint8_t *cells = random_map(w, h, &rng, i);
        int64_t largest;
        int regions = ro_floor_regions(cells, w, h, &largest);
        char step[48];
        snprintf(step, sizeof step, "connect largest=%d", regions < 2 ? 2 : regions);
        cg_grid *in = tu_grid_from_cells(cells, w, h);
        cg_grid *a = tu_run(step, 0, 0, 0, in), *b = tu_run("connect", 0, 0, 0, in);
        assert_true(tu_grids_equal(a, b));
        cg_grid_free(a);
        cg_grid_free(b);
        cg_grid_free(in);
        free(cells);
    }
}

/* The article's corridor: the two largest of four regions are joined
 * between their closest cells, (3,3) and (6,3); the two single cells stay
 * as they are. */
static void connect_largest_2_joins_the_two_largest_at_their_closest_cells(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "############", "#...####.###", "#...######.#", "#...##...###", "######...###",
        "############",
    };
    static const char *const want[] = {
        "############", "#...####.###", "#...######.#", "#........###", "######...###",
        "############",
    };
    cg_grid *g = tu_grid_from_rows(rows, 6);
    cg_grid *out = tu_run("connect width=1 largest=2", 0, 0, 0, g);
    tu_assert_grid_equals_rows(out, want, 6, "connect width=1 largest=2");
    cg_grid_free(out);
    out = tu_run("connect width=1", 0, 0, 0, g);
    uint8_t *cells = tu_cells_from_grid(out);
    int64_t largest;
    assert_int_equal(ro_floor_regions(cells, 12, 6, &largest), 1); /* all four */
    free(cells);
    cg_grid_free(out);
    cg_grid_free(g);
}

static void bad_connect_options_are_rejected_with_their_column(void **state)
{
    (void)state;
    tu_expect_parse_error("connect width=0", 15, "width must be an integer in 1..16");
    tu_expect_parse_error("connect width=17", 15, "width must be an integer in 1..16");
    tu_expect_parse_error("connect width=wide", 15, "width must be");
    tu_expect_parse_error("connect 2", 9, "unexpected");
    tu_expect_parse_error("connect min=2", 9, "no option");
    tu_expect_parse_error("connect largest=1", 17, "largest must be an integer in 2..");
    tu_expect_parse_error("connect largest=0", 17, "largest must be an integer in 2..");
    tu_expect_parse_error("connect largest=two", 17, "largest must be");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(after_connect_one_region_remains_and_no_floor_is_lost),
        cmocka_unit_test(the_baseline_search_carves_the_same_corridors),
        cmocka_unit_test(the_row_search_carves_what_its_twin_carves),
        cmocka_unit_test(the_row_search_carves_what_its_twin_carves_on_random_maps),
        cmocka_unit_test(the_window_carves_what_the_twin_carves),
        cmocka_unit_test(connect_after_a_cave_pipeline_leaves_one_region),
        cmocka_unit_test(one_wide_corridors_are_no_longer_than_the_minimum_spanning_tree),
        cmocka_unit_test(two_regions_are_joined_between_their_closest_cells),
        cmocka_unit_test(a_diagonal_corridor_steps_four_connected),
        cmocka_unit_test(maps_with_one_region_or_none_are_left_alone),
        cmocka_unit_test(markers_survive_connect),
        cmocka_unit_test(connect_largest_joins_only_the_largest_regions),
        cmocka_unit_test(connect_largest_of_all_regions_is_connect),
        cmocka_unit_test(connect_largest_2_joins_the_two_largest_at_their_closest_cells),
        cmocka_unit_test(bad_connect_options_are_rejected_with_their_column),
        cmocka_unit_test(every_kernel_path_carves_what_the_twin_carves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
