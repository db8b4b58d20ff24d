/* test_regions.c - `remove-floor`, `remove-walls`, `keep-largest` and the
 * region counts (the Russian cellular-automata article, docs/presets.md):
 * the run-based labeller against the flood-fill oracle (region_oracle.h), bit for bit, on many random maps of
 * awkward sizes (1x1, 1xN, Nx1, widths around multiples of 64), thresholds
 * 0, 1, 2, small and huge; plus hand-computed cases and the invariants. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "oracle.h"
#include "testutil.h"
#include "region_oracle.h"
/* The test-only hook that forces a kernel code path (cg__set_kernel_path):
 * the labeller's VBMI2 copy runs on the AVX-512 VBMI2 path only. */
#include "core/cpu.h"
#include "regions/regions.h"

/* Internal entry points (src/regions/regions.h), used by placement and --stats. */
cg_status cg__floor_regions(const cg_grid *g, uint64_t *count, uint64_t *largest);
cg_status cg__keep_largest_floor(cg_grid *g);
/* src/regions/regions.h: forces the baseline-ISA labelling loop (tests only). */
void cg__regions_force_base(int on);

static const int sizes[][2] = {
    {1, 1},   {1, 2},    {2, 1},   {1, 77},  {77, 1},   {2, 2},     {3, 3},   {5, 7},
    {63, 9},  {64, 9},   {65, 9},  {127, 5}, {128, 4},  {129, 6},   {63, 63}, {64, 64},
    {65, 65}, {130, 31}, {131, 7}, {7, 131}, {191, 17}, {300, 200},
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static const int64_t thresholds[] = {0, 1, 2, 3, 5, 12, 40, 50, 1000000000};
#define NTHRESHOLDS (sizeof thresholds / sizeof thresholds[0])

/* A random map: noise at a density, optionally smoothed into caves with the
 * oracle's seed-002 rule so there are large regions too. */
static uint8_t *random_map(int w, int h, uint64_t *state, int variant)
{
    static const double density[] = {0.2, 0.45, 0.55, 0.8, 0.45, 0.5};
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, density[variant % 6], state);
    if (variant >= 4)
        assert_int_equal(oracle_smooths(cells, w, h, variant - 3, 5), 0);
    return cells;
}

typedef void (*oracle_fn)(uint8_t *cells, int w, int h, int64_t n);

static void oracle_keep_largest(uint8_t *cells, int w, int h, int64_t n)
{
    (void)n;
    ro_keep_largest(cells, w, h);
}

/* Runs `step` on the map through the pipeline and compares with the oracle. */
static void check_step(const uint8_t *cells, int w, int h, const char *step, oracle_fn oracle,
                       int64_t n)
{
    uint8_t *want = tu_alloc_cells(w, h);
    memcpy(want, cells, (size_t)w * (size_t)h);
    oracle(want, w, h, n);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg_grid *out = tu_run(step, 0, 0, 0, in);
    char what[128];
    snprintf(what, sizeof what, "'%s' on %dx%d", step, w, h);
    tu_assert_grid_equals(out, want, w, h, what);
    cg_grid_free(in);
    cg_grid_free(out);
    free(want);
}

static void differential(const char *name, oracle_fn oracle, int with_threshold)
{
    uint64_t state = 0x5eed0002;
    for (size_t s = 0; s < NSIZES; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        int rounds = w * h > 20000 ? 3 : 6;
        for (int v = 0; v < rounds; v++) {
            uint8_t *cells = random_map(w, h, &state, v);
            for (size_t t = 0; t < (with_threshold ? NTHRESHOLDS : 1); t++) {
                char step[64];
                if (with_threshold)
                    snprintf(step, sizeof step, "%s min=%lld", name, (long long)thresholds[t]);
                else
                    snprintf(step, sizeof step, "%s", name);
                check_step(cells, w, h, step, oracle, thresholds[t]);
            }
            free(cells);
        }
    }
}

static void remove_floor_matches_the_flood_fill_oracle(void **state)
{
    (void)state;
    differential("remove-floor", ro_remove_floor, 1);
}

static void remove_walls_matches_the_flood_fill_oracle(void **state)
{
    (void)state;
    differential("remove-walls", ro_remove_walls, 1);
}

static void keep_largest_matches_the_flood_fill_oracle(void **state)
{
    (void)state;
    differential("keep-largest", oracle_keep_largest, 0);
}

/* The labeller is compiled twice (baseline ISA, and POPCNT/BMI where the
 * CPU has them): the baseline copy must agree with the oracle too. */
static void the_baseline_labelling_loop_matches_the_oracle_too(void **state)
{
    (void)state;
    cg__regions_force_base(1);
    differential("remove-floor", ro_remove_floor, 1);
    differential("remove-walls", ro_remove_walls, 1);
    cg__regions_force_base(0);
}

/* The copies of the labelling loop, forced in turn: the baseline ISA, the
 * POPCNT/BMI one (any kernel path but AVX-512 VBMI2) and the VBMI2 one
 * (VPCOMPRESSB, VPOPCNTQ), each where this machine runs it. */
enum { LOOP_BASE, LOOP_POPCNT, LOOP_VBMI2, LOOPS };

static int force_loop(int loop)
{
    cg__regions_force_base(loop == LOOP_BASE);
    int path = loop == LOOP_VBMI2 ? CG__PATH_AVX512VBMI2 : CG__PATH_SCALAR;
    return cg__kernel_path_available(path) ? cg__set_kernel_path(path) : -1;
}

static void unforce_loops(void)
{
    cg__regions_force_base(0);
    assert_int_equal(cg__set_kernel_path(CG__PATH_AUTO), 0);
}

/* Maps the random ones rarely give, cell (x, y) of pattern k: all wall, all
 * floor, the two checkerboards (every cell its own region), vertical and
 * horizontal stripes, diagonal bands. */
static uint8_t pattern_cell(int k, int x, int y)
{
    const int v[] = {1, 0, (x + y) & 1, 1 - ((x + y) & 1), x % 3 == 0, y % 2 == 0,
                     (x + 2 * y) % 5 < 2};
    return (uint8_t)v[k];
}

static uint8_t *pattern_map(int w, int h, int k)
{
    uint8_t *cells = tu_alloc_cells(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            cells[(size_t)y * (size_t)w + (size_t)x] = pattern_cell(k, x, y);
    return cells;
}

#define PATTERNS 7

static void every_labelling_loop_matches_the_oracle_on_patterns(void **state)
{
    (void)state;
    static const int dims[][2] = {{1, 1},  {1, 77},  {77, 1},  {63, 5},    {64, 5},
                                  {65, 5}, {131, 9}, {9, 131}, {131, 131}, {200, 150}};
    static const int64_t mins[] = {1, 2, 50, 1000000000};
    int ran = 0;
    for (int loop = 0; loop < LOOPS; loop++) {
        if (force_loop(loop) != 0)
            continue;
        ran++;
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
            int w = dims[d][0], h = dims[d][1];
            for (int k = 0; k < PATTERNS; k++) {
                uint8_t *cells = pattern_map(w, h, k);
                for (size_t m = 0; m < sizeof mins / sizeof mins[0]; m++) {
                    char step[64];
                    snprintf(step, sizeof step, "remove-floor min=%lld", (long long)mins[m]);
                    check_step(cells, w, h, step, ro_remove_floor, mins[m]);
                    snprintf(step, sizeof step, "remove-walls min=%lld", (long long)mins[m]);
                    check_step(cells, w, h, step, ro_remove_walls, mins[m]);
                }
                check_step(cells, w, h, "keep-largest", oracle_keep_largest, 0);
                int64_t want_largest;
                int want = ro_floor_regions(cells, w, h, &want_largest);
                cg_grid *g = tu_grid_from_cells(cells, w, h);
                uint64_t count = 99, largest = 99;
                assert_int_equal(cg__floor_regions(g, &count, &largest), CG_OK);
                assert_int_equal(count, (uint64_t)want);
                assert_int_equal(largest, (uint64_t)want_largest);
                cg_grid_free(g);
                free(cells);
            }
        }
    }
    unforce_loops();
    assert_true(ran >= 2); /* the baseline and one more everywhere */
}

/* The random maps of the tests above, through every copy of the loop. */
static void every_labelling_loop_matches_the_oracle_on_random_maps(void **state)
{
    (void)state;
    for (int loop = 0; loop < LOOPS; loop++) {
        if (force_loop(loop) != 0)
            continue;
        differential("remove-floor", ro_remove_floor, 1);
        differential("remove-walls", ro_remove_walls, 1);
        differential("keep-largest", oracle_keep_largest, 0);
    }
    unforce_loops();
}

/* The labeller itself (regions.h): every copy of the loop makes the same
 * labels in the same order - the same parents, sizes, first cells and rows
 * - as the baseline, floor and walls, on the patterns and random maps
 * above and on wide noise (rows of hundreds of runs, so the VBMI2 copy's
 * sixteen-at-a-time link step takes whole and partial chunks). */
static void label_into(const cg_grid *g, int walls, cg__labeller *lb)
{
    assert_int_equal(cg__label(lb, g, walls, NULL, NULL), CG_OK);
}

static void assert_same_labels(const cg__labeller *a, const cg__labeller *b, const char *what)
{
    if (a->n != b->n || a->rows != b->rows)
        fail_msg("%s: %zu labels in %u rows, want %zu in %u", what, b->n, b->rows, a->n, a->rows);
    for (size_t l = 0; l < a->n; l++)
        if (a->parent[l] != b->parent[l] || a->size[l] != b->size[l] ||
            a->first_x[l] != b->first_x[l])
            fail_msg("%s: label %zu differs", what, l);
    for (uint32_t y = 0; y < a->rows; y++)
        if (a->row_first[y] != b->row_first[y])
            fail_msg("%s: row %u's first label differs", what, y);
}

static void check_labels_on(const uint8_t *cells, int w, int h, const char *what)
{
    cg_grid *g = tu_grid_from_cells(cells, w, h);
    for (int walls = 0; walls < 2; walls++) {
        cg__labeller want;
        assert_int_equal(force_loop(LOOP_BASE), 0);
        label_into(g, walls, &want);
        for (int loop = LOOP_POPCNT; loop < LOOPS; loop++) {
            if (force_loop(loop) != 0)
                continue;
            cg__labeller got;
            label_into(g, walls, &got);
            char msg[160];
            snprintf(msg, sizeof msg, "%s %dx%d, %s, loop %d", what, w, h,
                     walls ? "walls" : "floor", loop);
            assert_same_labels(&want, &got, msg);
            cg__labeller_free(&got);
        }
        cg__labeller_free(&want);
    }
    cg_grid_free(g);
}

static void every_labelling_loop_makes_the_same_labels(void **state)
{
    (void)state;
    static const int dims[][2] = {{1, 1},  {1, 77},  {77, 1},  {63, 5},    {64, 5},
                                  {65, 5}, {131, 9}, {9, 131}, {131, 131}, {200, 150}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int k = 0; k < PATTERNS; k++) {
            uint8_t *cells = pattern_map(dims[d][0], dims[d][1], k);
            check_labels_on(cells, dims[d][0], dims[d][1], "pattern");
            free(cells);
        }
    uint64_t st = 0x1abe15;
    for (size_t s = 0; s < NSIZES; s++)
        for (int v = 0; v < 6; v++) {
            uint8_t *cells = random_map(sizes[s][0], sizes[s][1], &st, v);
            check_labels_on(cells, sizes[s][0], sizes[s][1], "random");
            free(cells);
        }
    static const int wide[][2] = {{1000, 40}, {1031, 33}, {4097, 12}};
    for (size_t d = 0; d < sizeof wide / sizeof wide[0]; d++)
        for (int v = 0; v < 6; v++) {
            uint8_t *cells = random_map(wide[d][0], wide[d][1], &st, v);
            check_labels_on(cells, wide[d][0], wide[d][1], "wide");
            free(cells);
        }
    unforce_loops();
}

/* More labels than the label arrays' first blocks hold: they grow from
 * malloc's blocks onto huge-page blocks (1 MiB, then 2 MiB, at 65,536 and
 * 131,072 labels) and every label made before keeps its parent, size and
 * first cell. Floor cells on a grid of every other cell, some joined to the
 * one right of them or below: about 123,000 labels. */
static void labels_keep_their_order_past_the_huge_blocks(void **state)
{
    (void)state;
    const int w = 701, h = 703;
    const size_t sw = (size_t)w, sh = (size_t)h;
    uint8_t *cells = malloc(sw * sh);
    assert_non_null(cells);
    uint64_t rng = 0x1abe1;
    for (size_t y = 0; y < sh; y++)
        for (size_t x = 0; x < sw; x++) {
            const uint64_t r = tu_next(&rng) % 16;
            const int floor = (x % 2 == 0 && y % 2 == 0) || (x % 2 == 1 && y % 2 == 0 && r == 0) ||
                              (x % 2 == 0 && y % 2 == 1 && r == 1);
            cells[y * sw + x] = floor ? 0 : 1; /* 1: wall */
        }
    int64_t want_largest;
    const int want = ro_floor_regions(cells, w, h, &want_largest);
    assert_true(want > 100000);
    cg_grid *g = tu_grid_from_cells(cells, w, h);
    cg__labeller lb;
    label_into(g, 0, &lb);
    assert_true(lb.n > 131072 / 2 && lb.n <= lb.cap);
    uint64_t roots = 0, largest = 0;
    for (size_t l = 0; l < lb.n; l++) {
        uint32_t x, y;
        cg__label_first(&lb, (uint32_t)l, &x, &y);
        /* Each label is made at a run with no floor above it. */
        assert_int_equal(cells[(size_t)y * sw + x], 0);
        assert_true(y == 0 || cells[(size_t)(y - 1) * sw + x] == 1);
        assert_true(lb.parent[l] <= l);
        if (lb.parent[l] == l) {
            roots++;
            largest = lb.size[l] > largest ? lb.size[l] : largest;
        }
    }
    assert_int_equal(roots, (uint64_t)want);
    assert_int_equal(largest, (uint64_t)want_largest);
    cg__labeller_free(&lb);
    cg_grid_free(g);
    check_labels_on(cells, w, h, "huge blocks");
    unforce_loops();
    free(cells);
}

/* Regions of up to 256 cells are first looked for in a window of 64 columns
 * around their first cell; pieces that leave it on either side (a bar, an
 * L whose foot runs far left, a staircase) must come out whole too. */
static void small_regions_leaving_their_window_are_removed_whole(void **state)
{
    (void)state;
    static const int widths[] = {64, 65, 131, 300};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        const int w = widths[i], h = 40;
        for (int kind = 0; kind < 2; kind++) {
            /* Pieces of `piece` on a background of the other kind. */
            const uint8_t piece = (uint8_t)kind, back = (uint8_t)(1 - kind);
            uint8_t *cells = tu_alloc_cells(w, h);
            memset(cells, back, (size_t)w * (size_t)h);
            int x0 = w > 100 ? 100 : w - 60;
            for (int x = x0; x < x0 + 58 && x < w - 1; x++) /* a bar of 58 */
                cells[2 * w + x] = piece;
            for (int y = 5; y < 12; y++) /* an L: a column, then a foot to the left */
                cells[y * w + w - 3] = piece;
            for (int x = w - 3; x > w - 3 - 50 && x > 0; x--)
                cells[12 * w + x] = piece;
            for (int k = 0; k < 20 && 16 + k < h - 1 && 2 + 2 * k < w - 2; k++) {
                cells[(16 + k) * w + 2 + 2 * k] = piece; /* a staircase */
                cells[(16 + k) * w + 3 + 2 * k] = piece;
                cells[(17 + k) * w + 3 + 2 * k] = piece;
            }
            for (int m = 30; m <= 70; m += 20) {
                char step[64];
                snprintf(step, sizeof step, "%s min=%d", kind ? "remove-walls" : "remove-floor", m);
                check_step(cells, w, h, step, kind ? ro_remove_walls : ro_remove_floor, m);
            }
            check_step(cells, w, h, "keep-largest", oracle_keep_largest, 0);
            free(cells);
        }
    }
}

/* Regions of 257..8192 cells are tried in the window as well, in its
 * first 256 rows and for a few sweeps: a block inside it, a spiral that
 * winds up and down more than that, a bar taller than 256 rows, one wider
 * than the window, and blocks of 8192 and 8193 cells. */
static void medium_regions_are_removed_whole(void **state)
{
    (void)state;
    static const int widths[] = {64, 65, 131, 300};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        const int w = widths[i], h = 960; /* room for the 8193-cell block at rows 420..932 */
        for (int kind = 0; kind < 2; kind++) {
            const uint8_t piece = (uint8_t)kind, back = (uint8_t)(1 - kind);
            uint8_t *cells = tu_alloc_cells(w, h);
            memset(cells, back, (size_t)w * (size_t)h);
#define AT(x, y) cells[(size_t)(y) * (size_t)w + (size_t)(x)]
            for (int y = 2; y < 32; y++) /* a block of 40 x 30 */
                for (int x = 2; x < 42 && x < w - 1; x++)
                    AT(x, y) = piece;
            /* A spiral of one-cell paths in a 60 x 60 box, walls between. */
            int x0 = 1, y0 = 40, x1 = (w < 62 ? w : 62) - 2, y1 = 99;
            while (x0 <= x1 && y0 <= y1) {
                for (int x = x0; x <= x1; x++)
                    AT(x, y0) = piece;
                for (int y = y0; y <= y1; y++)
                    AT(x1, y) = piece;
                for (int x = x1; x >= x0; x--)
                    AT(x, y1) = piece;
                for (int y = y1; y >= y0 + 2; y--)
                    AT(x0, y) = piece;
                if (y0 + 2 <= y1)
                    AT(x0 + 1, y0 + 2) = piece;
                x0 += 2, y0 += 2, x1 -= 2, y1 -= 2;
            }
            for (int y = 110; y < 410; y++) /* a bar of 300 rows */
                AT(3, y) = piece;
            for (int y = 110; y < 114; y++) /* a block wider than the window */
                for (int x = 6; x < w - 1; x++)
                    AT(x, y) = piece;
            for (int y = 420; y < 420 + 8192 / 32; y++) /* 8192 cells */
                for (int x = 6; x < 38 && x < w - 1; x++)
                    AT(x, y) = piece;
            if (w > 60) {
                for (int y = 420; y < 420 + 8192 / 16; y++) /* 8193 cells */
                    for (int x = 42; x < 58; x++)
                        AT(x, y) = piece;
                AT(57, 420 + 8192 / 16) = piece;
            }
#undef AT
            for (int m = 300; m <= 20000; m *= 4) {
                char step[64];
                snprintf(step, sizeof step, "%s min=%d", kind ? "remove-walls" : "remove-floor", m);
                check_step(cells, w, h, step, kind ? ro_remove_walls : ro_remove_floor, m);
            }
            check_step(cells, w, h, "keep-largest", oracle_keep_largest, 0);
            free(cells);
        }
    }
}

static void floor_region_counts_match_the_oracle(void **state)
{
    (void)state;
    uint64_t rng = 77;
    for (size_t s = 0; s < NSIZES; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        for (int v = 0; v < 6; v++) {
            uint8_t *cells = random_map(w, h, &rng, v);
            int64_t want_largest;
            int want = ro_floor_regions(cells, w, h, &want_largest);
            cg_grid *g = tu_grid_from_cells(cells, w, h);
            uint64_t count = 99, largest = 99;
            assert_int_equal(cg__floor_regions(g, &count, &largest), CG_OK);
            assert_int_equal(count, (uint64_t)want);
            assert_int_equal(largest, (uint64_t)want_largest);
            cg_grid_free(g);
            free(cells);
        }
    }
}

/* The invariant of the issue, checked on the library's own output (not only
 * by equality with the oracle): no floor region is smaller than N, no
 * enclosed wall region is smaller than N, and nothing else changed. */
static void after_removal_no_region_is_smaller_than_the_threshold(void **state)
{
    (void)state;
    uint64_t rng = 1234;
    static const char *const pre = "fill 45\ngenerations 4 r1=5 r2=-1\n";
    for (int seed = 0; seed < 12; seed++) {
        int w = tu_range(&rng, 1, 180), h = tu_range(&rng, 1, 120);
        int64_t n = tu_range(&rng, 2, 60);
        char text[160];
        snprintf(text, sizeof text, "%sremove-floor min=%lld\nremove-walls min=%lld\n", pre,
                 (long long)n, (long long)n);
        cg_grid *before = tu_run(pre, (uint64_t)seed, (uint32_t)w, (uint32_t)h, NULL);
        cg_grid *g = tu_run(text, (uint64_t)seed, (uint32_t)w, (uint32_t)h, NULL);
        uint8_t *cells = tu_cells_from_grid(g), *old = tu_cells_from_grid(before);
        /* remove-walls may join floor regions but never makes one smaller. */
        ro_regions f = ro_label(cells, w, h, 0), wr = ro_label(cells, w, h, 1);
        for (int r = 1; r <= f.n; r++)
            assert_true(f.size[r] >= n);
        for (int r = 1; r <= wr.n; r++)
            assert_true(wr.edge[r] || wr.size[r] >= n);
        /* Every change is explained: floor that went was in a small region,
         * wall that went was in a small enclosed island. */
        ro_regions of = ro_label(old, w, h, 0);
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
            if (old[i] == 0 && cells[i] == 1)
                assert_true(of.size[of.lab[i]] < n);
        ro_free(&f);
        ro_free(&wr);
        ro_free(&of);
        free(cells);
        free(old);
        cg_grid_free(g);
        cg_grid_free(before);
    }
}

static void regions_are_four_connected_not_diagonal(void **state)
{
    (void)state;
    /* Three floor cells touching only at corners: three regions of 1. */
    static const char *const rows[] = {
        ".#.",
        "#.#",
        "###",
    };
    cg_grid *g = tu_grid_from_rows(rows, 3);
    uint64_t count, largest;
    assert_int_equal(cg__floor_regions(g, &count, &largest), CG_OK);
    assert_int_equal(count, 3);
    assert_int_equal(largest, 1);
    cg_grid *out = tu_run("remove-floor min=2", 0, 0, 0, g);
    static const char *const want[] = {"###", "###", "###"};
    tu_assert_grid_equals_rows(out, want, 3, "remove-floor min=2");
    cg_grid_free(out);
    cg_grid_free(g);
}

static void remove_walls_keeps_walls_touching_the_edge(void **state)
{
    (void)state;
    /* A 1-cell pillar inside, a 1-cell spur on the left edge, a 2-cell block
     * on the bottom edge, a 3-cell L inside. min=4 fills only the enclosed
     * pillar and the L. */
    static const char *const rows[] = {
        "..........", "..#.......", "#.........", "......##..",
        "......#...", "..........", "....##....",
    };
    static const char *const want[] = {
        "..........", "..........", "#.........", "..........",
        "..........", "..........", "....##....",
    };
    cg_grid *g = tu_grid_from_rows(rows, 7);
    cg_grid *out = tu_run("remove-walls min=4", 0, 0, 0, g);
    tu_assert_grid_equals_rows(out, want, 7, "remove-walls min=4");
    cg_grid_free(out);
    /* min=3 keeps the L (3 cells is not fewer than 3). */
    out = tu_run("remove-walls min=3", 0, 0, 0, g);
    assert_int_equal(cg_grid_get(out, 2, 1), CG_FLOOR);
    assert_int_equal(cg_grid_get(out, 6, 3), CG_WALL);
    assert_int_equal(cg_grid_get(out, 6, 4), CG_WALL);
    cg_grid_free(out);
    cg_grid_free(g);
}

static void keep_largest_breaks_ties_by_first_cell_in_scan_order(void **state)
{
    (void)state;
    /* Two regions of 3: the one whose first cell comes first (row 0) stays,
     * though the other starts further left. */
    static const char *const rows[] = {
        "####...#",
        "#.######",
        "#.######",
        "#.######",
    };
    static const char *const want[] = {
        "####...#",
        "########",
        "########",
        "########",
    };
    cg_grid *g = tu_grid_from_rows(rows, 4);
    cg_grid *out = tu_run("keep-largest", 0, 0, 0, g);
    tu_assert_grid_equals_rows(out, want, 4, "keep-largest tie");
    cg_grid_free(out);
    cg_grid_free(g);
}

static void keep_largest_helper_keeps_one_region(void **state)
{
    (void)state;
    uint64_t rng = 99;
    for (int i = 0; i < 20; i++) {
        int w = tu_range(&rng, 1, 140), h = tu_range(&rng, 1, 90);
        uint8_t *cells = random_map(w, h, &rng, i);
        int64_t want_largest;
        int had = ro_floor_regions(cells, w, h, &want_largest);
        cg_grid *g = tu_grid_from_cells(cells, w, h);
        assert_int_equal(cg__keep_largest_floor(g), CG_OK);
        uint64_t count, largest;
        assert_int_equal(cg__floor_regions(g, &count, &largest), CG_OK);
        assert_int_equal(count, had ? 1 : 0);
        assert_int_equal(largest, (uint64_t)want_largest);
        assert_int_equal(cg_grid_floor_count(g), (uint64_t)want_largest);
        cg_grid_free(g);
        free(cells);
    }
}

static void runs_spanning_whole_words_are_one_region(void **state)
{
    (void)state;
    /* All floor, and a single floor row, across word boundaries. */
    static const int widths[] = {1, 63, 64, 65, 127, 128, 129, 200, 256, 257};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        int w = widths[i];
        uint8_t *cells = tu_alloc_cells(w, 3);
        memset(cells, 0, (size_t)w * 3);
        cg_grid *g = tu_grid_from_cells(cells, w, 3);
        uint64_t count, largest;
        assert_int_equal(cg__floor_regions(g, &count, &largest), CG_OK);
        assert_int_equal(count, 1);
        assert_int_equal(largest, (uint64_t)w * 3);
        cg_grid_free(g);
        memset(cells, 1, (size_t)w * 3);
        memset(cells + w, 0, (size_t)w); /* the middle row */
        g = tu_grid_from_cells(cells, w, 3);
        assert_int_equal(cg__floor_regions(g, &count, &largest), CG_OK);
        assert_int_equal(count, 1);
        assert_int_equal(largest, (uint64_t)w);
        cg_grid *out = tu_run("remove-floor min=2", 0, 0, 0, g);
        assert_int_equal(cg_grid_floor_count(out), w >= 2 ? (uint64_t)w : 0);
        cg_grid_free(out);
        cg_grid_free(g);
        free(cells);
    }
}

static void a_map_without_floor_has_no_regions(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 70, 3), CG_OK);
    uint64_t count = 5, largest = 5;
    assert_int_equal(cg__floor_regions(g, &count, &largest), CG_OK);
    assert_int_equal(count, 0);
    assert_int_equal(largest, 0);
    assert_int_equal(cg__keep_largest_floor(g), CG_OK);
    cg_grid *out = tu_run("keep-largest\nremove-floor min=3\nremove-walls min=9", 0, 0, 0, g);
    assert_true(tu_grids_equal(out, g));
    cg_grid_free(out);
    cg_grid_free(g);
}

static void markers_on_removed_floor_are_dropped(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "......#..",
        "......#..",
        "######...",
        "#.#......",
    };
    cg_grid *g = tu_grid_from_rows(rows, 4);
    assert_int_equal(cg_grid_set_marker(g, 0, 0, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 1, 3, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 8, 3, CG_MARK_EXIT), CG_OK);
    cg_grid *out = tu_run("keep-largest", 0, 0, 0, g);
    assert_int_equal(cg_grid_marker(out, 0, 0), CG_MARK_NONE);
    assert_int_equal(cg_grid_get(out, 0, 0), CG_WALL);
    assert_int_equal(cg_grid_marker(out, 1, 3), CG_MARK_NONE);
    assert_int_equal(cg_grid_marker(out, 8, 3), CG_MARK_EXIT);
    cg_grid_free(out);
    /* remove-walls never touches floor, so markers stay. */
    out = tu_run("remove-walls min=100", 0, 0, 0, g);
    assert_int_equal(cg_grid_marker(out, 0, 0), CG_MARK_ENTRANCE);
    assert_int_equal(cg_grid_marker(out, 1, 3), CG_MARK_POI);
    cg_grid_free(out);
    cg_grid_free(g);
}

static void bad_region_steps_are_rejected_with_their_column(void **state)
{
    (void)state;
    tu_expect_parse_error("remove-floor", 1, "min=");
    tu_expect_parse_error("remove-walls min=-3", 18, "min must be an integer");
    tu_expect_parse_error("remove-floor min=ten", 18, "min must be an integer");
    tu_expect_parse_error("remove-floor 5", 14, "unexpected");
    tu_expect_parse_error("keep-largest min=3", 14, "no options");
    tu_expect_parse_error("keep-largest 3", 14, "unexpected");
}

/* The wall specks turned before labelling (regions/specks.c), on every
 * kernel path, against their definition cell by cell: in the blocks of 8
 * rows of one word (rows y0 + 8t, then y0 + 4 + 8t, cut at y1), in that
 * order, the wall regions that lie in the block, away from the map's edge,
 * go when they hold fewer than min cells in all. And what goes is what
 * remove-walls turns: the flood-fill oracle gives the same map from before
 * and after. */
static void expect_block_specks(uint8_t *want, int w, int h, int y0, int y1, int64_t min)
{
    if (min <= 1)
        return;
    ro_regions r = ro_label(want, w, h, 1);
    int *top = malloc((size_t)(r.n + 1) * 5 * sizeof *top);
    assert_non_null(top);
    int *bot = top + r.n + 1, *lw = bot + r.n + 1, *hw = lw + r.n + 1, *gone = hw + r.n + 1;
    for (int id = 1; id <= r.n; id++)
        top[id] = h, bot[id] = -1, lw[id] = w, hw[id] = -1, gone[id] = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int id = r.lab[y * w + x];
            if (!id)
                continue;
            top[id] = y < top[id] ? y : top[id], bot[id] = y > bot[id] ? y : bot[id];
            lw[id] = x / 64 < lw[id] ? x / 64 : lw[id], hw[id] = x / 64 > hw[id] ? x / 64 : hw[id];
        }
    for (int shift = 0; shift <= 4; shift += 4)
        for (int yb = y0 + shift; yb < y1; yb += 8) {
            const int ye = yb + 8 < y1 ? yb + 8 : y1;
            for (int i = 0; i <= (w - 1) / 64; i++) {
                int64_t total = 0;
                for (int id = 1; id <= r.n; id++)
                    if (!gone[id] && !r.edge[id] && top[id] >= yb && bot[id] < ye && lw[id] == i &&
                        hw[id] == i)
                        total += r.size[id];
                if (total == 0 || total >= min)
                    continue;
                for (int id = 1; id <= r.n; id++)
                    if (!gone[id] && !r.edge[id] && top[id] >= yb && bot[id] < ye && lw[id] == i &&
                        hw[id] == i)
                        gone[id] = 1;
            }
        }
    for (size_t c = 0; c < (size_t)w * (size_t)h; c++)
        if (r.lab[c] && gone[r.lab[c]])
            want[c] = 0;
    free(top);
    ro_free(&r);
}

static void check_specks(const uint8_t *cells, int w, int h, int y0, int y1, int64_t min)
{
    uint8_t *want = tu_alloc_cells(w, h);
    memcpy(want, cells, (size_t)w * (size_t)h);
    expect_block_specks(want, w, h, y0, y1, min);
    cg_grid *g = tu_grid_from_cells(cells, w, h);
    cg__drop_wall_specks(g, (uint32_t)y0, (uint32_t)y1, (uint64_t)min);
    tu_assert_grid_equals(g, want, w, h, "one-run wall specks");
    cg_grid_free(g);
    uint8_t *before = tu_alloc_cells(w, h);
    memcpy(before, cells, (size_t)w * (size_t)h);
    ro_remove_walls(before, w, h, min);
    ro_remove_walls(want, w, h, min);
    assert_memory_equal(before, want, (size_t)w * (size_t)h);
    free(before);
    free(want);
}

static void wall_specks_go_first_as_remove_walls_says(void **state)
{
    (void)state;
    static const int64_t mins[] = {0, 1, 2, 3, 5, 12, 50, 63, 64, 65, 1000000000};
    static const int dims[][2] = {{1, 1}, {1, 77}, {77, 1}, {3, 3}, {63, 9}, {64, 9},
                                  {65, 9}, {128, 5}, {131, 7}, {7, 131}, {200, 40},
                                  /* several groups of eight words at once, the last part full */
                                  {1100, 12}, {4100, 9}};
    static const int paths[] = {CG__PATH_SCALAR, CG__PATH_AVX512, CG__PATH_AVX512VBMI2};
    int ran = 0;
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!cg__kernel_path_available(paths[p]) || cg__set_kernel_path(paths[p]) != 0)
            continue;
        ran++;
        uint64_t rng = 0x5eed5bec + p;
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
            const int w = dims[d][0], h = dims[d][1];
            for (int k = 0; k < PATTERNS + 8; k++) {
                uint8_t *cells = k < PATTERNS ? pattern_map(w, h, k)
                                              : random_map(w, h, &rng, k - PATTERNS);
                for (size_t m = 0; m < sizeof mins / sizeof mins[0]; m++) {
                    /* The wide maps, 1 in 3 of their cases unless thorough. */
                    if (w > 512 && !tu_sampled((size_t)k * (sizeof mins / sizeof mins[0]) + m + p))
                        continue;
                    check_specks(cells, w, h, 0, h, mins[m]);
                    /* A stripe's inner rows, as stripes.c takes them. */
                    if (h > 4)
                        check_specks(cells, w, h, 2, h - 2, mins[m]);
                }
                free(cells);
            }
        }
    }
    unforce_loops();
    assert_true(ran >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(remove_floor_matches_the_flood_fill_oracle),
        cmocka_unit_test(remove_walls_matches_the_flood_fill_oracle),
        cmocka_unit_test(keep_largest_matches_the_flood_fill_oracle),
        cmocka_unit_test(the_baseline_labelling_loop_matches_the_oracle_too),
        cmocka_unit_test(every_labelling_loop_matches_the_oracle_on_patterns),
        cmocka_unit_test(every_labelling_loop_matches_the_oracle_on_random_maps),
        cmocka_unit_test(every_labelling_loop_makes_the_same_labels),
        cmocka_unit_test(labels_keep_their_order_past_the_huge_blocks),
        cmocka_unit_test(small_regions_leaving_their_window_are_removed_whole),
        cmocka_unit_test(wall_specks_go_first_as_remove_walls_says),
        cmocka_unit_test(medium_regions_are_removed_whole),
        cmocka_unit_test(floor_region_counts_match_the_oracle),
        cmocka_unit_test(after_removal_no_region_is_smaller_than_the_threshold),
        cmocka_unit_test(regions_are_four_connected_not_diagonal),
        cmocka_unit_test(remove_walls_keeps_walls_touching_the_edge),
        cmocka_unit_test(keep_largest_breaks_ties_by_first_cell_in_scan_order),
        cmocka_unit_test(keep_largest_helper_keeps_one_region),
        cmocka_unit_test(runs_spanning_whole_words_are_one_region),
        cmocka_unit_test(a_map_without_floor_has_no_regions),
        cmocka_unit_test(markers_on_removed_floor_are_dropped),
        cmocka_unit_test(bad_region_steps_are_rejected_with_their_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
