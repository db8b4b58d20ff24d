/* palette.h - the colours of the pictures (io/palette.c): one definition for
 * the PNG writers and the terminal picture, so a map looks the same in
 * both. */
#ifndef CG_IO_PALETTE_H
#define CG_IO_PALETTE_H

#include <stdint.h>

typedef struct cg__rgb {
    uint8_t r, g, b;
} cg__rgb;

extern const cg__rgb cg__wall_rgb, cg__floor_rgb;
extern const cg__rgb cg__outline_rgb; /* around the markers' glyphs */

/* The colour of a marker by its symbol (cg__mark.sym): '<' entrance, '>'
 * exit, 'x' blocked, '*' a point of interest, 'A'..'Z' points of named
 * kinds. */
cg__rgb cg__mark_rgb(uint8_t sym);

/* The reach ramp's colours: a PNG palette's 256 entries less the fixed
 * ones (io/png.h); the terminal picture uses the same steps. */
#define CG__RAMP_STEPS 223u

/* Entry i of a ramp of n colours over distance, near (yellow) to far (deep
 * violet), like viridis; integer arithmetic, the same on every platform.
 * i in 0..n-1, n >= 2. */
cg__rgb cg__ramp_rgb(uint32_t i, uint32_t n);

#endif
