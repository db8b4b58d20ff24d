/* mem.c - the per-run memory budget behind the allocator of mem.h. */
#include "mem.h"

#include <stdatomic.h>

/* The budget of the run in progress on this thread, or NULL. */
static _Thread_local cg__budget *current;

/* Ids tell a block counted by this run from one of an earlier run at the
 * same address on the stack. */
static atomic_uint_fast64_t next_id = 1;

void cg__budget_begin(cg__budget *b, uint64_t limit)
{
    *b = (cg__budget){0};
    b->limit = limit ? limit : UINT64_MAX;
    b->id = (uint64_t)atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
    b->prev = current;
    current = b;
}

void cg__budget_end(cg__budget *b)
{
    current = b->prev;
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
