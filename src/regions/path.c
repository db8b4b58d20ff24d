/* regions/path.c - what a game asks of a finished map without changing it:
 * the shortest path between two cells (cg_grid_path) and the distances of a
 * reach into the caller's buffer (cg_grid_distances). Both move as a unit
 * does (docs/placement.md, "Blocked cells"): 4-neighbour steps, never into
 * a wall or a blocked cell, a start on a blocked cell allowed. They run the
 * reach of regions/reach.c on a copy of the map, so the map is only read. */
#include "core/diag.h"
#include "core/grid.h"
#include "regions/reach.h"

/* The reach from starts on a copy of grid, which the caller frees. */
static cg_status reach_copy(const cg_grid *grid, const cg_point *starts, size_t n,
                            uint32_t max_moves, cg_grid **copy, cg_diag *diag)
{
    cg_status st = cg_grid_clone(copy, grid);
    if (st != CG_OK) {
        cg__diag(diag, 0, 0, "out of memory copying a %ux%u map", grid->w, grid->h);
        return st;
    }
    st = cg_grid_reach(*copy, starts, n, max_moves, diag);
    if (st != CG_OK) {
        cg_grid_free(*copy);
        *copy = NULL;
    }
    return st;
}

cg_status cg_grid_path(const cg_grid *grid, cg_point from, cg_point to, cg_point *path, size_t cap,
                       size_t *len, cg_diag *diag)
{
    if (!grid || !len || (!path && cap)) {
        cg__diag(diag, 0, 0, "cg_grid_path: no %s", !grid ? "map" : !len ? "length" : "path array");
        return CG_EINVAL;
    }
    *len = 0;
    if (!cg__is_floor(grid, to.x, to.y)) {
        cg__diag(diag, 0, 0, "the end (%u,%u) is not a floor cell of the %ux%u map", to.x, to.y,
                 grid->w, grid->h);
        return CG_EINVAL;
    }
    cg_grid *copy = NULL;
    cg_status st = reach_copy(grid, &from, 1, CG_MOVES_UNLIMITED, &copy, diag);
    if (st != CG_OK)
        return st;
    uint32_t d = cg_grid_distance(copy, to.x, to.y);
    if (d == CG_UNREACHED) { /* another cave, or behind blocked cells */
        cg_grid_free(copy);
        return CG_OK;
    }
    *len = (size_t)d + 1;
    if (*len > cap) {
        cg_grid_free(copy);
        cg__diag(diag, 0, 0, "the path has %zu cells, more than the %zu given room for", *len, cap);
        return CG_EOVERFLOW;
    }
    /* Back from the end, each step to a neighbour one nearer the start,
     * the first of up, left, right, down: one path, the same every time. */
    static const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
    cg_point at = to;
    path[d] = at;
    for (uint32_t k = d; k-- > 0;) {
        for (int i = 0; i < 4; i++) {
            int64_t nx = (int64_t)at.x + dx[i], ny = (int64_t)at.y + dy[i];
            if (cg_grid_distance(copy, nx, ny) == k) {
                at = (cg_point){(uint32_t)nx, (uint32_t)ny};
                break;
            }
        }
        path[k] = at;
    }
    cg_grid_free(copy);
    return CG_OK;
}

cg_status cg_grid_distances(const cg_grid *grid, const cg_point *starts, size_t nstarts,
                            uint32_t max_moves, uint32_t *dist, size_t stride, uint64_t *reached,
                            cg_diag *diag)
{
    if (!grid || !dist || stride < (grid ? grid->w : 0)) {
        cg__diag(diag, 0, 0, "cg_grid_distances: %s",
                 !grid || !dist ? "no map or no distance array" : "stride under the width");
        return CG_EINVAL;
    }
    cg_grid *copy = NULL;
    cg_status st = reach_copy(grid, starts, nstarts, max_moves, &copy, diag);
    if (st != CG_OK)
        return st;
    const cg__reach *r = copy->reach;
    for (uint32_t y = 0; y < grid->h; y++) {
        uint32_t *row = dist + (size_t)y * stride;
        for (uint32_t x = 0; x < grid->w; x++)
            row[x] = CG_UNREACHED;
        if (y < r->y0 || y - r->y0 >= r->h)
            continue;
        const size_t d = cg__reach_at(r, 0, y - r->y0);
        for (uint32_t i = 0; i < r->w; i++) /* CG_UNREACHED where 0 is stored */
            row[r->x0 + i] = cg__reach_dist(r, d + i);
    }
    if (reached)
        *reached = r->count;
    cg_grid_free(copy);
    return CG_OK;
}
