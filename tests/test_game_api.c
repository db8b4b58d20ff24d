/* test_game_api.c - what a game asks of a finished map: the cells in one
 * copy (cg_grid_copy), the regions with labels (cg_grid_regions, against
 * the flood-fill oracle), the shortest path (cg_grid_path, against a plain
 * BFS) and a reach's distances without changing the map
 * (cg_grid_distances). Random maps of odd sizes; none of the calls may
 * change the map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h> /* after the four above, which it needs */

#include "grid_equal.h"
#include "region_oracle.h"
#include "testutil.h"

static const uint32_t sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {5, 3}, {63, 9}, {65, 17}, {130, 41}};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* A random map with a few markers of every kind. */
static cg_grid *random_map(uint32_t w, uint32_t h, uint64_t *rng, uint8_t **cells_out)
{
    uint8_t *cells = tu_alloc_cells((int)w, (int)h);
    tu_random_cells(cells, (int)w, (int)h, 0.4, rng);
    cg_grid *g = tu_grid_from_cells(cells, (int)w, (int)h);
    static const char syms[] = "<>*Cx";
    for (int k = 0; k < 5; k++) {
        uint32_t x = (uint32_t)(tu_next(rng) % w), y = (uint32_t)(tu_next(rng) % h);
        if (cells[(size_t)y * w + x])
            continue;
        if (syms[k] == '*' || syms[k] == 'C')
            assert_int_equal(cg_grid_set_point(g, x, y, syms[k], NULL), CG_OK);
        else
            assert_int_equal(cg_grid_set_marker(g, x, y,
                                                syms[k] == '<'   ? CG_MARK_ENTRANCE
                                                : syms[k] == '>' ? CG_MARK_EXIT
                                                                 : CG_MARK_BLOCKED),
                             CG_OK);
    }
    *cells_out = cells;
    return g;
}

static void copy_is_every_cell_at_once(void **state)
{
    (void)state;
    uint64_t rng = 11;
    for (size_t i = 0; i < NSIZES; i++) {
        uint32_t w = sizes[i][0], h = sizes[i][1];
        uint8_t *cells;
        cg_grid *g = random_map(w, h, &rng, &cells);
        size_t stride = w + 3;
        uint8_t *out = malloc(stride * h);
        memset(out, 0xAA, stride * h);
        assert_int_equal(cg_grid_copy(g, out, stride, CG_COPY_CELLS), CG_OK);
        for (uint32_t y = 0; y < h; y++) {
            for (uint32_t x = 0; x < w; x++)
                assert_int_equal(out[y * stride + x], cg_grid_get(g, x, y));
            for (size_t x = w; x < stride; x++)
                assert_int_equal(out[y * stride + x], 0xAA); /* past the width: untouched */
        }
        /* Symbols: the ASCII format without its line breaks. */
        tu_buf ascii = {0};
        assert_int_equal(cg_write(g, NULL, tu_buf_write, &ascii, NULL), CG_OK);
        assert_int_equal(cg_grid_copy(g, out, w, CG_COPY_SYMBOLS), CG_OK);
        for (uint32_t y = 0; y < h; y++)
            assert_memory_equal(out + (size_t)y * w, ascii.data + (size_t)y * (w + 1), w);
        free(ascii.data);
        assert_int_equal(cg_grid_copy(g, out, w - 1 + (w == 1), (cg_copy_mode)7), CG_EINVAL);
        if (w > 1)
            assert_int_equal(cg_grid_copy(g, out, w - 1, CG_COPY_CELLS), CG_EINVAL);
        free(out);
        free(cells);
        cg_grid_free(g);
    }
}

static void regions_match_the_flood_fill(void **state)
{
    (void)state;
    uint64_t rng = 12;
    for (size_t i = 0; i < NSIZES; i++)
        for (int rep = 0; rep < 4; rep++) {
            uint32_t w = sizes[i][0], h = sizes[i][1];
            uint8_t *cells;
            cg_grid *g = random_map(w, h, &rng, &cells);
            cg_grid *before = NULL;
            assert_int_equal(cg_grid_clone(&before, g), CG_OK);
            ro_regions want = ro_label(cells, (int)w, (int)h, 0);
            size_t count = 0;
            assert_int_equal(cg_grid_regions(g, NULL, 0, NULL, 0, &count, NULL),
                             want.n ? CG_EOVERFLOW : CG_OK);
            assert_int_equal(count, (size_t)want.n);
            cg_region *regions = calloc(count + 1, sizeof *regions);
            uint32_t *labels = malloc((size_t)w * h * sizeof *labels);
            assert_int_equal(cg_grid_regions(g, labels, w, regions, count + 1, &count, NULL),
                             CG_OK);
            for (size_t c = 0; c < (size_t)w * h; c++)
                assert_int_equal(labels[c], (uint32_t)want.lab[c]); /* same order: first cells */
            for (int r = 1; r <= want.n; r++) {
                const cg_region *got = &regions[r - 1];
                assert_int_equal(got->cells, (uint64_t)want.size[r]);
                uint32_t x0 = w, y0 = h, x1 = 0, y1 = 0, fx = w, fy = h;
                for (uint32_t y = 0; y < h; y++)
                    for (uint32_t x = 0; x < w; x++)
                        if (want.lab[(size_t)y * w + x] == r) {
                            x0 = x < x0 ? x : x0;
                            x1 = x > x1 ? x : x1;
                            y0 = y < y0 ? y : y0;
                            y1 = y > y1 ? y : y1;
                            if (fx == w) {
                                fx = x;
                                fy = y;
                            }
                        }
                assert_true(got->x0 == x0 && got->y0 == y0 && got->x1 == x1 && got->y1 == y1);
                assert_true(got->first.x == fx && got->first.y == fy);
            }
            assert_true(tu_grids_equal(g, before));
            cg_grid_free(before);
            ro_free(&want);
            free(regions);
            free(labels);
            free(cells);
            cg_grid_free(g);
        }
}

/* The fewest steps from (sx, sy) to every cell, as a unit moves: the plain
 * BFS over bytes, blocked cells entered by no one but the start. */
static int32_t *bfs(const cg_grid *g, uint32_t sx, uint32_t sy)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    int32_t *d = malloc((size_t)w * h * sizeof *d);
    uint32_t *q = malloc((size_t)w * h * sizeof *q);
    for (size_t c = 0; c < (size_t)w * h; c++)
        d[c] = -1;
    size_t head = 0, tail = 0;
    d[(size_t)sy * w + sx] = 0;
    q[tail++] = sy * w + sx;
    while (head < tail) {
        uint32_t c = q[head++], x = c % w, y = c / w;
        const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; k++) {
            int64_t nx = (int64_t)x + dx[k], ny = (int64_t)y + dy[k];
            if (cg_grid_get(g, nx, ny) != CG_FLOOR ||
                cg_grid_marker(g, nx, ny) == CG_MARK_BLOCKED || d[ny * w + nx] >= 0)
                continue;
            d[ny * w + nx] = d[c] + 1;
            q[tail++] = (uint32_t)(ny * w + nx);
        }
    }
    free(q);
    return d;
}

static void paths_are_shortest_and_leave_the_map_alone(void **state)
{
    (void)state;
    uint64_t rng = 13;
    for (size_t i = 0; i < NSIZES; i++)
        for (int rep = 0; rep < 6; rep++) {
            uint32_t w = sizes[i][0], h = sizes[i][1];
            uint8_t *cells;
            cg_grid *g = random_map(w, h, &rng, &cells);
            cg_grid *before = NULL;
            assert_int_equal(cg_grid_clone(&before, g), CG_OK);
            /* From a random floor cell to every floor cell. */
            uint32_t sx = 0, sy = 0;
            int found = 0;
            for (int t = 0; t < 50 && !found; t++) {
                sx = (uint32_t)(tu_next(&rng) % w);
                sy = (uint32_t)(tu_next(&rng) % h);
                found = !cells[(size_t)sy * w + sx];
            }
            if (!found) {
                cg_point p[1];
                size_t len = 9;
                assert_int_equal(
                    cg_grid_path(g, (cg_point){0, 0}, (cg_point){0, 0}, p, 1, &len, NULL),
                    cells[0] ? CG_EINVAL : CG_OK);
                goto next;
            }
            int32_t *want = bfs(g, sx, sy);
            cg_point *path = malloc((size_t)w * h * sizeof *path);
            uint32_t *dist = malloc((size_t)w * h * sizeof *dist);
            uint64_t reached = 0;
            cg_point from = {sx, sy};
            assert_int_equal(
                cg_grid_distances(g, &from, 1, CG_MOVES_UNLIMITED, dist, w, &reached, NULL), CG_OK);
            uint64_t n_want = 0;
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    int32_t d = want[(size_t)y * w + x];
                    n_want += d >= 0;
                    assert_int_equal(dist[(size_t)y * w + x], d >= 0 ? (uint32_t)d : CG_UNREACHED);
                    if (cells[(size_t)y * w + x])
                        continue;
                    size_t len = 0;
                    cg_status st =
                        cg_grid_path(g, from, (cg_point){x, y}, path, (size_t)w * h, &len, NULL);
                    if (d < 0) {
                        /* Unreachable, or a blocked cell nobody may enter. */
                        assert_int_equal(st, CG_OK);
                        assert_int_equal(len, 0);
                        continue;
                    }
                    assert_int_equal(st, CG_OK);
                    assert_int_equal(len, (size_t)d + 1);
                    assert_true(path[0].x == sx && path[0].y == sy);
                    assert_true(path[len - 1].x == x && path[len - 1].y == y);
                    for (size_t k = 1; k < len; k++) {
                        uint32_t ax = path[k - 1].x, ay = path[k - 1].y, bx = path[k].x,
                                 by = path[k].y;
                        assert_int_equal(
                            (ax > bx ? ax - bx : bx - ax) + (ay > by ? ay - by : by - ay), 1);
                        assert_int_equal(cg_grid_get(g, bx, by), CG_FLOOR);
                        assert_int_not_equal(cg_grid_marker(g, bx, by), CG_MARK_BLOCKED);
                    }
                    if (len > 1) { /* too little room: the points needed */
                        size_t need = 0;
                        assert_int_equal(
                            cg_grid_path(g, from, (cg_point){x, y}, path, len - 1, &need, NULL),
                            CG_EOVERFLOW);
                        assert_int_equal(need, len);
                    }
                }
            assert_int_equal(reached, n_want);
            assert_true(tu_grids_equal(g, before));
            assert_int_equal(cg_grid_reached_count(g), 0); /* nothing attached */
            free(want);
            free(path);
            free(dist);
        next:
            cg_grid_free(before);
            free(cells);
            cg_grid_free(g);
        }
}

/* The level's path from entrance to exit is as long as --stats says. */
static void the_level_path_is_its_path_length(void **state)
{
    (void)state;
    size_t len;
    const char *level = cg_preset_builtin("level", &len);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        cg_grid *g = tu_run(level, seed, 0, 0, NULL);
        cg_stats s;
        assert_int_equal(cg_grid_stats(g, NULL, &s, NULL), CG_OK);
        cg_point a = {0, 0}, b = {0, 0};
        for (size_t i = 0; i < cg_grid_marker_count(g); i++) {
            uint32_t x, y;
            cg_marker k;
            assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
            if (k == CG_MARK_ENTRANCE)
                a = (cg_point){x, y};
            if (k == CG_MARK_EXIT)
                b = (cg_point){x, y};
        }
        cg_point path[4000];
        size_t n = 0;
        assert_int_equal(cg_grid_path(g, a, b, path, 4000, &n, NULL), CG_OK);
        assert_int_equal((int64_t)n - 1, s.path_length);
        cg_grid_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_is_every_cell_at_once),
        cmocka_unit_test(regions_match_the_flood_fill),
        cmocka_unit_test(paths_are_shortest_and_leave_the_map_alone),
        cmocka_unit_test(the_level_path_is_its_path_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
