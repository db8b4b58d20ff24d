/* io/png.h - what the two PNG writers share. */
#ifndef CG_IO_PNG_H
#define CG_IO_PNG_H

#include <png.h>

#include "core/grid.h"

/* Wall, floor, entrance, exit, point of interest, blocked (docs/formats.md). */
#define CG__PALETTE_FIXED 6
extern const png_color cg__palette[CG__PALETTE_FIXED];

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

/* io/png_reach.c: a map with a reach attached, as an 8-bit palette image
 * whose reached cells take a colour ramp over their distance. */
cg_status cg__write_png_reach(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                              cg_diag *diag);

#endif
