/* io/png_format.c - the PNG format's definition, compiled in every build:
 * with libpng it writes through io/png.c, without it (CAVEGEN_PNG=OFF) it
 * refuses with CG_EUNSUPPORTED before writing a byte. */
#include "core/diag.h"
#include "io/format.h"

static cg_status write_png(const cg_grid *g, const cg__write_args *a)
{
#ifdef CG_HAVE_PNG
    return cg__write_png(g, a->scale, a->par, a->write, a->ctx, a->diag);
#else
    (void)g;
    cg__diag(a->diag, 0, 0, "cannot write PNG: libcavegen was built without PNG support");
    return CG_EUNSUPPORTED;
#endif
}

const cg__format_def cg__format_png = {
    .name = "png",
    .extension = ".png",
    .summary = "palette image, --scale px per cell",
    .binary = 1,
    .needs_png = 1,
    .write = write_png,
};
