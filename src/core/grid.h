/* grid.h - the bitboard a map is held in, its markers, and the helpers every
 * layer reads cells with (core/grid.c). */
#ifndef CG_CORE_GRID_H
#define CG_CORE_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "cavegen/cavegen.h"

/* Bitboard storage. Row y is nw words of 64 cells each (bit b of word i is
 * x = 64*i + b; 1 = wall), framed by one all-wall word on each side, and the
 * grid is framed by CG__PAD all-wall rows above and below. Bits at x >= w in
 * the last word are kept at 1. So every cell within two of the map reads as a
 * wall without a bounds test - the original automaton's code pads its array
 * with rings of walls for the same reason (docs/algorithms.md). */
#define CG__PAD 2

typedef struct cg__mark {
    uint32_t x, y;
    uint8_t kind; /* cg_marker */
    uint8_t sym;  /* its ASCII character: '<' '>' 'x', and for a point of
                     interest '*' (plain) or 'A'..'Z' (a named kind) */
} cg__mark;

/* The character a marker kind is written as when it has no other (a point
 * of interest without a named kind is '*'). */
static inline uint8_t cg__mark_symbol(cg_marker kind)
{
    static const char chars[] = {'.', '<', '>', '*', 'x'}; /* by cg_marker */
    return (unsigned)kind < sizeof chars ? (uint8_t)chars[kind] : (uint8_t)'?';
}

/* Named kinds of points of interest (docs/placement.md, "Kinds of
 * points"): a point's sym is 'A'..'Z', and the map holds each letter's name.
 * A name is 1..CG__KIND_NAME_MAX letters, digits, '_' or '-', starting with a
 * letter, and none of the marker names entrance, exit, poi, blocked. */
#define CG__KIND_NAME_MAX 32
#define CG__KINDS 26
typedef char cg__kind_name[CG__KIND_NAME_MAX + 1];

/* Nonzero if s[0..len-1] may name a kind of points. */
int cg__kind_name_valid(const char *s, size_t len);

struct cg__reach; /* regions/reach.h */

struct cg_grid {
    uint32_t w, h;
    size_t nw;       /* words per row holding cells */
    size_t stride;   /* words per row in memory: nw + 2 */
    uint64_t *mem;   /* (h + 2*CG__PAD) * stride words */
    cg__mark *marks; /* sorted by (y, x), at most one per cell */
    size_t nmarks, capmarks;
    struct cg__reach *reach; /* distances of the last reach, or NULL */
    cg__kind_name *kinds;    /* CG__KINDS names of the letters 'A'..'Z' ("": unnamed, the
                              * letter stands for itself), or NULL while none is named */
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

/* Cell x of a row: 1 wall, 0 floor. */
static inline int cg__bit(const uint64_t *row, uint64_t x)
{
    return (int)((row[x >> 6] >> (x & 63)) & 1);
}

/* Nonzero if (x, y) lies inside the map and is floor. */
static inline int cg__is_floor(const cg_grid *g, int64_t x, int64_t y)
{
    return x >= 0 && y >= 0 && x < (int64_t)g->w && y < (int64_t)g->h &&
           !cg__bit(cg__row(g, y), (uint64_t)x);
}

/* A cell as one integer, y << 32 | x: ordered as (y, x). */
static inline uint64_t cg__pack_xy(uint64_t x, uint64_t y)
{
    return y << 32 | x;
}

/* A grid of width x height (cg_grid_new's checks and statuses) whose cell
 * storage, frame and padding included, is not yet written: the caller
 * sets every word of it (cg__grid_wall_rows) before any other use. A big
 * map's storage is written through the caller's threads that way, so the
 * pages are first touched (and zeroed by the kernel) on all of them. */
cg_status cg__grid_new_unset(cg_grid **out, uint32_t width, uint32_t height);
/* Sets rows y0..y1-1 of a grid from cg__grid_new_unset to wall, their frame
 * words included, and the padding rows above the map when y0 == 0 and
 * below it when y1 == h: stripes covering 0..h make it cg_grid_new's. */
void cg__grid_wall_rows(cg_grid *g, uint32_t y0, uint32_t y1);
/* Copies rows y0..y1-1 of src into g, a grid of its size from
 * cg__grid_new_unset, their frame words too (and the padding rows above
 * row 0 and below the last row with them), as cg__grid_wall_rows walls
 * them: stripes of rows copied at once set every word. */
void cg__grid_copy_rows(cg_grid *g, const cg_grid *src, uint32_t y0, uint32_t y1);
/* The rest of cg_grid_clone once the cells are copied: markers, kinds,
 * reach. On CG_ENOMEM the caller frees g (what was copied goes with it). */
cg_status cg__grid_clone_rest(cg_grid *g, const cg_grid *src);
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
/* The first marker of a kind in (y, x) order; 0 if there is none. */
int cg__find_mark(const cg_grid *g, cg_marker kind, uint32_t *x, uint32_t *y);

/* The name of kind letter sym ('A'..'Z') on g, or NULL while unnamed (and
 * for any other sym). */
const char *cg__grid_kind_name(const cg_grid *g, uint8_t sym);
/* Names kind letter sym (a valid name, at most CG__KIND_NAME_MAX bytes);
 * CG_EINVAL if it already has another name, CG_ENOMEM. */
cg_status cg__grid_name_kind(cg_grid *g, uint8_t sym, const char *name, size_t len);
/* Sets a marker of m's kind and symbol at (x, y) of dst (floor, and in the
 * map), and gives dst the name src has for the symbol if dst has none: a
 * marker moved from one grid to another (downscale). */
cg_status cg__grid_copy_mark(cg_grid *dst, int64_t x, int64_t y, const cg_grid *src,
                             const cg__mark *m);

#endif
