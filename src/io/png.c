/* io/png.c - PNG output through libpng (docs/formats.md): a palette image, `scale`
 * pixels per cell, 1 bit per pixel when the map is only walls and floor
 * (4 bits when it has markers, 8 with named kinds of points), markers drawn
 * as glyphs larger than their cell. The bytes depend only on the grid and
 * the scale (no time chunk).
 *
 * libpng writes the signature, IHDR, PLTE, the IDAT chunks (with their CRCs,
 * png_write_chunk) and IEND; this file makes the zlib stream (RFC 1950/1951)
 * that the IDAT chunks carry, because general-purpose deflate is the whole
 * cost here: a 4096x4096 map at the default scale 4 is a 16384x16384 image,
 * 32 MiB of 1-bit rows, and libpng + zlib took most of a second on it (zlib's
 * Z_RLE strategy still ~100 ms: ~50 instructions per literal byte, and such
 * an image has millions). The structure of the image makes it cheap:
 *
 *   - Each cell row is `scale` identical pixel rows. The first is stored with
 *     filter None, the copies with filter Up, so each copy is a filter byte 2
 *     and zeros: a few 258-byte matches.
 *   - A pixel row is 8-cell groups, each the same few bytes for the same 8
 *     cells (a 256-entry table). The parse is zlib's Z_RLE one (greedy:
 *     a byte equal to the one before continues a run, coded as a distance-1
 *     match; anything else is a literal), but done a group at a time: a
 *     group of one repeated byte extends or starts a run in O(1), any other
 *     group is its bytes as literals, whose Huffman codes are precomputed per
 *     group value and written with one shift-or. The second pass takes a
 *     word of 8 groups at once where it can (lits_word at scale 1,
 *     groups_word at 4 to 32 bytes a group), with no branch per group.
 *   - Two passes over the map: the first counts the symbols, which gives one
 *     dynamic Huffman code (length-limited, RFC 1951 3.2.7) for a single
 *     block; the second writes it. A small image's first pass also keeps
 *     its symbols as tokens (2 bytes each), and the second writes those
 *     instead of parsing the image again.
 *   - The Adler-32 is kept per group from precomputed sums as well, a whole
 *     word of 8 groups at once.
 *   - What depends only on the scale and the depth (the group table and its
 *     sums, the glyphs' sprites) is kept per thread between images: a batch
 *     of small maps built it once per map, a quarter of its cost.
 * The cell rows that markers' glyphs cross (each glyph reaches one cell row
 * above and below its own) and the last partial group of a row go byte by
 * byte through the same parse (as runs of equal bytes, found 8 bytes a
 * step), every pixel row of such a band on its own: the cell row's pixels
 * are built once, each pixel row is a copy with the glyphs painted from
 * sprites, and its Up filter is computed only where its glyphs or the row
 * above's lie (zeros elsewhere). tests/test_io_png.c decodes the result
 * with libpng (which checks the CRCs and the Adler-32) pixel by pixel, and
 * compares its bytes with those of the plain encoder this one grew from
 * (tests/png_oracle.c). */
#include <png.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cells/par.h"
#include "core/cpu.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "io/format.h"
#include "io/palette.h"
#include "io/png.h"

void cg__png_palette(png_color pal[CG__PALETTE_FIXED])
{
    cg__rgb fixed[CG__PAL_NAMED] = {cg__wall_rgb,         cg__floor_rgb,        cg__mark_rgb('<'),
                                    cg__mark_rgb('>'),    cg__mark_rgb('*'),    cg__mark_rgb('x'),
                                    cg__outline_rgb};
    for (unsigned i = 0; i < CG__PALETTE_FIXED; i++) {
        cg__rgb c = i < CG__PAL_NAMED ? fixed[i] : cg__mark_rgb((uint8_t)('A' + i - CG__PAL_NAMED));
        pal[i] = (png_color){c.r, c.g, c.b};
    }
}

/* Compressed bytes are gathered into IDAT chunks of about this size. */
#define IDAT_BYTES ((size_t)1 << 18)
#define ADLER_MOD 65521u
/* Deflate's literal/length alphabet: 256 literals, end of block, 29 lengths. */
#define NLIT 286
#define EOB 256

void cg__png_sink_write(png_structp png, png_bytep data, size_t len)
{
    struct cg__png_sink *s = png_get_io_ptr(png);
    if (s->write(s->ctx, data, len) != 0) {
        s->failed = 1;
        png_error(png, "write failed");
    }
}

void cg__png_sink_flush(png_structp png)
{
    (void)png;
}

/* libpng reports through longjmp; the message is kept for the diagnostic. */
void cg__png_on_error(png_structp png, png_const_charp msg)
{
    cg_diag *d = png_get_error_ptr(png);
    cg__diag(d, 0, 0, "PNG: %s", msg);
    png_longjmp(png, 1);
}

void cg__png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

cg_status cg__png_status(cg_status st, cg_diag *diag)
{
    if (st == CG_ENOMEM && diag && !diag->message[0])
        cg__diag(diag, 0, 0, "out of memory");
    if (st == CG_EIO)
        cg__diag(diag, 0, 0, "write failed");
    return st;
}

/* What depends only on the scale and the depth, not on the map: kept from
 * one image to the next on each thread when its group table fits here (a
 * batch of small maps used to rebuild it for every map, a quarter of the
 * writer's instructions), else built for the image on the heap. */
#define CACHED_BYTES8 64 /* depth 1 up to scale 64, 4 up to 16, 8 up to 8 */
struct tables {
    uint32_t scale; /* 0: not built */
    int depth;
    size_t bytes8;
    /* Per 8-cell group value v (bit j = cell j is wall): its pixel bytes
     * (table + v * bytes8, plus 8 bytes of slack), whether they are all one
     * byte, and their Adler-32 sums: sum of bytes, and sum of (bytes8-i)*b_i. */
    uint8_t *table;
    uint8_t uniform[256];
    /* Its distinct bytes and how often each occurs in it, if it has at
     * most two (a wall byte and a floor byte: every group where a cell
     * fills whole bytes, as at the default scale 4), else ndistinct 0. */
    uint8_t ndistinct[256], distinct[256][2];
    uint16_t ndup[256][2];
    uint32_t gsum[256], gwsum[256];
    /* A group's weighted sum in the Adler-32 of a whole word of 8 groups,
     * by its place k: gwsum + bytes8 * (7 - k) * gsum, in the low 32 bits,
     * and its gsum in the high ones, so that a word's two sums take one
     * load and add a group (parse_image). The low halves of 8 groups stay
     * under 2^32: bytes8 <= 512, so each is under 65521 + 512 * 7 * 512 *
     * 255 < 4.7e8. */
    uint64_t wpos[8][256];
    /* How often each byte value occurs in the table, over all 256 groups:
     * the counts every group adds to the code's symbols (write_image). */
    uint64_t hist[256];
    /* Lengths 3..258: symbol, extra bits and their count (RFC 1951 3.2.5). */
    uint16_t lsym[259];
    uint8_t lextra[259], lnextra[259];
    uint8_t store[256 * CACHED_BYTES8 + 8]; /* the table, when cached */
};

/* A marker's glyph as pixels (io/png.c, "glyphs"): for each shape, the n x n
 * pixels from o0 to o0 + n - 1 (either way) from its cell's first pixel, 0
 * outside the glyph, 1 on its outline, 2 inside. Kept per thread up to
 * SPRITE_SCALE, else built for the image. */
#define SPRITE_SCALE 16
#define SPRITE_N(s) (2 * (s) + 6) /* >= the glyph's span: glyph_size + 2 */
#define SPRITE_NB(s) ((s) + 4)   /* bytes of a row at 4 bits: (n + 1) / 2 + 1 */
#define SPRITE_BYTES(s) ((size_t)3 * SPRITE_N(s) * (SPRITE_N(s) + 4 * SPRITE_NB(s)))
struct sprites {
    uint32_t scale; /* 0: not built */
    int64_t o0;
    uint32_t n, nb;
    uint8_t *px[3]; /* by shape, n * n each */
    /* At 4 bits, by shape and the parity of the glyph's first pixel: each
     * row's nb bytes as the nibbles the glyph covers (mask) and those of
     * them inside it (in). */
    uint8_t *mask[3][2], *in[3][2];
    uint8_t store[SPRITE_BYTES(SPRITE_SCALE)];
};

/* The encoder: what every stripe reads (the image, the tables, the code).
 * Heap-allocated: a libpng error longjmps back into cg__write_png, after
 * which its own locals changed since setjmp would be indeterminate (C11
 * 7.13.2.1), but this, reached through an unchanged pointer, is not. */
struct enc {
    png_structp png;
    struct cg__png_sink sink;
    /* The image. */
    const cg_grid *g;
    uint32_t scale;
    uint64_t pw; /* pixels per row */
    int depth;
    size_t rowbytes, bytes8, nfull, rem;
    /* The tables of the scale and depth (struct tables), and the glyphs'
     * sprites when there are markers. */
    const struct tables *t;
    const struct sprites *spr;
    /* Their storage when they are the image's own (not kept per thread). */
    struct tables *own;
    uint8_t *table;
    struct sprites *own_spr;
    uint8_t *sprite_px;
    /* Pass 1: symbol counts, and how often each group value was coded as
     * literals. */
    uint64_t freq[NLIT];
    uint64_t gcount[256];
    /* A small image's tokens (RECORD), or NULL: pass 2 then replays them
     * rather than parsing the image again. */
    uint16_t *tok;
    size_t ntok;
    uint8_t *out; /* IDAT_BYTES (+ 64 of slack): the IDAT chunk being filled */
    /* Stripes: their count, and the slots the stripes of a round are
     * compressed into (io/png.c, "Stripes"). */
    uint32_t nstripes;
    struct part *slots;
    size_t nslots;
    /* Not cleared when made (all written before they are read): */
    /* Copies of t's per-group arrays, beside the code: the hot loop reads
     * them from e, a register it holds anyway. */
    int16_t head[256]; /* a group's byte if all its bytes are that one, else -1 */
    uint8_t last[256]; /* its last byte */
    uint32_t gsum[256], gwsum[256];
    /* Pass 2: the code (bit-reversed, ready to write) and its length. */
    uint16_t code[NLIT];
    uint8_t len[NLIT];
    /* A literal group's codes, concatenated, and their total length (0: too
     * long, write per byte): for the groups pass 1 saw when it saw every
     * row (the only ones pass 2 codes as literals then), else for all. */
    uint64_t gbits[256];
    uint8_t glen[256];
    /* Pass 2 of a word of 8 groups of 4 to 32 bytes (groups_word): what
     * group v writes when it does not lengthen the run before it (its
     * literals, or the one literal of its byte if all its bytes are one:
     * bits, len) and the run it leaves pending (pend: bytes8 - 1 copies of
     * that byte, or none), with head and last, all in one place; a match
     * of length l (3..258) with its extra bits and distance code (wm;
     * nothing for l = 0). wide: the path is on (every group's codes and any
     * match fit one put). */
    struct wide_group {
        uint64_t bits;
        int16_t head; /* as head[] */
        uint8_t last, len, pend;
    } wg[256];
    uint32_t wm[259]; /* bits | length << 24 */
    int wide;
};

/* One stripe's parse and output: the encoder's state that is not shared. */
struct part {
    /* Adler-32 (RFC 1950) of the stripe's uncompressed bytes, at its end. */
    uint64_t a, b;
    /* Pixel rows crossed by markers' glyphs: the cell row's pixels, the
     * row with its glyphs, the one before it, and their difference (the Up
     * filter). */
    uint8_t *base, *row, *above, *diff;
    /* The output: direct, into e->out as IDAT chunks as it fills; or into
     * buf[0..cap) (+ 64 of slack), len bytes at the end, overflow set if
     * cap was too small (the stripe is then made again, with more). */
    int direct, overflow;
    uint8_t *buf;
    size_t cap, len;
    uint32_t *crcs;  /* buffered: the CRC of each IDAT chunk of buf (cap / IDAT_BYTES + 1) */
    uint32_t y0, y1; /* the stripe's cell rows */
};

/* The bit writer: bits not yet written, their count (< 8 between calls),
 * the write position and where the output must be spilled. A local of the
 * stripe's writer, only ever passed to inlined functions: its fields stay
 * in registers, which they could not if it lived in a struct in memory (the
 * byte stores through p may alias anything). */
struct bw {
    uint64_t bits;
    unsigned nbits;
    uint8_t *p, *limit;
};

/* ------------------------------------------------------------ bits */

/* Writes out[0..len) as an IDAT chunk. */
static void emit_idat(png_structp png, const uint8_t *out, size_t len)
{
    if (len)
        png_write_chunk(png, (png_const_bytep) "IDAT", out, len);
}

/* The output reached the writer's limit at p: a direct part writes what it
 * has as an IDAT chunk; a buffered one is full, and goes on over its start
 * (it is made again with a larger buffer). Returns where to go on. Takes p,
 * not the bit writer, so that the writer stays in registers. */
static uint8_t *__attribute__((noinline)) spill(const struct enc *e, struct part *s, uint8_t *p)
{
    if (s->direct) {
        emit_idat(e->png, e->out, (size_t)(p - e->out));
        return e->out;
    }
    s->overflow = 1;
    return s->buf;
}

/* Appends n <= 56 bits (LSB first, RFC 1951 3.1.1). */
static inline __attribute__((always_inline)) void put(const struct enc *e, struct part *s,
                                                      struct bw *w, uint64_t v, unsigned n)
{
    w->bits |= v << w->nbits;
    w->nbits += n;
    unsigned whole = w->nbits >> 3;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(w->p, &w->bits, 8);
#else
    for (unsigned k = 0; k < 8; k++)
        w->p[k] = (uint8_t)(w->bits >> (8 * k));
#endif
    w->p += whole;
    w->bits >>= 8 * whole; /* whole <= 7: the shift is below 64 */
    w->nbits &= 7;
    if (w->p >= w->limit)
        w->p = spill(e, s, w->p);
}

/* ------------------------------------------------------------ Huffman */

/* Code lengths for n symbols from their counts, none longer than maxlen:
 * Huffman's algorithm, and if a length comes out too long, the counts are
 * halved (nonzero stays nonzero) and it is run again. Symbols with count 0
 * get length 0.
 *
 * The two-queue form (van Leeuwen, 1976): leaves sorted by weight (a radix
 * sort, sort_leaves), merged nodes made in order of weight, so each step
 * joins the two smallest of the two queues' fronts - O(n) after the sort. Ties go to the
 * lower node number, leaves (0..m-1, in symbol order) before merged nodes
 * (m.., in order of creation): the same tree as repeatedly picking the two
 * smallest (weight, number) pairs, so the code is the one a plain O(n^2)
 * Huffman would give. */
typedef struct leaf {
    uint64_t w;
    int node; /* its number: its place among the symbols with a count */
} leaf;

/* The leaves in order of (weight, number): a stable LSD radix sort of the
 * numbers on the weight, a byte a pass and only as many passes as the
 * largest weight has bytes (two for a small image), so equal weights keep
 * the order of their numbers - the order of a sort on (weight, number).
 * When at most LIGHT_HEAVY leaves weigh 256 or more (a small image: most
 * symbols are counted once, never having occurred), the light ones take one
 * counting pass and the heavy ones, all after them, an insertion sort. */
#define LIGHT_HEAVY 32
static void sort_leaves(const uint64_t *f, int m, leaf *leaves)
{
    int a[NLIT], b[NLIT], *src = a, *dst = b;
    uint64_t all = 0;
    int heavy = 0;
    for (int i = 0; i < m; i++) {
        a[i] = i;
        all |= f[i];
        heavy += f[i] > 255;
    }
    if ((all >> 8) != 0 && heavy <= LIGHT_HEAVY) {
        unsigned at[257] = {0};
        int h[LIGHT_HEAVY], nh = 0;
        for (int i = 0; i < m; i++)
            at[f[i] > 255 ? 256 : f[i] + 1]++;
        for (int k = 0; k < 255; k++)
            at[k + 1] += at[k];
        for (int i = 0; i < m; i++) {
            if (f[i] > 255) {
                /* Insertion by weight; equal weights keep their order. */
                int j = nh++;
                for (; j > 0 && f[h[j - 1]] > f[i]; j--)
                    h[j] = h[j - 1];
                h[j] = i;
            } else {
                b[at[f[i]]++] = i;
            }
        }
        for (int k = 0; k < nh; k++)
            b[m - nh + k] = h[k];
        for (int i = 0; i < m; i++)
            leaves[i] = (leaf){f[b[i]], b[i]};
        return;
    }
    for (unsigned shift = 0; shift < 64 && (all >> shift) != 0; shift += 8) {
        unsigned at[257] = {0};
        for (int i = 0; i < m; i++)
            at[((f[src[i]] >> shift) & 255) + 1]++;
        for (int k = 0; k < 256; k++)
            at[k + 1] += at[k];
        for (int i = 0; i < m; i++)
            dst[at[(f[src[i]] >> shift) & 255]++] = src[i];
        int *t = src;
        src = dst;
        dst = t;
    }
    for (int i = 0; i < m; i++)
        leaves[i] = (leaf){f[src[i]], src[i]};
}

static void build_lengths(const uint64_t *freq, int n, int maxlen, uint8_t *len)
{
    leaf leaves[NLIT];
    uint64_t f[NLIT], merged[NLIT];   /* merged node k: weight merged[k] */
    int parent[2 * NLIT], sym[NLIT]; /* node numbers: leaves 0..m-1, merged m.. */
    int m = 0;
    memset(len, 0, (size_t)n);
    for (int i = 0; i < n; i++)
        if (freq[i]) {
            sym[m] = i;
            f[m++] = freq[i];
        }
    if (m <= 1) { /* one symbol still needs a 1-bit code */
        if (m == 1)
            len[sym[0]] = 1;
        return;
    }
    for (;;) {
        sort_leaves(f, m, leaves);
        int li = 0, mi = 0, nm = 0; /* fronts of the two queues, merged made */
        for (int step = 0; step < m - 1; step++) {
            int pick[2];
            uint64_t sum = 0;
            for (int k = 0; k < 2; k++) {
                /* A leaf wins ties: its number is lower. */
                if (li < m && (mi == nm || leaves[li].w <= merged[mi])) {
                    sum += leaves[li].w;
                    pick[k] = leaves[li++].node;
                } else {
                    sum += merged[mi];
                    pick[k] = m + mi++;
                }
            }
            merged[nm] = sum;
            parent[pick[0]] = parent[pick[1]] = m + nm;
            parent[m + nm++] = -1;
        }
        /* Depths: a merged node is made after its children, so walking the
         * nodes from the root down gives each its parent's depth first. */
        int depth[2 * NLIT], longest = 0;
        depth[m + nm - 1] = 0;
        for (int k = m + nm - 2; k >= 0; k--)
            depth[k] = depth[parent[k]] + 1;
        for (int i = 0; i < m; i++) {
            len[sym[i]] = (uint8_t)depth[i];
            longest = depth[i] > longest ? depth[i] : longest;
        }
        if (longest <= maxlen)
            return;
        for (int i = 0; i < m; i++)
            f[i] = (f[i] >> 1) | 1;
    }
}

/* The bits of each byte in reverse order. */
#define R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define R4(n) R2(n), R2(n + 2 * 16), R2(n + 1 * 16), R2(n + 3 * 16)
#define R6(n) R4(n), R4(n + 2 * 4), R4(n + 1 * 4), R4(n + 3 * 4)
static const uint8_t rev8[256] = {R6(0), R6(2), R6(1), R6(3)};
#undef R2
#undef R4
#undef R6

/* Canonical codes from lengths (RFC 1951 3.2.2), bit-reversed for writing. */
static void build_codes(const uint8_t *len, int n, uint16_t *code)
{
    /* Four tallies: one would wait on its own last store wherever lengths
     * repeat, as they mostly do. */
    unsigned count[16] = {0}, next[16], tally[4][16] = {{0}};
    int i4 = 0;
    for (; i4 + 4 <= n; i4 += 4)
        for (int k = 0; k < 4; k++)
            tally[k][len[i4 + k]]++;
    for (; i4 < n; i4++)
        tally[0][len[i4]]++;
    for (int l = 0; l < 16; l++)
        count[l] = tally[0][l] + tally[1][l] + tally[2][l] + tally[3][l];
    count[0] = 0;
    unsigned c = 0;
    for (int l = 1; l < 16; l++) {
        c = (c + count[l - 1]) << 1;
        next[l] = c;
    }
    for (int i = 0; i < n; i++) {
        if (!len[i]) {
            code[i] = 0;
            continue;
        }
        unsigned r = next[len[i]]++; /* reversed: each byte by the table, bytes swapped */
        r = (unsigned)rev8[r & 0xff] << 8 | rev8[r >> 8 & 0xff];
        code[i] = (uint16_t)(r >> (16 - len[i]));
    }
}

/* ------------------------------------------------------------ parse */

/* The parse state: the last byte of the stream (-1: none yet), how many
 * more copies of it are pending as a run, and the Adler-32 (RFC 1950) of the
 * bytes so far. A local of parse_image, passed only to inlined functions,
 * so that it stays in registers (the output's byte stores could alias it in
 * memory). */
struct ps {
    int prev;
    uint64_t run;
    uint64_t a, b;
};

/* The symbols of the stream, counted (pass 1: emit COUNT, or RECORD, which
 * also keeps them as tokens, a small image's) or written (pass 2: WRITE).
 * `emit` is a constant in each caller, so each pass gets its own straight
 * code; the Adler-32 is kept by WRITE and RECORD. Tokens: a literal byte
 * (0..255), a match of length l (TOK_MATCH + l), the literals of group v
 * (TOK_GROUP + v). */
enum { COUNT = 0, WRITE = 1, RECORD = 2 };
#define TOK_MATCH 256u
#define TOK_GROUP 1024u
/* Images of at most this many bytes of stream are recorded. */
#define RECORD_BYTES (UINT64_C(1) << 17)

static inline __attribute__((always_inline)) void lit(struct enc *e, struct part *pt, struct bw *w,
                                                      unsigned v, const int emit)
{
    if (emit == WRITE) {
        put(e, pt, w, e->code[v], e->len[v]);
    } else {
        e->freq[v]++;
        if (emit == RECORD)
            e->tok[e->ntok++] = (uint16_t)v;
    }
}

/* A match of length 3..258 at distance 1 (distance code 0, whose code is the
 * single bit 0). */
static inline __attribute__((always_inline)) void match(struct enc *e, struct part *pt,
                                                        struct bw *w, unsigned l, const int emit)
{
    unsigned s = e->t->lsym[l];
    if (emit == WRITE) {
        put(e, pt, w, e->code[s] | (uint64_t)e->t->lextra[l] << e->len[s],
            e->len[s] + e->t->lnextra[l] + 1u);
    } else {
        e->freq[s]++;
        if (emit == RECORD)
            e->tok[e->ntok++] = (uint16_t)(TOK_MATCH + l);
    }
}

/* The literals of group v (pixel bytes px). */
static inline __attribute__((always_inline)) void group_lits(struct enc *e, struct part *pt,
                                                             struct bw *w, unsigned v,
                                                             const uint8_t *px, const int emit)
{
    if (emit != WRITE) {
        e->gcount[v]++;
        if (emit == RECORD)
            e->tok[e->ntok++] = (uint16_t)(TOK_GROUP + v);
    } else if (e->glen[v]) {
        put(e, pt, w, e->gbits[v], e->glen[v]);
    } else {
        for (size_t i = 0; i < e->bytes8; i++)
            put(e, pt, w, e->code[px[i]], e->len[px[i]]);
    }
}

/* Pass 2 of a recorded image: its tokens under the code. */
static void replay(struct enc *e, struct part *pt, struct bw *w)
{
    const uint16_t *tok = e->tok;
    const uint8_t *table = e->t->table;
    for (size_t i = 0, n = e->ntok; i < n; i++) {
        unsigned x = tok[i];
        if (x < TOK_MATCH)
            lit(e, pt, w, x, WRITE);
        else if (x < TOK_GROUP)
            match(e, pt, w, x - TOK_MATCH, WRITE);
        else
            group_lits(e, pt, w, x - TOK_GROUP, table + (x - TOK_GROUP) * e->bytes8, WRITE);
    }
}

static inline __attribute__((always_inline)) void
flush_run(struct enc *e, struct part *pt, struct ps *ps, struct bw *w, const int emit)
{
    uint64_t n = ps->run;
    while (n >= 3) {
        unsigned l = n > 258 ? 258 : (unsigned)n;
        match(e, pt, w, l, emit);
        n -= l;
    }
    while (n--)
        lit(e, pt, w, (unsigned)ps->prev, emit);
    ps->run = 0;
}

/* n copies of byte u, in the parse (the checksum is kept apart). */
static inline __attribute__((always_inline)) void run_of(struct enc *e, struct part *pt,
                                                         struct ps *ps, struct bw *w, unsigned u,
                                                         uint64_t n, const int emit)
{
    if ((int)u == ps->prev) {
        ps->run += n;
    } else {
        flush_run(e, pt, ps, w, emit);
        lit(e, pt, w, u, emit);
        ps->prev = (int)u;
        ps->run = n - 1;
    }
}

/* The Adler-32 sums after n copies of byte u: a += n*u, b += n*a +
 * u*n(n+1)/2, mod 65521 (RFC 1950 8.2). */
static inline void adler_same(struct ps *ps, unsigned u, uint64_t n)
{
    if (n == 1) { /* a filter byte: the sums are reduced later */
        ps->a += u;
        ps->b += ps->a;
        return;
    }
    if (n < (UINT64_C(1) << 20)) { /* no product below overflows */
        uint64_t a = ps->a % ADLER_MOD;
        ps->b = (ps->b % ADLER_MOD + n * a + u * (n * (n + 1) / 2)) % ADLER_MOD;
        ps->a = (a + n * u) % ADLER_MOD;
        return;
    }
    uint64_t a = ps->a % ADLER_MOD, nm = n % ADLER_MOD;
    uint64_t tri = (n & 1) ? nm * (((n + 1) / 2) % ADLER_MOD)
                           : ((n / 2) % ADLER_MOD) * ((n + 1) % ADLER_MOD);
    ps->b = (ps->b % ADLER_MOD + nm * a + tri % ADLER_MOD * u) % ADLER_MOD;
    ps->a = (a + nm * u) % ADLER_MOD;
}

static inline __attribute__((always_inline)) void put_bytes(struct enc *e, struct part *pt,
                                                            struct ps *ps, struct bw *w,
                                                            const uint8_t *s, size_t n,
                                                            const int emit)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ps->prev) {
            ps->run++;
        } else {
            flush_run(e, pt, ps, w, emit);
            lit(e, pt, w, s[i], emit);
            ps->prev = s[i];
        }
        if (emit) {
            ps->a += s[i];
            ps->b += ps->a;
            if ((i & 4095) == 4095) {
                ps->a %= ADLER_MOD;
                ps->b %= ADLER_MOD;
            }
        }
    }
    if (emit) {
        ps->a %= ADLER_MOD;
        ps->b %= ADLER_MOD;
    }
}

/* Bytes s[0..n) that are mostly zeros (a row minus the row above it):
 * stretches of zeros go in as runs, in O(1) each, the rest byte by byte.
 * The same symbols and checksum as put_bytes. */
static inline __attribute__((always_inline)) void put_sparse(struct enc *e, struct part *pt,
                                                             struct ps *ps, struct bw *w,
                                                             const uint8_t *s, size_t n,
                                                             const int emit)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        for (uint64_t v; j + 8 <= n && (memcpy(&v, s + j, 8), v == 0);)
            j += 8;
        while (j < n && s[j] == 0)
            j++;
        if (j > i) {
            run_of(e, pt, ps, w, 0, j - i, emit);
            if (emit)
                adler_same(ps, 0, j - i);
            i = j;
            continue;
        }
        while (j < n && s[j] != 0)
            j++;
        put_bytes(e, pt, ps, w, s + i, j - i, emit);
        i = j;
    }
}

#if defined(CG__HAVE_X86) && defined(__x86_64__)
#include <immintrin.h>

/* The Adler-32 sums over s[0..n) with AVX2, 32 bytes a step (the method of
 * Chromium's adler32_simd): over a block, a grows by the bytes' sum
 * (VPSADBW) and b by 32 times a before it plus the bytes weighted 32..1
 * (VPMADDUBSW, then VPMADDWD); sums reduced every NMAX bytes as zlib does,
 * so nothing overflows. The same sums as zlib's adler32 (test_io_png
 * decodes every image with libpng, which checks them). */
#define ADLER_NMAX 5552u
__attribute__((target("avx2"))) static void adler_avx2(struct ps *ps, const uint8_t *s, size_t n)
{
    uint64_t a = ps->a % ADLER_MOD, b = ps->b % ADLER_MOD;
    const __m256i weights = _mm256_set_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                                            30, 31, 32);
    const __m256i ones16 = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
    while (n >= 32) {
        size_t blocks = (n < ADLER_NMAX ? n : ADLER_NMAX) / 32;
        const uint64_t done = (uint64_t)blocks * 32;
        n -= blocks * 32;
        __m256i va = zero, vprev = zero, vb = zero; /* byte sums, their running sum, weighted */
        for (; blocks; blocks--, s += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)s);
            vprev = _mm256_add_epi64(vprev, va);
            va = _mm256_add_epi64(va, _mm256_sad_epu8(v, zero));
            vb = _mm256_add_epi32(vb, _mm256_madd_epi16(_mm256_maddubs_epi16(v, weights), ones16));
        }
        uint64_t la[4], lp[4];
        uint32_t lb[8];
        _mm256_storeu_si256((__m256i *)(void *)la, va);
        _mm256_storeu_si256((__m256i *)(void *)lp, vprev);
        _mm256_storeu_si256((__m256i *)(void *)lb, vb);
        uint64_t sa = la[0] + la[1] + la[2] + la[3], sp = lp[0] + lp[1] + lp[2] + lp[3];
        uint64_t sb = (uint64_t)lb[0] + lb[1] + lb[2] + lb[3] + lb[4] + lb[5] + lb[6] + lb[7];
        /* Over N bytes, byte t (from 1) adds N - t + 1 times to b: N * a,
         * plus per block j of the B the bytes weighted 32..1 and 32 * (B -
         * 1 - j) times its sum, which is 32 times the sum over the blocks of
         * the blocks before each (sp). */
        b += done * a + 32 * sp + sb;
        a += sa;
        a %= ADLER_MOD;
        b %= ADLER_MOD;
    }
    for (; n; n--, s++) {
        a += *s;
        b += a;
    }
    ps->a = a % ADLER_MOD;
    ps->b = b % ADLER_MOD;
}
#endif

/* The Adler-32 sums over bytes s[0..n): zlib's adler32, 16 bytes a step. */
static void adler_bytes(struct ps *ps, const uint8_t *s, size_t n)
{
#if defined(CG__HAVE_X86) && defined(__x86_64__)
    if (cg__kernel_path() >= CG__PATH_AVX2) {
        adler_avx2(ps, s, n);
        return;
    }
#endif
    uLong ad = (uLong)(ps->b % ADLER_MOD) << 16 | (uLong)(ps->a % ADLER_MOD);
    for (size_t k; n; s += k, n -= k) {
        k = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
        ad = adler32(ad, s, (uInt)k);
    }
    ps->a = ad & 0xffff;
    ps->b = (ad >> 16) & 0xffff;
}

/* Bytes s[0..n) in the parse (the checksum is kept apart): the symbols of
 * put_bytes, found a run of equal bytes at a time, 8 bytes a step. */
static inline __attribute__((always_inline)) void put_runs(struct enc *e, struct part *pt,
                                                           struct ps *ps, struct bw *w,
                                                           const uint8_t *s, size_t n,
                                                           const int emit)
{
    size_t i = 0;
    while (i < n) {
        const unsigned u = s[i];
        size_t j = i + 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t same = u * UINT64_C(0x0101010101010101);
        for (uint64_t v; j + 8 <= n; j += 8) {
            memcpy(&v, s + j, 8);
            if (v != same) {
                j += (size_t)__builtin_ctzll(v ^ same) / 8;
                goto end;
            }
        }
#endif
        while (j < n && s[j] == u)
            j++;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    end:
#endif
        run_of(e, pt, ps, w, u, j - i, emit);
        i = j;
    }
}

/* ------------------------------------------------------------ glyphs */

/* A marker's glyph, in doubled pixel units around its cell's centre: the
 * centre of cell (x, y) is ((2x+1)s, (2y+1)s) and pixel (px, py) is at
 * (2px+1, 2py+1), so every test is exact in integers. The size D is 3 px at
 * scale 1 (the cell and its 8 neighbours: visible on a one-pixel-per-cell
 * map), 3 cells up to scale 4 and 2 cells + 4 px above, so a glyph never
 * reaches past the cell rows beside its own. A dark outline (none at scale
 * 1) sets it off from rock, sand and the reach ramp alike. The shape says
 * the kind as well as the colour: entrance and exit a square
 * (|dx|, |dy| <= 17D/20), points a disc (dx^2 + dy^2 <= D^2), blocked cells
 * an X (||dx| - |dy|| <= D/2 within the square of side 8D/5), the map's
 * letter for an occupied cell. The outline is 1 px up to D = 31, D/16 above. */
enum { GLYPH_DISC, GLYPH_SQUARE, GLYPH_CROSS };

static uint32_t glyph_size(uint32_t s)
{
    return s == 1 ? 3 : s <= 4 ? 3 * s : 2 * s + 4;
}

/* 0 outside the glyph, 1 on its outline, 2 inside; t: the outline's
 * thickness in pixels. */
static int glyph_at(int shape, int64_t dx, int64_t dy, int64_t d, int64_t t)
{
    dx = dx < 0 ? -dx : dx;
    dy = dy < 0 ? -dy : dy;
    const int64_t m = dx > dy ? dx : dy;
    switch (shape) {
    case GLYPH_DISC:
        if (dx * dx + dy * dy > d * d)
            return 0;
        return dx * dx + dy * dy > (d - 2 * t) * (d - 2 * t) ? 1 : 2;
    case GLYPH_SQUARE: {
        const int64_t h = d * 17 / 20;
        if (m > h)
            return 0;
        return m > h - 2 * t ? 1 : 2;
    }
    default: { /* GLYPH_CROSS */
        const int64_t h = d * 4 / 5, arm = d / 2, off = dx > dy ? dx - dy : dy - dx;
        if (m > h || off > arm)
            return 0;
        return m > h - 2 * t || off > arm - 3 * t ? 1 : 2;
    }
    }
}

static inline void put_px(uint8_t *row, int depth, uint64_t p, unsigned v)
{
    if (depth == 8) {
        row[p] = (uint8_t)v;
    } else {
        unsigned shift = (p & 1) ? 0 : 4;
        row[p >> 1] = (uint8_t)((row[p >> 1] & ~(0xfu << shift)) | (v << shift));
    }
}

void cg__paint_glyphs(uint8_t *row, int depth, uint64_t pw, uint32_t scale, const cg__mark *marks,
                      size_t n, uint64_t py)
{
    const int64_t s = scale, d = glyph_size(scale), t = scale == 1 ? 0 : d < 32 ? 1 : d / 16;
    for (size_t i = 0; i < n; i++) {
        const cg__mark *m = &marks[i];
        const int64_t dy = (int64_t)(2 * py + 1) - (2 * (int64_t)m->y + 1) * s;
        if (dy > d || dy < -d)
            continue;
        const int shape = m->kind == CG_MARK_ENTRANCE || m->kind == CG_MARK_EXIT ? GLYPH_SQUARE
                          : m->kind == CG_MARK_BLOCKED                            ? GLYPH_CROSS
                                                                                  : GLYPH_DISC;
        const unsigned colour = cg__mark_colour(m);
        const int64_t cx = (2 * (int64_t)m->x + 1) * s;
        /* Pixels whose doubled centre lies within d of cx, inside the image. */
        int64_t p0 = (cx - d - 1) / 2, p1 = (cx + d - 1) / 2;
        p0 = p0 < 0 ? 0 : p0;
        p1 = p1 >= (int64_t)pw ? (int64_t)pw - 1 : p1;
        for (int64_t p = p0; p <= p1; p++) {
            int at = glyph_at(shape, 2 * p + 1 - cx, dy, d, t);
            if (at)
                put_px(row, depth, (uint64_t)p, at == 1 ? CG__PAL_OUTLINE : colour);
        }
    }
}

/* The glyphs as sprites: glyph_at for each pixel around a cell, once per
 * scale rather than for every pixel of every row (the glyph's pixel p of
 * marker (x, y) is at 2p + 1 - (2x + 1)s = 2(p - xs) + 1 - s from its
 * centre: the same for every cell). */
static void build_sprites(struct sprites *sp, uint32_t scale, uint8_t *store)
{
    const int64_t s = scale, d = glyph_size(scale), t = scale == 1 ? 0 : d < 32 ? 1 : d / 16;
    int64_t o0 = -(d + 2);
    while (2 * o0 + 1 - s < -d)
        o0++;
    sp->o0 = o0;
    const uint32_t n = sp->n = SPRITE_N(scale), nb = sp->nb = SPRITE_NB(scale);
    memset(store, 0, SPRITE_BYTES(scale));
    for (int shape = 0; shape < 3; shape++) {
        uint8_t *px = sp->px[shape] = store + (size_t)shape * n * n;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                px[i * n + j] = (uint8_t)glyph_at(shape, 2 * (o0 + j) + 1 - s,
                                                  2 * (o0 + (int64_t)i) + 1 - s, d, t);
        for (uint32_t phase = 0; phase < 2; phase++) {
            uint8_t *m = store + 3 * (size_t)n * n + ((size_t)shape * 2 + phase) * 2 * n * nb;
            sp->mask[shape][phase] = m;
            sp->in[shape][phase] = m + (size_t)n * nb;
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t j = 0; j < n; j++) {
                    uint32_t q = phase + j;
                    uint8_t nib = (uint8_t)(0xfu << (q & 1 ? 0 : 4));
                    if (px[i * n + j])
                        m[i * nb + q / 2] |= nib;
                    if (px[i * n + j] == 2)
                        m[(size_t)n * nb + i * nb + q / 2] |= nib;
                }
        }
    }
    sp->scale = scale;
}

/* cg__paint_glyphs from the sprites: the same pixels, the same order. Returns
 * the bytes painted, [*lo, *hi) (empty: *lo >= *hi). */
static __attribute__((noinline)) void paint_sprites(uint8_t *row, int depth, uint64_t pw, uint32_t scale,
                          const struct sprites *sp, const cg__mark *marks, size_t n, uint64_t py,
                          size_t *lo, size_t *hi)
{
    const int64_t sn = sp->n;
    size_t blo = SIZE_MAX, bhi = 0;
    for (size_t i = 0; i < n; i++) {
        const cg__mark *m = &marks[i];
        const int64_t oy = (int64_t)py - (int64_t)m->y * scale - sp->o0;
        if (oy < 0 || oy >= sn)
            continue;
        const int shape = m->kind == CG_MARK_ENTRANCE || m->kind == CG_MARK_EXIT ? GLYPH_SQUARE
                          : m->kind == CG_MARK_BLOCKED                            ? GLYPH_CROSS
                                                                                  : GLYPH_DISC;
        const uint8_t *px = sp->px[shape] + oy * sn;
        const unsigned colour = cg__mark_colour(m);
        const int64_t base = (int64_t)m->x * scale + sp->o0;
        if (depth == 4) { /* the row's bytes at once: nibble masks */
            const int phase = (int)(base & 1);
            const int64_t b0 = (base - phase) / 2; /* the sprite row's first byte */
            const uint8_t *mk = sp->mask[shape][phase] + oy * sp->nb;
            const uint8_t *in = sp->in[shape][phase] + oy * sp->nb;
            const int64_t rb = (int64_t)((pw + 1) / 2); /* the row's bytes */
            int64_t t0 = b0 < 0 ? -b0 : 0, t1 = rb - b0 < (int64_t)sp->nb ? rb - b0 : sp->nb;
            if (t0 >= t1)
                continue;
            const uint8_t c = (uint8_t)(colour * 0x11u), o = (uint8_t)(CG__PAL_OUTLINE * 0x11u);
            for (int64_t k = t0; k < t1; k++) {
                uint8_t mm = mk[k];
                if ((pw & 1) && b0 + k == rb - 1)
                    mm &= 0xf0; /* the padding nibble after the last pixel */
                uint8_t *p = row + b0 + k;
                *p = (uint8_t)((*p & ~mm) | (mm & in[k] & c) | (mm & ~in[k] & o));
            }
            blo = (size_t)(b0 + t0) < blo ? (size_t)(b0 + t0) : blo;
            bhi = (size_t)(b0 + t1) > bhi ? (size_t)(b0 + t1) : bhi;
            continue;
        }
        int64_t j0 = base < 0 ? -base : 0, j1 = (int64_t)pw - base < sn ? (int64_t)pw - base : sn;
        if (j0 >= j1)
            continue;
        for (int64_t j = j0; j < j1; j++)
            if (px[j])
                put_px(row, depth, (uint64_t)(base + j),
                       px[j] == 1 ? CG__PAL_OUTLINE : colour);
        size_t b0 = (size_t)((uint64_t)(base + j0) * (unsigned)depth / 8);
        size_t b1 = (size_t)(((uint64_t)(base + j1) * (unsigned)depth + 7) / 8);
        blo = b0 < blo ? b0 : blo;
        bhi = b1 > bhi ? b1 : bhi;
    }
    *lo = blo;
    *hi = bhi;
}

static inline uint8_t group_of(const uint64_t *r, size_t j)
{
    return (uint8_t)(r[j >> 3] >> (8 * (j & 7)));
}

/* Group v of a row (its checksum is kept apart): a run if its bytes are
 * all one, else the run before it and its bytes as literals. */
static inline __attribute__((always_inline)) void group(struct enc *e, struct part *pt,
                                                        struct ps *ps, struct bw *w, unsigned v,
                                                        const int emit)
{
    const int u = e->head[v];
    if (u >= 0) {
        run_of(e, pt, ps, w, (unsigned)u, e->bytes8, emit);
    } else {
        flush_run(e, pt, ps, w, emit);
        group_lits(e, pt, w, v, e->t->table + v * e->bytes8, emit);
        ps->prev = e->last[v];
    }
}

/* Pass 2 of a word of 8 groups of one byte each (scale 1, 1 bit a pixel)
 * at once, when it can be done without the parse's branch on every byte
 * (does it repeat the byte before? about a quarter of the bytes do, at
 * random, and that branch was most of the writer's time at scale 1).
 * Equal neighbours are found for the 8 bytes together (the exact
 * has-zero-byte test of the bytes XOR the bytes shifted by one, byte -1
 * being ps->prev, always a byte here: a row starts with its filter byte).
 * Then: a word whose 8 bytes all repeat the one before only lengthens the
 * run; a word in which no byte ends a run of 3 or more repeats (counting
 * the ps->run < 3 pending ones), which the parse would make a match, is
 * all literals - the pending repeats, then its bytes, written two codes a
 * put (each code <= 15 bits) - but for its last 1 or 2 bytes if they repeat
 * the one before them: they stay pending, as the run may go on in the next
 * word. The same symbols as group() byte by byte, and the same bytes
 * (tests/test_io_png.c compares with the plain encoder on maps of runs of
 * every length, in one IDAT chunk and several). Returns
 * 0, having changed nothing, for any other word: group() parses it. */
static inline __attribute__((always_inline)) int lits_word(struct enc *e, struct part *pt,
                                                           struct ps *ps, struct bw *w,
                                                           uint64_t word)
{
    uint64_t px = 0;
    for (unsigned k = 0; k < 8; k++, word >>= 8)
        px |= (uint64_t)e->last[word & 0xff] << (8 * k);
    const uint64_t lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    const uint64_t d = px ^ (px << 8 | (uint64_t)(uint8_t)ps->prev);
    if (d == 0) {
        ps->run += 8;
        return 1;
    }
    /* Near the end of the output (an image written as it is made spills an
     * IDAT chunk there, at the first code that reaches it), byte by byte:
     * the chunks end where they did, not a code or two later. */
    if (ps->run >= 3 || w->limit - w->p < 32)
        return 0;
    /* 0x80 in byte i when byte i repeats byte i - 1. */
    const uint64_t z = ~(((d & lo7) + lo7) | d | lo7);
    const unsigned r = (unsigned)ps->run;
    const uint64_t lead = r == 2 ? z & 0x80 : r == 1 ? (z & 0x8080) == 0x8080 : 0;
    if ((z & z << 8 & z << 16) | lead)
        return 0;
    const unsigned prev = (unsigned)ps->prev;
    struct bw lw = *w; /* in registers (groups_word) */
    if (r) {
        const uint64_t c = e->code[prev];
        const unsigned l = e->len[prev];
        put(e, pt, &lw, r == 2 ? c | c << l : c, r * l);
    }
    const unsigned t = (unsigned)(z >> 63) * (1 + (unsigned)(z >> 55 & 1)); /* left pending */
    const unsigned n = 8 - t;
    unsigned k = 0;
    for (; k + 2 <= n; k += 2) {
        const unsigned b0 = (unsigned)(px >> (8 * k)) & 0xff;
        const unsigned b1 = (unsigned)(px >> (8 * k + 8)) & 0xff;
        put(e, pt, &lw, e->code[b0] | (uint64_t)e->code[b1] << e->len[b0],
            (unsigned)e->len[b0] + e->len[b1]);
    }
    if (k < n) {
        const unsigned b = (unsigned)(px >> (8 * k)) & 0xff;
        put(e, pt, &lw, e->code[b], e->len[b]);
    }
    *w = lw;
    ps->run = t;
    ps->prev = (int)(px >> 56);
    return 1;
}

/* Pass 2 of a word of 8 groups of bytes8 = 4..32 bytes each (scale 4 and
 * up at 1 bit a pixel, the default) at once, without the parse's two
 * branches on every group (is it one repeated byte? does that byte go on
 * from the group before?), which follow no pattern on a cave: about a
 * quarter of its groups are one repeated byte, and whether a group is
 * changes at 39 % of the groups. A group either lengthens the run pending
 * before it (it is one repeated byte, the last byte before it: nothing
 * written) or ends it: the run's match (no match for an empty run), then
 * the group's own codes (enc.wg: its literals, or its byte's one literal
 * if all its bytes are one, which leaves the other bytes8 - 1 >= 3
 * pending). Runs made inside the word stay under 7 * bytes8 <= 224 bytes,
 * so each is one match; a run pending from before the word is taken when it is
 * empty or one match long even after 7 more groups (3..258 - 7 * bytes8),
 * else (1 or 2 pending bytes after a filter byte, a long run of one byte
 * across words) the word goes through group() unless all its groups only
 * lengthen the run. Each group's bits are selected by masks, not branches,
 * and go out two groups a put. The same symbols as group() group by group, and
 * the same bytes (tests/test_io_png.c compares with the plain encoder on
 * maps of runs of groups of every length at every scale). Returns 0,
 * having changed nothing, when group() must parse the word; as lits_word,
 * near the end of the output too, so that IDAT chunks end where they did. */
static inline __attribute__((always_inline)) int groups_word(struct enc *e, struct part *pt,
                                                             struct ps *ps, struct bw *w,
                                                             uint64_t word)
{
    const unsigned s = (unsigned)e->bytes8;
    const uint64_t run = ps->run;
    int before = ps->prev; /* a byte: a row starts with its filter byte */
    uint64_t x = word;
    if (run - 1 < 2 || run > 258 - 7 * s || w->limit - w->p < 64) {
        /* group() parses the word, unless all its groups lengthen the run. */
        for (unsigned k = 0; k < 8; k++, x >>= 8) {
            if (e->wg[x & 0xff].head != before)
                return 0;
            before = e->wg[x & 0xff].last;
        }
        ps->run += 8 * s;
        return 1;
    }
    unsigned pend = (unsigned)run;
    /* The writer in registers for the word (in memory, behind w, each put
     * would wait on the last one's stores: the output's stores may alias). */
    struct bw b = *w;
    for (unsigned k = 0; k < 8; k += 2) {
        uint64_t bits[2];
        unsigned n[2];
        for (unsigned i = 0; i < 2; i++, x >>= 8) {
            const struct wide_group *g = &e->wg[x & 0xff];
            /* All ones when the group ends the run (a group of several
             * bytes has head -1, never a byte). */
            const uint64_t ends = (uint64_t)0 - (uint64_t)(g->head != before);
            before = g->last;
            const uint32_t m = e->wm[pend];
            const unsigned ml = m >> 24;
            bits[i] = ((m & 0xffffffu) | g->bits << ml) & ends;
            n[i] = (ml + g->len) & (unsigned)ends;
            pend = (g->pend & (unsigned)ends) | ((pend + s) & ~(unsigned)ends);
        }
        /* Two groups a put, unless they are too long together (seldom). */
        if (n[0] + n[1] <= 56) {
            put(e, pt, &b, bits[0] | bits[1] << n[0], n[0] + n[1]);
        } else {
            put(e, pt, &b, bits[0], n[0]);
            put(e, pt, &b, bits[1], n[1]);
        }
    }
    *w = b;
    ps->run = pend;
    ps->prev = before;
    return 1;
}

/* The parse state and the bit writer, passed by value to the marker bands'
 * function and back, so that neither has its address taken in the hot loop
 * of parse_image (they stay in registers there). */
struct st {
    struct ps ps;
    struct bw w;
};

static inline __attribute__((always_inline)) struct st
band_rows(struct enc *e, struct part *pt, struct st st, const uint64_t *r, uint32_t y, size_t lo,
          size_t hi, const int emit)
{
    const cg_grid *g = e->g;
    const size_t bytes8 = e->bytes8;
    const uint8_t *table = e->t->table;
    struct ps *ps = &st.ps;
    struct bw *w = &st.w;
        /* Every pixel row of the band on its own: the first with filter
         * None, the others with Up. The cell row's pixels are built once;
         * each pixel row is a copy with its glyphs painted, and differs
         * from the row above only where the glyphs of the two rows lie
         * (the rest of its Up-filtered bytes are zeros). */
        for (size_t j = 0; j * bytes8 < e->rowbytes; j++)
            memcpy(pt->base + j * bytes8, table + group_of(r, j) * bytes8, bytes8);
        size_t alo = 0, ahi = 0; /* the bytes painted in the row above */
        for (uint32_t k = 0; k < e->scale; k++) {
            size_t plo, phi;
            memcpy(pt->row, pt->base, e->rowbytes);
            paint_sprites(pt->row, e->depth, e->pw, e->scale, e->spr, g->marks + lo, hi - lo,
                          (uint64_t)y * e->scale + k, &plo, &phi);
            if (plo >= phi)
                plo = phi = 0;
            if (k == 0) {
                run_of(e, pt, ps, w, 0, 1, emit);
                put_runs(e, pt, ps, w, pt->row, e->rowbytes, emit);
                if (emit) {
                    adler_same(ps, 0, 1);
                    adler_bytes(ps, pt->row, e->rowbytes);
                }
            } else {
                size_t dlo = plo < alo ? plo : alo, dhi = phi > ahi ? phi : ahi;
                if (plo == phi || alo == ahi) { /* one is empty: the other */
                    dlo = plo == phi ? alo : plo;
                    dhi = plo == phi ? ahi : phi;
                }
                if (dlo >= dhi)
                    dlo = dhi = e->rowbytes;
                const uint8_t *restrict now = pt->row, *restrict before = pt->above;
                uint8_t *restrict diff = pt->diff;
                for (size_t i = dlo; i < dhi; i++)
                    diff[i] = (uint8_t)(now[i] - before[i]);
                run_of(e, pt, ps, w, 2, 1, emit);
                if (dlo)
                    run_of(e, pt, ps, w, 0, dlo, emit);
                if (emit) {
                    adler_same(ps, 2, 1);
                    if (dlo)
                        adler_same(ps, 0, dlo);
                }
                put_sparse(e, pt, ps, w, diff + dlo, dhi - dlo, emit);
                if (e->rowbytes > dhi) {
                    run_of(e, pt, ps, w, 0, e->rowbytes - dhi, emit);
                    if (emit)
                        adler_same(ps, 0, e->rowbytes - dhi);
                }
            }
            uint8_t *swap = pt->above;
            pt->above = pt->row;
            pt->row = swap;
            alo = plo;
            ahi = phi;
        }
    return st;
}

static __attribute__((noinline)) struct st band_count(struct enc *e, struct part *pt, struct st st,
                                                      const uint64_t *r, uint32_t y, size_t lo,
                                                      size_t hi)
{
    return band_rows(e, pt, st, r, y, lo, hi, COUNT);
}

static __attribute__((noinline)) struct st band_write(struct enc *e, struct part *pt, struct st st,
                                                      const uint64_t *r, uint32_t y, size_t lo,
                                                      size_t hi)
{
    return band_rows(e, pt, st, r, y, lo, hi, WRITE);
}

static __attribute__((noinline)) struct st band_record(struct enc *e, struct part *pt,
                                                       struct st st, const uint64_t *r, uint32_t y,
                                                       size_t lo, size_t hi)
{
    return band_rows(e, pt, st, r, y, lo, hi, RECORD);
}

/* One pass over cell rows y0..y1-1 of the image: every cell row as its
 * pixel row (filter None) and scale-1 copies (filter Up, so zeros); the
 * cell rows that markers' glyphs cross pixel row by pixel row. */
static inline __attribute__((always_inline)) void
parse_image(struct enc *e, struct part *pt, struct bw *w, uint32_t y0, uint32_t y1, const int emit)
{
    const cg_grid *g = e->g;
    const size_t bytes8 = e->bytes8, nfull = e->nfull, rem = e->rem;
    const uint8_t *table = e->t->table;
    size_t lo = 0, hi = 0; /* the markers whose glyphs can cross this cell row */
    /* Counting looks at every step-th cell row only (see write_image). */
    const uint32_t step = emit != COUNT || g->h <= 256 ? 1 : g->h / 256;
    struct ps state = {-1, 0, 1, 0}, *ps = &state;
    for (uint32_t y = y0; y < y1; y++) {
        const uint64_t *r = cg__row(g, y);
        if (y % step)
            continue;
        cg__glyph_window(g, y, &lo, &hi);
        if (lo < hi) {
            struct st st = {state, *w};
            st = emit == COUNT   ? band_count(e, pt, st, r, y, lo, hi)
                 : emit == WRITE ? band_write(e, pt, st, r, y, lo, hi)
                                 : band_record(e, pt, st, r, y, lo, hi);
            state = st.ps;
            *w = st.w;
            continue;
        }
        run_of(e, pt, ps, w, 0, 1, emit); /* filter None */
        if (emit)
            adler_same(ps, 0, 1);
        /* The groups word by word: group j is byte j % 8 of word j / 8.
         * A whole word's Adler-32 sums at once: its groups' sums, and their
         * weighted sums by place in the word (tables.wpos). */
        const uint64_t(*wpos)[256] = e->t->wpos;
        const size_t nw = nfull / 8;
        for (size_t q = 0; q < nw; q++) {
            uint64_t word = r[q];
            if (emit != COUNT) {
                uint64_t sums = 0, x = word;
                for (unsigned k = 0; k < 8; k++, x >>= 8)
                    sums += wpos[k][x & 0xff];
                ps->b += 8 * bytes8 * ps->a + (sums & 0xffffffffu);
                ps->a += sums >> 32;
            }
            if (emit != WRITE ||
                !(bytes8 == 1 ? lits_word(e, pt, ps, w, word)
                              : e->wide && groups_word(e, pt, ps, w, word)))
                for (unsigned k = 0; k < 8; k++, word >>= 8)
                    group(e, pt, ps, w, (unsigned)(word & 0xff), emit);
            if (emit && (q & 511) == 511) { /* every 4096 groups */
                ps->a %= ADLER_MOD;
                ps->b %= ADLER_MOD;
            }
        }
        if (nfull % 8) {
            uint64_t word = r[nw];
            for (unsigned k = 0; k < nfull % 8; k++, word >>= 8) {
                unsigned v = (unsigned)(word & 0xff);
                group(e, pt, ps, w, v, emit);
                if (emit) {
                    ps->b += bytes8 * ps->a + e->gwsum[v];
                    ps->a += e->gsum[v];
                }
            }
        }
        if (emit) {
            ps->a %= ADLER_MOD;
            ps->b %= ADLER_MOD;
        }
        if (rem)
            put_bytes(e, pt, ps, w, table + group_of(r, nfull) * bytes8, rem, emit);
        for (uint32_t k = 1; k < e->scale; k++) {
            run_of(e, pt, ps, w, 2, 1, emit); /* filter Up: the row above again */
            run_of(e, pt, ps, w, 0, e->rowbytes, emit);
            if (emit) {
                adler_same(ps, 2, 1);
                adler_same(ps, 0, e->rowbytes);
            }
        }
    }
    flush_run(e, pt, ps, w, emit);
    pt->a = ps->a % ADLER_MOD;
    pt->b = ps->b % ADLER_MOD;
}

/* ------------------------------------------------------------ the block */

/* The tables of scale and depth into t, the group table into `table`
 * (256 * bytes8 bytes). */
static void build_tables(struct tables *t, uint32_t scale, int depth, size_t bytes8,
                         uint8_t *table)
{
    static const uint16_t base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint8_t extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (unsigned c = 0; c < 29; c++) {
        unsigned top = c == 28 ? 258 : base[c + 1] - 1u;
        if (c == 27)
            top = 257; /* 258 has its own code, 285 */
        for (unsigned l = base[c]; l <= top; l++) {
            t->lsym[l] = (uint16_t)(257 + c);
            t->lextra[l] = (uint8_t)(l - base[c]);
            t->lnextra[l] = extra[c];
        }
    }
    t->table = table;
    memset(t->hist, 0, sizeof t->hist);
    for (unsigned v = 0; v < 256; v++) {
        uint8_t *px = table + v * bytes8;
        memset(px, 0, bytes8);
        for (uint32_t p = 0; p < 8 * scale; p++) {
            unsigned floor = ((v >> (p / scale)) & 1) ? 0 : 1;
            if (depth == 1)
                px[p >> 3] |= (uint8_t)(floor << (7 - (p & 7)));
            else if (depth == 4)
                px[p >> 1] |= (uint8_t)(floor << ((p & 1) ? 0 : 4));
            else
                px[p] = (uint8_t)floor;
        }
        unsigned nd = 0;
        for (size_t i = 0; i < bytes8; i++) {
            unsigned d = 0;
            while (d < nd && t->distinct[v][d] != px[i])
                d++;
            if (d == nd && nd < 2) {
                t->distinct[v][nd] = px[i];
                t->ndup[v][nd++] = 0;
            }
            if (d >= 2) {
                nd = 3; /* more than two: no list */
                break;
            }
            t->ndup[v][d]++;
        }
        t->ndistinct[v] = (uint8_t)(nd <= 2 ? nd : 0);
        uint32_t sum = 0, wsum = 0;
        int same = 1;
        for (size_t i = 0; i < bytes8; i++) {
            sum += px[i];
            wsum += (uint32_t)(bytes8 - i) * px[i];
            same &= px[i] == px[0];
            t->hist[px[i]]++;
        }
        t->gsum[v] = sum;
        t->gwsum[v] = wsum % ADLER_MOD;
        t->uniform[v] = (uint8_t)same;
        for (uint32_t k = 0; k < 8; k++)
            t->wpos[k][v] = (t->gwsum[v] + (uint64_t)bytes8 * (7 - k) * sum) | (uint64_t)sum << 32;
    }
    t->scale = scale;
    t->depth = depth;
    t->bytes8 = bytes8;
}

/* The dynamic block header (RFC 1951 3.2.7) for the literal/length lengths
 * e->len and one distance code (distance 1) of length 1; bfinal: the last
 * block of the stream. */
static void put_header(const struct enc *e, struct part *pt, struct bw *w, unsigned bfinal)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                      11, 4,  12, 3, 13, 2, 14, 1, 15};
    int hlit = NLIT;
    while (hlit > 257 && e->len[hlit - 1] == 0)
        hlit--;
    uint8_t lens[NLIT + 1];
    memcpy(lens, e->len, (size_t)hlit);
    lens[hlit] = 1; /* the distance code */
    int n = hlit + 1;
    /* Run-length code the lengths: 16 = repeat the previous 3-6 times,
     * 17 = 3-10 zeros, 18 = 11-138 zeros. */
    uint8_t sym[NLIT + 1], ext[NLIT + 1];
    int ns = 0;
    for (int i = 0; i < n;) {
        int l = lens[i], r = 1;
        while (i + r < n && lens[i + r] == l)
            r++;
        i += r;
        if (l == 0) {
            while (r >= 11) {
                int k = r > 138 ? 138 : r;
                sym[ns] = 18;
                ext[ns++] = (uint8_t)(k - 11);
                r -= k;
            }
            if (r >= 3) {
                sym[ns] = 17;
                ext[ns++] = (uint8_t)(r - 3);
                r = 0;
            }
        } else {
            sym[ns] = (uint8_t)l;
            ext[ns++] = 0;
            r--;
            while (r >= 3) {
                int k = r > 6 ? 6 : r;
                sym[ns] = 16;
                ext[ns++] = (uint8_t)(k - 3);
                r -= k;
            }
        }
        while (r-- > 0) {
            sym[ns] = (uint8_t)l;
            ext[ns++] = 0;
        }
    }
    uint64_t cfreq[19] = {0};
    for (int i = 0; i < ns; i++)
        cfreq[sym[i]]++;
    /* The code-length code must be complete: give it a second symbol if it
     * has only one. */
    int used = 0;
    for (int i = 0; i < 19; i++)
        used += cfreq[i] != 0;
    if (used < 2)
        cfreq[cfreq[0] ? 1 : 0] = 1;
    uint8_t clen[19];
    uint16_t ccode[19];
    build_lengths(cfreq, 19, 7, clen);
    build_codes(clen, 19, ccode);
    int hclen = 19;
    while (hclen > 4 && clen[order[hclen - 1]] == 0)
        hclen--;
    put(e, pt, w, bfinal, 1); /* BFINAL */
    put(e, pt, w, 2, 2);      /* BTYPE: dynamic Huffman */
    put(e, pt, w, (uint64_t)(hlit - 257), 5);
    put(e, pt, w, 0, 5); /* HDIST: one distance code */
    put(e, pt, w, (uint64_t)(hclen - 4), 4);
    for (int i = 0; i < hclen; i++)
        put(e, pt, w, clen[order[i]], 3);
    static const uint8_t extra_bits[19] = {[16] = 2, [17] = 3, [18] = 7};
    for (int i = 0; i < ns; i++)
        put(e, pt, w, ccode[sym[i]] | (uint64_t)ext[i] << clen[sym[i]],
            clen[sym[i]] + extra_bits[sym[i]]);
}

/* ------------------------------------------------------------ stripes */

/* Stripes. A big image is compressed in stripes of cell rows, each its own
 * deflate block (all with the one code of pass 1), so that the caller's
 * threads can make them at once; a stripe but the last ends as zlib's
 * Z_SYNC_FLUSH does (an empty stored block, which brings the stream to a
 * byte boundary), so the stripes' bytes follow one another into one zlib
 * stream, and its Adler-32 is combined from theirs (RFC 1950 8.2: for A
 * then B, b = b_A + b_B + len_B * (a_A - 1), a = a_A + a_B - 1). The stripes
 * depend on the image alone, never on the threads, so neither do the
 * bytes. Each stripe's bytes are IDAT chunks of their own (IDAT_BYTES, the
 * last one shorter), their CRCs computed by the stripe's task, so that the
 * writing thread only writes; the Adler-32 is a last IDAT chunk of 4 bytes.
 * An image under 4 * STRIPE_CELLS cells is one stripe, written as it is
 * made, as before stripes existed: the same bytes. */
#define STRIPE_CELLS (UINT64_C(1) << 20)
#define MAX_STRIPES 1024u
/* Stripes compressed at once, each into a buffer of its own; their bytes
 * are written in order while the next round is compressed (write_stripes),
 * so there are two rounds' worth of slots. */
#define ROUND_SLOTS 16u

static uint64_t stripe_cells = STRIPE_CELLS;

void cg__png_set_stripe_cells(uint64_t cells)
{
    stripe_cells = cells ? cells : STRIPE_CELLS;
}

static uint32_t stripe_count(const cg_grid *g)
{
    uint64_t cells = (uint64_t)g->w * g->h, n = cells / stripe_cells;
    if (cells < 4 * stripe_cells)
        return 1;
    n = n > MAX_STRIPES ? MAX_STRIPES : n;
    return (uint32_t)(n > g->h ? g->h : n);
}

/* The zlib stream's bytes of stripe i (and the zlib header before stripe 0):
 * a dynamic block, then the sync flush or, for the last, the end of the
 * stream but its Adler-32. */
static void compress_stripe(struct enc *e, struct part *pt, struct bw *w, uint32_t i)
{
    const int last = i + 1 == e->nstripes;
    if (i == 0) {
        put(e, pt, w, 0x78, 8); /* CMF: deflate, 32 KiB window */
        put(e, pt, w, 0x01, 8); /* FLG: (0x78 * 256 + 0x01) % 31 == 0 */
    }
    put_header(e, pt, w, (unsigned)last);
    if (e->tok)
        replay(e, pt, w);
    else
        parse_image(e, pt, w, pt->y0, pt->y1, WRITE);
    put(e, pt, w, e->code[EOB], e->len[EOB]);
    if (!last)
        put(e, pt, w, 0, 3); /* an empty stored block: BFINAL 0, BTYPE 00 */
    if (w->nbits)
        put(e, pt, w, 0, 8 - w->nbits);
    if (!last) {
        put(e, pt, w, 0x0000, 16); /* LEN */
        put(e, pt, w, 0xffff, 16); /* NLEN */
    }
}

/* A round of stripes: slots[k] holds stripe first + k. While it is
 * compressed, the calling thread writes the round before (prev, nprev
 * stripes; none for the first) as it takes its first task: written says it
 * did, failed that a write failed. Only the calling thread touches those
 * and *a, *b (the Adler-32 of the stream written so far). */
struct round {
    struct enc *e;
    struct part *slots;
    uint32_t first;
    const struct part *prev;
    uint32_t nprev;
    int written, failed;
    uint64_t *a, *b;
};

/* The round whose loop the calling thread is in (write_stripes), NULL
 * outside: how a task knows it runs on the thread that may write (the
 * writes of a cg_write come from the calling thread only, cavegen.h). */
static _Thread_local const struct round *writing_round;

static int write_round(struct enc *e, const struct part *slots, uint32_t n, uint64_t *a,
                       uint64_t *b);

static void stripe_task(void *arg, size_t k)
{
    struct round *r = arg;
    if (writing_round == r && !r->written) {
        r->written = 1;
        r->failed = write_round(r->e, r->prev, r->nprev, r->a, r->b);
    }
    /* The parse state is written at every byte: a copy on this thread's
     * stack, not the slot beside other threads' slots (false sharing). */
    struct part pt = r->slots[k];
    struct bw w = {0, 0, pt.buf, pt.buf + pt.cap};
    pt.overflow = 0;
    compress_stripe(r->e, &pt, &w, r->first + (uint32_t)k);
    pt.len = (size_t)(w.p - pt.buf);
    /* The stripe's IDAT chunks and their CRCs (over type and data, ISO
     * 15948 5.3), here rather than on the writing thread. */
    for (size_t i = 0; !pt.overflow && i * IDAT_BYTES < pt.len; i++) {
        size_t n = pt.len - i * IDAT_BYTES < IDAT_BYTES ? pt.len - i * IDAT_BYTES : IDAT_BYTES;
        uLong crc = crc32(crc32(0, (const Bytef *)"IDAT", 4), pt.buf + i * IDAT_BYTES, (uInt)n);
        pt.crcs[i] = (uint32_t)crc;
    }
    r->slots[k] = pt;
}

/* A stripe's bytes as IDAT chunks of IDAT_BYTES, the last one shorter, with
 * the CRCs its task computed. Nonzero if a write failed (e->sink.failed
 * set): it runs inside the caller's parallel loop, where png_error's
 * longjmp must not go, so the caller raises it after the loop. */
static int write_chunks(struct enc *e, const struct part *pt)
{
    for (size_t i = 0; i * IDAT_BYTES < pt->len; i++) {
        size_t n = pt->len - i * IDAT_BYTES < IDAT_BYTES ? pt->len - i * IDAT_BYTES : IDAT_BYTES;
        uint8_t head[8] = {(uint8_t)(n >> 24),
                           (uint8_t)(n >> 16),
                           (uint8_t)(n >> 8),
                           (uint8_t)n,
                           'I',
                           'D',
                           'A',
                           'T'};
        uint32_t c = pt->crcs[i];
        uint8_t crc[4] = {(uint8_t)(c >> 24), (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c};
        if (e->sink.write(e->sink.ctx, head, sizeof head) != 0 ||
            e->sink.write(e->sink.ctx, pt->buf + i * IDAT_BYTES, n) != 0 ||
            e->sink.write(e->sink.ctx, crc, sizeof crc) != 0) {
            e->sink.failed = 1;
            return 1;
        }
    }
    return 0;
}

/* The n stripes of a round, in order, and their Adler-32 combined into the
 * stream's (*a, *b). Nonzero if a write failed. */
static int write_round(struct enc *e, const struct part *slots, uint32_t n, uint64_t *a,
                       uint64_t *b)
{
    const uint64_t row_bytes = (uint64_t)e->scale * (e->rowbytes + 1);
    for (uint32_t k = 0; k < n; k++) {
        const struct part *pt = &slots[k];
        if (write_chunks(e, pt))
            return 1;
        uint64_t len = (uint64_t)(pt->y1 - pt->y0) * row_bytes % ADLER_MOD;
        *b = (*b + pt->b + len * ((*a + ADLER_MOD - 1) % ADLER_MOD)) % ADLER_MOD;
        *a = (*a + pt->a + ADLER_MOD - 1) % ADLER_MOD;
    }
    return 0;
}

/* The image data of a striped image, round by round through the caller's
 * parallel loop (or one stripe after another without one). A stripe whose
 * buffer was too small is made again on this thread with a larger one, so
 * the loop's tasks allocate nothing. The rounds use the two halves of the
 * slots in turn: round r's loop compresses into one half while the calling
 * thread, at its first task, writes round r - 1 from the other, so that no
 * thread waits while the bytes go out (before, the other threads stood idle
 * through each round's writes). A loop whose tasks never run on the calling
 * thread leaves the write to after it, as before. The bytes are the same:
 * the stripes are written in order, whoever compressed them. */
static void write_stripes(struct enc *e, const cg__par *par, uint64_t est_bytes)
{
    const cg_grid *g = e->g;
    /* Buffers of twice the estimate for the tallest stripe: seldom too small. */
    uint64_t rows = (g->h + e->nstripes - 1) / e->nstripes;
    uint64_t cap = est_bytes / g->h * rows * 2 + (UINT64_C(1) << 16);
    for (size_t k = 0; k < e->nslots; k++) {
        struct part *pt = &e->slots[k];
        pt->cap = (size_t)cap;
        pt->buf = cg__malloc(pt->cap + 64);
        pt->crcs = cg__malloc((pt->cap / IDAT_BYTES + 1) * sizeof *pt->crcs);
        if (!pt->buf || !pt->crcs)
            png_error(e->png, "out of memory");
    }
    uint64_t a = 1, b = 0;
    const uint32_t per = e->nslots < ROUND_SLOTS ? (uint32_t)e->nslots : ROUND_SLOTS;
    struct part *prev = NULL;
    uint32_t nprev = 0;
    for (uint32_t first = 0, half = 0; first < e->nstripes; first += per, half ^= 1) {
        uint32_t n = e->nstripes - first < per ? e->nstripes - first : per;
        struct round r = {e, e->slots + half * ROUND_SLOTS, first, prev, nprev, 0, 0, &a, &b};
        for (uint32_t k = 0; k < n; k++) {
            r.slots[k].y0 = (uint32_t)((uint64_t)g->h * (first + k) / e->nstripes);
            r.slots[k].y1 = (uint32_t)((uint64_t)g->h * (first + k + 1) / e->nstripes);
        }
        if (par && par->fn && n > 1) {
            cg__budget *budget = cg__budget_suspend(); /* the tasks allocate nothing */
            writing_round = &r;
            par->fn(par->ctx, n, stripe_task, &r);
            writing_round = NULL;
            cg__budget_resume(budget);
        } else {
            for (uint32_t k = 0; k < n; k++)
                stripe_task(&r, k);
        }
        if (!r.written)
            r.failed = write_round(e, prev, nprev, &a, &b);
        if (r.failed)
            png_error(e->png, "write failed");
        for (uint32_t k = 0; k < n; k++) {
            struct part *pt = &r.slots[k];
            while (pt->overflow) {
                uint8_t *more =
                    pt->cap <= SIZE_MAX / 4 ? cg__realloc(pt->buf, 2 * pt->cap + 64) : NULL;
                if (!more)
                    png_error(e->png, "out of memory");
                pt->buf = more;
                uint32_t *crcs =
                    cg__realloc(pt->crcs, (2 * pt->cap / IDAT_BYTES + 1) * sizeof *crcs);
                if (!crcs)
                    png_error(e->png, "out of memory");
                pt->crcs = crcs;
                pt->cap *= 2;
                stripe_task(&r, k);
            }
        }
        prev = r.slots;
        nprev = n;
    }
    if (write_round(e, prev, nprev, &a, &b))
        png_error(e->png, "write failed");
    uint8_t adler[4] = {(uint8_t)(b >> 8), (uint8_t)b, (uint8_t)(a >> 8), (uint8_t)a};
    emit_idat(e->png, adler, 4); /* a chunk of its own: the end of the stream */
}

/* ------------------------------------------------------------ the image */

/* groups_word's tables under the code, and whether it can run: groups of
 * 4 to 32 bytes, each group's codes and the longest match in one put. A
 * group pass 2 never codes as literals (all_counted, unseen) is left out. */
static void set_wide(struct enc *e, int all_counted)
{
    const struct tables *t = e->t;
    e->wide = 0;
    if (e->bytes8 < 4 || e->bytes8 > 32)
        return;
    unsigned xmax = 0, mmax = 0;
    for (unsigned v = 0; v < 256; v++) {
        struct wide_group *g = &e->wg[v];
        const int u = e->head[v];
        g->head = e->head[v];
        g->last = e->last[v];
        if (u >= 0) {
            g->bits = e->code[u];
            g->len = e->len[u];
            g->pend = (uint8_t)(e->bytes8 - 1);
        } else if (all_counted && !e->gcount[v]) {
            g->bits = 0;
            g->len = 0;
            g->pend = 0;
        } else {
            if (!e->glen[v])
                return; /* over 56 bits */
            g->bits = e->gbits[v];
            g->len = e->glen[v];
            g->pend = 0;
        }
        xmax = g->len > xmax ? g->len : xmax;
    }
    for (unsigned l = 0; l < 3; l++) /* 0: no match; 1, 2: never taken */
        e->wm[l] = 0;
    for (unsigned l = 3; l <= 258; l++) {
        const unsigned sym = t->lsym[l];
        const unsigned n = e->len[sym] + t->lnextra[l] + 1u; /* + the distance code, 0 */
        e->wm[l] = (e->code[sym] | (uint32_t)t->lextra[l] << e->len[sym]) | (uint32_t)n << 24;
        mmax = n > mmax ? n : mmax;
    }
    e->wide = xmax + mmax <= 56;
}

/* The image data: the zlib header, the deflate blocks, the Adler-32. */
static void write_image(struct enc *e, const cg__par *par)
{
    const cg_grid *g = e->g;
    const struct tables *t = e->t;
    const uint8_t *table = t->table;
    /* Pass 1 counts the symbols of a sample of the rows (all of them up to
     * 256 rows, else every h/256-th: a cave's statistics are the same all
     * over, and the sample depends only on the grid, so the bytes stay a
     * function of it). The code must still cover every symbol the second
     * pass can write: each one that can occur (any byte of the table, the
     * filter bytes, any byte at all in a row with markers, every match
     * length) counts at least once. */
    struct part *p0 = &e->slots[0];
    struct bw counting = {0, 0, e->out, e->out + IDAT_BYTES}; /* writes nothing */
    if (e->tok)
        parse_image(e, p0, &counting, 0, g->h, RECORD);
    else
        parse_image(e, p0, &counting, 0, g->h, COUNT);
    /* Every byte of the table counts as often as its group was coded as
     * literals, once if never: the table's histogram, then the groups seen
     * more than once (the same sums, group by group, as adding each). */
    for (unsigned b = 0; b < 256; b++)
        e->freq[b] += t->hist[b];
    for (unsigned v = 0; v < 256; v++) {
        if (e->gcount[v] <= 1)
            continue;
        /* A group's few distinct bytes: an add each, not bytes8 adds
         * into the same counts. */
        for (unsigned d = 0; d < t->ndistinct[v]; d++)
            e->freq[t->distinct[v][d]] += (e->gcount[v] - 1) * t->ndup[v][d];
        if (!t->ndistinct[v])
            for (size_t i = 0; i < e->bytes8; i++)
                e->freq[table[v * e->bytes8 + i]] += e->gcount[v] - 1;
    }
    for (unsigned v = 0; v < 256; v++)
        e->freq[v] += g->nmarks || v == 0 || v == 2 ? 1 : 0;
    for (unsigned sym = EOB; sym < NLIT; sym++)
        e->freq[sym] += 1;
    build_lengths(e->freq, NLIT, 15, e->len);
    build_codes(e->len, NLIT, e->code);
    /* The literal groups' codes. When every row was counted (under 512
     * rows), the second pass codes as literals only groups the first did. */
    const int all_counted = g->h < 512;
    for (unsigned v = 0; v < 256; v++) {
        if (all_counted && !e->gcount[v])
            continue;
        const uint8_t *px = table + v * e->bytes8;
        uint64_t bits = 0;
        unsigned n = 0;
        for (size_t i = 0; i < e->bytes8 && n <= 56; i++) {
            if (n + e->len[px[i]] > 56) {
                n = 57;
                break;
            }
            bits |= (uint64_t)e->code[px[i]] << n;
            n += e->len[px[i]];
        }
        e->gbits[v] = bits;
        e->glen[v] = (uint8_t)(n <= 56 ? n : 0);
    }
    set_wide(e, all_counted);
    if (e->nstripes > 1) {
        /* The sample's size under the code (lengths at their most extra
         * bits), for all the rows: what the stripes' buffers are made for. */
        uint64_t bits = 0, sampled = g->h <= 256 ? g->h : (g->h - 1) / (g->h / 256) + 1;
        for (unsigned sym = 0; sym < NLIT; sym++)
            bits += e->freq[sym] * (e->len[sym] + (sym > EOB ? 6u : 0u));
        write_stripes(e, par, bits / 8 / sampled * g->h);
        return;
    }
    struct bw w = {0, 0, e->out, e->out + IDAT_BYTES};
    p0->direct = 1;
    p0->y0 = 0;
    p0->y1 = g->h;
    compress_stripe(e, p0, &w, 0);
    uint32_t adler = (uint32_t)(p0->b << 16 | p0->a);
    for (int k = 3; k >= 0; k--)
        put(e, p0, &w, (adler >> (8 * k)) & 0xff, 8);
    emit_idat(e->png, e->out, (size_t)(w.p - e->out));
}

cg_status cg__write_png(const cg_grid *g, uint32_t scale, const cg__par *par, cg_write_fn write,
                        void *ctx, cg_diag *diag)
{
    uint64_t pw = (uint64_t)g->w * scale, ph = (uint64_t)g->h * scale;
    if (pw > PNG_UINT_31_MAX || ph > PNG_UINT_31_MAX || pw > 0x7fffffffu / 4) {
        cg__diag(diag, 0, 0, "a %ux%u map at scale %u is too large for PNG", g->w, g->h, scale);
        return CG_EOVERFLOW;
    }
    if (g->reach) /* a colour ramp needs 8 bits: a separate, plain writer */
        return cg__write_png_reach(g, scale, write, ctx, diag);
    /* 1 bit: walls and floor; 4 bits: and the first kinds of markers with
     * their outline (7 colours); 8 bits: and named kinds of points. */
    int depth = g->nmarks ? 4 : 1;
    for (size_t i = 0; i < g->nmarks && depth == 4; i++)
        if (cg__mark_colour(&g->marks[i]) >= CG__PAL_NAMED)
            depth = 8;
    /* Sizes: pw < 2^29 pixels, so none of these products overflows. Rows
     * are built 8 cells at a time, so the marker-row buffer has room for
     * whole groups; only rowbytes go into the image, and the pixels of cells
     * past the map's width are walls (index 0, zero bits), so the padding
     * bits at the end of a row are zero. */
    size_t rowbytes = (size_t)((pw * (uint64_t)depth + 7) / 8);
    size_t bytes8 = (size_t)scale * (size_t)depth;
    cg_status st = CG_ENOMEM;
    png_infop info = NULL;
    struct enc *e = cg__malloc(sizeof *e);
    if (!e)
        goto done;
    memset(e, 0, offsetof(struct enc, head));
    e->sink = (struct cg__png_sink){write, ctx, 0};
    e->g = g;
    e->scale = scale;
    e->pw = pw;
    e->depth = depth;
    e->rowbytes = rowbytes;
    e->bytes8 = bytes8;
    e->nfull = rowbytes / bytes8;
    e->rem = rowbytes % bytes8;
    /* The tables: this thread's, if they are of this scale and depth or
     * can be (built once), else the image's own. */
    static _Thread_local struct tables cached;
    static _Thread_local struct sprites cached_sprites;
    if (cached.scale == scale && cached.depth == depth) {
        e->t = &cached;
    } else if (bytes8 <= CACHED_BYTES8) {
        build_tables(&cached, scale, depth, bytes8, cached.store);
        e->t = &cached;
    } else {
        e->own = cg__malloc(sizeof *e->own);
        e->table = cg__malloc(256 * bytes8 + 8);
        if (!e->own || !e->table)
            goto done;
        build_tables(e->own, scale, depth, bytes8, e->table);
        e->t = e->own;
    }
    for (unsigned v = 0; v < 256; v++) {
        e->head[v] = e->t->uniform[v] ? (int16_t)e->t->table[v * bytes8] : -1;
        e->last[v] = e->t->table[v * bytes8 + bytes8 - 1];
    }
    memcpy(e->gsum, e->t->gsum, sizeof e->gsum);
    memcpy(e->gwsum, e->t->gwsum, sizeof e->gwsum);
    if (g->nmarks && cached_sprites.scale == scale) {
        e->spr = &cached_sprites;
    } else if (g->nmarks && scale <= SPRITE_SCALE) {
        build_sprites(&cached_sprites, scale, cached_sprites.store);
        e->spr = &cached_sprites;
    } else if (g->nmarks) {
        e->own_spr = cg__malloc(sizeof *e->own_spr);
        e->sprite_px = cg__malloc(SPRITE_BYTES(scale));
        if (!e->own_spr || !e->sprite_px)
            goto done;
        build_sprites(e->own_spr, scale, e->sprite_px);
        e->spr = e->own_spr;
    }
    e->out = cg__malloc(IDAT_BYTES + 64);
    e->nstripes = stripe_count(g);
    e->nslots = e->nstripes < 2 * ROUND_SLOTS ? e->nstripes : 2 * ROUND_SLOTS;
    e->slots = cg__calloc(e->nslots, sizeof *e->slots);
    if (!e->out || !e->slots)
        goto done;
    /* A small image keeps its tokens (a token takes at least one byte of
     * the stream: at most ph * (rowbytes + 1) of them), if pass 1 counts all
     * its rows (under 512). */
    if (e->nstripes == 1 && g->h < 512 && ph * (rowbytes + 1) <= RECORD_BYTES) {
        e->tok = cg__malloc((size_t)ph * (rowbytes + 1) * sizeof *e->tok);
        if (!e->tok)
            goto done;
    }
    for (size_t k = 0; k < e->nslots && g->nmarks; k++) {
        struct part *pt = &e->slots[k];
        size_t bytes = ((size_t)g->w + 7) / 8 * bytes8;
        pt->base = cg__malloc(bytes);
        pt->row = cg__malloc(bytes);
        pt->above = cg__malloc(bytes);
        pt->diff = cg__malloc(bytes);
        if (!pt->base || !pt->row || !pt->above || !pt->diff)
            goto done;
    }
    e->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, diag, cg__png_on_error,
                                     cg__png_on_warning);
    if (!e->png)
        goto done;
    info = png_create_info_struct(e->png);
    if (!info)
        goto done;
    /* The sink is handed to libpng before setjmp: an object that only
     * escapes after it may be assumed unchanged when setjmp returns again
     * (Clang forwards the 0 stored above). */
    png_set_write_fn(e->png, &e->sink, cg__png_sink_write, cg__png_sink_flush);
    if (setjmp(png_jmpbuf(e->png))) {
        st = e->sink.failed ? CG_EIO : CG_ENOMEM;
        goto done;
    }
    png_set_IHDR(e->png, info, (png_uint_32)pw, (png_uint_32)ph, depth, PNG_COLOR_TYPE_PALETTE,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color palette[CG__PALETTE_FIXED];
    cg__png_palette(palette);
    png_set_PLTE(e->png, info, palette,
                 depth == 1 ? 2 : depth == 4 ? CG__PAL_NAMED : CG__PALETTE_FIXED);
    png_write_info(e->png, info);
    write_image(e, par);
    png_write_chunk(e->png, (png_const_bytep) "IEND", NULL, 0);
    st = CG_OK;
done:
    cg__png_status(st, diag);
    if (e) {
        if (e->png)
            png_destroy_write_struct(&e->png, info ? &info : NULL);
        cg__free(e->table);
        cg__free(e->own);
        cg__free(e->tok);
        cg__free(e->sprite_px);
        cg__free(e->own_spr);
        for (size_t k = 0; e->slots && k < e->nslots; k++) {
            cg__free(e->slots[k].base);
            cg__free(e->slots[k].row);
            cg__free(e->slots[k].above);
            cg__free(e->slots[k].diff);
            cg__free(e->slots[k].buf);
            cg__free(e->slots[k].crcs);
        }
        cg__free(e->slots);
        cg__free(e->out);
        cg__free(e);
    }
    return st;
}
