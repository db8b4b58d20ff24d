/* regions/specks.c - the small wall specks of `remove-walls min=N`, turned
 * with word operations before the labelling.
 *
 * A wall run with floor at both ends and floor above and below every one of
 * its cells is a whole wall region (4-connected: nothing else touches it)
 * of its length. When it lies inside the map (the frame around the map is
 * wall, so a run on the map's edge always has a wall beside it and is never
 * taken) and is shorter than min, remove-walls turns it to floor - and
 * turning it first changes no other wall region, as it touches none. Only
 * runs held in one word are taken (a run reaching its word's first or last
 * bit with a wall beyond is left to the labelling), so each word is decided
 * from itself, the bits beside it and the words above and below. A row's
 * flips do not change the decisions of the rows beside it: a run turned
 * has no wall above or below it.
 *
 * Then specks of up to five rows, in blocks of eight rows of one word
 * (block_word). On the 4096x4096 type2 cave, of its 94,807 wall specks
 * (min=50) 30,845 are one run (28,000 single cells), and 74,439 in all go
 * here, leaving 20,368 to the labelling; each one turned here costs no
 * label, no size, no choosing and no flip from its first cell, and the
 * labelling has fewer runs. */
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

/* The cells of m that begin a stretch of at least n cells of m inside the
 * word (2 <= n <= 64): AND of m shifted by 0..n-1, by doubling. */
static inline uint64_t long_starts(uint64_t m, unsigned n)
{
    unsigned len = 1;
    while (len * 2 <= n) {
        m &= m >> len;
        len *= 2;
    }
    return len < n ? m & (m >> (n - len)) : m;
}

/* The specks of row r (up and dn the rows beside it), one word at a time.
 * r[-1] and r[nw] are the frame, all wall. Bit 63 of r[i - 1] is read
 * after that word's flips: a run turned there had floor at bit 0 of r[i],
 * which is all the bit decides. n: 0, or the length from which a run
 * stays. */
static void row_specks(uint64_t *r, const uint64_t *up, const uint64_t *dn, size_t nw, unsigned n)
{
    for (size_t i = 0; i < nw; i++) {
        const uint64_t m = r[i];
        if (!m)
            continue;
        /* Cells whose run must stay: a wall above or below, a wall beyond
         * the word at either end, or a run of n cells or more. */
        uint64_t keep = m & (up[i] | dn[i]);
        keep |= m & (r[i - 1] >> 63);
        keep |= m & (r[i + 1] << 63);
        if (n)
            keep |= long_starts(m, n);
        r[i] = m & runs_hit(m, keep);
    }
}

#if defined(CG__HAVE_X86)
#define CG__TARGET_512 "avx512f"

/* row_specks eight words at a time (the same operations on 64-bit lanes;
 * the row's last words by masked loads and stores). A word's flips never
 * change the bit its neighbours read of it (see row_specks), so the
 * neighbours may be read before or after them. */
__attribute__((target(CG__TARGET_512))) static void
row_specks512(uint64_t *r, const uint64_t *up, const uint64_t *dn, size_t nw, unsigned n)
{
    unsigned len = 1, rest = 0; /* long_starts' shifts for n */
    if (n) {
        while (len * 2 <= n)
            len *= 2;
        rest = n - len;
    }
    for (size_t i = 0; i < nw; i += 8) {
        const __mmask8 k = nw - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (nw - i)) - 1);
        const __m512i m = _mm512_maskz_loadu_epi64(k, r + i);
        const __m512i v = _mm512_or_si512(_mm512_maskz_loadu_epi64(k, up + i),
                                          _mm512_maskz_loadu_epi64(k, dn + i));
        const __m512i lw = _mm512_srli_epi64(_mm512_maskz_loadu_epi64(k, r + i - 1), 63);
        const __m512i rw = _mm512_slli_epi64(_mm512_maskz_loadu_epi64(k, r + i + 1), 63);
        /* keep = m & (v | lw | rw): 0xf8 is a & (b | c), twice. */
        __m512i keep = _mm512_and_si512(m, _mm512_or_si512(v, _mm512_or_si512(lw, rw)));
        if (n) {
            __m512i q = m;
            for (unsigned d = 1; d < len; d *= 2)
                q = _mm512_and_si512(q, _mm512_srl_epi64(q, _mm_cvtsi32_si128((int)d)));
            if (rest)
                q = _mm512_and_si512(q, _mm512_srl_epi64(q, _mm_cvtsi32_si128((int)rest)));
            keep = _mm512_or_si512(keep, q);
        }
        /* runs_hit(m, keep) */
        __m512i g = _mm512_or_si512(_mm512_andnot_si512(_mm512_add_epi64(m, keep), m), keep);
        __m512i p = m;
        g = _mm512_or_si512(g, _mm512_and_si512(_mm512_srli_epi64(g, 1), p));
        p = _mm512_and_si512(p, _mm512_srli_epi64(p, 1));
        g = _mm512_or_si512(g, _mm512_and_si512(_mm512_srli_epi64(g, 2), p));
        p = _mm512_and_si512(p, _mm512_srli_epi64(p, 2));
        g = _mm512_or_si512(g, _mm512_and_si512(_mm512_srli_epi64(g, 4), p));
        p = _mm512_and_si512(p, _mm512_srli_epi64(p, 4));
        g = _mm512_or_si512(g, _mm512_and_si512(_mm512_srli_epi64(g, 8), p));
        p = _mm512_and_si512(p, _mm512_srli_epi64(p, 8));
        g = _mm512_or_si512(g, _mm512_and_si512(_mm512_srli_epi64(g, 16), p));
        p = _mm512_and_si512(p, _mm512_srli_epi64(p, 16));
        g = _mm512_or_si512(g, _mm512_and_si512(_mm512_srli_epi64(g, 32), p));
        _mm512_mask_storeu_epi64(r + i, k, _mm512_and_si512(m, g));
    }
}
#endif

/* Specks of up to five rows. In a block of BLOCK_ROWS rows of one word, the
 * walls that reach, within the block, a wall outside it (the row above,
 * the row below, the bit beside the word on either side) are found by
 * filling runs down and up the block until nothing changes; the others
 * make whole wall regions inside the block. When they hold fewer than min
 * cells in all, each of them is smaller than min, and they go (when they
 * hold more, the labelling decides them one by one). The blocks are taken
 * twice, the second time shifted by half a block: a region of at most
 * BLOCK_ROWS / 2 + 1 rows crosses the boundaries of one of the two sets at
 * most, so lies in a block of the other. As with one run, a word's flips do
 * not change what its neighbours read of it: the region turned has no wall
 * beside it. */
#define BLOCK_ROWS 8

/* One block: rows r[0..nr-1], up and dn the rows beside it, word i. */
static void block_word(uint64_t *const *r, unsigned nr, const uint64_t *up, const uint64_t *dn,
                       size_t i, uint64_t min)
{
    uint64_t m[BLOCK_ROWS], k[BLOCK_ROWS], any = 0;
    for (unsigned j = 0; j < nr; j++) {
        m[j] = r[j][i];
        uint64_t s = (r[j][i - 1] >> 63) | (r[j][i + 1] << 63);
        if (j == 0)
            s |= up[i];
        if (j + 1 == nr)
            s |= dn[i];
        k[j] = runs_hit(m[j], m[j] & s);
        any |= m[j] & ~k[j];
    }
    if (!any)
        return;
    for (;;) {
        uint64_t changed = 0;
        for (unsigned j = 1; j < nr; j++) {
            const uint64_t n = runs_hit(m[j], m[j] & (k[j] | k[j - 1]));
            changed |= n ^ k[j];
            k[j] = n;
        }
        for (unsigned j = nr - 1; j-- > 0;) {
            const uint64_t n = runs_hit(m[j], m[j] & (k[j] | k[j + 1]));
            changed |= n ^ k[j];
            k[j] = n;
        }
        if (!changed)
            break;
    }
    uint64_t total = 0;
    for (unsigned j = 0; j < nr; j++)
        total += (uint64_t)__builtin_popcountll(m[j] & ~k[j]);
    if (total && total < min)
        for (unsigned j = 0; j < nr; j++)
            r[j][i] = k[j];
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

/* block_word for words i .. i+7 at once (fewer where k says), until no
 * word's fill changes; totals by VPOPCNTQ. */
__attribute__((target(CG__TARGET_512POP))) static void
block_words512(uint64_t *const *r, unsigned nr, const uint64_t *up, const uint64_t *dn, size_t i,
               __mmask8 lanes, uint64_t min)
{
    __m512i m[BLOCK_ROWS], k[BLOCK_ROWS], any = _mm512_setzero_si512();
    for (unsigned j = 0; j < nr; j++) {
        m[j] = _mm512_maskz_loadu_epi64(lanes, r[j] + i);
        __m512i s =
            _mm512_or_si512(_mm512_srli_epi64(_mm512_maskz_loadu_epi64(lanes, r[j] + i - 1), 63),
                            _mm512_slli_epi64(_mm512_maskz_loadu_epi64(lanes, r[j] + i + 1), 63));
        if (j == 0)
            s = _mm512_or_si512(s, _mm512_maskz_loadu_epi64(lanes, up + i));
        if (j + 1 == nr)
            s = _mm512_or_si512(s, _mm512_maskz_loadu_epi64(lanes, dn + i));
        k[j] = runs_hit512(m[j], _mm512_and_si512(m[j], s));
        any = _mm512_or_si512(any, _mm512_andnot_si512(k[j], m[j]));
    }
    if (!_mm512_test_epi64_mask(any, any))
        return;
    for (;;) {
        __m512i changed = _mm512_setzero_si512();
        for (unsigned j = 1; j < nr; j++) {
            const __m512i n =
                runs_hit512(m[j], _mm512_and_si512(m[j], _mm512_or_si512(k[j], k[j - 1])));
            changed = _mm512_ternarylogic_epi64(changed, n, k[j], 0xf6); /* a | (b ^ c) */
            k[j] = n;
        }
        for (unsigned j = nr - 1; j-- > 0;) {
            const __m512i n =
                runs_hit512(m[j], _mm512_and_si512(m[j], _mm512_or_si512(k[j], k[j + 1])));
            changed = _mm512_ternarylogic_epi64(changed, n, k[j], 0xf6);
            k[j] = n;
        }
        if (!_mm512_test_epi64_mask(changed, changed))
            break;
    }
    __m512i total = _mm512_setzero_si512();
    for (unsigned j = 0; j < nr; j++)
        total = _mm512_add_epi64(total, _mm512_popcnt_epi64(_mm512_andnot_si512(k[j], m[j])));
    const __mmask8 go = _mm512_mask_cmplt_epu64_mask(_mm512_test_epi64_mask(total, total), total,
                                                     _mm512_set1_epi64((long long)min));
    if (go)
        for (unsigned j = 0; j < nr; j++)
            _mm512_mask_storeu_epi64(r[j] + i, go, k[j]);
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
                for (; i < g->nw; i += 8)
                    block_words512(
                        r, nr, up, dn, i,
                        g->nw - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (g->nw - i)) - 1), min);
                continue;
            }
#endif
            for (; i < g->nw; i++)
                block_word(r, nr, up, dn, i, min);
        }
    }
}

void cg__drop_wall_specks(cg_grid *g, uint32_t y0, uint32_t y1, uint64_t min)
{
    if (min <= 1)
        return;
    const unsigned n = min > 64 ? 0 : (unsigned)min; /* 0: every run is short */
    const size_t nw = g->nw;
#if defined(CG__HAVE_X86)
    const int wide = cg__kernel_path() >= CG__PATH_AVX512;
#endif
    for (uint32_t y = y0; y < y1; y++) {
        const uint64_t *up = cg__row(g, (int64_t)y - 1), *dn = cg__row(g, (int64_t)y + 1);
        uint64_t *r = cg__row(g, y);
#if defined(CG__HAVE_X86)
        if (wide) {
            row_specks512(r, up, dn, nw, n);
            continue;
        }
#endif
        row_specks(r, up, dn, nw, n);
    }
    block_specks(g, y0, y1, min);
}
