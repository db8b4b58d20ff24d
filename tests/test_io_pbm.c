/* test_io_pbm.c - cg_write(CG_FORMAT_PBM): a P4 header of the scaled size,
 * rows packed first pixel in the high bit with zero padding, each cell a
 * scale x scale block of black (wall) or white (floor); netpbm's own tools
 * accept the file and read the same pixels back. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include "testutil.h"
#include "tools.h"

static tu_buf write_pbm(const cg_grid *g, uint32_t scale)
{
    tu_buf b = {0};
    cg_write_options opt = {.format = CG_FORMAT_PBM, .scale = scale};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &diag), CG_OK);
    return b;
}

/* Checks a P4 image against g at the given scale, bit by bit, padding
 * included. */
static void assert_pbm_is(const tu_buf *b, const cg_grid *g, uint32_t scale)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    char header[64];
    int n = snprintf(header, sizeof header, "P4\n%u %u\n", w * scale, h * scale);
    assert_true(b->len >= (size_t)n);
    assert_memory_equal(b->data, header, (size_t)n);
    size_t rowbytes = ((size_t)w * scale + 7) / 8;
    assert_int_equal(b->len, (size_t)n + rowbytes * h * scale);
    const uint8_t *px = (const uint8_t *)b->data + n;
    for (uint32_t py = 0; py < h * scale; py++) {
        for (size_t bit = 0; bit < rowbytes * 8; bit++) {
            int got = (px[py * rowbytes + bit / 8] >> (7 - bit % 8)) & 1;
            int want = bit < (size_t)w * scale &&
                       cg_grid_get(g, (int64_t)(bit / scale), py / scale) == CG_WALL;
            if (got != want) {
                print_error("%ux%u scale %u: pixel (%zu,%u) is %d, want %d\n", w, h, scale, bit, py,
                            got, want);
                fail();
            }
        }
    }
}

static void pixels_match_cells_for_odd_sizes_and_scales(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1},  {1, 7},  {7, 1},  {8, 2},  {9, 3},
                                        {63, 2}, {64, 3}, {65, 4}, {130, 5}};
    static const uint32_t scales[] = {1, 2, 3, 5, 8, 13};
    uint64_t rng = 5;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t *cells = tu_alloc_cells((int)sizes[i][0], (int)sizes[i][1]);
        tu_random_cells(cells, (int)sizes[i][0], (int)sizes[i][1], 0.5, &rng);
        cg_grid *g = tu_grid_from_cells(cells, (int)sizes[i][0], (int)sizes[i][1]);
        for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
            tu_buf b = write_pbm(g, scales[k]);
            assert_pbm_is(&b, g, scales[k]);
            tu_buf_free(&b);
        }
        cg_grid_free(g);
        free(cells);
    }
}

static void markers_are_floor_and_scale_zero_means_four(void **state)
{
    (void)state;
    const char map[] = "#<#\n>*x\n...\n";
    cg_grid *g;
    cg_diag diag = {0};
    assert_int_equal(cg_read_ascii(map, strlen(map), &g, &diag), CG_OK);
    tu_buf b = write_pbm(g, 0);
    assert_pbm_is(&b, g, 4);
    tu_buf_free(&b);
    cg_grid_free(g);
}

static void netpbm_reads_the_same_pixels(void **state)
{
    (void)state;
    TT_REQUIRE("pnmfile");
    TT_REQUIRE("pnmtoplainpnm");
    char dir[256], path[300], cmd[700];
    tu_mkdtemp(dir, sizeof dir);
    cg_grid *g = tu_run("fill 45\ngenerations 5 r1=5 r2=-1", 7, 77, 19, NULL);
    for (uint32_t scale = 1; scale <= 3; scale++) {
        tu_buf b = write_pbm(g, scale);
        snprintf(path, sizeof path, "%s/m%u.pbm", dir, scale);
        tu_write_file(path, b.data, b.len);
        tu_buf_free(&b);

        snprintf(cmd, sizeof cmd, "pnmfile '%s'", path);
        char *info = tt_run_ok(cmd);
        char want[128];
        snprintf(want, sizeof want, "PBM raw, %u by %u", 77 * scale, 19 * scale);
        if (!strstr(info, want)) {
            print_error("pnmfile says: %s (want \"%s\")\n", info, want);
            fail();
        }
        free(info);

        /* The plain (P1) form: a header, then 0/1 per pixel, 1 = black. */
        snprintf(cmd, sizeof cmd, "pnmtoplainpnm '%s'", path);
        char *plain = tt_run_ok(cmd);
        unsigned pw = 0, ph = 0;
        int used = 0;
        assert_int_equal(sscanf(plain, "P1 %u %u%n", &pw, &ph, &used), 2);
        assert_int_equal(pw, 77 * scale);
        assert_int_equal(ph, 19 * scale);
        const char *p = plain + used;
        for (uint32_t y = 0; y < ph; y++)
            for (uint32_t x = 0; x < pw; x++) {
                while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
                    p++;
                assert_true(*p == '0' || *p == '1');
                int want_bit = cg_grid_get(g, x / scale, y / scale) == CG_WALL;
                assert_int_equal(*p - '0', want_bit);
                p++;
            }
        free(plain);
    }
    cg_grid_free(g);
    assert_int_equal(tu_rmtree(dir), 0);
}

/* The other external check: pngcheck accepts our PNG output, both
 * forms (1 bit per pixel without markers, 4 with). */
static void pngcheck_accepts_the_png_output_too(void **state)
{
    (void)state;
    TU_REQUIRE_PNG();
    TT_REQUIRE("pngcheck");
    char dir[256], path[300], cmd[700];
    tu_mkdtemp(dir, sizeof dir);
    cg_grid *plain = tu_run("fill 45\ngenerations 5 r1=5 r2=-1", 3, 131, 37, NULL);
    cg_grid *marked =
        tu_run("fill 40\nrule 4 floor=5..8\nentrance\nexit\npoi count=3", 3, 90, 40, NULL);
    const cg_grid *maps[] = {plain, marked};
    for (int m = 0; m < 2; m++)
        for (uint32_t scale = 1; scale <= 5; scale += 2) {
            tu_buf b = {0};
            cg_write_options opt = {.format = CG_FORMAT_PNG, .scale = scale};
            cg_diag diag = {0};
            assert_int_equal(cg_write(maps[m], &opt, tu_buf_write, &b, &diag), CG_OK);
            snprintf(path, sizeof path, "%s/m%d-%u.png", dir, m, scale);
            tu_write_file(path, b.data, b.len);
            tu_buf_free(&b);
            snprintf(cmd, sizeof cmd, "pngcheck -q '%s' 2>&1", path);
            free(tt_run_ok(cmd));
        }
    cg_grid_free(plain);
    cg_grid_free(marked);
    assert_int_equal(tu_rmtree(dir), 0);
}

static void a_failing_callback_fails_the_write(void **state)
{
    (void)state;
    cg_grid *g = tu_run("fill 45", 2, 40, 10, NULL);
    tu_buf all = write_pbm(g, 2);
    for (int k = 1; k <= all.calls; k++) {
        tu_buf b = {0};
        b.fail_at = k;
        cg_write_options opt = {.format = CG_FORMAT_PBM, .scale = 2};
        cg_diag diag = {0};
        assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &diag), CG_EIO);
        assert_string_equal(diag.message, "write failed");
        tu_buf_free(&b);
    }
    tu_buf_free(&all);
    cg_write_options big = {.format = CG_FORMAT_PBM, .scale = 65};
    cg_diag diag = {0};
    tu_buf b = {0};
    assert_int_equal(cg_write(g, &big, tu_buf_write, &b, &diag), CG_EINVAL);
    assert_int_equal(b.len, 0);
    cg_grid_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pixels_match_cells_for_odd_sizes_and_scales),
        cmocka_unit_test(markers_are_floor_and_scale_zero_means_four),
        cmocka_unit_test(netpbm_reads_the_same_pixels),
        cmocka_unit_test(pngcheck_accepts_the_png_output_too),
        cmocka_unit_test(a_failing_callback_fails_the_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
