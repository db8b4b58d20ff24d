/* rng.h - randomness as pure functions of the seed (core/rng.c;
 * docs/randomness.md): no global state, no clock, no rand(). */
#ifndef CG_CORE_RNG_H
#define CG_CORE_RNG_H

#include <stdint.h>

uint64_t cg__mix64(uint64_t z);
/* The key of one random step: seed, step kind, ordinal among steps of that kind. */
uint64_t cg__step_key(uint64_t seed, uint32_t kind, uint32_t ordinal);
/* Hash of a cell under a step key: a pure function of (key, x, y). */
static inline uint64_t cg__cell_hash(uint64_t key, int64_t x, int64_t y)
{
    uint64_t row = cg__mix64(key ^ ((uint64_t)y * UINT64_C(0xD1B54A32D192ED03)));
    return cg__mix64(row + (uint64_t)x * UINT64_C(0x9E3779B97F4A7C15));
}

/* Kinds of random step, mixed into their keys. Never renumber: the numbers
 * are part of every map's identity (docs/randomness.md). */
enum {
    CG__RAND_FILL = 1,
    CG__RAND_DOWNSCALE = 2,
    CG__RAND_ENTRANCE = 3,
    CG__RAND_EXIT = 4,
    CG__RAND_POI = 5,
    CG__RAND_MAZE = 6,
    CG__RAND_OCCUPY = 7
};

/* A stream of random numbers for steps whose decisions are sequential
 * (shuffles, a maze's mole): splitmix64 over a step key. Pass by pointer;
 * never global. */
typedef struct cg__rng {
    uint64_t state;
} cg__rng;

static inline uint64_t cg__rng_next(cg__rng *r)
{
    r->state += UINT64_C(0x9E3779B97F4A7C15);
    return cg__mix64(r->state);
}

/* Uniform in 0..n-1 (n >= 1), without modulo bias (Lemire's method). */
uint32_t cg__rng_below(cg__rng *r, uint32_t n);

#endif
