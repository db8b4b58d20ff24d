/* regions/reconstruct.c - the floor region of one cell, found on the
 * bitboard by morphological reconstruction, for keep-largest and
 * remove-floor without labelling the map's largest region.
 *
 * Reconstruction by dilation (Vincent, "Morphological grayscale
 * reconstruction in image analysis: applications and efficient
 * algorithms", IEEE Trans. Image Processing 2(2), 1993; the binary case,
 * with a queue of pixels to revisit as in its hybrid algorithm): a set R
 * starts as the seed and grows within the floor by the floor cells beside
 * it until nothing changes; it ends as the seed's 4-connected region,
 * whatever the order of the updates, so the result is fixed by the map.
 * Here the unit of work is a word of 64 cells: updating word i of row y
 * gives it the floor cells of the runs (within the word) that hold a cell
 * of R there, above, below, or on the next bit of the words beside it
 * (runs_hit: the carry of an addition upward, a Kogge-Stone occluded fill
 * downward, or PDEP/PEXT over the runs' ends and starts). A word whose
 * update brings new cells passes them down (or up) its column at once, as
 * long as the next row gains, and pushes the words that gain beside it
 * (left, right, and the row it came from) on a stack. Only updates that
 * gain are made but the first of a stack entry, so the work follows R's
 * words and how often they grow, not the map's area and the sweeps a
 * winding cave would need (sweeping whole rows down and up until nothing
 * changes took 37 pairs of sweeps and about twice the labeller's time on
 * the 4096x4096 type2 cave).
 *
 * R is held in a bitmap laid out as the grid (its stride, its padding
 * rows and frame words, all zero), so a word's neighbours are read at
 * fixed offsets without bounds tests: outside the map the grid is wall,
 * which nothing gains. */
#include <string.h>

#include "core/cpu.h"
#include "core/grid.h"
#include "core/mem.h"
#include "regions/regions.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Maps of more cells than this keep the labelling (R is a bitmap the size
 * of the map: at most 8 MiB here, beside the 0.5 GiB of the biggest maps
 * the labelling in stripes is made for). */
#define RECON_MAX_CELLS (UINT64_C(1) << 26)

/* The floor cells of k in the runs of k within a word that hold a cell of
 * s (s within k), as fill_runs in regions.c. */
static inline uint64_t runs_hit(uint64_t k, uint64_t s)
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
/* runs_hit by BMI2 (fill_runs_pdep in regions.c): the runs whose end the
 * upward carry reaches, one bit per run by PEXT over the ends, put on the
 * runs' starts by PDEP, filled up from there by a carry. */
__attribute__((target("bmi2"))) static inline uint64_t runs_hit_pdep(uint64_t k, uint64_t s)
{
    const uint64_t ends = k & ~(k >> 1), starts = k & ~(k << 1);
    const uint64_t up = (k & ~(k + s)) | s;
    const uint64_t hit = _pdep_u64(_pext_u64(up & ends, ends), starts);
    return k & ~(k + hit);
}
#endif

/* The stack of words (indices into the grid's storage) still to update. */
typedef struct wstack {
    uint32_t *v;
    size_t n, cap;
} wstack;

static int wstack_grow(wstack *s)
{
    if (s->cap > SIZE_MAX / 2 / sizeof *s->v)
        return 0;
    const size_t cap = s->cap * 2;
    uint32_t *v = cg__realloc(s->v, cap * sizeof *v);
    if (!v)
        return 0;
    s->v = v;
    s->cap = cap;
    return 1;
}

/* The flood (see the top) from the words on the stack: m is the grid's
 * storage, rec R's, stride their words per row. Returns the cells added
 * to rec, or UINT64_MAX when the stack could not grow. Every update pushes
 * at most three words: the stack is grown before one when it has less
 * room. */
#define UPDATE(HIT, q, out)                                                                        \
    do {                                                                                           \
        if (cap - n < 3) {                                                                         \
            s->n = n;                                                                              \
            if (!wstack_grow(s))                                                                   \
                return UINT64_MAX;                                                             \
            stk = s->v;                                                                            \
            cap = s->cap;                                                                          \
        }                                                                                          \
        const uint64_t k_ = ~m[q], c_ = rec[q];                                                    \
        const uint64_t nv_ = HIT(                                                                  \
            k_, (c_ | rec[(q)-stride] | rec[(q) + stride] | rec[(q)-1] >> 63 | rec[(q) + 1] << 63) & \
                    k_);                                                                           \
        rec[q] = nv_;                                                                              \
        total += (uint64_t)__builtin_popcountll(nv_ & ~c_);                                        \
        out = nv_ & ~c_;                                                                           \
    } while (0)

/* Pushes the words beside word q in its row that gain from fr, its new
 * cells. */
#define SIDEWAYS(q, fr)                                                                            \
    do {                                                                                           \
        /* Without branches: whether a word gains is a coin toss. */                              \
        stk[n] = (uint32_t)((q)-1);                                                                \
        n += (size_t)((fr) & ~(m[(q)-1] | rec[(q)-1]) >> 63 & 1);                                  \
        stk[n] = (uint32_t)((q) + 1);                                                              \
        n += (size_t)((fr) >> 63 & ~(m[(q) + 1] | rec[(q) + 1]) & 1);                              \
    } while (0)

#define FLOOD(HIT)                                                                                 \
    uint64_t total = 0;                                                                            \
    uint32_t *stk = s->v;                                                                          \
    size_t n = s->n, cap = s->cap;                                                                 \
    while (n) {                                                                                    \
        const size_t p = stk[--n];                                                                 \
        uint64_t fr;                                                                               \
        UPDATE(HIT, p, fr);                                                                        \
        const uint64_t first = rec[p]; /* the first word passes on all its cells */                \
        SIDEWAYS(p, first);                                                                        \
        size_t q = p;                                                                              \
        fr = first;                                                                                \
        while (fr & ~(m[q + stride] | rec[q + stride])) {                                          \
            q += stride;                                                                           \
            UPDATE(HIT, q, fr);                                                                    \
            SIDEWAYS(q, fr);                                                                       \
            stk[n] = (uint32_t)(q - stride);                                                       \
            n += (fr & ~(m[q - stride] | rec[q - stride])) != 0;                                   \
        }                                                                                          \
        q = p;                                                                                     \
        fr = first;                                                                                \
        while (fr & ~(m[q - stride] | rec[q - stride])) {                                          \
            q -= stride;                                                                           \
            UPDATE(HIT, q, fr);                                                                    \
            SIDEWAYS(q, fr);                                                                       \
            stk[n] = (uint32_t)(q + stride);                                                       \
            n += (fr & ~(m[q + stride] | rec[q + stride])) != 0;                                   \
        }                                                                                          \
    }                                                                                              \
    s->n = 0;                                                                                      \
    return total;

static uint64_t flood_base(const uint64_t *m, uint64_t *rec, size_t stride, wstack *s)
{
    FLOOD(runs_hit)
}

#if defined(CG__HAVE_X86)
__attribute__((target("popcnt"))) static uint64_t flood_popcnt(const uint64_t *m, uint64_t *rec,
                                                               size_t stride, wstack *s)
{
    FLOOD(runs_hit)
}
#endif

#if defined(__x86_64__)
__attribute__((target("popcnt,bmi,bmi2"))) static uint64_t
flood_pdep(const uint64_t *m, uint64_t *rec, size_t stride, wstack *s)
{
    FLOOD(runs_hit_pdep)
}
#endif

/* The copy of the flood for this CPU, chosen as the labeller's: PDEP/PEXT
 * on the AVX-512 VBMI2 kernel path (whose CPUs have a fast PDEP), POPCNT
 * where there, else the baseline. */
static uint64_t flood(const uint64_t *m, uint64_t *rec, size_t stride, wstack *s)
{
    if (cg__regions_popcnt()) {
#if defined(__x86_64__)
        if (cg__kernel_path() == CG__PATH_AVX512VBMI2)
            return flood_pdep(m, rec, stride, s);
#endif
#if defined(CG__HAVE_X86)
        return flood_popcnt(m, rec, stride, s);
#endif
    }
    return flood_base(m, rec, stride, s);
}

/* The seed: the middle cell of the longest floor run (the first of the
 * longest) of the middle row, else of the first row after it, then before
 * it, with floor - in the largest region on a cave where that holds most
 * of the floor. Returns 0 for a map without floor. */
static int pick_seed(const cg_grid *g, uint32_t *sx, uint32_t *sy)
{
    for (uint32_t d = 0; d < g->h; d++) {
        const uint32_t y = (g->h / 2 + d) % g->h;
        const uint64_t *r = cg__row(g, y);
        uint32_t best = 0, bx = 0, x = 0;
        while (x < g->w) {
            if (cg__bit(r, x)) {
                x++;
                continue;
            }
            const uint32_t a = x;
            while (x < g->w && !cg__bit(r, x))
                x++;
            if (x - a > best)
                best = x - a, bx = a + (x - a) / 2;
        }
        if (best) {
            *sx = bx, *sy = y;
            return 1;
        }
    }
    return 0;
}

void cg__region_map_free(cg__region_map *m)
{
    cg__free(m->block);
    *m = (cg__region_map){0};
}

cg_status cg__floor_region_of(const cg_grid *g, uint32_t x, uint32_t y, cg__region_map *out)
{
    *out = (cg__region_map){0};
    const size_t words = ((size_t)g->h + 2 * CG__PAD) * g->stride;
    /* A big bitmap is fresh memory, whose first touch of each page costs
     * a fault (5.5 ms for the 2.2 MB of a 4096x4096 map on a virtual
     * machine): it is laid in whole huge pages, asked for by
     * cg__mem_advise_huge, one fault each. */
    const size_t huge = (size_t)2 << 20;
    const int big = words * sizeof(uint64_t) >= huge / 2;
    const size_t bytes = big ? (words * sizeof(uint64_t) + huge - 1) / huge * huge + huge
                             : words * sizeof(uint64_t);
    uint64_t *block = cg__calloc(bytes, 1), *r = block;
    if (block && big) {
        r = (uint64_t *)(((uintptr_t)block + huge - 1) & ~(uintptr_t)(huge - 1));
        cg__mem_advise_huge(r, bytes - (size_t)((char *)r - (char *)block));
    }
    wstack s = {cg__malloc(256 * sizeof(uint32_t)), 0, 256};
    if (!block || !s.v) {
        cg__free(block);
        cg__free(s.v);
        return CG_ENOMEM;
    }
    const size_t p = (size_t)(y + CG__PAD) * g->stride + 1 + (x >> 6);
    r[p] = UINT64_C(1) << (x & 63);
    s.v[s.n++] = (uint32_t)p;
    const uint64_t added = flood(g->mem, r, g->stride, &s);
    cg__free(s.v);
    if (added == UINT64_MAX) {
        cg__free(block);
        return CG_ENOMEM;
    }
    *out = (cg__region_map){block, r, added + 1};
    return CG_OK;
}

int cg__floor_main_region(const cg_grid *g, cg__region_map *out)
{
    *out = (cg__region_map){0};
    uint32_t x, y;
    if ((uint64_t)g->w * g->h > RECON_MAX_CELLS || !pick_seed(g, &x, &y))
        return 0;
    return cg__floor_region_of(g, x, y, out) == CG_OK;
}

void cg__floor_region_walls(cg_grid *g, const uint64_t *rec, int wall)
{
    for (uint32_t y = 0; y < g->h; y++) {
        uint64_t *row = cg__row(g, y);
        const uint64_t *r = rec + (size_t)(y + CG__PAD) * g->stride + 1;
        if (wall)
            for (size_t i = 0; i < g->nw; i++)
                row[i] |= r[i];
        else
            for (size_t i = 0; i < g->nw; i++)
                row[i] &= ~r[i];
    }
}

void cg__floor_region_only(cg_grid *g, const uint64_t *rec)
{
    for (uint32_t y = 0; y < g->h; y++) {
        uint64_t *row = cg__row(g, y);
        const uint64_t *r = rec + (size_t)(y + CG__PAD) * g->stride + 1;
        for (size_t i = 0; i < g->nw; i++)
            row[i] = ~r[i]; /* the bits past the map stay wall: never in R */
    }
}

int cg__keep_main_region(cg_grid *g)
{
    cg__region_map m;
    if (!cg__floor_main_region(g, &m))
        return 0;
    const uint64_t *rec = m.rec, cells = m.cells;
    const uint64_t total = cg_grid_floor_count(g);
    const int main = cells > total - cells;
    if (main && cells < total) {
        cg__floor_region_only(g, rec);
        cg__grid_prune_marks(g);
    }
    cg__region_map_free(&m);
    return main;
}

int cg__remove_floor_main(cg_grid *g, uint64_t min, const struct cg__par *par, cg__rest_fn rest,
                          cg_status *st)
{
    cg__region_map m;
    if (min <= 1 || !cg__floor_main_region(g, &m))
        return 0;
    const uint64_t *rec = m.rec, cells = m.cells;
    if (cells < min) {
        cg__region_map_free(&m);
        return 0;
    }
    *st = CG_OK;
    const uint64_t total = cg_grid_floor_count(g);
    if (cells < total) {
        /* The markers are set aside so that rest's pruning keeps those on
         * the region; pruned after, when something went. */
        const size_t nmarks = g->nmarks;
        g->nmarks = 0;
        cg__floor_region_walls(g, rec, 1);
        *st = rest(g, min, par);
        cg__floor_region_walls(g, rec, 0);
        g->nmarks = nmarks;
        if (cg_grid_floor_count(g) < total)
            cg__grid_prune_marks(g);
    }
    cg__region_map_free(&m);
    return 1;
}
