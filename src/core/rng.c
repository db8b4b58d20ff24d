/* core/rng.c - the library's only source of randomness.
 *
 * No rand(), no global state: every random decision is a hash of the seed,
 * the step that makes it and the cell it is about, so a result never depends
 * on evaluation order, thread count or platform (docs/determinism.md). The mixer is the
 * splitmix64 finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom
 * number generators", 2014), a bijection on 64 bits with full avalanche.
 * docs/randomness.md documents the exact construction. */
#include "core/rng.h"

uint64_t cg__mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t cg__step_key(uint64_t seed, uint32_t kind, uint32_t ordinal)
{
    uint64_t k = cg__mix64(seed + UINT64_C(0x9E3779B97F4A7C15));
    return cg__mix64(k ^ (((uint64_t)kind << 32) | ordinal));
}

uint32_t cg__rng_below(cg__rng *r, uint32_t n)
{
    /* D. Lemire, "Fast random integer generation in an interval", 2019:
     * multiply-shift, rejecting the few values that would bias the result. */
    uint64_t m = (cg__rng_next(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (cg__rng_next(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}
