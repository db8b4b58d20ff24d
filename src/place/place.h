/* place/place.h - what the placement steps share (place/place.c): the floor
 * the entrance reaches, the spacing between markers, the candidate cells and
 * the draws of a shuffle. One file per step: entrance.c (`entrance`,
 * `exit`), poi.c, occupy.c, require.c. */
#ifndef CG_PLACE_PLACE_H
#define CG_PLACE_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/grid.h"
#include "core/rng.h"
#include "engine/steps.h"

/* The floor the map's entrance marker reaches, moving as a unit: never into
 * a blocked cell (docs/placement.md, "Blocked cells"). *have: there is an
 * entrance. *region: a new grid holding that floor, or NULL when it is all
 * the floor of the map (or there is no entrance). *count: its cells. */
cg_status cg__entrance_region(const cg__run *run, cg_grid **region, int *have, uint64_t *count);

/* "NAME: out of memory for a WxH map" in the run's diag; returns st. */
cg_status cg__place_oom(const cg__step *step, cg__run *run, cg_status st);

/* The points placed so far, bucketed by cells of side `spacing` so a new
 * point is checked against the 3x3 buckets around it only: any point closer
 * than `spacing` lies there. Open addressing over bucket coordinates. */
typedef struct cg__points {
    uint64_t *xy;   /* packed cells */
    uint32_t *next; /* chain within a bucket; UINT32_MAX ends it */
    uint32_t n;
    uint64_t *keys;    /* bucket key + 1; 0 = empty slot */
    uint32_t *heads;   /* first point of the slot's bucket */
    size_t mask;       /* slots - 1 */
    uint64_t side;     /* bucket side: max(spacing, 1) */
    uint64_t spacing2; /* spacing squared */
} cg__points;

/* Room for max points at least `spacing` apart (0: any distinct cells). */
cg_status cg__points_init(cg__points *p, size_t max, uint64_t spacing);
void cg__points_free(cg__points *p);
/* Nonzero if (x, y) is at least the spacing from every point added. */
int cg__points_far(const cg__points *p, uint64_t x, uint64_t y);
/* Adds (x, y); at most the max of cg__points_init in all. */
void cg__points_add(cg__points *p, uint64_t x, uint64_t y);

/* The candidate cells in scan order, packed y << 32 | x: floor in `from`
 * (the entrance's region, or the map) without a marker in g. *out is the
 * caller's (cg__free). */
cg_status cg__list_candidates(const cg_grid *g, const cg_grid *from, uint64_t **out, size_t *n);

/* Uniform in 0..n-1: cg__rng_below while n fits 32 bits; beyond (maps of
 * more than 2^32 floor cells), rejection from a power-of-two mask. */
uint64_t cg__below64(cg__rng *rng, uint64_t n);

/* What poi and occupy draw: `count` cells from the shuffled candidates (the
 * floor the entrance reaches, else all floor; never a marked cell), each at
 * least `spacing` from the markers `counts` selects and from the cells drawn
 * before it, and accepted by `fits` if given (called once for each cell far
 * enough, in the shuffle's order; nonzero takes the cell). */
typedef struct cg__draw {
    uint32_t count;
    uint64_t spacing;
    int (*counts)(const cg__mark *m);
    int (*fits)(void *ctx, uint64_t x, uint64_t y);
    void *ctx;
} cg__draw;

/* Draws with the step's random stream: *cells (the caller's, cg__free) gets
 * the *n cells taken, packed, in the order drawn; *n < count when not
 * enough fit. The shuffle is Fisher-Yates drawn lazily: the i-th cell looked
 * at is the i-th of the full shuffle, and only as many draws are made as
 * cells are looked at. */
cg_status cg__draw_cells(const cg__step *step, cg__run *run, const cg__draw *d, uint64_t **cells,
                         uint32_t *n);
/* Test hook: nonzero makes cg__draw_cells list every candidate (as on large
 * maps) on small maps too, where it otherwise keeps them as bits and
 * remembers only the cells the shuffle moved. */
void cg__draw_force_list(int on);

/* Adds n markers of a kind and symbol on the packed cells (free of markers),
 * keeping the (y, x) order; sorts cells. */
cg_status cg__add_marks(cg_grid *g, uint64_t *cells, size_t n, cg_marker kind, uint8_t sym);

#endif
