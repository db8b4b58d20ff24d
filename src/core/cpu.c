/* cpu.c - which code path the bit-parallel kernels take (core/cpu.h): the
 * best one this build and CPU can run, unless a test forces one. */
#include "core/cpu.h"

#include <stdatomic.h>

static int forced_path = CG__PATH_AUTO;

/* The best path, found once: the kernels ask for it a score of times a map,
 * and each __builtin_cpu_init re-runs libgcc's CPUID probe. -1 until known;
 * threads that race to it all find the same value. */
static atomic_int best_path = -1;

int cg__kernel_path_available(int path)
{
    switch (path) {
    case CG__PATH_SCALAR:
        return 1;
#if defined(CG__HAVE_VECTOR)
    case CG__PATH_VECTOR:
        return 1;
#endif
#if defined(CG__HAVE_X86)
    case CG__PATH_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    case CG__PATH_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    case CG__PATH_AVX512VBMI2:
        return cg__kernel_path_available(CG__PATH_AVX512) && __builtin_cpu_supports("avx512vbmi2");
#endif
    default:
        return 0;
    }
}

int cg__set_kernel_path(int path)
{
    if (path != CG__PATH_AUTO && !cg__kernel_path_available(path))
        return -1;
    forced_path = path;
    return 0;
}

int cg__kernel_path(void)
{
    if (forced_path != CG__PATH_AUTO)
        return forced_path;
    int best = atomic_load_explicit(&best_path, memory_order_relaxed);
    if (best >= 0)
        return best;
    best = CG__PATH_SCALAR;
    for (int p = CG__PATH_COUNT - 1; p > CG__PATH_SCALAR; p--)
        if (cg__kernel_path_available(p)) {
            best = p;
            break;
        }
    atomic_store_explicit(&best_path, best, memory_order_relaxed);
    return best;
}

const char *cg__kernel_path_name(int path)
{
    static const char *const names[] = {"scalar", "vector", "avx2", "avx512", "avx512vbmi2"};
    return path >= 0 && path < CG__PATH_COUNT ? names[path] : "auto";
}
