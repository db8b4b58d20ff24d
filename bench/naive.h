/* naive.h - the benchmark's "naive C" peer (see naive.c). */
#ifndef CG_BENCH_NAIVE_H
#define CG_BENCH_NAIVE_H

/* One generation of the r1/r2 rule (centre counted; docs/algorithms.md) on an int
 * per cell, row-major, 1 = wall; the outer ring becomes wall. */
void naive_generation(const int *src, int *dst, int w, int h, int r1, int r2);

#endif
