/* cells/fill.c - the initial random fill (the cellular-automaton cave article's
 * "initialisation avec un seuil", docs/algorithms.md).
 *
 * Cell (x, y) is wall iff the top 32 bits of its hash are below
 * ppb * 2^32 / 1e9, i.e. with probability ppb/1e9; the hash depends only on
 * (seed, fill ordinal, x, y), so a smaller map's fill is the top-left crop of
 * a larger one's (before the wall ring is drawn).
 *
 * The hash of a row's cells is cg__cell_hash unrolled: the row part
 * mix64(key ^ y*C) once per row, then mix64(rowhash + x*K) per cell. The
 * AVX-512 path computes it for 8 cells per instruction, AVX2 for 4 (x*K as
 * base + lane*K, the same value mod 2^64, so the same bits as the scalar
 * path, which tests/test_fill.c checks against the documented formula on
 * every path), folds mix64's last step into the comparison (flip_of) and
 * packs the comparisons of a word into its bits; AVX-512 has the 64-bit
 * multiply (vpmullq) and compares straight into mask bits, AVX2 emulates
 * the multiply with three 32-bit ones. The vector paths hash whole groups
 * of 8 cells up to the map's width; the bits past it become the tail
 * walls, and the first and last rows of a ring are not drawn at all (all
 * wall): on the 80x50 maps of a batch, 480 groups instead of 800. A window
 * of the infinite cave (the chunks of docs/scale.md) hashes world
 * coordinates: the x offset is folded into the row hash, so the kernels are
 * unchanged. The path is chosen as for the automaton (cells/automaton.c);
 * the baseline vector path uses the scalar code, as SSE2 and NEON lack a
 * 64-bit multiply. */
#include "cells/fill.h"
#include "core/cpu.h"
#include "core/grid.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

#define GOLDEN UINT64_C(0x9E3779B97F4A7C15)
#define ROWMUL UINT64_C(0xD1B54A32D192ED03)

static uint64_t threshold_of(uint32_t ppb)
{
    return ((uint64_t)ppb << 32) / 1000000000u;
}

/* splitmix64's finaliser, as cg__mix64 (core/rng.c), here so it inlines. */
static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Where the rows being filled lie in the world: rows y0..y1-1 of the grid,
 * whose cell (x, y) is world cell (ox + x, oy + y). */
typedef struct fill_window {
    uint64_t ox, oy; /* int64_t world offsets, as the hash takes them (mod 2^64) */
    uint32_t y0, y1;
} fill_window;

/* The row part of the cell hash of grid row y, with the x offset folded in:
 * mix(key ^ (oy+y)*R) + ox*K, so that hashing x below gives
 * mix(rowhash + (ox+x)*K) = cg__cell_hash(key, ox+x, oy+y), mod 2^64. */
static inline uint64_t row_hash(uint64_t key, const fill_window *win, uint32_t y)
{
    return mix(key ^ ((win->oy + y) * ROWMUL)) + win->ox * GOLDEN;
}

/* Portable C: cg__cell_hash per cell, its row part hoisted out of the row
 * (the same value: cg__cell_hash(key, x, y) = mix(rowhash + x*K)). */
static void fill_scalar(cg_grid *g, uint64_t key, uint64_t threshold, const fill_window *win)
{
    for (uint32_t y = win->y0; y < win->y1; y++) {
        uint64_t *r = cg__row(g, y);
        uint64_t rowhash = row_hash(key, win, y);
        for (size_t i = 0; i < g->nw; i++) {
            uint64_t word = 0;
            uint64_t x0 = (uint64_t)i * 64;
            unsigned n = g->w - x0 < 64 ? (unsigned)(g->w - x0) : 64;
            for (unsigned b = 0; b < n; b++) {
                uint64_t h = mix(rowhash + (x0 + b) * GOLDEN) >> 32;
                word |= (uint64_t)(h < threshold) << b;
            }
            r[i] = word;
        }
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
typedef uint64_t fill_v8 __attribute__((vector_size(64)));

/* The first two rounds of mix64 on the lanes of z. */
#define FILL_MIX2(z)                                                                               \
    do {                                                                                           \
        (z) = ((z) ^ ((z) >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);                                  \
        (z) = ((z) ^ ((z) >> 27)) * UINT64_C(0x94D049BB133111EB);                                  \
    } while (0)

/* The last round of mix64 and the comparison in one. The top 32 bits of
 * z ^ (z >> 31) are z's top 32 bits with their lowest flipped where bit 63
 * is set. For a threshold t <= 2^31 a set bit 63 means z's top half is
 * >= 2^31 >= t, no wall with or without the flip: wall iff z < t * 2^32.
 * For 2^31 < t < 2^32 a clear bit 63 means a top half < 2^31 < t, a wall
 * with or without the flip, so bit 32 may be flipped in every lane: wall
 * iff (z ^ 2^32) < t * 2^32. The caller handles t = 0 and t = 2^32 (no
 * wall, all wall). */
static uint64_t flip_of(uint64_t threshold)
{
    return threshold > (UINT64_C(1) << 31) ? UINT64_C(1) << 32 : 0;
}

/* Lanes 0..7 of the first group of a row: rowhash + lane * K; each group
 * of 8 cells adds 8K (x*K as base + lane*K, the same value mod 2^64). */
#define FILL_LANES(rowhash)                                                                        \
    ((fill_v8){0, GOLDEN, 2 * GOLDEN, 3 * GOLDEN, 4 * GOLDEN, 5 * GOLDEN, 6 * GOLDEN,              \
               7 * GOLDEN} +                                                                       \
     (rowhash))

/* Groups of 8 cells the last word of a row holds (1..8): the groups past
 * the width are not hashed, their bits are left 0 for the tail walls. */
static unsigned last_groups(const cg_grid *g)
{
    return (unsigned)(((g->w - 1) & 63u) / 8u + 1u);
}

/* AVX2 has no 64-bit multiply: a * c mod 2^64 from three 32x32-bit ones,
 * lo(a)lo(c) + (hi(a)lo(c) + lo(a)hi(c)) << 32; ch holds hi(c). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
mul64_avx2(__m256i a, __m256i c, __m256i ch)
{
    __m256i cross =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), c), _mm256_mul_epu32(a, ch));
    return _mm256_add_epi64(_mm256_mul_epu32(a, c), _mm256_slli_epi64(cross, 32));
}

/* Walls among 4 cells whose lanes hold rowhash + x*K, as bits 0..3. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) unsigned
walls4_avx2(__m256i z, __m256i thr, const uint64_t flip)
{
    const __m256i c1 = _mm256_set1_epi64x((long long)UINT64_C(0xBF58476D1CE4E5B9));
    const __m256i c1h = _mm256_srli_epi64(c1, 32);
    const __m256i c2 = _mm256_set1_epi64x((long long)UINT64_C(0x94D049BB133111EB));
    const __m256i c2h = _mm256_srli_epi64(c2, 32);
    z = mul64_avx2(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), c1, c1h);
    z = mul64_avx2(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), c2, c2h);
    if (flip)
        z = _mm256_xor_si256(z, _mm256_set1_epi64x((long long)flip));
    /* Top halves < 2^32 compare right as signed 64-bit values. */
    __m256i wall = _mm256_cmpgt_epi64(thr, _mm256_srli_epi64(z, 32));
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(wall));
}

/* The next word of a row from x0 = rowhash + x*K of its first cell: its
 * first kn groups of 8 cells, 4 lanes at a time, each comparison a bit. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) uint64_t
fill_word_avx2(uint64_t x0, unsigned kn, __m256i thr, const uint64_t flip)
{
    const __m256i lanes =
        _mm256_set_epi64x((long long)(3 * GOLDEN), (long long)(2 * GOLDEN), (long long)GOLDEN, 0);
    uint64_t word = 0;
    for (unsigned k = 0; k < 2 * kn; k++) {
        __m256i z = _mm256_add_epi64(lanes, _mm256_set1_epi64x((long long)(x0 + k * 4 * GOLDEN)));
        word |= (uint64_t)walls4_avx2(z, thr, flip) << (4 * k);
    }
    return word;
}

/* Rows win->y0..y1-1 with the ring's and tail's bits, as fill_rows_avx512
 * below. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
fill_rows_avx2(cg_grid *g, uint64_t key, uint64_t threshold, const fill_window *win,
               uint64_t first, uint64_t fix, const uint64_t flip)
{
    const __m256i thr = _mm256_set1_epi64x((long long)threshold);
    const unsigned kn = last_groups(g);
    const size_t nw = g->nw;
    for (uint32_t y = win->y0; y < win->y1; y++) {
        uint64_t *r = cg__row(g, y);
        uint64_t x0 = row_hash(key, win, y), at0 = first;
        for (size_t i = 0; i + 1 < nw; i++, x0 += 64 * GOLDEN, at0 = 0)
            r[i] = fill_word_avx2(x0, 8, thr, flip) | at0;
        r[nw - 1] = fill_word_avx2(x0, kn, thr, flip) | at0 | fix;
    }
}

__attribute__((target("avx2"))) static void fill_avx2(cg_grid *g, uint64_t key, uint64_t threshold,
                                                      const fill_window *win, uint64_t first,
                                                      uint64_t fix)
{
    if (flip_of(threshold))
        fill_rows_avx2(g, key, threshold, win, first, fix, UINT64_C(1) << 32);
    else
        fill_rows_avx2(g, key, threshold, win, first, fix, 0);
}

/* AVX-512: vpmullq does the 64-bit products, and a compare writes its 8
 * results straight into a mask register: 8 bits of the word. flip is a
 * constant 0 or 2^32 in each copy (two loops, no XOR in the common one). */
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static inline
    __attribute__((always_inline)) uint64_t
    fill_word_avx512(fill_v8 *zx, unsigned kn, __m512i lim, const uint64_t flip)
{
    uint64_t word = 0;
    for (unsigned k = 0; k < kn; k++) {
        fill_v8 z = *zx;
        *zx += 8 * GOLDEN;
        FILL_MIX2(z);
        if (flip)
            z ^= flip;
        __mmask8 m = _mm512_cmplt_epu64_mask((__m512i)z, lim);
        word |= (uint64_t)m << (8 * k);
    }
    return word;
}

/* Rows win->y0..y1-1 with the ring's and tail's bits ORed in before each
 * row's one store (first: x = 0, fix: x = w-1 and the tail), so no fix-up
 * loop reads them back. (Storing each group's mask as its byte of the row
 * with kmovb, which saves the kmovq and shifts, measured no faster: the
 * next step's loads of words made of eight byte stores wait for them.) */
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static inline
    __attribute__((always_inline)) void
    fill_rows_avx512(cg_grid *g, uint64_t key, uint64_t threshold, const fill_window *win,
                     uint64_t first, uint64_t fix, const uint64_t flip)
{
    const __m512i lim = _mm512_set1_epi64((long long)(threshold << 32));
    const unsigned kn = last_groups(g);
    const size_t nw = g->nw;
    for (uint32_t y = win->y0; y < win->y1; y++) {
        uint64_t *r = cg__row(g, y);
        fill_v8 zx = FILL_LANES(row_hash(key, win, y));
        if (nw == 1) {
            r[0] = fill_word_avx512(&zx, kn, lim, flip) | first | fix;
            continue;
        }
        r[0] = fill_word_avx512(&zx, 8, lim, flip) | first;
        for (size_t i = 1; i + 1 < nw; i++)
            r[i] = fill_word_avx512(&zx, 8, lim, flip);
        r[nw - 1] = fill_word_avx512(&zx, kn, lim, flip) | fix;
    }
}

__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static void
fill_avx512(cg_grid *g, uint64_t key, uint64_t threshold, const fill_window *win, uint64_t first,
            uint64_t fix)
{
    if (flip_of(threshold))
        fill_rows_avx512(g, key, threshold, win, first, fix, UINT64_C(1) << 32);
    else
        fill_rows_avx512(g, key, threshold, win, first, fix, 0);
}
#endif

void cg__fill_rows(cg_grid *g, uint64_t key, uint32_t ppb, int64_t ox, int64_t oy, int ring,
                   uint32_t y0, uint32_t y1)
{
    uint64_t threshold = threshold_of(ppb);
    if (y1 > g->h)
        y1 = g->h;
    if (y0 >= y1)
        return;
    /* The ring's first and last rows become all wall below: not drawn. */
    uint32_t d0 = ring && y0 == 0 ? 1 : y0, d1 = ring && y1 == g->h ? g->h - 1 : y1;
    const fill_window win = {(uint64_t)ox, (uint64_t)oy, d0, d1 > d0 ? d1 : d0};
    int path = cg__kernel_path(), done = 0; /* done: the rows came with their ring and tail */
    /* The bits the ring (x = 0; x = w-1) and the tail past the width add. */
    const uint64_t last = UINT64_C(1) << ((g->w - 1) & 63), tail = cg__tail_mask(g);
    const uint64_t first = ring ? 1 : 0, fix = (ring ? last : 0) | tail;
    if (threshold == 0 || threshold >= UINT64_C(1) << 32) {
        /* fill 0 and fill 100: no cell or every cell below the threshold. */
        for (uint32_t y = win.y0; y < win.y1; y++)
            for (size_t i = 0; i < g->nw; i++)
                cg__row(g, y)[i] = threshold ? ~UINT64_C(0) : 0;
        path = -1;
    }
    switch (path) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    case CG__PATH_AVX512VBMI2: /* nothing for VBMI2 to do here */
    case CG__PATH_AVX512:
        fill_avx512(g, key, threshold, &win, first, fix);
        done = 1;
        break;
    case CG__PATH_AVX2:
        fill_avx2(g, key, threshold, &win, first, fix);
        done = 1;
        break;
#endif
    case -1: /* drawn above */
        break;
    default: /* scalar, and the baseline vector path: SSE2 or NEON have no
              * 64-bit multiply, emulating it was slower than scalar code */
        fill_scalar(g, key, threshold, &win);
        break;
    }
    /* The cellular-automaton cave article forces the map's borders to
     * wall; a window of the infinite cave (docs/scale.md) has no border,
     * only the tail bits past the width, which stay wall in every grid. */
    for (uint32_t y = y0; y < y1; y++) {
        uint64_t *r = cg__row(g, y);
        if (done && y >= win.y0 && y < win.y1) {
            y = win.y1 - 1; /* drawn with these bits: on to the rows after */
        } else if (ring && (y == 0 || y == g->h - 1)) {
            for (size_t i = 0; i < g->nw; i++)
                r[i] = ~UINT64_C(0);
        } else {
            r[0] |= first;
            r[g->nw - 1] |= fix;
        }
    }
}

void cg__fill(cg_grid *g, uint64_t key, uint32_t ppb)
{
    cg__fill_rows(g, key, ppb, 0, 0, 1, 0, g->h);
}
