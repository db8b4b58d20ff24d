/* alloc_inject.c - the wrappers behind alloc_inject.h.
 *
 * For the tool (cavegen_alloc), the environment arms them at start-up:
 * CAVEGEN_ALLOC_FAIL=N fails the N-th allocation of the process, and
 * CAVEGEN_ALLOC_REPORT=FILE receives "CALLS FIRED SITE" at exit (SITE:
 * the failed allocation's call site), then the allocation call sites
 * reached, one a line; sites are offsets for addr2line -e cavegen_alloc.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "alloc_inject.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

#define MAX_SITES 1024

/* The tool allocates on several threads (-j): the counters are atomic and
 * the site list takes a spin lock (GCC/Clang __atomic builtins). */
static int armed, fired, persistent_mode;
static long calls, fail_at, live;
static const void *sites[MAX_SITES];
static size_t nsites;
static char sites_lock;
static const void *fired_site; /* the first allocation made to fail */

void alloc_inject_arm(long n, int persistent)
{
    armed = 1;
    fired = 0;
    calls = 0;
    live = 0;
    fail_at = n;
    persistent_mode = persistent;
}

void alloc_inject_disarm(void)
{
    armed = 0;
}

long alloc_inject_calls(void)
{
    return calls;
}

int alloc_inject_fired(void)
{
    return fired;
}

long alloc_inject_live(void)
{
    return live;
}

size_t alloc_inject_sites(void)
{
    return nsites;
}

const void *alloc_inject_site(size_t i)
{
    return i < nsites ? sites[i] : NULL;
}

static void note_site(const void *site)
{
    while (__atomic_test_and_set(&sites_lock, __ATOMIC_ACQUIRE))
        ;
    size_t i = 0;
    while (i < nsites && sites[i] != site)
        i++;
    if (i == nsites && nsites < MAX_SITES)
        sites[nsites++] = site;
    __atomic_clear(&sites_lock, __ATOMIC_RELEASE);
}

/* Whether this allocation fails. */
static int fail_now(const void *site)
{
    if (!__atomic_load_n(&armed, __ATOMIC_RELAXED))
        return 0;
    note_site(site);
    long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    if (fail_at > 0 && (n == fail_at || (persistent_mode && n > fail_at))) {
        if (n == fail_at)
            fired_site = site;
        __atomic_store_n(&fired, 1, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

static void count_live(long delta)
{
    if (__atomic_load_n(&armed, __ATOMIC_RELAXED))
        __atomic_add_fetch(&live, delta, __ATOMIC_RELAXED);
}

void *__wrap_malloc(size_t size)
{
    if (fail_now(__builtin_return_address(0)))
        return NULL;
    void *p = __real_malloc(size);
    if (p)
        count_live(1);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (fail_now(__builtin_return_address(0)))
        return NULL;
    void *p = __real_calloc(n, size);
    if (p)
        count_live(1);
    return p;
}

void *__wrap_realloc(void *old, size_t size)
{
    if (fail_now(__builtin_return_address(0)))
        return NULL; /* old stays valid, as after a real failure */
    void *p = __real_realloc(old, size);
    if (p && !old)
        count_live(1);
    return p;
}

void __wrap_free(void *p)
{
    if (p)
        count_live(-1);
    __real_free(p);
}

/* ---------------------------------------------------- the tool's hooks */

#ifdef ALLOC_INJECT_FROM_ENV
static const char *report_path;

static void report(void)
{
    if (!report_path)
        return;
    extern char __executable_start;
    FILE *f = fopen(report_path, "w");
    if (f) {
        fprintf(f, "%ld %d %#lx\n", calls, fired,
                fired ? (unsigned long)((const char *)fired_site - &__executable_start - 1) : 0ul);
        /* The call sites as offsets for addr2line -e cavegen_alloc. */
        for (size_t i = 0; i < nsites; i++) {
            const char *site = sites[i];
            fprintf(f, "%#lx\n", (unsigned long)(site - &__executable_start - 1));
        }
        fclose(f);
    }
}

__attribute__((constructor)) static void arm_from_env(void)
{
    const char *n = getenv("CAVEGEN_ALLOC_FAIL");
    report_path = getenv("CAVEGEN_ALLOC_REPORT");
    if (n) {
        alloc_inject_arm(strtol(n, NULL, 10), 0);
        atexit(report);
    }
}
#endif
