/* regions/stats.c - queries on a finished map: the figures of `cavegen --stats`
 * (cg_grid_stats) and the list of its markers. docs/placement.md defines
 * each figure. */
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "regions/flood.h"
#include "regions/regions.h"

/* Floor cells with exactly one floor cell among their 4 neighbours, 64 at a
 * time: with n, s, w, e the neighbour masks, "exactly one" is an odd count
 * of the pairs' sums with neither pair full. Outside cells are wall. */
static uint64_t count_dead_ends(const cg_grid *g)
{
    uint64_t total = 0;
    for (uint32_t y = 0; y < g->h; y++) {
        const uint64_t *a = cg__row(g, (int64_t)y - 1), *b = cg__row(g, y);
        const uint64_t *c = cg__row(g, (int64_t)y + 1);
        for (size_t i = 0; i < g->nw; i++) {
            uint64_t n = ~a[i], s = ~c[i];
            uint64_t w = ~(b[i] << 1 | b[(ptrdiff_t)i - 1] >> 63);
            uint64_t e = ~(b[i] >> 1 | b[i + 1] << 63);
            uint64_t one = (n ^ s ^ w ^ e) & ~(n & s) & ~(w & e);
            total += (uint64_t)__builtin_popcountll(~b[i] & one);
        }
    }
    return total;
}

static cg_status compute(const cg_grid *grid, cg_stats *stats)
{
    cg_stats s = {0};
    s.width = grid->w;
    s.height = grid->h;
    s.floor = cg_grid_floor_count(grid);
    s.dead_ends = count_dead_ends(grid);
    for (size_t i = 0; i < grid->nmarks; i++)
        s.points += grid->marks[i].kind == CG_MARK_POI;
    cg_status st = cg__floor_regions(grid, &s.regions, &s.largest_region);
    uint32_t x0, y0, x1, y1;
    s.path_length = -1;
    if (st == CG_OK && cg__find_mark(grid, CG_MARK_ENTRANCE, &x0, &y0) &&
        cg__find_mark(grid, CG_MARK_EXIT, &x1, &y1))
        st = cg__path_length(grid, x0, y0, x1, y1, &s.path_length);
    if (st != CG_OK)
        return st;
    *stats = s;
    return CG_OK;
}

cg_status cg_grid_stats(const cg_grid *grid, const cg_stats_options *options, cg_stats *stats,
                        cg_diag *diag)
{
    if (!grid || !stats) {
        cg__diag(diag, 0, 0, "the figures need a map and a cg_stats to fill");
        return CG_EINVAL;
    }
    uint64_t max_memory = 0;
    if (options) {
        cg_status st = cg__reserved_zero(options->reserved,
                                         sizeof options->reserved / sizeof options->reserved[0],
                                         "cg_stats_options", diag);
        if (st != CG_OK)
            return st;
        max_memory = options->max_memory;
    }
    /* Without a limit of its own, a call made under a budget (the JSON
     * writer's, with NULL options) counts against that one. */
    cg__budget budget = {0};
    if (max_memory)
        cg__budget_begin(&budget, max_memory);
    cg_status st = compute(grid, stats);
    if (max_memory)
        cg__budget_end(&budget);
    if (st == CG_ENOMEM && budget.refused) {
        char limit[32];
        cg_format_bytes(limit, budget.limit, 0);
        cg__diag(diag, 0, 0, "the statistics of a %ux%u map need more than the memory budget of %s",
                 grid->w, grid->h, limit);
    } else if (st == CG_ENOMEM) {
        cg__diag(diag, 0, 0, "out of memory computing the statistics of a %ux%u map", grid->w,
                 grid->h);
    }
    return st;
}

size_t cg_grid_marker_count(const cg_grid *grid)
{
    return grid->nmarks;
}

cg_status cg_grid_marker_at(const cg_grid *grid, size_t index, uint32_t *x, uint32_t *y,
                            cg_marker *kind)
{
    if (index >= grid->nmarks)
        return CG_EINVAL;
    *x = grid->marks[index].x;
    *y = grid->marks[index].y;
    *kind = (cg_marker)grid->marks[index].kind;
    return CG_OK;
}
