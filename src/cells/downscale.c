/* cells/downscale.c - `downscale K` (the level article's "réduction de
 * l'échelle", docs/algorithms.md).
 *
 * The level article runs its automaton on a grid twice the wanted size, then reduces
 * it: "the probability that a cell of the reduced grid has a value is the
 * frequency of that value in the square of 4 cells it stands for". This
 * halves the width of rooms and corridors. Here the factor is K (1..16): the
 * steps before a `downscale K` run at K times the size (engine/pipeline.c starts the
 * run that much larger), and output cell (x, y) is wall with probability
 * walls/K^2, walls being the wall count of its KxK block (cells outside the
 * map count as walls). The draw is exact integer arithmetic on a
 * hash of (seed, ordinal, x, y) (docs/randomness.md):
 *
 *     wall  iff  (cell_hash >> 32) * K^2 < walls << 32
 *
 * so each output cell depends only on its block and (seed, x, y): a crop of
 * the big grid downscales to the same crop of the result. docs/placement.md
 * has the details, including where markers go. */
#include <stdlib.h>

#include "core/cpu.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/rng.h"
#include "engine/steps.h"

static cg_status parse_downscale(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long k;
    if (!a->positional.s)
        return cg__step_missing(step, a, "a factor K", diag);
    if (cg__parse_int(&a->positional, a->line, "the factor", 1, CG__DOWNSCALE_MAX, &k, diag))
        return CG_EPARSE;
    step->u.downscale.k = (uint32_t)k;
    return CG_OK;
}

/* The k bits of row r starting at cell x (k <= 16). A block may reach past
 * the last word into the framing word, which is all wall. */
static inline unsigned block_bits(const uint64_t *r, uint64_t x, unsigned k)
{
    size_t i = (size_t)(x >> 6);
    unsigned b = (unsigned)(x & 63);
    uint64_t v = r[i] >> b;
    if (b + k > 64)
        v |= r[i + 1] << (64 - b);
    return (unsigned)(v & ((UINT64_C(1) << k) - 1));
}

/* cg__cell_hash(key, x, y) split in two (docs/randomness.md): the row part
 * once per row, then one mix per cell. */
static inline uint64_t row_hash(uint64_t key, uint32_t y)
{
    return cg__mix64(key ^ ((uint64_t)y * UINT64_C(0xD1B54A32D192ED03)));
}

/* splitmix64's finaliser, as cg__mix64 (core/rng.c), here so it inlines:
 * K = 2 draws it for every mixed block, a thousand or more a level. */
static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t cell_draw(uint64_t rowhash, uint64_t x)
{
    return mix(rowhash + x * UINT64_C(0x9E3779B97F4A7C15)) >> 32;
}

/* The even bits of v (cells 2j) packed into bits j of the low half. */
static inline uint64_t even_bits(uint64_t v)
{
    v &= UINT64_C(0x5555555555555555);
    v = (v | v >> 1) & UINT64_C(0x3333333333333333);
    v = (v | v >> 2) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    v = (v | v >> 4) & UINT64_C(0x00FF00FF00FF00FF);
    v = (v | v >> 8) & UINT64_C(0x0000FFFF0000FFFF);
    return (v | v >> 16) & UINT64_C(0x00000000FFFFFFFF);
}

/* K = 2, the level article's factor, 64 result cells at a time: the blocks of only
 * walls and of only floor come out of word operations, and only the mixed
 * blocks (1 to 3 walls) are counted and hashed one by one. Same cells as
 * the general path. */
static void downscale2(const cg_grid *src, cg_grid *dst, uint64_t key)
{
    for (uint32_t y = 0; y < dst->h; y++) {
        /* Row 2y+1 may be the first padding row (all wall) when h is odd. */
        const uint64_t *a = cg__row(src, 2 * (int64_t)y), *b = cg__row(src, 2 * (int64_t)y + 1);
        uint64_t *out = cg__row(dst, y);
        uint64_t rh = row_hash(key, y);
        for (size_t i = 0; i < dst->nw; i++) {
            /* Big words 2i and 2i+1 hold the blocks of cells 64i..64i+63;
             * 2i+1 is at most the framing word, which is wall. */
            uint64_t a0 = a[2 * i], a1 = a[2 * i + 1], b0 = b[2 * i], b1 = b[2 * i + 1];
            uint64_t all0 = a0 & a0 >> 1 & b0 & b0 >> 1, all1 = a1 & a1 >> 1 & b1 & b1 >> 1;
            uint64_t any0 = a0 | a0 >> 1 | b0 | b0 >> 1, any1 = a1 | a1 >> 1 | b1 | b1 >> 1;
            uint64_t wall = even_bits(all0) | even_bits(all1) << 32;
            uint64_t mixed = (even_bits(any0) | even_bits(any1) << 32) & ~wall;
            while (mixed) {
                unsigned c = (unsigned)__builtin_ctzll(mixed);
                mixed &= mixed - 1;
                uint64_t ra = c < 32 ? a0 : a1, rb = c < 32 ? b0 : b1;
                unsigned sh = 2 * (c & 31);
                /* The walls of the 2x2 block: a popcount of 4 bits, from
                 * a table of 16 nibbles (no popcnt instruction needed). */
                uint64_t p = (ra >> sh & 3) | (rb >> sh & 3) << 2;
                uint64_t walls = UINT64_C(0x4332322132212110) >> (4 * p) & 15;
                uint64_t x = (uint64_t)i * 64 + c;
                wall |= (uint64_t)(cell_draw(rh, x) * 4 < walls << 32) << c;
            }
            out[i] = wall;
        }
    }
    cg__grid_fix_tail(dst);
}

/* x86-64 only: BMI2's 64-bit pext. */
#if defined(CG__HAVE_X86) && defined(__x86_64__)
#include <immintrin.h>

typedef uint64_t ds_v8 __attribute__((vector_size(64)));

/* K = 2 on the AVX-512 paths, every cell of a word at once. A mixed block
 * is wall iff (hash >> 32) * 4 < walls << 32, i.e. hash >> 62 < walls:
 * only the hash's top two bits matter, and mix64's last step (z ^= z >>
 * 31) leaves them as they are. So the 64 cells' hashes go 8 lanes at a
 * time through mix64's first two rounds (vpmullq), their bits 63 and 62
 * become two masks (vptestmq), the cells of each block four masks (BMI2's
 * pext picks a row's even or odd cells), its walls two bit planes, and
 * a 2-bit comparison in word operations decides every cell: no branch per
 * mixed block. Same cells as downscale2 (tests/test_downscale.c runs every
 * path against the documented formula). */
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,bmi2"))) static void
downscale2_avx512(const cg_grid *src, cg_grid *dst, uint64_t key)
{
    const uint64_t even = UINT64_C(0x5555555555555555), odd = even << 1;
    const ds_v8 lanes = {0,
                         UINT64_C(0x9E3779B97F4A7C15),
                         2 * UINT64_C(0x9E3779B97F4A7C15),
                         3 * UINT64_C(0x9E3779B97F4A7C15),
                         4 * UINT64_C(0x9E3779B97F4A7C15),
                         5 * UINT64_C(0x9E3779B97F4A7C15),
                         6 * UINT64_C(0x9E3779B97F4A7C15),
                         7 * UINT64_C(0x9E3779B97F4A7C15)};
    const __m512i bit63 = _mm512_set1_epi64((long long)(UINT64_C(1) << 63));
    const __m512i bit62 = _mm512_set1_epi64((long long)(UINT64_C(1) << 62));
    /* The groups of 8 cells of the last word inside the width: the cells
     * past it are not hashed (their bits become the tail walls). */
    const unsigned last = (unsigned)(((dst->w - 1) & 63u) / 8u + 1u);
    for (uint32_t y = 0; y < dst->h; y++) {
        const uint64_t *a = cg__row(src, 2 * (int64_t)y), *b = cg__row(src, 2 * (int64_t)y + 1);
        uint64_t *out = cg__row(dst, y);
        uint64_t x0 = row_hash(key, y);
        for (size_t i = 0; i < dst->nw; i++, x0 += 64 * UINT64_C(0x9E3779B97F4A7C15)) {
            const unsigned groups = i + 1 < dst->nw ? 8 : last;
            uint64_t a0 = a[2 * i], a1 = a[2 * i + 1], b0 = b[2 * i], b1 = b[2 * i + 1];
            /* The four cells of each block, one bit per output cell. */
            uint64_t ae = _pext_u64(a0, even) | _pext_u64(a1, even) << 32;
            uint64_t ao = _pext_u64(a0, odd) | _pext_u64(a1, odd) << 32;
            uint64_t be = _pext_u64(b0, even) | _pext_u64(b1, even) << 32;
            uint64_t bo = _pext_u64(b0, odd) | _pext_u64(b1, odd) << 32;
            /* walls = ae + ao + be + bo as bit planes w2 w1 w0. */
            uint64_t s = ae ^ ao, c1 = ae & ao, t = be ^ bo, c2 = be & bo;
            uint64_t w0 = s ^ t, k = s & t;
            uint64_t w1 = c1 ^ c2 ^ k, w2 = (c1 & c2) | ((c1 ^ c2) & k);
            /* The top two bits of each cell's hash, d1 d0. */
            uint64_t d1 = 0, d0 = 0;
            for (unsigned g = 0; g < groups; g++) {
                ds_v8 z = lanes + (x0 + g * 8 * UINT64_C(0x9E3779B97F4A7C15));
                z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
                z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
                d1 |= (uint64_t)_mm512_test_epi64_mask((__m512i)z, bit63) << (8 * g);
                d0 |= (uint64_t)_mm512_test_epi64_mask((__m512i)z, bit62) << (8 * g);
            }
            /* Four walls: wall; else wall iff d < walls (none: never). */
            out[i] = w2 | (~d1 & w1) | (~(d1 ^ w1) & ~d0 & w0);
        }
    }
    cg__grid_fix_tail(dst);
}

/* a * b mod 2^64 in each 64-bit lane: AVX2 has no 64-bit multiply, so
 * three 32x32->64 ones (the high halves' product falls out of the low 64
 * bits). b is the same in every lane. */
__attribute__((target("avx2"))) static inline __m256i mul64_avx2(__m256i a, uint64_t b)
{
    const __m256i lo = _mm256_set1_epi64x((long long)(b & 0xffffffffu));
    const __m256i hi = _mm256_set1_epi64x((long long)(b >> 32));
    __m256i ll = _mm256_mul_epu32(a, lo);
    __m256i cross =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), lo), _mm256_mul_epu32(a, hi));
    return _mm256_add_epi64(ll, _mm256_slli_epi64(cross, 32));
}

/* K = 2 on the AVX2 path: as downscale2_avx512, the cells of a word
 * hashed four lanes at a time with the multiplies above (the groups of four
 * with a mixed block only); a lane's bit 63 and 62 by movemask. A row's even and odd cells by the shifts of
 * even_bits, not BMI2's pext (microcoded, hundreds of cycles, on the AVX2
 * CPUs of AMD before Zen 3). Same cells as downscale2 (tests/test_downscale.c
 * runs every path against the documented formula). */
__attribute__((target("avx2"))) static void downscale2_avx2(const cg_grid *src, cg_grid *dst,
                                                           uint64_t key)
{
    const uint64_t step = UINT64_C(0x9E3779B97F4A7C15);
    const __m256i lanes = _mm256_set_epi64x((long long)(3 * step), (long long)(2 * step),
                                            (long long)step, 0);
    /* The groups of 4 cells of the last word inside the width. */
    const unsigned last = (unsigned)(((dst->w - 1) & 63u) / 4u + 1u);
    for (uint32_t y = 0; y < dst->h; y++) {
        const uint64_t *a = cg__row(src, 2 * (int64_t)y), *b = cg__row(src, 2 * (int64_t)y + 1);
        uint64_t *out = cg__row(dst, y);
        uint64_t x0 = row_hash(key, y);
        for (size_t i = 0; i < dst->nw; i++, x0 += 64 * step) {
            const unsigned groups = i + 1 < dst->nw ? 16 : last;
            uint64_t a0 = a[2 * i], a1 = a[2 * i + 1], b0 = b[2 * i], b1 = b[2 * i + 1];
            uint64_t ae = even_bits(a0) | even_bits(a1) << 32;
            uint64_t ao = even_bits(a0 >> 1) | even_bits(a1 >> 1) << 32;
            uint64_t be = even_bits(b0) | even_bits(b1) << 32;
            uint64_t bo = even_bits(b0 >> 1) | even_bits(b1 >> 1) << 32;
            uint64_t s0 = ae ^ ao, c1 = ae & ao, t = be ^ bo, c2 = be & bo;
            uint64_t w0 = s0 ^ t, k = s0 & t;
            uint64_t w1 = c1 ^ c2 ^ k, w2 = (c1 & c2) | ((c1 ^ c2) & k);
            /* Only groups with a mixed block (1 to 3 walls) need their
             * hashes: a block of 0 or 4 walls decides alone. */
            const uint64_t mixed = (w0 | w1) & ~w2;
            uint64_t d1 = 0, d0 = 0;
            for (unsigned g = 0; g < groups; g++) {
                if (!(mixed >> (4 * g) & 15))
                    continue;
                __m256i z = _mm256_add_epi64(
                    lanes, _mm256_set1_epi64x((long long)(x0 + g * 4 * step)));
                z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 30));
                z = mul64_avx2(z, UINT64_C(0xBF58476D1CE4E5B9));
                z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 27));
                z = mul64_avx2(z, UINT64_C(0x94D049BB133111EB));
                d1 |= (uint64_t)(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(z)) << (4 * g);
                d0 |= (uint64_t)(unsigned)_mm256_movemask_pd(
                          _mm256_castsi256_pd(_mm256_slli_epi64(z, 1)))
                      << (4 * g);
            }
            out[i] = w2 | (~d1 & w1) | (~(d1 ^ w1) & ~d0 & w0);
        }
    }
    cg__grid_fix_tail(dst);
}
#endif

/* Writes the downscaled cells of src into dst (ceil(w/k) x ceil(h/k)). */
static void downscale_cells(const cg_grid *src, cg_grid *dst, unsigned k, uint64_t key)
{
#if defined(CG__HAVE_X86) && defined(__x86_64__)
    if (k == 2 && cg__kernel_path() >= CG__PATH_AVX512 && __builtin_cpu_supports("bmi2")) {
        downscale2_avx512(src, dst, key);
        return;
    }
    if (k == 2 && cg__kernel_path() >= CG__PATH_AVX2 && __builtin_cpu_supports("avx2")) {
        downscale2_avx2(src, dst, key);
        return;
    }
#endif
    if (k == 2) {
        downscale2(src, dst, key);
        return;
    }
    const uint64_t kk = (uint64_t)k * k;
    for (uint32_t y = 0; y < dst->h; y++) {
        uint64_t y0 = (uint64_t)y * k;
        /* Rows past the bottom of src (only when h is not a multiple of k)
         * are outside the map: all wall. */
        unsigned rows = y0 + k <= src->h ? k : (unsigned)(src->h - y0);
        unsigned missing = (k - rows) * k;
        uint64_t *out = cg__row(dst, y);
        uint64_t rh = row_hash(key, y);
        for (size_t i = 0; i < dst->nw; i++) {
            uint64_t word = 0;
            uint64_t x0 = (uint64_t)i * 64;
            unsigned n = dst->w - x0 < 64 ? (unsigned)(dst->w - x0) : 64;
            for (unsigned b = 0; b < n; b++) {
                uint64_t bx = (x0 + b) * k;
                unsigned walls = missing;
                for (unsigned r = 0; r < rows; r++)
                    walls += (unsigned)__builtin_popcount(
                        block_bits(cg__row(src, (int64_t)(y0 + r)), bx, k));
                uint64_t wall;
                if (walls == 0 || walls == kk) /* decided whatever the hash: skip it */
                    wall = (uint64_t)(walls != 0);
                else
                    wall = (uint64_t)(cell_draw(rh, x0 + b) * kk < (uint64_t)walls << 32);
                word |= wall << b;
            }
            out[i] = word;
        }
    }
    cg__grid_fix_tail(dst);
}

/* Markers follow their block: a marker at (X, Y) goes to (X/k, Y/k) if that
 * cell is floor and has no marker yet; earlier markers in (y, x) order win. */
static cg_status move_marks(const cg_grid *src, cg_grid *dst, unsigned k)
{
    for (size_t i = 0; i < src->nmarks; i++) {
        const cg__mark *m = &src->marks[i];
        uint32_t x = m->x / k, y = m->y / k;
        if (cg_grid_get(dst, x, y) != CG_FLOOR || cg_grid_marker(dst, x, y) != CG_MARK_NONE)
            continue;
        cg_status st = cg__grid_copy_mark(dst, x, y, src, m);
        if (st != CG_OK)
            return st;
    }
    return CG_OK;
}

static cg_status run_downscale(const cg__step *step, cg__run *run)
{
    const unsigned k = step->u.downscale.k;
    const cg_grid *src = run->grid;
    /* Without an input map the run started k times larger, so this divides
     * exactly; an input map whose size is not a multiple of k gets partial
     * blocks at its right and bottom edges, their outside cells walls. */
    uint32_t w = (uint32_t)((src->w + (uint64_t)k - 1) / k);
    uint32_t h = (uint32_t)((src->h + (uint64_t)k - 1) / k);
    cg_grid *dst = NULL, *scratch = NULL;
    cg_status st = cg_grid_new(&dst, w, h);
    if (st == CG_OK && run->scratch)
        st = cg_grid_new(&scratch, w, h);
    if (st == CG_OK) {
        downscale_cells(src, dst, k, cg__step_rand_key(step, run->seed));
        st = move_marks(src, dst, k);
    }
    if (st != CG_OK) {
        cg_grid_free(dst);
        cg_grid_free(scratch);
        cg__diag(run->diag, step->line, step->column, "out of memory for a %ux%u map", w, h);
        return st;
    }
    /* The grids of the rest of the run have the new size. */
    cg_grid_free(run->grid);
    cg_grid_free(run->scratch);
    run->grid = dst;
    run->scratch = scratch;
    return CG_OK;
}

static uint32_t shrink_downscale(const cg__step *step)
{
    return step->u.downscale.k;
}

const cg__step_def cg__step_downscale = {
    .name = "downscale",
    .usage = "downscale K",
    .positional = 1,
    .rand_kind = CG__RAND_DOWNSCALE,
    .parse = parse_downscale,
    .run = run_downscale,
    .shrink = shrink_downscale,
};
