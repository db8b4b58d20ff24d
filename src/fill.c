/* fill.c - the initial random fill (seed 000: "initialisation avec un seuil").
 *
 * Cell (x, y) is wall iff the top 32 bits of its hash are below
 * ppb * 2^32 / 1e9, i.e. with probability ppb/1e9; the hash depends only on
 * (seed, fill ordinal, x, y), so a smaller map's fill is the top-left crop of
 * a larger one's (before the wall ring is drawn).
 *
 * The hash of a row's cells is cg__cell_hash unrolled: the row part
 * mix64(key ^ y*C) once per row, then mix64(rowhash + x*K) per cell. The
 * AVX2 and AVX-512 paths compute it for 8 cells per instruction (x*K as
 * base + lane*K, the same value mod 2^64, so the same bits as the scalar
 * path, which tests/test_fill.c checks against the documented formula on
 * every path) and pack the 64 comparisons of a word into its bits; AVX-512
 * has the 64-bit multiply (vpmullq) and compares straight into mask bits,
 * AVX2 emulates the multiply. Cells past the map's width are hashed too and
 * then overwritten by the tail walls (cg__grid_wall_ring). The path is
 * chosen as for the automaton (automaton.c); the baseline vector path uses
 * the scalar code, as SSE2 and NEON lack a 64-bit multiply. */
#include "internal.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

#define GOLDEN UINT64_C(0x9E3779B97F4A7C15)
#define ROWMUL UINT64_C(0xD1B54A32D192ED03)

static uint64_t threshold_of(uint32_t ppb)
{
    return ((uint64_t)ppb << 32) / 1000000000u;
}

/* splitmix64's finaliser, as cg__mix64 (rng.c), here so it inlines. */
static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Portable C: cg__cell_hash per cell, its row part hoisted out of the row
 * (the same value: cg__cell_hash(key, x, y) = mix(rowhash + x*K)). */
static void fill_scalar(cg_grid *g, uint64_t key, uint64_t threshold)
{
    for (uint32_t y = 0; y < g->h; y++) {
        uint64_t *r = cg__row(g, y);
        uint64_t rowhash = mix(key ^ ((uint64_t)y * ROWMUL));
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
typedef int64_t fill_v8s __attribute__((vector_size(64)));

/* z = mix64(rowhash + x*K) for x = 64i + 8k + lane (docs/randomness.md). */
#define FILL_HASH8(z, rowhash, i, k)                                                              \
    do {                                                                                          \
        const fill_v8 lane_k_ = {0, GOLDEN, 2 * GOLDEN, 3 * GOLDEN,                               \
                                 4 * GOLDEN, 5 * GOLDEN, 6 * GOLDEN, 7 * GOLDEN};                 \
        (z) = lane_k_ + ((rowhash) + ((uint64_t)(i) * 64 + (uint64_t)(k) * 8) * GOLDEN);          \
        (z) = ((z) ^ ((z) >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);                                 \
        (z) = ((z) ^ ((z) >> 27)) * UINT64_C(0x94D049BB133111EB);                                 \
        (z) ^= (z) >> 31;                                                                         \
    } while (0)

/* One row, 64 cells per word, 8 lanes at a time; the 8 comparisons of a
 * vector go to bits 8k..8k+7 of acc's lanes, then the lanes are OR-ed.
 * Vectors stay local (their ABI depends on the ISA, -Wpsabi). */
static inline __attribute__((always_inline)) void fill_row_v8(uint64_t *r, size_t nw,
                                                               uint64_t rowhash,
                                                               uint64_t threshold)
{
    const fill_v8 bits = {1, 2, 4, 8, 16, 32, 64, 128};
    for (size_t i = 0; i < nw; i++) {
        fill_v8 acc = {0};
        for (unsigned k = 0; k < 8; k++) {
            fill_v8 z;
            FILL_HASH8(z, rowhash, i, k);
            fill_v8s wall = (z >> 32) < threshold; /* all ones where wall */
            acc |= ((fill_v8)wall & bits) << (8 * k);
        }
        r[i] = acc[0] | acc[1] | acc[2] | acc[3] | acc[4] | acc[5] | acc[6] | acc[7];
    }
}

__attribute__((target("avx2"))) static void fill_avx2(cg_grid *g, uint64_t key,
                                                       uint64_t threshold)
{
    for (uint32_t y = 0; y < g->h; y++)
        fill_row_v8(cg__row(g, y), g->nw, cg__mix64(key ^ ((uint64_t)y * ROWMUL)), threshold);
}

/* AVX-512: vpmullq does the 64-bit products, and a compare writes its 8
 * results straight into a mask register: 8 bits of the word. */
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static void
fill_avx512(cg_grid *g, uint64_t key, uint64_t threshold)
{
    const __m512i thr = _mm512_set1_epi64((long long)threshold);
    for (uint32_t y = 0; y < g->h; y++) {
        uint64_t *r = cg__row(g, y);
        uint64_t rowhash = cg__mix64(key ^ ((uint64_t)y * ROWMUL));
        for (size_t i = 0; i < g->nw; i++) {
            uint64_t word = 0;
            for (unsigned k = 0; k < 8; k++) {
                fill_v8 z;
                FILL_HASH8(z, rowhash, i, k);
                __mmask8 m = _mm512_cmplt_epu64_mask((__m512i)(z >> 32), thr);
                word |= (uint64_t)m << (8 * k);
            }
            r[i] = word;
        }
    }
}
#endif

void cg__fill(cg_grid *g, uint64_t key, uint32_t ppb)
{
    uint64_t threshold = threshold_of(ppb);
    switch (cg__kernel_path()) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    case CG__PATH_AVX512VBMI2: /* nothing for VBMI2 to do here */
    case CG__PATH_AVX512:
        fill_avx512(g, key, threshold);
        break;
    case CG__PATH_AVX2:
        fill_avx2(g, key, threshold);
        break;
#endif
    default: /* scalar, and the baseline vector path: SSE2 or NEON have no
              * 64-bit multiply, emulating it was slower than scalar code */
        fill_scalar(g, key, threshold);
        break;
    }
    cg__grid_wall_ring(g);
}
