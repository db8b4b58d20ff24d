/* test_reach.c - reachable cells within M moves (the reachable-cells article, docs/reach.md):
 * the three search paths (bitboard levels, queue BFS, the wide search)
 * against a plain BFS over a byte-per-cell copy of the map, on many random
 * maps, budgets and starts; and the wide search against the queue BFS, its
 * twin, cell for cell on mazes, open rooms, checkerboards and thin maps. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#ifdef CG_HAVE_PNG /* else built without libpng: no PNG to read back */
#include <png.h>
#endif

#include "testutil.h"

#include "cells/par.h"
#include "core/grid.h"
#include "regions/reach.h"

/* cg__reach_force_path (src/regions/reach.c): -1 auto, else one of these. */
enum { PATH_QUEUE, PATH_BITBOARD, PATH_WIDE, PATH_COUNT };

#define UNREACHED UINT32_MAX

/* The oracle: textbook BFS, bounds-checked, byte per cell. blocked[i] marks
 * an occupied floor cell. Returns distances (UNREACHED where not reached). */
static uint32_t *oracle_reach(const uint8_t *wall, const uint8_t *blocked, int w, int h,
                              const cg_point *starts, size_t n, uint32_t moves)
{
    uint32_t *dist = malloc((size_t)w * (size_t)h * sizeof *dist);
    int *queue = malloc((size_t)w * (size_t)h * sizeof *queue);
    assert_non_null(dist);
    assert_non_null(queue);
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        dist[i] = UNREACHED;
    int head = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        int at = (int)starts[i].y * w + (int)starts[i].x;
        if (dist[at] == UNREACHED) {
            dist[at] = 0;
            queue[tail++] = at;
        }
    }
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    while (head < tail) {
        int at = queue[head++];
        if (dist[at] == moves)
            continue;
        int x = at % w, y = at / w;
        for (int k = 0; k < 4; k++) {
            int nx = x + dx[k], ny = y + dy[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                continue;
            int ni = ny * w + nx;
            if (wall[ni] || blocked[ni] || dist[ni] != UNREACHED)
                continue;
            dist[ni] = dist[at] + 1;
            queue[tail++] = ni;
        }
    }
    free(queue);
    return dist;
}

typedef struct map {
    int w, h;
    uint8_t *wall, *blocked;
    cg_grid *grid;
} map;

static map random_map(uint64_t *rng, int w, int h, double density, double blocked_density)
{
    map m = {w, h, tu_alloc_cells(w, h), tu_alloc_cells(w, h), NULL};
    tu_random_cells(m.wall, w, h, density, rng);
    m.grid = tu_grid_from_cells(m.wall, w, h);
    for (int i = 0; i < w * h; i++) {
        m.blocked[i] = !m.wall[i] && tu_unit(rng) < blocked_density;
        if (m.blocked[i])
            assert_int_equal(cg_grid_set_marker(m.grid, i % w, i / w, CG_MARK_BLOCKED), CG_OK);
    }
    return m;
}

static void map_free(map *m)
{
    free(m->wall);
    free(m->blocked);
    cg_grid_free(m->grid);
}

/* Up to n random floor starts; returns how many were found. The first is
 * a blocked cell when the map has one within the tries (a unit stands on
 * its own cell), the others any floor. */
static size_t random_starts(uint64_t *rng, const map *m, cg_point *starts, size_t n)
{
    size_t k = 0;
    for (int tries = 0; k < n && tries < 1000; tries++) {
        int x = tu_range(rng, 0, m->w - 1), y = tu_range(rng, 0, m->h - 1);
        int i = y * m->w + x;
        if (!m->wall[i] && (k > 0 || m->blocked[i] || tries >= 500))
            starts[k++] = (cg_point){(uint32_t)x, (uint32_t)y};
    }
    return k;
}

static void assert_reach_equals_oracle(map *m, const cg_point *starts, size_t n, uint32_t moves,
                                       int path)
{
    cg__reach_force_path(path);
    cg_diag d = {0};
    assert_int_equal(cg_grid_reach(m->grid, starts, n, moves, &d), CG_OK);
    cg__reach_force_path(-1);
    uint32_t *want = oracle_reach(m->wall, m->blocked, m->w, m->h, starts, n, moves);
    uint64_t count = 0;
    for (int y = 0; y < m->h; y++)
        for (int x = 0; x < m->w; x++) {
            uint32_t got = cg_grid_distance(m->grid, x, y), exp = want[y * m->w + x];
            count += exp != UNREACHED;
            if (got != exp)
                fail_msg("%dx%d, %zu starts, moves %u, path %d: (%d,%d) got %u want %u", m->w,
                         m->h, n, moves, path, x, y, got, exp);
        }
    assert_int_equal(cg_grid_reached_count(m->grid), count);
    /* The stored form: 0 in every cell not reached, the frame included. */
    const cg__reach *r = m->grid->reach;
    uint64_t stored = 0;
    for (size_t i = 0; i < r->stride * ((size_t)r->h + 2); i++)
        stored += cg__reach_dist(r, i) != UNREACHED;
    assert_int_equal(stored, count);
    free(want);
}

static void both_paths_match_plain_bfs_on_random_maps(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {1, 17}, {17, 1}, {2, 2}, {5, 5}, {63, 7},
                                   {64, 9}, {65, 3}, {127, 40}, {129, 33}, {200, 150}};
    static const uint32_t budgets[] = {0, 1, 2, 3, 6, 10, 40, 64, 65, 300, CG_MOVES_UNLIMITED};
    uint64_t rng = 404;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int trial = 0; trial < 6; trial++) {
            map m = random_map(&rng, sizes[s][0], sizes[s][1], 0.2 + 0.1 * trial, 0.03);
            cg_point starts[5];
            size_t n = random_starts(&rng, &m, starts, (size_t)1 + (size_t)trial % 5);
            if (n > 0)
                for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
                    for (int path = 0; path < PATH_COUNT; path++)
                        assert_reach_equals_oracle(&m, starts, n, budgets[b], path);
            map_free(&m);
        }
    }
}

static void automatic_choice_matches_plain_bfs(void **state)
{
    (void)state;
    uint64_t rng = 7;
    map m = random_map(&rng, 300, 200, 0.35, 0.01);
    cg_point starts[3];
    size_t n = random_starts(&rng, &m, starts, 3);
    assert_true(n > 0);
    static const uint32_t budgets[] = {0, 6, 64, 65, 1000, CG_MOVES_UNLIMITED};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
        assert_reach_equals_oracle(&m, starts, n, budgets[b], -1);
    map_free(&m);
}

/* The parallel loop the wide search is given (NULL: none), for the tests
 * of its two-thread form. */
static const cg__par *wide_par;

/* The wide search against the queue BFS it replaces for large budgets:
 * the same window, count, farthest distance and stored value in every cell
 * of the padded array, its frame included (distance + 1, 0 unreached). */
static void assert_wide_equals_queue(cg_grid *g, const cg_point *starts, size_t n, uint32_t moves)
{
    cg_diag d = {0};
    cg__reach_force_path(PATH_QUEUE);
    assert_int_equal(cg_grid_reach(g, starts, n, moves, &d), CG_OK);
    cg__reach *want;
    assert_int_equal(cg__reach_clone(&want, g->reach), CG_OK);
    cg__reach_force_path(PATH_WIDE);
    assert_int_equal(cg__grid_reach_par(g, starts, n, moves, wide_par, &d), CG_OK);
    cg__reach_force_path(-1);
    const cg__reach *got = g->reach;
    assert_int_equal(got->x0, want->x0);
    assert_int_equal(got->y0, want->y0);
    assert_int_equal(got->w, want->w);
    assert_int_equal(got->h, want->h);
    assert_int_equal(got->count, want->count);
    assert_int_equal(got->max_distance, want->max_distance);
    /* 16 bits while the distances fit, 32 past that (widened on the way). */
    assert_int_equal(got->d32 != NULL, got->max_distance > CG__REACH_D16_MAX);
    for (uint32_t y = 0; y < got->h + 2; y++)
        for (uint32_t x = 0; x < got->stride; x++) {
            size_t i = (size_t)y * got->stride + x;
            uint32_t a = cg__reach_dist(got, i), b = cg__reach_dist(want, i);
            if (a != b)
                fail_msg("%ux%u, %zu starts, moves %u: (%lld,%lld) got %u want %u",
                         cg_grid_width(g), cg_grid_height(g), n, moves, (long long)got->x0 + x - 1,
                         (long long)got->y0 + y - 1, a, b);
        }
    cg__reach_free(want);
}

/* Every budget 0..30, a few larger ones and none. */
static void assert_wide_equals_queue_for_budgets(cg_grid *g, const cg_point *starts, size_t n)
{
    static const uint32_t large[] = {31, 40, 64, 100, 1000, CG_MOVES_UNLIMITED};
    for (uint32_t moves = 0; moves <= 30; moves++)
        assert_wide_equals_queue(g, starts, n, moves);
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
        assert_wide_equals_queue(g, starts, n, large[i]);
}

/* Up to n floor starts of g, the first on a blocked cell if g has one
 * (found by scanning from a random cell). */
static size_t floor_starts(uint64_t *rng, const cg_grid *g, cg_point *starts, size_t n)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    uint64_t cells = (uint64_t)w * h, from = tu_next(rng) % cells;
    size_t k = 0;
    for (int want_blocked = 1; want_blocked >= 0 && k < n; want_blocked--)
        for (uint64_t i = 0; i < cells && k < n; i++) {
            uint64_t c = (from + i * 7919) % cells; /* 7919 prime: a scattered scan */
            uint32_t x = (uint32_t)(c % w), y = (uint32_t)(c / w);
            if (cg_grid_get(g, x, y) != CG_FLOOR)
                continue;
            int blocked = cg_grid_marker_symbol(g, x, y) == 'x';
            if (blocked == want_blocked) {
                starts[k++] = (cg_point){x, y};
                if (want_blocked)
                    break;
            }
        }
    return k;
}

static void wide_search_matches_queue_bfs_on_random_and_thin_maps(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1},   {1, 50},  {50, 1},  {1, 200}, {200, 1}, {63, 20},
                                   {64, 20}, {65, 20}, {131, 9}, {9, 131}, {66, 66}, {131, 70}};
    uint64_t rng = 2024;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int trial = 0; trial < 4; trial++) {
            map m = random_map(&rng, sizes[s][0], sizes[s][1], 0.15 * trial, 0.02 * trial);
            cg_point starts[4];
            size_t n = floor_starts(&rng, m.grid, starts, (size_t)1 + (size_t)trial);
            if (n > 0)
                assert_wide_equals_queue_for_budgets(m.grid, starts, n);
            map_free(&m);
        }
}

/* Open rooms (the frontier a diamond), checkerboards (every floor cell
 * alone), a single floor cell in walls: the shapes that break a search
 * which counts on a frontier's shape. */
static void wide_search_matches_queue_bfs_on_rooms_and_checkerboards(void **state)
{
    (void)state;
    static const int widths[] = {1, 2, 63, 64, 65, 131};
    uint64_t rng = 77;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
        for (int shape = 0; shape < 3; shape++) {
            int w = widths[i], h = 1 + tu_range(&rng, 0, 70);
            uint8_t *cells = tu_alloc_cells(w, h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    cells[y * w + x] = (uint8_t)(shape == 0   ? 0
                                                 : shape == 1 ? (x + y) % 2
                                                              : x || y);
            cg_grid *g = tu_grid_from_cells(cells, w, h);
            cg_point starts[3];
            size_t n = floor_starts(&rng, g, starts, 3);
            assert_true(n > 0);
            assert_wide_equals_queue_for_budgets(g, starts, n);
            if (shape == 0) { /* a blocked cell as the unit's own start */
                assert_int_equal(cg_grid_set_marker(g, starts[0].x, starts[0].y, CG_MARK_BLOCKED),
                                 CG_OK);
                assert_wide_equals_queue_for_budgets(g, starts, 1);
            }
            cg_grid_free(g);
            free(cells);
        }
}

/* Mazes: corridors one cell wide, so the search is thousands of levels
 * deep with a frontier of a few cells. */
static void wide_search_matches_queue_bfs_on_mazes(void **state)
{
    (void)state;
    static const char *const mazes[] = {"maze connected", "maze connected loops no-isolated"};
    static const uint32_t sizes[][2] = {{3, 3}, {63, 41}, {65, 65}, {131, 21}, {201, 151}};
    uint64_t rng = 5;
    for (size_t k = 0; k < 2; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            cg_grid *g = tu_run(mazes[k], s + 1, sizes[s][0], sizes[s][1], NULL);
            cg_point starts[2];
            size_t n = floor_starts(&rng, g, starts, 2);
            assert_true(n > 0);
            assert_wide_equals_queue_for_budgets(g, starts, 1);
            assert_wide_equals_queue_for_budgets(g, starts, n);
            /* Units standing in the corridors: blocked cells cut them. */
            for (int b = 0; b < 20; b++) {
                uint32_t x = (uint32_t)tu_range(&rng, 0, (int)sizes[s][0] - 1);
                uint32_t y = (uint32_t)tu_range(&rng, 0, (int)sizes[s][1] - 1);
                if (cg_grid_get(g, x, y) == CG_FLOOR && (x != starts[0].x || y != starts[0].y))
                    assert_int_equal(cg_grid_set_marker(g, x, y, CG_MARK_BLOCKED), CG_OK);
            }
            assert_wide_equals_queue_for_budgets(g, starts, 1);
            cg_grid_free(g);
        }
}

/* The two-thread search (one thread searches, one writes distances):
 * forced at every size, each map of the tests above again, through a loop
 * that runs the tasks one after the other in reverse order (the writer's
 * task first) and through real threads. */
static void two_thread_search_matches_queue_bfs(void **state)
{
    static const cg_parallel_fn loops[] = {tu_shuffled_for, tu_threads_for};
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        cg__par par = {loops[k], NULL};
        wide_par = &par;
        cg__reach_force_split(1);
        wide_search_matches_queue_bfs_on_random_and_thin_maps(state);
        wide_search_matches_queue_bfs_on_rooms_and_checkerboards(state);
        wide_search_matches_queue_bfs_on_mazes(state);
        cg__reach_force_split(0);
        wide_par = NULL;
    }
}

/* A window large enough for two threads without the hook: a cave and an
 * open room of 1100x1000, from one start and from three, through threads. */
static void two_thread_search_on_a_large_map(void **state)
{
    (void)state;
    cg__par par = {tu_threads_for, NULL};
    uint64_t rng = 11;
    for (int shape = 0; shape < 2; shape++) {
        cg_grid *g = shape == 0 ? tu_run("fill 45\ngenerations 5 r1=5 r2=-1", 3, 1100, 1000, NULL)
                                : tu_run("fill 0", 1, 1100, 1000, NULL);
        cg_point starts[3];
        size_t n = floor_starts(&rng, g, starts, 3);
        assert_true(n > 0);
        wide_par = &par;
        assert_wide_equals_queue(g, starts, 1, CG_MOVES_UNLIMITED);
        assert_wide_equals_queue(g, starts, n, CG_MOVES_UNLIMITED);
        assert_wide_equals_queue(g, starts, n, 700);
        wide_par = NULL;
        cg_grid_free(g);
    }
}

/* A serpentine corridor: the even rows open, each odd row a wall with one
 * gap, at the right end and the left end in turn - a single path through
 * every floor cell from (0, 0), w + 1 cells per pair of rows. */
static map serpentine(int w, int h)
{
    map m = {w, h, tu_alloc_cells(w, h), tu_alloc_cells(w, h), NULL};
    memset(m.blocked, 0, (size_t)w * (size_t)h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            m.wall[y * w + x] = (uint8_t)(y % 2 && x != (y % 4 == 1 ? w - 1 : 0));
    m.grid = tu_grid_from_cells(m.wall, w, h);
    return m;
}

/* Every path - queue BFS, bitboard levels, the wide search on one thread
 * and split over two (through both loops) - against the plain BFS. */
static void assert_every_path_equals_oracle(map *m, const cg_point *starts, size_t n,
                                            uint32_t moves)
{
    for (int path = 0; path < PATH_COUNT; path++)
        assert_reach_equals_oracle(m, starts, n, moves, path);
    static const cg_parallel_fn loops[] = {tu_shuffled_for, tu_threads_for};
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        cg__par par = {loops[k], NULL};
        wide_par = &par;
        cg__reach_force_split(1);
        assert_wide_equals_queue(m->grid, starts, n, moves);
        cg__reach_force_split(0);
        wide_par = NULL;
    }
    assert_wide_equals_queue(m->grid, starts, n, moves);
}

/* Distances past 65535, where the 16-bit array is widened to 32 bits: a
 * 600x600 serpentine (a path of 180,000 cells) from either end and from
 * both, under budgets on each side of the edge. */
static void distances_past_16_bits_widen_the_array(void **state)
{
    (void)state;
    map m = serpentine(600, 600);
    const cg_point ends[2] = {{0, 0}, {0, 598}};
    static const uint32_t budgets[] = {65534, 65535, 65536, 100000, CG_MOVES_UNLIMITED};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        assert_every_path_equals_oracle(&m, ends, 1, budgets[b]);
        assert_every_path_equals_oracle(&m, ends + 1, 1, budgets[b]);
    }
    assert_every_path_equals_oracle(&m, ends, 2, CG_MOVES_UNLIMITED);
    assert_int_equal(m.grid->reach->max_distance, 90149); /* 180298 / 2 */
    map_free(&m);
}

/* A path whose farthest cell is at 65534, 65535 or 65536 moves: the
 * serpentine cut by a wall at distance 65535, 65536 or 65537. */
static void distances_at_the_16_bit_edge(void **state)
{
    (void)state;
    const cg_point start = {0, 0};
    for (uint32_t far = CG__REACH_D16_MAX; far <= CG__REACH_D16_MAX + 2; far++) {
        map m = serpentine(400, 400);
        uint32_t *d = oracle_reach(m.wall, m.blocked, m.w, m.h, &start, 1, CG_MOVES_UNLIMITED);
        int cut = 0;
        while (d[cut] != far + 1)
            cut++;
        free(d);
        m.wall[cut] = 1;
        cg_grid_free(m.grid);
        m.grid = tu_grid_from_cells(m.wall, m.w, m.h);
        assert_every_path_equals_oracle(&m, &start, 1, CG_MOVES_UNLIMITED);
        assert_int_equal(m.grid->reach->max_distance, far);
        assert_every_path_equals_oracle(&m, &start, 1, far);
        assert_every_path_equals_oracle(&m, &start, 1, far - 1);
        map_free(&m);
    }
}

static void a_small_budget_stays_in_its_diamond(void **state)
{
    (void)state;
    /* An open 9x9 room: with 3 moves from the centre exactly the cells at
     * Manhattan distance <= 3 are reached, each at that distance. */
    cg_grid *g;
    assert_int_equal(cg_grid_new(&g, 9, 9), CG_OK);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++)
            cg_grid_set(g, x, y, CG_FLOOR);
    cg_point c = {4, 4};
    assert_int_equal(cg_grid_reach(g, &c, 1, 3, NULL), CG_OK);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++) {
            uint32_t md = (uint32_t)(abs(x - 4) + abs(y - 4));
            assert_int_equal(cg_grid_distance(g, x, y), md <= 3 ? md : UNREACHED);
        }
    assert_int_equal(cg_grid_reached_count(g), 25);
    cg_grid_free(g);
}

static void blocked_cells_and_walls_are_walked_around(void **state)
{
    (void)state;
    /* From (1,1) to (3,1): the direct cell (2,1) is blocked, so the way
     * round through row 2 takes 4 moves. */
    static const char *rows[] = {"#####", "#...#", "#...#", "#####"};
    cg_grid *g = tu_grid_from_rows(rows, 4);
    assert_int_equal(cg_grid_set_marker(g, 2, 1, CG_MARK_BLOCKED), CG_OK);
    cg_point s = {1, 1};
    assert_int_equal(cg_grid_reach(g, &s, 1, CG_MOVES_UNLIMITED, NULL), CG_OK);
    assert_int_equal(cg_grid_distance(g, 3, 1), 4);
    assert_int_equal(cg_grid_distance(g, 2, 1), UNREACHED);
    assert_int_equal(cg_grid_distance(g, 0, 0), UNREACHED);
    assert_int_equal(cg_grid_distance(g, 2, 2), 2);
    cg_grid_free(g);
}

static void starts_on_walls_or_outside_are_errors(void **state)
{
    (void)state;
    static const char *rows[] = {"#####", "#...#", "#####"};
    cg_grid *g = tu_grid_from_rows(rows, 3);
    assert_int_equal(cg_grid_set_marker(g, 3, 1, CG_MARK_BLOCKED), CG_OK);
    cg_diag d = {0};
    cg_point wall = {0, 0}, outside = {5, 1}, ok = {1, 1};
    assert_int_equal(cg_grid_reach(g, &wall, 1, 3, &d), CG_EINVAL);
    assert_non_null(strstr(d.message, "0,0 is a wall"));
    assert_int_equal(cg_grid_reach(g, &outside, 1, 3, &d), CG_EINVAL);
    assert_non_null(strstr(d.message, "outside"));
    assert_int_equal(cg_grid_reach(g, &ok, 0, 3, &d), CG_EINVAL);
    assert_int_equal(cg_grid_reached_count(g), 0);
    cg_grid_free(g);
}

static void a_unit_on_a_blocked_cell_starts_there_and_enters_no_other(void **state)
{
    (void)state;
    /* The unit stands on the x at (2,1); the x at (4,1) is another unit. */
    static const char *rows[] = {"#######", "#..x.x#", "#.###.#", "#######"};
    cg_grid *g = tu_grid_from_rows(rows, 4);
    assert_int_equal(cg_grid_set_marker(g, 3, 1, CG_MARK_BLOCKED), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 5, 1, CG_MARK_BLOCKED), CG_OK);
    for (int path = 0; path < PATH_COUNT; path++) {
        cg__reach_force_path(path);
        cg_point start = {3, 1};
        cg_diag d = {0};
        assert_int_equal(cg_grid_reach(g, &start, 1, CG_MOVES_UNLIMITED, &d), CG_OK);
        assert_int_equal(cg_grid_distance(g, 3, 1), 0);
        assert_int_equal(cg_grid_distance(g, 4, 1), 1);
        assert_int_equal(cg_grid_distance(g, 2, 1), 1);
        assert_int_equal(cg_grid_distance(g, 1, 2), 3);
        assert_int_equal(cg_grid_distance(g, 5, 1), UNREACHED); /* the other unit */
        assert_int_equal(cg_grid_distance(g, 5, 2), UNREACHED); /* only behind it */
        assert_int_equal(cg_grid_reached_count(g), 5);
        /* Two units on blocked cells: each starts on its own. */
        cg_point both[2] = {{3, 1}, {5, 1}};
        assert_int_equal(cg_grid_reach(g, both, 2, 1, &d), CG_OK);
        assert_int_equal(cg_grid_distance(g, 5, 1), 0);
        assert_int_equal(cg_grid_distance(g, 5, 2), 1);
        assert_int_equal(cg_grid_distance(g, 4, 1), 1);
        cg__reach_force_path(-1);
    }
    cg_grid_free(g);
}

static void changing_a_cell_drops_the_reach(void **state)
{
    (void)state;
    static const char *rows[] = {"....", "...."};
    cg_grid *g = tu_grid_from_rows(rows, 2);
    cg_point s = {0, 0};
    assert_int_equal(cg_grid_reach(g, &s, 1, 10, NULL), CG_OK);
    assert_int_equal(cg_grid_reached_count(g), 8);
    cg_grid *copy;
    assert_int_equal(cg_grid_clone(&copy, g), CG_OK);
    assert_int_equal(cg_grid_distance(copy, 3, 1), 4);
    cg_grid_set(g, 1, 0, CG_WALL);
    assert_int_equal(cg_grid_reached_count(g), 0);
    assert_int_equal(cg_grid_distance(g, 3, 1), UNREACHED);
    assert_int_equal(cg_grid_distance(copy, 3, 1), 4);
    cg_grid_free(copy);
    cg_grid_free(g);
}

static cg_grid *run_step(const char *map_text, const char *step, cg_status want, cg_diag *d)
{
    cg_grid *in, *out = NULL;
    assert_int_equal(cg_read_ascii(map_text, strlen(map_text), &in, d), CG_OK);
    cg_pipeline *p;
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    cg_status st = cg_pipeline_parse(p, step, strlen(step), d);
    if (st == CG_OK)
        st = tu_run_pipeline(p, 1, 0, 0, in, &out, d);
    assert_int_equal(st, want);
    cg_pipeline_free(p);
    cg_grid_free(in);
    return out;
}

static void reach_step_takes_starts_the_entrance_and_a_budget(void **state)
{
    (void)state;
    cg_diag d = {0};
    const char *map_text = "########\n"
                           "#<.....#\n"
                           "#.###x.#\n"
                           "#......#\n"
                           "########\n";
    cg_grid *g = run_step(map_text, "reach from=entrance moves=3", CG_OK, &d);
    assert_int_equal(cg_grid_distance(g, 1, 1), 0);
    assert_int_equal(cg_grid_distance(g, 4, 1), 3);
    assert_int_equal(cg_grid_distance(g, 5, 1), UNREACHED);
    assert_int_equal(cg_grid_reached_count(g), 7);
    cg_grid_free(g);

    g = run_step(map_text, "reach from=6,3;1,3", CG_OK, &d);
    assert_int_equal(cg_grid_distance(g, 6, 1), 2);
    assert_int_equal(cg_grid_distance(g, 1, 1), 2);
    assert_int_equal(cg_grid_distance(g, 3, 1), 4);
    assert_int_equal(cg_grid_distance(g, 5, 2), UNREACHED); /* blocked */
    cg_grid_free(g);

    assert_null(run_step(map_text, "reach from=0,0", CG_EINVAL, &d));
    assert_non_null(strstr(d.message, "wall"));
    assert_null(run_step("#.#\n", "reach from=entrance", CG_EINVAL, &d));
    assert_non_null(strstr(d.message, "no entrance"));
}

static void reach_step_reports_bad_arguments_with_columns(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int column;
    } cases[] = {
        {"reach", 1},
        {"reach moves=3", 1},
        {"reach from=1", 12},
        {"reach from=1,2;x,3", 16},
        {"reach from=1,2 moves=-1", 22},
        {"reach from=1,2 moves=lots", 22},
        {"reach from=1,2 speed=3", 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        tu_expect_parse_error(cases[i].line, cases[i].column, ""); /* any message */
}

static void ascii_overlays_distances_in_35_digits_then_plus(void **state)
{
    (void)state;
    /* A corridor 40 cells long: distances 0..9, a..z without x, then '+'.
     * The blocked cell and the cell behind it are never reached. */
    char rows[3][44];
    memset(rows, '#', sizeof rows);
    for (int x = 1; x < 42; x++)
        rows[1][x] = '.';
    rows[1][40] = 'x';
    char text[3 * 44 + 1];
    size_t n = 0;
    for (int y = 0; y < 3; y++) {
        memcpy(text + n, rows[y], 43);
        n += 43;
        text[n++] = '\n';
    }
    text[n] = '\0';
    cg_diag d = {0};
    cg_grid *g = run_step(text, "reach from=1,1", CG_OK, &d);
    char *ascii = tu_ascii(g);
    assert_memory_equal(ascii + 44, "#0123456789abcdefghijklmnopqrstuvwyz++++x.#\n", 44);
    free(ascii);
    cg_grid_free(g);
}

/* Every distance 0..n-1 along a corridor, read back: no overlay character is
 * a marker, and each reads as plain floor. */
static void no_distance_prints_as_a_marker(void **state)
{
    (void)state;
    enum { LEN = 80 };
    char text[3 * (LEN + 3) + 1];
    size_t n = 0;
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < LEN + 2; x++)
            text[n++] = y == 1 && x > 0 && x <= LEN ? '.' : '#';
        text[n++] = '\n';
    }
    text[n] = '\0';
    cg_diag d = {0};
    cg_grid *g = run_step(text, "reach from=1,1", CG_OK, &d);
    char *ascii = tu_ascii(g);
    for (int x = 1; x <= LEN; x++) {
        char c = ascii[(LEN + 3) + x];
        assert_null(strchr("#.<>*x", c));
        assert_false(c >= 'A' && c <= 'Z');
    }
    cg_grid *back;
    assert_int_equal(cg_read_ascii(ascii, strlen(ascii), &back, &d), CG_OK);
    cg_grid_clear_reach(g);
    char *plain = tu_ascii(g), *again = tu_ascii(back);
    assert_string_equal(again, plain);
    free(plain);
    free(again);
    free(ascii);
    cg_grid_free(back);
    cg_grid_free(g);
}

/* Markers stay on top of distances: an overlay piped back in is the map it
 * was made from, entrance, exit, points and blocked cells included. */
static void ascii_overlay_keeps_markers_and_reads_back(void **state)
{
    (void)state;
    static const char drawn[] = "##########\n"
                              "#<..*....#\n"
                              "#.##x###.#\n"
                              "#..*...>.#\n"
                              "##########\n";
    cg_diag d = {0};
    cg_grid *g = run_step(drawn, "reach from=entrance", CG_OK, &d);
    char *ascii = tu_ascii(g);
    assert_string_equal(ascii, "##########\n"
                               "#<12*4567#\n"
                               "#1##x###8#\n"
                               "#23*567>9#\n"
                               "##########\n");
    cg_grid *back;
    assert_int_equal(cg_read_ascii(ascii, strlen(ascii), &back, &d), CG_OK);
    char *again = tu_ascii(back);
    assert_string_equal(again, drawn);
    free(again);
    free(ascii);
    cg_grid_free(back);
    cg_grid_free(g);
}

static void distances_format_lists_reached_cells_in_scan_order(void **state)
{
    (void)state;
    cg_diag d = {0};
    cg_grid *g = run_step("#####\n#..x#\n#.#.#\n#####\n", "reach from=2,1 moves=5", CG_OK, &d);
    tu_buf b = {0};
    cg_write_options o = {.format = CG_FORMAT_DISTANCES, .scale = 0};
    assert_int_equal(cg_write(g, &o, tu_buf_write, &b, &d), CG_OK);
    assert_string_equal(b.data, "x,y,distance\n1,1,1\n2,1,0\n1,2,2\n");
    tu_buf_free(&b);
    cg_grid_clear_reach(g);
    assert_int_equal(cg_write(g, &o, tu_buf_write, &b, &d), CG_EINVAL);
    assert_non_null(strstr(d.message, "needs a reach"));
    tu_buf_free(&b);
    cg_grid_free(g);
}

#ifdef CG_HAVE_PNG
/* The map as RGB pixels at `scale`. */
static uint8_t *png_rgb(const cg_grid *g, uint32_t scale, uint32_t *width)
{
    cg_diag d = {0};
    tu_buf b = {0};
    cg_write_options o = {.format = CG_FORMAT_PNG, .scale = scale};
    assert_int_equal(cg_write(g, &o, tu_buf_write, &b, &d), CG_OK);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_memory(&img, b.data, b.len));
    assert_int_equal(img.width, cg_grid_width(g) * scale);
    assert_int_equal(img.height, cg_grid_height(g) * scale);
    img.format = PNG_FORMAT_RGB;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(px);
    assert_true(png_image_finish_read(&img, NULL, px, 0, NULL));
    tu_buf_free(&b);
    *width = img.width;
    return px;
}

static void png_ramp_runs_from_near_to_far(void **state)
{
    (void)state;
    cg_diag d = {0};
    cg_grid *g = run_step("######\n#....#\n######\n", "reach from=1,1", CG_OK, &d);
    uint32_t w;
    uint8_t *px = png_rgb(g, 2, &w);
    /* Row 1 of cells is pixel rows 2..3; cell x is pixels 2x..2x+1. Near is
     * yellow (253,231,37), far violet (68,1,84); walls keep the wall colour. */
    static const uint8_t near[3] = {253, 231, 37}, far[3] = {68, 1, 84}, wall[3] = {46, 40, 36};
    const uint8_t *row = px + 2 * w * 3;
    assert_memory_equal(row + 2 * 3, near, 3);
    assert_memory_equal(row + 8 * 3, far, 3);
    assert_memory_equal(row + 0, wall, 3);
    /* Each step farther is darker in green (the ramp's monotone channel). */
    for (int x = 1; x < 4; x++)
        assert_true(row[(2 * x + 2) * 3 + 1] < row[2 * x * 3 + 1]);
    free(px);
    cg_grid_free(g);
}

/* Markers stay on top of the ramp: the entrance's glyph (a green square,
 * black outline) is drawn over the distances around it, and the ramp goes
 * on beyond it. */
static void png_markers_stay_on_top_of_the_ramp(void **state)
{
    (void)state;
    cg_diag d = {0};
    cg_grid *g = run_step("############\n#<........>#\n############\n", "reach from=entrance", CG_OK,
                          &d);
    uint32_t w;
    uint8_t *px = png_rgb(g, 4, &w);
    static const uint8_t green[3] = {40, 175, 60}, red[3] = {205, 40, 40}, black[3] = {0, 0, 0};
    const uint8_t *mid = px + 6 * w * 3; /* pixel row 6: the middle of cell row 1 */
    assert_memory_equal(mid + 6 * 3, green, 3);  /* the entrance cell */
    assert_memory_equal(mid + 42 * 3, red, 3);   /* the exit cell, the farthest */
    assert_memory_equal(mid + 1 * 3, black, 3);  /* the entrance's outline */
    const uint8_t *c5 = mid + 22 * 3;            /* cell 5: distance 4, ramp */
    assert_memory_not_equal(c5, green, 3);
    assert_true(c5[0] < 253 && c5[2] > 37);
    free(px);
    cg_grid_free(g);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_paths_match_plain_bfs_on_random_maps),
        cmocka_unit_test(automatic_choice_matches_plain_bfs),
        cmocka_unit_test(wide_search_matches_queue_bfs_on_random_and_thin_maps),
        cmocka_unit_test(wide_search_matches_queue_bfs_on_rooms_and_checkerboards),
        cmocka_unit_test(wide_search_matches_queue_bfs_on_mazes),
        cmocka_unit_test(two_thread_search_matches_queue_bfs),
        cmocka_unit_test(two_thread_search_on_a_large_map),
        cmocka_unit_test(distances_past_16_bits_widen_the_array),
        cmocka_unit_test(distances_at_the_16_bit_edge),
        cmocka_unit_test(a_small_budget_stays_in_its_diamond),
        cmocka_unit_test(blocked_cells_and_walls_are_walked_around),
        cmocka_unit_test(starts_on_walls_or_outside_are_errors),
        cmocka_unit_test(a_unit_on_a_blocked_cell_starts_there_and_enters_no_other),
        cmocka_unit_test(changing_a_cell_drops_the_reach),
        cmocka_unit_test(reach_step_takes_starts_the_entrance_and_a_budget),
        cmocka_unit_test(reach_step_reports_bad_arguments_with_columns),
        cmocka_unit_test(ascii_overlays_distances_in_35_digits_then_plus),
        cmocka_unit_test(no_distance_prints_as_a_marker),
        cmocka_unit_test(ascii_overlay_keeps_markers_and_reads_back),
        cmocka_unit_test(distances_format_lists_reached_cells_in_scan_order),
#ifdef CG_HAVE_PNG
        cmocka_unit_test(png_ramp_runs_from_near_to_far),
        cmocka_unit_test(png_markers_stay_on_top_of_the_ramp),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
