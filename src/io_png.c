/* io_png.c - PNG output through libpng (SPEC 5): a palette image, `scale`
 * pixels per cell, 1 bit per pixel when the map is only walls and floor.
 * The bytes depend only on the grid and the scale (no time chunk). */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Palette indices: wall, floor, then one per cg_marker after NONE. */
static const png_color palette[] = {
    {46, 40, 36},    /* wall: dark rock */
    {226, 212, 178}, /* floor: sand */
    {40, 175, 60},   /* entrance: green */
    {205, 40, 40},   /* exit: red */
    {240, 190, 30},  /* point of interest: gold */
    {95, 110, 140},  /* blocked: slate */
};

struct sink {
    cg_write_fn write;
    void *ctx;
    int failed;
};

static void sink_write(png_structp png, png_bytep data, size_t len)
{
    struct sink *s = png_get_io_ptr(png);
    if (s->write(s->ctx, data, len) != 0) {
        s->failed = 1;
        png_error(png, "write failed");
    }
}

static void sink_flush(png_structp png)
{
    (void)png;
}

/* libpng reports through longjmp; the message is kept for the diagnostic. */
static void on_error(png_structp png, png_const_charp msg)
{
    cg_diag *d = png_get_error_ptr(png);
    cg__diag(d, 0, 0, "PNG: %s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Packs the cell indices of one map row into one pixel row. */
static void pack_row(const uint8_t *idx, uint32_t w, uint32_t scale, int depth, png_bytep out,
                     size_t rowbytes)
{
    memset(out, 0, rowbytes);
    size_t px = 0;
    for (uint32_t x = 0; x < w; x++) {
        unsigned v = idx[x];
        for (uint32_t k = 0; k < scale; k++, px++) {
            if (depth == 1)
                out[px >> 3] |= (png_byte)(v << (7 - (px & 7)));
            else
                out[px >> 1] |= (png_byte)(v << (px & 1 ? 0 : 4));
        }
    }
}

cg_status cg__write_png(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                        cg_diag *diag)
{
    uint64_t pw = (uint64_t)g->w * scale, ph = (uint64_t)g->h * scale;
    if (pw > PNG_UINT_31_MAX || ph > PNG_UINT_31_MAX || pw > 0x7fffffffu / 4) {
        cg__diag(diag, 0, 0, "a %ux%u map at scale %u is too large for PNG", g->w, g->h, scale);
        return CG_EOVERFLOW;
    }
    int depth = g->nmarks ? 4 : 1;
    size_t rowbytes = (size_t)((pw * (uint64_t)depth + 7) / 8);
    uint8_t *idx = malloc(g->w);
    png_bytep row = malloc(rowbytes);
    png_structp png = NULL;
    png_infop info = NULL;
    cg_status st = CG_ENOMEM;
    struct sink sink = {write, ctx, 0};
    if (!idx || !row)
        goto done;
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, diag, on_error, on_warning);
    if (!png)
        goto done;
    info = png_create_info_struct(png);
    if (!info)
        goto done;
    if (setjmp(png_jmpbuf(png))) {
        st = sink.failed ? CG_EIO : CG_ENOMEM;
        goto done;
    }
    png_set_write_fn(png, &sink, sink_write, sink_flush);
    png_set_IHDR(png, info, (png_uint_32)pw, (png_uint_32)ph, depth, PNG_COLOR_TYPE_PALETTE,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_PLTE(png, info, palette, depth == 1 ? 2 : (int)(sizeof palette / sizeof *palette));
    /* Every cell is `scale` identical rows: the Up filter turns the repeats
     * into zeros, which deflate compresses to almost nothing, quickly. */
    png_set_filter(png, 0, PNG_FILTER_UP);
    png_set_compression_level(png, 6);
    png_write_info(png, info);
    size_t mi = 0;
    for (uint32_t y = 0; y < g->h; y++) {
        const uint64_t *r = cg__row(g, y);
        for (uint32_t x = 0; x < g->w; x++)
            idx[x] = (r[x >> 6] >> (x & 63)) & 1 ? 0 : 1;
        for (; mi < g->nmarks && g->marks[mi].y == y; mi++)
            idx[g->marks[mi].x] = (uint8_t)(1 + g->marks[mi].kind);
        pack_row(idx, g->w, scale, depth, row, rowbytes);
        for (uint32_t k = 0; k < scale; k++)
            png_write_row(png, row);
    }
    png_write_end(png, NULL);
    st = CG_OK;
done:
    if (st == CG_ENOMEM && diag && !diag->message[0])
        cg__diag(diag, 0, 0, "out of memory");
    if (st == CG_EIO)
        cg__diag(diag, 0, 0, "write failed");
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    free(row);
    free(idx);
    return st;
}
