/* fuzz_ascii.c - the ASCII map reader on arbitrary bytes, and what the
 * writers make of the maps it accepts.
 *
 * Invariants: cg_read_ascii never crashes, leaks or reads past len; a
 * rejected map has a message, a line and a column and no grid. An accepted
 * map is written as ASCII exactly as the input reads once normalised (every
 * floor spelling becomes '.', "\r\n" becomes "\n", the last row gets its
 * "\n"), reads back to the same grid, and is written as PNG (decoded here
 * with libpng: the palette colour of every cell at every pixel, under the
 * markers' glyphs as docs/formats.md defines them) and as PBM
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
    {0, 0, 0},       /* the markers' outline */
};
/* Named kinds 'A'..'Z': Green-Armytage's colour alphabet (docs/formats.md). */
static const unsigned char named[26][3] = {
    {240, 163, 255}, {0, 117, 220},   {153, 63, 0},   {76, 0, 92},     {25, 25, 25},
    {0, 92, 49},     {43, 206, 72},   {255, 204, 153}, {128, 128, 128}, {148, 255, 181},
    {143, 124, 0},   {157, 204, 0},   {194, 0, 136},  {0, 51, 128},    {255, 164, 5},
    {255, 168, 187}, {66, 102, 0},    {255, 0, 16},   {94, 241, 242},  {0, 153, 143},
    {224, 255, 102}, {116, 10, 255},  {153, 0, 0},    {255, 255, 128}, {255, 225, 0},
    {255, 80, 5},
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
/* A marker's glyph at (dx, dy) from its cell's centre, in doubled pixel
 * units (docs/formats.md, PNG): 0 outside, 1 outline, 2 inside. */
static int glyph_part(cg_marker kind, uint32_t s, int64_t dx, int64_t dy)
{
    int64_t d = s == 1 ? 3 : s <= 4 ? 3 * (int64_t)s : 2 * (int64_t)s + 4;
    int64_t t = s == 1 ? 0 : d < 32 ? 1 : d / 16;
    dx = dx < 0 ? -dx : dx;
    dy = dy < 0 ? -dy : dy;
    int64_t big = dx > dy ? dx : dy;
    if (kind == CG_MARK_ENTRANCE || kind == CG_MARK_EXIT) {
        int64_t h = d * 17 / 20;
        return big > h ? 0 : big > h - 2 * t ? 1 : 2;
    }
    if (kind == CG_MARK_BLOCKED) {
        int64_t h = d * 4 / 5, arm = d / 2, off = dx > dy ? dx - dy : dy - dx;
        if (big > h || off > arm)
            return 0;
        return big > h - 2 * t || off > arm - 3 * t ? 1 : 2;
    }
    if (dx * dx + dy * dy > d * d)
        return 0;
    return dx * dx + dy * dy > (d - 2 * t) * (d - 2 * t) ? 1 : 2;
}

/* The expected picture: each cell's colour, then every marker's glyph in
 * (y, x) order; `ascii` is the map as written, for the named kinds' letters. */
static unsigned char *expected_png(const cg_grid *g, uint32_t s, const unsigned char *ascii)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g), pw = w * s, ph = h * s;
    unsigned char *img = malloc((size_t)pw * ph * 3);
    fuzz_check(img != NULL);
    for (uint32_t py = 0; py < ph; py++)
        for (uint32_t px = 0; px < pw; px++)
            memcpy(img + ((size_t)py * pw + px) * 3,
                   colours[cg_grid_get(g, px / s, py / s) == CG_WALL ? 0 : 1], 3);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            cg_marker m = cg_grid_marker(g, x, y);
            if (m == CG_MARK_NONE)
                continue;
            unsigned char c = ascii[(size_t)y * (w + 1) + x];
            const unsigned char *fill = c >= 'A' && c <= 'Z' ? named[c - 'A'] : colours[1 + (int)m];
            int64_t cx = (2 * (int64_t)x + 1) * s, cy = (2 * (int64_t)y + 1) * s;
            for (int64_t py = (int64_t)y * s - 2 * (int64_t)s; py < (int64_t)(y + 3) * s; py++)
                for (int64_t px = (int64_t)x * s - 2 * (int64_t)s; px < (int64_t)(x + 3) * s;
                     px++) {
                    if (px < 0 || py < 0 || px >= pw || py >= ph)
                        continue;
                    int part = glyph_part(m, s, 2 * px + 1 - cx, 2 * py + 1 - cy);
                    if (part)
                        memcpy(img + ((size_t)py * pw + (size_t)px) * 3,
                               part == 1 ? colours[6] : fill, 3);
                }
        }
    return img;
}

static void check_png(const cg_grid *g, uint32_t scale, const unsigned char *ascii)
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
    unsigned char *expect = expected_png(g, scale, ascii);
    for (uint32_t py = 0; py < img.height; py++)
        for (uint32_t pxl = 0; pxl < img.width; pxl++) {
            const unsigned char *want = expect + ((size_t)py * img.width + pxl) * 3;
            const unsigned char *got = px + ((size_t)py * img.width + pxl) * 3;
            if (memcmp(want, got, 3) != 0)
                fuzz_fail("PNG pixel %u,%u is %u,%u,%u", pxl, py, got[0], got[1], got[2]);
        }
    free(expect);
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
        check_png(g, scale, out.data);
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
