/* test_automaton.c - the generations, smooth and rule steps against the scalar
 * oracle (tests/oracle.c), bit for bit, through the public API: grids built
 * with cg_grid_set, steps parsed with cg_pipeline_parse and run with
 * cg_pipeline_run from that input. Also small maps worked out by hand, which
 * check the oracle as much as the library. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "oracle.h"
#include "testutil.h"
/* The test-only hook that forces a kernel code path (cg__set_kernel_path). */
#include "core/cpu.h"
/* The packed multi-pass entry point, cg__generation_passes, against passes
 * of cg__generation one at a time. */
#include "cells/automaton.h"
#include "core/grid.h"

/* Small sizes: degenerate maps and widths on either side of a 64-bit word. */
static const int small_sizes[][2] = {
    {1, 1}, {1, 6}, {6, 1}, {2, 2}, {3, 3}, {5, 5}, {4, 7}, {63, 7}, {64, 9}, {65, 3}, {1, 70},
    {70, 1},
};
#define N_SMALL (sizeof small_sizes / sizeof small_sizes[0])

/* Larger sizes: several words per row, odd tails. */
static const int big_sizes[][2] = {{127, 40}, {129, 33}, {300, 200}};
#define N_BIG (sizeof big_sizes / sizeof big_sizes[0])

/* Medium sizes for multi-generation runs. */
static const int medium_sizes[][2] = {{63, 17}, {64, 12}, {65, 11}, {128, 9}, {131, 10}};
#define N_MEDIUM (sizeof medium_sizes / sizeof medium_sizes[0])

enum rule_kind { GENERATION, SMOOTH, RULE };

typedef struct params {
    enum rule_kind kind;
    int n;
    int a, b, self; /* r1, r2, self | walls | lo, hi */
} params;

static void describe(const params *p, char *buf, size_t len)
{
    switch (p->kind) {
    case GENERATION:
        snprintf(buf, len, "generations %d r1=%d r2=%d self=%s", p->n, p->a, p->b,
                 p->self ? "yes" : "no");
        break;
    case SMOOTH:
        snprintf(buf, len, "smooth %d walls=%d", p->n, p->a);
        break;
    case RULE:
        snprintf(buf, len, "rule %d floor=%d..%d", p->n, p->a, p->b);
        break;
    }
}

static void apply_oracle(const params *p, uint8_t *cells, int w, int h)
{
    int rc = 0;
    switch (p->kind) {
    case GENERATION:
        rc = oracle_generations(cells, w, h, p->n, p->a, p->b, p->self);
        break;
    case SMOOTH:
        rc = oracle_smooths(cells, w, h, p->n, p->a);
        break;
    case RULE:
        rc = oracle_rules(cells, w, h, p->n, p->a, p->b);
        break;
    }
    assert_int_equal(rc, 0);
}

/* Runs the parsed step on cells through the library and through the oracle
 * and demands the same map. */
static void check_cells(const cg_pipeline *pipe, const params *p, const uint8_t *cells, int w,
                        int h)
{
    char what[160], step[96];
    describe(p, step, sizeof step);
    cg_grid *in = tu_grid_from_cells(cells, w, h), *out = NULL;
    cg_diag diag = {0};
    cg_status st = tu_run_pipeline(pipe, 1, 0, 0, in, &out, &diag);
    if (st != CG_OK) {
        print_error("%s on %dx%d: %s (%s)\n", step, w, h, cg_strerror(st), diag.message);
        fail();
    }
    uint8_t *want = tu_alloc_cells(w, h);
    memcpy(want, cells, (size_t)w * (size_t)h);
    apply_oracle(p, want, w, h);
    snprintf(what, sizeof what, "\"%s\"", step);
    tu_assert_grid_equals(out, want, w, h, what);
    /* The input is not modified by the run. */
    tu_assert_grid_equals(in, cells, w, h, "input grid after the run");
    free(want);
    cg_grid_free(in);
    cg_grid_free(out);
}

static void check_random(const cg_pipeline *pipe, const params *p, int w, int h, uint64_t *rng)
{
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.3 + 0.4 * tu_unit(rng), rng);
    check_cells(pipe, p, cells, w, h);
    free(cells);
}

static cg_pipeline *parse_params(const params *p)
{
    char step[96];
    describe(p, step, sizeof step);
    return tu_pipeline(step);
}

/* Every small size, the big sizes, and 3-pass runs on a medium and a small
 * size (rotating), each on a fresh random map of density 0.3..0.7. */
static void check_params(params p, unsigned index, uint64_t *rng)
{
    p.n = 1;
    cg_pipeline *pipe = parse_params(&p);
    for (size_t i = 0; i < N_SMALL; i++)
        check_random(pipe, &p, small_sizes[i][0], small_sizes[i][1], rng);
    /* The two narrower big sizes every time, the 300x200 one every third. */
    check_random(pipe, &p, big_sizes[0][0], big_sizes[0][1], rng);
    check_random(pipe, &p, big_sizes[1][0], big_sizes[1][1], rng);
    if (index % 3 == 0)
        check_random(pipe, &p, big_sizes[2][0], big_sizes[2][1], rng);
    cg_pipeline_free(pipe);

    p.n = 3;
    pipe = parse_params(&p);
    check_random(pipe, &p, medium_sizes[index % N_MEDIUM][0], medium_sizes[index % N_MEDIUM][1],
                 rng);
    check_random(pipe, &p, small_sizes[index % N_SMALL][0], small_sizes[index % N_SMALL][1], rng);
    cg_pipeline_free(pipe);
}

static void check_all_generation_params(int self, uint64_t seed)
{
    uint64_t rng = seed;
    unsigned index = 0;
    for (int r1 = 0; r1 <= 9; r1++)
        for (int r2 = -1; r2 <= 21; r2++)
            check_params((params){GENERATION, 1, r1, r2, self}, index++, &rng);
}

static void generation_matches_oracle_for_every_r1_r2(void **state)
{
    (void)state;
    check_all_generation_params(1, 1000);
}

static void generation_without_self_matches_oracle_for_every_r1_r2(void **state)
{
    (void)state;
    check_all_generation_params(0, 2000);
}

static void smooth_matches_oracle_for_every_threshold(void **state)
{
    (void)state;
    uint64_t rng = 3000;
    unsigned index = 0;
    /* Several rounds per threshold so every medium size is seen. */
    for (int round = 0; round < 5; round++)
        for (int t = 0; t <= 9; t++)
            check_params((params){SMOOTH, 1, t, 0, 0}, index++, &rng);
}

static void rule_matches_oracle_for_every_floor_range(void **state)
{
    (void)state;
    uint64_t rng = 4000;
    unsigned index = 0;
    for (int round = 0; round < 3; round++)
        for (int lo = 0; lo <= 9; lo++)
            for (int hi = lo; hi <= 9; hi++)
                check_params((params){RULE, 1, lo, hi, 0}, index++, &rng);
}

/* Structured maps that random ones rarely produce: empty rooms, stripes
 * that cross word boundaries, lone cells next to the boundary. */
static void fill_pattern(uint8_t *cells, int w, int h, int pattern)
{
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t v = 0;
            switch (pattern) {
            case 0: v = 0; break;                                    /* all floor */
            case 1: v = 1; break;                                    /* all wall */
            case 2: v = (uint8_t)((x + y) & 1); break;               /* checkerboard */
            case 3: v = (uint8_t)(x & 1); break;                     /* vertical stripes */
            case 4: v = (uint8_t)(y & 1); break;                     /* horizontal stripes */
            case 5: v = (uint8_t)(x % 64 == 63 || x % 64 == 0); break; /* word edges wall */
            case 6: v = (uint8_t)!(x % 64 == 63 || x % 64 == 0); break; /* word edges floor */
            case 7: v = (uint8_t)((x / 3 + y / 2) & 1); break;       /* blocks */
            case 8: v = (uint8_t)(x == y || x == w - 1 - y); break;  /* diagonals */
            default: v = (uint8_t)(x < w / 2); break;                /* left half wall */
            }
            cells[(size_t)y * (size_t)w + (size_t)x] = v;
        }
    }
}

static void every_rule_matches_oracle_on_patterns(void **state)
{
    (void)state;
    static const int sizes[][2] = {{7, 6}, {65, 9}, {130, 6}, {1, 5}, {5, 1}, {192, 4}};
    static const params plist[] = {
        {GENERATION, 1, 5, -1, 1}, {GENERATION, 1, 5, 2, 1}, {GENERATION, 2, 5, 0, 1},
        {GENERATION, 1, 0, -1, 1}, {GENERATION, 1, 9, 21, 0}, {GENERATION, 1, 4, 8, 0},
        {GENERATION, 1, 9, -1, 0}, {GENERATION, 3, 6, 12, 1},
        {SMOOTH, 1, 5, 0, 0},      {SMOOTH, 1, 0, 0, 0},      {SMOOTH, 1, 9, 0, 0},
        {SMOOTH, 2, 4, 0, 0},      {SMOOTH, 1, 8, 0, 0},
        {RULE, 1, 5, 8, 0},        {RULE, 1, 5, 9, 0},        {RULE, 1, 0, 9, 0},
        {RULE, 1, 0, 0, 0},        {RULE, 1, 9, 9, 0},        {RULE, 2, 3, 6, 0},
    };
    for (size_t k = 0; k < sizeof plist / sizeof plist[0]; k++) {
        cg_pipeline *pipe = parse_params(&plist[k]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int w = sizes[s][0], h = sizes[s][1];
            uint8_t *cells = tu_alloc_cells(w, h);
            for (int pattern = 0; pattern < 10; pattern++) {
                fill_pattern(cells, w, h, pattern);
                check_cells(pipe, &plist[k], cells, w, h);
            }
            free(cells);
        }
        cg_pipeline_free(pipe);
    }
}

static void many_generations_match_oracle_on_big_maps(void **state)
{
    (void)state;
    /* The seed-000 stages, run long enough for the map to settle. */
    static const params plist[] = {
        {GENERATION, 10, 5, 2, 1}, {GENERATION, 10, 5, -1, 1}, {SMOOTH, 6, 5, 0, 0},
        {RULE, 4, 5, 8, 0},
    };
    uint64_t rng = 5000;
    for (size_t k = 0; k < sizeof plist / sizeof plist[0]; k++) {
        cg_pipeline *pipe = parse_params(&plist[k]);
        check_random(pipe, &plist[k], 300, 200, &rng);
        check_random(pipe, &plist[k], 257, 61, &rng);
        cg_pipeline_free(pipe);
    }
}

static void generation_count_defaults_to_one(void **state)
{
    (void)state;
    uint64_t rng = 6000;
    int w = 70, h = 20;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.45, &rng);
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    cg_grid *a = tu_run("generations r1=5 r2=2", 1, 0, 0, in);
    oracle_generations(cells, w, h, 1, 5, 2, 1);
    tu_assert_grid_equals(a, cells, w, h, "generations r1=5 r2=2");
    /* self=yes is the default. */
    cg_grid *b = tu_run("generations 1 r1=5 r2=2 self=yes", 1, 0, 0, in);
    assert_true(tu_grids_equal(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
    cg_grid_free(in);
    free(cells);
}

static void zero_passes_leave_the_map_unchanged(void **state)
{
    (void)state;
    uint64_t rng = 7000;
    int w = 66, h = 7;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.5, &rng);
    cells[0] = 0; /* a floor cell on the ring stays floor: no generation ran */
    cg_grid *in = tu_grid_from_cells(cells, w, h);
    const char *texts[] = {"generations 0 r1=5 r2=2", "smooth 0", "rule 0 floor=5..8"};
    for (size_t k = 0; k < 3; k++) {
        cg_grid *out = tu_run(texts[k], 1, 0, 0, in);
        tu_assert_grid_equals(out, cells, w, h, texts[k]);
        cg_grid_free(out);
    }
    cg_grid_free(in);
    free(cells);
}

/* ---------------------------------------------------------- hand-worked */

/* The oracle with parameters p turns the h rows `in` into the rows `want`. */
static void check_oracle_by_hand(const char *const *in, int h, const char *const *want, params p)
{
    int w = (int)strlen(in[0]);
    uint8_t *cells = tu_cells_from_rows(in, h);
    uint8_t *expect = tu_cells_from_rows(want, h);
    apply_oracle(&p, cells, w, h);
    assert_memory_equal(cells, expect, (size_t)w * (size_t)h);
    free(cells);
    free(expect);
}

/* An empty 5x5 room. v1 and v2 of its interior cells, counting outside cells
 * as walls (the room has 16 wall cells, all on its ring):
 *   corner cells (1,1) etc.: 3x3 block x0..2,y0..2 has 5 walls -> v1 = 5;
 *     5x5 block x-1..3,y-1..3 holds all 9 floor cells, so 25-9 = 16 walls,
 *     minus the corners (-1,-1) (3,-1) (-1,3) (walls; (3,3) is floor) -> v2 = 13
 *   edge cells (2,1) etc.: v1 = 3 (the top row of its block);
 *     block x0..4,y-1..3: 16 walls, its 4 corners all walls -> v2 = 12
 *   centre (2,2): v1 = 0; block = the whole room: 16 walls - 4 corners -> v2 = 12
 * r1=6 r2=12: corners v1 5 < 6, v2 13 > 12 -> floor; edges and centre v2 = 12
 * -> wall. The centre is floor in the input, so self does not matter. */
static void generation_counts_outside_cells_as_walls_in_v2(void **state)
{
    (void)state;
    const char *in_rows[] = {"#####", "#...#", "#...#", "#...#", "#####"};
    const char *want[] = {"#####", "#.#.#", "#####", "#.#.#", "#####"};
    cg_grid *in = tu_grid_from_rows(in_rows, 5);
    const char *texts[] = {"generations 1 r1=6 r2=12", "generations 1 r1=6 r2=12 self=no"};
    for (size_t k = 0; k < 2; k++) {
        cg_grid *out = tu_run(texts[k], 1, 0, 0, in);
        tu_assert_grid_equals_rows(out, want, 5, texts[k]);
        cg_grid_free(out);
    }
    /* r2=11: only the corners (v1 = 5 >= 5 with r1=5) stay wall: a plus. */
    const char *plus[] = {"#####", "##.##", "#...#", "##.##", "#####"};
    cg_grid *out = tu_run("generations r1=5 r2=11", 1, 0, 0, in);
    tu_assert_grid_equals_rows(out, plus, 5, "generations r1=5 r2=11");
    cg_grid_free(out);
    /* The oracle agrees. */
    check_oracle_by_hand(in_rows, 5, want, (params){GENERATION, 1, 6, 12, 1});
    cg_grid_free(in);
}

/* A 5x5 room with a wall pillar in the middle:
 *   #####
 *   #...#
 *   #.#.#
 *   #...#
 *   #####
 * self=yes: corners (1,1): v1 = 5 ring walls + pillar = 6; v2 = 13 + pillar = 14
 *           edges (2,1): v1 = 3 + pillar = 4; v2 = 12 + pillar = 13
 *           centre (2,2): v1 = 1 (itself); v2 = 12 + itself = 13
 * self=no:  the same, except the centre: v1 = 0, v2 = 12.
 * r1=5 r2=12: corners wall (v1 6); edges floor (4 < 5, 13 > 12); centre:
 *   self=yes floor (1 < 5, 13 > 12), self=no wall (v2 12 <= 12).
 * r1=1 r2=-1: edges and corners wall (v1 >= 1); centre: self=yes wall
 *   (v1 = 1), self=no floor (v1 = 0). */
static void generation_self_option_excludes_the_centre_from_both_counts(void **state)
{
    (void)state;
    const char *in_rows[] = {"#####", "#...#", "#.#.#", "#...#", "#####"};
    cg_grid *in = tu_grid_from_rows(in_rows, 5);
    static const struct {
        const char *text;
        const char *rows[5];
    } cases[] = {
        {"generations 1 r1=5 r2=12", {"#####", "##.##", "#...#", "##.##", "#####"}},
        {"generations 1 r1=5 r2=12 self=yes", {"#####", "##.##", "#...#", "##.##", "#####"}},
        {"generations 1 r1=5 r2=12 self=no", {"#####", "##.##", "#.#.#", "##.##", "#####"}},
        {"generations 1 r1=1 r2=-1", {"#####", "#####", "#####", "#####", "#####"}},
        {"generations 1 r1=1 r2=-1 self=no", {"#####", "#####", "##.##", "#####", "#####"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cg_grid *out = tu_run(cases[k].text, 1, 0, 0, in);
        tu_assert_grid_equals_rows(out, cases[k].rows, 5, cases[k].text);
        cg_grid_free(out);
    }
    check_oracle_by_hand(in_rows, 5, cases[2].rows, (params){GENERATION, 1, 5, 12, 0});
    cg_grid_free(in);
}

/* The 5x4 map used for smooth and rule, with the number of wall neighbours
 * (8 cells, outside = wall, the cell itself not counted) worked out for each
 * cell, and the number of floor cells in its 3x3 block (9 cells, itself
 * included, outside = not floor):
 *
 *   map      wall neighbours   floor in 3x3
 *   ..#..    5 4 3 4 5         4 5 5 5 4
 *   .....    4 3 3 2 3         5 6 6 7 6
 *   .##..    4 1 1 1 3         5 7 7 8 6
 *   .....    6 5 5 4 5         3 4 4 5 4
 *
 * e.g. (0,0): 5 outside cells + (1,0) (0,1) (1,1) floor = 5 walls;
 *      (2,0): 3 outside cells above, all 5 map neighbours floor = 3 (the wall
 *             at (2,0) itself does not count);
 *      (0,3): 5 outside cells + (1,2) = 6.
 * floor in 3x3 = 9 - wall neighbours - (1 if the cell is a wall). */
static const char *const map54[] = {"..#..", ".....", ".##..", "....."};

typedef struct hand_case {
    const char *text;
    const char *rows[4];
} hand_case;

/* Each case's step on map54 gives its rows, and so does the oracle with the
 * parameters `oracle` of case `checked`. */
static void check_map54(const hand_case *cases, size_t n, size_t checked, params oracle)
{
    cg_grid *in = tu_grid_from_rows(map54, 4);
    for (size_t k = 0; k < n; k++) {
        cg_grid *out = tu_run(cases[k].text, 1, 0, 0, in);
        tu_assert_grid_equals_rows(out, cases[k].rows, 4, cases[k].text);
        cg_grid_free(out);
    }
    check_oracle_by_hand(map54, 4, cases[checked].rows, oracle);
    cg_grid_free(in);
}

static void smooth_counts_eight_neighbours_on_a_hand_worked_map(void **state)
{
    (void)state;
    static const hand_case cases[] = {
        /* wall iff neighbours >= T */
        {"smooth 1", {"#...#", ".....", ".....", "###.#"}},
        {"smooth 1 walls=5", {"#...#", ".....", ".....", "###.#"}},
        /* T=4: (2,0) has 3 wall neighbours and becomes floor although it
         * was a wall: the centre is not counted. */
        {"smooth 1 walls=4", {"##.##", "#....", "#....", "#####"}},
        {"smooth 1 walls=3", {"#####", "###.#", "#...#", "#####"}},
        {"smooth 1 walls=0", {"#####", "#####", "#####", "#####"}},
        {"smooth 1 walls=7", {".....", ".....", ".....", "....."}},
    };
    check_map54(cases, sizeof cases / sizeof cases[0], 2, (params){SMOOTH, 1, 4, 0, 0});
}

static void rule_counts_floor_in_the_3x3_block_on_a_hand_worked_map(void **state)
{
    (void)state;
    static const hand_case cases[] = {
        /* floor iff floor-in-3x3 in LO..HI */
        {"rule 1 floor=5..8", {"#...#", ".....", ".....", "###.#"}},
        {"rule 1 floor=6..9", {"#####", "#....", "#....", "#####"}},
        {"rule 1 floor=7..7", {"#####", "###.#", "#..##", "#####"}},
        {"rule 1 floor=0..4", {".###.", "#####", "#####", "...#."}},
        {"rule 1 floor=0..9", {".....", ".....", ".....", "....."}},
        {"rule 1 floor=9..9", {"#####", "#####", "#####", "#####"}},
    };
    check_map54(cases, sizeof cases / sizeof cases[0], 3, (params){RULE, 1, 0, 4, 0});
}

/* A single floor cell: 8 outside neighbours, all walls. smooth: wall iff
 * 8 >= T, so floor only with T = 9. rule: its block has 1 floor cell (itself).
 * generations: the whole 1x1 map is the outer ring, so wall. */
static void one_by_one_maps_follow_each_rule(void **state)
{
    (void)state;
    cg_grid *in = NULL;
    assert_int_equal(cg_grid_new(&in, 1, 1), CG_OK);
    cg_grid_set(in, 0, 0, CG_FLOOR);
    static const struct {
        const char *text;
        cg_cell want;
    } cases[] = {
        {"smooth 1 walls=8", CG_WALL},          {"smooth 1 walls=9", CG_FLOOR},
        {"rule 1 floor=1..1", CG_FLOOR},        {"rule 1 floor=2..9", CG_WALL},
        {"rule 1 floor=0..0", CG_WALL},         {"generations 1 r1=9 r2=-1", CG_WALL},
        {"generations 1 r1=9 r2=-1 self=no", CG_WALL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cg_grid *out = tu_run(cases[k].text, 1, 0, 0, in);
        if (cg_grid_get(out, 0, 0) != cases[k].want) {
            print_error("%s on a 1x1 floor map\n", cases[k].text);
            fail();
        }
        cg_grid_free(out);
    }
    cg_grid_free(in);
}

/* Double buffering, on a 7x6 map: a floor corridor at x=3, y=1..4.
 *
 *   map       wall neighbours (outside = wall)
 *   #######   8 8 7 7 7 8 8
 *   ###.###   8 8 6 7 6 8 8     e.g. (2,1): (3,1) and (3,2) floor -> 6
 *   ###.###   8 8 5 6 5 8 8          (2,2): (3,1) (3,2) (3,3) floor -> 5
 *   ###.###   8 8 5 6 5 8 8          (3,1): only (3,2) floor -> 7
 *   ###.###   8 8 6 7 6 8 8
 *   #######   8 8 7 7 7 8 8
 *
 * smooth walls=5: everything >= 5, all wall. walls=6: the four cells with 5
 * open, the rest is wall. Updating in place in scan order would differ: (2,2)
 * would see the already-closed (3,1) and count 6. */
static void passes_read_only_the_previous_generation(void **state)
{
    (void)state;
    const char *in_rows[] = {"#######", "###.###", "###.###", "###.###", "###.###", "#######"};
    cg_grid *in = tu_grid_from_rows(in_rows, 6);
    const char *t5[] = {"#######", "#######", "#######", "#######", "#######", "#######"};
    const char *t6[] = {"#######", "#######", "##.#.##", "##.#.##", "#######", "#######"};
    const char *t7[] = {"#######", "##.#.##", "##...##", "##...##", "##.#.##", "#######"};
    cg_grid *out = tu_run("smooth 1 walls=5", 1, 0, 0, in);
    tu_assert_grid_equals_rows(out, t5, 6, "smooth 1 walls=5");
    cg_grid_free(out);
    out = tu_run("smooth 1 walls=6", 1, 0, 0, in);
    tu_assert_grid_equals_rows(out, t6, 6, "smooth 1 walls=6");
    cg_grid_free(out);
    out = tu_run("smooth 1 walls=7", 1, 0, 0, in);
    tu_assert_grid_equals_rows(out, t7, 6, "smooth 1 walls=7");
    cg_grid_free(out);
    cg_grid_free(in);
}

/* ------------------------------------------------------------ code paths */

/* The library has several code paths for these rules (src/cells/automaton.c:
 * scalar, vector extensions, AVX2, AVX-512); the tests above see only the
 * one this machine takes by default. These force each path this machine can
 * run in turn, on wide maps (the strip kernel) and narrow ones (the flat
 * kernel), and demand the oracle's result. */

static int path_teardown(void **state)
{
    (void)state;
    cg__set_kernel_path(CG__PATH_AUTO);
    return 0;
}

/* Calls fn once per available path from `first` on, with that path forced. */
static void for_each_path(void (*fn)(int path, uint64_t *rng), uint64_t seed, int first)
{
    int ran = 0;
    for (int path = first; path < CG__PATH_COUNT; path++) {
        if (!cg__kernel_path_available(path))
            continue;
        assert_int_equal(cg__set_kernel_path(path), 0);
        uint64_t rng = seed + (uint64_t)path;
        fn(path, &rng);
        ran++;
    }
    assert_int_equal(cg__set_kernel_path(CG__PATH_AUTO), 0);
    /* With GCC or Clang the vector path always exists. */
    assert_true(ran >= 1 || first > CG__PATH_SCALAR);
}

/* Widths from just past one 8-word chunk to a few chunks, none a multiple
 * of 64 but one: the last chunk of a row overlaps the one before it. */
static const int wide_widths[] = {449, 511, 512, 513, 577, 703, 1001};
#define N_WIDE (sizeof wide_widths / sizeof wide_widths[0])

static void wide_case(const params *p, int index, uint64_t *rng)
{
    cg_pipeline *pipe = parse_params(p);
    check_random(pipe, p, wide_widths[(size_t)index % N_WIDE], 3 + index % 4, rng);
    cg_pipeline_free(pipe);
}

static void every_generation_parameter_on_path(int path, uint64_t *rng)
{
    (void)path;
    int index = 0;
    for (int self = 0; self <= 1; self++)
        for (int r1 = 0; r1 <= 9; r1++)
            for (int r2 = -1; r2 <= 21; r2++)
                wide_case(&(params){GENERATION, 1, r1, r2, self}, index++, rng);
}

static void every_path_matches_oracle_for_every_r1_r2_on_wide_maps(void **state)
{
    (void)state;
    for_each_path(every_generation_parameter_on_path, 10000, CG__PATH_SCALAR);
}

static void every_smooth_and_rule_parameter_on_path(int path, uint64_t *rng)
{
    (void)path;
    int index = 0;
    for (int t = 0; t <= 9; t++)
        wide_case(&(params){SMOOTH, 1, t, 0, 0}, index++, rng);
    for (int lo = 0; lo <= 9; lo++)
        for (int hi = lo; hi <= 9; hi++)
            wide_case(&(params){RULE, 1, lo, hi, 0}, index++, rng);
}

static void every_path_matches_oracle_for_every_smooth_and_rule_on_wide_maps(void **state)
{
    (void)state;
    for_each_path(every_smooth_and_rule_parameter_on_path, 11000, CG__PATH_SCALAR);
}

/* Maps wider than one strip of 64 words (4096 cells), whose second strip is
 * 1, 2, 8 or 15 words wide, several passes; and maps 1 to 3 rows high. */
static void strips_and_short_maps_on_path(int path, uint64_t *rng)
{
    (void)path;
    static const params plist[] = {
        {GENERATION, 2, 5, 2, 1}, {GENERATION, 2, 5, -1, 1}, {GENERATION, 1, 4, 8, 0},
        {GENERATION, 1, 6, 13, 0}, {SMOOTH, 2, 5, 0, 0},     {RULE, 2, 5, 8, 0},
        {RULE, 1, 2, 6, 0},
    };
    static const int strip_sizes[][2] = {{4097, 5}, {4161, 4}, {4608, 3}, {5053, 4}};
    static const int short_sizes[][2] = {{600, 1}, {600, 2}, {600, 3}, {1000, 4}};
    for (size_t k = 0; k < sizeof plist / sizeof plist[0]; k++) {
        cg_pipeline *pipe = parse_params(&plist[k]);
        const int *sz = strip_sizes[k % 4];
        check_random(pipe, &plist[k], sz[0], sz[1], rng);
        for (size_t s = 0; s < 4; s++)
            check_random(pipe, &plist[k], short_sizes[s][0], short_sizes[s][1], rng);
        cg_pipeline_free(pipe);
    }
}

static void every_path_matches_oracle_across_strips_and_on_short_maps(void **state)
{
    (void)state;
    for_each_path(strips_and_short_maps_on_path, 12000, CG__PATH_SCALAR);
}

/* Maps narrower than 16 words a row take the flat kernel on the vector
 * paths (the rows of a block as one run of words, cells/automaton_kernel.h):
 * widths on either side of word boundaries, from 1 to 1023 cells, and
 * heights from one row (too short for a vector: the scalar path) to several
 * blocks of rows (the planes hold 512 words). */
static void narrow_maps_on_path(int path, uint64_t *rng)
{
    (void)path;
    static const params plist[] = {
        {GENERATION, 2, 5, -1, 1},
        {GENERATION, 1, 5, 0, 1},
        {GENERATION, 1, 5, 2, 0},
        {GENERATION, 1, 4, -1, 0},
        {GENERATION, 1, 9, 21, 1},
        {SMOOTH, 2, 5, 0, 0},
        {SMOOTH, 1, 3, 0, 0},
        {RULE, 2, 5, 8, 0},
        {RULE, 1, 5, 9, 0},
        /* Rules under which a block of walls turns to floor: the words
         * between rows must be walled again after every pass. */
        {RULE, 2, 0, 0, 0},
        {SMOOTH, 2, 9, 0, 0},
        {RULE, 3, 0, 4, 0},
    };
    static const int widths[] = {1,   2,   7,   63,  64,  65,  80,  127, 128, 129,
                                 131, 160, 255, 257, 384, 448, 449, 960, 1023};
    static const int heights[] = {1, 2, 3, 4, 5, 8, 50, 131, 300};
    const size_t nh = sizeof heights / sizeof heights[0];
    for (size_t k = 0; k < sizeof plist / sizeof plist[0]; k++) {
        cg_pipeline *pipe = parse_params(&plist[k]);
        for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
            check_random(pipe, &plist[k], widths[i], heights[(i + k) % nh], rng);
            check_random(pipe, &plist[k], widths[i], heights[(i + k + 4) % nh], rng);
        }
        cg_pipeline_free(pipe);
    }
}

static void every_path_matches_oracle_on_narrow_maps(void **state)
{
    (void)state;
    for_each_path(narrow_maps_on_path, 14000, CG__PATH_SCALAR);
}

static void patterns_on_path(int path, uint64_t *rng)
{
    (void)path;
    (void)rng;
    static const params plist[] = {
        {GENERATION, 1, 5, 0, 1}, {GENERATION, 1, 5, 2, 0}, {GENERATION, 1, 9, 21, 1},
        {SMOOTH, 1, 5, 0, 0},     {RULE, 1, 5, 9, 0},
    };
    static const int sizes[][2] = {{449, 6}, {577, 5}, {640, 4}, {80, 50},
                                   {65, 9},  {131, 7}, {1, 20},  {200, 3}};
    for (size_t k = 0; k < sizeof plist / sizeof plist[0]; k++) {
        cg_pipeline *pipe = parse_params(&plist[k]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int w = sizes[s][0], h = sizes[s][1];
            uint8_t *cells = tu_alloc_cells(w, h);
            for (int pattern = 0; pattern < 10; pattern++) {
                fill_pattern(cells, w, h, pattern);
                check_cells(pipe, &plist[k], cells, w, h);
            }
            free(cells);
        }
        cg_pipeline_free(pipe);
    }
}

static void every_path_matches_oracle_on_patterns(void **state)
{
    (void)state;
    for_each_path(patterns_on_path, 13000, CG__PATH_SCALAR);
}

/* n passes of cg__generation on the scalar path, one at a time, each into
 * a second grid that then becomes the map: the twin of cg__generation_passes. */
static cg_grid *passes_one_at_a_time(const cg_grid *in, int r1, int r2, int self, uint32_t n)
{
    cg_grid *a = NULL, *b = NULL;
    assert_int_equal(cg_grid_clone(&a, in), CG_OK);
    assert_int_equal(cg__grid_new_like(&b, in), CG_OK);
    assert_int_equal(cg__set_kernel_path(CG__PATH_SCALAR), 0);
    for (uint32_t k = 0; k < n; k++) {
        cg__generation(a, b, r1, r2, self);
        cg_grid *t = a;
        a = b;
        b = t;
    }
    cg_grid_free(b);
    return a;
}

/* Whether cg__generation_passes takes a w x h map on a vector path: see
 * cells/automaton.c (width not a multiple of 64, at least 8 words in rows
 * 1..h-2, under 16 words a row, the packed copy within 1024 words). */
static int packs(int w, int h)
{
    size_t nw = ((size_t)w + 63) / 64;
    return w % 64 != 0 && h >= 3 && (size_t)(h - 2) * nw >= 8 && nw < 16 &&
           ((size_t)h + 4) * nw + 2 <= 1024;
}

/* cg__generation_passes on path against the scalar path's passes one at a
 * time; the map is left alone when it does not take it. */
static void check_packed(const cg_grid *in, int path, int r1, int r2, int self, uint32_t n)
{
    cg_grid *want = passes_one_at_a_time(in, r1, r2, self, n);
    cg_grid *got = NULL;
    assert_int_equal(cg_grid_clone(&got, in), CG_OK);
    assert_int_equal(cg__set_kernel_path(path), 0);
    int took = cg__generation_passes(got, r1, r2, self, n);
    int w = (int)in->w, h = (int)in->h;
    int expect = path != CG__PATH_SCALAR && n > 0 && packs(w, h);
    if (took != expect || !tu_grids_equal(got, took ? want : in)) {
        print_error("%s: %dx%d r1=%d r2=%d self=%d n=%u: took %d (want %d), cells %s\n",
                    cg__kernel_path_name(path), w, h, r1, r2, self, n, took, expect,
                    tu_grids_equal(got, took ? want : in) ? "equal" : "differ");
        fail();
    }
    cg_grid_free(want);
    cg_grid_free(got);
}

/* Maps with and without a wall ring (the passes must not rely on the input
 * having one: x = 0 and x = w-1 are read as cells), structured ones, on the
 * widths either side of the word boundaries and the 80 of a batch. */
static void packed_passes_on_path(int path, uint64_t *rng)
{
    static const struct {
        int r1, r2, self;
        uint32_t n;
    } plist[] = {{5, -1, 1, 5}, {5, 0, 1, 1}, {5, 2, 0, 3}, {4, -1, 0, 2}, {9, 21, 1, 1},
                 {0, -1, 1, 1}, {6, 12, 1, 2}, {3, 5, 0, 6}, {5, 2, 1, 0}};
    static const int widths[] = {1, 2, 7, 63, 64, 65, 80, 127, 128, 129, 131, 200, 1000};
    static const int heights[] = {1, 2, 3, 4, 5, 50, 101, 200};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        for (size_t j = 0; j < sizeof heights / sizeof heights[0]; j++) {
            int w = widths[i], h = heights[j];
            uint8_t *cells = tu_alloc_cells(w, h);
            for (int input = 0; input < 13; input++) {
                if (input < 10)
                    fill_pattern(cells, w, h, input);
                else
                    tu_random_cells(cells, w, h, input == 10 ? 0.45 : input == 11 ? 0.55 : 0.2,
                                    rng);
                cg_grid *in = tu_grid_from_cells(cells, w, h);
                size_t k = (i + j + (size_t)input) % (sizeof plist / sizeof plist[0]);
                check_packed(in, path, plist[k].r1, plist[k].r2, plist[k].self, plist[k].n);
                if (input >= 10) /* random maps: every rule */
                    for (size_t q = 0; q < sizeof plist / sizeof plist[0]; q++)
                        check_packed(in, path, plist[q].r1, plist[q].r2, plist[q].self,
                                     plist[q].n);
                cg_grid_free(in);
            }
            free(cells);
        }
    }
    /* A marker must be pruned between passes: such maps are not taken. */
    uint8_t *cells = tu_alloc_cells(80, 50);
    tu_random_cells(cells, 80, 50, 0.45, rng);
    cg_grid *in = tu_grid_from_cells(cells, 80, 50);
    cg_grid_set(in, 10, 10, CG_FLOOR);
    assert_int_equal(cg__grid_push_mark(in, 10, 10, CG_MARK_ENTRANCE), CG_OK);
    cg_grid *got = NULL;
    assert_int_equal(cg_grid_clone(&got, in), CG_OK);
    assert_int_equal(cg__set_kernel_path(path), 0);
    assert_int_equal(cg__generation_passes(got, 5, -1, 1, 5), 0);
    assert_true(tu_grids_equal(got, in));
    cg_grid_free(got);
    cg_grid_free(in);
    free(cells);
}

static void every_path_runs_all_passes_at_once_like_one_at_a_time(void **state)
{
    (void)state;
    for_each_path(packed_passes_on_path, 15000, CG__PATH_SCALAR);
}

static void kernel_path_hook_refuses_unknown_paths(void **state)
{
    (void)state;
    assert_int_equal(cg__set_kernel_path(CG__PATH_COUNT), -1);
    assert_int_equal(cg__set_kernel_path(-2), -1);
    assert_int_equal(cg__set_kernel_path(CG__PATH_SCALAR), 0);
    assert_int_equal(cg__kernel_path(), CG__PATH_SCALAR);
    assert_int_equal(cg__set_kernel_path(CG__PATH_AUTO), 0);
    assert_true(cg__kernel_path_available(cg__kernel_path()));
    for (int path = 0; path < CG__PATH_COUNT; path++)
        if (cg__kernel_path_available(path))
            print_message("kernel path available here: %s\n", cg__kernel_path_name(path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generation_counts_outside_cells_as_walls_in_v2),
        cmocka_unit_test(generation_self_option_excludes_the_centre_from_both_counts),
        cmocka_unit_test(smooth_counts_eight_neighbours_on_a_hand_worked_map),
        cmocka_unit_test(rule_counts_floor_in_the_3x3_block_on_a_hand_worked_map),
        cmocka_unit_test(one_by_one_maps_follow_each_rule),
        cmocka_unit_test(passes_read_only_the_previous_generation),
        cmocka_unit_test(generation_count_defaults_to_one),
        cmocka_unit_test(zero_passes_leave_the_map_unchanged),
        cmocka_unit_test(generation_matches_oracle_for_every_r1_r2),
        cmocka_unit_test(generation_without_self_matches_oracle_for_every_r1_r2),
        cmocka_unit_test(smooth_matches_oracle_for_every_threshold),
        cmocka_unit_test(rule_matches_oracle_for_every_floor_range),
        cmocka_unit_test(every_rule_matches_oracle_on_patterns),
        cmocka_unit_test(many_generations_match_oracle_on_big_maps),
        cmocka_unit_test_teardown(every_path_matches_oracle_for_every_r1_r2_on_wide_maps,
                                  path_teardown),
        cmocka_unit_test_teardown(every_path_matches_oracle_for_every_smooth_and_rule_on_wide_maps,
                                  path_teardown),
        cmocka_unit_test_teardown(every_path_matches_oracle_across_strips_and_on_short_maps,
                                  path_teardown),
        cmocka_unit_test_teardown(every_path_matches_oracle_on_narrow_maps, path_teardown),
        cmocka_unit_test_teardown(every_path_runs_all_passes_at_once_like_one_at_a_time,
                                  path_teardown),
        cmocka_unit_test_teardown(every_path_matches_oracle_on_patterns, path_teardown),
        cmocka_unit_test_teardown(kernel_path_hook_refuses_unknown_paths, path_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
