/* regions/regions.c - 4-connected regions of floor or wall (the Russian
 * cellular-automata article: "find the regions by BFS, fill the small
 * ones"), and the steps built on them:
 * `remove-floor min=N`, `remove-walls min=N`, `keep-largest`.
 *
 * Instead of the article's per-cell BFS, regions are labelled on *runs*: the
 * maximal horizontal stretches of one kind of cell in a row. A row's runs
 * come out of the bitboard with word operations (starts = m & ~(m << 1),
 * ends likewise) and count-trailing-zeros. A run of row y is 4-connected to
 * the runs of row y-1 whose columns overlap its own, and each overlapping
 * pair is one run of (row y AND row y-1), whose start's rank (popcount)
 * among either row's run starts names the two runs - no pointer chasing
 * between the rows. A union-find over run labels (two-pass labelling on
 * runs, as in He, Chao & Suzuki, "A run-based two-scan labeling algorithm",
 * IEEE TIP 17(5), 2008) then gives the regions in one pass: time linear in
 * the words plus the runs, memory O(width + labels) - never a label per
 * cell. A run takes a new label only where it touches no run above (the top
 * of a shape); it otherwise inherits the label of the first run above it.
 *
 * Removing a region is a flood fill over runs from its first cell, turning
 * its runs to the other kind with word operations: the work is in
 * proportion to what is removed, not to the map. docs/regions.md has the
 * details and the figures. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "engine/steps.h"
#include "regions/regions.h"

#if defined(CG__HAVE_X86)
#include <immintrin.h>
#endif

/* ------------------------------------------------------------ run rows */

#define HI_BIT (UINT64_C(1) << 63)

/* The labeller's inner loop is compiled three times: for the baseline ISA;
 * on x86-64 with POPCNT/BMI (one instruction where the baseline calls
 * libgcc's __popcountdi2, several times per run); and with AVX-512 VBMI2
 * and VPOPCNTQ, whose flatten and ranks work on whole words (flatten512,
 * overlaps512). Its helpers are forced inline so each copy gets its own
 * instructions. */
#define CG__INLINE static inline __attribute__((always_inline))

/* Appends base + the index of every set bit of bits to out, in increasing
 * order; returns the new end. Writes up to 16 entries past the count (the
 * buffers have that slack) so that the common case, a few bits, runs without
 * a branch per bit (the "flatten" of Langdale & Lemire, "Parsing gigabytes of
 * JSON per second", 2019). bits | HI_BIT keeps ctz defined once bits is 0;
 * those entries are past the count and never read. */
CG__INLINE uint32_t *flatten(uint32_t *out, uint64_t bits, uint32_t base)
{
    if (!bits)
        return out;
    uint32_t cnt = (uint32_t)__builtin_popcountll(bits);
    for (int k = 0; k < 8; k++) {
        out[k] = base + (uint32_t)__builtin_ctzll(bits | HI_BIT);
        bits &= bits - 1;
    }
    if (cnt > 8) {
        for (int k = 8; k < 16; k++) {
            out[k] = base + (uint32_t)__builtin_ctzll(bits | HI_BIT);
            bits &= bits - 1;
        }
        for (uint32_t k = 16; bits; k++) {
            out[k] = base + (uint32_t)__builtin_ctzll(bits);
            bits &= bits - 1;
        }
    }
    return out + cnt;
}

#if defined(CG__HAVE_X86)
#define CG__TARGET_VBMI2                                                                           \
    "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2,avx512vpopcntdq,popcnt,bmi,bmi2,lzcnt"

/* flatten() with AVX-512 VBMI2: one byte compress (VPCOMPRESSB) of the
 * indices 0..63 under the mask, widened 16 at a time - no loop per bit and
 * no branch on the count for up to 16 bits. Same slack as flatten(). Not
 * always_inline: it must not be inlined into the copies without AVX-512,
 * where it is never called. */
__attribute__((target(CG__TARGET_VBMI2))) static inline uint32_t *
flatten512(uint32_t *out, uint64_t bits, uint32_t base)
{
    static const uint8_t iota[64] = {
        0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
        44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    const __m512i c = _mm512_maskz_compress_epi8(bits, _mm512_loadu_si512(iota));
    const __m512i b = _mm512_set1_epi32((int)base);
    const uint32_t cnt = (uint32_t)__builtin_popcountll(bits);
    _mm512_storeu_si512(out, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(c)), b));
    if (cnt > 16) {
        _mm512_storeu_si512(
            out + 16, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 1)), b));
        if (cnt > 32) {
            _mm512_storeu_si512(
                out + 32,
                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 2)), b));
            _mm512_storeu_si512(
                out + 48,
                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 3)), b));
        }
    }
    return out + cnt;
}
#define FLATTEN(vec, out, bits, base)                                                              \
    ((vec) ? flatten512(out, bits, base) : flatten(out, bits, base))
#define OVERLAPS(vec, cur, prev, nw, ci, pi) ((vec) ? overlaps512(cur, prev, nw, ci, pi) : 0)
#else
#define OVERLAPS(vec, cur, prev, nw, ci, pi) 0
#define FLATTEN(vec, out, bits, base) flatten(out, bits, base)
#endif

/* The cells of the labelled kind in word i of row r (bits past the map
 * cleared: they are outside, and the outside is neither kind). */
CG__INLINE uint64_t kind_word(const cg_grid *g, const uint64_t *r, size_t i, uint64_t flip)
{
    uint64_t m = r[i] ^ flip;
    return i + 1 == g->nw ? m & ~cg__tail_mask(g) : m;
}

/* Number of set bits of s at positions <= x (x within word i), given the
 * prefix counts pre[i] of the words before. */
CG__INLINE uint32_t rank_at(const uint64_t *s, const uint32_t *pre, uint32_t x)
{
    size_t i = x >> 6;
    uint64_t upto = (UINT64_C(2) << (x & 63)) - 1; /* bits 0..x&63; wraps to all at 63 */
    return pre[i] + (uint32_t)__builtin_popcountll(s[i] & upto);
}

/* The row state of the labeller: kind mask m, run starts s, prefix counts
 * pre, the runs' first and one-past-last cells and their labels. */
typedef struct lrow {
    uint64_t *m, *s;
    uint32_t *pre;
    uint32_t *x0, *x1, *label;
    size_t n;
} lrow;

#if defined(CG__HAVE_X86)
/* The runs of (row AND row above), as the pairs of runs they join: for
 * each, ci gets the index of the run of cur and pi that of prev (the ranks
 * of its start among either row's starts, less one). Eight starts of a word
 * at a time: their positions by VPCOMPRESSB, the bits up to each by a
 * variable shift, the ranks by VPOPCNTQ against the word of starts - no
 * loop per start. Writes up to 7 entries past the count; returns it. */
__attribute__((target(CG__TARGET_VBMI2))) static inline size_t
overlaps512(const lrow *cur, const lrow *prev, size_t nw, uint32_t *ci, uint32_t *pi)
{
    static const uint8_t iota[64] = {
        0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
        44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    const __m512i idx = _mm512_loadu_si512(iota);
    const __m512i ones = _mm512_set1_epi64(-1), c63 = _mm512_set1_epi64(63);
    uint8_t pos[64];
    size_t ne = 0;
    uint64_t carry = 0;
    for (size_t i = 0; i < nw; i++) {
        const uint64_t a = cur->m[i] & prev->m[i];
        const uint64_t os = a & ~((a << 1) | carry);
        carry = a >> 63;
        if (!os)
            continue;
        _mm512_storeu_si512(pos, _mm512_maskz_compress_epi8(os, idx));
        const __m512i cs = _mm512_set1_epi64((long long)cur->s[i]);
        const __m512i ps = _mm512_set1_epi64((long long)prev->s[i]);
        const __m512i cb = _mm512_set1_epi64((long long)cur->pre[i] - 1);
        const __m512i pb = _mm512_set1_epi64((long long)prev->pre[i] - 1);
        const uint32_t cnt = (uint32_t)__builtin_popcountll(os);
        for (uint32_t k = 0; k < cnt; k += 8) {
            const __m512i p = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(pos + k)));
            const __m512i upto = _mm512_srlv_epi64(ones, _mm512_sub_epi64(c63, p));
            const __m512i rc =
                _mm512_add_epi64(_mm512_popcnt_epi64(_mm512_and_si512(upto, cs)), cb);
            const __m512i rp =
                _mm512_add_epi64(_mm512_popcnt_epi64(_mm512_and_si512(upto, ps)), pb);
            _mm256_storeu_si256((__m256i *)(ci + ne + k), _mm512_cvtepi64_epi32(rc));
            _mm256_storeu_si256((__m256i *)(pi + ne + k), _mm512_cvtepi64_epi32(rp));
        }
        ne += cnt;
    }
    return ne;
}
#endif

#if defined(CG__HAVE_X86)
/* The link step of label_rows over the ne pairs of runs (ci, pi) of
 * overlaps512, sixteen at a time: each run of the row takes the label of
 * the first run above it and every further run above it gives a pair
 * (that label, its own) to merge. The label of each pair's run above
 * comes by a gather from plab; the first pair of each run of the row (its
 * index differs from the pair before) scatters its label to lab - those
 * indices are distinct, so the scatter's order does not matter - and the
 * further ones gather it back from there. The pairs are compress-stored to
 * pa and pb, in the order of the scalar loop. Returns their number. */
/* (Without optimisation GCC's gather and scatter intrinsics are macros
 * that pass their __mmask16 to a builtin taking a signed short: a
 * -Wsign-conversion warning in its own header's code.) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
__attribute__((target(CG__TARGET_VBMI2))) static inline size_t
link512(const uint32_t *ci, const uint32_t *pi, size_t ne, const uint32_t *plab, uint32_t *lab,
        uint32_t *pa, uint32_t *pb)
{
    size_t np = 0;
    __m512i last = _mm512_set1_epi32(-1); /* no run of the row: NONE */
    for (size_t k = 0; k < ne; k += 16) {
        const size_t left = ne - k;
        const __mmask16 valid = (__mmask16)(left >= 16 ? 0xffff : (1u << left) - 1);
        const __m512i c = _mm512_maskz_loadu_epi32(valid, ci + k);
        const __m512i p = _mm512_maskz_loadu_epi32(valid, pi + k);
        const __m512i l = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), valid, p, plab, 4);
        /* Lane j: the run of pair j - 1 (lane 0: the last of the chunk before). */
        const __m512i before = _mm512_alignr_epi32(c, last, 15);
        const __mmask16 again = _mm512_mask_cmpeq_epi32_mask(valid, c, before);
        _mm512_mask_i32scatter_epi32(lab, (__mmask16)(valid & ~again), c, l, 4);
        if (again) {
            const __m512i mine = _mm512_mask_i32gather_epi32(l, again, c, lab, 4);
            _mm512_mask_compressstoreu_epi32(pa + np, again, mine);
            _mm512_mask_compressstoreu_epi32(pb + np, again, l);
            np += (size_t)__builtin_popcount(again);
        }
        last = c;
    }
    return np;
}
#pragma GCC diagnostic pop
#define LINK(vec, ci, pi, ne, plab, lab, pa, pb)                                                   \
    ((vec) ? link512(ci, pi, ne, plab, lab, pa, pb) : 0)
#else
#define LINK(vec, ci, pi, ne, plab, lab, pa, pb) 0
#endif

#if defined(CG__HAVE_X86)
/* The word loop of read_row, eight words at a time: the words before and
 * after each come from lane shifts (VALIGNQ), the prefix counts of the
 * starts from VPOPCNTQ and a prefix sum over the lanes. Returns the runs. */
__attribute__((target(CG__TARGET_VBMI2))) static inline uint32_t
words512(const cg_grid *g, const uint64_t *row, uint64_t flip, lrow *r, uint64_t *ends)
{
    const size_t nw = g->nw;
    const __m512i fl = _mm512_set1_epi64((long long)flip), zero = _mm512_setzero_si512();
    const uint64_t tail = cg__tail_mask(g);
    __m512i before = zero; /* the chunk before, for its last word */
    uint32_t total = 0;
    for (size_t i = 0; i < nw; i += 8) {
        const size_t left = nw - i;
        const __mmask8 valid = (__mmask8)(left >= 8 ? 0xff : (1u << left) - 1);
        __m512i m = _mm512_maskz_xor_epi64(valid, _mm512_maskz_loadu_epi64(valid, row + i), fl);
        if (left <= 8) /* the last word: no cells past the map */
            m = _mm512_mask_andnot_epi64(m, (__mmask8)(1u << (left - 1)),
                                         _mm512_set1_epi64((long long)tail), m);
        uint64_t after = 0; /* the first word of the next chunk */
        if (left > 8) {
            after = row[i + 8] ^ flip;
            if (left == 9)
                after &= ~tail;
        }
        const __m512i prevw = _mm512_alignr_epi64(m, before, 7);
        const __m512i nextw = _mm512_alignr_epi64(_mm512_set1_epi64((long long)after), m, 1);
        const __m512i st = _mm512_andnot_si512(
            _mm512_or_si512(_mm512_slli_epi64(m, 1), _mm512_srli_epi64(prevw, 63)), m);
        const __m512i en = _mm512_andnot_si512(
            _mm512_or_si512(_mm512_srli_epi64(m, 1), _mm512_slli_epi64(nextw, 63)), m);
        _mm512_mask_storeu_epi64(r->m + i, valid, m);
        _mm512_mask_storeu_epi64(r->s + i, valid, st);
        _mm512_mask_storeu_epi64(ends + i, valid, en);
        /* Inclusive prefix sum of the lanes' start counts, less each own. */
        const __m512i c = _mm512_popcnt_epi64(st);
        __m512i x = _mm512_add_epi64(c, _mm512_alignr_epi64(c, zero, 7));
        x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, zero, 6));
        x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, zero, 4));
        const __m512i pre = _mm512_add_epi64(_mm512_sub_epi64(x, c), _mm512_set1_epi64(total));
        _mm256_mask_storeu_epi32(r->pre + i, valid, _mm512_cvtepi64_epi32(pre));
        total += (uint32_t)_mm512_reduce_add_epi64(c);
        before = m;
    }
    return total;
}
#define WORDS(vec, g, row, flip, r, ends) ((vec) ? words512(g, row, flip, r, ends) : 0)
#else
#define WORDS(vec, g, row, flip, r, ends) 0
#endif

/* Reads row y into r: masks, starts, prefix counts, runs. tmp holds nw + 1
 * words of run ends. */
CG__INLINE void read_row(const cg_grid *g, uint32_t y, uint64_t flip, lrow *r, uint64_t *ends,
                         int vec)
{
    const uint64_t *row = cg__row(g, y);
    const size_t nw = g->nw;
    uint32_t total = 0;
    if (vec) {
        total = WORDS(vec, g, row, flip, r, ends);
    } else {
        uint64_t carry = 0;
        uint64_t next = kind_word(g, row, 0, flip);
        for (size_t i = 0; i < nw; i++) {
            const uint64_t m = next;
            next = i + 1 < nw ? kind_word(g, row, i + 1, flip) : 0;
            r->m[i] = m;
            r->s[i] = m & ~((m << 1) | carry);
            ends[i] = m & ~((m >> 1) | (next << 63));
            carry = m >> 63;
            r->pre[i] = total;
            total += (uint32_t)__builtin_popcountll(r->s[i]);
        }
    }
    uint32_t *p = r->x0, *q = r->x1;
    for (size_t i = 0; i < nw; i++) {
        p = FLATTEN(vec, p, r->s[i], (uint32_t)(i * 64));
        q = FLATTEN(vec, q, ends[i], (uint32_t)(i * 64 + 1)); /* one past the last cell */
    }
    r->n = total;
}

CG__INLINE void set_span(uint64_t *row, uint32_t x0, uint32_t x1, int wall)
{
    size_t a = x0 >> 6, b = (x1 - 1) >> 6;
    uint64_t ma = ~UINT64_C(0) << (x0 & 63);
    uint64_t mb = ~UINT64_C(0) >> (63 - ((x1 - 1) & 63));
    if (a == b) {
        ma &= mb;
        row[a] = wall ? row[a] | ma : row[a] & ~ma;
        return;
    }
    row[a] = wall ? row[a] | ma : row[a] & ~ma;
    for (size_t i = a + 1; i < b; i++)
        row[i] = wall ? ~UINT64_C(0) : 0;
    row[b] = wall ? row[b] | mb : row[b] & ~mb;
}

void cg__set_span(uint64_t *row, uint32_t x0, uint32_t x1, int wall)
{
    set_span(row, x0, x1, wall);
}

/* ------------------------------------------------------------ labeller */

/* The label arrays grow in one block, by doubling. From this size on the
 * block is on huge pages (cg__malloc_huge): 16 bytes a label, written in
 * order, so on 4 KB pages a page fault every 256 labels (the floor of the
 * 4096x4096 type2 map, 69,406 labels, took about 320 faults a call, each
 * 11-14 us, most of them in the copies of the growth); on huge pages the
 * system clears a 2 MiB page at once, and the copies are of memory already
 * there. */
#define LABELS_HUGE ((size_t)1 << 20)

/* The label forest. parent[l] <= l always (a root is linked under the
 * smaller root), so the root of a region is its first label in scan order
 * and one increasing sweep resolves every label to its root. */
static cg_status labels_grow(cg__labeller *lb)
{
    if (lb->n >= UINT32_MAX - 1)
        return CG_EOVERFLOW; /* labels are 32-bit; needs > 4e9 shapes */
    size_t cap = lb->cap ? lb->cap * 2 : 1024;
    if (cap > (size_t)UINT32_MAX)
        cap = (size_t)UINT32_MAX;
    const size_t each = sizeof(uint64_t) + 2 * sizeof(uint32_t);
    if (cap > SIZE_MAX / each)
        return CG_EOVERFLOW;
    const size_t bytes = cap * each;
    void *block;
    char *p;
    if (bytes >= LABELS_HUGE)
        p = cg__malloc_huge(bytes, &block);
    else
        p = block = cg__malloc(bytes);
    if (!p)
        return CG_ENOMEM;
    uint64_t *size = (uint64_t *)(void *)p;
    uint32_t *parent = (uint32_t *)(void *)(size + cap), *fx = parent + cap;
    if (lb->n) {
        memcpy(size, lb->size, lb->n * sizeof *size);
        memcpy(parent, lb->parent, lb->n * sizeof *parent);
        memcpy(fx, lb->first_x, lb->n * sizeof *fx);
    }
    cg__free(lb->block);
    lb->block = block;
    lb->size = size;
    lb->parent = parent;
    lb->first_x = fx;
    lb->cap = cap;
    return CG_OK;
}

/* Inline, so that the labelling loop makes a label without a call (in the
 * VBMI2 copy, a call also costs a VZEROUPPER). */
CG__INLINE cg_status labels_push(cg__labeller *lb, uint32_t x)
{
    if (lb->n == lb->cap) {
        cg_status st = labels_grow(lb);
        if (st != CG_OK)
            return st;
    }
    lb->parent[lb->n] = (uint32_t)lb->n;
    lb->size[lb->n] = 0;
    lb->first_x[lb->n] = x; /* the row is where row_first says */
    lb->n++;
    return CG_OK;
}

void cg__label_first(const cg__labeller *lb, uint32_t l, uint32_t *x, uint32_t *y)
{
    /* The last row whose first label is <= l: labels are made row by row. */
    uint32_t lo = 0, hi = lb->rows; /* row_first[lo] <= l < row_first[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (lb->row_first[mid] <= l)
            lo = mid;
        else
            hi = mid;
    }
    *x = lb->first_x[l];
    *y = lo;
}

/* The row where label l was made, for labels visited in increasing order:
 * the search goes on from y, the row of the label visited before, instead
 * of a binary search per region (a quarter of the floods' time where tens
 * of thousands of specks are removed). */
static uint32_t label_row(const cg__labeller *lb, uint32_t l, uint32_t y)
{
    while (y + 1 < lb->rows && lb->row_first[y + 1] <= l)
        y++;
    return y;
}

void cg__labeller_free(cg__labeller *lb)
{
    cg__free(lb->block);
    cg__free(lb->row_first);
    memset(lb, 0, sizeof *lb);
}

#define NONE UINT32_MAX

/* Buffers of one labelling pass. */
typedef struct lbufs {
    lrow rows[2];
    uint64_t *ends;  /* nw words */
    uint32_t *sa;    /* starts of the runs shared with the row above */
    uint32_t *pairs; /* labels to merge: two per pair */
    uint32_t *ci, *pi; /* the runs each of them joins (overlaps512) */
    size_t rcap;       /* entries of each array of runs; pairs has twice that */
} lbufs;

/* The pass over the rows (see the top of the file). */
CG__INLINE cg_status label_rows(cg__labeller *lb, const cg_grid *g, uint32_t y0, uint32_t y1,
                                lbufs *b, cg__row_hook hook, void *ctx, int vec)
{
    const int walls = lb->walls;
    const uint64_t flip = walls ? 0 : ~UINT64_C(0);
    const size_t nw = g->nw;
    const uint32_t w = g->w, h = g->h;
    cg_status st = CG_OK;
    lrow *prev = &b->rows[0], *cur = &b->rows[1];
    prev->n = 0;
    for (uint32_t y = y0; y < y1; y++) {
        lb->row_first[y - y0] = (uint32_t)lb->n;
        read_row(g, y, flip, cur, b->ends, vec);
        const size_t n = cur->n;
        uint32_t *lab = cur->label;
        for (size_t j = 0; j < n; j++)
            lab[j] = NONE;
        if (prev->n) {
            /* Each run of (this row AND the row above) joins exactly one run
             * of each row, and each overlapping pair gives exactly one such
             * run: its start's rank among the starts of either row names the
             * two runs. */
            size_t ne;
            if (vec) {
                ne = OVERLAPS(vec, cur, prev, nw, b->ci, b->pi);
            } else {
                uint32_t *e = b->sa;
                uint64_t carry = 0;
                for (size_t i = 0; i < nw; i++) {
                    uint64_t a = cur->m[i] & prev->m[i];
                    e = FLATTEN(vec, e, a & ~((a << 1) | carry), (uint32_t)(i * 64));
                    carry = a >> 63;
                }
                ne = (size_t)(e - b->sa);
            }
            /* A run inherits the label of the first run above it; further
             * runs above it are merged after the loop, which keeps the loop
             * free of unpredictable branches. The pairs to merge are
             * (pa[k * ps], pb[k * ps]): interleaved in the scalar loop, two
             * arrays from link512. */
            uint32_t last = NONE, mine = NONE, *pairs = b->pairs;
            const uint32_t *plab = prev->label;
            const uint32_t *pa = pairs, *pb = pairs + 1;
            size_t np = 0, ps = 2;
            if (vec) {
                pb = pairs + b->rcap;
                ps = 1;
                np = LINK(vec, b->ci, b->pi, ne, plab, lab, pairs, pairs + b->rcap);
            } else {
                for (size_t k = 0; k < ne; k++) {
                    uint32_t ci = rank_at(cur->s, cur->pre, b->sa[k]) - 1;
                    uint32_t l = plab[rank_at(prev->s, prev->pre, b->sa[k]) - 1];
                    int again = ci == last;
                    mine = again ? mine : l;
                    lab[ci] = mine;
                    pairs[2 * np] = mine;
                    pairs[2 * np + 1] = l;
                    np += (size_t)again;
                    last = ci;
                }
            }
            /* (Labels with one parent are one region already.) */
            for (size_t k = 0; k < np; k++)
                if (lb->parent[pa[k * ps]] != lb->parent[pb[k * ps]])
                    cg__uf_unite(lb->parent, pa[k * ps], pb[k * ps]);
        }
        /* (In locals: a store to size[] could otherwise alias lb->n and
         * the row's pointers, and reload them every run.) */
        const uint32_t *x0 = cur->x0, *x1 = cur->x1;
        uint64_t *size = lb->size;
        for (size_t j = 0; j < n; j++) {
            uint32_t l = lab[j];
            if (l == NONE) {
                if ((st = labels_push(lb, x0[j])) != CG_OK)
                    return st;
                size = lb->size;
                lab[j] = l = (uint32_t)(lb->n - 1);
            }
            size[l] += x1[j] - x0[j];
        }
        if (walls && n) {
            if (y == 0 || y + 1 == h) {
                for (size_t j = 0; j < n; j++)
                    cg__uf_unite(lb->parent, lab[j], 0);
            } else {
                if (cur->x0[0] == 0)
                    cg__uf_unite(lb->parent, lab[0], 0);
                if (cur->x1[n - 1] == w)
                    cg__uf_unite(lb->parent, lab[n - 1], 0);
            }
        }
        if (hook)
            hook(ctx, y, cur->x0, cur->x1, lab, n);
        lrow *t = prev;
        prev = cur;
        cur = t;
    }
    return st;
}

static cg_status label_rows_base(cg__labeller *lb, const cg_grid *g, uint32_t y0, uint32_t y1,
                                 lbufs *b, cg__row_hook hook, void *ctx)
{
    return label_rows(lb, g, y0, y1, b, hook, ctx, 0);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define CG__HAVE_POPCNT_PATH 1
__attribute__((target("popcnt,bmi,bmi2,lzcnt"))) static cg_status
label_rows_popcnt(cg__labeller *lb, const cg_grid *g, uint32_t y0, uint32_t y1, lbufs *b,
                  cg__row_hook hook, void *ctx)
{
    return label_rows(lb, g, y0, y1, b, hook, ctx, 0);
}
#endif

#if defined(CG__HAVE_X86)
/* The third copy, for the AVX-512 VBMI2 kernel path: runs flattened with
 * VPCOMPRESSB, the runs shared with the row above ranked by VPOPCNTQ. */
__attribute__((target(CG__TARGET_VBMI2))) static cg_status
label_rows_vbmi2(cg__labeller *lb, const cg_grid *g, uint32_t y0, uint32_t y1, lbufs *b,
                 cg__row_hook hook, void *ctx)
{
    return label_rows(lb, g, y0, y1, b, hook, ctx, 1);
}
#endif

static int force_base;

void cg__regions_force_base(int on)
{
    force_base = on;
}

int cg__regions_popcnt(void)
{
#if defined(CG__HAVE_POPCNT_PATH)
    __builtin_cpu_init();
    return !force_base && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2");
#else
    return 0;
#endif
}

/* The copy of the loop for this CPU: the VBMI2 one on the AVX-512 VBMI2
 * kernel path where the CPU has VPOPCNTQ too (so forcing another kernel
 * path tests the others), else
 * POPCNT/BMI where there, else the baseline. */
static cg_status label_rows_best(cg__labeller *lb, const cg_grid *g, uint32_t y0, uint32_t y1,
                                 lbufs *b, cg__row_hook hook, void *ctx)
{
#if defined(CG__HAVE_POPCNT_PATH)
    if (cg__regions_popcnt()) {
#if defined(CG__HAVE_X86)
        if (cg__kernel_path() == CG__PATH_AVX512VBMI2 && __builtin_cpu_supports("avx512vpopcntdq"))
            return label_rows_vbmi2(lb, g, y0, y1, b, hook, ctx);
#endif
        return label_rows_popcnt(lb, g, y0, y1, b, hook, ctx);
    }
#endif
    return label_rows_base(lb, g, y0, y1, b, hook, ctx);
}

cg_status cg__label(cg__labeller *lb, const cg_grid *g, int walls, cg__row_hook hook, void *ctx)
{
    return cg__label_rows(lb, g, walls, 0, g->h, hook, ctx);
}

cg_status cg__label_rows(cg__labeller *lb, const cg_grid *g, int walls, uint32_t y0, uint32_t y1,
                         cg__row_hook hook, void *ctx)
{
    memset(lb, 0, sizeof *lb);
    lb->walls = walls;
    const size_t nw = g->nw;
    /* Runs per row <= w/2 + 1; +16 of slack for flatten(). */
    const size_t rcap = (size_t)g->w / 2 + 24;
    lbufs b;
    uint64_t *words = cg__malloc(5 * nw * sizeof *words);
    uint32_t *ints = cg__malloc((2 * (nw + 1) + 11 * rcap) * sizeof *ints);
    lb->row_first = cg__malloc(((size_t)(y1 - y0) + 1) * sizeof *lb->row_first);
    lb->rows = y1 - y0;
    cg_status st = words && ints && lb->row_first ? CG_OK : CG_ENOMEM;
    if (st == CG_OK) {
        for (int k = 0; k < 2; k++) {
            b.rows[k].m = words + (size_t)(2 * k) * nw;
            b.rows[k].s = words + (size_t)(2 * k + 1) * nw;
            b.rows[k].pre = ints + (size_t)k * (nw + 1);
            b.rows[k].x0 = ints + 2 * (nw + 1) + (size_t)(3 * k) * rcap;
            b.rows[k].x1 = b.rows[k].x0 + rcap;
            b.rows[k].label = b.rows[k].x1 + rcap;
            b.rows[k].n = 0;
        }
        b.ends = words + 4 * nw;
        b.sa = ints + 2 * (nw + 1) + 6 * rcap;
        b.pairs = b.sa + rcap;
        b.rcap = rcap;
        b.ci = b.pairs + 2 * rcap;
        b.pi = b.ci + rcap;
        /* Label 0 is the outside of the map, all wall: a wall region that
         * touches the edge joins it and is never enclosed. */
        if (walls)
            st = labels_push(lb, 0);
    }
    if (st == CG_OK) {
        st = label_rows_best(lb, g, y0, y1, &b, hook, ctx);
    }
    cg__free(words);
    cg__free(ints);
    if (st != CG_OK) {
        cg__labeller_free(lb);
        return st;
    }
    /* Resolve every label to its root and gather the sizes there. */
    uint32_t *parent = lb->parent;
    for (size_t l = 0; l < lb->n; l++) {
        parent[l] = parent[parent[l]];
        if (parent[l] != l)
            lb->size[parent[l]] += lb->size[l];
    }
    return CG_OK;
}

/* ------------------------------------------------------- region removal */

/* The end of the run of the kind that holds x in row r: the first cell
 * after x not of the kind (at most w). */
CG__INLINE uint32_t run_end(const cg_grid *g, const uint64_t *r, uint32_t x, uint64_t flip)
{
    size_t i = x >> 6;
    uint64_t not_kind = ~(r[i] ^ flip) & (~UINT64_C(1) << (x & 63));
    while (!not_kind && i + 1 < g->nw)
        not_kind = ~(r[++i] ^ flip);
    uint32_t hi = not_kind ? (uint32_t)(i * 64 + (size_t)__builtin_ctzll(not_kind)) : g->w;
    return hi < g->w ? hi : g->w;
}

/* The start of the run of the kind that holds x in row r. */
CG__INLINE uint32_t run_start(const uint64_t *r, uint32_t x, uint64_t flip)
{
    size_t i = x >> 6;
    uint64_t not_kind = ~(r[i] ^ flip) & ((UINT64_C(1) << (x & 63)) - 1);
    while (!not_kind && i > 0)
        not_kind = ~(r[--i] ^ flip);
    return not_kind ? (uint32_t)(i * 64 + 64 - (size_t)__builtin_clzll(not_kind)) : 0;
}

/* A stack of runs still to expand: (y, x0, x1, the row they were found
 * from, that row's run x0, x1); grown by doubling. */
typedef struct span_stack {
    uint32_t *v;
    size_t cap; /* in entries of SPAN words */
} span_stack;

#define SPAN 6

static cg_status grow_stack(span_stack *s)
{
    size_t cap = s->cap ? s->cap * 2 : 256;
    if (cap > SIZE_MAX / (SPAN * sizeof *s->v))
        return CG_EOVERFLOW;
    uint32_t *p = cg__realloc(s->v, cap * SPAN * sizeof *p);
    if (!p)
        return CG_ENOMEM;
    s->v = p;
    s->cap = cap;
    return CG_OK;
}

/* The flood fill's state: the stack in locals while rows are written (a
 * uint64_t store could otherwise alias a size_t in the stack struct and
 * force reloads). */
typedef struct flood {
    cg_grid *g;
    uint64_t flip;
    int wall;
    uint64_t left; /* cells still to turn */
    span_stack *st;
    uint32_t *v;
    size_t n, cap;
} flood;

/* Turns the runs of the kind meeting columns lo..hi-1 of row y and pushes
 * them, found from row from's run pa..pb-1. Only a run met at lo itself can
 * start further left. */
CG__INLINE cg_status flood_row(flood *f, uint32_t y, uint32_t lo, uint32_t hi, uint32_t from,
                               uint32_t pa, uint32_t pb)
{
    uint64_t *r = cg__row(f->g, y);
    const size_t i0 = lo >> 6, i1 = (hi - 1) >> 6;
    const uint64_t w0 = ~UINT64_C(0) << (lo & 63);
    const uint64_t w1 = ~UINT64_C(0) >> (63 - ((hi - 1) & 63));
    for (size_t i = i0; i <= i1; i++) {
        const uint64_t win = (i == i0 ? w0 : ~UINT64_C(0)) & (i == i1 ? w1 : ~UINT64_C(0));
        uint64_t m;
        while ((m = (r[i] ^ f->flip) & win) != 0) {
            const uint32_t c = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(m));
            const uint32_t a = c == lo ? run_start(r, c, f->flip) : c;
            const uint32_t e = run_end(f->g, r, c, f->flip);
            set_span(r, a, e, f->wall);
            f->left -= e - a;
            if (f->n == f->cap) {
                f->st->cap = f->cap;
                cg_status s = grow_stack(f->st);
                if (s != CG_OK)
                    return s;
                f->v = f->st->v;
                f->cap = f->st->cap;
            }
            uint32_t *top = f->v + SPAN * f->n++;
            top[0] = y, top[1] = a, top[2] = e, top[3] = from, top[4] = pa, top[5] = pb;
        }
    }
    return CG_OK;
}

/* The cells of k in the runs of k that hold a cell of s (s within k):
 * upward by the carry of an addition (from each seed to its run's end),
 * downward by a Kogge-Stone occluded fill (six shifts cover a word). */
static inline uint64_t fill_runs(uint64_t k, uint64_t s)
{
    uint64_t g = (k & ~(k + s)) | s, p = k;
    g |= (g >> 1) & p;
    p &= p >> 1;
    g |= (g >> 2) & p;
    p &= p >> 2;
    g |= (g >> 4) & p;
    p &= p >> 4;
    g |= (g >> 8) & p;
    p &= p >> 8;
    g |= (g >> 16) & p;
    p &= p >> 16;
    g |= (g >> 32) & p;
    return g;
}

#if defined(__x86_64__)
/* fill_runs by BMI2: the runs hit are those whose end the upward carry
 * from the seeds reaches; PEXT over the run ends gives one bit per run
 * (set where hit), PDEP puts those bits on the runs' starts, and the carry
 * of an addition from each such start runs to its run's end - no
 * Kogge-Stone steps. Only on the AVX-512 VBMI2 path, whose CPUs have a
 * fast PDEP/PEXT (older AMD ones take tens of cycles). Not always_inline:
 * it must not be inlined into the copies without BMI2, where it is never
 * called. */
__attribute__((target("bmi2"))) static inline uint64_t fill_runs_pdep(uint64_t k, uint64_t s)
{
    const uint64_t ends = k & ~(k >> 1), starts = k & ~(k << 1);
    const uint64_t up = (k & ~(k + s)) | s;
    const uint64_t hit = _pdep_u64(_pext_u64(up & ends, ends), starts);
    return k & ~(k + hit);
}
#define FILL_RUNS(pdep, k, s) ((pdep) ? fill_runs_pdep(k, s) : fill_runs(k, s))
#else
#define FILL_RUNS(pdep, k, s) ((void)(pdep), fill_runs(k, s))
#endif

/* Regions of at most this many cells are first tried in a window
 * (flip_small): all the specks of remove-walls min=50, and most of the
 * regions keep-largest flips (4 KiB of stack). */
#define SMALL_REGION 256
/* Larger regions of up to this many cells are tried in the window too, in
 * its first SMALL_REGION rows and for at most MEDIUM_ROUNDS sweeps down
 * and up (a region that winds up and down more, or leaves the window, is
 * flooded after: nothing is turned until the region is whole). On the
 * 4096x4096 cave, 208 of the 298 regions of 257..8192 cells that
 * keep-largest flips lie in the window: flooded, they took 12 % of its
 * time. */
#define MEDIUM_REGION 8192
#define MEDIUM_ROUNDS 8

/* flip_region for a region of at most MEDIUM_REGION cells, on the
 * bitboard: it lies in the rows y .. y + size - 1, and is looked for in the
 * first SMALL_REGION of them, in a window of 64 columns around its first
 * cell, one word per row - the first run, then
 * sweeps down and up the rows, each row's cells of the kind in the runs
 * that touch the cells found in the row before or after, with word
 * operations, until size cells are found (then they are the region, which
 * is turned over with one XOR per row) or a sweep finds nothing new (the
 * region leaves the window: returns 0, nothing changed, and the flood fill
 * does it). No search per run, no stack, few branches: tens of thousands
 * of specks cost a few word operations each. */
CG__INLINE int flip_small(cg_grid *g, uint32_t x, uint32_t y, uint64_t size, int walls,
                          int pdep)
{
    const uint64_t flip = walls ? 0 : ~UINT64_C(0);
    const uint32_t w = g->w;
    uint32_t c0 = x >= 32 ? x - 32 : 0;
    if (w <= 64)
        c0 = 0;
    else if (c0 > w - 64)
        c0 = w - 64;
    const uint64_t valid = w - c0 >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << (w - c0)) - 1;
    const size_t wi = c0 >> 6;
    const unsigned sh = c0 & 63;
    uint32_t rows = (uint32_t)(size < g->h - y ? size : g->h - y); /* no more rows than cells */
    if (rows > SMALL_REGION)
        rows = SMALL_REGION;
    unsigned rounds = 0;
    uint64_t k[SMALL_REGION], r[SMALL_REGION];
    uint32_t loaded = 0;
#define LOAD_ROW(j)                                                                                \
    do {                                                                                           \
        const uint64_t *row_ = cg__row(g, y + (j));                                                \
        uint64_t win_ = row_[wi] >> sh;                                                            \
        if (sh)                                                                                    \
            win_ |= row_[wi + 1] << (64 - sh);                                                     \
        k[j] = (win_ ^ flip) & valid;                                                              \
        r[j] = 0;                                                                                  \
        loaded = (j) + 1;                                                                          \
    } while (0)
    LOAD_ROW(0);
    r[0] = FILL_RUNS(pdep, k[0], UINT64_C(1) << (x - c0));
    uint64_t found = (uint64_t)__builtin_popcountll(r[0]), before = 0;
    /* Most regions are whole after the first sweep down: the count is kept
     * as it goes, and the sweep up only made when it falls short. */
    while (found < size) {
        found = (uint64_t)__builtin_popcountll(r[0]);
        for (uint32_t j = 1; j < rows; j++) {
            if (j == loaded) {
                if (!r[j - 1])
                    break;
                LOAD_ROW(j);
            }
            r[j] = FILL_RUNS(pdep, k[j], k[j] & (r[j - 1] | r[j]));
            found += (uint64_t)__builtin_popcountll(r[j]);
            if (found >= size) /* whole: the rows below hold none of it */
                break;
        }
        if (found >= size)
            break;
        for (uint32_t j = loaded - 1; j-- > 0;)
            r[j] = FILL_RUNS(pdep, k[j], k[j] & (r[j + 1] | r[j]));
        found = 0;
        for (uint32_t j = 0; j < loaded; j++)
            found += (uint64_t)__builtin_popcountll(r[j]);
        if (found == before || ++rounds == MEDIUM_ROUNDS)
            return 0; /* beyond the window, or winding too much */
        before = found;
    }
#undef LOAD_ROW
    for (uint32_t j = 0; j < loaded; j++) {
        uint64_t *row = cg__row(g, y + j);
        row[wi] ^= r[j] << sh;
        if (sh)
            row[wi + 1] ^= r[j] >> (64 - sh);
    }
    return 1;
}

/* flip_small for the baseline ISA, with POPCNT (one instruction where
 * the baseline calls libgcc, once a row), and on x86-64's AVX-512 VBMI2
 * path with PDEP/PEXT too (fill_runs_pdep). fast: 0, 1 or 2 for them
 * (flip_level). */
static int flip_small_base(cg_grid *g, uint32_t x, uint32_t y, uint64_t size, int walls)
{
    return flip_small(g, x, y, size, walls, 0);
}

#if defined(CG__HAVE_X86)
__attribute__((target("popcnt,bmi,bmi2"))) static int
flip_small_popcnt(cg_grid *g, uint32_t x, uint32_t y, uint64_t size, int walls)
{
    return flip_small(g, x, y, size, walls, 0);
}
#if defined(__x86_64__)
__attribute__((target("popcnt,bmi,bmi2"))) static int
flip_small_pdep(cg_grid *g, uint32_t x, uint32_t y, uint64_t size, int walls)
{
    return flip_small(g, x, y, size, walls, 1);
}
#define FLIP_SMALL(fast, g, x, y, size, walls)                                                     \
    ((fast) == 2 ? flip_small_pdep(g, x, y, size, walls)                                           \
     : (fast)    ? flip_small_popcnt(g, x, y, size, walls)                                         \
                 : flip_small_base(g, x, y, size, walls))
#else
#define FLIP_SMALL(fast, g, x, y, size, walls)                                                     \
    ((fast) ? flip_small_popcnt(g, x, y, size, walls) : flip_small_base(g, x, y, size, walls))
#endif
#else
#define FLIP_SMALL(fast, g, x, y, size, walls) ((void)(fast), flip_small_base(g, x, y, size, walls))
#endif

/* The copy of flip_small for this CPU: the PDEP one where the labeller
 * runs its VBMI2 copy (label_rows_best; forcing another kernel path
 * tests the others), else POPCNT/BMI where there, else the baseline. */
static int flip_level(void)
{
    if (!cg__regions_popcnt())
        return 0;
#if defined(__x86_64__)
    if (cg__kernel_path() == CG__PATH_AVX512VBMI2 && __builtin_cpu_supports("avx512vpopcntdq"))
        return 2;
#endif
    return 1;
}

/* Flips the whole 4-connected region of the kind (walls or floor) whose
 * first run in scan order starts at cell (x, y), and which has size cells,
 * to the other kind: a scanline flood fill over runs, so the work is in
 * proportion to the region's runs, not to the map. Turned cells are the
 * visited marks. A run's neighbours are looked for in the row beyond it and,
 * in the row it was found from, only past the ends of the run it was found
 * from (below that run lies the run itself); the region's first run has no
 * row above it. The fill stops as soon as size cells are turned, so a
 * region of one run (most small ones) costs no search at all. A region of
 * walls must not touch the map's edge (the padding around the map is wall
 * too). */
static cg_status flip_region(cg_grid *g, uint32_t x, uint32_t y, uint64_t size, int walls,
                             span_stack *st, int fast)
{
    if (size <= MEDIUM_REGION && FLIP_SMALL(fast, g, x, y, size, walls))
        return CG_OK;
    flood f = {g, walls ? 0 : ~UINT64_C(0), !walls, size, st, st->v, 0, st->cap};
    uint64_t *r = cg__row(g, y);
    const uint32_t b = run_end(g, r, x, f.flip);
    set_span(r, x, b, f.wall);
    f.left -= b - x;
    if (f.left == 0)
        return CG_OK;
    if (f.cap == 0) {
        cg_status s = grow_stack(st);
        if (s != CG_OK)
            return s;
        f.v = st->v;
        f.cap = st->cap;
    }
    /* As if found from the row above across the whole width. */
    uint32_t *top = f.v;
    top[0] = y, top[1] = x, top[2] = b, top[3] = y - 1, top[4] = 0, top[5] = g->w;
    f.n = 1;
    cg_status s = CG_OK;
    while (f.n && f.left && s == CG_OK) {
        const uint32_t *e = f.v + SPAN * --f.n;
        const uint32_t sy = e[0], sa = e[1], sb = e[2], from = e[3], pa = e[4], pb = e[5];
        const int down = from + 1 == sy; /* found from the row above */
        /* The row beyond. */
        if (down ? sy + 1 < g->h : sy > 0)
            s = flood_row(&f, down ? sy + 1 : sy - 1, sa, sb, sy, sa, sb);
        /* The row it was found from, past the ends of that run. */
        if (s == CG_OK && sa < pa)
            s = flood_row(&f, from, sa, pa, sy, sa, sb);
        if (s == CG_OK && pb < sb)
            s = flood_row(&f, from, pb, sb, sy, sa, sb);
    }
    st->cap = f.cap;
    return s;
}

/* Flips every region whose root keep() rejects to the other kind, from the
 * first cell of the region (where its root label was created). */
typedef int (*keep_fn)(const cg__labeller *lb, uint32_t root, uint64_t arg);

static cg_status remove_regions(cg_grid *g, int walls, keep_fn keep, uint64_t arg)
{
    cg__labeller lb;
    cg_status st = cg__label(&lb, g, walls, NULL, NULL);
    if (st != CG_OK)
        return st;
    span_stack stack = {0};
    int any = 0;
    const int fast = flip_level();
    uint32_t y = 0;
    for (size_t l = 0; l < lb.n && st == CG_OK; l++) {
        if (lb.parent[l] != l || keep(&lb, (uint32_t)l, arg))
            continue;
        y = label_row(&lb, (uint32_t)l, y);
        st = flip_region(g, lb.first_x[l], y, lb.size[l], walls, &stack, fast);
        any = 1;
    }
    cg__free(stack.v);
    cg__labeller_free(&lb);
    if (any && !walls)
        cg__grid_prune_marks(g);
    return st;
}

static int keep_min_size(const cg__labeller *lb, uint32_t root, uint64_t min)
{
    return lb->size[root] >= min || (lb->walls && root == 0);
}

cg_status cg__floor_regions(const cg_grid *g, uint64_t *count, uint64_t *largest)
{
    cg__labeller lb;
    *count = *largest = 0;
    cg_status st = cg__label(&lb, g, 0, NULL, NULL);
    if (st != CG_OK)
        return st;
    for (size_t l = 0; l < lb.n; l++) {
        if (lb.parent[l] != l)
            continue;
        (*count)++;
        if (lb.size[l] > *largest)
            *largest = lb.size[l];
    }
    cg__labeller_free(&lb);
    return CG_OK;
}

cg_status cg__remove_small(cg_grid *g, int walls, uint64_t min)
{
    /* Every region has at least one cell: min 0 and 1 remove nothing. */
    if (min <= 1)
        return CG_OK;
    if (walls)
        cg__drop_wall_specks(g, 0, g->h, min);
    return remove_regions(g, walls, keep_min_size, min);
}

uint32_t cg__largest_root(const cg__labeller *lb, uint64_t *roots)
{
    /* On a tie the smaller label, which is the region whose first cell comes
     * first in scan order (rows top to bottom, then x). */
    uint32_t best = 0;
    uint64_t best_size = 0, n = 0;
    for (size_t l = 0; l < lb->n; l++) {
        if (lb->parent[l] != l)
            continue;
        n++;
        if (lb->size[l] > best_size) {
            best_size = lb->size[l];
            best = (uint32_t)l;
        }
    }
    if (roots)
        *roots = n;
    return best;
}

cg_status cg__flip_regions_except(cg_grid *g, const cg__labeller *lb, uint32_t keep)
{
    span_stack stack = {0};
    cg_status st = CG_OK;
    const int fast = flip_level();
    uint32_t y = 0;
    for (size_t l = 0; l < lb->n && st == CG_OK; l++) {
        if (lb->parent[l] != l || l == keep || (lb->walls && l == 0))
            continue;
        y = label_row(lb, (uint32_t)l, y);
        st = flip_region(g, lb->first_x[l], y, lb->size[l], lb->walls, &stack, fast);
    }
    cg__free(stack.v);
    return st;
}

cg_status cg__flip_regions_unless(cg_grid *g, const cg__labeller *lb, const uint8_t *keep)
{
    span_stack stack = {0};
    cg_status st = CG_OK;
    const int fast = flip_level();
    uint32_t y = 0;
    for (size_t l = 0; l < lb->n && st == CG_OK; l++) {
        if (lb->parent[l] != l || keep[l] || (lb->walls && l == 0))
            continue;
        y = label_row(lb, (uint32_t)l, y);
        st = flip_region(g, lb->first_x[l], y, lb->size[l], lb->walls, &stack, fast);
    }
    cg__free(stack.v);
    return st;
}

cg_status cg__flip_small_roots(cg_grid *g, const cg__labeller *lb, uint64_t min,
                               const uint32_t *skip, size_t nskip, int *any)
{
    span_stack stack = {0};
    cg_status st = CG_OK;
    const int fast = flip_level();
    uint32_t y = 0;
    size_t k = 0;
    /* The small roots are gathered a block of labels at a time without a
     * branch per label (whether a label is a root is a coin toss where
     * specks abound), then flipped unless listed in skip. */
    enum { BLOCK = 1024 };
    uint32_t cand[BLOCK];
    const uint32_t *parent = lb->parent;
    const uint64_t *size = lb->size;
    const uint32_t outside = lb->walls ? 0 : NONE; /* with walls, label 0 stays */
    for (size_t b = 0; b < lb->n && st == CG_OK; b += BLOCK) {
        const size_t end = lb->n - b < BLOCK ? lb->n : b + BLOCK;
        size_t nc = 0;
        for (size_t l = b; l < end; l++) {
            cand[nc] = (uint32_t)l;
            nc += (size_t)((parent[l] == l) & (size[l] < min) & ((uint32_t)l != outside));
        }
        for (size_t c = 0; c < nc && st == CG_OK; c++) {
            const uint32_t l = cand[c];
            while (k < nskip && skip[k] < l)
                k++;
            if (k < nskip && skip[k] == l)
                continue;
            y = label_row(lb, l, y);
            st = flip_region(g, lb->first_x[l], y, size[l], lb->walls, &stack, fast);
            *any = 1;
        }
    }
    cg__free(stack.v);
    return st;
}

cg_status cg__flip_region_at(cg_grid *g, uint32_t x, uint32_t y, uint64_t size, int walls)
{
    span_stack stack = {0};
    cg_status st = flip_region(g, x, y, size, walls, &stack, flip_level());
    cg__free(stack.v);
    return st;
}

cg_status cg__keep_largest_floor(cg_grid *g)
{
    cg__labeller lb;
    cg_status st = cg__label(&lb, g, 0, NULL, NULL);
    if (st != CG_OK)
        return st;
    uint64_t roots;
    uint32_t best = cg__largest_root(&lb, &roots);
    if (roots > 1) {
        st = cg__flip_regions_except(g, &lb, best);
        cg__grid_prune_marks(g);
    }
    cg__labeller_free(&lb);
    return st;
}

/* ----------------------------------------------------------------- steps */

enum { REMOVE_MIN };

static cg_status parse_remove(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long v;
    if (!a->values[REMOVE_MIN].s)
        return cg__step_missing(step, a, "min=", diag);
    if (cg__parse_int(&a->values[REMOVE_MIN], a->line, "min", 0, LONG_MAX, &v, diag))
        return CG_EPARSE;
    step->u.regions.min = (uint64_t)v;
    return CG_OK;
}

static cg_status out_of_memory(cg__run *run, cg_status st, const char *what)
{
    if (st == CG_ENOMEM || st == CG_EOVERFLOW)
        cg__diag(run->diag, 0, 0, "out of memory labelling the regions of a %ux%u map for %s",
                 run->grid->w, run->grid->h, what);
    return st;
}

static cg_status run_remove_floor(const cg__step *step, cg__run *run)
{
    return out_of_memory(run, cg__remove_small_par(run->grid, 0, step->u.regions.min, run->par),
                         "remove-floor");
}

static cg_status run_remove_walls(const cg__step *step, cg__run *run)
{
    return out_of_memory(run, cg__remove_small_par(run->grid, 1, step->u.regions.min, run->par),
                         "remove-walls");
}

static cg_status run_keep_largest(const cg__step *step, cg__run *run)
{
    (void)step;
    return out_of_memory(run, cg__keep_largest_par(run->grid, run->par), "keep-largest");
}

const cg__step_def cg__step_remove_floor = {
    .name = "remove-floor",
    .usage = "remove-floor min=N",
    .keys = {[REMOVE_MIN] = "min"},
    .parse = parse_remove,
    .run = run_remove_floor,
};

const cg__step_def cg__step_remove_walls = {
    .name = "remove-walls",
    .usage = "remove-walls min=N",
    .keys = {[REMOVE_MIN] = "min"},
    .parse = parse_remove,
    .run = run_remove_walls,
};

const cg__step_def cg__step_keep_largest = {
    .name = "keep-largest",
    .usage = "keep-largest",
    .run = run_keep_largest,
};
