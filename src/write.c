/* write.c - cg_write: checks the options and hands the grid to the writer
 * of the chosen format (one file per format). */
#include "internal.h"

cg_status cg_write(const cg_grid *grid, const cg_write_options *options, cg_write_fn write,
                   void *ctx, cg_diag *diag)
{
    cg_write_options defaults = {CG_FORMAT_ASCII, 0};
    const cg_write_options *o = options ? options : &defaults;
    uint32_t scale = o->scale ? o->scale : 4;
    if (scale > 64) {
        cg__diag(diag, 0, 0, "scale must be in 1..64, not %u", scale);
        return CG_EINVAL;
    }
    switch (o->format) {
    case CG_FORMAT_ASCII:
        return cg__write_ascii(grid, write, ctx, diag);
    case CG_FORMAT_PNG:
        return cg__write_png(grid, scale, write, ctx, diag);
    }
    cg__diag(diag, 0, 0, "unknown format %d", (int)o->format);
    return CG_EINVAL;
}
