/* test_io_png.c - cg_write(CG_FORMAT_PNG): the bytes are decoded with libpng
 * from memory and checked pixel by pixel: size = cells x scale, a palette
 * image, bit depth 1 without markers (4 with them, 8 with named kinds), every
 * pixel of a cell's block has that cell's palette index (0 wall, 1 floor),
 * and the markers' glyphs are drawn over them as docs/formats.md defines
 * them (a plain model of that definition below). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen: pngcheck reads a file */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <png.h>

#include "testutil.h"
/* White box: the striped writer (its parallel loop and a smaller stripe
 * for small test images). */
#include "../src/cells/par.h"
#include "../src/io/format.h"
#include "../src/io/png.h"
/* White box: the markers' symbols ('A'..'Z' for named kinds of points), set
 * directly where the public API has no way yet. */
#include "../src/core/grid.h"
/* The encoder as it was before its per-map costs were cut: the twin. */
#include "png_oracle.h"

typedef struct decoded {
    uint32_t width, height;
    int bit_depth, color_type, interlace;
    int num_palette;
    uint8_t rgb[256][3]; /* the palette's colours */
    uint8_t *index;      /* width * height palette indices */
} decoded;

typedef struct mem_reader {
    const uint8_t *data;
    size_t len, pos;
} mem_reader;

static void read_mem(png_structp png, png_bytep out, size_t len)
{
    mem_reader *r = png_get_io_ptr(png);
    if (len > r->len - r->pos)
        png_error(png, "read past the end of the PNG bytes");
    memcpy(out, r->data + r->pos, len);
    r->pos += len;
}

/* Decodes a PNG from memory into palette indices (png_set_packing expands
 * 1, 2 and 4-bit indices to a byte each). Returns 0, or -1 if libpng fails. */
static int decode_png(const uint8_t *data, size_t len, decoded *d)
{
    memset(d, 0, sizeof *d);
    if (len < 8 || png_sig_cmp(data, 0, 8) != 0)
        return -1;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png)
        return -1;
    png_infop info = png_create_info_struct(png);
    png_bytep *volatile rows = NULL;
    uint8_t *volatile index = NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        free(index);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    mem_reader r = {data, len, 0};
    png_set_read_fn(png, &r, read_mem);
    png_read_info(png, info);
    d->width = png_get_image_width(png, info);
    d->height = png_get_image_height(png, info);
    d->bit_depth = png_get_bit_depth(png, info);
    d->color_type = png_get_color_type(png, info);
    d->interlace = png_get_interlace_type(png, info);
    png_colorp palette = NULL;
    if (png_get_PLTE(png, info, &palette, &d->num_palette) == 0)
        d->num_palette = 0;
    for (int i = 0; i < d->num_palette && i < 256; i++) {
        d->rgb[i][0] = palette[i].red;
        d->rgb[i][1] = palette[i].green;
        d->rgb[i][2] = palette[i].blue;
    }
    if (d->bit_depth < 8)
        png_set_packing(png);
    png_read_update_info(png, info);
    size_t rowbytes = png_get_rowbytes(png, info);
    if (rowbytes != d->width)
        png_error(png, "unexpected row size after png_set_packing");
    index = malloc((size_t)d->width * d->height);
    rows = malloc(sizeof *rows * d->height);
    if (!index || !rows)
        png_error(png, "out of memory");
    for (uint32_t y = 0; y < d->height; y++)
        rows[y] = index + (size_t)y * d->width;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    d->index = index;
    return 0;
}

/* The glyph model, straight from docs/formats.md: in doubled pixel units
 * around the cell's centre, size D, outline t, shapes by kind. */
static int64_t glyph_d(uint32_t s)
{
    return s == 1 ? 3 : s <= 4 ? 3 * (int64_t)s : 2 * (int64_t)s + 4;
}

/* 0 outside, 1 outline, 2 inside. */
static int model_glyph(const cg__mark *m, uint32_t s, uint32_t px, uint32_t py)
{
    int64_t d = glyph_d(s), t = s == 1 ? 0 : d < 32 ? 1 : d / 16;
    int64_t dx = llabs((int64_t)(2 * px + 1) - (2 * (int64_t)m->x + 1) * s);
    int64_t dy = llabs((int64_t)(2 * py + 1) - (2 * (int64_t)m->y + 1) * s);
    int64_t big = dx > dy ? dx : dy;
    if (m->kind == CG_MARK_ENTRANCE || m->kind == CG_MARK_EXIT) {
        int64_t h = d * 17 / 20;
        return big > h ? 0 : big > h - 2 * t ? 1 : 2;
    }
    if (m->kind == CG_MARK_BLOCKED) {
        int64_t h = d * 4 / 5, arm = d / 2, off = llabs(dx - dy);
        if (big > h || off > arm)
            return 0;
        return big > h - 2 * t || off > arm - 3 * t ? 1 : 2;
    }
    if (dx * dx + dy * dy > d * d)
        return 0;
    return dx * dx + dy * dy > (d - 2 * t) * (d - 2 * t) ? 1 : 2;
}

static int mark_colour(const cg__mark *m)
{
    if (m->sym >= 'A' && m->sym <= 'Z')
        return 7 + (m->sym - 'A');
    return m->kind == CG_MARK_ENTRANCE ? 2 : m->kind == CG_MARK_EXIT ? 3
                                         : m->kind == CG_MARK_POI    ? 4
                                                                     : 5;
}

static int expected_index(const cg_grid *g, uint32_t s, uint32_t px, uint32_t py)
{
    int v = cg_grid_get(g, px / s, py / s) == CG_WALL ? 0 : 1;
    for (size_t i = 0; i < g->nmarks; i++) { /* later markers on top */
        int at = model_glyph(&g->marks[i], s, px, py);
        if (at)
            v = at == 1 ? 6 : mark_colour(&g->marks[i]);
    }
    return v;
}

static int has_markers(const cg_grid *g)
{
    for (uint32_t y = 0; y < cg_grid_height(g); y++)
        for (uint32_t x = 0; x < cg_grid_width(g); x++)
            if (cg_grid_marker(g, x, y) != CG_MARK_NONE)
                return 1;
    return 0;
}

static void write_png(const cg_grid *g, uint32_t scale, tu_buf *out)
{
    cg_write_options opt = {.format = CG_FORMAT_PNG, .scale = scale};
    cg_diag diag = {0};
    memset(out, 0, sizeof *out);
    cg_status st = cg_write(g, &opt, tu_buf_write, out, &diag);
    if (st != CG_OK) {
        print_error("PNG write at scale %u: %s: %s\n", scale, cg_strerror(st), diag.message);
        fail();
    }
    assert_non_null(out->data);
}

/* Writes g at `scale` (0 = the default 4) and checks the decoded image. */
static void check_png(const cg_grid *g, uint32_t scale)
{
    uint32_t s = scale ? scale : 4;
    tu_buf buf;
    write_png(g, scale, &buf);
    decoded d;
    if (decode_png((const uint8_t *)buf.data, buf.len, &d) != 0) {
        print_error("libpng cannot decode the %zu bytes written\n", buf.len);
        fail();
    }
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    assert_int_equal(d.width, w * s);
    assert_int_equal(d.height, h * s);
    assert_int_equal(d.color_type, PNG_COLOR_TYPE_PALETTE);
    int named = 0;
    for (size_t i = 0; i < g->nmarks; i++)
        named |= g->marks[i].sym >= 'A' && g->marks[i].sym <= 'Z';
    assert_int_equal(d.bit_depth, !has_markers(g) ? 1 : named ? 8 : 4);
    assert_int_equal(d.num_palette, !has_markers(g) ? 2 : named ? 33 : 7);
    assert_true(d.num_palette >= 2);
    for (uint32_t py = 0; py < d.height; py++) {
        for (uint32_t px = 0; px < d.width; px++) {
            int got = d.index[(size_t)py * d.width + px];
            int want = expected_index(g, s, px, py);
            if (got != want) {
                print_error("%ux%u map at scale %u: pixel (%u,%u) of cell (%u,%u) has index %d, "
                            "want %d\n",
                            w, h, s, px, py, px / s, py / s, got, want);
                fail();
            }
            assert_true(got < d.num_palette);
        }
    }
    free(d.index);
    tu_buf_free(&buf);
}

static cg_grid *random_grid(int w, int h, uint64_t *rng)
{
    uint8_t *cells = tu_alloc_cells(w, h);
    tu_random_cells(cells, w, h, 0.5, rng);
    cg_grid *g = tu_grid_from_cells(cells, w, h);
    free(cells);
    return g;
}

static void png_pixels_match_cells_at_each_scale(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {65, 3}, {8, 8}, {63, 5}, {130, 4}};
    static const uint32_t scales[] = {1, 3, 4, 0};
    uint64_t rng = 5;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        cg_grid *g = random_grid(sizes[i][0], sizes[i][1], &rng);
        for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++)
            check_png(g, scales[k]);
        cg_grid_free(g);
    }
}

static void png_of_uniform_maps(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 1, 1), CG_OK);
    check_png(g, 1); /* a single wall pixel */
    cg_grid_set(g, 0, 0, CG_FLOOR);
    check_png(g, 1); /* a single floor pixel */
    check_png(g, 64);
    cg_grid_free(g);
    assert_int_equal(cg_grid_new(&g, 65, 3), CG_OK);
    check_png(g, 3);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 65; x++)
            cg_grid_set(g, x, y, CG_FLOOR);
    check_png(g, 3);
    cg_grid_free(g);
}

static void png_shows_each_marker_in_its_palette_colour(void **state)
{
    (void)state;
    uint64_t rng = 6;
    cg_grid *g = random_grid(13, 7, &rng);
    const cg_marker kinds[] = {CG_MARK_ENTRANCE, CG_MARK_EXIT, CG_MARK_POI, CG_MARK_BLOCKED};
    for (int k = 0; k < 4; k++) {
        cg_grid_set(g, 2 + 3 * k, 3, CG_FLOOR);
        assert_int_equal(cg_grid_set_marker(g, 2 + 3 * k, 3, kinds[k]), CG_OK);
    }
    check_png(g, 1);
    check_png(g, 3);
    check_png(g, 4);
    check_png(g, 0);
    cg_grid_free(g);

    /* One marker kind at a time, on a 1x1 map. */
    for (int k = 0; k < 4; k++) {
        assert_int_equal(cg_grid_new(&g, 1, 1), CG_OK);
        cg_grid_set(g, 0, 0, CG_FLOOR);
        assert_int_equal(cg_grid_set_marker(g, 0, 0, kinds[k]), CG_OK);
        check_png(g, 1);
        check_png(g, 3);
        cg_grid_free(g);
    }
}

static void png_of_a_generated_cave_decodes(void **state)
{
    (void)state;
    cg_grid *g = tu_run("fill 45\ngenerations 5 r1=5 r2=-1\ngenerations 1 r1=5 r2=0\n", 42,
                        80, 50, NULL);
    check_png(g, 0);
    check_png(g, 1);
    cg_grid_free(g);
}

static void png_bytes_depend_only_on_grid_and_options(void **state)
{
    (void)state;
    uint64_t rng = 8;
    cg_grid *a = random_grid(65, 3, &rng);
    cg_grid *b = NULL;
    assert_int_equal(cg_grid_clone(&b, a), CG_OK);
    tu_buf x, y;
    write_png(a, 3, &x);
    write_png(b, 3, &y);
    assert_int_equal(x.len, y.len);
    assert_memory_equal(x.data, y.data, x.len);
    tu_buf_free(&x);
    tu_buf_free(&y);
    /* The default scale is 4. */
    write_png(a, 0, &x);
    write_png(a, 4, &y);
    assert_int_equal(x.len, y.len);
    assert_memory_equal(x.data, y.data, x.len);
    tu_buf_free(&x);
    tu_buf_free(&y);
    cg_grid_free(a);
    cg_grid_free(b);
}

static void png_rejects_scale_above_64(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 2, 2), CG_OK);
    const uint32_t bad[] = {65, 1000, UINT32_MAX};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cg_write_options opt = {.format = CG_FORMAT_PNG, .scale = bad[k]};
        tu_buf buf = {0};
        cg_diag diag = {0};
        assert_int_equal(cg_write(g, &opt, tu_buf_write, &buf, &diag), CG_EINVAL);
        assert_int_equal(buf.len, 0); /* nothing written */
        tu_buf_free(&buf);
    }
    cg_grid_free(g);
}

static void failing_write_callback_gives_eio(void **state)
{
    (void)state;
    uint64_t rng = 9;
    cg_grid *g = random_grid(80, 50, &rng);
    cg_write_options opt = {.format = CG_FORMAT_PNG, .scale = 4};
    tu_buf ok = {0};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &opt, tu_buf_write, &ok, &diag), CG_OK);
    assert_true(ok.calls >= 1);
    int step = ok.calls > 50 ? ok.calls / 50 : 1;
    for (int at = 1; at <= ok.calls; at += step) {
        tu_buf b = {0};
        b.fail_at = at;
        cg_diag d = {0};
        assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &d), CG_EIO);
        tu_buf_free(&b);
    }
    tu_buf_free(&ok);
    cg_grid_free(g);
}

/* The writer deflates one pixel row per cell row and splices in a block for
 * its scale-1 copies (src/io/png.c). These maps stress that: rows longer
 * than deflate's 32 KiB window and than its 258-byte matches, odd scales
 * whose 4-bit pixels straddle bytes, uniform rows next to random ones, and
 * an image whose compressed data needs several IDAT chunks. libpng checks
 * the chunk CRCs and the zlib Adler-32 while decoding. */
static void png_of_wide_maps_and_large_scales_decodes(void **state)
{
    (void)state;
    uint64_t rng = 10;
    /* 4200 cells at scale 64: 33600-byte rows at 1 bit per pixel. */
    cg_grid *g = random_grid(4200, 2, &rng);
    check_png(g, 64);
    cg_grid_free(g);
    /* Markers: 4 bits per pixel, 35200-byte rows; odd scales. */
    g = random_grid(1100, 3, &rng);
    for (int x = 1; x < 1100; x += 97) {
        cg_grid_set(g, x, 1, CG_FLOOR);
        assert_int_equal(cg_grid_set_marker(g, x, 1, (cg_marker)(1 + x % 4)), CG_OK);
    }
    check_png(g, 64);
    check_png(g, 5);
    check_png(g, 1);
    cg_grid_free(g);
    /* Uniform rows (all floor, all wall) between random ones. */
    g = random_grid(700, 9, &rng);
    for (int x = 0; x < 700; x++) {
        cg_grid_set(g, x, 2, CG_FLOOR);
        cg_grid_set(g, x, 3, CG_FLOOR);
        cg_grid_set(g, x, 5, CG_WALL);
    }
    check_png(g, 2);
    check_png(g, 7);
    cg_grid_free(g);
}

static void png_of_a_big_random_map_spans_several_idat_chunks(void **state)
{
    (void)state;
    uint64_t rng = 11;
    /* 2.3 million random cells at scale 1 hardly compress: well over the
     * 256 KiB the writer puts in one IDAT chunk. */
    cg_grid *g = random_grid(2100, 1100, &rng);
    tu_buf buf;
    write_png(g, 1, &buf);
    int idats = 0;
    for (size_t pos = 8; pos + 12 <= buf.len;) {
        const uint8_t *c = (const uint8_t *)buf.data + pos;
        size_t len = (size_t)c[0] << 24 | (size_t)c[1] << 16 | (size_t)c[2] << 8 | c[3];
        idats += memcmp(c + 4, "IDAT", 4) == 0;
        pos += len + 12;
    }
    assert_true(idats >= 2);
    tu_buf_free(&buf);
    check_png(g, 1);
    check_png(g, 2);
    cg_grid_free(g);
}

/* The writer's Huffman code comes from a sample of the rows of a tall map
 * (every h/256-th), yet must cover every byte the other rows hold. Here the
 * sampled rows (even ones, at h = 600) are all wall or all floor and every
 * other row is random, with markers only in those rows. */
static void png_rows_unlike_the_sampled_ones_still_decode(void **state)
{
    (void)state;
    uint64_t rng = 12;
    cg_grid *g = random_grid(97, 600, &rng);
    for (int y = 0; y < 600; y += 2)
        for (int x = 0; x < 97; x++)
            cg_grid_set(g, x, y, y % 4 ? CG_WALL : CG_FLOOR);
    check_png(g, 1);
    check_png(g, 3);
    for (int y = 1; y < 600; y += 50) {
        cg_grid_set(g, y % 97, y, CG_FLOOR);
        assert_int_equal(cg_grid_set_marker(g, y % 97, y, (cg_marker)(1 + y % 4)), CG_OK);
    }
    check_png(g, 1);
    check_png(g, 2);
    cg_grid_free(g);
}

/* Glyphs are larger than their cell: clipped at the image's edges and
 * corners, drawn over each other in (y, x) order, crossing the cell rows
 * above and below, at every scale and on widths that are not a multiple of
 * the writer's 8-cell groups or of 64. */
static void png_glyphs_are_clipped_and_overlap_in_order(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {2, 2}, {3, 1}, {1, 3}, {13, 7}, {67, 5}, {130, 9}};
    static const uint32_t scales[] = {1, 2, 3, 4, 5, 8, 16};
    uint64_t rng = 21;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        cg_grid *g = random_grid(w, h, &rng);
        /* The four corners, then a cluster of neighbours of every kind. */
        const int at[][2] = {{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}, {w / 2, h / 2},
                             {w / 2 + 1, h / 2}, {w / 2, h / 2 + 1}, {w / 2 + 1, h / 2 + 1}};
        for (int k = 0; k < 8; k++) {
            if (at[k][0] >= w || at[k][1] >= h)
                continue;
            cg_grid_set(g, at[k][0], at[k][1], CG_FLOOR);
            assert_int_equal(cg_grid_set_marker(g, at[k][0], at[k][1], (cg_marker)(1 + k % 4)),
                             CG_OK);
        }
        for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++)
            check_png(g, scales[k]);
        cg_grid_free(g);
    }
}

/* Named kinds of points ('A'..'Z') each have their own colour: 8 bits per
 * pixel, a palette of 33 whose 26 named colours differ from each other and
 * from wall, floor, the other markers and the outline. */
static void png_named_kinds_have_26_distinct_colours(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    assert_int_equal(cg_grid_new(&g, 83, 7), CG_OK);
    for (int x = 1; x < 82; x++)
        for (int y = 1; y < 6; y++)
            cg_grid_set(g, x, y, CG_FLOOR);
    for (int k = 0; k < 26; k++)
        assert_int_equal(cg_grid_set_marker(g, 2 + 3 * k, 2 + k % 3, CG_MARK_POI), CG_OK);
    assert_int_equal(cg_grid_set_marker(g, 81, 5, CG_MARK_EXIT), CG_OK);
    for (size_t i = 0; i < g->nmarks; i++)
        if (g->marks[i].kind == CG_MARK_POI)
            g->marks[i].sym = (uint8_t)('A' + (g->marks[i].x - 2) / 3);
    check_png(g, 1);
    check_png(g, 2);
    check_png(g, 4);
    check_png(g, 7);
    tu_buf buf;
    write_png(g, 4, &buf);
    decoded d;
    assert_int_equal(decode_png((const uint8_t *)buf.data, buf.len, &d), 0);
    assert_int_equal(d.num_palette, 33);
    for (int a = 0; a < 33; a++)
        for (int b = a + 1; b < 33; b++)
            assert_memory_not_equal(d.rgb[a], d.rgb[b], 3);
    free(d.index);
    tu_buf_free(&buf);
    cg_grid_free(g);
}

/* At the default scale a marker covers more than its cell: the 3x3 cells
 * around it are (mostly) its colour or outline, not rock or sand. */
static void png_markers_are_visible_at_the_default_scale(void **state)
{
    (void)state;
    static const char *rows[] = {"#######", "#.....#", "#.....#", "#..*..#", "#.....#", "#######"};
    cg_grid *g = tu_grid_from_rows(rows, 6);
    assert_int_equal(cg_grid_set_marker(g, 3, 3, CG_MARK_POI), CG_OK);
    tu_buf buf;
    write_png(g, 0, &buf);
    decoded d;
    assert_int_equal(decode_png((const uint8_t *)buf.data, buf.len, &d), 0);
    int gold = 0, outline = 0;
    for (uint32_t py = 8; py < 20; py++)
        for (uint32_t px = 8; px < 20; px++) {
            gold += d.index[py * d.width + px] == 4;
            outline += d.index[py * d.width + px] == 6;
        }
    /* A disc 12 px across: about 113 pixels, 81 of them inside the outline. */
    assert_true(gold >= 70 && outline >= 20 && gold + outline >= 100);
    free(d.index);
    tu_buf_free(&buf);
    cg_grid_free(g);
}

/* ------------------------------------------------------------ stripes */

static void write_png_par(const cg_grid *g, uint32_t scale, cg_parallel_fn fn, tu_buf *out)
{
    cg__par par = {fn, NULL};
    cg_diag diag = {0};
    memset(out, 0, sizeof *out);
    assert_int_equal(cg__write_png(g, scale, &par, tu_buf_write, out, &diag), CG_OK);
}

/* The IDAT chunks in the PNG bytes. */
static int count_idats(const tu_buf *b)
{
    int idats = 0;
    for (size_t pos = 8; pos + 12 <= b->len;) {
        const uint8_t *c = (const uint8_t *)b->data + pos;
        size_t len = (size_t)c[0] << 24 | (size_t)c[1] << 16 | (size_t)c[2] << 8 | c[3];
        idats += memcmp(c + 4, "IDAT", 4) == 0;
        pos += len + 12;
    }
    return idats;
}

/* pngcheck, where it is installed, on the bytes: 0 if it finds no error. */
static int pngcheck_ok(const tu_buf *b)
{
    static int have = -1;
    if (have < 0)
        have = system("command -v pngcheck > /dev/null 2>&1") == 0;
    if (!have)
        return 0;
    char path[] = "/tmp/cavegen_png_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->data, 1, b->len, f), b->len);
    assert_int_equal(fclose(f), 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "pngcheck -q %s > /dev/null", path);
    int rc = system(cmd);
    remove(path);
    return rc;
}

/* A big image is compressed in stripes of rows, several at once through the
 * caller's parallel loop: the bytes are those of one thread whatever the
 * loop (none, out of order, three threads), and decode to the cells. Small
 * stripes here (the default is a million cells) so that small maps have
 * many: 1xN and Nx1, widths about 64 and the 8-cell groups, markers (the
 * rows they cross go byte by byte), uniform maps and checkerboards. */
static void png_stripes_give_the_bytes_of_one_thread(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 500},  {500, 1}, {63, 40},  {64, 41}, {65, 39},
                                   {131, 17}, {9, 300}, {200, 64}, {7, 7}};
    static const uint32_t scales[] = {1, 2, 5};
    uint64_t rng = 21;
    cg__png_set_stripe_cells(8);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        for (int kind = 0; kind < 5; kind++) {
            cg_grid *g = random_grid(w, h, &rng);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    if (kind == 1 || kind == 2)
                        cg_grid_set(g, x, y, kind == 1 ? CG_WALL : CG_FLOOR);
                    else if (kind == 3)
                        cg_grid_set(g, x, y, (x + y) % 2 ? CG_WALL : CG_FLOOR);
                }
            if (kind == 4) /* markers, some of them in the stripes' first rows */
                for (int k = 0; k < w * h / 50 + 1; k++) {
                    int x = (k * 37) % w, y = (k * 11) % h;
                    cg_grid_set(g, x, y, CG_FLOOR);
                    assert_int_equal(cg_grid_set_marker(g, x, y, (cg_marker)(1 + k % 4)), CG_OK);
                }
            for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
                tu_buf one, shuffled, threads;
                write_png_par(g, scales[k], NULL, &one);
                write_png_par(g, scales[k], tu_shuffled_for, &shuffled);
                write_png_par(g, scales[k], tu_threads_for, &threads);
                if (one.len != shuffled.len || memcmp(one.data, shuffled.data, one.len) ||
                    one.len != threads.len || memcmp(one.data, threads.data, one.len)) {
                    print_error("%dx%d (kind %d) at scale %u: the bytes depend on the loop\n", w, h,
                                kind, scales[k]);
                    fail();
                }
                if (tu_sampled(i + (size_t)kind + k)) /* a program started a check */
                    assert_int_equal(pngcheck_ok(&one), 0);
                tu_buf_free(&one);
                tu_buf_free(&shuffled);
                tu_buf_free(&threads);
                check_png(g, scales[k]); /* cg_write: one thread, decoded */
            }
            cg_grid_free(g);
        }
    }
    /* A write that fails in the middle of the stripes: CG_EIO. */
    uint64_t rng2 = 24;
    cg_grid *g = random_grid(300, 200, &rng2);
    for (int at = 1; at < 40; at += 7) {
        tu_buf failing = {.fail_at = at};
        cg__par par = {tu_threads_for, NULL};
        cg_diag diag = {0};
        assert_int_equal(cg__write_png(g, 2, &par, tu_buf_write, &failing, &diag), CG_EIO);
        tu_buf_free(&failing);
    }
    cg_grid_free(g);
    cg__png_set_stripe_cells(0);
}

/* With the default stripes an image under four million cells is one stripe
 * (the bytes it always had); a bigger one is several, and each stripe's
 * buffer is made for twice what the sampled rows (every h/256-th) predict.
 * Here the sampled rows are all wall and the others random, so every stripe
 * overflows its buffer and is made again: the bytes are still those of one
 * thread, and decode. */
static void png_stripes_larger_than_predicted_are_made_again(void **state)
{
    (void)state;
    uint64_t rng = 22;
    cg_grid *g = random_grid(2048, 2100, &rng);
    for (int y = 0; y < 2100; y += 2100 / 256)
        for (int x = 0; x < 2048; x++)
            cg_grid_set(g, x, y, CG_WALL);
    tu_buf one, threads;
    write_png_par(g, 1, NULL, &one);
    write_png_par(g, 1, tu_threads_for, &threads);
    assert_int_equal(one.len, threads.len);
    assert_memory_equal(one.data, threads.data, one.len);
    assert_true(count_idats(&one) >= 2);
    assert_int_equal(pngcheck_ok(&one), 0);
    tu_buf_free(&one);
    tu_buf_free(&threads);
    check_png(g, 1);
    cg_grid_free(g);
}

/* cg_write_options.parallel reaches the PNG writer: a map of 4 million cells
 * (several stripes by default) has the same bytes with and without it. */
static void png_write_options_parallel_gives_the_same_bytes(void **state)
{
    (void)state;
    uint64_t rng = 23;
    cg_grid *g = random_grid(2048, 2049, &rng);
    cg_write_options plain = {.format = CG_FORMAT_PNG, .scale = 2};
    cg_write_options threaded = plain;
    threaded.parallel = tu_threads_for;
    tu_buf one = {0}, threads = {0};
    assert_int_equal(cg_write(g, &plain, tu_buf_write, &one, NULL), CG_OK);
    assert_int_equal(cg_write(g, &threaded, tu_buf_write, &threads, NULL), CG_OK);
    assert_int_equal(one.len, threads.len);
    assert_memory_equal(one.data, threads.data, one.len);
    assert_int_equal(pngcheck_ok(&one), 0);
    tu_buf_free(&one);
    tu_buf_free(&threads);
    cg_grid_free(g);
}


/* ------------------------------------------------------------ the twin */

/* The writer's bytes are those of the plain encoder it grew from
 * (tests/png_oracle.c), whatever the shortcuts: the table of 8-cell groups
 * kept between images, the marker bands' rows built once per cell row and
 * their glyphs drawn from sprites, the zero runs and the Huffman build.
 * Widths about the 8-cell groups and 64, every scale 1..8 and some larger,
 * maps all wall, all floor, checkerboards, random, with markers of every
 * kind (4 bits), named kinds (8 bits), markers side by side and at the
 * edges, a reach overlay; one stripe and many. */
static int twin_threads; /* the stripes through threads (else one after another) */

/* Stripes of `cells` cells (0: the default) in the writer and in the twin,
 * compressed through threads or one after another. */
static void twin_stripes(uint64_t cells, int threads)
{
    cg__png_set_stripe_cells(cells);
    oracle_png_set_stripe_cells(cells);
    twin_threads = threads;
}

static void expect_oracle_bytes(const cg_grid *g, uint32_t scale, const char *what)
{
    tu_buf got = {0}, want = {0};
    cg__par par = {twin_threads ? tu_threads_for : NULL, NULL};
    cg_diag diag = {0};
    assert_int_equal(cg__write_png(g, scale, &par, tu_buf_write, &got, &diag), CG_OK);
    assert_int_equal(oracle_write_png(g, scale, NULL, tu_buf_write, &want, &diag), CG_OK);
    if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0) {
        size_t at = 0;
        while (at < got.len && at < want.len && ((uint8_t *)got.data)[at] == ((uint8_t *)want.data)[at])
            at++;
        print_error("%ux%u %s at scale %u: %zu bytes, the twin %zu; first difference at %zu\n",
                    cg_grid_width(g), cg_grid_height(g), what, scale, got.len, want.len, at);
        fail();
    }
    tu_buf_free(&got);
    tu_buf_free(&want);
}

static void png_bytes_are_the_twins(void **state)
{
    (void)state;
    static const int widths[] = {1, 2, 7, 8, 9, 63, 64, 65, 131};
    static const int heights[] = {1, 2, 5, 9, 40};
    static const char *kinds[] = {"random", "all wall", "all floor", "checkerboard",
                                  "with markers", "with named kinds", "with a cluster of markers",
                                  "with a reach"};
    uint64_t rng = 31;
    for (int stripes = 0; stripes < 2; stripes++) {
        twin_stripes(stripes ? 8 : 0, stripes);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++) {
                int w = widths[wi], h = heights[hi];
                for (int kind = 0; kind < 8; kind++) {
                    cg_grid *g = random_grid(w, h, &rng);
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++)
                            if (kind == 1 || kind == 2)
                                cg_grid_set(g, x, y, kind == 1 ? CG_WALL : CG_FLOOR);
                            else if (kind == 3)
                                cg_grid_set(g, x, y, (x + y) % 2 ? CG_WALL : CG_FLOOR);
                    if (kind == 4 || kind == 5 || kind == 7)
                        for (int k = 0; k < w * h / 23 + 1; k++) {
                            int x = (int)(tu_next(&rng) % (uint64_t)w);
                            int y = (int)(tu_next(&rng) % (uint64_t)h);
                            cg_grid_set(g, x, y, CG_FLOOR);
                            assert_int_equal(cg_grid_set_marker(g, x, y, (cg_marker)(1 + k % 4)),
                                             CG_OK);
                        }
                    if (kind == 5)
                        for (size_t i = 0; i < g->nmarks; i++)
                            if (g->marks[i].kind == CG_MARK_POI && i % 3 == 0)
                                g->marks[i].sym = (uint8_t)('A' + i % 26);
                    if (kind == 6) /* neighbours of every kind, and the corners */
                        for (int y = 0; y < h; y += 1 + (h > 4))
                            for (int x = 0; x < w; x += 1 + (x % 5 == 4) * 3) {
                                cg_grid_set(g, x, y, CG_FLOOR);
                                assert_int_equal(
                                    cg_grid_set_marker(g, x, y, (cg_marker)(1 + (x + y) % 4)),
                                    CG_OK);
                            }
                    if (kind == 7) {
                        cg_point start = {0, 0};
                        for (uint32_t i = 0; i < (uint32_t)(w * h); i++)
                            if (cg_grid_get(g, (int)(i % (uint32_t)w), (int)(i / (uint32_t)w)) ==
                                CG_FLOOR) {
                                start = (cg_point){i % (uint32_t)w, i / (uint32_t)w};
                                break;
                            }
                        cg_grid_set(g, (int)start.x, (int)start.y, CG_FLOOR);
                        assert_int_equal(cg_grid_reach(g, &start, 1, 10, NULL), CG_OK);
                    }
                    for (uint32_t scale = 1; scale <= 8; scale++)
                        if (!stripes || scale % 3 == 1)
                            expect_oracle_bytes(g, scale, kinds[kind]);
                    if (!stripes && w >= 63 && h >= 9 && tu_sampled(wi + hi + (size_t)kind))
                        for (uint32_t scale = 9; scale <= 64; scale += 11)
                            expect_oracle_bytes(g, scale, kinds[kind]);
                    cg_grid_free(g);
                }
            }
    }
    twin_stripes(0, 0);
    /* Tall and narrow: pass 1 counts a sample of the rows (from 512). */
    static const int tall[][2] = {{1, 600}, {2, 511}, {3, 512}, {9, 1000}};
    for (size_t i = 0; i < sizeof tall / sizeof tall[0]; i++) {
        cg_grid *g = random_grid(tall[i][0], tall[i][1], &rng);
        for (uint32_t scale = 1; scale <= 3; scale++)
            expect_oracle_bytes(g, scale, "tall");
        for (int k = 0; k < tall[i][1] / 7; k++) {
            int x = k % tall[i][0], y = (k * 7) % tall[i][1];
            cg_grid_set(g, x, y, CG_FLOOR);
            assert_int_equal(cg_grid_set_marker(g, x, y, (cg_marker)(1 + k % 4)), CG_OK);
        }
        for (uint32_t scale = 1; scale <= 3; scale++)
            expect_oracle_bytes(g, scale, "tall, with markers");
        cg_grid_free(g);
    }
    /* Generated levels with their markers, the batch's case. */
    cg_pipeline *p = tu_builtin_pipeline("level");
    for (uint64_t seed = 1; seed <= 12; seed++) {
        cg_grid *g = NULL;
        cg_diag diag = {0};
        assert_int_equal(tu_run_pipeline(p, seed, seed % 2 ? 80 : 67, 50, NULL, &g, &diag), CG_OK);
        for (uint32_t scale = 1; scale <= 6; scale++)
            expect_oracle_bytes(g, scale, "level");
        cg_grid_free(g);
    }
    cg_pipeline_free(p);
}

/* Pass 2 takes a word of 8 groups at once: at scale 1 (a group is a
 * pixel byte) when none ends a run of 3 or more repeats (io/png.c,
 * lits_word), at scales 4 to 32 by a group's codes under masks (groups_word,
 * which passes a word back to the group-by-group parse after a filter byte
 * and when a run pending from before it could outgrow one match). Maps whose
 * groups repeat in runs of every length 1..6 and some long ones (up to 100
 * groups: runs of one byte longer than a match at scale 4), from an alphabet
 * of 2 to 5 values - wall, floor, the two groups of one repeated byte at
 * scale 4 (alternate cells) and one more - so a run often ends on a value
 * that starts the next, across words and rows, at scales 1 to 5, 8, 16 and
 * 32, are the twin's bytes, in one stripe and many, through threads. 600
 * rows: pass 2 parses the image (a small one replays pass 1's tokens
 * instead); 300 rows at scale 4: pass 1 counts every row, pass 2 parses. */
static void png_runs_of_every_length_are_the_twins(void **state)
{
    (void)state;
    static const int widths[] = {64, 65, 72, 128, 131, 200, 520};
    static const uint32_t scales[] = {1, 2, 3, 4, 5, 8, 16, 32};
    uint64_t rng = 77;
    for (int stripes = 0; stripes < 2; stripes++) {
        twin_stripes(stripes ? 4096 : 0, stripes);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (int alphabet = 2; alphabet <= 5; alphabet++) {
                const int w = widths[wi], h = wi == 6 && alphabet == 5 ? 300 : 600;
                const uint8_t values[5] = {0x00, 0xff, 0x55, 0xaa, (uint8_t)(tu_next(&rng) | 1)};
                const uint8_t *from = alphabet == 3 ? values + 2 : values; /* 0x55, 0xaa, more */
                const int nvalues = alphabet == 3 ? 3 : alphabet;
                cg_grid *g = NULL;
                assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)h), CG_OK);
                for (int y = 0; y < h; y++) {
                    int x = 0;
                    while (x < w) {
                        uint64_t r = tu_next(&rng);
                        int len = r % 8 == 7 ? 7 + (int)(r >> 3) % 94 : 1 + (int)(r % 6);
                        uint8_t v = from[(r >> 16) % (uint64_t)nvalues];
                        for (int k = 0; k < len && x < w; k++, x += 8)
                            for (int b = 0; b < 8 && x + b < w; b++)
                                cg_grid_set(g, x + b, y, (v >> b) & 1 ? CG_WALL : CG_FLOOR);
                    }
                }
                for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++)
                    if (h == 600 ? scales[k] <= 5 || w <= 131 - 66 * (scales[k] > 8)
                                 : scales[k] == 4)
                        expect_oracle_bytes(g, scales[k], "runs of groups");
                cg_grid_free(g);
            }
        /* Runs of one repeated byte of every length in groups up to past a
         * match (258 bytes) and 7 more, from every place in a word: cell
         * row 8L + o starts with o other groups, then runs of L groups of
         * one value, each ended by a group of other bytes or by the other
         * value. */
        for (size_t k = 3; k < sizeof scales / sizeof scales[0]; k++) {
            const uint32_t scale = scales[k];
            const int longest = 258 / (int)scale + 10, w = 8 * (2 * longest + 12) + 3;
            const uint8_t runs[2][2] = {{0x00, 0xff}, {0x55, 0xaa}};
            cg_grid *g = NULL;
            assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)(8 * longest)), CG_OK);
            for (int y = 0; y < 8 * longest; y++) {
                const int o = y % 8, len = 1 + y / 8;
                const uint8_t *u = runs[y / 8 % 2];
                int x = 0;
                for (int i = 0; x < w; i++) {
                    uint8_t v = 0x5b; /* a group of several bytes at every scale */
                    if (i >= o) {
                        const int j = (i - o) % (len + 1), n = (i - o) / (len + 1);
                        v = j < len ? u[n % 2] : n % 3 == 0 ? 0x5b : n % 3 == 1 ? 0x3c : u[n % 2 ^ 1];
                    }
                    for (int b = 0; b < 8 && x < w; b++, x++)
                        cg_grid_set(g, x, y, (v >> b) & 1 ? CG_WALL : CG_FLOOR);
                }
            }
            expect_oracle_bytes(g, scale, "runs of one byte at every phase");
            cg_grid_free(g);
        }
    }
    twin_stripes(0, 0);
    /* One stripe (under 4 million cells) written as it is made, in several
     * IDAT chunks: runs of any byte, mostly of one, so the stream is near a
     * byte a group, and its chunks end at the first code that fills one
     * (several images, so that some chunk ends inside a word's codes). */
    for (int i = 0; i < 6; i++) {
        cg_grid *g = NULL;
        const int w = 2800 + 61 * i, h = 1300;
        assert_int_equal(cg_grid_new(&g, (uint32_t)w, (uint32_t)h), CG_OK);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w;) {
                uint64_t r = tu_next(&rng);
                int len = r % 16 == 15 ? 3 + (int)(r >> 4) % 20 : 1 + (r % 16 > 11);
                uint8_t v = (uint8_t)(r >> 32);
                for (int k = 0; k < len && x < w; k++, x += 8)
                    for (int b = 0; b < 8 && x + b < w; b++)
                        cg_grid_set(g, x + b, y, (v >> b) & 1 ? CG_WALL : CG_FLOOR);
            }
        expect_oracle_bytes(g, 1, "runs of any byte");
        cg_grid_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(png_pixels_match_cells_at_each_scale),
        cmocka_unit_test(png_of_uniform_maps),
        cmocka_unit_test(png_shows_each_marker_in_its_palette_colour),
        cmocka_unit_test(png_of_a_generated_cave_decodes),
        cmocka_unit_test(png_bytes_depend_only_on_grid_and_options),
        cmocka_unit_test(png_rejects_scale_above_64),
        cmocka_unit_test(failing_write_callback_gives_eio),
        cmocka_unit_test(png_of_wide_maps_and_large_scales_decodes),
        cmocka_unit_test(png_of_a_big_random_map_spans_several_idat_chunks),
        cmocka_unit_test(png_rows_unlike_the_sampled_ones_still_decode),
        cmocka_unit_test(png_glyphs_are_clipped_and_overlap_in_order),
        cmocka_unit_test(png_named_kinds_have_26_distinct_colours),
        cmocka_unit_test(png_markers_are_visible_at_the_default_scale),
        cmocka_unit_test(png_stripes_give_the_bytes_of_one_thread),
        cmocka_unit_test(png_stripes_larger_than_predicted_are_made_again),
        cmocka_unit_test(png_write_options_parallel_gives_the_same_bytes),
        cmocka_unit_test(png_bytes_are_the_twins),
        cmocka_unit_test(png_runs_of_every_length_are_the_twins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
