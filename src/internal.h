/* internal.h - declarations shared between the library's source files.
 * Never included by the CLI or by users of the library. */
#ifndef CG_INTERNAL_H
#define CG_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>

#include "cavegen/cavegen.h"

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
};

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
    CG__RAND_MAZE = 6,
    CG__RAND_CONNECT = 7
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

/* automaton.c: one generation of each rule, reading src and writing dst
 * (same size). See SPEC 3.1 and the seeds cited there. */
void cg__generation(const cg_grid *src, cg_grid *dst, int r1, int r2, int self);
void cg__smooth(const cg_grid *src, cg_grid *dst, int walls);
void cg__rule(const cg_grid *src, cg_grid *dst, int lo, int hi);

/* Writers, one per format (io_*.c); cg_write (write.c) dispatches. */
cg_status cg__write_ascii(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag);
cg_status cg__write_png(const cg_grid *g, uint32_t scale, cg_write_fn write, void *ctx,
                        cg_diag *diag);

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
