/* alloc_inject.h - allocation-failure injection for tests (docs/testing.md).
 *
 * An executable linked with alloc_inject.c and
 *   -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=free
 * sends every malloc, calloc, realloc and free of its own object files and
 * of the static libcavegen to the wrappers here (calls made inside libc or
 * libpng are not wrapped). While armed, the wrappers count allocations, make
 * the n-th one fail (as SQLite's test harness does) and keep the balance of
 * allocations and frees, so a test can check that a failure leaks nothing
 * even without a leak checker.
 */
#ifndef CG_ALLOC_INJECT_H
#define CG_ALLOC_INJECT_H

#include <stddef.h>
#include <stdint.h>

/* Starts counting; the fail_at-th allocation from now returns NULL (0:
 * none fails). persistent: every allocation after it fails too. */
void alloc_inject_arm(long fail_at, int persistent);

/* Stops counting and failing. */
void alloc_inject_disarm(void);

/* Since the last arm: allocations attempted, whether one was failed, and
 * allocations not yet freed (negative if memory allocated elsewhere was
 * freed). */
long alloc_inject_calls(void);
int alloc_inject_fired(void);
long alloc_inject_live(void);

/* The distinct call sites (return addresses) that reached an allocation
 * while armed, over the whole process. */
size_t alloc_inject_sites(void);
const void *alloc_inject_site(size_t i);

#endif
