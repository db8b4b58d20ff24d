/* regions/voronoi.c - connect's search (docs/regions.md): the minimum
 * spanning tree over the regions from the discrete Voronoi diagram of a
 * breadth-first search out of all the floor (Mehlhorn's lemma), Kruskal's
 * algorithm run while the search goes - the method of regions/connect.c's
 * header, with the same layers, owners, tie rules and edge order, so the
 * same corridors. What differs is how the work is laid out:
 *
 *  - Layer 0 without a list of every run: the labelling gives each region's
 *    first cell, and only the regions other than the largest are flooded
 *    over runs from there (work in proportion to their floor); their runs
 *    are put in scan order by a radix sort. (Where floor runs are short on
 *    average - noise, no dominant region - the labelling's list of every
 *    run is kept instead.)
 *  - A layer is computed row by row, and the owners and edges of a row are
 *    found as soon as the rows around it are known, while they are still
 *    in the cache: one pass over the front per layer instead of three.
 *  - No bitboard of reached cells: a neighbour of a cell of layer k - 1 is
 *    in layer k - 2, k - 1 or k (the distance changes by at most one per
 *    step), so layer k is the dilation of layer k - 1 minus layers k - 1
 *    and k - 2 - and the buffer layer k is written into still holds layer
 *    k - 2 until each word is overwritten.
 *  - Ownership by the largest region needs only the fronts: a cell of
 *    layer k joins it when a neighbour in layer k - 1 is its (the older
 *    territory has no neighbour left unreached).
 *  - The search stops in the middle of a layer when one region is left,
 *    and once the regions not yet joined are few, the layers left are
 *    computed only in a window around them, from a proven bound on the
 *    layer each is joined by (plan_window).
 *  - The corridors are carved once the search is over, in the order taken
 *    (the map is not read meanwhile but to find a corridor's end in the
 *    largest region: its floor is the map's floor outside the small
 *    regions' runs - no bitboard of its own).
 *  - Owners, and the edges looked for only where one can be taken: see
 *    meet_word. In layer 1 a word whose small neighbours of layer 0 are
 *    all of one region has its owners placed with one lookup (uniform_reg).
 *  - The bitboards and the large lists start on huge pages (cg__huge_align).
 *
 * Which words of a row to compute: a per-row bitmask of the front's
 * nonzero words, dilated by one word and one row, so a sparse front costs
 * in proportion to its words and a dense one streams the rows. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/grid.h"
#include "core/mem.h"
#include "regions/connect.h"
#include "regions/regions.h"

/* The AVX2 and AVX-512 copies of a layer's dense rows (grow_span_avx2,
 * grow_span_avx512): x86-64 only (64-bit popcounts of lanes). */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define GROW_X86 1
#endif

#define INLINE static inline __attribute__((always_inline))
#define NONE CG__NONE
#define BIG CG__BIG

typedef cg__end end;

/* A cell of the front owned by a region other than the largest: its region
 * and the floor cell it was reached from (a nearest one). */
typedef struct fcell {
    uint32_t reg, src;
} fcell;

typedef struct edge {
    end a, b;
} edge;

/* A floor run of a region other than the largest: cells key .. key+len-1
 * (key = y * w + x0). */
typedef struct srun {
    uint32_t key, len, reg;
} srun;

/* A word of layer k needing per-cell work: its cells of small territories,
 * and its largest-region cells beside small cells of layer k - 1. */
typedef struct work {
    uint64_t s, xb;
    uint32_t at, y;
} work;

typedef struct vec {
    void *p;
    void *block; /* the allocation p is in (a large list's: vec_grow), or NULL: p is */
    size_t n, cap, elem;
    int small_pages; /* reserved far beyond its use: no huge pages */
} vec;

/* Lists get huge pages (cg__mem_advise_huge) from HUGE_LIST bytes on, but
 * for one reserved far beyond what it holds (the floods' stack: room for
 * as many spans as cells, a flood's depth used - a few kilobytes on a cave
 * map): its first touch would have the system clear a whole huge page. */
#define HUGE_LIST ((size_t)4 << 20)

/* Only the whole 2 MiB pages of a block can be huge, and the large lists
 * and the bitboards are written from their start: from malloc's address
 * the first megabyte or so would be 4 KB pages, each a page fault (about
 * 11 us each on the virtual machine the figures in docs/regions.md come
 * from, against 0.12 ms for a whole huge page). So they start on a 2 MiB
 * boundary (cg__huge_align, cg__malloc_huge in core/mem.h).
 *
 * The bitboards' block of bytes (not cleared), from HUGE_LIST bytes on
 * starting on a 2 MiB boundary and advised onto huge pages; *block gets the
 * allocation to free. It is rounded up to whole huge pages, plus one for
 * the alignment: address space, only touched if used, but counted by the
 * memory budget. */
static void *huge_block(size_t bytes, void **block)
{
    *block = NULL;
    if (bytes < HUGE_LIST) { /* a small map's: as it comes */
        void *p = cg__malloc(bytes ? bytes : 1);
        *block = p;
        return p;
    }
    return cg__malloc_huge(bytes, block);
}

INLINE void vec_free(vec *v)
{
    cg__free(v->block ? v->block : v->p);
    v->p = v->block = NULL;
}

static cg_status vec_grow(vec *v, size_t more)
{
    size_t cap = v->cap ? v->cap : 1024;
    while (cap < v->n + more) {
        if (cap > SIZE_MAX / 2 / v->elem)
            return CG_EOVERFLOW;
        cap *= 2;
    }
    /* The fronts' cells, the runs: reserved up front, on huge pages from
     * their start - the block's first 2 MiB boundary, where the room after
     * it is enough (the room is a power of two of the elements, so it
     * mostly is): no more bytes than the list asks for. */
    const size_t bytes = cap * v->elem;
    if (bytes >= HUGE_LIST && !v->small_pages) {
        char *raw = cg__malloc(bytes), *p = raw;
        if (!raw)
            return CG_ENOMEM;
        size_t room = cap;
        if ((size_t)(raw + bytes - cg__huge_align(raw)) / v->elem >= v->n + more) {
            p = cg__huge_align(raw);
            room = (size_t)(raw + bytes - p) / v->elem;
        }
        cg__mem_advise_huge(p, (size_t)(raw + bytes - p));
        if (v->n)
            memcpy(p, v->p, v->n * v->elem);
        vec_free(v);
        v->p = p;
        v->block = raw;
        v->cap = room;
        return CG_OK;
    }
    void *p = cg__realloc(v->p, cap * v->elem);
    if (!p)
        return CG_ENOMEM;
    v->p = p;
    v->cap = cap;
    return CG_OK;
}

INLINE cg_status vec_reserve(vec *v, size_t more)
{
    return v->n + more <= v->cap ? CG_OK : vec_grow(v, more);
}

/* Bitboards are framed: a zero word each side of a row, a zero row above
 * and below, so a word's 4-neighbourhood is read without a test. Word i of
 * row y is at (y + 1) * stride + i + 1. Row masks are framed by a zero row
 * above and below: row y's is at (y + 1) * ncw. */
typedef struct search {
    cg__kruskal k;
    uint32_t w, h;
    size_t nw, stride, ncw;
    uint64_t last;          /* in-map bits of a row's last word */
    void *boards;           /* the block holding f0, f1 and terr (huge_block) */
    uint64_t *f0, *f1;      /* layer k - 1; layer k (layer k - 2 until overwritten) */
    uint64_t *terr;         /* the largest region's territory, all layers so far: its cells
                               of a layer are that layer's bitboard & terr */
    uint64_t *out_up, *out; /* per word of the row above, of this row: small cells of layer k
                               whose region was outside the largest's component */
    uint8_t *inbig;         /* per region: known to be joined to the largest */
    uint64_t *mixed; /* per word of the map (y * nw + i), a bit: its small cells of layer 0
                        are of more than one region (layer 1's lookups, uniform_reg) */
    uint32_t nid;           /* the regions other than the largest: 1 .. nid */
    uint32_t *odd_big;      /* per region: the last layer it had an odd edge with the largest */
    uint32_t met_row;       /* the row out[] is of */
    vec out0, out1;         /* per small cell of layer k - 1, k (by rank): the out[] bit */
    /* Per word: the small cells of its layer before it, for a few rows: of
     * layer k - 1 (row r at slots (r + 1) % 4 and that + 4, so three rows
     * in a row are together), of layer k (slot (r + 1) % 4). Word (r, i)
     * of the rows around row y is at its framed index minus off. */
    uint32_t *pre0, *pre1;
    size_t off;
    uint8_t row_out[4];             /* per slot of pre0: a small cell of the row had the out bit */
    uint64_t *m0, *m1;              /* per row: the nonzero words of f0, f1 */
    uint64_t *s0, *s1;              /* per row: the words of f0, f1 with small cells */
    uint32_t *rows0, *rows1, *rows; /* rows with front in f0, f1; rows to compute */
    size_t nrows0, nrows1;
    vec cells0, cells1; /* fcell per small cell of layer k - 1, k, in scan order */
    vec work;           /* words of layer k needing per-cell work, in scan order */
    vec odd;            /* edges of weight 2k + 1 */
    vec runs;           /* srun of the small regions' floor */
    size_t *run_row;    /* per row (and one more): its first run */
    vec stack;          /* the flood fill's runs to visit */
    /* The window (plan_window): per row, framed like m0, the words the
     * layers after it compute; NULL while every word is. It is good up to
     * layer win_last; past it the search is run again without one. */
    uint64_t *win;
    uint32_t win_last;
    uint32_t win_nout; /* the regions of O when it was planned */
    uint32_t *kr;      /* per region of O then: the layer it is joined by */
    vec orun;          /* the runs of O then (indices in runs) */
    int window;     /* a window may be planned */
    int win_failed; /* the window's bound did not hold: run again */
    /* The copy of grow_span for the kernel path (AVX2, AVX-512), or NULL:
     * the portable one, inlined. */
    uint64_t (*grow)(struct search *c, uint32_t y, size_t i0, size_t cnt, uint32_t *small,
                     uint64_t *has_small);
} search;

INLINE size_t at_of(const search *c, uint32_t y, size_t i)
{
    return ((size_t)y + 1) * c->stride + i + 1;
}

INLINE uint64_t in_map(const search *c, size_t i)
{
    return i + 1 == c->nw ? c->last : ~UINT64_C(0);
}

/* The 4-neighbour dilation of a word from itself and its neighbours. */
INLINE uint64_t dilate(uint64_t w0, uint64_t wl, uint64_t wr, uint64_t wu, uint64_t wd)
{
    return w0 | (w0 << 1) | (w0 >> 1) | (wl >> 63) | (wr << 63) | wu | wd;
}

INLINE uint32_t rank_in(const uint32_t *pre, size_t wi, uint64_t mask, unsigned b)
{
    return pre[wi] + (uint32_t)__builtin_popcountll(mask & ((UINT64_C(1) << b) - 1));
}

/* ----------------------------------------------------------- layer 0 */

/* The first cell at or before x of x's run of set bits in a framed row. */
static uint32_t run_start(const uint64_t *row, uint32_t x)
{
    int64_t wi = x >> 6;
    uint64_t z = ~row[wi] & ((UINT64_C(1) << (x & 63)) - 1);
    while (!z)
        z = ~row[--wi]; /* the frame word (wi = -1) is zero */
    return (uint32_t)(wi * 64 + 64 - __builtin_clzll(z));
}

/* The cell after x's run of set bits in a framed row. */
static uint32_t run_end(const uint64_t *row, uint32_t x)
{
    size_t wi = x >> 6;
    uint64_t z = ~row[wi] & (~UINT64_C(0) << (x & 63));
    while (!z)
        z = ~row[++wi]; /* the frame word after the row is zero */
    return (uint32_t)(wi * 64 + (size_t)__builtin_ctzll(z));
}

typedef struct span {
    uint32_t y, x0, x1;
} span;

/* Takes x's floor run of row y into region reg: off terr, onto the lists. */
static cg_status take_run(search *c, uint32_t y, uint32_t x, uint32_t reg, uint32_t *x1)
{
    const uint64_t *f = c->f0 + at_of(c, y, 0);
    const uint32_t a = run_start(f, x), b = run_end(f, x);
    cg_status st;
    if ((st = vec_reserve(&c->runs, 1)) != CG_OK || (st = vec_reserve(&c->stack, 1)) != CG_OK)
        return st;
    uint64_t *g = c->terr + at_of(c, y, 0);
    for (uint32_t from = a; from < b;) { /* off terr, a word at a time */
        const uint32_t to = (from | 63) + 1 < b ? (from | 63) + 1 : b;
        const uint64_t hi = to & 63 ? (UINT64_C(1) << (to & 63)) - 1 : ~UINT64_C(0);
        g[from >> 6] &= ~(hi & (~UINT64_C(0) << (from & 63)));
        from = to;
    }
    ((srun *)c->runs.p)[c->runs.n++] = (srun){y * c->w + a, b - a, reg};
    ((span *)c->stack.p)[c->stack.n++] = (span){y, a, b};
    *x1 = b;
    return CG_OK;
}

/* A scanline flood fill over runs of the region whose first cell is (x, y):
 * the cells still on terr beside a run's are its region's. */
static cg_status flood(search *c, uint32_t x, uint32_t y, uint32_t reg)
{
    uint32_t b;
    cg_status st = take_run(c, y, x, reg, &b);
    while (st == CG_OK && c->stack.n) {
        const span r = ((span *)c->stack.p)[--c->stack.n];
        for (int dy = -1; dy <= 1 && st == CG_OK; dy += 2) {
            if ((dy < 0 && r.y == 0) || (dy > 0 && r.y + 1 >= c->h))
                continue;
            const uint32_t ny = (uint32_t)((int64_t)r.y + dy);
            const uint64_t *gr = c->terr + at_of(c, ny, 0);
            uint32_t xx = r.x0;
            while (xx < r.x1 && st == CG_OK) {
                const size_t wi = xx >> 6;
                uint64_t m = gr[wi] & (~UINT64_C(0) << (xx & 63));
                if (r.x1 < wi * 64 + 64)
                    m &= (UINT64_C(1) << (r.x1 & 63)) - 1;
                if (!m) {
                    xx = (uint32_t)(wi * 64 + 64);
                    continue;
                }
                st = take_run(c, ny, (uint32_t)(wi * 64 + (size_t)__builtin_ctzll(m)), reg, &xx);
            }
        }
    }
    return st;
}

/* The small regions' runs in scan order: least significant digit radix
 * sort on the key, 12 bits a pass, as many passes as the keys need; every
 * digit's counts from one read of the runs.
 *
 * The second buffer is the list's own room past its runs where it has
 * room for as many again (it was reserved for a run per cell, so on a cave
 * it has): those pages are on the list's huge pages, and a fresh buffer's
 * first touch - a page fault per 4 KB on a 1.7 MB buffer on the 4096x4096
 * bench map - cost more than the passes. */
#define DIGIT 12
#define DIGITS 3 /* keys are under 2^32 (the map's cells) */
static cg_status sort_runs(search *c)
{
    const size_t n = c->runs.n;
    const uint64_t max = (uint64_t)c->w * c->h;
    const uint32_t mask = (1u << DIGIT) - 1;
    unsigned passes = 0;
    while (passes < DIGITS && (max >> (passes * DIGIT)))
        passes++;
    if (n < 2)
        return CG_OK;
    srun *const base = c->runs.p, *a = base, *b = NULL;
    const int own = c->runs.cap - n >= n;
    if (own)
        b = base + n;
    else if ((b = cg__malloc(n * sizeof *b)) != NULL && n * sizeof *b >= HUGE_LIST)
        cg__mem_advise_huge(b, n * sizeof *b);
    size_t *count = cg__calloc(DIGITS * ((size_t)mask + 2), sizeof *count);
    if (!b || !count) {
        if (!own)
            cg__free(b);
        cg__free(count);
        return CG_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned p = 0; p < passes; p++)
            count[p * ((size_t)mask + 2) + ((a[i].key >> (p * DIGIT)) & mask) + 1]++;
    for (unsigned p = 0; p < passes; p++) {
        size_t *cnt = count + p * ((size_t)mask + 2);
        const unsigned shift = p * DIGIT;
        for (uint32_t d = 0; d <= mask; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            b[cnt[(a[i].key >> shift) & mask]++] = a[i];
        srun *t = a;
        a = b;
        b = t;
    }
    if (a != base) /* an odd number of passes: back into the list */
        memcpy(base, a, n * sizeof *a);
    if (!own)
        cg__free(a != base ? a : b);
    cg__free(count);
    return CG_OK;
}

/* Layer 0: all floor. The largest region's floor is on terr; the
 * others' cells get ids 1..R-1 (in scan order of their first cells) and go
 * to the dense array in scan order. */
/* Labelling hook for a map without a dominant region: keeps every run
 * (raw label in reg), in scan order. Room was made for them. */
static void keep_runs(void *ctx, uint32_t y, const uint32_t *x0, const uint32_t *x1,
                      const uint32_t *label, size_t n)
{
    search *c = ctx;
    if (c->runs.n + n > c->runs.cap) {
        c->k.oom = 1; /* not reached: a run has a cell */
        return;
    }
    srun *r = (srun *)c->runs.p + c->runs.n;
    for (size_t j = 0; j < n; j++)
        r[j] = (srun){y * c->w + x0[j], x1[j] - x0[j], label[j]};
    c->runs.n += n;
}

/* The small regions' runs from the labelling's list of every run: the
 * largest region's dropped, the others' off terr, with their ids. */
static cg_status small_runs(search *c, const cg__labeller *lb, uint32_t largest)
{
    uint32_t *id = cg__malloc((lb->n ? lb->n : 1) * sizeof *id), nid = 0;
    if (!id)
        return CG_ENOMEM;
    for (size_t l = 0; l < lb->n; l++)
        if (lb->parent[l] == l)
            id[l] = l == largest ? BIG : ++nid;
    srun *r = c->runs.p;
    size_t n = 0;
    for (size_t j = 0; j < c->runs.n; j++) {
        const uint32_t reg = id[lb->parent[r[j].reg]];
        if (reg == BIG)
            continue;
        const uint32_t y = r[j].key / c->w, x = r[j].key % c->w;
        cg__set_span(c->terr + at_of(c, y, 0), x, x + r[j].len, 0);
        r[n++] = (srun){r[j].key, r[j].len, reg};
    }
    c->runs.n = n;
    cg__free(id);
    return CG_OK;
}

static cg_status layer0(search *c, const cg__labeller *lb, uint32_t largest, int by_runs)
{
    cg_status st;
    for (uint32_t y = 0; y < c->h; y++) {
        const uint64_t *gr = cg__row(c->k.g, y);
        const size_t at = at_of(c, y, 0);
        uint64_t *m = c->m0 + ((size_t)y + 1) * c->ncw, any = 0;
        for (size_t i = 0; i < c->nw; i++) {
            const uint64_t floor = ~gr[i] & in_map(c, i);
            c->f0[at + i] = c->terr[at + i] = floor;
            m[i >> 6] |= (uint64_t)(floor != 0) << (i & 63);
            any |= floor;
        }
        if (any)
            c->rows0[c->nrows0++] = y;
    }
    uint32_t nid = 0;
    uint64_t small_n = 0; /* cells of the small regions */
    for (size_t l = 0; l < lb->n; l++)
        if (lb->parent[l] == l && l != largest) {
            nid++;
            small_n += lb->size[l];
        }
    c->k.uf = cg__malloc(((size_t)nid + 1) * sizeof *c->k.uf);
    if (!c->k.uf)
        return CG_ENOMEM;
    for (uint32_t r = 0; r <= nid; r++)
        c->k.uf[r] = r;
    c->k.regions = (uint64_t)nid + 1;
    c->nid = nid;
    c->inbig = cg__calloc((size_t)nid + 1, 1);
    c->odd_big = cg__calloc((size_t)nid + 1, sizeof *c->odd_big);
    if (!c->inbig || !c->odd_big)
        return CG_ENOMEM;
    c->inbig[BIG] = 1;
    if (by_runs) {
        if ((st = small_runs(c, lb, largest)) != CG_OK)
            return st;
    } else {
        c->runs.elem = sizeof(srun);
        c->stack.elem = sizeof(span);
        c->stack.small_pages = 1;
        /* Room for as many runs as cells at once (pages never written cost
         * nothing): growing the lists as the floods go would copy them. */
        if (small_n > SIZE_MAX / sizeof(srun) || vec_reserve(&c->runs, (size_t)small_n) ||
            vec_reserve(&c->stack, (size_t)small_n))
            return CG_ENOMEM;
        nid = 0;
        for (size_t l = 0; l < lb->n; l++) {
            if (lb->parent[l] != l || l == largest)
                continue;
            uint32_t x, y;
            cg__label_first(lb, (uint32_t)l, &x, &y);
            if ((st = flood(c, x, y, ++nid)) != CG_OK)
                return st;
        }
        vec_free(&c->stack);
        if ((st = sort_runs(c)) != CG_OK)
            return st;
    }
    /* The small cells, and each word's first. */
    const srun *r = c->runs.p;
    c->cells0.elem = sizeof(uint32_t);
    if (small_n > SIZE_MAX / sizeof(uint32_t) || (st = vec_reserve(&c->cells0, (size_t)small_n)))
        return CG_ENOMEM;
    uint32_t *cell = c->cells0.p;
    uint32_t count = 0;
    const size_t nbits = (size_t)c->h * c->nw;
    c->mixed = cg__calloc(nbits / 64 + 1, sizeof *c->mixed);
    if (!c->mixed)
        return CG_ENOMEM;
    /* One pass over the runs, row by row (no division per run): the small
     * cells' regions, each row's first run (run_at), the words with small
     * cells (s0), and the mixed words - a word's runs are next to each
     * other in scan order, so it is mixed when two of them in a row are of
     * different regions. */
    c->run_row = cg__malloc(((size_t)c->h + 1) * sizeof *c->run_row);
    if (!c->run_row)
        return CG_ENOMEM;
    size_t j = 0;
    for (uint32_t y = 0; y < c->h; y++) {
        c->run_row[y] = j;
        const uint32_t row0 = y * c->w, row1 = row0 + c->w; /* w * h fits: voronoi */
        const size_t words = (size_t)y * c->nw;
        uint64_t *sm = c->s0 + ((size_t)y + 1) * c->ncw; /* the row's words with small cells */
        size_t last_word = SIZE_MAX;
        uint32_t last_reg = NONE;
        for (; j < c->runs.n && r[j].key < row1; j++) {
            const uint32_t x = r[j].key - row0;
            const size_t wa = words + (x >> 6);
            if (wa == last_word && r[j].reg != last_reg)
                c->mixed[wa >> 6] |= UINT64_C(1) << (wa & 63);
            last_word = words + ((x + r[j].len - 1) >> 6);
            last_reg = r[j].reg;
            for (size_t i = x >> 6; i <= last_word - words; i++)
                sm[i >> 6] |= UINT64_C(1) << (i & 63);
            for (uint32_t e = count + r[j].len; count < e;)
                cell[count++] = r[j].reg;
        }
    }
    c->run_row[c->h] = j;
    c->cells0.n = count;
    return CG_OK;
}

/* The run of row y holding the cell key (y * w + x): its index, or
 * SIZE_MAX when the cell is in none of the small regions' runs (rock or the
 * largest region's floor). */
static size_t run_at(const search *c, uint32_t y, uint32_t key)
{
    const srun *r = c->runs.p;
    /* Runs before lo start at or before key; from hi, after. */
    size_t lo = c->run_row[y], hi = c->run_row[y + 1];
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (r[mid].key <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > c->run_row[y] && key < r[lo - 1].key + r[lo - 1].len ? lo - 1 : SIZE_MAX;
}

/* Whether (x, y), a floor cell, is the largest region's: on terr. terr
 * is the floor less the small regions' runs after layer 0, and the cells
 * the layers add to it are rock, so its floor cells are exactly the
 * largest region's. */
INLINE int on_terr(const search *c, uint32_t x, uint32_t y)
{
    return (int)((c->terr[at_of(c, y, x >> 6)] >> (x & 63)) & 1);
}

/* The region whose floor (x, y) is: NONE for rock, BIG for the largest. */
static uint32_t floor_reg(const search *c, uint32_t x, uint32_t y)
{
    if (!cg__is_floor(c->k.g, x, y))
        return NONE;
    if (on_terr(c, x, y))
        return BIG;
    const size_t i = run_at(c, y, y * c->w + x);
    return i == SIZE_MAX ? BIG : ((const srun *)c->runs.p)[i].reg;
}

/* Whether (x, y) is the largest region's floor: floor on the map (not
 * carved yet: the corridors wait until the search is over) and on terr.
 * Only asked when a corridor's end in the largest region is looked for. */
static int big_at(const cg__kruskal *k, int64_t x, int64_t y)
{
    const search *c = k->ctx;
    /* terr first: it is on huge pages, the map's rows may not be. */
    return on_terr(c, (uint32_t)x, (uint32_t)y) && cg__is_floor(k->g, x, y);
}

/* ------------------------------------------------------------- layers */

/* The odd edges of a layer, in the order they were found. */
static void take_edges(search *c)
{
    const edge *e = c->odd.p;
    for (size_t i = 0; i < c->odd.n && c->k.regions > 1; i++)
        cg__connect_take(&c->k, &e[i].a, &e[i].b);
}

/* An edge of weight 2k + 1, kept for the end of layer k unless its regions
 * are already joined (then it can never be taken). The list has room. */
INLINE void add_odd(search *c, end a, end b)
{
    if (!cg__joined(&c->k, a.reg, b.reg))
        ((edge *)c->odd.p)[c->odd.n++] = (edge){a, b};
}

/* The odd edge of layer from.dist from a cell (bit b of its word) to the
 * largest region's floor beside it: above, left, right or below, the first
 * of those that is (bu, bleft, bright: that floor's words shifted onto the
 * cell's). */
INLINE void add_odd_big(search *c, end from, uint64_t bu, uint64_t bleft, uint64_t bright,
                        unsigned b, uint32_t w)
{
    const uint32_t to = (bu >> b) & 1       ? from.cell - w
                        : (bleft >> b) & 1  ? from.cell - 1
                        : (bright >> b) & 1 ? from.cell + 1
                                            : from.cell + w;
    add_odd(c, from, (end){BIG, to, from.dist, NONE});
}

/* An edge of weight 2k: nothing lighter is left, so it is taken at once. */
INLINE void add_even(search *c, end a, end b)
{
    if (!cg__joined(&c->k, a.reg, b.reg))
        cg__connect_take(&c->k, &a, &b);
}

/* Computes word (y, i) of layer k into f1 (over layer k - 2) and its
 * largest-region cells into terr; returns it. (terr's words around hold
 * cells of layer k already or not: & layer k - 1 drops them.) *small counts layer k's small cells;
 * the work list has room. */
INLINE uint64_t grow_word(search *c, uint32_t y, size_t i, uint32_t *small, uint64_t *has_small)
{
    const size_t at = at_of(c, y, i), s = c->stride;
    const uint64_t *f = c->f0, *g = c->terr;
    const uint64_t f0 = f[at], fl = f[at - 1], fr = f[at + 1], fu = f[at - s], fd = f[at + s];
    const uint64_t n = dilate(f0, fl, fr, fu, fd) & ~f0 & ~c->f1[at] & in_map(c, i);
    c->f1[at] = n;
    if (!n)
        return 0;
    const uint64_t g0 = f0 & g[at], gl = fl & g[at - 1], gr = fr & g[at + 1], gu = fu & g[at - s],
                   gd = fd & g[at + s];
    /* Ties go to the largest region: a cell beside its cells of layer k - 1
     * joins it. */
    const uint64_t b = n & dilate(g0, gl, gr, gu, gd), sm = n & ~b;
    const uint64_t xb = b & dilate(f0 & ~g0, fl & ~gl, fr & ~gr, fu & ~gu, fd & ~gd);
    c->terr[at] |= b;
    if (sm | xb)
        ((work *)c->work.p)[c->work.n++] = (work){sm, xb, (uint32_t)at, y};
    c->pre1[at - ((size_t)(y + 1) & ~(size_t)3) * s] = *small;
    *small += (uint32_t)__builtin_popcountll(sm);
    *has_small = sm != 0;
    return n;
}

/* Computes words i0 .. i0+cnt-1 (cnt <= 64) of row y of layer k, as
 * grow_word does, where the front is dense: no test per word, the work
 * list written through (it has room for one more word) and advanced only
 * where there is work. Returns the nonzero words. */
INLINE uint64_t grow_span(search *c, uint32_t y, size_t i0, size_t cnt, uint32_t *small,
                          uint64_t *has_small)
{
    const size_t s = c->stride, at0 = at_of(c, y, i0);
    /* The words left of word j through their own pointers (fml[j]), not as
     * fm[j - 1]: j - 1 wraps at j == 0. */
    const uint64_t *fm = c->f0 + at0, *fml = fm - 1, *fu = fm - s, *fd = fm + s;
    uint64_t *gm = c->terr + at0;
    const uint64_t *gml = gm - 1, *gu = gm - s, *gd = gm + s;
    uint64_t *f1 = c->f1 + at0;
    uint32_t *pre = c->pre1 + at0 - ((size_t)(y + 1) & ~(size_t)3) * s, count = *small;
    work *wk = (work *)c->work.p + c->work.n;
    size_t wn = 0;
    uint64_t nz = 0, hs = 0;
    const size_t lastj = i0 + cnt == c->nw ? cnt - 1 : SIZE_MAX;
    for (size_t j = 0; j < cnt; j++) {
        const uint64_t f0 = fm[j], fl = fml[j], fr = fm[j + 1], fuj = fu[j], fdj = fd[j];
        uint64_t n = dilate(f0, fl, fr, fuj, fdj) & ~f0 & ~f1[j];
        n &= j == lastj ? c->last : ~UINT64_C(0);
        const uint64_t tj = gm[j], g0 = f0 & tj, gl = fl & gml[j], gr = fr & gm[j + 1];
        const uint64_t guj = fuj & gu[j], gdj = fdj & gd[j];
        const uint64_t b = n & dilate(g0, gl, gr, guj, gdj), sm = n & ~b;
        const uint64_t xb = b & dilate(f0 & ~g0, fl & ~gl, fr & ~gr, fuj & ~guj, fdj & ~gdj);
        f1[j] = n;
        gm[j] = tj | b;
        pre[j] = count;
        count += (uint32_t)__builtin_popcountll(sm);
        wk[wn] = (work){sm, xb, (uint32_t)(at0 + j), y};
        wn += (sm | xb) != 0;
        nz |= (uint64_t)(n != 0) << j;
        hs |= (uint64_t)(sm != 0) << j;
    }
    *has_small = hs;
    c->work.n += wn;
    *small = count;
    return nz;
}

#if defined(GROW_X86)
/* grow_span four words at a time (AVX2): the layer's words, their largest-
 * region cells and the work masks as vectors; the counts, the work list and
 * the row masks lane by lane. Same words out as grow_span. */
#define AVX2_ATTR __attribute__((target("avx2,popcnt,bmi,bmi2")))

AVX2_ATTR static inline __m256i dilate4(__m256i w0, __m256i wl, __m256i wr, __m256i wu, __m256i wd)
{
    const __m256i h = _mm256_or_si256(_mm256_slli_epi64(w0, 1), _mm256_srli_epi64(w0, 1));
    const __m256i e = _mm256_or_si256(_mm256_srli_epi64(wl, 63), _mm256_slli_epi64(wr, 63));
    return _mm256_or_si256(_mm256_or_si256(w0, h), _mm256_or_si256(e, _mm256_or_si256(wu, wd)));
}

AVX2_ATTR static uint64_t grow_span_avx2(search *c, uint32_t y, size_t i0, size_t cnt,
                                         uint32_t *small, uint64_t *has_small)
{
    const size_t s = c->stride, at0 = at_of(c, y, i0);
    const uint64_t *fm = c->f0 + at0, *fu = fm - s, *fd = fm + s;
    uint64_t *gm = c->terr + at0;
    const uint64_t *gu = gm - s, *gd = gm + s;
    uint64_t *f1 = c->f1 + at0;
    uint32_t *pre = c->pre1 + at0 - ((size_t)(y + 1) & ~(size_t)3) * s, count = *small;
    work *wk = (work *)c->work.p + c->work.n;
    size_t wn = 0;
    uint64_t nz = 0, hs = 0;
    const size_t lastj = i0 + cnt == c->nw ? cnt - 1 : SIZE_MAX;
    /* Loads and stores through pointers of their own, at the word left of
     * j too (fm - 1 + j: never an index below zero). */
    const long long *lf = (const long long *)fm, *lfl = (const long long *)(fm - 1);
    const long long *lfr = (const long long *)(fm + 1), *lfu = (const long long *)fu,
                    *lfd = (const long long *)fd;
    const long long *lg = (const long long *)gm, *lgl = (const long long *)(gm - 1);
    const long long *lgr = (const long long *)(gm + 1), *lgu = (const long long *)gu,
                    *lgd = (const long long *)gd;
    for (size_t j = 0; j < cnt; j += 4) {
        const size_t left = cnt - j;
        /* Lanes past the span: masked off (never loaded or stored). */
        const __m256i lm = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(left < 4 ? left : 4)),
                                              _mm256_setr_epi64x(0, 1, 2, 3));
        const __m256i f0 = _mm256_maskload_epi64(lf + j, lm),
                      fl = _mm256_maskload_epi64(lfl + j, lm);
        const __m256i fr = _mm256_maskload_epi64(lfr + j, lm),
                      fuj = _mm256_maskload_epi64(lfu + j, lm);
        const __m256i fdj = _mm256_maskload_epi64(lfd + j, lm);
        const __m256i old = _mm256_maskload_epi64((const long long *)f1 + j, lm);
        __m256i n = _mm256_andnot_si256(_mm256_or_si256(f0, old), dilate4(f0, fl, fr, fuj, fdj));
        if (lastj - j < 4) {
            uint64_t keep[4] = {~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0)};
            keep[lastj - j] = c->last;
            n = _mm256_and_si256(n, _mm256_loadu_si256((const __m256i *)keep));
        }
        /* The largest region's cells of layer k - 1 (terr & layer k - 1). */
        const __m256i t0 = _mm256_maskload_epi64(lg + j, lm);
        const __m256i g0 = _mm256_and_si256(f0, t0);
        const __m256i gl = _mm256_and_si256(fl, _mm256_maskload_epi64(lgl + j, lm));
        const __m256i gr = _mm256_and_si256(fr, _mm256_maskload_epi64(lgr + j, lm));
        const __m256i guj = _mm256_and_si256(fuj, _mm256_maskload_epi64(lgu + j, lm));
        const __m256i gdj = _mm256_and_si256(fdj, _mm256_maskload_epi64(lgd + j, lm));
        const __m256i b = _mm256_and_si256(n, dilate4(g0, gl, gr, guj, gdj));
        const __m256i sm = _mm256_andnot_si256(b, n);
        const __m256i xb =
            _mm256_and_si256(b, dilate4(_mm256_andnot_si256(g0, f0), _mm256_andnot_si256(gl, fl),
                                        _mm256_andnot_si256(gr, fr), _mm256_andnot_si256(guj, fuj),
                                        _mm256_andnot_si256(gdj, fdj)));
        _mm256_maskstore_epi64((long long *)f1 + j, lm, n);
        _mm256_maskstore_epi64((long long *)gm + j, lm, _mm256_or_si256(t0, b));
        uint64_t vn[4], vs[4], vx[4];
        _mm256_storeu_si256((__m256i *)vn, n);
        _mm256_storeu_si256((__m256i *)vs, sm);
        _mm256_storeu_si256((__m256i *)vx, xb);
        const size_t lanes = left < 4 ? left : 4;
        for (size_t l = 0; l < lanes; l++) {
            pre[j + l] = count;
            count += (uint32_t)__builtin_popcountll(vs[l]);
            wk[wn] = (work){vs[l], vx[l], (uint32_t)(at0 + j + l), y};
            wn += (vs[l] | vx[l]) != 0;
            nz |= (uint64_t)(vn[l] != 0) << (j + l);
            hs |= (uint64_t)(vs[l] != 0) << (j + l);
        }
    }
    *has_small = hs;
    c->work.n += wn;
    *small = count;
    return nz;
}

/* grow_span eight words at a time (AVX-512 with VPOPCNTQ): the counts too
 * (a prefix sum over the lanes), the row masks as mask registers, the work
 * list written only for words with work. Same words out as grow_span. */
#define AVX512_ATTR                                                                                \
    __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx512vpopcntdq,popcnt,bmi,bmi2")))

AVX512_ATTR static inline __m512i dilate8(__m512i w0, __m512i wl, __m512i wr, __m512i wu,
                                          __m512i wd)
{
    const __m512i h = _mm512_or_si512(_mm512_slli_epi64(w0, 1), _mm512_srli_epi64(w0, 1));
    const __m512i e = _mm512_or_si512(_mm512_srli_epi64(wl, 63), _mm512_slli_epi64(wr, 63));
    return _mm512_or_si512(_mm512_or_si512(w0, h), _mm512_or_si512(e, _mm512_or_si512(wu, wd)));
}

AVX512_ATTR static uint64_t grow_span_avx512(search *c, uint32_t y, size_t i0, size_t cnt,
                                             uint32_t *small, uint64_t *has_small)
{
    const size_t s = c->stride, at0 = at_of(c, y, i0);
    const uint64_t *fm = c->f0 + at0, *fml = fm - 1, *fmr = fm + 1, *fu = fm - s, *fd = fm + s;
    uint64_t *gm = c->terr + at0;
    const uint64_t *gml = gm - 1, *gmr = gm + 1, *gu = gm - s, *gd = gm + s;
    uint64_t *f1 = c->f1 + at0;
    uint32_t *pre = c->pre1 + at0 - ((size_t)(y + 1) & ~(size_t)3) * s, count = *small;
    work *wk = (work *)c->work.p + c->work.n;
    size_t wn = 0;
    uint64_t nz = 0, hs = 0;
    const size_t lastj = i0 + cnt == c->nw ? cnt - 1 : SIZE_MAX;
    const __m512i zero = _mm512_setzero_si512();
    for (size_t j = 0; j < cnt; j += 8) {
        const size_t left = cnt - j;
        /* Lanes past the span: masked off (never loaded or stored). */
        const __mmask8 lm = (__mmask8)(left >= 8 ? 0xffu : (1u << left) - 1u);
        const __m512i f0 = _mm512_maskz_loadu_epi64(lm, fm + j);
        const __m512i fl = _mm512_maskz_loadu_epi64(lm, fml + j);
        const __m512i fr = _mm512_maskz_loadu_epi64(lm, fmr + j);
        const __m512i fuj = _mm512_maskz_loadu_epi64(lm, fu + j);
        const __m512i fdj = _mm512_maskz_loadu_epi64(lm, fd + j);
        const __m512i old = _mm512_maskz_loadu_epi64(lm, f1 + j);
        __m512i n = _mm512_andnot_si512(_mm512_or_si512(f0, old), dilate8(f0, fl, fr, fuj, fdj));
        if (lastj - j < 8)
            n = _mm512_mask_and_epi64(n, (__mmask8)(1u << (lastj - j)), n,
                                      _mm512_set1_epi64((long long)c->last));
        /* The largest region's cells of layer k - 1 (terr & layer k - 1). */
        const __m512i t0 = _mm512_maskz_loadu_epi64(lm, gm + j);
        const __m512i g0 = _mm512_and_si512(f0, t0);
        const __m512i gl = _mm512_and_si512(fl, _mm512_maskz_loadu_epi64(lm, gml + j));
        const __m512i gr = _mm512_and_si512(fr, _mm512_maskz_loadu_epi64(lm, gmr + j));
        const __m512i guj = _mm512_and_si512(fuj, _mm512_maskz_loadu_epi64(lm, gu + j));
        const __m512i gdj = _mm512_and_si512(fdj, _mm512_maskz_loadu_epi64(lm, gd + j));
        const __m512i b = _mm512_and_si512(n, dilate8(g0, gl, gr, guj, gdj));
        const __m512i sm = _mm512_andnot_si512(b, n);
        const __m512i xb =
            _mm512_and_si512(b, dilate8(_mm512_andnot_si512(g0, f0), _mm512_andnot_si512(gl, fl),
                                        _mm512_andnot_si512(gr, fr), _mm512_andnot_si512(guj, fuj),
                                        _mm512_andnot_si512(gdj, fdj)));
        _mm512_mask_storeu_epi64(f1 + j, lm, n);
        _mm512_mask_storeu_epi64(gm + j, lm, _mm512_or_si512(t0, b));
        /* Each word's count of small cells before it: an exclusive prefix
         * sum of the lanes' popcounts (masked-off lanes count 0). */
        const __m512i pc = _mm512_popcnt_epi64(sm);
        __m512i sum = _mm512_add_epi64(pc, _mm512_alignr_epi64(pc, zero, 7));
        sum = _mm512_add_epi64(sum, _mm512_alignr_epi64(sum, zero, 6));
        sum = _mm512_add_epi64(sum, _mm512_alignr_epi64(sum, zero, 4));
        const __m512i ex =
            _mm512_add_epi64(_mm512_sub_epi64(sum, pc), _mm512_set1_epi64((long long)count));
        _mm512_mask_cvtepi64_storeu_epi32(pre + j, lm, ex);
        count += (uint32_t)_mm512_reduce_add_epi64(pc);
        nz |= (uint64_t)_mm512_test_epi64_mask(n, n) << j;
        hs |= (uint64_t)_mm512_test_epi64_mask(sm, sm) << j;
        const __mmask8 wm =
            _mm512_test_epi64_mask(_mm512_or_si512(sm, xb), _mm512_or_si512(sm, xb));
        if (wm) {
            uint64_t vs[8], vx[8];
            _mm512_storeu_si512(vs, sm);
            _mm512_storeu_si512(vx, xb);
            for (unsigned m = wm; m; m &= m - 1) {
                const unsigned l = (unsigned)__builtin_ctz(m);
                wk[wn++] = (work){vs[l], vx[l], (uint32_t)(at0 + j + l), y};
            }
        }
    }
    *has_small = hs;
    c->work.n += wn;
    *small = count;
    return nz;
}
#endif

/* The small cell of layer k - 1 at bit b of word wi, whose small mask is m;
 * cell is its index. Layer 0 keeps only regions (first): a floor cell is its
 * own source. */
INLINE fcell prev_cell(const search *c, size_t wi, uint64_t m, unsigned b, uint32_t cell, int first)
{
    const uint32_t r = rank_in(c->pre0, wi - c->off, m, b);
    if (first)
        return (fcell){((const uint32_t *)c->cells0.p)[r], cell};
    return ((const fcell *)c->cells0.p)[r];
}

/* Layer k - 1's counts for row r (before any row after it is asked):
 * total is the small cells of the rows before. */
INLINE void fill_pre0(search *c, uint32_t r, uint32_t *total)
{
    const size_t s = c->stride, at = at_of(c, r, 0);
    uint32_t *p = c->pre0 + (size_t)((r + 1) & 3) * s + 1, *q = p + 4 * s;
    const uint64_t *m = c->s0 + ((size_t)r + 1) * c->ncw;
    uint32_t t = *total;
    for (size_t ci = 0; ci < c->ncw; ci++)
        for (uint64_t bits = m[ci]; bits; bits &= bits - 1) {
            const size_t i = ci * 64 + (size_t)__builtin_ctzll(bits);
            p[i] = q[i] = t;
            t += (uint32_t)__builtin_popcountll(c->f0[at + i] & ~c->terr[at + i]);
        }
    /* Whether any of the row's small cells (ranks *total .. t - 1) had the
     * out bit: if none around a word has, no lookup is needed there. */
    uint64_t any = 0;
    if (c->out0.n && t > *total) {
        const uint64_t *o = c->out0.p;
        const size_t a = *total, b = t;
        for (size_t wi = a >> 6; wi <= (b - 1) >> 6 && !any; wi++) {
            uint64_t v = o[wi];
            if (wi == a >> 6)
                v &= ~UINT64_C(0) << (a & 63);
            if (wi == (b - 1) >> 6 && (b & 63))
                v &= (UINT64_C(1) << (b & 63)) - 1;
            any = v;
        }
    }
    c->row_out[(r + 1) & 3] = any != 0;
    *total = t;
}

/* Whether any of the small cells of layer k - 1 in mask m of word wi had
 * its region outside the largest's component (their bits are out0's from
 * rank pre0[wi] on). */
INLINE uint64_t any_out(const search *c, size_t wi, uint64_t m)
{
    if (!m)
        return 0;
    const uint64_t *bits = c->out0.p;
    const uint32_t start = c->pre0[wi - c->off];
    const unsigned len = (unsigned)__builtin_popcountll(m), off = start & 63;
    uint64_t v = bits[start >> 6] >> off;
    if (off + len > 64)
        v |= bits[(start >> 6) + 1] << (64 - off);
    return len == 64 ? v : v & ((UINT64_C(1) << len) - 1);
}

/* Nonzero when a small cell of layer k - 1 in the word or its four
 * neighbour words had its region outside (all of layer 0's may be). */
#define NEAR_UNKNOWN UINT64_C(2)
INLINE uint64_t near_out(const search *c, uint32_t y, size_t at, uint64_t fu, uint64_t fd,
                         uint64_t f0, uint64_t fl, uint64_t fr, int first)
{
    const size_t s = c->stride;
    if (first)
        return 1;
    if (!(c->row_out[y & 3] | c->row_out[(y + 1) & 3] | c->row_out[(y + 2) & 3]))
        return 0; /* rows y - 1 .. y + 1 (slots of y, y + 1, y + 2) */
    return (any_out(c, at - s, fu) | any_out(c, at + s, fd) | any_out(c, at, f0) |
            any_out(c, at - 1, fl) | any_out(c, at + 1, fr)) != 0;
}

/* Layer 1: the one region of all the small cells of layer 0 in word (y, i)
 * (i framed: at_of's i + 1), in the words above and below it and in the
 * cells just left and right of it - or NONE when they are of more than one
 * (a word counts whole: not mixed) or there are none. Then every owner in
 * the word is that region and no two cells around make an edge: one lookup
 * for the word instead of a chain of them per cell. */
INLINE uint32_t uniform_reg(const search *c, size_t at, uint32_t y, size_t i, uint64_t fu,
                            uint64_t fd, uint64_t f0, uint64_t fl, uint64_t fr)
{
    const uint32_t *reg = c->cells0.p;
    const size_t s = c->stride, nw = c->nw, wi = (size_t)y * nw + i - 1;
    const uint64_t *mx = c->mixed;
    uint32_t r[5];
    int n = 0;
    if (f0) {
        if ((mx[wi >> 6] >> (wi & 63)) & 1)
            return NONE;
        r[n++] = reg[c->pre0[at - c->off]];
    }
    if (fu) {
        const size_t q = wi - nw;
        if ((mx[q >> 6] >> (q & 63)) & 1)
            return NONE;
        r[n++] = reg[c->pre0[at - s - c->off]];
    }
    if (fd) {
        const size_t q = wi + nw;
        if ((mx[q >> 6] >> (q & 63)) & 1)
            return NONE;
        r[n++] = reg[c->pre0[at + s - c->off]];
    }
    if (fl >> 63)
        r[n++] = reg[c->pre0[at - 1 - c->off] + (uint32_t)__builtin_popcountll(fl) - 1];
    if (fr & 1)
        r[n++] = reg[c->pre0[at + 1 - c->off]];
    if (!n)
        return NONE;
    for (int j = 1; j < n; j++)
        if (r[j] != r[0])
            return NONE;
    return r[0];
}

/* Whether region r is known to be joined to the largest: its root is 0
 * (uf_join keeps the smaller root, and the largest region is 0). Once
 * joined, always joined, so the answer is kept. */
INLINE uint64_t outside(search *c, uint32_t r)
{
    if (c->inbig[r])
        return 0;
    if (cg__uf_find(c->k.uf, r) != BIG)
        return 1;
    c->inbig[r] = 1;
    return 0;
}

/* The edges at a small cell of layer k at bit b: the order of
 * regions/connect.c's meet. */
INLINE void cell_edges(search *c, size_t at, uint32_t cell, unsigned b, uint32_t k,
                       const fcell *me_p, const uint64_t *mask, int first)
{
    const size_t s = c->stride;
    const uint32_t w = c->w;
    const uint64_t fu = mask[0], fleft = mask[1], fright = mask[2], fd = mask[3], f0 = mask[4],
                   fl = mask[5], fr = mask[6], bu = mask[7], bleft = mask[8], bright = mask[9],
                   bd = mask[10], nu = mask[11], nleft = mask[12];
    /* The neighbours in layer k - 1 after the first (which gave the owner,
     * me), in order: another region's is an edge. */
    const fcell me = *me_p;
    const end from = {me.reg, cell, k, me.src};
    int seen = 0;
    fcell nb;
    if ((fu >> b) & 1)
        seen = 1;
    if ((fleft >> b) & 1) {
        if (seen++) {
            nb = b ? prev_cell(c, at, f0, b - 1, cell - 1, first)
                   : prev_cell(c, at - 1, fl, 63, cell - 1, first);
            if (nb.reg != me.reg)
                add_even(c, from, (end){nb.reg, cell - 1, k - 1, nb.src});
        }
    }
    if ((fright >> b) & 1) {
        if (seen++) {
            nb = b < 63 ? prev_cell(c, at, f0, b + 1, cell + 1, first)
                        : prev_cell(c, at + 1, fr, 0, cell + 1, first);
            if (nb.reg != me.reg)
                add_even(c, from, (end){nb.reg, cell + 1, k - 1, nb.src});
        }
    }
    if ((fd >> b) & 1) {
        if (seen) {
            nb = prev_cell(c, at + s, fd, b, cell + w, first);
            if (nb.reg != me.reg)
                add_even(c, from, (end){nb.reg, cell + w, k - 1, nb.src});
        }
    }
    /* Layer k: the largest region's cells on any side - only the first
     * such edge of a region in a layer counts (a later one finds the two
     * joined, or not joined as the first did, and the first comes first) -
     * then small cells already placed (up, left). */
    const end mine = {me.reg, cell, k, me.src};
    if (((bu | bleft | bright | bd) >> b) & 1 && c->odd_big[me.reg] != k) {
        c->odd_big[me.reg] = k;
        if ((bu >> b) & 1)
            add_odd(c, mine, (end){BIG, cell - w, k, NONE});
        else if ((bleft >> b) & 1)
            add_odd(c, mine, (end){BIG, cell - 1, k, NONE});
        else if ((bright >> b) & 1)
            add_odd(c, mine, (end){BIG, cell + 1, k, NONE});
        else
            add_odd(c, mine, (end){BIG, cell + w, k, NONE});
    }
    if ((nu >> b) & 1) {
        const fcell *o = (const fcell *)c->cells1.p + rank_in(c->pre1, at - s - c->off, nu, b);
        if (o->reg != me.reg)
            add_odd(c, mine, (end){o->reg, cell - w, k, o->src});
    }
    if ((nleft >> b) & 1) {
        const fcell *o = me_p - 1; /* the small cell just before, in scan order */
        if (o->reg != me.reg)
            add_odd(c, mine, (end){o->reg, cell - 1, k, o->src});
    }
}

/* Owners of the small cells of a word of layer k and the Voronoi edges met
 * there, in the order of regions/connect.c's meet (owners do not depend on
 * edges, and a cell's edges only on owners before it).
 *
 * Edges only where one could be taken: an edge joins two regions not yet
 * joined, so one of them is outside the largest region's component. Each
 * small cell gets a bit saying its region was outside when the cell was
 * placed (joins are never undone): out[] for the rows being met, out1 by
 * rank for the layer after. If no small cell of layer k - 1 in the word or
 * the words around has the bit, every owner here is inside: owners are
 * placed without a test per cell - the cells whose first neighbour of
 * layer k - 1 (up, left, right, down) is up, then left, ... each a loop of
 * their own - and only cells beside an outside small cell of layer k (above,
 * left) are looked at for edges. Otherwise the word goes cell by cell,
 * owners and edges together. */
INLINE cg_status meet_word(search *c, const work *wk, uint32_t k, int first)
{
    const uint64_t *f = c->f0, *t = c->terr, *n = c->f1;
    const size_t s = c->stride, at = wk->at;
    const uint32_t w = c->w, y = wk->y;
    const uint32_t x0 = (uint32_t)((at - ((size_t)y + 1) * s - 1) * 64);
    cg_status st;
    /* Small cells of layer k - 1 around the word. */
    const uint64_t fu = f[at - s] & ~t[at - s], fd = f[at + s] & ~t[at + s];
    const uint64_t f0 = f[at] & ~t[at], fl = f[at - 1] & ~t[at - 1], fr = f[at + 1] & ~t[at + 1];
    const uint64_t fleft = (f0 << 1) | (fl >> 63), fright = (f0 >> 1) | (fr << 63);
    /* Layer k around the word: the largest region's cells, small cells. */
    const uint64_t bu = n[at - s] & t[at - s], bd = n[at + s] & t[at + s];
    const uint64_t b0 = n[at] & t[at], bl = n[at - 1] & t[at - 1], br = n[at + 1] & t[at + 1];
    const uint64_t bleft = (b0 << 1) | (bl >> 63), bright = (b0 >> 1) | (br << 63);
    const uint64_t nu = n[at - s] & ~bu, nl = n[at - 1] & ~bl;
    const uint64_t sm = wk->s, nleft = (sm << 1) | (nl >> 63);
    const size_t i = at - ((size_t)y + 1) * s; /* in out[], framed */
    c->off = (size_t)(y & ~UINT32_C(3)) * s;
    uint64_t near = NEAR_UNKNOWN;
    /* Layer 1: one region around the word (most words), or NONE. */
    const uint32_t one = first && (wk->s | wk->xb) ? uniform_reg(c, at, y, i, fu, fd, f0, fl, fr)
                                                   : NONE;
    if (y != c->met_row) { /* the bits of a row not just above are never read */
        uint64_t *row = c->out_up;
        c->out_up = c->out;
        c->out = row;
        c->met_row = y;
    }
    if (sm) {
        const size_t cnt = (size_t)__builtin_popcountll(sm);
        const size_t ow = (c->cells1.n + cnt + 63) / 64;
        if ((st = vec_reserve(&c->cells1, cnt)) != CG_OK ||
            (st = vec_reserve(&c->odd, 4 * cnt)) != CG_OK ||
            (ow > c->out1.n && (st = vec_reserve(&c->out1, ow - c->out1.n)) != CG_OK))
            return st;
        for (; c->out1.n < ow; c->out1.n++)
            ((uint64_t *)c->out1.p)[c->out1.n] = 0;
        fcell *base = (fcell *)c->cells1.p + c->cells1.n;
        c->cells1.n += cnt;
#define BELOW(b) ((UINT64_C(1) << (b)) - 1)
        const uint32_t cell0 = y * w + x0;
        const size_t r0 = (size_t)(base - (fcell *)c->cells1.p);
        near = near_out(c, y, at, fu, fd, f0, fl, fr, first);
        uint64_t mine = 0, packed = 0;
        if (one != NONE) {
            /* Layer 1 with one region R around: every owner is R (its
             * source the first neighbour of layer 0: up, left, right, down),
             * inside or outside alike, and no cell makes an even edge. The
             * odd edges as the loop below finds them, in its order: with
             * the largest region at the first cell beside it (if R has none
             * this layer yet), with a small cell above, with the small cell
             * just left (another region's only across the word's edge). */
            const uint64_t out = outside(c, one);
            const uint64_t all = cnt == 64 ? ~UINT64_C(0) : (UINT64_C(1) << cnt) - 1;
            mine = out ? sm : 0;
            packed = out ? all : 0;
            const uint64_t cu = sm & fu, cl = sm & fleft & ~fu, cr = sm & fright & ~(fu | fleft);
            const uint64_t cd = sm & ~(fu | fleft | fright);
#define PLACE1(cls, d)                                                                             \
    for (uint64_t m = (cls); m; m &= m - 1) {                                                      \
        const unsigned b = (unsigned)__builtin_ctzll(m);                                           \
        base[__builtin_popcountll(sm & BELOW(b))] = (fcell){one, cell0 + b + (d)};                 \
    }
            PLACE1(cu, -w)
            PLACE1(cl, -1u)
            PLACE1(cr, 1u)
            PLACE1(cd, w)
#undef PLACE1
            const uint64_t bany = bu | bleft | bright | bd;
            const uint64_t big1 = c->odd_big[one] != k ? sm & bany & -(sm & bany) : 0;
            for (uint64_t m = big1 | (sm & nu) | (sm & nleft & 1); m; m &= m - 1) {
                const unsigned b = (unsigned)__builtin_ctzll(m);
                const uint32_t cell = cell0 + b;
                const fcell *me = base + __builtin_popcountll(sm & BELOW(b));
                const end from = {one, cell, k, me->src};
                if ((big1 >> b) & 1) {
                    c->odd_big[one] = k;
                    add_odd_big(c, from, bu, bleft, bright, b, w);
                }
                if ((nu >> b) & 1) {
                    const fcell *o =
                        (const fcell *)c->cells1.p + rank_in(c->pre1, at - s - c->off, nu, b);
                    if (o->reg != one)
                        add_odd(c, from, (end){o->reg, cell - w, k, o->src});
                }
                if (!b && (nleft & 1) && me[-1].reg != one)
                    add_odd(c, from, (end){me[-1].reg, cell - 1, k, me[-1].src});
            }
        } else if (near) {
            /* A region around may be outside: cell by cell, owners and
             * edges together, in the order of regions/connect.c's meet. */
            const uint64_t bany = bu | bleft | bright | bd;
            unsigned q = 0;
            for (uint64_t m = sm; m; m &= m - 1, q++) {
                const unsigned b = (unsigned)__builtin_ctzll(m);
                const uint32_t cell = cell0 + b;
                fcell nb[4];
                uint32_t nc[4];
                int cnt4 = 0;
                if ((fu >> b) & 1) {
                    nb[cnt4] = prev_cell(c, at - s, fu, b, cell - w, first);
                    nc[cnt4++] = cell - w;
                }
                if ((fleft >> b) & 1) {
                    nb[cnt4] = b ? prev_cell(c, at, f0, b - 1, cell - 1, first)
                                 : prev_cell(c, at - 1, fl, 63, cell - 1, first);
                    nc[cnt4++] = cell - 1;
                }
                if ((fright >> b) & 1) {
                    nb[cnt4] = b < 63 ? prev_cell(c, at, f0, b + 1, cell + 1, first)
                                      : prev_cell(c, at + 1, fr, 0, cell + 1, first);
                    nc[cnt4++] = cell + 1;
                }
                if ((fd >> b) & 1) {
                    nb[cnt4] = prev_cell(c, at + s, fd, b, cell + w, first);
                    nc[cnt4++] = cell + w;
                }
                const fcell me = nb[0];
                base[q] = me;
                const uint64_t out = outside(c, me.reg);
                mine |= out << b;
                packed |= out << q;
                const end from = {me.reg, cell, k, me.src};
                for (int e = 1; e < cnt4; e++)
                    if (nb[e].reg != me.reg)
                        add_even(c, from, (end){nb[e].reg, nc[e], k - 1, nb[e].src});
                if ((bany >> b) & 1 && c->odd_big[me.reg] != k) {
                    c->odd_big[me.reg] = k;
                    add_odd_big(c, from, bu, bleft, bright, b, w);
                }
                if ((nu >> b) & 1) {
                    const fcell *o =
                        (const fcell *)c->cells1.p + rank_in(c->pre1, at - s - c->off, nu, b);
                    if (o->reg != me.reg)
                        add_odd(c, from, (end){o->reg, cell - w, k, o->src});
                }
                if ((nleft >> b) & 1) {
                    const fcell *o = base + q - 1; /* the small cell just before */
                    if (o->reg != me.reg)
                        add_odd(c, from, (end){o->reg, cell - 1, k, o->src});
                }
            }
        } else {
            /* Every region around is joined to the largest: owners by
             * first-neighbour class, edges only beside a small cell of this
             * layer (above, left) whose region is outside. */
            const uint64_t cu = sm & fu, cl = sm & fleft & ~fu, cr = sm & fright & ~(fu | fleft);
            const uint64_t cd = sm & ~(fu | fleft | fright);
#define PLACE(cls, src_expr)                                                                       \
    for (uint64_t m = (cls); m; m &= m - 1) {                                                      \
        const unsigned b = (unsigned)__builtin_ctzll(m);                                           \
        base[__builtin_popcountll(sm & BELOW(b))] = (src_expr);                                    \
    }
            PLACE(cu, prev_cell(c, at - s, fu, b, cell0 + b - w, first))
            PLACE(cl, b ? prev_cell(c, at, f0, b - 1, cell0 + b - 1, first)
                        : prev_cell(c, at - 1, fl, 63, cell0 - 1, first))
            PLACE(cr, b < 63 ? prev_cell(c, at, f0, b + 1, cell0 + b + 1, first)
                             : prev_cell(c, at + 1, fr, 0, cell0 + 64, first))
            PLACE(cd, prev_cell(c, at + s, fd, b, cell0 + b + w, first))
#undef PLACE
            const uint64_t look =
                sm & ((c->out_up[i] & nu) | (((c->out[i - 1] & nl) >> 63) & nleft));
            if (look) {
                const uint64_t mask[13] = {fu, fleft, fright, fd, f0, fl,   fr,
                                           bu, bleft, bright, bd, nu, nleft};
                for (uint64_t m = look; m; m &= m - 1) {
                    const unsigned b = (unsigned)__builtin_ctzll(m);
                    cell_edges(c, at, cell0 + b, b, k, base + __builtin_popcountll(sm & BELOW(b)),
                               mask, first);
                }
            }
        }
        c->out[i] = mine;
        if (packed) { /* the cells' bits by rank */
            uint64_t *ob = c->out1.p;
            ob[r0 >> 6] |= packed << (r0 & 63);
            if ((r0 & 63) + cnt > 64)
                ob[(r0 >> 6) + 1] |= packed >> (64 - (r0 & 63));
        }
    }
    /* The largest region's cells of layer k beside small cells of layer
     * k - 1: edges of weight 2k, seen from this side only. */
    uint64_t xb = wk->xb;
    if (xb && near == NEAR_UNKNOWN)
        near = near_out(c, y, at, fu, fd, f0, fl, fr, first);
    if (!near)
        xb = 0;
    if (xb && one != NONE) {
        /* Every edge here is with R: the first decides (taken or already
         * joined), the rest find the two joined. */
        const unsigned b = (unsigned)__builtin_ctzll(xb);
        const uint32_t cell = y * w + x0 + b;
        const uint32_t nb = (fu >> b) & 1       ? cell - w
                            : (fleft >> b) & 1  ? cell - 1
                            : (fright >> b) & 1 ? cell + 1
                                                : cell + w;
        add_even(c, (end){BIG, cell, k, NONE}, (end){one, nb, k - 1, nb});
        xb = 0;
    }
    for (uint64_t m = xb; m; m &= m - 1) {
        const unsigned b = (unsigned)__builtin_ctzll(m);
        const uint32_t x = x0 + b, cell = y * w + x;
        const end mine = {BIG, cell, k, NONE};
        fcell o;
        if ((fu >> b) & 1) {
            o = prev_cell(c, at - s, fu, b, cell - w, first);
            add_even(c, mine, (end){o.reg, cell - w, k - 1, o.src});
        }
        if ((fleft >> b) & 1) {
            o = b ? prev_cell(c, at, f0, b - 1, cell - 1, first)
                  : prev_cell(c, at - 1, fl, 63, cell - 1, first);
            add_even(c, mine, (end){o.reg, cell - 1, k - 1, o.src});
        }
        if ((fright >> b) & 1) {
            o = b < 63 ? prev_cell(c, at, f0, b + 1, cell + 1, first)
                       : prev_cell(c, at + 1, fr, 0, cell + 1, first);
            add_even(c, mine, (end){o.reg, cell + 1, k - 1, o.src});
        }
        if ((fd >> b) & 1) {
            o = prev_cell(c, at + s, fd, b, cell + w, first);
            add_even(c, mine, (end){o.reg, cell + w, k - 1, o.src});
        }
    }
#undef BELOW
    return CG_OK;
}

/* The rows to compute for layer k, increasing: those of layer k - 1 and
 * the rows beside them, and those still holding layer k - 2 (to clear). */
static size_t rows_of_layer(search *c)
{
    size_t n = 0, j = 0;
    int64_t last = -1;
    for (size_t q = 0; q < c->nrows0; q++) {
        for (int64_t y = (int64_t)c->rows0[q] - 1; y <= (int64_t)c->rows0[q] + 1; y++) {
            if (y <= last || y >= c->h)
                continue;
            if (y < 0)
                continue;
            while (j < c->nrows1 && c->rows1[j] < y)
                c->rows[n++] = c->rows1[j++];
            if (j < c->nrows1 && c->rows1[j] == y)
                j++;
            c->rows[n++] = (uint32_t)y;
            last = y;
        }
    }
    while (j < c->nrows1)
        c->rows[n++] = c->rows1[j++];
    return n;
}

/* Layer k's out bits again, once the layer's edges are taken: a region
 * joined to the largest since its cell was placed is inside for good (joins
 * are never undone), so more words of layer k + 1 take meet_word's path
 * without a test per cell. */
static void refresh_out(search *c)
{
    uint64_t *o = c->out1.p;
    const fcell *cell = c->cells1.p;
    for (size_t wi = 0; wi < c->out1.n; wi++) {
        uint64_t keep = o[wi];
        for (uint64_t m = keep; m; m &= m - 1) {
            const unsigned b = (unsigned)__builtin_ctzll(m);
            if (!outside(c, cell[wi * 64 + b].reg))
                keep &= ~(UINT64_C(1) << b);
        }
        o[wi] = keep;
    }
}

/* --------------------------------------------------------- the window
 *
 * Once the regions outside the largest region's component are few, most
 * of a layer is waste: the largest region's territory growing into rock
 * where no edge can be taken any more. An edge still to be taken joins two
 * regions not yet joined, so one of its ends is owned by a region outside
 * the largest's component at the end of layer L (the set O; joins are
 * never undone). A cell of layer j owned by a region R is within distance
 * j of R's floor, so every such edge of layer j lies within distance j + 1
 * of R's floor: in R's bounding box grown by j + 1 cells.
 *
 * How far the search can still go: from a floor cell of R, a path of m
 * steps to the floor of a region inside the largest's component (any
 * cells on the way) gives, cell by cell, a chain of Voronoi edges each of
 * weight at most m (a cell i steps along is at most i from the nearest
 * floor, and m - i); so after Kruskal's algorithm has seen the edges of
 * weight up to m, R is joined. With m_C the shortest such path found from
 * any region of R's component C, R is joined by the end of layer
 * K_R = m_C / 2 (rounded down), and the search ends by K = max K_R.
 *
 * The layers L + 1 .. K are computed only on a window: the words of each
 * region R of O's box grown by 2 K_R - L + 1 cells. A word of the window
 * reads the words around it; outside the window layer L + 1 on is left
 * empty, so a cell d cells inside the window's edge is what the full
 * search makes of it for d + 1 layers past L + 1: at layer j <= K_R the
 * wrong cells stay beyond R's box grown by j + 2. So no wrong cell is
 * owned by a region still outside (an owner comes from a neighbour of the
 * layer before, and R's own cells are right while R is outside) or
 * touches one's cells, and an edge between two regions inside the
 * component is never taken: every edge Kruskal takes is the full
 * search's. The paths are looked for along the rows and columns out of
 * the regions of O; the window is planned once O is at most a quarter of
 * the regions and its words are under half the front's. When O has
 * halved, the window is planned again and ANDed into the old (each K_R
 * the lower of the two): a cell is right while it is far enough inside
 * both windows' edges, each as above. If the search were still going
 * past K it would be run again without a window (not reached: the test
 * hook forces it). */

/* Test hook (connect.h): 1 plans a window at the first layer a bound is
 * found, whatever it costs; 2 as 1 with K = L + 1, too near, so the search
 * is run again. */
static int force_window;

void cg__connect_force_window(int mode)
{
    force_window = mode;
}

/* Steps from (x, y) along its row (dir -1 or 1) to the floor of a region
 * inside the largest's component, at most max; UINT32_MAX if none. Rock is
 * passed a word at a time, the runs of regions outside whole. *looked
 * counts the runs looked at. */
static uint32_t probe_row(search *c, uint32_t x, uint32_t y, int dir, uint32_t max,
                          uint64_t *looked)
{
    const uint64_t *row = cg__row(c->k.g, y);
    const srun *r = c->runs.p;
    int64_t p = x; /* floor is looked for past p */
    for (;;) {
        int64_t q;
        if (dir < 0) {
            if (p == 0)
                return UINT32_MAX;
            size_t wi = (size_t)(p - 1) >> 6;
            uint64_t m = ~row[wi] & (~UINT64_C(0) >> (63 - ((p - 1) & 63)));
            while (!m) {
                if (wi == 0 || x - wi * 64 >= max)
                    return UINT32_MAX;
                m = ~row[--wi];
            }
            q = (int64_t)(wi * 64 + 63 - (size_t)__builtin_clzll(m));
        } else {
            if (p + 1 >= c->w)
                return UINT32_MAX;
            size_t wi = (size_t)(p + 1) >> 6;
            uint64_t m = ~row[wi] & (~UINT64_C(0) << ((p + 1) & 63));
            while (!m) {
                if (++wi >= c->nw || wi * 64 - x > max)
                    return UINT32_MAX;
                m = ~row[wi];
            }
            q = (int64_t)(wi * 64 + (size_t)__builtin_ctzll(m));
            if (q >= c->w) /* the row's bits past the map */
                return UINT32_MAX;
        }
        const uint64_t d = (uint64_t)(q > x ? q - x : x - q);
        if (d > max)
            return UINT32_MAX;
        ++*looked;
        if (on_terr(c, (uint32_t)q, y)) /* the largest region's floor */
            return (uint32_t)d;
        /* The run holding q: a small region's. */
        const size_t i = run_at(c, y, y * c->w + (uint32_t)q);
        if (i == SIZE_MAX || !outside(c, r[i].reg))
            return (uint32_t)d;
        const int64_t xs = r[i].key - (int64_t)y * c->w;
        p = dir < 0 ? xs : xs + r[i].len - 1;
    }
}

/* Longest path looked for, and cells looked at, per plan. */
#define PROBE_MAX 256
#define PROBE_WORK ((uint64_t)1 << 20)

/* At the end of layer L (regions still apart): plans the window if its
 * bound is found and it is worth it (its words against the front's). */
/* The boxes of the regions of O (x0 .. y1, x0 UINT32_MAX for the others). */
typedef struct boxes {
    uint32_t *x0, *x1, *y0, *y1;
} boxes;

/* The window's words for boxes grown by grow cells (or, with kr, by
 * 2 kr[r] - L + 1 cells each), overlaps counted twice; with win, sets them
 * there. */
static uint64_t window_words(const search *c, const boxes *b, uint32_t grow, const uint32_t *kr,
                             uint32_t L, uint64_t *win)
{
    uint64_t words = 0;
    for (uint32_t r = 1; r <= c->nid; r++) {
        if (b->x0[r] == UINT32_MAX)
            continue;
        if (kr)
            grow = 2 * kr[r] - L + 1;
        const uint32_t wa = (b->x0[r] > grow ? b->x0[r] - grow : 0) / 64,
                       wb = (uint32_t)(((uint64_t)b->x1[r] + grow < c->w ? b->x1[r] + grow
                                                                         : c->w - 1) /
                                       64);
        const uint32_t ya = b->y0[r] > grow ? b->y0[r] - grow : 0,
                       yb = (uint64_t)b->y1[r] + grow < c->h ? b->y1[r] + grow : c->h - 1;
        words += (uint64_t)(wb - wa + 1) * (yb - ya + 1);
        for (uint32_t y = ya; win && y <= yb; y++) /* words wa .. wb of row y's mask */
            for (uint32_t ci = wa >> 6; ci <= wb >> 6; ci++) {
                uint64_t m = ~UINT64_C(0);
                if (ci == wa >> 6)
                    m &= ~UINT64_C(0) << (wa & 63);
                if (ci == wb >> 6)
                    m &= ~UINT64_C(0) >> (63 - (wb & 63));
                win[((size_t)y + 1) * c->ncw + ci] |= m;
            }
    }
    return words;
}

/* The shortest path found from a run of a region of O to the floor of a
 * region inside, m at most: along the row out of the run's ends, and up
 * and down from its cells at the region's edge (a path through its own
 * floor is longer) - a word of the run's cells a step at a time. */
static uint32_t probe_run(search *c, const srun *run, uint32_t m, uint64_t *looked)
{
    const uint32_t y = run->key / c->w, xa = run->key % c->w, xb = xa + run->len - 1;
    uint32_t p;
    if ((p = probe_row(c, xa, y, -1, m - 1, looked)) < m)
        m = p;
    if ((p = probe_row(c, xb, y, 1, m - 1, looked)) < m)
        m = p;
    for (int dy = -1; dy <= 1; dy += 2)
        for (uint32_t wi = xa >> 6; wi <= xb >> 6; wi++) {
            uint64_t live = ~UINT64_C(0);
            if (wi == xa >> 6)
                live &= ~UINT64_C(0) << (xa & 63);
            if (wi == xb >> 6 && (xb & 63) < 63)
                live &= (UINT64_C(1) << ((xb & 63) + 1)) - 1;
            int64_t yy = y;
            for (uint32_t step = 1; live && step < m; step++) {
                yy += dy;
                if (yy < 0 || yy >= c->h)
                    break;
                ++*looked;
                const uint64_t row = cg__row(c->k.g, yy)[wi];
                if (step == 1) /* from the region's edge only */
                    live &= row;
                for (uint64_t hit = live & ~row; hit; hit &= hit - 1) {
                    const uint32_t x = (uint32_t)(wi * 64 + (uint32_t)__builtin_ctzll(hit));
                    if (!outside(c, floor_reg(c, x, (uint32_t)yy))) {
                        m = step;
                        break;
                    }
                }
            }
        }
    return m;
}

static cg_status plan_window(search *c, uint32_t L)
{
    if (!c->window || !c->runs.n)
        return CG_OK;
    uint32_t nout = 0;
    for (uint32_t r = 1; r <= c->nid; r++)
        nout += (uint32_t)outside(c, r);
    /* Planned again when O has halved: the new window is ANDed into the
     * old (a cell is then what the full search makes of it while it is far
     * enough inside both windows' edges, each as above). */
    if (!nout || (!force_window && nout > c->nid / 4) || (c->win && 2 * nout > c->win_nout))
        return CG_OK;
    /* Per region of O: its box; per component: the shortest path found. */
    const size_t n = (size_t)c->nid + 1;
    uint32_t *mem = cg__malloc(n * 6 * sizeof *mem);
    if (!mem)
        return CG_ENOMEM;
    boxes b = {mem, mem + n, mem + 2 * n, mem + 3 * n};
    uint32_t *best = mem + 4 * n, *kk = mem + 5 * n;
    for (size_t r = 0; r < n; r++) {
        b.x0[r] = b.y0[r] = best[r] = UINT32_MAX;
        b.x1[r] = b.y1[r] = 0;
    }
    /* O's runs: all runs the first time, then those of the last plan's O
     * (O only shrinks), kept in orun. */
    const srun *run = c->runs.p;
    uint32_t *orun = c->orun.p;
    const size_t nrun = c->win ? c->orun.n : c->runs.n;
    size_t no = 0;
    for (size_t q = 0; q < nrun; q++) {
        const size_t j = c->win ? orun[q] : q;
        const uint32_t r = run[j].reg;
        if (!outside(c, r))
            continue;
        c->orun.n = no;
        if (vec_reserve(&c->orun, 1) != CG_OK) {
            cg__free(mem);
            return CG_ENOMEM;
        }
        orun = c->orun.p;
        orun[no++] = (uint32_t)j;
        const uint32_t y = run[j].key / c->w, xa = run[j].key % c->w, xb = xa + run[j].len - 1;
        b.x0[r] = xa < b.x0[r] ? xa : b.x0[r];
        b.x1[r] = xb > b.x1[r] ? xb : b.x1[r];
        b.y0[r] = y < b.y0[r] ? y : b.y0[r];
        b.y1[r] = y > b.y1[r] ? y : b.y1[r];
    }
    /* The front's words, against the window's: at least K = L + 1. */
    uint64_t front = 0;
    for (size_t q = 0; q < c->nrows1; q++)
        for (size_t ci = 0; ci < c->ncw; ci++)
            front += (uint64_t)__builtin_popcountll(c->m1[((size_t)c->rows1[q] + 1) * c->ncw + ci]);
    int ok = force_window || c->win || 2 * window_words(c, &b, L + 3, NULL, L, NULL) < front;
    /* Every path is at least 2L + 2 long: the edges lighter are taken. */
    uint64_t looked = 0;
    c->orun.n = no;
    for (size_t q = 0; q < no && ok; q++) {
        const size_t j = orun[q];
        const uint32_t r = run[j].reg;
        const uint32_t root = cg__uf_find(c->k.uf, r);
        if (best[root] > 2 * L + 2)
            best[root] =
                probe_run(c, &run[j], best[root] < PROBE_MAX ? best[root] : PROBE_MAX + 1, &looked);
        ok = looked <= PROBE_WORK;
    }
    /* Per region of O: the layer its component is joined by (the lower of
     * this plan's and the last's), into best; the last of them all. */
    uint32_t K = 0;
    for (uint32_t r = 1; r <= c->nid && ok; r++)
        if (b.x0[r] != UINT32_MAX) {
            const uint32_t m = best[cg__uf_find(c->k.uf, r)];
            ok = m <= PROBE_MAX;
            kk[r] = force_window == 2 ? L + 1 : m / 2;
        }
    for (uint32_t r = 1; r <= c->nid && ok; r++)
        if (b.x0[r] != UINT32_MAX) {
            uint32_t kr = kk[r];
            if (c->win && c->kr[r] < kr)
                kr = c->kr[r];
            best[r] = kr;
            K = kr > K ? kr : K;
        }
    cg_status st = CG_OK;
    if (ok) {
        const size_t mwords = c->ncw * ((size_t)c->h + 2);
        if (c->win) {
            uint64_t *again = cg__calloc(mwords, sizeof *again);
            if (!again)
                st = CG_ENOMEM;
            else {
                window_words(c, &b, 0, best, L, again);
                for (size_t i = 0; i < mwords; i++)
                    c->win[i] &= again[i];
                c->win_last = K;
                c->win_nout = nout;
                memcpy(c->kr, best, n * sizeof *best);
                cg__free(again);
            }
        } else if (force_window || 2 * window_words(c, &b, 0, best, L, NULL) < front) {
            c->win = cg__calloc(mwords, sizeof *c->win);
            c->kr = cg__malloc(n * sizeof *c->kr);
            if (c->win && c->kr) {
                c->win_last = K;
                c->win_nout = nout;
                memcpy(c->kr, best, n * sizeof *best);
                window_words(c, &b, 0, best, L, c->win);
            } else {
                cg__free(c->win);
                cg__free(c->kr);
                c->win = NULL;
                c->kr = NULL;
                st = CG_ENOMEM;
            }
        }
    }
    cg__free(mem);
    return st;
}

/* Layer k, row by row: a row's words (those beside layer k - 1's words),
 * then the per-cell work of the row above, whose neighbourhood is now
 * known. Returns early once one region is left. */
INLINE cg_status layer(search *c, uint32_t k, int first)
{
    cg_status st;
    const size_t ncw = c->ncw, nrows = rows_of_layer(c);
    uint32_t small = 0;
    size_t done = 0; /* work entries met */
    c->odd.n = c->work.n = c->cells1.n = c->out1.n = 0;
    /* Room for a front as large as the last (not written yet): growing as
     * the layer goes would copy. */
    if ((st = vec_reserve(&c->cells1, c->cells0.n)) != CG_OK ||
        (st = vec_reserve(&c->out1, c->cells0.n / 64 + 2)) != CG_OK)
        return st;
    c->nrows1 = 0;
    c->met_row = UINT32_MAX;
    uint32_t total = 0; /* small cells of layer k - 1 counted */
    if (nrows && c->h)
        fill_pre0(c, 0, &total);
    for (size_t r = 0; r < nrows; r++) {
        const uint32_t y = c->rows[r];
        /* Rows whose neighbours are all known (rows skipped hold nothing of
         * layer k), before row y + 1's counts of layer k - 1 take a slot. */
        work *wk = c->work.p;
        for (; done < c->work.n && wk[done].y + 1 < y; done++)
            if ((st = meet_word(c, &wk[done], k, first)) != CG_OK)
                return st;
        if (c->k.regions <= 1)
            return CG_OK;
        if (y + 1 < c->h)
            fill_pre0(c, y + 1, &total);
        const uint64_t *up = c->m0 + (size_t)y * ncw, *mid = up + ncw, *down = mid + ncw;
        uint64_t *mine = c->m1 + ((size_t)y + 1) * ncw, any = 0;
        if ((st = vec_reserve(&c->work, c->nw + 1)) != CG_OK)
            return st;
        for (size_t ci = 0; ci < ncw; ci++) {
            uint64_t cand = up[ci] | down[ci] | mid[ci] | (mid[ci] << 1) | (mid[ci] >> 1);
            if (ci)
                cand |= mid[ci - 1] >> 63;
            if (ci + 1 < ncw)
                cand |= mid[ci + 1] << 63;
            if (ci + 1 == ncw && (c->nw & 63))
                cand &= (UINT64_C(1) << (c->nw & 63)) - 1;
            if (c->win)
                cand &= c->win[((size_t)y + 1) * ncw + ci];
            /* Words left of layer k - 2 that layer k does not reach. */
            for (uint64_t old = mine[ci] & ~cand; old; old &= old - 1) {
                const size_t at = at_of(c, y, ci * 64 + (size_t)__builtin_ctzll(old));
                c->f1[at] = 0;
            }
            const size_t words = ci + 1 < ncw || !(c->nw & 63) ? 64 : c->nw & 63;
            const uint64_t full = words == 64 ? ~UINT64_C(0) : (UINT64_C(1) << words) - 1;
            uint64_t nz = 0, hs = 0;
            if (cand == full && c->grow)
                nz = c->grow(c, y, ci * 64, words, &small, &hs);
            else if (cand == full)
                nz = grow_span(c, y, ci * 64, words, &small, &hs);
            else
                for (uint64_t bits = cand; bits; bits &= bits - 1) {
                    const unsigned b = (unsigned)__builtin_ctzll(bits);
                    uint64_t one = 0;
                    nz |= (uint64_t)(grow_word(c, y, ci * 64 + b, &small, &one) != 0) << b;
                    hs |= one << b;
                }
            mine[ci] = nz;
            c->s1[((size_t)y + 1) * ncw + ci] = hs;
            any |= nz;
        }
        if (any)
            c->rows1[c->nrows1++] = y;
        /* Row y - 1, now that row y is known. */
        wk = c->work.p;
        for (; done < c->work.n && wk[done].y < y; done++)
            if ((st = meet_word(c, &wk[done], k, first)) != CG_OK)
                return st;
        if (c->k.regions <= 1)
            return CG_OK;
        /* What is left is row y's: the list stays one row long. */
        memmove(wk, wk + done, (c->work.n - done) * sizeof *wk);
        c->work.n -= done;
        done = 0;
    }
    for (; done < c->work.n; done++)
        if ((st = meet_word(c, &((const work *)c->work.p)[done], k, first)) != CG_OK)
            return st;
    take_edges(c);
    if (c->k.regions > 1)
        refresh_out(c);
    return CG_OK;
}

/* Layer k becomes layer k - 1; the old one's buffers take layer k + 1. */
static void advance(search *c)
{
    uint64_t *t = c->f0;
    c->f0 = c->f1;
    c->f1 = t;
    t = c->m0;
    c->m0 = c->m1;
    c->m1 = t;
    t = c->s0;
    c->s0 = c->s1;
    c->s1 = t;
    uint32_t *p = c->rows0;
    c->rows0 = c->rows1;
    c->rows1 = p;
    size_t n = c->nrows0;
    c->nrows0 = c->nrows1;
    c->nrows1 = n;
    vec v = c->cells0;
    c->cells0 = c->cells1;
    c->cells1 = v;
    v = c->out0;
    c->out0 = c->out1;
    c->out1 = v;
}

/* The layers, until one region is left. */
INLINE cg_status layers(search *c)
{
    cg_status st = CG_OK;
    for (uint32_t k = 1; st == CG_OK && c->k.regions > 1 && c->nrows0; k++) {
        st = k == 1 ? layer(c, k, 1) : layer(c, k, 0);
        if (st == CG_OK && c->k.regions > 1) {
            if (c->win && k >= c->win_last) {
                c->win_failed = 1; /* not reached: see plan_window */
                break;
            }
            st = plan_window(c, k);
        }
        advance(c);
        if (k == 1) { /* layer 0's regions, now in cells1: its room takes fcells */
            c->cells1.cap = c->cells1.cap * c->cells1.elem / sizeof(fcell);
            c->cells1.elem = sizeof(fcell);
            c->cells1.n = 0;
        }
    }
    if (st == CG_OK && c->win && c->k.regions > 1)
        c->win_failed = 1; /* the front died in the window: not reached either */
    return st;
}

static cg_status layers_base(search *c)
{
    return layers(c);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
__attribute__((target("popcnt,bmi,bmi2,lzcnt"))) static cg_status layers_popcnt(search *c)
{
    return layers(c);
}
#endif

static void search_free(search *c)
{
    cg__free(c->boards);
    cg__free(c->out_up);
    cg__free(c->out);
    cg__free(c->inbig);
    cg__free(c->mixed);
    cg__free(c->odd_big);
    cg__free(c->pre0);
    cg__free(c->pre1);
    cg__free(c->m0);
    cg__free(c->m1);
    cg__free(c->s0);
    cg__free(c->s1);
    cg__free(c->rows0);
    cg__free(c->rows1);
    cg__free(c->rows);
    vec_free(&c->cells0);
    vec_free(&c->cells1);
    vec_free(&c->out0);
    vec_free(&c->out1);
    vec_free(&c->work);
    vec_free(&c->odd);
    vec_free(&c->runs);
    cg__free(c->run_row);
    vec_free(&c->stack);
    cg__free(c->k.uf);
    cg__free(c->win);
    cg__free(c->kr);
    vec_free(&c->orun);
}

/* The floor's runs and cells. */
INLINE void count_runs(const cg_grid *g, uint64_t *nruns, uint64_t *floor_n)
{
    for (uint32_t y = 0; y < g->h; y++) {
        const uint64_t *r = cg__row(g, y);
        uint64_t carry = 0;
        for (size_t i = 0; i < g->nw; i++) {
            const uint64_t f = ~r[i] & (i + 1 == g->nw ? ~cg__tail_mask(g) : ~UINT64_C(0));
            *nruns += (uint64_t)__builtin_popcountll(f & ~((f << 1) | carry));
            *floor_n += (uint64_t)__builtin_popcountll(f);
            carry = f >> 63;
        }
    }
}

static void count_runs_base(const cg_grid *g, uint64_t *nruns, uint64_t *floor_n)
{
    count_runs(g, nruns, floor_n);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
__attribute__((target("popcnt"))) static void count_runs_popcnt(const cg_grid *g, uint64_t *nruns,
                                                                uint64_t *floor_n)
{
    count_runs(g, nruns, floor_n);
}
#endif

/* The search; with window nonzero it may plan a window (plan_window), and
 * sets *again when its bound did not hold, having carved nothing. */
static cg_status voronoi(cg_grid *g, uint32_t width, uint64_t *corridors, int window, int *again)
{
    if (corridors)
        *corridors = 0;
    if ((uint64_t)g->w * g->h > UINT32_MAX)
        return CG_EOVERFLOW;
    search c;
    memset(&c, 0, sizeof c);
    c.window = window;
    c.w = g->w;
    c.runs.elem = sizeof(srun);
    /* Floor runs that are short on average (under 3 cells: noise) mean no
     * dominant region: a list of every run then costs no more than flooding
     * the small regions, and comes in scan order - the labelling keeps it.
     * Otherwise the small regions are flooded. Either gives the same. */
    uint64_t nruns = 0, floor_n = 0;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    if (cg__regions_popcnt())
        count_runs_popcnt(g, &nruns, &floor_n);
    else
#endif
        count_runs_base(g, &nruns, &floor_n);
    const int by_runs = floor_n < 3 * nruns;
    if (by_runs &&
        (nruns > SIZE_MAX / sizeof(srun) || vec_reserve(&c.runs, (size_t)nruns) != CG_OK))
        return CG_ENOMEM;
    cg__labeller lb;
    cg_status st = cg__label(&lb, g, 0, by_runs ? keep_runs : NULL, &c);
    if (st != CG_OK) {
        vec_free(&c.runs);
        return st;
    }
    if (c.k.oom)
        st = CG_ENOMEM;
    uint64_t roots;
    const uint32_t largest = cg__largest_root(&lb, &roots);
    if (roots <= 1) {
        cg__labeller_free(&lb);
        vec_free(&c.runs);
        return st;
    }
    c.w = g->w;
    c.h = g->h;
    c.nw = g->nw;
    c.stride = g->nw + 2;
    c.ncw = (c.nw + 63) / 64;
    c.last = ~cg__tail_mask(g);
    c.cells0.elem = c.cells1.elem = sizeof(fcell);
    c.out0.elem = c.out1.elem = sizeof(uint64_t);
    c.work.elem = sizeof(work);
    c.orun.elem = sizeof(uint32_t);
    c.odd.elem = sizeof(edge);
    const size_t words = c.stride * ((size_t)c.h + 2), mwords = c.ncw * ((size_t)c.h + 2);
    /* The three bitboards in one block, on huge pages where the system
     * gives them: fewer page faults and TLB misses over the layers. */
    if (words > SIZE_MAX / 3 / sizeof(uint64_t)) {
        cg__labeller_free(&lb);
        vec_free(&c.runs);
        return CG_EOVERFLOW;
    }
    void *block = NULL;
    uint64_t *boards = huge_block(3 * words * sizeof(uint64_t), &block);
    c.boards = block;
    if (boards) {
        c.f0 = boards;
        c.f1 = boards + words;
        c.terr = boards + 2 * words;
        /* f1 starts empty (layer -1); layer 0 writes every in-map word of
         * f0 and terr, so only their frames are cleared here. */
        memset(c.f1, 0, words * sizeof(uint64_t));
        for (int b = 0; b < 2; b++) {
            uint64_t *f = b ? c.terr : c.f0;
            memset(f, 0, c.stride * sizeof(uint64_t));
            memset(f + ((size_t)c.h + 1) * c.stride, 0, c.stride * sizeof(uint64_t));
            for (size_t y = 1; y <= c.h; y++)
                f[y * c.stride] = f[y * c.stride + c.stride - 1] = 0;
        }
    }
    c.out_up = cg__calloc(c.stride, sizeof(uint64_t));
    c.out = cg__calloc(c.stride, sizeof(uint64_t));
    c.pre0 = cg__malloc(8 * c.stride * sizeof(uint32_t));
    c.pre1 = cg__malloc(4 * c.stride * sizeof(uint32_t));
    c.m0 = cg__calloc(mwords, sizeof(uint64_t));
    c.m1 = cg__calloc(mwords, sizeof(uint64_t));
    c.s0 = cg__calloc(mwords, sizeof(uint64_t));
    c.s1 = cg__calloc(mwords, sizeof(uint64_t));
    c.rows0 = cg__malloc(((size_t)c.h + 1) * sizeof(uint32_t));
    c.rows1 = cg__malloc(((size_t)c.h + 1) * sizeof(uint32_t));
    c.rows = cg__malloc(((size_t)c.h + 1) * sizeof(uint32_t));
    c.k.g = g;
    c.k.w = c.w;
    c.k.h = c.h;
    c.k.stride = c.stride;
    c.k.big_at = big_at;
    c.k.ctx = &c;
    c.k.width = width;
    if (!c.boards || !c.out_up || !c.out || !c.pre0 || !c.pre1 || !c.m0 || !c.m1 || !c.s0 ||
        !c.s1 || !c.rows0 || !c.rows1 || !c.rows)
        st = CG_ENOMEM;
#if defined(GROW_X86)
    /* The dense rows' copy for the kernel path (tests force each), inside
     * the POPCNT/BMI copy of the search. */
    if (cg__regions_popcnt()) {
        const int path = cg__kernel_path();
        if (path >= CG__PATH_AVX512 && __builtin_cpu_supports("avx512vpopcntdq"))
            c.grow = grow_span_avx512;
        else if (path >= CG__PATH_AVX2)
            c.grow = grow_span_avx2;
    }
#endif
    if (st == CG_OK)
        st = layer0(&c, &lb, largest, by_runs);
    cg__labeller_free(&lb);
    if (st == CG_OK) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
        if (cg__regions_popcnt())
            st = layers_popcnt(&c);
        else
#endif
            st = layers_base(&c);
    }
    if (st == CG_OK && c.win_failed) {
        *again = 1;
        cg__free(c.k.defer);
        search_free(&c);
        return CG_OK;
    }
    cg_status carved = cg__connect_carve_deferred(&c.k);
    if (st == CG_OK)
        st = carved;
    if (corridors)
        *corridors = c.k.corridors;
    search_free(&c);
    return st;
}

cg_status cg__connect_voronoi(cg_grid *g, uint32_t width, uint64_t *corridors)
{
    int again = 0;
    const cg_status st = voronoi(g, width, corridors, 1, &again);
    return again ? voronoi(g, width, corridors, 0, &again) : st;
}
