/* cells/automaton.c - the three cellular-automaton rules on the bitboard, and the
 * choice of code path for the library's bit-parallel kernels.
 *
 * The counting kernel itself is cells/automaton_kernel.h (carry-save adders
 * over 64-cell words, horizontal sums computed once per row and reused by
 * the five rows that need them). It is instantiated here once per path:
 *
 *   scalar   one uint64_t at a time: plain C, any compiler, any CPU;
 *   vector   8 words at a time through GCC/Clang vector extensions, built
 *            for the baseline ISA (SSE2 on x86-64, NEON on arm64);
 *   avx2     the same source built with target("avx2");
 *   avx512   the same source built with target("avx512f,..."), the
 *            3-input logic as vpternlogq;
 *   avx512vbmi2  the same again, the shifts across words as vpshldq /
 *            vpshrdq (one instruction for (c << k) | (p >> (64 - k))).
 *
 * At run time the best path the CPU supports is taken
 * (__builtin_cpu_supports), so the default Release build runs the AVX-512
 * code where the machine has it without -march flags. Every path computes
 * the same bits; tests/test_automaton.c forces each one in turn
 * (cg__set_kernel_path) and checks it against the scalar oracle
 * (tests/oracle.c). docs/PERFORMANCE.md has the measurements. */
#include <string.h>

#include "cells/automaton.h"
#include "core/cpu.h"
#include "core/grid.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

/* Words per strip: the ring of horizontal sums (5 rows x 6 planes) then
 * takes 15 KiB, in L1 on any current core. A multiple of 8. */
#define CG__STRIP 64
/* Narrower grids than this (in words a row) take the flat kernel on the
 * vector paths, their plane arrays CG__FLAT_WORDS words each (6 planes:
 * 24 KiB, in L1). */
#define CG__FLAT_NW 16
#define CG__FLAT_WORDS 512

/* ------------------------------------------------------------ scalar path */

#define KV uint64_t
#define KL 1
#define KLOAD(v, p) ((v) = *(p))
#define KSTORE(p, v) (*(p) = (v))
#define KSPLAT(u) ((uint64_t)(u))
#define KFN(name) name##_scalar
#define KATTR
#include "cells/automaton_kernel.h"
#undef KV
#undef KL
#undef KLOAD
#undef KSTORE
#undef KSPLAT
#undef KFN
#undef KATTR

/* ------------------------------------------------------------ vector paths */

#if defined(CG__HAVE_VECTOR)
typedef uint64_t cg__v8 __attribute__((vector_size(64)));

/* Vectors never cross a function boundary by value (their ABI depends on
 * the ISA, -Wpsabi): loads and stores are memcpy, which compile to one
 * unaligned vector move. */
#define KV cg__v8
#define KL 8
#define KLOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define KSTORE(p, v) memcpy((p), &(v), sizeof(v))
#define KSPLAT(u) ((cg__v8){0} + (uint64_t)(u))

#define KFN(name) name##_vector
#define KATTR
#include "cells/automaton_kernel.h"
#undef KFN
#undef KATTR

#if defined(CG__HAVE_X86)
#define KFN(name) name##_avx2
#define KATTR __attribute__((target("avx2")))
#include "cells/automaton_kernel.h"
#undef KFN
#undef KATTR

/* AVX-512: three-input logic in one instruction (truth tables 0x96 = XOR,
 * 0xE8 = majority). */
#define KXOR3(a, b, c)                                                                             \
    ((cg__v8)_mm512_ternarylogic_epi64((__m512i)(a), (__m512i)(b), (__m512i)(c), 0x96))
#define KMAJ(a, b, c)                                                                              \
    ((cg__v8)_mm512_ternarylogic_epi64((__m512i)(a), (__m512i)(b), (__m512i)(c), 0xE8))
#define KFN(name) name##_avx512
#define KATTR __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
#include "cells/automaton_kernel.h"
#undef KFN
#undef KATTR

#define KSHL(c, p, k) ((cg__v8)_mm512_shldi_epi64((__m512i)(c), (__m512i)(p), (k)))
#define KSHR(c, e, k) ((cg__v8)_mm512_shrdi_epi64((__m512i)(c), (__m512i)(e), (k)))
#define KFN(name) name##_avx512vbmi2
#define KATTR __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx512vbmi2")))
#include "cells/automaton_kernel.h"
#undef KFN
#undef KATTR
#undef KSHL
#undef KSHR
#undef KXOR3
#undef KMAJ
#endif

#undef KV
#undef KL
#undef KLOAD
#undef KSTORE
#undef KSPLAT
#endif

/* The vector paths work in chunks of 8 words: along a row (the strip
 * kernel), or on a narrow grid along the flat run of rows y0..y1-1 (the
 * flat kernel), which must hold 8 words. Otherwise (a map under 449 cells
 * wide that is also tiny, or a stripe of one short row) the scalar path
 * runs, whatever was chosen. */
static int path_for(const cg_grid *g, uint32_t y0, uint32_t y1)
{
    if (g->nw >= CG__FLAT_NW)
        return cg__kernel_path();
    if (y0 >= y1 || (uint64_t)(y1 - y0 - 1) * g->stride + g->nw < 8)
        return CG__PATH_SCALAR;
    return cg__kernel_path();
}

/* Nonzero when path runs g by the flat kernel, which sets the ring and tail
 * bits of the rows it computes itself (cells/automaton_kernel.h). */
static int flat_kernel(const cg_grid *g, int path)
{
    return path != CG__PATH_SCALAR && g->nw < CG__FLAT_NW;
}

/* ------------------------------------------------------------ entry points */

/* Walls the outer ring's cells of rows y0..y1-1 (cg__grid_wall_ring, for a
 * stripe of rows) and the tail bits past the width; g's row v is row top + v
 * of a map map_h rows high. After the flat kernel (flat), which sets the
 * rest, only the map's first and last rows are left to do. */
static void wall_ring_rows(cg_grid *g, uint32_t y0, uint32_t y1, uint32_t top, uint32_t map_h,
                           int flat)
{
    const uint64_t end = UINT64_C(1) << ((g->w - 1) & 63) | cg__tail_mask(g);
    const size_t nw = g->nw;
    for (uint32_t y = y0; y < y1; y++) {
        uint64_t *r = cg__row(g, y);
        if ((uint64_t)top + y == 0 || (uint64_t)top + y == (uint64_t)map_h - 1) {
            for (size_t i = 0; i < nw; i++)
                r[i] = ~UINT64_C(0);
        } else if (!flat) {
            r[0] |= 1;
            r[nw - 1] |= end;
        } else if (y + 2 < y1) {
            y = y1 - 2; /* on to the stripe's last row */
        }
    }
}

void cg__fix_tail_rows(cg_grid *g, uint32_t y0, uint32_t y1)
{
    uint64_t tail = cg__tail_mask(g);
    if (!tail)
        return;
    for (uint32_t y = y0; y < y1; y++)
        cg__row(g, y)[g->nw - 1] |= tail;
}

void cg__generation_rows_at(const cg_grid *src, cg_grid *dst, int r1, int r2, int self, uint32_t y0,
                            uint32_t y1, uint32_t top, uint32_t map_h)
{
    /* The r1/r2 rule (docs/algorithms.md): v1 over the 3x3 block, v2 over the 5x5 block
     * without corners, both with the centre unless self=no; wall iff
     * v1 >= r1 or v2 <= r2 (v2 >= r2+1 fails); the outer ring stays wall. */
    if (y1 > src->h)
        y1 = src->h;
    if (y0 >= y1)
        return;
    /* The rows between the ring's, in src's numbering. */
    uint32_t k0 = top >= 1 ? y0 : y0 > 1 - top ? y0 : 1 - top;
    uint64_t end = map_h < 3 ? 0 : (uint64_t)map_h - 1 - top;
    uint32_t k1 = end < y1 ? (uint32_t)end : y1;
    const int path = k0 < k1 ? path_for(src, k0, k1) : -1;
    switch (path) {
    case -1:
        break;
#if defined(CG__HAVE_X86)
    case CG__PATH_AVX512VBMI2:
        generation_avx512vbmi2(src, dst, r1, r2, self, k0, k1);
        break;
    case CG__PATH_AVX512:
        generation_avx512(src, dst, r1, r2, self, k0, k1);
        break;
    case CG__PATH_AVX2:
        generation_avx2(src, dst, r1, r2, self, k0, k1);
        break;
#endif
#if defined(CG__HAVE_VECTOR)
    case CG__PATH_VECTOR:
        generation_vector(src, dst, r1, r2, self, k0, k1);
        break;
#endif
    default:
        generation_scalar(src, dst, r1, r2, self, k0, k1);
        break;
    }
    wall_ring_rows(dst, y0, y1, top, map_h, path >= 0 && flat_kernel(src, path));
}

/* A narrow map's passes on a packed copy (cg__generation_passes): its rows
 * without their frame words, rows -2..h+1 at word 1 + (y + 2) * nw, and a
 * word of slack at either end (read by the horizontal sums of the first and
 * last words). At most this many words. */
#define CG__PACKED_WORDS 1024

/* One pass of the vector paths on grids of any stride. */
static void generation_pass(int path, const cg_grid *src, cg_grid *dst, int r1, int r2, int self,
                            uint32_t y0, uint32_t y1)
{
    switch (path) {
#if defined(CG__HAVE_X86)
    case CG__PATH_AVX512VBMI2:
        generation_avx512vbmi2(src, dst, r1, r2, self, y0, y1);
        break;
    case CG__PATH_AVX512:
        generation_avx512(src, dst, r1, r2, self, y0, y1);
        break;
    case CG__PATH_AVX2:
        generation_avx2(src, dst, r1, r2, self, y0, y1);
        break;
#endif
#if defined(CG__HAVE_VECTOR)
    case CG__PATH_VECTOR:
        generation_vector(src, dst, r1, r2, self, y0, y1);
        break;
#endif
    default:
        generation_scalar(src, dst, r1, r2, self, y0, y1);
        break;
    }
}

/* Copies rows y0..y1-1 of src to dst (grids of the same size, any strides).
 * Rows of one or two words, the maps this is for, are one copy of constant
 * size each (a move of 8 or 16 bytes): a generic copy of so few words (a
 * call to memcpy, or a vectorised loop with its overlap checks) costs
 * several times the copy. The row pointers are kept here, not recomputed
 * from the grids, which the stores could alias. */
static void copy_rows(const cg_grid *src, cg_grid *dst, uint32_t y0, uint32_t y1)
{
    const size_t nw = src->nw, sa = src->stride, sb = dst->stride;
    const uint64_t *a = cg__row(src, y0);
    uint64_t *b = cg__row(dst, y0);
    uint32_t n = y1 - y0;
    if (nw == 2) {
        for (; n; n--, a += sa, b += sb)
            memcpy(b, a, 2 * sizeof(uint64_t));
    } else if (nw == 1) {
        for (; n; n--, a += sa, b += sb)
            memcpy(b, a, sizeof(uint64_t));
    } else {
        for (; n; n--, a += sa, b += sb)
            memcpy(b, a, nw * sizeof(uint64_t));
    }
}

/* Sets n words from p on to all wall, two at a time: a memset (which the
 * compiler makes of a plain loop) costs tens of cycles to start for the few
 * words of a padding row. */
static void wall_words(uint64_t *p, size_t n)
{
    for (; n >= 2; n -= 2, p += 2) {
        p[0] = ~UINT64_C(0);
        p[1] = ~UINT64_C(0);
    }
    if (n)
        p[0] = ~UINT64_C(0);
}

int cg__generation_passes(cg_grid *g, int r1, int r2, int self, uint32_t n)
{
    /* The flat kernel (cells/automaton_kernel.h) reads a word's neighbours
     * along the flat run of memory, the words of the rows beside it, so on
     * a grid packed without the frame words, the row before's last word
     * stands where the frame word was: x-1 and x-2 of a row's first cells
     * come from its top bits, x+1 and x+2 of its last cells from the next
     * row's first bits. With the ring forced those cells' own results are
     * wall whatever they read, so only x = -1 for x = 1 and x = w for
     * x = w-2 matter: the previous row's bit 63 of its last word and the
     * same row's bit w, both tail bits (wall, like the frame) when the width
     * is not a multiple of 64. Half the words per row at 80 cells (2 of 4),
     * and the map is packed once for all n passes. The markers would have
     * to be pruned between passes: none may exist. */
    const size_t nw = g->nw;
    const int path = cg__kernel_path();
    if (n == 0 || g->nmarks || path == CG__PATH_SCALAR || !(g->w & 63) || g->h < 3 ||
        nw >= CG__FLAT_NW || ((size_t)g->h + 2 * CG__PAD) * nw + 2 > CG__PACKED_WORDS ||
        (size_t)(g->h - 2) * nw < 8)
        return 0;
    uint64_t a[CG__PACKED_WORDS], b[CG__PACKED_WORDS];
    /* (Each set field by field: a copy of the first would load it while its
     * stores are still in flight, which costs more than the copy.) */
    cg_grid pa = {.w = g->w, .h = g->h, .nw = nw, .stride = nw, .mem = a};
    cg_grid pb = {.w = g->w, .h = g->h, .nw = nw, .stride = nw, .mem = b};
    const uint32_t h = g->h;
    /* The slack words, the padding rows and in b the ring's rows: wall. */
    wall_words(a, 1 + 2 * nw);
    wall_words(a + 1 + (h + 2) * nw, 1 + 2 * nw);
    wall_words(b, 1 + 3 * nw);
    wall_words(b + 1 + (h + 1) * nw, 1 + 3 * nw);
    copy_rows(g, &pa, 0, h);
    cg_grid *src = &pa, *dst = &pb;
    for (uint32_t k = 0; k < n; k++) {
        generation_pass(path, src, dst, r1, r2, self, 1, h - 1);
        if (k == 0) { /* a's ring rows held the map's: wall from now on */
            wall_words(cg__row(&pa, 0), nw);
            wall_words(cg__row(&pa, h - 1), nw);
        }
        cg_grid *t = src;
        src = dst;
        dst = t;
    }
    copy_rows(src, g, 1, h - 1);
    wall_words(cg__row(g, 0), nw);
    wall_words(cg__row(g, h - 1), nw);
    return 1;
}

void cg__generation_rows(const cg_grid *src, cg_grid *dst, int r1, int r2, int self, uint32_t y0,
                         uint32_t y1)
{
    cg__generation_rows_at(src, dst, r1, r2, self, y0, y1, 0, src->h);
}

void cg__smooth_rows(const cg_grid *src, cg_grid *dst, int walls, uint32_t y0, uint32_t y1)
{
    /* The smoothing rule: wall iff at least `walls` of the 8 neighbours are walls,
     * outside counting as wall; every cell, border included. */
    if (y1 > src->h)
        y1 = src->h;
    if (y0 >= y1)
        return;
    const int path = path_for(src, y0, y1);
    switch (path) {
#if defined(CG__HAVE_X86)
    case CG__PATH_AVX512VBMI2:
        smooth_avx512vbmi2(src, dst, walls, y0, y1);
        break;
    case CG__PATH_AVX512:
        smooth_avx512(src, dst, walls, y0, y1);
        break;
    case CG__PATH_AVX2:
        smooth_avx2(src, dst, walls, y0, y1);
        break;
#endif
#if defined(CG__HAVE_VECTOR)
    case CG__PATH_VECTOR:
        smooth_vector(src, dst, walls, y0, y1);
        break;
#endif
    default:
        smooth_scalar(src, dst, walls, y0, y1);
        break;
    }
    if (!flat_kernel(src, path))
        cg__fix_tail_rows(dst, y0, y1);
}

void cg__rule_rows(const cg_grid *src, cg_grid *dst, int lo, int hi, uint32_t y0, uint32_t y1)
{
    /* The level article's rule: floor iff the floor cells of the 3x3 block (centre included)
     * number lo..hi. */
    if (y1 > src->h)
        y1 = src->h;
    if (y0 >= y1)
        return;
    const int path = path_for(src, y0, y1);
    switch (path) {
#if defined(CG__HAVE_X86)
    case CG__PATH_AVX512VBMI2:
        rule_avx512vbmi2(src, dst, lo, hi, y0, y1);
        break;
    case CG__PATH_AVX512:
        rule_avx512(src, dst, lo, hi, y0, y1);
        break;
    case CG__PATH_AVX2:
        rule_avx2(src, dst, lo, hi, y0, y1);
        break;
#endif
#if defined(CG__HAVE_VECTOR)
    case CG__PATH_VECTOR:
        rule_vector(src, dst, lo, hi, y0, y1);
        break;
#endif
    default:
        rule_scalar(src, dst, lo, hi, y0, y1);
        break;
    }
    if (!flat_kernel(src, path))
        cg__fix_tail_rows(dst, y0, y1);
}

void cg__generation(const cg_grid *src, cg_grid *dst, int r1, int r2, int self)
{
    cg__generation_rows(src, dst, r1, r2, self, 0, src->h);
}

void cg__smooth(const cg_grid *src, cg_grid *dst, int walls)
{
    cg__smooth_rows(src, dst, walls, 0, src->h);
}

void cg__rule(const cg_grid *src, cg_grid *dst, int lo, int hi)
{
    cg__rule_rows(src, dst, lo, hi, 0, src->h);
}
