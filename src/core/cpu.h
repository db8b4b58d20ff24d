/* cpu.h - code paths of the bit-parallel kernels (core/cpu.c): the
 * automaton and fill kernels are compiled once per path (cells/automaton.c)
 * and the best one the CPU supports runs unless a test forces one. All
 * give the same bits (docs/determinism.md). */
#ifndef CG_CORE_CPU_H
#define CG_CORE_CPU_H

/* Paths this compiler can build: GCC/Clang vector extensions, and on x86
 * the AVX2 / AVX-512 variants chosen at run time. */
#if defined(__GNUC__)
#define CG__HAVE_VECTOR 1
#if defined(__x86_64__) || defined(__i386__)
#define CG__HAVE_X86 1
#endif
#endif

enum {
    CG__PATH_AUTO = -1,
    CG__PATH_SCALAR = 0, /* one uint64_t at a time, portable C */
    CG__PATH_VECTOR = 1, /* GCC vector extensions, baseline ISA */
    CG__PATH_AVX2 = 2,
    CG__PATH_AVX512 = 3,
    CG__PATH_AVX512VBMI2 = 4, /* AVX-512 plus VBMI2's funnel shifts */
    CG__PATH_COUNT = 5
};
/* Nonzero if this build and CPU can run the path. */
int cg__kernel_path_available(int path);
/* TEST/BENCH ONLY, not thread-safe: force a path (CG__PATH_AUTO undoes it).
 * Returns 0, or -1 (nothing changed) if the path is not available. */
int cg__set_kernel_path(int path);
/* The path the kernels take now, and a path's name ("scalar", ...). */
int cg__kernel_path(void);
const char *cg__kernel_path_name(int path);

#endif
