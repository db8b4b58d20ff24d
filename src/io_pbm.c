/* io_pbm.c - netpbm's PBM, raw form (P4), for ImageMagick and netpbm
 * pipelines: 1 = black = wall, 0 = white = floor (markers are floor), `scale`
 * pixels per cell like PNG. Each pixel row is packed eight pixels a byte,
 * the first pixel in the high bit, the row padded with 0 bits to a whole
 * byte (netpbm's pbm(5)). A cell row becomes `scale` identical pixel rows:
 * it is packed once and written `scale` times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Byte v with its bits in reverse order: the bitboard keeps cell x in bit
 * x & 63 (low bit first), PBM wants the first pixel in the high bit. */
#define R2(n) (n), (n) + 2 * 64, (n) + 1 * 64, (n) + 3 * 64
#define R4(n) R2(n), R2((n) + 2 * 16), R2((n) + 1 * 16), R2((n) + 3 * 16)
#define R6(n) R4(n), R4((n) + 2 * 4), R4((n) + 1 * 4), R4((n) + 3 * 4)
static const uint8_t reverse8[256] = {R6(0), R6(2), R6(1), R6(3)};
#undef R2
#undef R4
#undef R6

/* Packs pixel row of cell row y into out (bytes bytes, zeroed here). */
static void pack_row(const cg_grid *g, uint32_t y, uint32_t scale, uint8_t *out, size_t bytes)
{
    const uint64_t *row = cg__row(g, y);
    if (scale == 1) {
        for (size_t k = 0; k < bytes; k++)
            out[k] = reverse8[(row[k >> 3] >> (8 * (k & 7))) & 0xff];
        /* Bits past the width are walls in the bitboard; PBM pads with 0. */
        if (g->w & 7)
            out[bytes - 1] &= (uint8_t)(0xff00u >> (g->w & 7));
        return;
    }
    memset(out, 0, bytes);
    for (uint32_t x = 0; x < g->w; x++) {
        if (!((row[x >> 6] >> (x & 63)) & 1))
            continue;
        /* Set pixels x*scale .. x*scale+scale-1. */
        uint64_t p = (uint64_t)x * scale, end = p + scale;
        while (p < end) {
            size_t k = (size_t)(p >> 3);
            unsigned b = (unsigned)(p & 7);
            unsigned n = 8 - b;
            if (n > end - p)
                n = (unsigned)(end - p);
            out[k] |= (uint8_t)(((0xffu >> (8 - n)) << (8 - b - n)));
            p += n;
        }
    }
}

cg_status cg__write_pbm(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
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
    uint8_t *line = malloc(bytes);
    if (!line) {
        cg__diag(diag, 0, 0, "out of memory for a %llu-pixel PBM row", (unsigned long long)pw);
        return CG_ENOMEM;
    }
    cg_status st = CG_OK;
    if (write(ctx, header, (size_t)n) != 0)
        st = CG_EIO;
    for (uint32_t y = 0; y < g->h && st == CG_OK; y++) {
        pack_row(g, y, scale, line, bytes);
        for (uint32_t r = 0; r < scale && st == CG_OK; r++)
            if (write(ctx, line, bytes) != 0)
                st = CG_EIO;
    }
    free(line);
    if (st != CG_OK)
        cg__diag(diag, 0, 0, "write failed");
    return st;
}
