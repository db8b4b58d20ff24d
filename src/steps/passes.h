/* passes.h - what the automaton steps (generations, smooth, rule) share:
 * a pass count, running N passes in stripes (double-buffered, or in place
 * for big maps), and the chunk margin N passes add (steps/passes.c). */
#ifndef CG_STEPS_PASSES_H
#define CG_STEPS_PASSES_H

#include <stdint.h>

#include "engine/steps.h"

/* The optional pass count N (default 1) from the line's positional value. */
cg_status cg__parse_passes(const cg__args *a, uint32_t *n, cg_diag *diag);

/* One pass: rows y0..y1-1 of dst computed from src alone. Row v of src and
 * dst is row top + v of the map, which is map_h rows high (src and dst are
 * the whole map, top 0, or windows of it; src holds the two rows around its
 * own in its padding rows). */
typedef void (*cg__pass_fn)(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                            uint32_t y1, uint32_t top, uint32_t map_h);

/* Runs n passes; big maps run each pass in stripes (cg__par_rows). With
 * run->scratch the map and it swap after each pass; without it (a map of
 * cg__passes_in_place size) each pass runs in place through small windows. */
cg_status cg__run_passes(const cg__step *step, cg__run *run, uint32_t n, cg__pass_fn pass);

/* Nonzero if passes on a w x h map run in place, without run->scratch: the
 * pipeline then makes none. */
int cg__passes_in_place(uint32_t w, uint32_t h);
/* For the tests: maps of at least this many cells run in place (0: the
 * default), so that small maps take that path too. */
void cg__set_in_place_cells(uint64_t cells);

/* Each of n passes reads its neighbours up to radius cells away. */
static inline uint64_t cg__margin_passes(uint64_t margin, uint32_t n, uint32_t radius)
{
    return margin + (uint64_t)n * radius;
}

#endif
