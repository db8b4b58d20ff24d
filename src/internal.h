/* internal.h - declarations shared between the library's source files.
 * Never included by the CLI or by users of the library. */
#ifndef CG_INTERNAL_H
#define CG_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>

#include "cavegen/cavegen.h"
#include "mem.h"

/* Bitboard storage. Row y is nw words of 64 cells each (bit b of word i is
 * x = 64*i + b; 1 = wall), framed by one all-wall word on each side, and the
 * grid is framed by CG__PAD all-wall rows above and below. Bits at x >= w in
 * the last word are kept at 1. So every cell within two of the map reads as a
 * wall without a bounds test - the seed 000 code pads its array with rings of
 * walls for the same reason. */
#define CG__PAD 2

typedef struct cg__mark {
    uint32_t x, y;
    uint8_t kind; /* cg_marker */
} cg__mark;

struct cg_grid {
    uint32_t w, h;
    size_t nw;       /* words per row holding cells */
    size_t stride;   /* words per row in memory: nw + 2 */
    uint64_t *mem;   /* (h + 2*CG__PAD) * stride words */
    cg__mark *marks; /* sorted by (y, x), at most one per cell */
    size_t nmarks, capmarks;
    struct cg__reach *reach; /* distances of the last reach, or NULL (reach.c) */
};

/* A reach result: distances over a window of the map, held in a padded
 * array (one sentinel cell on each side) so the search needs no bounds
 * tests. Cells outside the window are unreached. */
typedef struct cg__reach {
    uint32_t x0, y0, w, h; /* the window */
    size_t stride;         /* w + 2 */
    uint32_t *dist;        /* (h + 2) * stride; cell (x, y) at (y-y0+1)*stride + x-x0+1 */
    uint32_t max_distance;
    uint64_t count; /* cells reached */
} cg__reach;

/* Distances above this are sentinels in cg__reach.dist. */
#define CG__DIST_BLOCKED (UINT32_MAX - 1)

cg_status cg__reach_clone(cg__reach **out, const cg__reach *src);
void cg__reach_free(cg__reach *r);
/* Test hook: -1 chooses the search by budget, 0 forces the queue BFS, 1 the
 * bitboard search. Not thread-safe; tests only. */
void cg__reach_force_path(int path);

/* Word 0 of row y; valid for y in -CG__PAD .. h-1+CG__PAD, words -1 .. nw. */
static inline uint64_t *cg__row(const cg_grid *g, int64_t y)
{
    return g->mem + (size_t)(y + CG__PAD) * g->stride + 1;
}

/* Mask of the bits of the last word that lie outside the map (kept at 1). */
static inline uint64_t cg__tail_mask(const cg_grid *g)
{
    unsigned r = g->w & 63u;
    return r ? ~UINT64_C(0) << r : 0;
}

/* An all-wall grid with the same size as g, without markers. */
cg_status cg__grid_new_like(cg_grid **out, const cg_grid *g);
/* Exchanges the cell storage of a and b (same size); markers stay. */
void cg__grid_swap_cells(cg_grid *a, cg_grid *b);
/* Sets every cell to wall, keeps markers (the caller prunes). */
void cg__grid_fill_walls(cg_grid *g);
/* Forces the padding invariants (tail bits of each row set to wall). */
void cg__grid_fix_tail(cg_grid *g);
/* Makes the outer ring of the map wall. */
void cg__grid_wall_ring(cg_grid *g);
/* Drops markers that now sit on walls. */
void cg__grid_prune_marks(cg_grid *g);
/* Appends a marker at a position after every existing one in (y, x) order. */
cg_status cg__grid_push_mark(cg_grid *g, uint32_t x, uint32_t y, cg_marker kind);

/* Randomness (rng.c): see docs/randomness.md. */
uint64_t cg__mix64(uint64_t z);
/* The key of one random step: seed, step kind, ordinal among steps of that kind. */
uint64_t cg__step_key(uint64_t seed, uint32_t kind, uint32_t ordinal);
/* Hash of a cell under a step key: a pure function of (key, x, y). */
static inline uint64_t cg__cell_hash(uint64_t key, int64_t x, int64_t y)
{
    uint64_t row = cg__mix64(key ^ ((uint64_t)y * UINT64_C(0xD1B54A32D192ED03)));
    return cg__mix64(row + (uint64_t)x * UINT64_C(0x9E3779B97F4A7C15));
}

/* Kinds of random step, mixed into their keys. Never renumber: the numbers
 * are part of every map's identity (docs/randomness.md). */
enum {
    CG__RAND_FILL = 1,
    CG__RAND_DOWNSCALE = 2,
    CG__RAND_ENTRANCE = 3,
    CG__RAND_EXIT = 4,
    CG__RAND_POI = 5,
    CG__RAND_MAZE = 6
};

/* A stream of random numbers for steps whose decisions are sequential
 * (shuffles, a maze's mole): splitmix64 over a step key. Pass by pointer;
 * never global. */
typedef struct cg__rng {
    uint64_t state;
} cg__rng;

static inline uint64_t cg__rng_next(cg__rng *r)
{
    r->state += UINT64_C(0x9E3779B97F4A7C15);
    return cg__mix64(r->state);
}

/* Uniform in 0..n-1 (n >= 1), without modulo bias (Lemire's method). */
uint32_t cg__rng_below(cg__rng *r, uint32_t n);

/* fill.c: each cell wall with probability ppb / 1e9 (ppb = parts per billion,
 * 0..1e9), outer ring wall. */
void cg__fill(cg_grid *g, uint64_t key, uint32_t ppb);
/* The same for rows y0..y1-1 only (a stripe: disjoint stripes may be filled
 * at once), cell (x, y) drawn as world cell (ox + x, oy + y); ring: 0 leaves
 * out the outer ring (a window of the infinite cave, docs/scale.md). */
void cg__fill_rows(cg_grid *g, uint64_t key, uint32_t ppb, int64_t ox, int64_t oy, int ring,
                   uint32_t y0, uint32_t y1);

/* automaton.c: one generation of each rule, reading src and writing dst
 * (same size). See SPEC 3.1 and the seeds cited there. */
void cg__generation(const cg_grid *src, cg_grid *dst, int r1, int r2, int self);
void cg__smooth(const cg_grid *src, cg_grid *dst, int walls);
void cg__rule(const cg_grid *src, cg_grid *dst, int lo, int hi);
/* The same for rows y0..y1-1 of dst only, ring and tail bits included: each
 * reads src alone, so disjoint stripes of rows may run at once (scale). */
void cg__generation_rows(const cg_grid *src, cg_grid *dst, int r1, int r2, int self, uint32_t y0,
                         uint32_t y1);
void cg__smooth_rows(const cg_grid *src, cg_grid *dst, int walls, uint32_t y0, uint32_t y1);
void cg__rule_rows(const cg_grid *src, cg_grid *dst, int lo, int hi, uint32_t y0, uint32_t y1);
/* Sets the tail bits (past the width) of rows y0..y1-1. */
void cg__fix_tail_rows(cg_grid *g, uint32_t y0, uint32_t y1);

/* A caller's parallel loop (cg_run_scale), or fn NULL for one thread.
 * cg__par_rows (pipeline.c) runs rows(arg, y0, y1) over stripes covering
 * rows 0..g->h-1, several at once when par allows and g is large enough to
 * gain; the stripes do not depend on the threads, nor does the result. */
typedef struct cg__par {
    cg_parallel_fn fn;
    void *ctx;
} cg__par;
void cg__par_rows(const cg__par *par, const cg_grid *g,
                  void (*rows)(void *arg, uint32_t y0, uint32_t y1), void *arg);

/* Code paths of the bit-parallel kernels (automaton.c, fill.c): the best one
 * the CPU supports is used unless a test forces one. All give the same bits. */
enum {
    CG__PATH_AUTO = -1,
    CG__PATH_SCALAR = 0, /* one uint64_t at a time, portable C */
    CG__PATH_VECTOR = 1, /* GCC vector extensions, baseline ISA */
    CG__PATH_AVX2 = 2,
    CG__PATH_AVX512 = 3,
    CG__PATH_AVX512VBMI2 = 4, /* AVX-512 plus VBMI2's funnel shifts */
    CG__PATH_COUNT = 5
};
/* Nonzero if this build and CPU can run the path. */
int cg__kernel_path_available(int path);
/* TEST/BENCH ONLY, not thread-safe: force a path (CG__PATH_AUTO undoes it).
 * Returns 0, or -1 (nothing changed) if the path is not available. */
int cg__set_kernel_path(int path);
/* The path the kernels take now, and a path's name ("scalar", ...). */
int cg__kernel_path(void);
const char *cg__kernel_path_name(int path);

/* place.c: 4-connected searches over floor (markers are floor).
 * cg__flood: reached (same size as g, allocated by the caller) becomes the
 * floor cells connected to (x, y) - 0 bits, every other bit 1, so it is a
 * valid grid holding only that region; *count gets their number, 0 if (x, y)
 * is wall. cg__path_length: the fewest steps from (x0, y0) to (x1, y1), -1
 * if unreachable or either is wall. */
cg_status cg__flood(const cg_grid *g, uint32_t x, uint32_t y, cg_grid *reached, uint64_t *count);
cg_status cg__path_length(const cg_grid *g, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                          int64_t *length);
/* The first marker of a kind in (y, x) order; 0 if there is none. */
int cg__find_mark(const cg_grid *g, cg_marker kind, uint32_t *x, uint32_t *y);

/* regions.c: 4-connected regions (seed 002), labelled on runs of the bitboard
 * in time linear in the map and memory O(width + regions); docs/regions.md.
 * cg__floor_regions: the number of floor regions of g and the size of the
 * largest (0, 0 for no floor). cg__keep_largest_floor: every floor region but
 * the largest (ties: the first in scan order) becomes wall; markers on those
 * cells are dropped. Both fail only with CG_ENOMEM / CG_EOVERFLOW. */
cg_status cg__floor_regions(const cg_grid *g, uint64_t *count, uint64_t *largest);
cg_status cg__keep_largest_floor(cg_grid *g);

/* Writers, one per format (io_*.c); cg_write (write.c) dispatches. */
cg_status cg__write_ascii(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag);
cg_status cg__write_png(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                        cg_diag *diag);
cg_status cg__write_json(const cg_grid *g, const cg_map_info *info, cg_write_fn write, void *ctx,
                         cg_diag *diag);
/* json: 0 writes TMX (XML), 1 TMJ (JSON). */
cg_status cg__write_tiled(const cg_grid *g, const cg_map_info *info, int json, cg_write_fn write,
                          void *ctx, cg_diag *diag);
cg_status cg__write_pbm(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                        cg_diag *diag);

/* io_distances.c: the attached reach as CSV lines "x,y,distance". */
cg_status cg__write_distances(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag);

/* Diagnostics. */
void cg__diag(cg_diag *d, int line, int column, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Built-in preset table, generated from presets/ at build time. */
struct cg__preset_data {
    const char *name;
    const char *summary;
    const char *text;
    size_t len;
};

#endif
