/* io/png_reach.c - PNG of a map with a reach result (docs/reach.md): an
 * 8-bit palette image, the fixed colours of io/png.c then a ramp of 223
 * colours over distance, near (yellow) to far (deep violet), like viridis,
 * with the markers' glyphs drawn over it as on any map.
 * Reach images are rare and small next to cave images, so this is plain
 * libpng + zlib row by row; io/png.c's own deflate is for 1- and 4-bit maps. */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "io/palette.h"
#include "io/png.h"
#include "regions/reach.h"

#define RAMP CG__RAMP_STEPS /* the palette's other entries, 33..255 */
_Static_assert(CG__PALETTE_FIXED + CG__RAMP_STEPS == 256, "the ramp fills the palette");

static void make_palette(png_color *pal)
{
    cg__png_palette(pal);
    for (unsigned i = 0; i < RAMP; i++) {
        cg__rgb c = cg__ramp_rgb(i, RAMP);
        pal[CG__PALETTE_FIXED + i] = (png_color){c.r, c.g, c.b};
    }
}

/* The palette index of every cell of row y, under the markers' glyphs. */
static void index_row(const cg_grid *g, uint32_t y, uint8_t *idx)
{
    const uint64_t *r = cg__row(g, y);
    for (uint32_t x = 0; x < g->w; x++)
        idx[x] = (r[x >> 6] >> (x & 63)) & 1 ? 0 : 1;
    const cg__reach *re = g->reach;
    if (y < re->y0 || y - re->y0 >= re->h)
        return;
    const size_t d = cg__reach_at(re, 0, y - re->y0);
    uint64_t span = re->max_distance ? re->max_distance : 1;
    for (uint32_t i = 0; i < re->w; i++) {
        uint32_t v = cg__reach_dist(re, d + i);
        if (v != CG_UNREACHED)
            idx[re->x0 + i] = (uint8_t)(CG__PALETTE_FIXED + (uint64_t)v * (RAMP - 1) / span);
    }
}

cg_status cg__write_png_reach(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                              cg_diag *diag)
{
    size_t pw = (size_t)g->w * scale; /* checked by cg__write_png */
    uint8_t *idx = cg__malloc(g->w);
    png_bytep row = cg__malloc(pw);
    png_structp png = NULL;
    png_infop info = NULL;
    png_color pal[CG__PALETTE_FIXED + RAMP];
    struct cg__png_sink sink = {write, ctx, 0};
    cg_status st = CG_ENOMEM;
    make_palette(pal);
    if (!idx || !row)
        goto done;
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, diag, cg__png_on_error,
                                  cg__png_on_warning);
    if (!png)
        goto done;
    info = png_create_info_struct(png);
    if (!info)
        goto done;
    png_set_write_fn(png, &sink, cg__png_sink_write, cg__png_sink_flush); /* before setjmp */
    if (setjmp(png_jmpbuf(png))) {
        st = sink.failed ? CG_EIO : CG_ENOMEM;
        goto done;
    }
    png_set_IHDR(png, info, (png_uint_32)pw, (png_uint_32)((size_t)g->h * scale), 8,
                 PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_PLTE(png, info, pal, CG__PALETTE_FIXED + RAMP);
    png_set_filter(png, 0, PNG_FILTER_UP); /* each cell row repeats `scale` times */
    png_write_info(png, info);
    size_t lo = 0, hi = 0; /* the markers whose glyphs can cross this cell row */
    for (uint32_t y = 0; y < g->h; y++) {
        index_row(g, y, idx);
        cg__glyph_window(g, y, &lo, &hi);
        for (uint32_t k = 0; k < scale; k++) {
            if (k == 0 || lo < hi)
                for (uint32_t x = 0; x < g->w; x++)
                    memset(row + (size_t)x * scale, idx[x], scale);
            if (lo < hi)
                cg__paint_glyphs(row, 8, pw, scale, g->marks + lo, hi - lo,
                                 (uint64_t)y * scale + k);
            png_write_row(png, row);
        }
    }
    png_write_end(png, NULL);
    st = CG_OK;
done:
    cg__png_status(st, diag);
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    cg__free(row);
    cg__free(idx);
    return st;
}
