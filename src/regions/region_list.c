/* regions/region_list.c - cg_grid_regions: the map's floor regions for a
 * game - a label per cell into the caller's buffer and a list of regions
 * with their size, bounding box and first cell - from one pass of the
 * run-based labeller (regions/regions.c). */
#include <string.h>

#include "core/diag.h"
#include "core/mem.h"
#include "regions/regions.h"

/* What the labeller's row hook gathers, by label before resolution: the
 * bounding box of its runs, and (with a label buffer) the label itself
 * written into the runs' cells. */
typedef struct gather {
    uint32_t *x0, *x1, *y0, *y1; /* x1, y1 inclusive */
    size_t cap;
    uint32_t *labels; /* NULL: the caller wants the list only */
    size_t stride;
    cg_status st;
} gather;

static int grow(gather *ga, size_t need)
{
    if (need <= ga->cap)
        return 1;
    size_t cap = ga->cap ? ga->cap : 256;
    while (cap < need)
        cap *= 2;
    uint32_t **arrays[4] = {&ga->x0, &ga->x1, &ga->y0, &ga->y1};
    for (int k = 0; k < 4; k++) {
        uint32_t *p = cg__realloc(*arrays[k], cap * sizeof *p);
        if (!p)
            return 0;
        *arrays[k] = p;
    }
    for (size_t l = ga->cap; l < cap; l++) {
        ga->x0[l] = ga->y0[l] = UINT32_MAX;
        ga->x1[l] = ga->y1[l] = 0;
    }
    ga->cap = cap;
    return 1;
}

static void on_row(void *ctx, uint32_t y, const uint32_t *x0, const uint32_t *x1,
                   const uint32_t *label, size_t n)
{
    gather *ga = ctx;
    for (size_t j = 0; j < n && ga->st == CG_OK; j++) {
        uint32_t l = label[j];
        if (!grow(ga, (size_t)l + 1)) {
            ga->st = CG_ENOMEM;
            return;
        }
        ga->x0[l] = x0[j] < ga->x0[l] ? x0[j] : ga->x0[l];
        ga->x1[l] = x1[j] - 1 > ga->x1[l] ? x1[j] - 1 : ga->x1[l];
        ga->y0[l] = y < ga->y0[l] ? y : ga->y0[l];
        ga->y1[l] = y > ga->y1[l] ? y : ga->y1[l];
        if (ga->labels) {
            uint32_t *row = ga->labels + (size_t)y * ga->stride;
            for (uint32_t x = x0[j]; x < x1[j]; x++)
                row[x] = l + 1; /* resolved below */
        }
    }
}

cg_status cg_grid_regions(const cg_grid *grid, uint32_t *labels, size_t stride, cg_region *regions,
                          size_t cap, size_t *count, cg_diag *diag)
{
    if (!grid || !count || (labels && stride < grid->w) || (!regions && cap)) {
        cg__diag(diag, 0, 0, "cg_grid_regions: %s",
                 !grid || !count ? "no map or no count"
                 : labels        ? "stride under the width"
                                 : "no region array");
        return CG_EINVAL;
    }
    if (labels)
        for (uint32_t y = 0; y < grid->h; y++)
            memset(labels + (size_t)y * stride, 0, grid->w * sizeof *labels);
    gather ga = {.labels = labels, .stride = stride, .st = CG_OK};
    cg__labeller lb;
    cg_status st = cg__label(&lb, grid, 0, on_row, &ga);
    int labelled = st == CG_OK; /* else cg__label freed lb */
    if (st == CG_OK)
        st = ga.st;
    /* Roots are numbered in scan order of their first cell: region i is the
     * (i+1)-th root. */
    uint32_t *ord = NULL;
    if (st == CG_OK && lb.n && !(ord = cg__malloc(lb.n * sizeof *ord)))
        st = CG_ENOMEM;
    size_t n = 0;
    for (size_t l = 0; st == CG_OK && l < lb.n; l++)
        if (lb.parent[l] == l)
            ord[l] = (uint32_t)n++;
    for (size_t l = 0; st == CG_OK && l < lb.n; l++) {
        uint32_t r = lb.parent[l];
        size_t i = ord[r];
        if (i >= cap)
            continue;
        if (l == r) {
            uint32_t fx, fy;
            cg__label_first(&lb, r, &fx, &fy);
            regions[i] = (cg_region){lb.size[r], ga.x0[l], ga.y0[l], ga.x1[l], ga.y1[l], {fx, fy}};
        }
    }
    /* Merged labels widen their root's box. */
    for (size_t l = 0; st == CG_OK && l < lb.n; l++) {
        uint32_t r = lb.parent[l];
        size_t i = ord[r];
        if (l == r || i >= cap)
            continue;
        cg_region *g = &regions[i];
        g->x0 = ga.x0[l] < g->x0 ? ga.x0[l] : g->x0;
        g->y0 = ga.y0[l] < g->y0 ? ga.y0[l] : g->y0;
        g->x1 = ga.x1[l] > g->x1 ? ga.x1[l] : g->x1;
        g->y1 = ga.y1[l] > g->y1 ? ga.y1[l] : g->y1;
    }
    if (st == CG_OK && labels)
        for (uint32_t y = 0; y < grid->h; y++) {
            uint32_t *row = labels + (size_t)y * stride;
            for (uint32_t x = 0; x < grid->w; x++)
                if (row[x])
                    row[x] = ord[lb.parent[row[x] - 1]] + 1;
        }
    cg__free(ord);
    cg__free(ga.x0);
    cg__free(ga.x1);
    cg__free(ga.y0);
    cg__free(ga.y1);
    if (labelled)
        cg__labeller_free(&lb);
    if (st != CG_OK) {
        if (labels) /* nothing half-done is left behind */
            for (uint32_t y = 0; y < grid->h; y++)
                memset(labels + (size_t)y * stride, 0, grid->w * sizeof *labels);
        cg__diag(diag, 0, 0, "out of memory labelling a %ux%u map", grid->w, grid->h);
        return st;
    }
    *count = n;
    return n > cap ? CG_EOVERFLOW : CG_OK;
}
