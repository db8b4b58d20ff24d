/* oracle.h - the plain scalar reference for the cellular-automaton rules.
 *
 * A map here is a row-major array of w*h bytes, 1 = wall, 0 = floor, cell
 * (x, y) at index y*w + x. Every function is a bounds-checked per-cell loop
 * that reads cells outside the map as wall, written to mirror the seed it
 * comes from rather than to be fast: the library's bit-parallel kernels are
 * tested against it, and the benchmark uses it as the "naive C" baseline.
 *
 * The single-generation functions read only src and write every cell of dst
 * (double buffering); src and dst must not overlap. w and h must be >= 1.
 */
#ifndef CG_ORACLE_H
#define CG_ORACLE_H

#include <stdint.h>

/* The cell at (x, y), or 1 (wall) outside the map. */
uint8_t oracle_cell(const uint8_t *cells, int w, int h, int x, int y);

/* One generation of the r1/r2 rule (the cellular-automaton cave article). For each cell not on
 * the outer ring: v1 = walls in the 3x3 block, v2 = walls in the 5x5 block
 * without its 4 corners, both including the cell itself when self is nonzero
 * (9 and 21 cells) and excluding it when self is 0 (8 and 20 cells); the cell
 * becomes wall iff v1 >= r1 or v2 <= r2. The outer ring becomes wall. */
void oracle_generation(const uint8_t *src, uint8_t *dst, int w, int h, int r1, int r2, int self);

/* The same rule with no outer ring: every cell of the map is computed,
 * cells outside reading as wall - a window of the infinite cave, where no
 * cell lies on a border (docs/scale.md). */
void oracle_generation_open(const uint8_t *src, uint8_t *dst, int w, int h, int r1, int r2,
                            int self);

/* One smoothing pass (the Russian cellular-automata article): every cell, border included, becomes wall iff
 * at least `walls` of its 8 neighbours are walls. The cell itself is not
 * counted. */
void oracle_smooth(const uint8_t *src, uint8_t *dst, int w, int h, int walls);

/* One pass of the floor-count rule (the level article): every cell, border included,
 * becomes floor iff the number of floor cells in its 3x3 block (itself
 * included; outside cells are walls) is in lo..hi, else wall. */
void oracle_rule(const uint8_t *src, uint8_t *dst, int w, int h, int lo, int hi);

/* n passes of the rule above, in place on cells (through a scratch buffer).
 * Return 0, or -1 if the scratch buffer cannot be allocated. */
int oracle_generations(uint8_t *cells, int w, int h, int n, int r1, int r2, int self);
int oracle_generations_open(uint8_t *cells, int w, int h, int n, int r1, int r2, int self);
int oracle_smooths(uint8_t *cells, int w, int h, int n, int walls);
int oracle_rules(uint8_t *cells, int w, int h, int n, int lo, int hi);

#endif
