/* io/pbm.c - netpbm's PBM, raw form (P4), for ImageMagick and netpbm
 * pipelines: 1 = black = wall, 0 = white = floor (markers are floor), `scale`
 * pixels per cell like PNG. Each pixel row is packed eight pixels a byte,
 * the first pixel in the high bit, the row padded with 0 bits to a whole
 * byte (netpbm's pbm(5)). A cell row becomes `scale` identical pixel rows:
 * it is packed once, eight cells at a time through a table, and written
 * `scale` times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "io/format.h"

/* The pixel bytes of 8 cells: entry v (scale bytes, since 8 cells of scale
 * pixels are 8 * scale bits) is the image of the cells whose wall bits are v
 * (bit j = cell j, the bitboard's order), first pixel in the high bit. */
static void build_table(uint8_t *table, uint32_t scale)
{
    for (unsigned v = 0; v < 256; v++) {
        uint8_t *e = table + (size_t)v * scale;
        memset(e, 0, scale);
        for (uint32_t p = 0; p < 8 * scale; p++)
            if ((v >> (p / scale)) & 1)
                e[p >> 3] |= (uint8_t)(0x80u >> (p & 7));
    }
}

/* Packs the pixel row of cell row y into out: whole 8-cell groups of scale
 * bytes each (out has room for ceil(w / 8) of them), then the bits past the
 * image's width - walls in the bitboard's tail - cleared, as PBM pads with 0. */
static void pack_row(const cg_grid *g, uint32_t y, uint32_t scale, const uint8_t *table,
                     uint8_t *out)
{
    const uint64_t *row = cg__row(g, y);
    size_t groups = ((size_t)g->w + 7) / 8;
    for (size_t k = 0; k < groups; k++) {
        unsigned v = (unsigned)(row[k >> 3] >> (8 * (k & 7))) & 0xffu;
        memcpy(out + k * scale, table + (size_t)v * scale, scale);
    }
    uint64_t pw = (uint64_t)g->w * scale;
    if (pw & 7)
        out[pw >> 3] &= (uint8_t)(0xff00u >> (pw & 7));
}

static cg_status write_bitmap(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                              cg_diag *diag)
{
    /* w, h <= CG_MAX_DIM = 2^20 and scale <= 64: the pixel sizes fit easily. */
    uint64_t pw = (uint64_t)g->w * scale, ph = (uint64_t)g->h * scale;
    size_t bytes = (size_t)((pw + 7) / 8);
    char header[64];
    int n = snprintf(header, sizeof header, "P4\n%llu %llu\n", (unsigned long long)pw,
                     (unsigned long long)ph);
    if (n < 0 || (size_t)n >= sizeof header) {
        cg__diag(diag, 0, 0, "PBM header too long");
        return CG_EOVERFLOW;
    }
    size_t groups = ((size_t)g->w + 7) / 8;
    uint8_t *table = cg__malloc((size_t)256 * scale);
    uint8_t *line = cg__malloc(groups * scale);
    if (!table || !line) {
        cg__free(table);
        cg__free(line);
        cg__diag(diag, 0, 0, "out of memory for a %llu-pixel PBM row", (unsigned long long)pw);
        return CG_ENOMEM;
    }
    build_table(table, scale);
    cg_status st = CG_OK;
    if (write(ctx, header, (size_t)n) != 0)
        st = CG_EIO;
    for (uint32_t y = 0; y < g->h && st == CG_OK; y++) {
        pack_row(g, y, scale, table, line);
        for (uint32_t r = 0; r < scale && st == CG_OK; r++)
            if (write(ctx, line, bytes) != 0)
                st = CG_EIO;
    }
    cg__free(line);
    cg__free(table);
    if (st != CG_OK)
        cg__diag(diag, 0, 0, "write failed");
    return st;
}

static cg_status write_pbm(const cg_grid *g, const cg__write_args *a)
{
    return write_bitmap(g, a->scale, a->write, a->ctx, a->diag);
}

const cg__format_def cg__format_pbm = {
    .name = "pbm",
    .extension = ".pbm",
    .summary = "netpbm bitmap, black walls",
    .binary = 1,
    .write = write_pbm,
};
