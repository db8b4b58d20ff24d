/* core/mem.h - the library's allocator: every allocation of the library goes
 * through cg__malloc, cg__calloc, cg__realloc and cg__free, which put a
 * small header before each block recording its size, so that a pipeline
 * run can count the bytes it holds and refuse an allocation that would take
 * it over cg_run_options.max_memory (a size too big fails
 * with a message, never by the OOM killer). An estimate made before the run
 * (cg_pipeline_memory) cannot bound what depends on the map - region
 * labels, queues, candidate lists - so the run checks each allocation
 * before making it.
 *
 * The budget of the run in progress is per thread: a run executes its steps
 * on the calling thread (parallel stripes allocate nothing), so runs on
 * different threads never share a count and a map never depends on what
 * other threads do. Blocks made outside a run, or by another run, are not
 * counted when freed: the header names the budget that counted them.
 *
 * The wrappers are always inlined so that a wrapped malloc (the allocation
 * failure test, tests/alloc_inject.c) still sees each call site's own
 * return address. */
#ifndef CG_MEM_H
#define CG_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cg__budget {
    uint64_t limit;          /* bytes the run may hold at once (UINT64_MAX: no limit) */
    uint64_t used;           /* bytes held now, headers included */
    uint64_t peak;           /* the most held at once */
    uint64_t id;             /* nonzero and unique in the process */
    uint64_t refused;        /* the size of the first allocation refused, or 0 */
    struct cg__budget *prev; /* the budget of an enclosing run, restored at the end */
} cg__budget;

/* Starts counting this thread's allocations against b (limit 0: none),
 * instead of against the enclosing budget if any: nest only budgets whose
 * limit is within the enclosing one's room. */
void cg__budget_begin(cg__budget *b, uint64_t limit);
/* Stops counting against b; the enclosing budget, if any, is current again. */
void cg__budget_end(cg__budget *b);

/* Around a call into the caller's parallel loop (cg__par_rows): while this
 * thread waits it may run other work of the caller's, which must not count
 * against this run. Suspend returns the budget that resume makes current
 * again. */
cg__budget *cg__budget_suspend(void);
void cg__budget_resume(cg__budget *b);

/* Admits size more bytes to the current budget, if any: 0 when that would
 * pass its limit. *id gets the budget's id, 0 without one. */
int cg__mem_admit(size_t size, uint64_t *id);
/* Gives back size bytes counted by the budget with this id, if it is the
 * current one. */
void cg__mem_release(size_t size, uint64_t id);

/* Asks for huge pages (Linux's MADV_HUGEPAGE) for the whole 2 MiB pages
 * inside the block at p of the given bytes: fewer page faults and TLB
 * misses on the large arrays a search writes at random. Advice only,
 * ignored where not supported; best given before the pages are touched. */
void cg__mem_advise_huge(void *p, size_t bytes);

/* Aligned as max_align_t, so payloads stay aligned as malloc's: 16 bytes on
 * x86-64 and AArch64. */
typedef struct cg__mem_hdr {
    _Alignas(max_align_t) size_t size; /* payload bytes */
    uint64_t id;                       /* the budget that counted the block, 0: none */
} cg__mem_hdr;

#define CG__MEM_INLINE static inline __attribute__((always_inline))

/* Blocks up to this size come from malloc's per-thread cache (glibc keeps
 * blocks up to 1032 bytes there). */
#define CG__MEM_SMALL 1000u

/* Admits n payload bytes to the budget; 0 if they do not fit. */
CG__MEM_INLINE int cg__mem_fits(size_t n, uint64_t *id)
{
    return n <= SIZE_MAX - sizeof(cg__mem_hdr) && cg__mem_admit(sizeof(cg__mem_hdr) + n, id);
}

/* The payload of a block just made, or NULL (the bytes admitted go back). */
CG__MEM_INLINE void *cg__mem_take(cg__mem_hdr *h, size_t n, uint64_t id)
{
    if (!h) {
        cg__mem_release(sizeof *h + n, id);
        return NULL;
    }
    h->size = n;
    h->id = id;
    return h + 1;
}

CG__MEM_INLINE void *cg__malloc(size_t n)
{
    uint64_t id;
    return cg__mem_fits(n, &id) ? cg__mem_take(malloc(sizeof(cg__mem_hdr) + n), n, id) : NULL;
}

CG__MEM_INLINE void *cg__calloc(size_t count, size_t size)
{
    uint64_t id;
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t n = count * size;
    if (!cg__mem_fits(n, &id))
        return NULL;
    /* glibc's calloc bypasses its per-thread cache (tcache) that free fills:
     * a small block made by calloc and freed at every map (a grid's struct)
     * fills the cache, then the fast bins, and the next large malloc
     * consolidates them. Small blocks are malloc'd and cleared here;
     * large ones keep calloc, which gets fresh pages already zero. */
    if (n <= CG__MEM_SMALL) {
        void *p = cg__mem_take(malloc(sizeof(cg__mem_hdr) + n), n, id);
        return p ? memset(p, 0, n) : NULL;
    }
    return cg__mem_take(calloc(1, sizeof(cg__mem_hdr) + n), n, id);
}

/* Like realloc; while the block moves both copies are counted, as both
 * exist. */
CG__MEM_INLINE void *cg__realloc(void *p, size_t n)
{
    if (!p)
        return cg__malloc(n);
    uint64_t id;
    cg__mem_hdr *old = (cg__mem_hdr *)p - 1;
    const size_t old_n = old->size;
    const uint64_t old_id = old->id;
    if (!cg__mem_fits(n, &id))
        return NULL;
    cg__mem_hdr *h = realloc(old, sizeof *h + n);
    if (h)
        cg__mem_release(sizeof *h + old_n, old_id);
    return cg__mem_take(h, n, id);
}

CG__MEM_INLINE void cg__free(void *p)
{
    if (!p)
        return;
    cg__mem_hdr *h = (cg__mem_hdr *)p - 1;
    cg__mem_release(sizeof *h + h->size, h->id);
    free(h);
}

/* The size of a huge page (x86-64's and AArch64's usual 2 MiB). */
#define CG__HUGE_PAGE ((uintptr_t)2 << 20)

/* p moved up to the next huge page boundary (p itself if on one). */
CG__MEM_INLINE char *cg__huge_align(char *p)
{
    return p + ((CG__HUGE_PAGE - ((uintptr_t)p & (CG__HUGE_PAGE - 1))) & (CG__HUGE_PAGE - 1));
}

/* A block of bytes (not cleared) for a large array written from its start,
 * or NULL: it starts on a 2 MiB boundary and its whole 2 MiB pages are
 * advised onto huge pages (cg__mem_advise_huge). Only the whole huge pages
 * of a block can be huge, and from malloc's address the first megabyte or
 * so would be 4 KB pages, each a page fault (about 11-14 us each on a
 * virtual machine, against about 0.12 ms for a whole huge page). It is
 * rounded up to whole huge pages, plus one for the alignment: address
 * space, only touched where used, but counted by the memory budget. *block
 * gets the allocation to give to cg__free. */
CG__MEM_INLINE void *cg__malloc_huge(size_t bytes, void **block)
{
    *block = NULL;
    if (bytes > SIZE_MAX - 2 * CG__HUGE_PAGE)
        return NULL;
    const size_t span = (bytes + CG__HUGE_PAGE - 1) & ~(size_t)(CG__HUGE_PAGE - 1);
    char *raw = cg__malloc(span + CG__HUGE_PAGE);
    if (!raw)
        return NULL;
    char *p = cg__huge_align(raw);
    cg__mem_advise_huge(p, span);
    *block = raw;
    return p;
}

#endif
