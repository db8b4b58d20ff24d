/* io/json.c - the JSON map format (schema in docs/formats.md): the
 * map's rows as ASCII strings, its markers as coordinates, how it was made
 * (seed, preset, attempts), the figures of cg_grid_stats and the attached
 * reach. Integers only - the floor share is in per-mille, rounded down - so
 * the bytes never depend on how a platform prints floating point; 64-bit
 * seeds are strings, since JSON readers commonly hold numbers as doubles
 * (exact only up to 2^53). */
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "io/format.h"
#include "io/sink.h"
#include "regions/reach.h"

/* Bumped when a field changes meaning or goes away (adding one does not). */
#define JSON_FORMAT_VERSION 1u


/* Cells per piece of a row: a multiple of 64, at most what cg__sink_reserve
 * gives. */
#define PIECE 4096u

static void row_chars(cg__sink *s, const cg_grid *g, uint32_t y, size_t *mark)
{
    const uint64_t *row = cg__row(g, y);
    for (uint32_t x0 = 0; x0 < g->w; x0 += PIECE) {
        uint32_t n = g->w - x0 < PIECE ? g->w - x0 : PIECE;
        char *p = cg__sink_reserve(s, PIECE);
        if (!p)
            return;
        for (uint32_t x = 0; x < n; x += 8) {
            uint64_t word = row[(x0 + x) >> 6];
            memcpy(p + x, cg__cells8[(word >> ((x0 + x) & 63)) & 0xff], 8);
        }
        while (*mark < g->nmarks && g->marks[*mark].y == y && g->marks[*mark].x < x0 + n) {
            const cg__mark *m = &g->marks[*mark];
            p[m->x - x0] = (char)m->sym;
            ++*mark;
        }
        cg__sink_commit(s, n);
    }
}

/* {"x": X, "y": Y} of the first marker of a kind, or null. */
static void first_mark(cg__sink *s, const cg_grid *g, cg_marker kind)
{
    for (size_t i = 0; i < g->nmarks; i++) {
        if (g->marks[i].kind == kind) {
            cg__sink_str(s, "{\"x\": ");
            cg__sink_u64(s, g->marks[i].x);
            cg__sink_str(s, ", \"y\": ");
            cg__sink_u64(s, g->marks[i].y);
            cg__sink_str(s, "}");
            return;
        }
    }
    cg__sink_str(s, "null");
}

/* [{"x": X, "y": Y}, ...] of every marker of a kind, in (y, x) order; a
 * point of a named kind adds "kind" (its name, or its letter when the map
 * does not name it) and "symbol" (its letter). Names are letters, digits,
 * '_' and '-': nothing to escape. */
static void all_marks(cg__sink *s, const cg_grid *g, cg_marker kind)
{
    int first = 1;
    cg__sink_str(s, "[");
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        if (m->kind != kind)
            continue;
        cg__sink_str(s, first ? "{\"x\": " : ", {\"x\": ");
        cg__sink_u64(s, m->x);
        cg__sink_str(s, ", \"y\": ");
        cg__sink_u64(s, m->y);
        const char *name = cg_grid_point_kind_name(g, (char)m->sym);
        if (kind == CG_MARK_POI && name) {
            char letter[2] = {(char)m->sym, '\0'};
            cg__sink_str(s, ", \"kind\": \"");
            cg__sink_str(s, name);
            cg__sink_str(s, "\", \"symbol\": \"");
            cg__sink_str(s, letter);
            cg__sink_str(s, "\"");
        }
        cg__sink_str(s, "}");
        first = 0;
    }
    cg__sink_str(s, "]");
}

/* "reach": null, or the reached cells as [x, y, distance] in (y, x) order,
 * one map row per line. Only the reach's window can hold reached cells. */
static void reach(cg__sink *s, const cg_grid *g)
{
    const cg__reach *r = g->reach;
    if (!r) {
        cg__sink_str(s, "null");
        return;
    }
    cg__sink_str(s, "{\n    \"reached\": ");
    cg__sink_u64(s, r->count);
    cg__sink_str(s, ",\n    \"max_distance\": ");
    cg__sink_u64(s, r->max_distance);
    cg__sink_str(s, ",\n    \"cells\": [");
    int first = 1;
    for (uint32_t wy = 0; wy < r->h; wy++) {
        const size_t d = cg__reach_at(r, 0, wy);
        int row_started = 0;
        for (uint32_t wx = 0; wx < r->w; wx++) {
            const uint32_t v = cg__reach_dist(r, d + wx);
            if (v == CG_UNREACHED)
                continue;
            cg__sink_str(s, first ? "\n      [" : row_started ? ", [" : ",\n      [");
            cg__sink_u64(s, (uint64_t)r->x0 + wx);
            cg__sink_str(s, ", ");
            cg__sink_u64(s, (uint64_t)r->y0 + wy);
            cg__sink_str(s, ", ");
            cg__sink_u64(s, v);
            cg__sink_str(s, "]");
            first = 0;
            row_started = 1;
        }
    }
    cg__sink_str(s, first ? "]\n  }" : "\n    ]\n  }");
}

static void key(cg__sink *s, const char *name)
{
    cg__sink_str(s, ",\n  \"");
    cg__sink_str(s, name);
    cg__sink_str(s, "\": ");
}

static cg_status write_map(const cg_grid *g, const cg_map_info *info, cg_write_fn write, void *ctx,
                           cg_diag *diag)
{
    cg_stats st;
    /* No limit of its own: the figures count against cg_write's budget. */
    if (cg_grid_stats(g, NULL, &st, NULL) != CG_OK) {
        cg__diag(diag, 0, 0, "out of memory computing the map's figures");
        return CG_ENOMEM;
    }
    cg__sink s;
    if (cg__sink_init(&s, write, ctx, diag) != CG_OK)
        return cg__sink_finish(&s, diag);

    cg__sink_str(&s, "{\n  \"format\": \"cavegen-map\"");
    key(&s, "format_version");
    cg__sink_u64(&s, JSON_FORMAT_VERSION);
    key(&s, "cavegen_version");
    cg__sink_str(&s, "\"" CG_VERSION_STRING "\"");
    key(&s, "width");
    cg__sink_u64(&s, g->w);
    key(&s, "height");
    cg__sink_u64(&s, g->h);

    key(&s, "seed");
    if (info->has_seed) {
        cg__sink_str(&s, "\"");
        cg__sink_u64(&s, info->seed);
        cg__sink_str(&s, "\"");
    } else {
        cg__sink_str(&s, "null");
    }
    key(&s, "run_seed");
    if (info->has_seed) {
        cg__sink_str(&s, "\"");
        cg__sink_u64(&s, info->run_seed);
        cg__sink_str(&s, "\"");
    } else {
        cg__sink_str(&s, "null");
    }
    key(&s, "attempts");
    if (info->attempts)
        cg__sink_u64(&s, info->attempts);
    else
        cg__sink_str(&s, "null");
    key(&s, "preset");
    if (info->preset_name)
        cg__sink_json_string(&s, info->preset_name, strlen(info->preset_name));
    else
        cg__sink_str(&s, "null");
    key(&s, "preset_text");
    if (info->preset_text)
        cg__sink_json_string(&s, info->preset_text, info->preset_text_len);
    else
        cg__sink_str(&s, "null");

    key(&s, "entrance");
    first_mark(&s, g, CG_MARK_ENTRANCE);
    key(&s, "exit");
    first_mark(&s, g, CG_MARK_EXIT);
    key(&s, "points");
    all_marks(&s, g, CG_MARK_POI);
    key(&s, "blocked");
    all_marks(&s, g, CG_MARK_BLOCKED);

    uint64_t cells = (uint64_t)g->w * g->h;
    key(&s, "stats");
    cg__sink_str(&s, "{\"floor\": ");
    cg__sink_u64(&s, st.floor);
    cg__sink_str(&s, ", \"floor_permille\": ");
    cg__sink_u64(&s, st.floor * 1000 / cells);
    cg__sink_str(&s, ", \"regions\": ");
    cg__sink_u64(&s, st.regions);
    cg__sink_str(&s, ", \"largest_region\": ");
    cg__sink_u64(&s, st.largest_region);
    cg__sink_str(&s, ", \"dead_ends\": ");
    cg__sink_u64(&s, st.dead_ends);
    cg__sink_str(&s, ", \"points\": ");
    cg__sink_u64(&s, st.points);
    cg__sink_str(&s, ", \"path_length\": ");
    if (st.path_length >= 0)
        cg__sink_i64(&s, st.path_length);
    else
        cg__sink_str(&s, "null");
    cg__sink_str(&s, "}");

    key(&s, "rows");
    cg__sink_str(&s, "[");
    size_t mark = 0;
    for (uint32_t y = 0; y < g->h; y++) {
        cg__sink_str(&s, y ? "\",\n    \"" : "\n    \"");
        row_chars(&s, g, y, &mark);
    }
    cg__sink_str(&s, "\"\n  ]");

    key(&s, "reach");
    reach(&s, g);
    cg__sink_str(&s, "\n}\n");
    return cg__sink_finish(&s, diag);
}

static cg_status write_json(const cg_grid *g, const cg__write_args *a)
{
    return write_map(g, a->info, a->write, a->ctx, a->diag);
}

const cg__format_def cg__format_json = {
    .name = "json",
    .extension = ".json",
    .summary = "rows, markers, figures, provenance",
    .stream = 1,
    .write = write_json,
};
