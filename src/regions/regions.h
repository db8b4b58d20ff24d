/* regions/regions.h - 4-connected regions (regions/regions.c, regions/connect.c;
 * docs/regions.md): the run-based labeller, removal, keep-largest,
 * connect. */
#ifndef CG_REGIONS_H
#define CG_REGIONS_H

#include "core/grid.h"

/* The result of labelling: after cg__label, parent[l] is the root of label
 * l (roots satisfy parent[r] == r and are numbered in scan order of their
 * first cell), size[r] is the number of cells of root r's region, and
 * cg__label_first gives its first cell in scan order. With walls, label 0
 * is the outside of the map and every wall region touching the map's edge
 * has root 0. Labels of non-roots only matter through parent[]. 16 bytes
 * per label: labels are made row by row, so a label's row is found from
 * row_first instead of being stored. */
typedef struct cg__labeller {
    int walls;
    uint32_t *parent;
    uint64_t *size;
    uint32_t *first_x;   /* x of the run that made the label */
    void *block;         /* the allocation holding size, parent and first_x */
    uint32_t *row_first; /* per row: the labels made before it */
    uint32_t rows;
    size_t n, cap; /* labels */
} cg__labeller;

/* The cell where label l was made: for a root, its region's first cell in
 * scan order. */
void cg__label_first(const cg__labeller *lb, uint32_t l, uint32_t *x, uint32_t *y);

/* Called once per row, top to bottom, with the row's runs (cells x0[j] ..
 * x1[j]-1, increasing) and their labels before resolution: two runs with
 * the same final root belong to one region. */
typedef void (*cg__row_hook)(void *ctx, uint32_t y, const uint32_t *x0, const uint32_t *x1,
                             const uint32_t *label, size_t n);

/* Labels the regions of floor (walls == 0) or wall cells of g; hook may be
 * NULL. On failure lb is freed (CG_ENOMEM, CG_EOVERFLOW). */
cg_status cg__label(cg__labeller *lb, const cg_grid *g, int walls, cg__row_hook hook, void *ctx);

void cg__labeller_free(cg__labeller *lb);

/* cg__label over rows y0 .. y1-1 of g alone, as if the rows above and
 * below were of the other kind - except that, with walls, the map's own
 * edges (rows 0 and h-1, columns 0 and w-1) still join label 0. The
 * labelling's rows (row_first, cg__label_first) count from y0; hook gets
 * the map's rows. */
cg_status cg__label_rows(cg__labeller *lb, const cg_grid *g, int walls, uint32_t y0, uint32_t y1,
                         cg__row_hook hook, void *ctx);

/* TEST/BENCH ONLY, not thread-safe: nonzero makes cg__label and connect
 * use their baseline-ISA loops even where the POPCNT/BMI ones could run.
 * (cg__label's AVX-512 VBMI2 copy runs only on that kernel path:
 * cg__set_kernel_path, core/cpu.h, forces it off.) */
void cg__regions_force_base(int on);

/* Nonzero when the POPCNT/BMI loops run (x86-64 with those instructions,
 * not forced off). */
int cg__regions_popcnt(void);

/* Sets (wall nonzero) or clears cells x0 .. x1-1 (x0 < x1) of a row. */
void cg__set_span(uint64_t *row, uint32_t x0, uint32_t x1, int wall);

/* The root of the largest region of a labelling (ties: the first in scan
 * order); *roots (if not NULL) gets the number of regions. */
uint32_t cg__largest_root(const cg__labeller *lb, uint64_t *roots);

/* Flips every region of the labelling (made from g, unchanged since) but
 * root keep to the other kind, by a flood fill over runs from each region's
 * first cell: work in proportion to the flipped regions. Markers are left
 * to the caller. */
cg_status cg__flip_regions_except(cg_grid *g, const cg__labeller *lb, uint32_t keep);

/* The same for every region whose root r has keep[r] == 0 (keep has a byte
 * per label). */
cg_status cg__flip_regions_unless(cg_grid *g, const cg__labeller *lb, const uint8_t *keep);

/* Regions of fewer than min cells become the other kind; for walls, only
 * regions that do not touch the map's edge. Floor markers on removed cells
 * are dropped. */
cg_status cg__remove_small(cg_grid *g, int walls, uint64_t min);

/* Turns to floor, in rows y0 .. y1-1, some of the wall regions that
 * cg__remove_small(g, 1, min) turns - those inside blocks of eight rows of
 * one word - without changing the other wall regions (regions/specks.c).
 * Reads rows y0-1 .. y1 and writes rows y0 .. y1-1 only. */
void cg__drop_wall_specks(cg_grid *g, uint32_t y0, uint32_t y1, uint64_t min);

/* The same, on a big map through par's loop in stripes of rows
 * (regions/stripes.c); the same cells as cg__remove_small for any threads.
 * par may be NULL. */
struct cg__par;
cg_status cg__remove_small_par(cg_grid *g, int walls, uint64_t min, const struct cg__par *par);

/* cg__keep_largest_floor, the same way (regions/stripes.c). */
cg_status cg__keep_largest_par(cg_grid *g, const struct cg__par *par);

/* TEST ONLY, not thread-safe: nonzero makes cg__remove_small_par and
 * cg__keep_largest_par cut every map, big or not, with or without a loop,
 * into stripes of n rows. */
void cg__regions_set_stripe_rows(uint32_t n);

/* Flips, as cg__remove_small, the regions of a labelling (made from g,
 * unchanged since) with fewer than min cells, but not the roots listed in
 * skip (nskip of them, increasing); sets *any when one is flipped. */
cg_status cg__flip_small_roots(cg_grid *g, const cg__labeller *lb, uint64_t min,
                               const uint32_t *skip, size_t nskip, int *any);

/* Flips the region of the kind (walls or floor) whose first cell in scan
 * order is (x, y) and which has size cells. */
cg_status cg__flip_region_at(cg_grid *g, uint32_t x, uint32_t y, uint64_t size, int walls);

/* Floor regions of g: their number and the size of the largest (0, 0 for
 * no floor). Fails only with CG_ENOMEM / CG_EOVERFLOW. */
cg_status cg__floor_regions(const cg_grid *g, uint64_t *count, uint64_t *largest);
/* Every floor region but the largest (ties: the first in scan order) becomes
 * wall; markers on those cells are dropped. */
cg_status cg__keep_largest_floor(cg_grid *g);

/* regions/connect.c: carves corridors width cells wide until g has at most one floor
 * region; *corridors (if not NULL) gets how many were carved. */
cg_status cg__connect(cg_grid *g, uint32_t width, uint64_t *corridors);
/* The same for only the `largest` largest floor regions (ties: the first in
 * scan order): they end as one region; the others are left as they are,
 * unless a corridor crosses or touches one. largest == 0: every region. */
cg_status cg__connect_largest(cg_grid *g, uint32_t width, uint32_t largest, uint64_t *corridors);

/* The union-find over labels of the labeller and the striped removal: the
 * root of x (with path halving), and the union of a's and b's sets, whose
 * root is the smaller label - the region's first part in scan order. */
static inline uint32_t cg__uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static inline void cg__uf_unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = cg__uf_find(parent, a);
    b = cg__uf_find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

#endif
