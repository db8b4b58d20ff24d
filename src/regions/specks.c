/* regions/specks.c - the wall specks of `remove-walls min=N` that are one
 * run, removed with word operations before the labelling.
 *
 * A wall run with floor at both ends and floor above and below every one of
 * its cells is a whole wall region (4-connected: nothing else touches it)
 * of its length. When it lies inside the map (the frame around the map is
 * wall, so a run on the map's edge always has a wall beside it and is never
 * taken) and is shorter than min, remove-walls turns it to floor - and
 * turning it first changes no other wall region, as it touches none. On a
 * cave about a third of the specks are such runs (the 4096x4096 type2 map:
 * 30,845 of 94,800, 28,000 of them single cells); each one removed here
 * costs a few word operations shared with its word's neighbours, instead
 * of a label, its size, choosing it and a flip from its first cell.
 *
 * Only runs held in one word are taken (a run reaching its word's first or
 * last bit with a wall beyond is left to the labelling), so each word is
 * decided from itself, the bits beside it and the words above and below.
 * A row's flips do not change the decisions of the rows beside it: a run
 * turned has no wall above or below it. */
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
}
