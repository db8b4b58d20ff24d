/* fuzz_ascii.c - the ASCII map reader on arbitrary bytes, and what the
 * writers make of the maps it accepts.
 *
 * Invariants: cg_read_ascii never crashes, leaks or reads past len; a
 * rejected map has a message, a line and a column and no grid. An accepted
 * map is written as ASCII exactly as the input reads once normalised (every
 * floor spelling becomes '.', "\r\n" becomes "\n", the last row gets its
 * "\n"), reads back to the same grid, and is written as PNG (decoded here
 * with libpng: the palette colour of every cell at every pixel) and as PBM
 * (P4: one bit per pixel, wall black) with the same cells. Built without
 * libpng (CAVEGEN_PNG=OFF), the PNG check is left out.
 */
#ifdef CG_HAVE_PNG
#include <png.h>
#endif

#include "fuzz_common.h"

#ifdef CG_HAVE_PNG
static const unsigned char colours[][3] = {
    {46, 40, 36},    /* wall */
    {226, 212, 178}, /* floor */
    {40, 175, 60},   /* entrance */
    {205, 40, 40},   /* exit */
    {240, 190, 30},  /* point of interest */
    {95, 110, 140},  /* blocked */
};
#endif

/* The map text cavegen writes for input that cg_read_ascii accepted. */
static unsigned char *normalise(const uint8_t *in, size_t n, size_t *outlen)
{
    unsigned char *out = malloc(n + 2);
    size_t o = 0;
    fuzz_check(out != NULL);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = in[i];
        if (c == '\r' && i + 1 < n && in[i + 1] == '\n')
            continue;
        if (c == '#' || c == '\n' || c == '<' || c == '>' || c == '*' || c == 'x' ||
            (c >= 'A' && c <= 'Z')) /* a point of a kind keeps its letter */
            out[o++] = c;
        else
            out[o++] = '.';
    }
    if (o > 0 && out[o - 1] != '\n')
        out[o++] = '\n';
    *outlen = o;
    return out;
}

#ifdef CG_HAVE_PNG
static const unsigned char *cell_colour(const cg_grid *g, uint32_t x, uint32_t y)
{
    if (cg_grid_get(g, x, y) == CG_WALL)
        return colours[0];
    cg_marker m = cg_grid_marker(g, x, y);
    return m == CG_MARK_NONE ? colours[1] : colours[1 + (int)m];
}

static void check_png(const cg_grid *g, uint32_t scale)
{
    fuzz_buf out = {0};
    cg_diag d = {0};
    cg_write_options o = {.format = CG_FORMAT_PNG, .scale = scale};
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);

    fuzz_check(cg_write(g, &o, fuzz_buf_write, &out, &d) == CG_OK);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, out.data, out.len))
        fuzz_fail("libpng cannot read the PNG: %s", img.message);
    fuzz_check(img.width == w * scale && img.height == h * scale);
    img.format = PNG_FORMAT_RGB;
    size_t bytes = PNG_IMAGE_SIZE(img);
    unsigned char *px = malloc(bytes);
    fuzz_check(px != NULL);
    if (!png_image_finish_read(&img, NULL, px, 0, NULL))
        fuzz_fail("libpng cannot decode the PNG: %s", img.message);
    for (uint32_t py = 0; py < img.height; py++)
        for (uint32_t pxl = 0; pxl < img.width; pxl++) {
            const unsigned char *want = cell_colour(g, pxl / scale, py / scale);
            const unsigned char *got = px + ((size_t)py * img.width + pxl) * 3;
            if (memcmp(want, got, 3) != 0)
                fuzz_fail("PNG pixel %u,%u is %u,%u,%u", pxl, py, got[0], got[1], got[2]);
        }
    free(px);
    png_image_free(&img);
    fuzz_buf_free(&out);
}
#endif

static void check_pbm(const cg_grid *g, uint32_t scale)
{
    fuzz_buf out = {0};
    cg_diag d = {0};
    cg_write_options o = {.format = CG_FORMAT_PBM, .scale = scale};
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    char header[64];

    fuzz_check(cg_write(g, &o, fuzz_buf_write, &out, &d) == CG_OK);
    int hl = snprintf(header, sizeof header, "P4\n%u %u\n", w * scale, h * scale);
    size_t rowbytes = ((size_t)w * scale + 7) / 8;
    fuzz_check(out.len == (size_t)hl + rowbytes * h * scale);
    fuzz_check(memcmp(out.data, header, (size_t)hl) == 0);
    const unsigned char *bits = out.data + hl;
    for (uint32_t py = 0; py < h * scale; py++)
        for (size_t b = 0; b < rowbytes * 8; b++) {
            int bit = bits[py * rowbytes + b / 8] >> (7 - b % 8) & 1;
            int want = b < (size_t)w * scale &&
                       cg_grid_get(g, (int64_t)(b / scale), py / scale) == CG_WALL;
            if (bit != want)
                fuzz_fail("PBM bit %zu of row %u is %d", b, py, bit);
        }
    fuzz_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cg_grid *g = NULL, *back = NULL;
    cg_diag d = {0};
    /* A copy exactly size bytes long, so ASan sees any read past the end. */
    char *text = malloc(size ? size : 1);
    fuzz_check(text != NULL);
    if (size)
        memcpy(text, data, size);

    cg_status st = cg_read_ascii(text, size, &g, &d);
    if (st != CG_OK) {
        fuzz_check(g == NULL);
        if (st != CG_EPARSE)
            fuzz_fail("cg_read_ascii returned %d", (int)st);
        if (d.line < 1 || d.column < 1 || d.message[0] == '\0')
            fuzz_fail("a map error without a position: %d:%d: '%s'", d.line, d.column,
                      d.message);
        free(text);
        return 0;
    }
    fuzz_check(g != NULL);

    size_t nlen;
    unsigned char *norm = normalise(data, size, &nlen);
    fuzz_buf out = {0}, again = {0};
    fuzz_check(cg_write(g, NULL, fuzz_buf_write, &out, &d) == CG_OK);
    if (out.len != nlen || memcmp(out.data, norm, nlen) != 0)
        fuzz_fail("ASCII output differs from the normalised input (%zu vs %zu bytes)", out.len,
                  nlen);
    fuzz_check(cg_read_ascii((const char *)out.data, out.len, &back, &d) == CG_OK);
    fuzz_check(tu_grids_equal(g, back));
    fuzz_check(cg_write(back, NULL, fuzz_buf_write, &again, &d) == CG_OK);
    fuzz_check(again.len == out.len && memcmp(again.data, out.data, out.len) == 0);

    /* Images at a scale the input picks, kept small for speed. */
    uint64_t cells = (uint64_t)cg_grid_width(g) * cg_grid_height(g);
    uint32_t scale = cells <= 256 ? 1 + (uint32_t)(size % 3) : 1;
    /* The image checks cost most of a run: one input in four gets them. */
    if (cells <= 20000 && (size & 3) == 0) {
#ifdef CG_HAVE_PNG
        check_png(g, scale);
#endif
        check_pbm(g, scale);
    }

    free(norm);
    fuzz_buf_free(&out);
    fuzz_buf_free(&again);
    cg_grid_free(g);
    cg_grid_free(back);
    free(text);
    return 0;
}
