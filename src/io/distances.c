/* io/distances.c - the machine-readable reach list (docs/reach.md): a
 * CSV header "x,y,distance", then one line per reached cell in scan order
 * (y, then x). For scripts: `cavegen -i map.txt --reach 3,4 -f distances`. */
#include <stdio.h>
#include <stdlib.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "io/format.h"
#include "regions/reach.h"

#define BUF_BYTES 65536

static cg_status write_csv(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag)
{
    const cg__reach *r = g->reach;
    if (!r) {
        cg__diag(diag, 0, 0, "the distances format needs a reach (a `reach` step or --reach)");
        return CG_EINVAL;
    }
    char *buf = cg__malloc(BUF_BYTES);
    if (!buf) {
        cg__diag(diag, 0, 0, "out of memory");
        return CG_ENOMEM;
    }
    size_t used = (size_t)snprintf(buf, BUF_BYTES, "x,y,distance\n");
    for (uint32_t wy = 0; wy < r->h; wy++) {
        const size_t d = cg__reach_at(r, 0, wy);
        for (uint32_t wx = 0; wx < r->w; wx++) {
            const uint32_t v = cg__reach_dist(r, d + wx);
            if (v == CG_UNREACHED)
                continue;
            if (BUF_BYTES - used < 40) { /* one line is at most 3 numbers of 10 digits */
                if (write(ctx, buf, used) != 0)
                    goto fail;
                used = 0;
            }
            used += (size_t)snprintf(buf + used, BUF_BYTES - used, "%u,%u,%u\n", r->x0 + wx,
                                     r->y0 + wy, v);
        }
    }
    if (write(ctx, buf, used) != 0)
        goto fail;
    cg__free(buf);
    return CG_OK;
fail:
    cg__free(buf);
    cg__diag(diag, 0, 0, "write failed");
    return CG_EIO;
}

static cg_status write_distances(const cg_grid *g, const cg__write_args *a)
{
    return write_csv(g, a->write, a->ctx, a->diag);
}

const cg__format_def cg__format_distances = {
    .name = "distances",
    .extension = ".csv",
    .summary = "x,y,distance lines of a reach",
    .stream = 1,
    .write = write_distances,
};
