/* png_oracle.c - the PNG encoder of io/png.c as it was before its
 * per-map costs were cut (cavegen 1.2.0): the twin the tests compare the
 * fast writer's bytes with (tests/test_io_png.c). Same parse, same code,
 * same bytes, built the slow and plain way: pixel rows of the marker bands
 * byte by byte, the glyphs through cg__paint_glyphs pixel by pixel, the
 * group table rebuilt for every image, the Huffman leaves sorted by qsort.
 * Do not optimise this file: it is the reference. */
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cells/par.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "io/format.h"
#include "io/palette.h"
#include "io/png.h"
#include "png_oracle.h"

/* Compressed bytes are gathered into IDAT chunks of about this size. */
#define IDAT_BYTES ((size_t)1 << 18)
#define ADLER_MOD 65521u
/* Deflate's literal/length alphabet: 256 literals, end of block, 29 lengths. */
#define NLIT 286
#define EOB 256

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
    /* Per 8-cell group value v (bit j = cell j is wall): its pixel bytes
     * (table + v * bytes8, plus 8 bytes of slack), whether they are all one
     * byte, and their Adler-32 sums: sum of bytes, and sum of (bytes8-i)*b_i. */
    uint8_t *table;
    uint8_t uniform[256];
    uint32_t gsum[256], gwsum[256];
    /* Pass 1: symbol counts, and how often each group value was coded as
     * literals. */
    uint64_t freq[NLIT];
    uint64_t gcount[256];
    /* Pass 2: the code (bit-reversed, ready to write) and its length. */
    uint16_t code[NLIT];
    uint8_t len[NLIT];
    uint64_t gbits[256]; /* a literal group's codes, concatenated */
    uint8_t glen[256];   /* their total length; 0: too long, write per byte */
    /* Lengths 3..258: symbol, extra bits and their count (RFC 1951 3.2.5). */
    uint16_t lsym[259];
    uint8_t lextra[259], lnextra[259];
    uint8_t *out; /* IDAT_BYTES (+ 64 of slack): the IDAT chunk being filled */
    /* Stripes: their count, and the slots the stripes of a round are
     * compressed into (io/png.c, "Stripes"). */
    uint32_t nstripes;
    struct part *slots;
    size_t nslots;
};

/* One stripe's parse and output: the encoder's state that is not shared. */
struct part {
    /* Adler-32 (RFC 1950) of the stripe's uncompressed bytes, at its end. */
    uint64_t a, b;
    /* Pixel rows crossed by markers' glyphs, byte by byte: the row, the
     * one before it, and their difference (the Up filter). */
    uint8_t *row, *above, *diff;
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
    w->bits = whole ? w->bits >> (8 * whole) : w->bits;
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
 * The two-queue form (van Leeuwen, 1976): leaves sorted by weight, merged
 * nodes made in order of weight, so each step joins the two smallest of the
 * two queues' fronts - O(n log n) for the sort, then O(n). Ties go to the
 * lower node number, leaves (0..m-1, in symbol order) before merged nodes
 * (m.., in order of creation): the same tree as repeatedly picking the two
 * smallest (weight, number) pairs, so the code is the one a plain O(n^2)
 * Huffman would give. */
typedef struct leaf {
    uint64_t w;
    int node; /* its number: its place among the symbols with a count */
} leaf;

static int leaf_cmp(const void *a, const void *b)
{
    const leaf *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
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
        for (int i = 0; i < m; i++)
            leaves[i] = (leaf){f[i], i};
        qsort(leaves, (size_t)m, sizeof *leaves, leaf_cmp);
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

/* Canonical codes from lengths (RFC 1951 3.2.2), bit-reversed for writing. */
static void build_codes(const uint8_t *len, int n, uint16_t *code)
{
    unsigned count[16] = {0}, next[16];
    for (int i = 0; i < n; i++)
        count[len[i]]++;
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
        unsigned v = next[len[i]]++, r = 0;
        for (int k = 0; k < len[i]; k++)
            r |= ((v >> k) & 1u) << (len[i] - 1 - k);
        code[i] = (uint16_t)r;
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

/* The symbols of the stream, counted (pass 1) or written (pass 2): `emit`
 * is a constant in each caller, so each pass gets its own straight code. */
static inline __attribute__((always_inline)) void lit(struct enc *e, struct part *pt, struct bw *w,
                                                      unsigned v, const int emit)
{
    if (emit)
        put(e, pt, w, e->code[v], e->len[v]);
    else
        e->freq[v]++;
}

/* A match of length 3..258 at distance 1 (distance code 0, whose code is the
 * single bit 0). */
static inline __attribute__((always_inline)) void match(struct enc *e, struct part *pt,
                                                        struct bw *w, unsigned l, const int emit)
{
    unsigned s = e->lsym[l];
    if (emit)
        put(e, pt, w, e->code[s] | (uint64_t)e->lextra[l] << e->len[s],
            e->len[s] + e->lnextra[l] + 1u);
    else
        e->freq[s]++;
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
static void adler_same(struct ps *ps, unsigned u, uint64_t n)
{
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

/* The glyphs: the library's cg__paint_glyphs (io/png.h), pixel by pixel. */

static inline uint8_t group_of(const uint64_t *r, size_t j)
{
    return (uint8_t)(r[j >> 3] >> (8 * (j & 7)));
}

/* One pass over cell rows y0..y1-1 of the image: every cell row as its
 * pixel row (filter None) and scale-1 copies (filter Up, so zeros); the
 * cell rows that markers' glyphs cross pixel row by pixel row. */
static inline __attribute__((always_inline)) void
parse_image(struct enc *e, struct part *pt, struct bw *w, uint32_t y0, uint32_t y1, const int emit)
{
    const cg_grid *g = e->g;
    const size_t bytes8 = e->bytes8, nfull = e->nfull, rem = e->rem;
    const uint8_t *table = e->table;
    size_t lo = 0, hi = 0; /* the markers whose glyphs can cross this cell row */
    /* Counting looks at every step-th cell row only (see write_image). */
    const uint32_t step = emit || g->h <= 256 ? 1 : g->h / 256;
    struct ps state = {-1, 0, 1, 0}, *ps = &state;
    for (uint32_t y = y0; y < y1; y++) {
        const uint64_t *r = cg__row(g, y);
        if (y % step)
            continue;
        cg__glyph_window(g, y, &lo, &hi);
        if (lo < hi) {
            /* Every pixel row of the band on its own: the first with filter
             * None, the others with Up (the rows the glyphs miss are zeros). */
            for (uint32_t k = 0; k < e->scale; k++) {
                for (size_t j = 0; j * bytes8 < e->rowbytes; j++)
                    memcpy(pt->row + j * bytes8, table + group_of(r, j) * bytes8, bytes8);
                cg__paint_glyphs(pt->row, e->depth, e->pw, e->scale, g->marks + lo, hi - lo,
                                 (uint64_t)y * e->scale + k);
                const uint8_t *out = pt->row;
                unsigned filter = 0;
                if (k > 0) {
                    for (size_t i = 0; i < e->rowbytes; i++)
                        pt->diff[i] = (uint8_t)(pt->row[i] - pt->above[i]);
                    out = pt->diff;
                    filter = 2;
                }
                run_of(e, pt, ps, w, filter, 1, emit);
                if (emit)
                    adler_same(ps, filter, 1);
                if (filter)
                    put_sparse(e, pt, ps, w, out, e->rowbytes, emit);
                else
                    put_bytes(e, pt, ps, w, out, e->rowbytes, emit);
                uint8_t *t = pt->above;
                pt->above = pt->row;
                pt->row = t;
            }
            continue;
        }
        run_of(e, pt, ps, w, 0, 1, emit); /* filter None */
        if (emit)
            adler_same(ps, 0, 1);
        /* The groups word by word: group j is byte j % 8 of word j / 8. */
        for (size_t j = 0, q = 0; j < nfull; q++) {
            uint64_t word = r[q];
            for (const size_t end = nfull - j < 8 ? nfull : j + 8; j < end; j++, word >>= 8) {
                unsigned v = (unsigned)(word & 0xff);
                const uint8_t *px = table + v * bytes8;
                if (e->uniform[v]) {
                    run_of(e, pt, ps, w, px[0], bytes8, emit);
                } else {
                    flush_run(e, pt, ps, w, emit);
                    if (!emit) {
                        e->gcount[v]++;
                    } else if (e->glen[v]) {
                        put(e, pt, w, e->gbits[v], e->glen[v]);
                    } else {
                        for (size_t i = 0; i < bytes8; i++)
                            put(e, pt, w, e->code[px[i]], e->len[px[i]]);
                    }
                    ps->prev = px[bytes8 - 1];
                }
                if (emit) {
                    ps->b += bytes8 * ps->a + e->gwsum[v];
                    ps->a += e->gsum[v];
                }
            }
            if (emit && (q & 511) == 511) { /* every 4096 groups */
                ps->a %= ADLER_MOD;
                ps->b %= ADLER_MOD;
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

static void init_tables(struct enc *e)
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
            e->lsym[l] = (uint16_t)(257 + c);
            e->lextra[l] = (uint8_t)(l - base[c]);
            e->lnextra[l] = extra[c];
        }
    }
    size_t bytes8 = e->bytes8;
    for (unsigned v = 0; v < 256; v++) {
        uint8_t *px = e->table + v * bytes8;
        memset(px, 0, bytes8);
        for (uint32_t p = 0; p < 8 * e->scale; p++) {
            unsigned floor = ((v >> (p / e->scale)) & 1) ? 0 : 1;
            if (e->depth == 1)
                px[p >> 3] |= (uint8_t)(floor << (7 - (p & 7)));
            else if (e->depth == 4)
                px[p >> 1] |= (uint8_t)(floor << ((p & 1) ? 0 : 4));
            else
                px[p] = (uint8_t)floor;
        }
        uint32_t sum = 0, wsum = 0;
        int same = 1;
        for (size_t i = 0; i < bytes8; i++) {
            sum += px[i];
            wsum += (uint32_t)(bytes8 - i) * px[i];
            same &= px[i] == px[0];
        }
        e->gsum[v] = sum;
        e->gwsum[v] = wsum % ADLER_MOD;
        e->uniform[v] = (uint8_t)same;
    }
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
 * are written in order once the round is done. */
#define ROUND_SLOTS 16u

static uint64_t stripe_cells = STRIPE_CELLS;

void oracle_png_set_stripe_cells(uint64_t cells)
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
    parse_image(e, pt, w, pt->y0, pt->y1, 1);
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

/* A round of stripes: slot k holds stripe first + k. */
struct round {
    struct enc *e;
    uint32_t first;
};

static void stripe_task(void *arg, size_t k)
{
    const struct round *r = arg;
    /* The parse state is written at every byte: a copy on this thread's
     * stack, not the slot beside other threads' slots (false sharing). */
    struct part pt = r->e->slots[k];
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
    r->e->slots[k] = pt;
}

/* Bytes through the sink, as libpng's own writes go (a failure longjmps). */
static void sink_bytes(struct enc *e, const void *p, size_t n)
{
    if (e->sink.write(e->sink.ctx, p, n) != 0) {
        e->sink.failed = 1;
        png_error(e->png, "write failed");
    }
}

/* A stripe's bytes as IDAT chunks of IDAT_BYTES, the last one shorter, with
 * the CRCs its task computed. */
static void write_chunks(struct enc *e, const struct part *pt)
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
        sink_bytes(e, head, sizeof head);
        sink_bytes(e, pt->buf + i * IDAT_BYTES, n);
        sink_bytes(e, crc, sizeof crc);
    }
}

/* The image data of a striped image, round by round through the caller's
 * parallel loop (or one stripe after another without one). A stripe whose
 * buffer was too small is made again on this thread with a larger one, so
 * the loop's tasks allocate nothing. */
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
    const uint64_t row_bytes = (uint64_t)e->scale * (e->rowbytes + 1);
    uint64_t a = 1, b = 0;
    for (uint32_t first = 0; first < e->nstripes; first += (uint32_t)e->nslots) {
        uint32_t n = e->nstripes - first < e->nslots ? e->nstripes - first : (uint32_t)e->nslots;
        struct round r = {e, first};
        for (uint32_t k = 0; k < n; k++) {
            e->slots[k].y0 = (uint32_t)((uint64_t)g->h * (first + k) / e->nstripes);
            e->slots[k].y1 = (uint32_t)((uint64_t)g->h * (first + k + 1) / e->nstripes);
        }
        if (par && par->fn && n > 1) {
            cg__budget *budget = cg__budget_suspend(); /* the tasks allocate nothing */
            par->fn(par->ctx, n, stripe_task, &r);
            cg__budget_resume(budget);
        } else {
            for (uint32_t k = 0; k < n; k++)
                stripe_task(&r, k);
        }
        for (uint32_t k = 0; k < n; k++) {
            struct part *pt = &e->slots[k];
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
            write_chunks(e, pt);
            uint64_t len = (uint64_t)(pt->y1 - pt->y0) * row_bytes % ADLER_MOD;
            b = (b + pt->b + len * ((a + ADLER_MOD - 1) % ADLER_MOD)) % ADLER_MOD;
            a = (a + pt->a + ADLER_MOD - 1) % ADLER_MOD;
        }
    }
    uint8_t adler[4] = {(uint8_t)(b >> 8), (uint8_t)b, (uint8_t)(a >> 8), (uint8_t)a};
    emit_idat(e->png, adler, 4); /* a chunk of its own: the end of the stream */
}

/* ------------------------------------------------------------ the image */

/* The image data: the zlib header, the deflate blocks, the Adler-32. */
static void write_image(struct enc *e, const cg__par *par)
{
    const cg_grid *g = e->g;
    init_tables(e);
    /* Pass 1 counts the symbols of a sample of the rows (all of them up to
     * 256 rows, else every h/256-th: a cave's statistics are the same all
     * over, and the sample depends only on the grid, so the bytes stay a
     * function of it). The code must still cover every symbol the second
     * pass can write: each one that can occur (any byte of the table, the
     * filter bytes, any byte at all in a row with markers, every match
     * length) counts at least once. */
    struct part *p0 = &e->slots[0];
    struct bw counting = {0, 0, e->out, e->out + IDAT_BYTES}; /* writes nothing */
    parse_image(e, p0, &counting, 0, g->h, 0);
    for (unsigned v = 0; v < 256; v++)
        for (size_t i = 0; i < e->bytes8; i++)
            e->freq[e->table[v * e->bytes8 + i]] += e->gcount[v] ? e->gcount[v] : 1;
    for (unsigned v = 0; v < 256; v++)
        e->freq[v] += g->nmarks || v == 0 || v == 2 ? 1 : 0;
    for (unsigned sym = EOB; sym < NLIT; sym++)
        e->freq[sym] += 1;
    build_lengths(e->freq, NLIT, 15, e->len);
    build_codes(e->len, NLIT, e->code);
    for (unsigned v = 0; v < 256; v++) {
        const uint8_t *px = e->table + v * e->bytes8;
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

cg_status oracle_write_png(const cg_grid *g, uint32_t scale, const cg__par *par, cg_write_fn write,
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
    struct enc *e = cg__calloc(1, sizeof *e);
    if (!e)
        goto done;
    e->sink = (struct cg__png_sink){write, ctx, 0};
    e->g = g;
    e->scale = scale;
    e->pw = pw;
    e->depth = depth;
    e->rowbytes = rowbytes;
    e->bytes8 = bytes8;
    e->nfull = rowbytes / bytes8;
    e->rem = rowbytes % bytes8;
    e->table = cg__malloc(256 * bytes8);
    e->out = cg__malloc(IDAT_BYTES + 64);
    e->nstripes = stripe_count(g);
    e->nslots = e->nstripes < ROUND_SLOTS ? e->nstripes : ROUND_SLOTS;
    e->slots = cg__calloc(e->nslots, sizeof *e->slots);
    if (!e->table || !e->out || !e->slots)
        goto done;
    for (size_t k = 0; k < e->nslots && g->nmarks; k++) {
        struct part *pt = &e->slots[k];
        size_t bytes = ((size_t)g->w + 7) / 8 * bytes8;
        pt->row = cg__malloc(bytes);
        pt->above = cg__malloc(bytes);
        pt->diff = cg__malloc(bytes);
        if (!pt->row || !pt->above || !pt->diff)
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
        for (size_t k = 0; e->slots && k < e->nslots; k++) {
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
