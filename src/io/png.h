/* io/png.h - what the two PNG writers share. */
#ifndef CG_IO_PNG_H
#define CG_IO_PNG_H

#include <png.h>

#include "core/grid.h"

/* The palette (docs/formats.md): wall, floor, entrance, exit, point of
 * interest, blocked, the markers' outline, then the 26 named kinds of
 * points 'A'..'Z'. A map without markers uses the first 2 entries, one with
 * markers of the first four kinds the first 7, one with named kinds all. */
#define CG__PAL_OUTLINE 6
#define CG__PAL_NAMED 7
#define CG__PALETTE_FIXED (CG__PAL_NAMED + 26)
/* Fills pal with those colours (io/palette.c). */
void cg__png_palette(png_color pal[CG__PALETTE_FIXED]);

/* Palette index of a marker's colour. */
static inline unsigned cg__mark_colour(const cg__mark *m)
{
    if (m->sym >= 'A' && m->sym <= 'Z')
        return CG__PAL_NAMED + (unsigned)(m->sym - 'A');
    return 1u + m->kind;
}

/* Markers are drawn as glyphs over the cells, centred on their cell and
 * reaching at most one cell row above and below it (io/png.c). Paints, into
 * a pixel row of pw pixels at `depth` bits (4 or 8) - pixel row py of the
 * image at `scale` - every pixel of the glyphs of marks[0..n) that it
 * crosses, in order (a later marker is drawn over an earlier one). */
void cg__paint_glyphs(uint8_t *row, int depth, uint64_t pw, uint32_t scale, const cg__mark *marks,
                      size_t n, uint64_t py);

/* The markers whose glyphs can cross cell row y: marks[*lo..*hi), advanced
 * from their values for the row before (start both at 0). */
static inline void cg__glyph_window(const cg_grid *g, uint32_t y, size_t *lo, size_t *hi)
{
    while (*lo < g->nmarks && (uint64_t)g->marks[*lo].y + 1 < y)
        ++*lo;
    if (*hi < *lo)
        *hi = *lo;
    while (*hi < g->nmarks && g->marks[*hi].y <= (uint64_t)y + 1)
        ++*hi;
}

/* libpng's output and error callbacks, writing through a cg_write_fn; a
 * failed write is remembered so the writer returns CG_EIO, not CG_ENOMEM. */
struct cg__png_sink {
    cg_write_fn write;
    void *ctx;
    int failed;
};
void cg__png_sink_write(png_structp png, png_bytep data, size_t len);
void cg__png_sink_flush(png_structp png);
void cg__png_on_error(png_structp png, png_const_charp msg);   /* error_ptr: a cg_diag */
void cg__png_on_warning(png_structp png, png_const_charp msg); /* ignored */
/* The message of a PNG writer's end status, unless one was given: "out of
 * memory", or "write failed" for the callback's failure. Returns st. */
cg_status cg__png_status(cg_status st, cg_diag *diag);

/* The cells of a stripe of a big PNG (io/png.c, "Stripes"); 0: the default.
 * For the tests, which make small images of several stripes. */
void cg__png_set_stripe_cells(uint64_t cells);

/* io/png_reach.c: a map with a reach attached, as an 8-bit palette image
 * whose reached cells take a colour ramp over their distance. */
cg_status cg__write_png_reach(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                              cg_diag *diag);

#endif
