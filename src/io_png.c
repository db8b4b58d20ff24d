/* io_png.c - PNG output through libpng (SPEC 5): a palette image, `scale`
 * pixels per cell, 1 bit per pixel when the map is only walls and floor
 * (4 bits when it has markers). The bytes depend only on the grid and the
 * scale (no time chunk).
 *
 * Speed (docs/PERFORMANCE.md). A 4096x4096 map at the default scale 4 is a
 * 16384x16384 image, 32 MiB of 1-bit rows, and pushing every row through
 * png_write_row and zlib cost most of a second. But each cell row becomes
 * `scale` identical pixel rows, and with PNG's Up filter (row minus the row
 * above) the copies are a filter byte 2 and zeros. So:
 *   - the pixel row of a cell row is built from a table, 8 cells per look-up;
 *   - only that row is Up-filtered and deflated (zlib, Z_RLE strategy: runs
 *     coded as distance-1 matches, no hash-chain search, which suits a cave's
 *     long wall and floor runs and the filtered zeros), then flushed to a byte
 *     boundary (Z_SYNC_FLUSH);
 *   - the scale-1 copies are the same bytes for every cell row: they are
 *     deflated once, in a stream of their own (so they refer to nothing
 *     before them), and that block is spliced in after each row;
 *   - as Z_RLE only ever looks one byte back, the main stream is then told
 *     (deflateSetDictionary) that the byte before its next input is 0, the
 *     last byte of the copies, which keeps it consistent with what a decoder
 *     has seen;
 *   - the Adler-32 of the whole is the row's checksum combined with the
 *     copies' (adler32_combine).
 * libpng writes the signature, IHDR, PLTE, each IDAT chunk (png_write_chunk,
 * with its CRC) and IEND; this file makes the zlib stream those IDAT chunks
 * carry. tests/test_io_png.c decodes the result with libpng (which checks
 * the Adler-32) pixel by pixel. */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

/* Compressed bytes are gathered into IDAT chunks of about this size. */
#define IDAT_BYTES ((size_t)1 << 18)
/* zlib takes at most this much input per call (its counters are uInt). */
#define ZCHUNK ((size_t)1 << 30)

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

/* Everything the writer allocates, on the heap so that it survives the
 * longjmp of a libpng error unchanged. */
struct pngw {
    png_structp png;
    z_stream z;      /* the image's deflate stream (raw: we add the zlib frame) */
    int z_live;
    uint8_t *table;  /* 256 entries of bytes8: see build_table */
    uint8_t *cur;    /* the pixel row being built (room for whole 8-cell groups) */
    uint8_t *prev;   /* the pixel row above it */
    uint8_t *filt;   /* filter byte + Up-filtered row: what gets deflated */
    uint8_t *copies; /* the deflated scale-1 repeated rows */
    size_t ncopies;
    uint8_t *out;    /* compressed bytes waiting for an IDAT chunk */
    size_t used;
};

/* Pixel bytes for 8 cells at the given depth and scale: entry v of the
 * table is the image of the 8 cells whose wall bits are v (bit j = cell j,
 * 1 = wall = palette index 0, 0 = floor = index 1), `scale` pixels per cell,
 * PNG's bit order (first pixel in the high bits). */
static void build_table(uint8_t *table, uint32_t scale, int depth)
{
    size_t bytes8 = (size_t)scale * (size_t)depth;
    for (unsigned v = 0; v < 256; v++) {
        uint8_t *e = table + v * bytes8;
        memset(e, 0, bytes8);
        for (uint32_t p = 0; p < 8 * scale; p++) {
            unsigned floor = ((v >> (p / scale)) & 1) ? 0 : 1;
            if (depth == 1)
                e[p >> 3] |= (uint8_t)(floor << (7 - (p & 7)));
            else
                e[p >> 1] |= (uint8_t)(floor << ((p & 1) ? 0 : 4));
        }
    }
}

/* Sets the pixels of cell x (depth 4) to palette index v. */
static void paint_cell(uint8_t *row, uint32_t x, uint32_t scale, unsigned v)
{
    size_t p = (size_t)x * scale;
    for (uint32_t k = 0; k < scale; k++, p++) {
        unsigned shift = (p & 1) ? 0 : 4;
        row[p >> 1] = (uint8_t)((row[p >> 1] & ~(0xfu << shift)) | (v << shift));
    }
}

static void emit_idat(struct pngw *w)
{
    if (w->used) {
        png_write_chunk(w->png, (png_const_bytep) "IDAT", w->out, w->used);
        w->used = 0;
    }
}

static void append(struct pngw *w, const uint8_t *data, size_t len)
{
    while (len) {
        size_t n = IDAT_BYTES - w->used < len ? IDAT_BYTES - w->used : len;
        memcpy(w->out + w->used, data, n);
        w->used += n;
        data += n;
        len -= n;
        if (w->used == IDAT_BYTES)
            emit_idat(w);
    }
}

/* Deflates len bytes into w->out (flushing full IDAT chunks), the last
 * piece with `flush`. */
static void deflate_into(struct pngw *w, z_stream *z, const uint8_t *in, size_t len, int flush)
{
    do {
        size_t n = len < ZCHUNK ? len : ZCHUNK;
        z->next_in = (Bytef *)(uintptr_t)in; /* zlib does not write through next_in */
        z->avail_in = (uInt)n;
        in += n;
        len -= n;
        int f = len ? Z_NO_FLUSH : flush;
        do {
            if (w->used == IDAT_BYTES)
                emit_idat(w);
            z->next_out = w->out + w->used;
            z->avail_out = (uInt)(IDAT_BYTES - w->used);
            int rc = deflate(z, f);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
                png_error(w->png, "zlib deflate failed");
            w->used = IDAT_BYTES - z->avail_out;
        } while (z->avail_out == 0 || z->avail_in != 0);
    } while (len);
}

static int zinit(z_stream *z)
{
    memset(z, 0, sizeof *z);
    /* Raw deflate (windowBits < 0): the zlib header and Adler-32 are
     * written here. Level 6 with Z_RLE: the level only sets block sizes. */
    return deflateInit2(z, 6, Z_DEFLATED, -15, 8, Z_RLE);
}

/* The scale-1 copies of a row under the Up filter: each is the filter byte 2
 * and rowbytes zeros. Deflated once into w->copies by a stream of their own,
 * ended by Z_SYNC_FLUSH (byte-aligned, not final). Returns their Adler-32
 * (as if started from 1). */
static uLong deflate_copies(struct pngw *w, uint32_t copies, const uint8_t *zero_row,
                            size_t rowlen)
{
    z_stream z;
    uLong adler = adler32(0L, Z_NULL, 0);
    if (zinit(&z) != Z_OK)
        png_error(w->png, "out of memory for zlib");
    /* Borrow w->out as the output buffer; nothing is pending in it yet. */
    size_t saved = w->used;
    for (uint32_t k = 0; k < copies; k++) {
        adler = adler32_z(adler, zero_row, rowlen);
        w->used = 0;
        z.next_in = (Bytef *)(uintptr_t)zero_row;
        z.avail_in = (uInt)rowlen;
        do {
            size_t room = w->ncopies + IDAT_BYTES;
            uint8_t *grown = realloc(w->copies, room);
            if (!grown) {
                deflateEnd(&z);
                png_error(w->png, "out of memory");
            }
            w->copies = grown;
            z.next_out = w->copies + w->ncopies;
            z.avail_out = (uInt)IDAT_BYTES;
            int rc = deflate(&z, k + 1 == copies ? Z_SYNC_FLUSH : Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_BUF_ERROR) {
                deflateEnd(&z);
                png_error(w->png, "zlib deflate failed");
            }
            w->ncopies += IDAT_BYTES - z.avail_out;
        } while (z.avail_out == 0 || z.avail_in != 0);
    }
    w->used = saved;
    deflateEnd(&z);
    return adler;
}

static void up_filter(uint8_t *restrict out, const uint8_t *restrict cur,
                      const uint8_t *restrict prev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(cur[i] - prev[i]);
}

/* The image data: zlib header, the deflate stream, Adler-32. */
static void write_image(struct pngw *w, const cg_grid *g, uint32_t scale, int depth,
                        size_t rowbytes)
{
    size_t bytes8 = (size_t)scale * (size_t)depth;
    size_t ngroups = ((size_t)g->w + 7) / 8;
    size_t rowlen = rowbytes + 1;
    uLong adler = adler32(0L, Z_NULL, 0), adler_copies = 0;
    size_t copies_mod = 0; /* length of the copies mod 65521: all adler32_combine uses */

    build_table(w->table, scale, depth);
    memset(w->prev, 0, rowbytes); /* the row above the first is zeros (PNG) */
    if (scale > 1) {
        /* filt is free until the first row: use it as the copy row. */
        memset(w->filt, 0, rowlen);
        w->filt[0] = 2;
        adler_copies = deflate_copies(w, scale - 1, w->filt, rowlen);
        copies_mod = (size_t)(((uint64_t)(scale - 1) * rowlen) % 65521u);
    }
    if (zinit(&w->z) != Z_OK)
        png_error(w->png, "out of memory for zlib");
    w->z_live = 1;
    static const uint8_t header[2] = {0x78, 0x01}; /* deflate, 32K window */
    append(w, header, 2);

    size_t mi = 0;
    for (uint32_t y = 0; y < g->h; y++) {
        const uint64_t *r = cg__row(g, y);
        for (size_t b = 0; b < ngroups; b++)
            memcpy(w->cur + b * bytes8,
                   w->table + ((r[b >> 3] >> (8 * (b & 7))) & 0xff) * bytes8, bytes8);
        for (; mi < g->nmarks && g->marks[mi].y == y; mi++)
            paint_cell(w->cur, g->marks[mi].x, scale, 1u + g->marks[mi].kind);
        w->filt[0] = 2; /* Up */
        up_filter(w->filt + 1, w->cur, w->prev, rowbytes);
        adler = adler32_z(adler, w->filt, rowlen);
        deflate_into(w, &w->z, w->filt, rowlen, scale > 1 ? Z_SYNC_FLUSH : Z_NO_FLUSH);
        if (scale > 1) {
            append(w, w->copies, w->ncopies);
            adler = adler32_combine(adler, adler_copies, (z_off_t)copies_mod);
            static const Bytef zero = 0;
            if (deflateSetDictionary(&w->z, &zero, 1) != Z_OK)
                png_error(w->png, "zlib dictionary failed");
        }
        uint8_t *t = w->prev;
        w->prev = w->cur;
        w->cur = t;
    }
    deflate_into(w, &w->z, NULL, 0, Z_FINISH);
    uint8_t trailer[4] = {(uint8_t)(adler >> 24), (uint8_t)(adler >> 16), (uint8_t)(adler >> 8),
                          (uint8_t)adler};
    append(w, trailer, 4);
    emit_idat(w);
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
    /* Rows are built 8 cells at a time, so the buffers have room for whole
     * groups; only rowbytes go into the image, and the pixels of cells past
     * the map's width are walls (index 0, zero bits), so the padding bits at
     * the end of a row are zero. Sizes: w <= 2^31 / 4 / scale cells, so
     * none of these products overflows. */
    size_t bytes8 = (size_t)scale * (size_t)depth;
    size_t rowcap = ((size_t)g->w + 7) / 8 * bytes8;
    cg_status st = CG_ENOMEM;
    struct sink sink = {write, ctx, 0};
    png_infop info = NULL;
    struct pngw *w = calloc(1, sizeof *w);
    if (!w)
        goto done;
    w->table = malloc(256 * bytes8);
    w->cur = malloc(rowcap);
    w->prev = malloc(rowcap);
    w->filt = malloc(rowbytes + 1);
    w->out = malloc(IDAT_BYTES);
    if (!w->table || !w->cur || !w->prev || !w->filt || !w->out)
        goto done;
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, diag, on_error, on_warning);
    if (!w->png)
        goto done;
    info = png_create_info_struct(w->png);
    if (!info)
        goto done;
    if (setjmp(png_jmpbuf(w->png))) {
        st = sink.failed ? CG_EIO : CG_ENOMEM;
        goto done;
    }
    png_set_write_fn(w->png, &sink, sink_write, sink_flush);
    png_set_IHDR(w->png, info, (png_uint_32)pw, (png_uint_32)ph, depth, PNG_COLOR_TYPE_PALETTE,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_PLTE(w->png, info, palette, depth == 1 ? 2 : (int)(sizeof palette / sizeof *palette));
    png_write_info(w->png, info);
    write_image(w, g, scale, depth, rowbytes);
    png_write_chunk(w->png, (png_const_bytep) "IEND", NULL, 0);
    st = CG_OK;
done:
    if (st == CG_ENOMEM && diag && !diag->message[0])
        cg__diag(diag, 0, 0, "out of memory");
    if (st == CG_EIO)
        cg__diag(diag, 0, 0, "write failed");
    if (w) {
        if (w->z_live)
            deflateEnd(&w->z);
        if (w->png)
            png_destroy_write_struct(&w->png, info ? &info : NULL);
        free(w->table);
        free(w->cur);
        free(w->prev);
        free(w->filt);
        free(w->copies);
        free(w->out);
        free(w);
    }
    return st;
}
