/* place/poi.c - `poi count=K [spacing=D] [for=WxH] [kind=NAME [symbol=L]]`: points
 * of interest (the level article, F; docs/placement.md). "I take the list
 * of connected cells, shuffle it, and draw the cells one by one; if a cell
 * is far enough from the entrance, the exit and the other points of
 * interest, I select it." A named kind (cavegen's) gives the points their
 * own letter in ASCII and their name in JSON and Tiled maps. */
#include <ctype.h>
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "engine/steps.h"
#include "place/place.h"

#define POI_MAX_COUNT 100000
#define POI_MAX_SPACING (2 * CG_MAX_DIM)

enum { POI_COUNT, POI_SPACING, POI_KIND, POI_SYMBOL, POI_FOR };

static cg_status parse_poi(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long count, spacing = 0;
    const cg__token *kind = &a->values[POI_KIND], *symbol = &a->values[POI_SYMBOL];
    if (!a->values[POI_COUNT].s)
        return cg__step_missing(step, a, "count=", diag);
    if (cg__parse_int(&a->values[POI_COUNT], a->line, "count", 1, POI_MAX_COUNT, &count, diag) ||
        (a->values[POI_SPACING].s && cg__parse_int(&a->values[POI_SPACING], a->line, "spacing", 0,
                                                   POI_MAX_SPACING, &spacing, diag)))
        return CG_EPARSE;
    step->u.poi.count = (uint32_t)count;
    step->u.poi.spacing = (uint32_t)spacing;
    step->u.poi.for_w = step->u.poi.for_h = 0;
    if (a->values[POI_FOR].s && cg__parse_dims(&a->values[POI_FOR], a->line, "for",
                                               &step->u.poi.for_w, &step->u.poi.for_h, diag))
        return CG_EPARSE;
    step->u.poi.sym = '*';
    if (symbol->s && !kind->s) {
        cg__diag(diag, a->line, symbol->column, "symbol= names the letter of a kind: give kind=");
        return CG_EPARSE;
    }
    if (!kind->s)
        return CG_OK;
    if (!cg__kind_name_valid(kind->s, kind->len)) {
        cg__diag(diag, a->line, kind->column,
                 "a kind is 1..%d letters, digits, '_' or '-' starting with a letter, and not "
                 "entrance, exit, poi or blocked: not '%.*s'",
                 CG__KIND_NAME_MAX, (int)(kind->len < 64 ? kind->len : 64), kind->s);
        return CG_EPARSE;
    }
    memcpy(step->u.poi.kind, kind->s, kind->len);
    step->u.poi.kind[kind->len] = '\0';
    /* The letter: symbol=L, else the name's first letter in upper case. */
    step->u.poi.sym = (uint8_t)toupper((unsigned char)kind->s[0]);
    if (symbol->s) {
        if (symbol->len != 1 || symbol->s[0] < 'A' || symbol->s[0] > 'Z') {
            cg__diag(diag, a->line, symbol->column,
                     "symbol must be one capital letter A..Z, not '%.*s'",
                     (int)(symbol->len < 64 ? symbol->len : 64), symbol->s);
            return CG_EPARSE;
        }
        step->u.poi.sym = (uint8_t)symbol->s[0];
    }
    return CG_OK;
}

/* Spacing counts from the entrance, the exit and every point, of any kind;
 * not from blocked cells. */
static int counts_for_poi(const cg__mark *m)
{
    return m->kind == CG_MARK_ENTRANCE || m->kind == CG_MARK_EXIT || m->kind == CG_MARK_POI;
}

/* for=WxH: the count and spacing are those of a WxH map. On this one the
 * count scales with the area (rounded, at least 1), so the points are as
 * dense on any map; the spacing shrinks with the sides (their sum) on a
 * smaller map and stays on a larger one - grown too, the points would need
 * room growing with the area squared and would not fit. Integers only. */
static void scale_points(const cg__step *step, const cg_grid *g, uint32_t *count,
                         uint64_t *spacing)
{
    uint64_t fw = step->u.poi.for_w, fh = step->u.poi.for_h;
    *count = step->u.poi.count;
    *spacing = step->u.poi.spacing;
    if (!fw)
        return;
    uint64_t area = (uint64_t)g->w * g->h, ref = fw * fh;
    uint64_t c = ((uint64_t)*count * area + ref / 2) / ref; /* < 2^17 * 2^40 */
    *count = c < 1 ? 1 : c > POI_MAX_COUNT ? POI_MAX_COUNT : (uint32_t)c;
    uint64_t sides = (uint64_t)g->w + g->h, rsides = fw + fh;
    if (sides < rsides)
        *spacing = (*spacing * sides + rsides / 2) / rsides; /* < 2^22 * 2^21 */
}

static cg_status run_poi(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    uint32_t count;
    uint64_t spacing;
    scale_points(step, g, &count, &spacing);
    const uint8_t sym = step->u.poi.sym;
    const char *kind = step->u.poi.kind;
    /* One name per letter on a map: a second kind taking a letter another
     * one has is a mistake of the pipeline, not bad luck, so no attempt can
     * mend it. */
    if (sym != '*') {
        cg_status st = cg__grid_name_kind(g, sym, kind, strlen(kind));
        if (st == CG_EINVAL) {
            cg__diag(run->diag, step->line, step->column,
                     "poi kind=%s: the letter %c is kind %s's on this map; give another with "
                     "symbol=",
                     kind, sym, cg__grid_kind_name(g, sym));
            return CG_EINVAL;
        }
        if (st != CG_OK)
            return cg__place_oom(step, run, st);
    }
    cg__draw d = {.count = count, .spacing = spacing, .counts = counts_for_poi};
    uint64_t *cells = NULL;
    uint32_t chosen = 0;
    cg_status st = cg__draw_cells(step, run, &d, &cells, &chosen);
    if (st != CG_OK)
        return cg__place_oom(step, run, st);
    if (chosen < count) {
        cg__free(cells);
        run->fail_score = chosen;
        if (sym != '*')
            cg__diag(run->diag, step->line, step->column,
                     "poi kind=%s count=%u spacing=%u: only %u fit", kind, count, (unsigned)spacing,
                     chosen);
        else
            cg__diag(run->diag, step->line, step->column, "poi count=%u spacing=%u: only %u fit",
                     count, (unsigned)spacing, chosen);
        return CG_EFAIL;
    }
    st = cg__add_marks(g, cells, chosen, CG_MARK_POI, sym);
    cg__free(cells);
    return st == CG_OK ? CG_OK : cg__place_oom(step, run, st);
}

const cg__step_def cg__step_poi = {
    .name = "poi",
    .usage = "poi count=K [spacing=D] [for=WxH] [kind=NAME [symbol=A..Z]]",
    .keys = {[POI_COUNT] = "count",
             [POI_SPACING] = "spacing",
             [POI_KIND] = "kind",
             [POI_SYMBOL] = "symbol",
             [POI_FOR] = "for"},
    .rand_kind = CG__RAND_POI,
    .parse = parse_poi,
    .run = run_poi,
};
