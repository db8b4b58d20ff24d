/* passes.h - what the automaton steps (generations, smooth, rule) share:
 * a pass count, running N double-buffered passes in stripes, and the chunk
 * margin N passes add (steps/passes.c). */
#ifndef CG_STEPS_PASSES_H
#define CG_STEPS_PASSES_H

#include <stdint.h>

#include "engine/steps.h"

/* The optional pass count N (default 1) from the line's positional value. */
cg_status cg__parse_passes(const cg__args *a, uint32_t *n, cg_diag *diag);

/* One pass: rows y0..y1-1 of dst computed from src alone. */
typedef void (*cg__pass_fn)(const cg__step *step, const cg_grid *src, cg_grid *dst, uint32_t y0,
                            uint32_t y1);

/* Runs n passes, the map and run->scratch swapping after each; big maps run
 * each pass in stripes (cg__par_rows). */
cg_status cg__run_passes(const cg__step *step, cg__run *run, uint32_t n, cg__pass_fn pass);

/* Each of n passes reads its neighbours up to radius cells away. */
static inline uint64_t cg__margin_passes(uint64_t margin, uint32_t n, uint32_t radius)
{
    return margin + (uint64_t)n * radius;
}

#endif
