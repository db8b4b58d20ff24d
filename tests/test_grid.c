/* test_grid.c - cg_grid: allocation limits, cell access in and out of bounds,
 * markers, deep copies, floor counts and size arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/grid.h"
#include "testutil.h"

/* Sizes across the 64-cell word boundaries of the bitboard. */
static const uint32_t odd_sizes[][2] = {
    {1, 1},  {1, 7},   {7, 1},  {2, 2},   {3, 3},  {63, 5},  {64, 5},   {65, 5},
    {127, 3}, {128, 2}, {129, 4}, {200, 3}, {1, 130}, {130, 1}, {5, 200}, {191, 7},
};
#define N_ODD_SIZES (sizeof odd_sizes / sizeof odd_sizes[0])

static void new_grid_is_all_wall_without_markers(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ODD_SIZES; i++) {
        uint32_t w = odd_sizes[i][0], h = odd_sizes[i][1];
        cg_grid *g = NULL;
        assert_int_equal(cg_grid_new(&g, w, h), CG_OK);
        assert_non_null(g);
        assert_int_equal(cg_grid_width(g), w);
        assert_int_equal(cg_grid_height(g), h);
        for (uint32_t y = 0; y < h; y++) {
            for (uint32_t x = 0; x < w; x++) {
                assert_int_equal(cg_grid_get(g, x, y), CG_WALL);
                assert_int_equal(cg_grid_marker(g, x, y), CG_MARK_NONE);
            }
        }
        assert_int_equal(cg_grid_floor_count(g), 0);
        cg_grid_free(g);
    }
}

static void new_grid_rejects_zero_and_oversized_dimensions(void **state)
{
    (void)state;
    const uint32_t bad[][2] = {
        {0, 0}, {0, 1}, {1, 0}, {0, 50}, {CG_MAX_DIM + 1, 1}, {1, CG_MAX_DIM + 1},
        {UINT32_MAX, 1}, {1, UINT32_MAX}, {UINT32_MAX, UINT32_MAX},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cg_grid *g = (cg_grid *)&g; /* must be reset to NULL on failure */
        assert_int_equal(cg_grid_new(&g, bad[i][0], bad[i][1]), CG_EINVAL);
        assert_null(g);
    }
}

static void new_grid_accepts_the_largest_width_and_height(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, CG_MAX_DIM, 1), CG_OK);
    assert_int_equal(cg_grid_width(g), CG_MAX_DIM);
    cg_grid_set(g, CG_MAX_DIM - 1, 0, CG_FLOOR);
    assert_int_equal(cg_grid_get(g, CG_MAX_DIM - 1, 0), CG_FLOOR);
    assert_int_equal(cg_grid_get(g, CG_MAX_DIM - 2, 0), CG_WALL);
    assert_int_equal(cg_grid_get(g, CG_MAX_DIM, 0), CG_WALL);
    assert_int_equal(cg_grid_floor_count(g), 1);
    cg_grid_free(g);

    g = NULL;
    assert_int_equal(cg_grid_new(&g, 1, CG_MAX_DIM), CG_OK);
    assert_int_equal(cg_grid_height(g), CG_MAX_DIM);
    cg_grid_set(g, 0, CG_MAX_DIM - 1, CG_FLOOR);
    assert_int_equal(cg_grid_get(g, 0, CG_MAX_DIM - 1), CG_FLOOR);
    assert_int_equal(cg_grid_get(g, 0, CG_MAX_DIM), CG_WALL);
    assert_int_equal(cg_grid_floor_count(g), 1);
    cg_grid_free(g);
}

static void get_outside_the_grid_reads_wall(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ODD_SIZES; i++) {
        int64_t w = odd_sizes[i][0], h = odd_sizes[i][1];
        cg_grid *g = NULL;
        assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)h), CG_OK);
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                cg_grid_set(g, x, y, CG_FLOOR);
        assert_int_equal(cg_grid_floor_count(g), (uint64_t)(w * h));
        const int64_t probes[][2] = {
            {-1, 0},    {0, -1},    {-1, -1},  {w, 0},         {0, h},     {w, h},
            {w + 1, 0}, {w + 64, 0}, {-64, 0}, {0, h + 2},     {0, -3},    {w - 1, h},
            {w, h - 1}, {INT64_MIN, 0}, {0, INT64_MIN}, {INT64_MAX, 0}, {0, INT64_MAX},
            {(int64_t)UINT32_MAX + 1, 0}, {0, (int64_t)UINT32_MAX + 1},
        };
        for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
            assert_int_equal(cg_grid_get(g, probes[k][0], probes[k][1]), CG_WALL);
            assert_int_equal(cg_grid_marker(g, probes[k][0], probes[k][1]), CG_MARK_NONE);
        }
        cg_grid_free(g);
    }
}

static void set_outside_the_grid_is_ignored(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ODD_SIZES; i++) {
        int64_t w = odd_sizes[i][0], h = odd_sizes[i][1];
        cg_grid *g = NULL;
        assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)h), CG_OK);
        const int64_t probes[][2] = {
            {-1, 0}, {0, -1}, {w, 0}, {0, h}, {w, h}, {w + 1, h - 1}, {-1, h - 1},
            {w - 1, -1}, {w - 1, h}, {w + 63, 0}, {INT64_MIN, INT64_MIN}, {INT64_MAX, 0},
            {(int64_t)UINT32_MAX, 0}, {0, (int64_t)UINT32_MAX},
        };
        for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
            cg_grid_set(g, probes[k][0], probes[k][1], CG_FLOOR);
            assert_int_equal(cg_grid_get(g, probes[k][0], probes[k][1]), CG_WALL);
        }
        /* Nothing inside changed either (no wrap-around into the next row). */
        assert_int_equal(cg_grid_floor_count(g), 0);
        cg_grid_free(g);
    }
}

static void set_and_get_agree_on_every_cell_of_odd_sizes(void **state)
{
    (void)state;
    uint64_t rng = 1;
    for (size_t i = 0; i < N_ODD_SIZES; i++) {
        int w = (int)odd_sizes[i][0], h = (int)odd_sizes[i][1];
        uint8_t *cells = tu_alloc_cells(w, h);
        tu_random_cells(cells, w, h, 0.5, &rng);
        cg_grid *g = tu_grid_from_cells(cells, w, h);
        tu_assert_grid_equals(g, cells, w, h, "set/get");
        uint64_t floors = 0;
        for (size_t k = 0; k < (size_t)w * (size_t)h; k++)
            floors += cells[k] ? 0 : 1;
        assert_int_equal(cg_grid_floor_count(g), floors);
        /* Flip every cell back and forth. */
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                cg_grid_set(g, x, y, cells[(size_t)y * (size_t)w + (size_t)x] ? CG_FLOOR : CG_WALL);
        assert_int_equal(cg_grid_floor_count(g), (uint64_t)w * (uint64_t)h - floors);
        free(cells);
        cg_grid_free(g);
    }
}

static void floor_count_counts_floor_cells(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 129, 3), CG_OK);
    assert_int_equal(cg_grid_floor_count(g), 0);
    cg_grid_set(g, 0, 0, CG_FLOOR);
    cg_grid_set(g, 63, 1, CG_FLOOR);
    cg_grid_set(g, 64, 1, CG_FLOOR);
    cg_grid_set(g, 128, 2, CG_FLOOR);
    assert_int_equal(cg_grid_floor_count(g), 4);
    cg_grid_set(g, 128, 2, CG_FLOOR); /* setting floor twice counts once */
    assert_int_equal(cg_grid_floor_count(g), 4);
    cg_grid_set(g, 63, 1, CG_WALL);
    assert_int_equal(cg_grid_floor_count(g), 3);
    cg_grid_free(g);
}

static void markers_sit_only_on_floor(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 65, 3), CG_OK);
    const cg_marker kinds[] = {CG_MARK_ENTRANCE, CG_MARK_EXIT, CG_MARK_POI, CG_MARK_BLOCKED};
    for (size_t k = 0; k < 4; k++) {
        assert_int_equal(cg_grid_set_marker(g, (int64_t)k, 1, kinds[k]), CG_EINVAL);
        assert_int_equal(cg_grid_marker(g, (int64_t)k, 1), CG_MARK_NONE);
    }
    for (size_t k = 0; k < 4; k++) {
        int64_t x = 60 + (int64_t)k; /* across the word boundary */
        cg_grid_set(g, x, 1, CG_FLOOR);
        assert_int_equal(cg_grid_set_marker(g, x, 1, kinds[k]), CG_OK);
        assert_int_equal(cg_grid_marker(g, x, 1), kinds[k]);
        assert_int_equal(cg_grid_get(g, x, 1), CG_FLOOR); /* a marked cell is still floor */
    }
    assert_int_equal(cg_grid_floor_count(g), 4);
    /* Neighbours are unaffected. */
    assert_int_equal(cg_grid_marker(g, 59, 1), CG_MARK_NONE);
    assert_int_equal(cg_grid_marker(g, 64, 1), CG_MARK_NONE);
    assert_int_equal(cg_grid_marker(g, 60, 0), CG_MARK_NONE);
    assert_int_equal(cg_grid_marker(g, 60, 2), CG_MARK_NONE);
    cg_grid_free(g);
}

static void marker_outside_the_grid_is_rejected(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 3, 3), CG_OK);
    cg_grid_set(g, 2, 2, CG_FLOOR);
    /* Outside cells are walls, and markers only sit on floor. */
    assert_int_equal(cg_grid_set_marker(g, 3, 2, CG_MARK_POI), CG_EINVAL);
    assert_int_equal(cg_grid_set_marker(g, -1, 0, CG_MARK_POI), CG_EINVAL);
    assert_int_equal(cg_grid_set_marker(g, 0, INT64_MAX, CG_MARK_POI), CG_EINVAL);
    assert_int_equal(cg_grid_marker(g, 3, 2), CG_MARK_NONE);
    cg_grid_free(g);
}

static void marker_of_unknown_kind_is_rejected(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 3, 3), CG_OK);
    cg_grid_set(g, 1, 1, CG_FLOOR);
    assert_int_equal(cg_grid_set_marker(g, 1, 1, (cg_marker)(CG_MARK_BLOCKED + 1)), CG_EINVAL);
    assert_int_equal(cg_grid_set_marker(g, 1, 1, (cg_marker)-1), CG_EINVAL);
    assert_int_equal(cg_grid_marker(g, 1, 1), CG_MARK_NONE);
    cg_grid_free(g);
}

static void setting_a_marked_cell_to_wall_removes_its_marker(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 70, 4), CG_OK);
    cg_grid_set(g, 5, 1, CG_FLOOR);
    cg_grid_set(g, 66, 2, CG_FLOOR);
    assert_int_equal(cg_grid_set_marker(g, 5, 1, CG_MARK_EXIT), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 66, 2, CG_MARK_BLOCKED), CG_OK);
    cg_grid_set(g, 5, 1, CG_FLOOR); /* floor again: marker stays */
    assert_int_equal(cg_grid_marker(g, 5, 1), CG_MARK_EXIT);
    cg_grid_set(g, 5, 1, CG_WALL);
    assert_int_equal(cg_grid_marker(g, 5, 1), CG_MARK_NONE);
    cg_grid_set(g, 5, 1, CG_FLOOR); /* it does not come back */
    assert_int_equal(cg_grid_marker(g, 5, 1), CG_MARK_NONE);
    assert_int_equal(cg_grid_marker(g, 66, 2), CG_MARK_BLOCKED);
    cg_grid_free(g);
}

static void setting_marker_none_removes_a_marker(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 4, 4), CG_OK);
    cg_grid_set(g, 1, 1, CG_FLOOR);
    cg_grid_set(g, 2, 1, CG_FLOOR);
    assert_int_equal(cg_grid_set_marker(g, 1, 1, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 2, 1, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 1, 1, CG_MARK_NONE), CG_OK);
    assert_int_equal(cg_grid_marker(g, 1, 1), CG_MARK_NONE);
    assert_int_equal(cg_grid_marker(g, 2, 1), CG_MARK_ENTRANCE);
    assert_int_equal(cg_grid_get(g, 1, 1), CG_FLOOR);
    /* At most one marker per cell: a new one replaces the old one. */
    assert_int_equal(cg_grid_set_marker(g, 2, 1, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_marker(g, 2, 1), CG_MARK_POI);
    cg_grid_free(g);
}

static void many_markers_in_any_order_are_all_kept(void **state)
{
    (void)state;
    int w = 67, h = 9;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)h), CG_OK);
    cg_marker *want = calloc((size_t)w * (size_t)h, sizeof *want);
    assert_non_null(want);
    uint64_t rng = 99;
    for (int k = 0; k < 400; k++) {
        int x = tu_range(&rng, 0, w - 1), y = tu_range(&rng, 0, h - 1);
        cg_marker m = (cg_marker)tu_range(&rng, 0, 4);
        cg_grid_set(g, x, y, CG_FLOOR);
        assert_int_equal(cg_grid_set_marker(g, x, y, m), CG_OK);
        want[y * w + x] = m;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            assert_int_equal(cg_grid_marker(g, x, y), want[y * w + x]);
    free(want);
    cg_grid_free(g);
}

static void clone_is_a_deep_copy(void **state)
{
    (void)state;
    uint64_t rng = 7;
    int w = 129, h = 5;
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.5, &rng);
    cells[2 * w + 64] = 0;
    cells[3 * w + 1] = 0;
    cg_grid *a = tu_grid_from_cells(cells, w, h);
    assert_int_equal(cg_grid_set_marker(a, 64, 2, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(a, 1, 3, CG_MARK_POI), CG_OK);

    cg_grid *b = NULL;
    assert_int_equal(cg_grid_clone(&b, a), CG_OK);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    assert_true(tu_grids_equal(a, b));

    /* Changing the copy leaves the original alone, and the other way round. */
    cg_grid_set(b, 64, 2, CG_WALL);
    cg_grid_set(b, 0, 0, cells[0] ? CG_FLOOR : CG_WALL);
    assert_int_equal(cg_grid_set_marker(b, 1, 3, CG_MARK_EXIT), CG_OK);
    tu_assert_grid_equals(a, cells, w, h, "original after changing the clone");
    assert_int_equal(cg_grid_marker(a, 64, 2), CG_MARK_ENTRANCE);
    assert_int_equal(cg_grid_marker(a, 1, 3), CG_MARK_POI);

    cg_grid_free(a);
    /* The clone outlives the original. */
    assert_int_equal(cg_grid_marker(b, 1, 3), CG_MARK_EXIT);
    assert_int_equal(cg_grid_get(b, 64, 2), CG_WALL);
    cg_grid_free(b);
    free(cells);
}

static void clone_of_odd_sizes_matches(void **state)
{
    (void)state;
    uint64_t rng = 3;
    for (size_t i = 0; i < N_ODD_SIZES; i++) {
        int w = (int)odd_sizes[i][0], h = (int)odd_sizes[i][1];
        uint8_t *cells = tu_alloc_cells(w, h);
        tu_random_cells(cells, w, h, 0.4, &rng);
        cg_grid *a = tu_grid_from_cells(cells, w, h), *b = NULL;
        assert_int_equal(cg_grid_clone(&b, a), CG_OK);
        tu_assert_grid_equals(b, cells, w, h, "clone");
        assert_int_equal(cg_grid_floor_count(b), cg_grid_floor_count(a));
        cg_grid_free(a);
        cg_grid_free(b);
        free(cells);
    }
}

static void free_accepts_null(void **state)
{
    (void)state;
    cg_grid_free(NULL);
}

static void grid_bytes_covers_one_bit_per_cell(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ODD_SIZES; i++) {
        uint32_t w = odd_sizes[i][0], h = odd_sizes[i][1];
        uint64_t bytes = 0;
        assert_int_equal(cg_grid_bytes(w, h, &bytes), CG_OK);
        assert_true(bytes >= ((uint64_t)w * h + 7) / 8);
    }
    uint64_t small = 0, big = 0;
    assert_int_equal(cg_grid_bytes(64, 64, &small), CG_OK);
    assert_int_equal(cg_grid_bytes(4096, 4096, &big), CG_OK);
    assert_true(big >= UINT64_C(4096) * 4096 / 8);
    assert_true(big > small);
}

static void grid_bytes_of_the_largest_size_does_not_wrap(void **state)
{
    (void)state;
    const uint32_t sizes[][2] = {
        {CG_MAX_DIM, CG_MAX_DIM}, {CG_MAX_DIM, 1}, {1, CG_MAX_DIM}, {CG_MAX_DIM, 65537},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t bytes = 0;
        cg_status st = cg_grid_bytes(sizes[i][0], sizes[i][1], &bytes);
        if (st == CG_OK)
            assert_true(bytes >= ((uint64_t)sizes[i][0] * sizes[i][1] + 7) / 8);
        else
            assert_int_equal(st, CG_EOVERFLOW);
    }
    /* 2^40 cells need at least 2^37 bytes: a wrapped result would be tiny. */
    uint64_t bytes = 0;
    cg_status st = cg_grid_bytes(CG_MAX_DIM, CG_MAX_DIM, &bytes);
    if (st == CG_OK)
        assert_true(bytes >= UINT64_C(1) << 37);
}

static void grid_bytes_rejects_out_of_range_sizes(void **state)
{
    (void)state;
    uint64_t bytes = 0;
    cg_status st = cg_grid_bytes(UINT32_MAX, UINT32_MAX, &bytes);
    assert_true(st == CG_EINVAL || st == CG_EOVERFLOW);
    st = cg_grid_bytes(CG_MAX_DIM + 1, 1, &bytes);
    assert_true(st == CG_EINVAL || st == CG_EOVERFLOW);
}

static void strerror_describes_every_status(void **state)
{
    (void)state;
    for (int s = CG_OK; s <= CG_EUNSUPPORTED; s++) {
        const char *msg = cg_strerror((cg_status)s);
        assert_non_null(msg);
        assert_true(strlen(msg) > 0);
    }
    assert_non_null(cg_strerror((cg_status)1000));
}

/* A grid from cg__grid_new_unset walled in stripes (as a big map's first
 * touch is spread over threads) is cg_grid_new's word for word, frame and
 * padding rows included, for every cut into 1..5 stripes. */
static void unset_grid_walled_in_stripes_is_new_grids(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1},   {63, 4}, {64, 5}, {65, 7},
                                        {131, 9}, {1, 40}, {200, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t w = sizes[i][0], h = sizes[i][1];
        cg_grid *ref = NULL;
        assert_int_equal(cg_grid_new(&ref, w, h), CG_OK);
        size_t bytes = ref->stride * ((size_t)h + 2 * CG__PAD) * sizeof(uint64_t);
        for (uint32_t n = 1; n <= 5 && n <= h; n++) {
            cg_grid *g = NULL;
            assert_int_equal(cg__grid_new_unset(&g, w, h), CG_OK);
            memset(g->mem, 0x5a, bytes); /* whatever the memory held */
            for (uint32_t k = n; k-- > 0;) /* any order */
                cg__grid_wall_rows(g, (uint32_t)((uint64_t)h * k / n),
                                   (uint32_t)((uint64_t)h * (k + 1) / n));
            assert_int_equal(g->stride, ref->stride);
            assert_memory_equal(g->mem, ref->mem, bytes);
            cg_grid_free(g);
        }
        cg_grid_free(ref);
    }
    cg_grid *g = NULL;
    assert_int_equal(cg__grid_new_unset(&g, 0, 5), CG_EINVAL);
    assert_null(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(new_grid_is_all_wall_without_markers),
        cmocka_unit_test(unset_grid_walled_in_stripes_is_new_grids),
        cmocka_unit_test(new_grid_rejects_zero_and_oversized_dimensions),
        cmocka_unit_test(new_grid_accepts_the_largest_width_and_height),
        cmocka_unit_test(get_outside_the_grid_reads_wall),
        cmocka_unit_test(set_outside_the_grid_is_ignored),
        cmocka_unit_test(set_and_get_agree_on_every_cell_of_odd_sizes),
        cmocka_unit_test(floor_count_counts_floor_cells),
        cmocka_unit_test(markers_sit_only_on_floor),
        cmocka_unit_test(marker_outside_the_grid_is_rejected),
        cmocka_unit_test(marker_of_unknown_kind_is_rejected),
        cmocka_unit_test(setting_a_marked_cell_to_wall_removes_its_marker),
        cmocka_unit_test(setting_marker_none_removes_a_marker),
        cmocka_unit_test(many_markers_in_any_order_are_all_kept),
        cmocka_unit_test(clone_is_a_deep_copy),
        cmocka_unit_test(clone_of_odd_sizes_matches),
        cmocka_unit_test(free_accepts_null),
        cmocka_unit_test(grid_bytes_covers_one_bit_per_cell),
        cmocka_unit_test(grid_bytes_of_the_largest_size_does_not_wrap),
        cmocka_unit_test(grid_bytes_rejects_out_of_range_sizes),
        cmocka_unit_test(strerror_describes_every_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
