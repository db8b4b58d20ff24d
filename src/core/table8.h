/* table8.h - tables of eight cells a byte of the bitboard, built by the
 * preprocessor (constant, thread-safe, the same on every endianness):
 * CG__TABLE8(F) is the initialiser of a [256][8] array whose entry v holds
 * F(v, j) for the cells j = 0..7 of a byte v of wall bits (bit j = cell j).
 * The ASCII writer (io/ascii.c) and cg_grid_copy (core/grid_copy.c) convert
 * a row eight cells a lookup with them. */
#ifndef CG_CORE_TABLE8_H
#define CG_CORE_TABLE8_H

#define CG__T8_E(F, v)                                                                             \
    {                                                                                              \
        F(v, 0), F(v, 1), F(v, 2), F(v, 3), F(v, 4), F(v, 5), F(v, 6), F(v, 7)                     \
    }
#define CG__T8_E4(F, v) CG__T8_E(F, v), CG__T8_E(F, v + 1), CG__T8_E(F, v + 2), CG__T8_E(F, v + 3)
#define CG__T8_E16(F, v)                                                                           \
    CG__T8_E4(F, v), CG__T8_E4(F, v + 4), CG__T8_E4(F, v + 8), CG__T8_E4(F, v + 12)
#define CG__T8_E64(F, v)                                                                           \
    CG__T8_E16(F, v), CG__T8_E16(F, v + 16), CG__T8_E16(F, v + 32), CG__T8_E16(F, v + 48)
#define CG__TABLE8(F)                                                                              \
    {                                                                                              \
        CG__T8_E64(F, 0), CG__T8_E64(F, 64), CG__T8_E64(F, 128), CG__T8_E64(F, 192)                \
    }

#endif
