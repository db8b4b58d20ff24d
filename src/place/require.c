/* place/require.c - `require open>=P% | regions=N | regions<=N`
 * (docs/placement.md): conditions on the map that, unmet, fail the attempt,
 * so the pipeline starts again with its next attempt's seed. open>= is the
 * level article's "enough connected cells" test; regions= keeps only maps
 * whose floor is that many caves. */
#include <stdio.h>

#include "core/diag.h"
#include "core/grid.h"
#include "engine/steps.h"
#include "place/place.h"
#include "regions/regions.h"

enum { REQUIRE_OPEN, REQUIRE_REGIONS, REQUIRE_REGIONS_UP_TO };

#define REQUIRE_MAX_REGIONS 1000000000L

static cg_status parse_require(cg__step *step, const cg__args *a, cg_diag *diag)
{
    /* "open>=P%" and "regions<=N" split at their '=' like any key=value, so
     * the keys are "open>" and "regions<". */
    const cg__token *open = &a->values[REQUIRE_OPEN], *exact = &a->values[REQUIRE_REGIONS],
                    *up_to = &a->values[REQUIRE_REGIONS_UP_TO];
    if (!open->s && !exact->s && !up_to->s)
        return cg__step_missing(step, a, "open>=PERCENT, regions=N or regions<=N", diag);
    if (exact->s && up_to->s) {
        cg__diag(diag, a->line, up_to->column - 9,
                 "require takes regions=N or regions<=N, not both");
        return CG_EPARSE;
    }
    if (open->s) {
        step->u.require.open = 1;
        if (cg__parse_percent(open, a->line, "open", &step->u.require.ppb, diag))
            return CG_EPARSE;
    }
    if (exact->s || up_to->s) {
        long n;
        if (cg__parse_int(exact->s ? exact : up_to, a->line, "regions", 1, REQUIRE_MAX_REGIONS, &n,
                          diag))
            return CG_EPARSE;
        step->u.require.regions = (uint64_t)n;
        step->u.require.regions_up_to = up_to->s != NULL;
    }
    return CG_OK;
}

/* a * b < c * d for 64-bit operands, exactly (128-bit products from 32-bit
 * halves: C11 has no wider integer). */
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *lo = (ll & 0xFFFFFFFFu) | mid << 32;
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static int product_less(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t h1, l1, h2, l2;
    mul128(a, b, &h1, &l1);
    mul128(c, d, &h2, &l2);
    return h1 < h2 || (h1 == h2 && l1 < l2);
}

/* A percentage in parts per billion as typed: "45", "47.5". */
static void format_ppb(char *buf, size_t cap, uint32_t ppb)
{
    uint32_t whole = ppb / 10000000u, frac = ppb % 10000000u;
    int digits = 7;
    while (frac && frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    if (frac)
        snprintf(buf, cap, "%u.%0*u", whole, digits, frac);
    else
        snprintf(buf, cap, "%u", whole);
}

/* open>=P%: the level article, D: "if there are not enough [connected
 * cells], I start again from scratch". Open = the floor the entrance
 * reaches; without an entrance, the largest floor region. */
static cg_status require_open(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    cg_grid *region = NULL;
    uint64_t open = 0, regions;
    int have_entrance;
    cg_status st = cg__entrance_region(run, &region, &have_entrance, &open);
    if (st == CG_OK && !have_entrance)
        st = cg__floor_regions(g, &regions, &open);
    cg_grid_free(region);
    if (st != CG_OK)
        return cg__place_oom(step, run, st);
    uint64_t total = (uint64_t)g->w * g->h;
    if (!product_less(open, 1000000000u, step->u.require.ppb, total))
        return CG_OK;
    /* Tenths of a percent, rounded down so a failure never reads as the
     * threshold itself. */
    uint64_t tenths = open * 1000 / total;
    char want[32];
    format_ppb(want, sizeof want, step->u.require.ppb);
    run->fail_score = open;
    cg__diag(run->diag, step->line, step->column,
             "require open>=%s%%: %llu.%llu%% of the map is open%s", want,
             (unsigned long long)(tenths / 10), (unsigned long long)(tenths % 10),
             have_entrance ? " from the entrance" : " in its largest region");
    return CG_EFAIL;
}

/* regions=N (exactly N) or regions<=N (1..N): the 4-connected floor
 * regions of the cave's shape, as --stats counts them (blocked cells are
 * floor), so `require regions=1` means one cave, whatever stands in it. */
static cg_status require_regions(const cg__step *step, cg__run *run)
{
    uint64_t regions = 0, largest;
    cg_status st = cg__floor_regions(run->grid, &regions, &largest);
    if (st != CG_OK)
        return cg__place_oom(step, run, st);
    uint64_t want = step->u.require.regions;
    int up_to = step->u.require.regions_up_to;
    if (up_to ? regions >= 1 && regions <= want : regions == want)
        return CG_OK;
    /* Closer: fewer regions off the mark. */
    uint64_t off = regions > want ? regions - want : want - regions;
    run->fail_score = UINT64_MAX - off;
    cg__diag(run->diag, step->line, step->column, "require regions%s=%llu: the floor is %llu %s",
             up_to ? "<" : "", (unsigned long long)want, (unsigned long long)regions,
             regions == 1 ? "region" : "regions");
    return CG_EFAIL;
}

static cg_status run_require(const cg__step *step, cg__run *run)
{
    cg_status st = CG_OK;
    if (step->u.require.open)
        st = require_open(step, run);
    if (st == CG_OK && step->u.require.regions)
        st = require_regions(step, run);
    return st;
}

/* "open>=P%" and "regions<=N" split at their '=' like any key=value: the
 * keys are "open>" and "regions<". */
const cg__step_def cg__step_require = {
    .name = "require",
    .usage = "require [open>=PERCENT] [regions=N|regions<=N]",
    .keys = {[REQUIRE_OPEN] = "open>",
             [REQUIRE_REGIONS] = "regions",
             [REQUIRE_REGIONS_UP_TO] = "regions<"},
    .parse = parse_require,
    .run = run_require,
};
