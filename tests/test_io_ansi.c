/* test_io_ansi.c - cg_write(CG_FORMAT_ANSI): decoded back to colours, every
 * character is an upper half block whose foreground is the cell above and
 * whose background the cell below; walls and floor in their colours,
 * markers on top; a columns limit reduces the map by k x k blocks, walls by
 * majority and markers kept; odd heights end with a line of top halves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h> /* after the four above, which it needs */

#include "testutil.h"

#define WALL 0x2e2824u  /* 46, 40, 36 */
#define FLOOR 0xe2d4b2u /* 226, 212, 178 */
#define ENTRANCE 0x28af3cu
#define EXIT 0xcd2828u
#define NONE 0xffffffffu

/* The picture as a pw x ph array of 0xRRGGBB (NONE where a last odd line
 * has no lower half), parsed strictly: only colour escapes, half blocks and
 * a reset before each newline. */
typedef struct picture {
    uint32_t w, h;
    uint32_t *px;
} picture;

static uint32_t parse_rgb(const char **p)
{
    unsigned r, g, b;
    int n = 0;
    assert_int_equal(sscanf(*p, "%u;%u;%um%n", &r, &g, &b, &n), 3);
    assert_true(r < 256 && g < 256 && b < 256);
    *p += n;
    return r << 16 | g << 8 | b;
}

static picture decode(const tu_buf *b)
{
    picture pic = {0, 0, NULL};
    char *text = malloc(b->len + 1);
    assert_non_null(text);
    memcpy(text, b->data, b->len);
    text[b->len] = '\0';
    size_t cap = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        uint32_t fg = NONE, bg = NONE, x = 0;
        uint32_t row[2][4096];
        int lower = 0;
        while (p < nl) {
            if (strncmp(p, "\x1b[0m", 4) == 0) {
                assert_ptr_equal(p + 4, nl); /* the reset ends the line */
                p += 4;
            } else if (strncmp(p, "\x1b[38;2;", 7) == 0) {
                p += 7;
                fg = parse_rgb(&p);
            } else if (strncmp(p, "\x1b[48;2;", 7) == 0) {
                p += 7;
                bg = parse_rgb(&p);
                lower = 1;
            } else {
                assert_memory_equal(p, "\xe2\x96\x80", 3);
                p += 3;
                assert_true(x < 4096);
                row[0][x] = fg;
                row[1][x] = bg;
                x++;
            }
        }
        if (pic.h == 0)
            pic.w = x;
        assert_int_equal(x, pic.w);
        if ((size_t)(pic.h + 2) * pic.w > cap) {
            cap = ((size_t)pic.h + 2) * pic.w * 2;
            pic.px = realloc(pic.px, cap * sizeof *pic.px);
            assert_non_null(pic.px);
        }
        memcpy(pic.px + (size_t)pic.h * pic.w, row[0], pic.w * sizeof *pic.px);
        pic.h++;
        if (lower) {
            memcpy(pic.px + (size_t)pic.h * pic.w, row[1], pic.w * sizeof *pic.px);
            pic.h++;
        }
        p = nl + 1;
    }
    free(text);
    return pic;
}

static picture write_ansi(const cg_grid *g, uint32_t columns)
{
    tu_buf b = {0};
    cg_write_options opt = {.format = CG_FORMAT_ANSI, .columns = columns};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &diag), CG_OK);
    picture pic = decode(&b);
    free(b.data);
    return pic;
}

static void cells_show_in_their_colours_two_per_character(void **state)
{
    (void)state;
    const uint32_t sizes[][2] = {{1, 1},  {1, 37}, {37, 1}, {2, 2},
                                 {63, 5}, {64, 8}, {65, 9}, {131, 20}};
    uint64_t rng = 5;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t w = sizes[i][0], h = sizes[i][1];
        uint8_t *cells = tu_alloc_cells((int)w, (int)h);
        tu_random_cells(cells, (int)w, (int)h, 0.45, &rng);
        cg_grid *g = tu_grid_from_cells(cells, (int)w, (int)h);
        picture pic = write_ansi(g, 0); /* no limit */
        assert_int_equal(pic.w, w);
        assert_int_equal(pic.h, h); /* an odd height: the last line has no lower half */
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                assert_int_equal(pic.px[(size_t)y * w + x],
                                 cells[(size_t)y * w + x] ? WALL : FLOOR);
        /* A limit the map fits in changes nothing. */
        picture same = write_ansi(g, w);
        assert_int_equal(same.w, w);
        assert_memory_equal(same.px, pic.px, (size_t)w * h * sizeof *pic.px);
        free(same.px);
        free(pic.px);
        cg_grid_free(g);
        free(cells);
    }
}

static void markers_are_drawn_over_the_cells(void **state)
{
    (void)state;
    static const char map[] = "#####\n#<..#\n#..>#\n#####\n";
    cg_grid *g = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_read_ascii(map, sizeof map - 1, &g, &diag), CG_OK);
    picture pic = write_ansi(g, 0);
    assert_int_equal(pic.px[1 * 5 + 1], ENTRANCE);
    assert_int_equal(pic.px[2 * 5 + 3], EXIT);
    assert_int_equal(pic.px[1 * 5 + 2], FLOOR);
    free(pic.px);
    cg_grid_free(g);
}

/* Wider than the limit: k = ceil(w / columns); a block is wall iff more
 * than half of its cells (inside the map) are; a marker anywhere in a block
 * shows, the entrance over the exit. */
static void wide_maps_are_reduced_by_blocks(void **state)
{
    (void)state;
    uint64_t rng = 9;
    const uint32_t w = 203, h = 77, columns = 50;
    uint8_t *cells = tu_alloc_cells((int)w, (int)h);
    tu_random_cells(cells, (int)w, (int)h, 0.5, &rng);
    cg_grid *g = tu_grid_from_cells(cells, (int)w, (int)h);
    uint32_t k = (w + columns - 1) / columns; /* 5 */
    picture pic = write_ansi(g, columns);
    assert_int_equal(pic.w, (w + k - 1) / k);
    assert_true(pic.w <= columns);
    assert_int_equal(pic.h, (h + k - 1) / k);
    for (uint32_t py = 0; py < pic.h; py++) {
        for (uint32_t px = 0; px < pic.w; px++) {
            uint32_t walls = 0, n = 0;
            for (uint32_t y = py * k; y < py * k + k && y < h; y++)
                for (uint32_t x = px * k; x < px * k + k && x < w; x++, n++)
                    walls += cells[(size_t)y * w + x];
            assert_int_equal(pic.px[(size_t)py * pic.w + px], 2 * walls > n ? WALL : FLOOR);
        }
    }
    free(pic.px);
    /* Markers in the same block: the entrance wins. */
    cg_grid_set(g, 11, 11, CG_FLOOR);
    cg_grid_set(g, 12, 12, CG_FLOOR);
    assert_int_equal(cg_grid_set_marker(g, 12, 12, CG_MARK_ENTRANCE), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 11, 11, CG_MARK_EXIT), CG_OK);
    pic = write_ansi(g, columns);
    assert_int_equal(pic.px[(size_t)(11 / k) * pic.w + 11 / k], ENTRANCE);
    free(pic.px);
    cg_grid_free(g);
    free(cells);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cells_show_in_their_colours_two_per_character),
        cmocka_unit_test(markers_are_drawn_over_the_cells),
        cmocka_unit_test(wide_maps_are_reduced_by_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
