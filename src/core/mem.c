/* core/mem.c - the per-run memory budget behind the allocator of core/mem.h. */
#define _DEFAULT_SOURCE /* madvise */
#include "cavegen/cavegen.h"
#include "core/mem.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>

/* The budget of the run in progress on this thread, or NULL. */
static _Thread_local cg__budget *current;

/* Ids tell a block counted by this run from one of an earlier run at the
 * same address on the stack. A thread takes them ID_BLOCK at a time, so
 * that a batch of small maps (a budget for each run and each write) does
 * not pay an atomic add for each. */
#define ID_BLOCK 4096u
static atomic_uint_fast64_t next_id = 1;
static _Thread_local uint64_t ids_next, ids_end;

void cg__budget_begin(cg__budget *b, uint64_t limit)
{
    *b = (cg__budget){0};
    b->limit = limit ? limit : UINT64_MAX;
    if (ids_next == ids_end) {
        ids_next = (uint64_t)atomic_fetch_add_explicit(&next_id, ID_BLOCK, memory_order_relaxed);
        ids_end = ids_next + ID_BLOCK;
    }
    b->id = ids_next++;
    b->prev = current;
    current = b;
}

void cg__budget_end(cg__budget *b)
{
    current = b->prev;
}

cg__budget *cg__budget_suspend(void)
{
    cg__budget *b = current;
    current = NULL;
    return b;
}

void cg__budget_resume(cg__budget *b)
{
    current = b;
}

int cg__mem_admit(size_t size, uint64_t *id)
{
    cg__budget *b = current;
    if (!b) {
        *id = 0;
        return 1;
    }
    if (size > b->limit - b->used) {
        if (!b->refused)
            b->refused = size;
        return 0;
    }
    b->used += size;
    if (b->used > b->peak)
        b->peak = b->used;
    *id = b->id;
    return 1;
}

void cg__mem_release(size_t size, uint64_t id)
{
    cg__budget *b = current;
    if (b && id == b->id)
        b->used -= size;
}

void cg_format_bytes(char buf[32], uint64_t bytes, int up)
{
    static const char *const units[] = {"bytes", "KiB", "MiB"};
    const unsigned u = bytes >= (UINT64_C(1) << 20) ? 2 : bytes >= 1024 ? 1 : 0, shift = 10 * u;
    const uint64_t round = up ? (UINT64_C(1) << shift) - 1 : 0;
    if (u && bytes < (UINT64_C(10) << shift)) { /* tenths: 10..99 */
        uint64_t t = (bytes * 10 + round) >> shift;
        if (t % 10 && t < 100) {
            snprintf(buf, 32, "%" PRIu64 ".%" PRIu64 " %s", t / 10, t % 10, units[u]);
            return;
        }
    }
    uint64_t whole = (bytes >> shift) + (up && (bytes & round) ? 1 : 0);
    snprintf(buf, 32, "%" PRIu64 " %s", whole, units[u]);
}

void cg__mem_advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = CG__HUGE_PAGE;
    const uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    const uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
