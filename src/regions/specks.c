/* regions/specks.c - the small wall specks of `remove-walls min=N`, turned
 * with word operations before the labelling.
 *
 * A wall region that does not touch the map's edge and has fewer than min
 * cells goes; turning it first changes no other wall region, as it touches
 * none, so the labelling after finds the same regions but those. Here the
 * map is taken in blocks of BLOCK_ROWS rows of one word (block_words). On
 * the 4096x4096 type2 cave, 74,254 of its 94,807 wall specks (min=50) go
 * here; each costs then no label, no size, no choosing and no flip from its
 * first cell, and the labelling has fewer runs. */
#include "core/cpu.h"
#include "core/grid.h"
#include "regions/regions.h"

#if defined(CG__HAVE_X86)
#include <immintrin.h>
#endif

/* The cells of k in the runs of k that hold a cell of s (s within k): the
 * carry of an addition upward from each seed to its run's end, a
 * Kogge-Stone occluded fill downward (as fill_runs in regions.c). */
static inline uint64_t runs_hit(uint64_t k, uint64_t s)
{
    uint64_t g = (k & ~(k + s)) | s, p = k;
    for (unsigned d = 1; d < 64; d *= 2) {
        g |= (g >> d) & p;
        p &= p >> d;
    }
    return g;
}

/* In a block of BLOCK_ROWS rows of one word, the walls that reach, within
 * the block, a wall outside it (the row above, the row below, the bit
 * beside the word on either side; the frame around the map is wall, so a
 * region on the map's edge always does) are found by filling runs down and
 * up the block until nothing changes - a reconstruction, as in
 * morphological hole filling, confined to the block. The other walls make
 * whole wall regions inside the block. When they hold fewer than min cells
 * in all, each of them is smaller than min, and they go (when they hold
 * more, the labelling decides them one by one). The blocks are taken
 * twice, the second time shifted by half a block: a region of at most
 * BLOCK_ROWS / 2 + 1 rows crosses the boundaries of one of the two sets at
 * most, so lies in a block of the other. A word's flips do not change what
 * the words beside it and the blocks after read of it: a region turned has
 * no wall beside it. (Blocks of 12 rows were no faster; a first pass for
 * specks of one run, before the blocks, cost more than it saved.) */
#define BLOCK_ROWS 8

/* The words block_words takes at once: a block's fill is a chain of
 * dependent steps down and up its rows, and words side by side are
 * independent chains (and a loop the compiler can vectorise). */
#define LANES 8

/* One block: rows r[0..nr-1], up and dn the rows beside it, words i ..
 * i + n - 1 (n <= LANES). The first sweep goes down the block from the
 * seeds beside each row (and above it, the row before filled already); then
 * sweeps go up and down in turn until one changes nothing: each row is then
 * filled from both rows beside it as they stand (a sweep leaves every row
 * filled from the row it came from), which is the reconstruction's end. */
static void block_words(uint64_t *const *r, unsigned nr, const uint64_t *up, const uint64_t *dn,
                        size_t i, unsigned n, uint64_t min)
{
    uint64_t m[BLOCK_ROWS][LANES], k[BLOCK_ROWS][LANES], any = 0;
    for (unsigned j = 0; j < nr; j++)
        for (unsigned l = 0; l < n; l++) {
            const size_t at = i + l;
            m[j][l] = r[j][at];
            uint64_t s = (r[j][at - 1] >> 63) | (r[j][at + 1] << 63);
            s |= j == 0 ? up[at] : k[j - 1][l];
            if (j + 1 == nr)
                s |= dn[at];
            k[j][l] = runs_hit(m[j][l], m[j][l] & s);
            any |= m[j][l] & ~k[j][l];
        }
    if (!any)
        return;
    for (;;) {
        uint64_t changed = 0;
        for (unsigned j = nr - 1; j-- > 0;)
            for (unsigned l = 0; l < n; l++) {
                const uint64_t v = runs_hit(m[j][l], m[j][l] & (k[j][l] | k[j + 1][l]));
                changed |= v ^ k[j][l];
                k[j][l] = v;
            }
        if (!changed)
            break;
        changed = 0;
        for (unsigned j = 1; j < nr; j++)
            for (unsigned l = 0; l < n; l++) {
                const uint64_t v = runs_hit(m[j][l], m[j][l] & (k[j][l] | k[j - 1][l]));
                changed |= v ^ k[j][l];
                k[j][l] = v;
            }
        if (!changed)
            break;
    }
    for (unsigned l = 0; l < n; l++) {
        uint64_t total = 0;
        for (unsigned j = 0; j < nr; j++)
            total += (uint64_t)__builtin_popcountll(m[j][l] & ~k[j][l]);
        if (total && total < min)
            for (unsigned j = 0; j < nr; j++)
                r[j][i + l] = k[j][l];
    }
}

#if defined(CG__HAVE_X86)
#define CG__TARGET_512POP "avx512f,avx512vpopcntdq"

/* runs_hit on eight words; g | (x & p) as one ternary-logic op (0xf8). */
__attribute__((target(CG__TARGET_512POP))) static inline __m512i runs_hit512(__m512i k, __m512i s)
{
    __m512i g = _mm512_or_si512(_mm512_andnot_si512(_mm512_add_epi64(k, s), k), s), p = k;
    g = _mm512_ternarylogic_epi64(g, _mm512_srli_epi64(g, 1), p, 0xf8);
    p = _mm512_and_si512(p, _mm512_srli_epi64(p, 1));
    g = _mm512_ternarylogic_epi64(g, _mm512_srli_epi64(g, 2), p, 0xf8);
    p = _mm512_and_si512(p, _mm512_srli_epi64(p, 2));
    g = _mm512_ternarylogic_epi64(g, _mm512_srli_epi64(g, 4), p, 0xf8);
    p = _mm512_and_si512(p, _mm512_srli_epi64(p, 4));
    g = _mm512_ternarylogic_epi64(g, _mm512_srli_epi64(g, 8), p, 0xf8);
    p = _mm512_and_si512(p, _mm512_srli_epi64(p, 8));
    g = _mm512_ternarylogic_epi64(g, _mm512_srli_epi64(g, 16), p, 0xf8);
    p = _mm512_and_si512(p, _mm512_srli_epi64(p, 16));
    return _mm512_ternarylogic_epi64(g, _mm512_srli_epi64(g, 32), p, 0xf8);
}

/* The words block_words512 takes at once, in groups of eight: a block's
 * fill is a chain of dependent steps down and up its rows, so the more
 * independent groups are in flight the less each waits (the specks of the
 * 4096x4096 bench map: 2.3 ms with one group, 1.4 with two, 0.9 with four,
 * 0.72 with eight). */
#define GROUPS 8

/* block_words for words i .. i + 8 * ng - 1 at once (fewer where lanes
 * says), until no word's fill changes; totals by VPOPCNTQ. */
__attribute__((target(CG__TARGET_512POP))) static void
block_words512(uint64_t *const *r, unsigned nr, const uint64_t *up, const uint64_t *dn, size_t i,
               unsigned ng, const __mmask8 *lanes, uint64_t min)
{
    __m512i m[GROUPS][BLOCK_ROWS], k[GROUPS][BLOCK_ROWS], any = _mm512_setzero_si512();
    for (unsigned j = 0; j < nr; j++)
        for (unsigned g = 0; g < ng; g++) {
            const size_t at = i + 8 * g;
            m[g][j] = _mm512_maskz_loadu_epi64(lanes[g], r[j] + at);
            __m512i s = _mm512_or_si512(
                _mm512_srli_epi64(_mm512_maskz_loadu_epi64(lanes[g], r[j] + at - 1), 63),
                _mm512_slli_epi64(_mm512_maskz_loadu_epi64(lanes[g], r[j] + at + 1), 63));
            s = _mm512_or_si512(s, j == 0 ? _mm512_maskz_loadu_epi64(lanes[g], up + at)
                                          : k[g][j - 1]);
            if (j + 1 == nr)
                s = _mm512_or_si512(s, _mm512_maskz_loadu_epi64(lanes[g], dn + at));
            k[g][j] = runs_hit512(m[g][j], _mm512_and_si512(m[g][j], s));
            any = _mm512_or_si512(any, _mm512_andnot_si512(k[g][j], m[g][j]));
        }
    if (!_mm512_test_epi64_mask(any, any))
        return;
    for (;;) {
        __m512i changed = _mm512_setzero_si512();
        for (unsigned j = nr - 1; j-- > 0;)
            for (unsigned g = 0; g < ng; g++) {
                const __m512i n = runs_hit512(
                    m[g][j], _mm512_and_si512(m[g][j], _mm512_or_si512(k[g][j], k[g][j + 1])));
                changed = _mm512_ternarylogic_epi64(changed, n, k[g][j], 0xf6); /* a | (b ^ c) */
                k[g][j] = n;
            }
        if (!_mm512_test_epi64_mask(changed, changed))
            break;
        changed = _mm512_setzero_si512();
        for (unsigned j = 1; j < nr; j++)
            for (unsigned g = 0; g < ng; g++) {
                const __m512i n = runs_hit512(
                    m[g][j], _mm512_and_si512(m[g][j], _mm512_or_si512(k[g][j], k[g][j - 1])));
                changed = _mm512_ternarylogic_epi64(changed, n, k[g][j], 0xf6);
                k[g][j] = n;
            }
        if (!_mm512_test_epi64_mask(changed, changed))
            break;
    }
    for (unsigned g = 0; g < ng; g++) {
        __m512i total = _mm512_setzero_si512();
        for (unsigned j = 0; j < nr; j++)
            total = _mm512_add_epi64(total,
                                     _mm512_popcnt_epi64(_mm512_andnot_si512(k[g][j], m[g][j])));
        const __mmask8 go = _mm512_mask_cmplt_epu64_mask(
            _mm512_test_epi64_mask(total, total), total, _mm512_set1_epi64((long long)min));
        if (go)
            for (unsigned j = 0; j < nr; j++)
                _mm512_mask_storeu_epi64(r[j] + i + 8 * g, go, k[g][j]);
    }
}
#endif

static void block_specks(cg_grid *g, uint32_t y0, uint32_t y1, uint64_t min)
{
#if defined(CG__HAVE_X86)
    const int wide =
        cg__kernel_path() >= CG__PATH_AVX512 && __builtin_cpu_supports("avx512vpopcntdq");
#endif
    for (uint32_t shift = 0; shift <= BLOCK_ROWS / 2; shift += BLOCK_ROWS / 2) {
        for (uint32_t yb = y0 + shift; yb < y1; yb += BLOCK_ROWS) {
            const unsigned nr = y1 - yb < BLOCK_ROWS ? y1 - yb : BLOCK_ROWS;
            uint64_t *r[BLOCK_ROWS];
            for (unsigned j = 0; j < nr; j++)
                r[j] = cg__row(g, (int64_t)yb + j);
            const uint64_t *up = cg__row(g, (int64_t)yb - 1), *dn = cg__row(g, (int64_t)yb + nr);
            size_t i = 0;
#if defined(CG__HAVE_X86)
            if (wide) {
                for (; i < g->nw; i += 8 * GROUPS) {
                    __mmask8 lanes[GROUPS];
                    unsigned ng = 0;
                    for (size_t at = i; at < g->nw && ng < GROUPS; at += 8)
                        lanes[ng++] =
                            (__mmask8)(g->nw - at >= 8 ? 0xffu : (1u << (g->nw - at)) - 1u);
                    block_words512(r, nr, up, dn, i, ng, lanes, min);
                }
                continue;
            }
#endif
            for (; i < g->nw; i += LANES)
                block_words(r, nr, up, dn, i, g->nw - i < LANES ? (unsigned)(g->nw - i) : LANES,
                            min);
        }
    }
}

void cg__drop_wall_specks(cg_grid *g, uint32_t y0, uint32_t y1, uint64_t min)
{
    if (min > 1)
        block_specks(g, y0, y1, min);
}
