/* test_chunk.c - scale in the library (docs/scale.md): windows of the
 * infinite cave (chunk mode), the halo, stripes of rows through a caller's
 * parallel loop, the memory estimate.
 *
 * The infinite cave is checked against an independent definition: a plane
 * much larger than the window, filled cell by cell from the documented hash
 * formula (docs/randomness.md) and run through the scalar oracle with no
 * border ring (tests/oracle.c); its middle is exact, and must equal the
 * library's chunk. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "oracle.h"
#include "testutil.h"
/* cg__cell_hash, cg__step_key, cg__fill_rows and the kernel path hook. */
#include "cells/fill.h"
#include "core/cpu.h"
#include "core/rng.h"

/* ------------------------------------------------- the oracle's plane */

enum { ST_GEN, ST_SMOOTH, ST_RULE };

typedef struct oracle_step {
    int kind, n, a, b, c; /* generations: r1 r2 self; smooth: walls; rule: lo hi */
} oracle_step;

typedef struct local_preset {
    const char *name, *text;
    uint32_t fill_ppb;
    oracle_step steps[4];
    int nsteps;
    uint32_t halo;
} local_preset;

/* The built-in local presets (the cellular-automaton cave article) and one pipeline of every local
 * rule, spelled for the oracle. */
static const local_preset presets[] = {
    {"type1", NULL, 400000000u,
     {{ST_GEN, 10, 5, 2, 1}, {ST_GEN, 10, 5, -1, 1}, {ST_GEN, 1, 5, 2, 1}}, 3, 32},
    {"type2", NULL, 450000000u, {{ST_GEN, 5, 5, -1, 1}, {ST_GEN, 1, 5, 0, 1}}, 2, 7},
    {"type3", NULL, 450000000u, {{ST_GEN, 5, 5, -1, 1}, {ST_GEN, 1, 5, 1, 1}}, 2, 7},
    {"type4", NULL, 450000000u, {{ST_GEN, 10, 5, 2, 1}, {ST_GEN, 10, 5, -1, 1}}, 2, 30},
    {"mixed",
     "fill 52.5\nsmooth 2 walls=5\nrule floor=5..8\ngenerations 2 r1=5 r2=1 self=no\n"
     "generations r1=4 r2=-1 self=no\n",
     525000000u,
     {{ST_SMOOTH, 2, 5, 0, 0}, {ST_RULE, 1, 5, 8, 0}, {ST_GEN, 2, 5, 1, 0}, {ST_GEN, 1, 4, -1, 0}},
     4, 2 + 1 + 4 + 1},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

static cg_pipeline *preset_pipeline(const local_preset *p)
{
    if (p->text)
        return tu_pipeline(p->text);
    size_t len = 0;
    const char *text = cg_preset_builtin(p->name, &len);
    assert_non_null(text);
    cg_pipeline *pl = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&pl), CG_OK);
    assert_int_equal(cg_pipeline_parse(pl, text, len, &diag), CG_OK);
    return pl;
}

/* The window (ox, oy, w, h) of the infinite cave, by the oracle on a plane
 * reaching margin cells further on every side. */
static uint8_t *oracle_window(const local_preset *p, uint64_t seed, int64_t ox, int64_t oy, int w,
                              int h, int margin)
{
    int pw = w + 2 * margin, ph = h + 2 * margin;
    uint8_t *plane = tu_alloc_cells(pw, ph);
    uint64_t key = cg__step_key(seed, CG__RAND_FILL, 0);
    uint64_t threshold = ((uint64_t)p->fill_ppb << 32) / 1000000000u;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            plane[(size_t)y * (size_t)pw + (size_t)x] =
                (cg__cell_hash(key, ox - margin + x, oy - margin + y) >> 32) < threshold;
    for (int i = 0; i < p->nsteps; i++) {
        const oracle_step *s = &p->steps[i];
        int rc = s->kind == ST_GEN      ? oracle_generations_open(plane, pw, ph, s->n, s->a, s->b,
                                                                  s->c)
                 : s->kind == ST_SMOOTH ? oracle_smooths(plane, pw, ph, s->n, s->a)
                                        : oracle_rules(plane, pw, ph, s->n, s->a, s->b);
        assert_int_equal(rc, 0);
    }
    uint8_t *win = tu_alloc_cells(w, h);
    for (int y = 0; y < h; y++)
        memcpy(win + (size_t)y * (size_t)w, plane + (size_t)(y + margin) * (size_t)pw + margin,
               (size_t)w);
    free(plane);
    return win;
}

static cg_grid *chunk(const cg_pipeline *p, uint64_t seed, int64_t ox, int64_t oy, uint32_t w,
                      uint32_t h)
{
    cg_run_options ro = {
        .seed = seed, .width = w, .height = h, .chunk = 1, .origin_x = ox, .origin_y = oy};
    cg_grid *g = NULL;
    cg_diag diag = {0};
    cg_status st = cg_pipeline_run(p, &ro, &g, NULL, &diag);
    if (st != CG_OK)
        fail_msg("chunk (%lld,%lld) %ux%u: %s: %s", (long long)ox, (long long)oy, w, h,
                 cg_strerror(st), diag.message);
    return g;
}

/* ------------------------------------------------------------- tests */

static void windows_of_the_infinite_cave_equal_the_oracle_plane(void **state)
{
    (void)state;
    static const struct {
        int64_t x, y;
        int w, h;
    } windows[] = {
        {0, 0, 37, 23},     {-41, -17, 29, 19}, {1000003, -77, 65, 5}, {-64, 64, 1, 31},
        {5, -5, 40, 1},     {-129, 3, 130, 7},  {INT64_C(1) << 40, -(INT64_C(1) << 35), 17, 13},
    };
    for (size_t i = 0; i < NPRESETS; i++) {
        cg_pipeline *p = preset_pipeline(&presets[i]);
        for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++) {
            uint64_t seed = 1000 + 7 * k;
            uint8_t *want = oracle_window(&presets[i], seed, windows[k].x, windows[k].y,
                                          windows[k].w, windows[k].h, (int)presets[i].halo + 3);
            cg_grid *g = chunk(p, seed, windows[k].x, windows[k].y, (uint32_t)windows[k].w,
                               (uint32_t)windows[k].h);
            char what[96];
            snprintf(what, sizeof what, "%s seed %llu window %zu", presets[i].name,
                     (unsigned long long)seed, k);
            tu_assert_grid_equals(g, want, windows[k].w, windows[k].h, what);
            cg_grid_free(g);
            free(want);
        }
        cg_pipeline_free(p);
    }
}

/* Fails unless cells (ax.., ay..) of a equal (bx.., by..) of b over w x h. */
static void assert_same_cells(const cg_grid *a, uint32_t ax, uint32_t ay, const cg_grid *b,
                              uint32_t bx, uint32_t by, uint32_t w, uint32_t h, const char *what)
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            if (cg_grid_get(a, ax + x, ay + y) != cg_grid_get(b, bx + x, by + y))
                fail_msg("%s: differs at (%u,%u)", what, x, y);
}

/* The criterion: the chunk at (1,0) of width W is the right half of
 * the chunk at (0,0) of width 2W; likewise below, and left of the origin. */
static void a_chunk_is_the_matching_part_of_a_larger_chunk(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{40, 30}, {64, 17}, {97, 41}, {3, 2}};
    for (size_t i = 0; i < NPRESETS; i++) {
        cg_pipeline *p = preset_pipeline(&presets[i]);
        for (uint64_t seed = 0; seed < 24; seed++) {
            uint32_t w = sizes[seed % 4][0], h = sizes[seed % 4][1];
            char what[96];
            snprintf(what, sizeof what, "%s seed %llu %ux%u", presets[i].name,
                     (unsigned long long)seed, w, h);
            cg_grid *wide = chunk(p, seed, 0, 0, 2 * w, h);
            cg_grid *right = chunk(p, seed, w, 0, w, h);
            cg_grid *tall = chunk(p, seed, 0, 0, w, 2 * h);
            cg_grid *below = chunk(p, seed, 0, h, w, h);
            cg_grid *big = chunk(p, seed, -(int64_t)w, -(int64_t)h, 2 * w, 2 * h);
            cg_grid *neg = chunk(p, seed, -(int64_t)w, -(int64_t)h, w, h);
            cg_grid *zero = chunk(p, seed, 0, 0, w, h);
            assert_same_cells(right, 0, 0, wide, w, 0, w, h, what);
            assert_same_cells(below, 0, 0, tall, 0, h, w, h, what);
            assert_same_cells(neg, 0, 0, big, 0, 0, w, h, what);
            assert_same_cells(zero, 0, 0, big, w, h, w, h, what);
            cg_grid *all[] = {wide, right, tall, below, big, neg, zero};
            for (size_t k = 0; k < 7; k++)
                cg_grid_free(all[k]);
        }
        cg_pipeline_free(p);
    }
}

static void a_chunk_has_no_border_ring(void **state)
{
    (void)state;
    cg_pipeline *p = preset_pipeline(&presets[1]); /* type2 */
    int open_edge = 0;
    for (uint64_t seed = 0; seed < 8; seed++) {
        cg_grid *g = chunk(p, seed, 0, 0, 80, 50);
        for (uint32_t x = 0; x < 80; x++)
            open_edge |= cg_grid_get(g, x, 0) == CG_FLOOR || cg_grid_get(g, x, 49) == CG_FLOOR;
        for (uint32_t y = 0; y < 50; y++)
            open_edge |= cg_grid_get(g, 0, y) == CG_FLOOR || cg_grid_get(g, 79, y) == CG_FLOOR;
        cg_grid_free(g);
    }
    assert_true(open_edge);
    cg_pipeline_free(p);
}

/* cg__fill_rows draws world cell (ox + x, oy + y) exactly as the formula of
 * docs/randomness.md says, on every code path, without the ring when asked;
 * with the ring at (0, 0) it is cg__fill. */
static void the_fill_of_a_window_is_the_hash_of_world_cells_on_every_path(void **state)
{
    (void)state;
    static const int64_t origins[][2] = {
        {0, 0}, {-1, -1}, {-1000003, 77}, {INT64_C(1) << 61, -(INT64_C(1) << 62)}, {63, -64}};
    static const uint32_t sizes[][2] = {{1, 1}, {5, 3}, {64, 2}, {65, 4}, {600, 3}, {1029, 5}};
    for (int path = 0; path < CG__PATH_COUNT; path++) {
        if (!cg__kernel_path_available(path))
            continue;
        assert_int_equal(cg__set_kernel_path(path), 0);
        for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++) {
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                uint32_t w = sizes[s][0], h = sizes[s][1], ppb = 450000000u + 13u * (uint32_t)s;
                uint64_t key = cg__step_key(o * 31 + s, CG__RAND_FILL, 0);
                uint64_t threshold = ((uint64_t)ppb << 32) / 1000000000u;
                cg_grid *g = NULL;
                assert_int_equal(cg_grid_new(&g, w, h), CG_OK);
                /* In two stripes, to check a stripe leaves other rows alone. */
                cg__fill_rows(g, key, ppb, origins[o][0], origins[o][1], 0, 0, h / 2);
                cg__fill_rows(g, key, ppb, origins[o][0], origins[o][1], 0, h / 2, h);
                for (uint32_t y = 0; y < h; y++)
                    for (uint32_t x = 0; x < w; x++) {
                        uint64_t hash = cg__cell_hash(key, origins[o][0] + x, origins[o][1] + y);
                        cg_cell want = (hash >> 32) < threshold ? CG_WALL : CG_FLOOR;
                        if (cg_grid_get(g, x, y) != want)
                            fail_msg("path %s origin %zu %ux%u: cell (%u,%u)",
                                     cg__kernel_path_name(path), o, w, h, x, y);
                    }
                if (origins[o][0] == 0 && origins[o][1] == 0) {
                    cg_grid *f = NULL;
                    assert_int_equal(cg_grid_new(&f, w, h), CG_OK);
                    cg__fill(f, key, ppb);
                    cg__fill_rows(g, key, ppb, 0, 0, 1, 0, h);
                    assert_true(tu_grids_equal(f, g));
                    cg_grid_free(f);
                }
                cg_grid_free(g);
            }
        }
    }
    cg__set_kernel_path(CG__PATH_AUTO);
}

/* A parallel loop that runs the tasks out of order (last first, then the
 * even ones, then the odd ones) and counts them: threads may run stripes in
 * any order, and the map must not change. */
typedef struct shuffler {
    size_t loops, tasks, widest;
} shuffler;

static void shuffled_for(void *ctx, size_t n, void (*task)(void *arg, size_t i), void *arg)
{
    shuffler *s = ctx;
    s->loops++;
    s->tasks += n;
    if (n > s->widest)
        s->widest = n;
    task(arg, n - 1);
    for (size_t i = 0; i + 1 < n; i += 2)
        task(arg, i);
    for (size_t i = 1; i + 1 < n; i += 2)
        task(arg, i);
}

static void stripes_in_any_order_give_the_same_map(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint32_t w, h;
    } cases[] = {
        {"fill 45\ngenerations 2 r1=5 r2=-1\ngenerations 1 r1=5 r2=0 self=no\n", 2113, 1031},
        {"fill 58\nsmooth 2 walls=5\nremove-floor min=16\n", 1500, 1499},
        {"fill 40\nrule 2 floor=5..8\ndownscale 2\n", 1030, 530},
        {"fill 45\ngenerations 1 r1=5 r2=2\n", 65, 40000},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cg_pipeline *p = tu_pipeline(cases[c].text);
        cg_run_options ro = {.seed = 99 + c, .width = cases[c].w, .height = cases[c].h};
        shuffler sh = {0};
        cg_run_options sc = ro;
        sc.parallel = shuffled_for;
        sc.parallel_ctx = &sh;
        cg_grid *serial = NULL, *striped = NULL;
        cg_diag diag = {0};
        assert_int_equal(cg_pipeline_run(p, &ro, &serial, NULL, &diag), CG_OK);
        assert_int_equal(cg_pipeline_run(p, &sc, &striped, NULL, &diag), CG_OK);
        if (sh.widest < 2)
            fail_msg("case %zu: the map was not split (widest loop %zu)", c, sh.widest);
        if (!tu_grids_equal(serial, striped))
            fail_msg("case %zu: stripes changed the map", c);
        /* And in chunk mode. */
        if (c == 0) {
            cg_run_options ch = sc, ch1 = ro;
            ch.chunk = ch1.chunk = 1;
            ch.origin_x = ch1.origin_x = -5000;
            ch.origin_y = ch1.origin_y = 321;
            cg_grid *a = NULL, *b = NULL;
            assert_int_equal(cg_pipeline_run(p, &ch, &a, NULL, &diag), CG_OK);
            assert_int_equal(cg_pipeline_run(p, &ch1, &b, NULL, &diag), CG_OK);
            assert_true(tu_grids_equal(a, b));
            cg_grid_free(a);
            cg_grid_free(b);
        }
        cg_grid_free(serial);
        cg_grid_free(striped);
        cg_pipeline_free(p);
    }
}

/* Small maps are not worth splitting: the loop is never called. */
static void small_maps_run_on_the_calling_thread(void **state)
{
    (void)state;
    cg_pipeline *p = preset_pipeline(&presets[1]);
    shuffler sh = {0};
    cg_run_options ro = {
        .seed = 1, .width = 80, .height = 50, .parallel = shuffled_for, .parallel_ctx = &sh};
    cg_grid *g = NULL;
    assert_int_equal(cg_pipeline_run(p, &ro, &g, NULL, NULL), CG_OK);
    assert_int_equal(sh.loops, 0);
    cg_grid_free(g);
    cg_pipeline_free(p);
}

static uint32_t halo_of(const char *text)
{
    cg_pipeline *p = tu_pipeline(text);
    uint32_t halo = 12345;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_chunk_halo(p, &halo, &diag), CG_OK);
    cg_pipeline_free(p);
    return halo;
}

/* Each pass adds its radius: 2 for generations testing v2 (r2 >= 0), 1
 * otherwise, 1 for smooth and rule; a fill starts the count again. */
static void the_halo_sums_the_radii_of_the_passes(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPRESETS; i++) {
        cg_pipeline *p = preset_pipeline(&presets[i]);
        uint32_t halo = 0;
        assert_int_equal(cg_pipeline_chunk_halo(p, &halo, NULL), CG_OK);
        assert_int_equal(halo, presets[i].halo);
        cg_pipeline_free(p);
    }
    assert_int_equal(halo_of("fill 45\n"), 0);
    assert_int_equal(halo_of("size 10x10\nfill 45\n"), 0);
    assert_int_equal(halo_of("generations 3 r1=5 r2=-1\n"), 3);
    assert_int_equal(halo_of("generations 3 r1=5 r2=0 self=no\n"), 6);
    assert_int_equal(halo_of("generations 0 r1=5 r2=4\n"), 0);
    assert_int_equal(halo_of("smooth 4\nrule 2 floor=1..9\n"), 6);
    assert_int_equal(halo_of("smooth 9\nfill 40\nsmooth 2\n"), 2);
}

static void chunk_mode_refuses_steps_that_need_the_whole_map(void **state)
{
    (void)state;
    static const char *const steps[] = {
        "remove-floor min=5", "remove-walls min=5", "keep-largest", "connect",  "entrance",
        "exit",               "poi count=1",        "require open>=1%", "maze", "downscale 2",
        "reach from=1,1",
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "fill 45\ngenerations 2 r1=5 r2=-1\n%s\n", steps[i]);
        cg_pipeline *p = tu_pipeline(text);
        cg_diag diag = {0};
        uint32_t halo = 0;
        assert_int_equal(cg_pipeline_chunk_halo(p, &halo, &diag), CG_EINVAL);
        char name[32];
        snprintf(name, sizeof name, "'%.*s'", (int)strcspn(steps[i], " "), steps[i]);
        if (!strstr(diag.message, name) || !strstr(diag.message, "whole map") ||
            diag.line != 3)
            fail_msg("%s: message '%s' line %d", steps[i], diag.message, diag.line);
        cg_run_options ro = {.seed = 1, .width = 20, .height = 20, .chunk = 1};
        cg_grid *g = NULL;
        memset(&diag, 0, sizeof diag);
        assert_int_equal(cg_pipeline_run(p, &ro, &g, NULL, &diag), CG_EINVAL);
        assert_null(g);
        assert_non_null(strstr(diag.message, "whole map"));
        cg_pipeline_free(p);
    }
}

static void chunk_mode_refuses_inputs_and_sizes_it_cannot_hold(void **state)
{
    (void)state;
    cg_pipeline *p = preset_pipeline(&presets[0]); /* halo 32 */
    cg_grid *in = NULL, *g = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_grid_new(&in, 5, 5), CG_OK);
    cg_run_options ro = {.seed = 1, .input = in, .chunk = 1};
    assert_int_equal(cg_pipeline_run(p, &ro, &g, NULL, &diag), CG_EINVAL);
    assert_non_null(strstr(diag.message, "input"));
    /* The window plus its halo must fit CG_MAX_DIM. */
    cg_run_options wide = {.seed = 1, .width = CG_MAX_DIM - 63, .height = 3, .chunk = 1};
    assert_int_equal(cg_pipeline_run(p, &wide, &g, NULL, &diag), CG_EINVAL);
    assert_non_null(strstr(diag.message, "halo"));
    uint64_t bytes = 0;
    assert_int_equal(cg_pipeline_memory(p, &wide, &bytes), CG_EINVAL);
    /* Origins far out are refused before anything can overflow. */
    cg_run_options far = {.seed = 1, .width = 10, .height = 10, .chunk = 1};
    far.origin_x = INT64_MAX - 5;
    assert_int_equal(cg_pipeline_run(p, &far, &g, NULL, &diag), CG_EINVAL);
    cg_run_options edge = {.seed = 1, .width = 10, .height = 10, .chunk = 1};
    edge.origin_x = -(INT64_C(1) << 62);
    edge.origin_y = INT64_C(1) << 62;
    assert_int_equal(cg_pipeline_run(p, &edge, &g, NULL, &diag), CG_OK);
    cg_grid_free(g);
    cg_grid_free(in);
    cg_pipeline_free(p);
}

static uint64_t memory_of(const char *text, uint32_t w, uint32_t h, int chunk)
{
    cg_pipeline *p = tu_pipeline(text);
    cg_run_options ro = {.seed = 1, .width = w, .height = h, .chunk = chunk};
    uint64_t bytes = 0;
    assert_int_equal(cg_pipeline_memory(p, &ro, &bytes), CG_OK);
    cg_pipeline_free(p);
    return bytes;
}

static uint64_t grid_bytes(uint32_t w, uint32_t h)
{
    uint64_t b = 0;
    assert_int_equal(cg_grid_bytes(w, h, &b), CG_OK);
    return b;
}

/* The estimate counts the grids alive at once: the map, the automaton's
 * second buffer while automaton steps remain, a chunk's halo, a downscale's
 * larger start. */
static void the_memory_estimate_counts_the_grids_alive_at_once(void **state)
{
    (void)state;
    uint64_t g = grid_bytes(1000, 700);
    assert_true(memory_of("fill 45\n", 1000, 700, 0) == g);
    assert_true(memory_of("fill 45\ngenerations 2 r1=5 r2=-1\n", 1000, 700, 0) == 2 * g);
    /* The second buffer is gone when the regions run. */
    assert_true(memory_of("fill 45\ngenerations 2 r1=5 r2=-1\nremove-floor min=9\n", 1000, 700,
                          0) == 2 * g);
    /* A chunk: the window plus its halo of 7, twice, then the window. */
    uint64_t c = memory_of("fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n", 1000,
                           700, 1);
    assert_true(c == 2 * grid_bytes(1014, 714));
    /* Downscale 2 starts at 2000x1400; the second buffer is gone by then. */
    uint64_t d = memory_of("fill 40\nrule 2 floor=5..8\ndownscale 2\n", 1000, 700, 0);
    assert_true(d == 2 * grid_bytes(2000, 1400));
    uint64_t d2 = memory_of("fill 40\ndownscale 2\nrule 2 floor=5..8\n", 1000, 700, 0);
    assert_true(d2 == grid_bytes(2000, 1400) + g);
    /* Placement floods the map into a grid of its own, which it keeps
     * (the steps' other arrays depend on the map: not in this lower bound). */
    uint64_t e = memory_of("fill 45\nentrance\n", 1000, 700, 0);
    assert_true(e == 2 * g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(windows_of_the_infinite_cave_equal_the_oracle_plane),
        cmocka_unit_test(a_chunk_is_the_matching_part_of_a_larger_chunk),
        cmocka_unit_test(a_chunk_has_no_border_ring),
        cmocka_unit_test(the_fill_of_a_window_is_the_hash_of_world_cells_on_every_path),
        cmocka_unit_test(stripes_in_any_order_give_the_same_map),
        cmocka_unit_test(small_maps_run_on_the_calling_thread),
        cmocka_unit_test(the_halo_sums_the_radii_of_the_passes),
        cmocka_unit_test(chunk_mode_refuses_steps_that_need_the_whole_map),
        cmocka_unit_test(chunk_mode_refuses_inputs_and_sizes_it_cannot_hold),
        cmocka_unit_test(the_memory_estimate_counts_the_grids_alive_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
