/* automaton.h - the cellular-automaton rules on the bitboard
 * (cells/automaton.c; docs/algorithms.md): each reads src and writes dst
 * (same size). */
#ifndef CG_CELLS_AUTOMATON_H
#define CG_CELLS_AUTOMATON_H

#include <stdint.h>

#include "core/grid.h"

/* Wall iff v1 >= r1 or v2 <= r2 (v1: walls in the 3x3 block, v2: in the
 * 5x5 block minus corners; self = 0 leaves the centre out of both). */
void cg__generation(const cg_grid *src, cg_grid *dst, int r1, int r2, int self);
/* Wall iff at least `walls` of the 8 neighbours are walls. */
void cg__smooth(const cg_grid *src, cg_grid *dst, int walls);
/* Floor iff lo..hi of the 9 cells of the 3x3 block are floor. */
void cg__rule(const cg_grid *src, cg_grid *dst, int lo, int hi);
/* The same for rows y0..y1-1 of dst only, ring and tail bits included: each
 * reads src alone, so disjoint stripes of rows may run at once. */
void cg__generation_rows(const cg_grid *src, cg_grid *dst, int r1, int r2, int self, uint32_t y0,
                         uint32_t y1);
/* cg__generation_rows on windows of a taller map: row v of src and dst is
 * row top + v of a map map_h rows high, whose first and last rows are its
 * ring (src holds the two rows around its own in its padding rows). */
void cg__generation_rows_at(const cg_grid *src, cg_grid *dst, int r1, int r2, int self, uint32_t y0,
                            uint32_t y1, uint32_t top, uint32_t map_h);
void cg__smooth_rows(const cg_grid *src, cg_grid *dst, int walls, uint32_t y0, uint32_t y1);
void cg__rule_rows(const cg_grid *src, cg_grid *dst, int lo, int hi, uint32_t y0, uint32_t y1);
/* All n passes of cg__generation on g in place, on a packed copy, when g
 * is narrow and small enough, its width not a multiple of 64, it holds no
 * markers and the kernel path is a vector one; returns 0 (g untouched)
 * otherwise. Same cells as n passes of cg__generation. */
int cg__generation_passes(cg_grid *g, int r1, int r2, int self, uint32_t n);
/* Sets the tail bits (past the width) of rows y0..y1-1. */
void cg__fix_tail_rows(cg_grid *g, uint32_t y0, uint32_t y1);

#endif
