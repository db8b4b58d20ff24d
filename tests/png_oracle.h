/* png_oracle.h - the reference PNG encoder (tests/png_oracle.c). */
#ifndef CG_TESTS_PNG_ORACLE_H
#define CG_TESTS_PNG_ORACLE_H

#include "cells/par.h"
#include "core/grid.h"

/* cg__write_png as 1.2.0 made it: the bytes the fast writer must give. */
cg_status oracle_write_png(const cg_grid *g, uint32_t scale, const cg__par *par,
                           cg_write_fn write, void *ctx, cg_diag *diag);
/* cg__png_set_stripe_cells for the oracle. */
void oracle_png_set_stripe_cells(uint64_t cells);

#endif
