/* par.h - rows in stripes (cells/par.c): the steps that compute each row
 * from a source grid alone (fill, the automaton rules) run their rows
 * through cg__par_rows, so a big map uses the caller's threads. */
#ifndef CG_CELLS_PAR_H
#define CG_CELLS_PAR_H

#include <stdint.h>

#include "core/grid.h"

/* A caller's parallel loop (cg_run_options.parallel), or fn NULL for one thread. */
typedef struct cg__par {
    cg_parallel_fn fn;
    void *ctx;
} cg__par;

/* Runs rows(arg, y0, y1) over stripes covering rows 0..g->h-1, several at
 * once when par allows and g is large enough to gain; the stripes do not
 * depend on the threads, nor does the result. */
void cg__par_rows(const cg__par *par, const cg_grid *g,
                  void (*rows)(void *arg, uint32_t y0, uint32_t y1), void *arg);

/* The stripes cg__par_rows cuts g into: 1 without a loop or when g is too
 * small to gain. */
uint32_t cg__par_count(const cg__par *par, const cg_grid *g);

/* Runs stripe(arg, i, y0, y1) for the n stripes of g's rows (1 <= n <=
 * g->h; stripe i is rows h*i/n .. h*(i+1)/n - 1) through par, which may run
 * them at once and in any order. */
void cg__par_stripes(const cg__par *par, const cg_grid *g, uint32_t n,
                     void (*stripe)(void *arg, uint32_t i, uint32_t y0, uint32_t y1), void *arg);

#endif
