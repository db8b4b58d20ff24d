/* engine/chunk.c - windows of the infinite cave (`--chunk`, docs/scale.md).
 *
 * The infinite cave of a seed is what the pipeline's local steps give when
 * they run on the whole plane: the fill draws every cell from its world
 * coordinates (cg__cell_hash takes any int64 x, y) and there is no border
 * ring. A chunk is one W x H window of it. To compute a window exactly, the
 * pipeline runs on a grid larger by a halo on every side and the window is
 * cut out of its middle.
 *
 * The halo: call a cell "exact" if it holds the infinite cave's value. A
 * fill makes every cell of the grid exact (it reads nothing). A pass that
 * reads neighbours up to r cells away keeps a cell exact only if every cell
 * it reads was exact, and cells outside the grid (read as wall) never are:
 * so the band along the edge that may be wrong grows by r per pass, whatever
 * the pass does to it (the wall ring that `generations` forces lies in that
 * band, so it changes nothing inside). The halo is that band's depth at the
 * end: each step's cg__step_def.chunk_margin adds its passes' radii, a fill
 * resets it to 0. Before the first step the grid is all wall, exactly what
 * an infinite all-wall plane gives, so the count starts at 0. This is exact
 * for every rule and conservative for the degenerate ones (a rule that
 * ignores its neighbours would need less).
 *
 * Steps without chunk_margin (regions, connect, placement, maze, downscale,
 * reach) depend on cells any distance away: no halo makes them agree
 * across windows, so chunk mode refuses them. */
#include <string.h>

#include "core/grid.h"
#include "engine/steps.h"

cg_status cg__chunk_halo(const cg__step *steps, size_t n, uint64_t *halo, size_t *bad)
{
    uint64_t margin = 0;
    for (size_t i = 0; i < n; i++) {
        const cg__step_def *def = steps[i].def;
        if (def->setting)
            continue;
        if (!def->chunk_margin) {
            *bad = i;
            return CG_EINVAL;
        }
        margin = def->chunk_margin(&steps[i], margin);
        /* Passes are at most 100000 a step; a sum that runs away is far
         * beyond any grid and refused by the caller anyway. */
        if (margin > CG_MAX_DIM)
            margin = (uint64_t)CG_MAX_DIM + 1;
    }
    *halo = margin;
    return CG_OK;
}

void cg__local_step_names(char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < cg__step_count; i++) {
        const cg__step_def *def = cg__steps[i];
        if (!def->chunk_margin)
            continue;
        size_t n = strlen(def->name);
        if (len + n + 3 > cap)
            break;
        if (len) {
            memcpy(buf + len, ", ", 2);
            len += 2;
        }
        memcpy(buf + len, def->name, n);
        len += n;
        buf[len] = '\0';
    }
}

/* Bits x .. x+63 of row r (x >= 0; bits past the row's words read as the
 * wall word that frames it). */
static inline uint64_t bits_at(const uint64_t *r, uint64_t x)
{
    size_t i = (size_t)(x >> 6);
    unsigned s = (unsigned)(x & 63);
    return s ? r[i] >> s | r[i + 1] << (64 - s) : r[i];
}

cg_status cg__grid_crop(cg_grid **out, const cg_grid *src, uint32_t x0, uint32_t y0, uint32_t w,
                        uint32_t h)
{
    cg_grid *g = NULL;
    cg_status st = cg_grid_new(&g, w, h);
    if (st != CG_OK) {
        *out = NULL;
        return st;
    }
    for (uint32_t y = 0; y < h; y++) {
        const uint64_t *s = cg__row(src, (int64_t)y0 + y);
        uint64_t *d = cg__row(g, y);
        /* The last source word read is (x0 + 64*nw - 1) >> 6 <= src->nw when
         * the window lies inside src: at most the right frame word. */
        for (size_t i = 0; i < g->nw; i++)
            d[i] = bits_at(s, (uint64_t)x0 + 64 * (uint64_t)i);
    }
    cg__grid_fix_tail(g);
    *out = g;
    return CG_OK;
}
