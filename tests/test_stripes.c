/* test_stripes.c - `remove-floor min=N`, `remove-walls min=N` and
 * `keep-largest` labelled in stripes of rows (regions/stripes.c), the way a
 * big map runs them, against the serial labeller (cg__remove_small,
 * cg__keep_largest_floor) and the flood-fill oracle (region_oracle.h): the same cells, padding and markers for every size,
 * map, threshold, stripe height (forced down to 1 row, so that small maps
 * have many boundaries) and parallel loop (none, out of order, threads). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>


#include "oracle.h"
#include "region_oracle.h"
#include "testutil.h"
/* White box: the grid's words, and the hook that forces the stripes. */
#include "../src/core/grid.h"
#include "../src/regions/regions.h"

/* Every word of the grids, padding and frame included, and the markers. */
static int same_words(const cg_grid *a, const cg_grid *b)
{
    return a->w == b->w && a->h == b->h && a->stride == b->stride &&
           memcmp(a->mem, b->mem, (a->h + 2 * CG__PAD) * a->stride * sizeof *a->mem) == 0 &&
           tu_grids_equal(a, b);
}

static cg_grid *run(const char *text, const cg_grid *input, cg_parallel_fn par)
{
    cg_pipeline *p = tu_pipeline(text);
    cg_run_options o = {
        .seed = 1, .width = input->w, .height = input->h, .input = input, .parallel = par};
    cg_grid *g = NULL;
    cg_diag diag = {0};
    cg_status st = cg_pipeline_run(p, &o, &g, NULL, &diag);
    if (st != CG_OK) {
        print_error("%s on %ux%u: %s\n", text, input->w, input->h, diag.message);
        fail();
    }
    cg_pipeline_free(p);
    return g;
}

static const uint32_t stripe_heights[] = {1, 2, 3, 7};
static const cg_parallel_fn loops[] = {NULL, tu_shuffled_for, tu_threads_for};

/* The step on the map (min < 0: keep-largest): serially (no stripes, no
 * loop) it equals the oracle;
 * in stripes of every height, with every loop, it equals the serial map
 * word for word. */
static void check(const uint8_t *cells, int w, int h, int walls, int64_t min, const char *what)
{
    char text[64];
    if (min < 0)
        snprintf(text, sizeof text, "keep-largest");
    else
        snprintf(text, sizeof text, "%s min=%lld", walls ? "remove-walls" : "remove-floor",
                 (long long)min);
    uint8_t *want = tu_alloc_cells(w, h);
    memcpy(want, cells, (size_t)w * (size_t)h);
    if (min < 0)
        ro_keep_largest(want, w, h);
    else
        (walls ? ro_remove_walls : ro_remove_floor)(want, w, h, min);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg__regions_set_stripe_rows(0);
    cg_grid *serial = run(text, in, NULL);
    char msg[160];
    snprintf(msg, sizeof msg, "'%s' on %dx%d %s, serial", text, w, h, what);
    tu_assert_grid_equals(serial, want, w, h, msg);
    for (size_t s = 0; s < sizeof stripe_heights / sizeof stripe_heights[0]; s++) {
        cg__regions_set_stripe_rows(stripe_heights[s]);
        for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
            cg_grid *got = run(text, in, loops[k]);
            if (!same_words(serial, got)) {
                cg__regions_set_stripe_rows(0);
                snprintf(msg, sizeof msg, "'%s' on %dx%d %s, stripes of %u rows, loop %zu", text, w,
                         h, what, stripe_heights[s], k);
                tu_assert_grid_equals(got, want, w, h, msg);
                print_error("%s: same cells, other words\n", msg);
                fail();
            }
            cg_grid_free(got);
        }
    }
    cg__regions_set_stripe_rows(0);
    cg_grid_free(serial);
    cg_grid_free(in);
    free(want);
}

static const int64_t thresholds[] = {2, 3, 5, 12, 50, 300, 1000000000};
#define NTHRESHOLDS (sizeof thresholds / sizeof thresholds[0])

/* Every step on the map; the removals at a sample of the thresholds
 * (tu_sampled, rotated by salt) in the quick tier. */
static void check_all(const uint8_t *cells, int w, int h, const char *what, size_t salt)
{
    for (int walls = 0; walls < 2; walls++)
        for (size_t t = 0; t < NTHRESHOLDS; t++)
            if (tu_sampled(salt + (size_t)walls + t))
                check(cells, w, h, walls, thresholds[t], what);
    check(cells, w, h, 0, -1, what); /* keep-largest */
}

static const int sizes[][2] = {
    {1, 1},   {1, 2},   {2, 1},  {1, 40},  {40, 1},  {3, 3},   {5, 9},    {63, 9},   {64, 10},
    {65, 11}, {131, 8}, {7, 31}, {63, 20}, {64, 21}, {65, 22}, {131, 23}, {200, 41},
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Noise at a density, some of it smoothed into caves (large regions that
 * cross many stripes). */
static void striped_removal_matches_serial_on_random_maps(void **state)
{
    (void)state;
    static const double density[] = {0.2, 0.45, 0.55, 0.8, 0.45, 0.5};
    uint64_t rng = 0x57121235;
    for (size_t s = 0; s < NSIZES; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        for (int v = 0; v < 6; v++) {
            uint8_t *cells = tu_alloc_cells(w, h);
            tu_random_cells(cells, w, h, density[v], &rng);
            if (v >= 4)
                assert_int_equal(oracle_smooths(cells, w, h, v - 3, 5), 0);
            char what[32];
            snprintf(what, sizeof what, "random %d", v);
            check_all(cells, w, h, what, s + (size_t)v);
            free(cells);
        }
    }
}

/* Cell (x, y) of pattern k: 1 wall. */
static uint8_t pattern_cell(int k, int x, int y, int w, int h)
{
    switch (k) {
    case 0:
        return 1; /* all wall */
    case 1:
        return 0; /* all floor */
    case 2:
        return (uint8_t)((x + y) & 1); /* checkerboard: every cell a region */
    case 3:
        return (uint8_t)(x & 1); /* vertical lines crossing every boundary */
    case 4:
        return (uint8_t)(x % 3 == 1); /* the same, two wide */
    case 5:
        return (uint8_t)(y & 1); /* bands: regions at every boundary row */
    case 6:
        return (uint8_t)(y % 3 == 2); /* bands two high */
    /* Combs: columns joined only along the last row (or the first), so they
     * are one region through the stripes below (or above) them. */
    case 7:
        return (uint8_t)(x % 4 == 3 && y + 1 < h);
    case 8:
        return (uint8_t)(x % 4 == 3 && y > 0);
    /* A spiral-ish maze of rings: regions that leave and re-enter stripes. */
    case 9: {
        int d = x < y ? x : y;
        d = d < w - 1 - x ? d : w - 1 - x;
        d = d < h - 1 - y ? d : h - 1 - y;
        return (uint8_t)(d % 2 == 1 && !(x == d && (d / 2) % 2 == 0));
    }
    /* Small blocks of 2x2 floor on a grid of walls: each sits across
     * a boundary for some stripe height. */
    default:
        return (uint8_t)(!(x % 3 < 2 && y % 3 < 2));
    }
}

static void striped_removal_matches_serial_on_patterns(void **state)
{
    (void)state;
    for (size_t s = 0; s < NSIZES; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        for (int k = 0; k < 11; k++) {
            uint8_t *cells = tu_alloc_cells(w, h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    cells[(size_t)y * (size_t)w + (size_t)x] = pattern_cell(k, x, y, w, h);
            char what[32];
            snprintf(what, sizeof what, "pattern %d", k);
            check_all(cells, w, h, what, s + (size_t)k);
            /* The inverse too: floor and walls swap roles. */
            for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
                cells[i] ^= 1;
            snprintf(what, sizeof what, "pattern ~%d", k);
            check_all(cells, w, h, what, s + (size_t)k + 1);
            free(cells);
        }
    }
}

/* keep-largest with large regions inside 7-row stripes (their first and
 * last rows walls): each stripe flips its inner regions but its largest as
 * soon as it is labelled, and the stripes' inner largest wait for the join.
 * Blocks of floor, two in each band of 7 rows (ties within a band and
 * across bands: the first in scan order stays), and, in one variant, a
 * region through every band; the largest is now inside the first band, now
 * inside a middle one or the last, now the one through the bands. Wide blocks make the
 * inner largest hold more than 2^16 cells in all (flipped through the
 * loop), narrow ones fewer (flipped one after another). */
static void keep_largest_with_regions_inside_stripes(void **state)
{
    (void)state;
    const int w = 1500, h = 77; /* 11 bands */
    for (int v = 0; v < 5; v++) {
        const int wide = v < 2 || v == 4;
        const int block = wide ? 1400 : 500; /* the first block's width */
        uint8_t *cells = tu_alloc_cells(w, h);
        for (int y = 0; y < h; y++) {
            const int band = y / 7, r = y % 7;
            for (int x = 0; x < w; x++) {
                uint8_t c = 1;
                if (r >= 1 && r <= 5) {
                    int bw = block + (v == 1 && band == 5) + (v == 4 && band == 10);
                    if (x >= 1 && x < 1 + bw)
                        c = 0; /* the band's first block */
                    else if (v == 3 ? x >= 600 && x < 1100 : x >= 1410 && x < 1440)
                        c = 0; /* a second block (when v == 3, as large as the first) */
                    else if (x >= 1445 && x < 1448 && r == 3)
                        c = 0; /* a speck */
                }
                if (v == 2 && x >= 1455 && x < 1499)
                    c = 0; /* through every band */
                cells[(size_t)y * (size_t)w + (size_t)x] = c;
            }
        }
        char what[32];
        snprintf(what, sizeof what, "bands %d", v);
        check(cells, w, h, 0, -1, what);
        free(cells);
    }
}

/* A floor region removed in stripes (by remove-floor or keep-largest)
 * loses its markers as serially. */
static void striped_removal_drops_markers_as_serial(void **state)
{
    (void)state;
    static const char *const texts[] = {"fill 45\n"
                                        "generations 4 r1=5 r2=-1\n"
                                        "entrance\nexit\npoi count=30\n"
                                        "remove-floor min=1000000000\n",
                                        "fill 45\n"
                                        "generations 4 r1=5 r2=-1\n"
                                        "entrance\nexit\npoi count=30\n"
                                        "keep-largest\n"};
    for (size_t t = 0; t < 2; t++) {
        cg_pipeline *p = tu_pipeline(texts[t]);
        cg_grid *want = NULL;
        for (size_t s = 0; s <= sizeof stripe_heights / sizeof stripe_heights[0]; s++) {
            cg__regions_set_stripe_rows(s ? stripe_heights[s - 1] : 0);
            for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
                cg_run_options o = {.seed = 7, .width = 150, .height = 90, .parallel = loops[k]};
                cg_grid *g = NULL;
                cg_diag diag = {0};
                assert_int_equal(cg_pipeline_run(p, &o, &g, NULL, &diag), CG_OK);
                if (!want)
                    want = g;
                else {
                    assert_true(same_words(want, g));
                    cg_grid_free(g);
                }
            }
        }
        cg__regions_set_stripe_rows(0);
        cg_grid_free(want);
        cg_pipeline_free(p);
    }
}

/* The run's copy of its input (copied in stripes of rows through the loop
 * when there is one): every word, frame and padding included, and the
 * markers, as cg_grid_clone's, for every size and loop (a step that
 * changes nothing after it: regions under one cell). */
static void the_input_is_copied_whole_with_every_loop(void **state)
{
    (void)state;
    static const int dims[][2] = {{1, 1},   {1, 70},   {70, 1},  {63, 40},   {64, 31}, {64, 32},
                                  {65, 33}, {131, 97}, {131, 1}, {300, 257}, {2, 500}, {1000, 64}};
    cg_pipeline *mk = tu_pipeline("fill 45\ngenerations 2 r1=5 r2=-1\nentrance\nexit\n");
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        const uint32_t w = (uint32_t)dims[d][0], h = (uint32_t)dims[d][1];
        for (uint64_t seed = 1; seed <= 3; seed++) {
            cg_run_options o = {.seed = seed, .width = w, .height = h};
            cg_grid *in = NULL;
            cg_diag diag = {0};
            if (cg_pipeline_run(mk, &o, &in, NULL, &diag) != CG_OK) {
                /* (too small for the markers: random cells then) */
                uint64_t rng = seed;
                uint8_t *cells = tu_alloc_cells((int)w, (int)h);
                tu_random_cells(cells, (int)w, (int)h, 0.5, &rng);
                in = tu_grid_from_cells(cells, (int)w, (int)h);
                free(cells);
            }
            cg_grid *want = NULL;
            assert_int_equal(cg_grid_clone(&want, in), CG_OK);
            assert_true(same_words(want, in));
            for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
                /* (the run's copy likely gets this block: not the cells
                 * of the copy before) */
                cg_grid *junk = NULL;
                assert_int_equal(cg_grid_new(&junk, w, h), CG_OK);
                cg_grid_free(junk);
                cg_grid *got = run("remove-floor min=1", in, loops[k]);
                assert_true(same_words(want, got));
                cg_grid_free(got);
            }
            cg_grid_free(want);
            cg_grid_free(in);
        }
    }
    cg_pipeline_free(mk);
}

/* A map big enough for the stripes without the hook (2^24 cells): it is
 * cut by its size alone, with or without a loop, and equals the serial
 * labeller's map (cg__remove_small) for every loop; under a memory limit,
 * every loop fits or fails alike. */
static void a_big_map_goes_in_stripes_with_or_without_a_loop(void **state)
{
    (void)state;
    cg__regions_set_stripe_rows(0); /* (a failed test before may have left it set) */
    cg_pipeline *pre_p = tu_pipeline("fill 45\ngenerations 3 r1=5 r2=-1\n");
    cg_run_options po = {.seed = 3, .width = 4096, .height = 4096};
    cg_grid *pre = NULL;
    cg_diag pdiag = {0};
    assert_int_equal(cg_pipeline_run(pre_p, &po, &pre, NULL, &pdiag), CG_OK);
    cg_pipeline_free(pre_p);
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        cg_grid *got =
            run("remove-floor min=50\nremove-walls min=50\nkeep-largest\n", pre, loops[k]);
        if (k == 0) {
            assert_int_equal(cg__remove_small(pre, 0, 50), CG_OK);
            assert_int_equal(cg__remove_small(pre, 1, 50), CG_OK);
            assert_int_equal(cg__keep_largest_floor(pre), CG_OK);
        }
        assert_true(same_words(pre, got));
        cg_grid_free(got);
    }
    cg_grid_free(pre);
    static const char *const text = "fill 45\n"
                                    "generations 3 r1=5 r2=-1\n"
                                    "remove-floor min=50\n"
                                    "remove-walls min=50\n"
                                    "fill 58\n"
                                    "generations 2 r1=5 r2=-1\n"
                                    "remove-floor min=400\n"
                                    "remove-walls min=400\n"
                                    "keep-largest\n";
    cg_pipeline *p = tu_pipeline(text);
    cg_grid *want = NULL;
    uint64_t peak = 0;
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        cg_run_options o = {.seed = 3, .width = 4096, .height = 4096, .parallel = loops[k]};
        cg_run_info stats = {0};
        cg_grid *g = NULL;
        cg_diag diag = {0};
        assert_int_equal(cg_pipeline_run(p, &o, &g, &stats, &diag), CG_OK);
        if (!want) {
            want = g;
            peak = stats.peak_memory;
        } else {
            assert_true(same_words(want, g));
            assert_int_equal(stats.peak_memory, peak);
            cg_grid_free(g);
        }
    }
    for (uint64_t limit = peak - peak / 8; limit <= peak + peak / 32; limit += peak / 32) {
        cg_run_options o = {.seed = 3, .width = 4096, .height = 4096, .max_memory = limit};
        cg_grid *g = NULL;
        cg_diag diag = {0};
        const cg_status serial = cg_pipeline_run(p, &o, &g, NULL, &diag);
        cg_grid_free(g);
        g = NULL;
        o.parallel = tu_threads_for;
        const cg_status striped = cg_pipeline_run(p, &o, &g, NULL, &diag);
        cg_grid_free(g);
        assert_int_equal(serial, striped);
        assert_int_equal(serial, limit >= peak ? CG_OK : CG_ENOMEM);
    }
    cg_grid_free(want);
    cg_pipeline_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(striped_removal_matches_serial_on_random_maps),
        cmocka_unit_test(the_input_is_copied_whole_with_every_loop),
        cmocka_unit_test(striped_removal_matches_serial_on_patterns),
        cmocka_unit_test(striped_removal_drops_markers_as_serial),
        cmocka_unit_test(keep_largest_with_regions_inside_stripes),
        cmocka_unit_test(a_big_map_goes_in_stripes_with_or_without_a_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
