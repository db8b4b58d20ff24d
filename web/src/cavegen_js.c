/* cavegen_js.c - the WebAssembly side of the JavaScript module: one flat
 * call per thing the module does, each taking and returning plain integers
 * and pointers, so that the JavaScript side needs no knowledge of the
 * library's struct layouts (cg_diag, cg_run_options, cg_stats).
 *
 * A generation is a cgjs_run, created by cgjs_generate and freed by
 * cgjs_free: it holds the map (or why there is none), the preset text it
 * was made from (JSON and Tiled maps record it, as the CLI's do) and the
 * bytes of the last format written. Seeds cross as two 32-bit halves: the
 * module is built without BigInt integration, so a 64-bit parameter would
 * be split anyway, and this way the split is explicit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavegen/cavegen.h"

#define CGJS_EXPORT __attribute__((used, visibility("default")))

/* Which step of a generation failed, for the diagnostics object. */
enum cgjs_stage { CGJS_STAGE_NONE = 0, CGJS_STAGE_OVERRIDES, CGJS_STAGE_PARSE, CGJS_STAGE_RUN };

typedef struct cgjs_run {
    int status; /* cg_status of the failed step, CG_OK with a map */
    int stage;  /* enum cgjs_stage */
    cg_diag diag;
    cg_grid *grid;
    cg_run_info info;
    uint64_t seed;
    char *name; /* the preset's name for the maps' metadata, or NULL */
    char *text; /* the text the map was made from, ending in a line break */
    size_t text_len;
    char *out; /* the last cgjs_write's bytes */
    size_t out_len, out_cap;
    double figures[12]; /* cgjs_stats' answer */
} cgjs_run;

/* Appends a line break to text[0..len) when it lacks one, as the CLI does
 * before recording a preset in a map's metadata. NULL when out of memory. */
static char *text_with_newline(const char *text, size_t len, size_t *out_len)
{
    size_t nl = len > 0 && text[len - 1] != '\n' ? 1 : 0;
    char *copy = malloc(len + nl + 1);
    if (!copy)
        return NULL;
    memcpy(copy, text, len);
    if (nl)
        copy[len] = '\n';
    copy[len + nl] = '\0';
    *out_len = len + nl;
    return copy;
}

/* A malloc'd copy of a NUL-terminated string (strdup is not C11). */
static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

static void fail(cgjs_run *r, int stage, cg_status st, const cg_diag *diag)
{
    r->stage = stage;
    r->status = (int)st;
    if (diag)
        r->diag = *diag;
    if (!r->diag.message[0])
        strncpy(r->diag.message, cg_strerror(st), sizeof r->diag.message - 1);
}

/* Applies nsettings "NAME=VALUE" settings, NUL-separated in settings, to
 * text (cg_preset_apply). Returns the new text (malloc) or NULL with r
 * failed. */
static char *apply_settings(cgjs_run *r, const char *text, size_t len, const char *settings,
                            size_t nsettings, size_t *out_len)
{
    const char **list = calloc(nsettings, sizeof *list);
    size_t cap = len + 1;
    if (!list) {
        fail(r, CGJS_STAGE_OVERRIDES, CG_ENOMEM, NULL);
        return NULL;
    }
    const char *p = settings;
    for (size_t i = 0; i < nsettings; i++) {
        list[i] = p;
        cap += strlen(p) + 3;
        p += strlen(p) + 1;
    }
    char *out = malloc(cap);
    cg_diag diag = {0};
    cg_status st = out ? cg_preset_apply(text, len, list, nsettings, out, cap, out_len, &diag)
                       : CG_ENOMEM;
    free(list);
    if (st != CG_OK) {
        free(out);
        fail(r, CGJS_STAGE_OVERRIDES, st, &diag);
        return NULL;
    }
    return out;
}

/* WebAssembly's memory is 4 GiB (MAXIMUM_MEMORY in web/build.sh), and the
 * JavaScript side copies the cells out (one byte each) beside the map. A
 * map whose copy cannot fit fails before it runs, rather than after
 * minutes of work; the run gets the rest of the memory as its budget
 * (max_memory), so one whose grids cannot fit fails at once too. */
#define CGJS_MEMORY (UINT64_C(4) << 30)
#define CGJS_SLACK (UINT64_C(64) << 20) /* the module's own data, stack, inputs */

static cg_status budget_run(cgjs_run *r, const cg_pipeline *pipeline, cg_run_options *opts)
{
    uint32_t w = opts->width, h = opts->height, dw, dh;
    cg_pipeline_default_size(pipeline, &dw, &dh);
    w = w ? w : dw;
    h = h ? h : dh;
    uint64_t cells = (uint64_t)w * h;
    if (cells > (CGJS_MEMORY - CGJS_SLACK) / 2) {
        cg_diag diag = {0};
        snprintf(diag.message, sizeof diag.message,
                 "a %ux%u map is too large for WebAssembly's 4 GiB with its cells copied out",
                 (unsigned)w, (unsigned)h);
        fail(r, CGJS_STAGE_RUN, CG_ENOMEM, &diag);
        return CG_ENOMEM;
    }
    opts->max_memory = CGJS_MEMORY - CGJS_SLACK - cells;
    return CG_OK;
}

/* Generates a map from preset text (len bytes, need not end in NUL) with
 * nsettings NUL-terminated settings one after another in settings, the seed
 * seed_hi << 32 | seed_lo, and the size width x height (0: the preset's
 * default). name (NUL-terminated, may be NULL) is the preset's name that
 * JSON and Tiled maps record. Returns a run, NULL only when out of memory;
 * cgjs_status tells whether it holds a map. */
CGJS_EXPORT cgjs_run *cgjs_generate(const char *text, size_t len, const char *settings,
                                    size_t nsettings, uint32_t seed_lo, uint32_t seed_hi,
                                    uint32_t width, uint32_t height, const char *name)
{
    cgjs_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->seed = (uint64_t)seed_hi << 32 | seed_lo;
    if (name && !(r->name = copy_string(name))) {
        fail(r, CGJS_STAGE_PARSE, CG_ENOMEM, NULL);
        return r;
    }
    char *applied = NULL;
    if (nsettings) {
        if (!(applied = apply_settings(r, text, len, settings, nsettings, &len)))
            return r;
        text = applied;
    }
    r->text = text_with_newline(text, len, &r->text_len);
    free(applied);
    if (!r->text) {
        fail(r, CGJS_STAGE_PARSE, CG_ENOMEM, NULL);
        return r;
    }

    cg_pipeline *pipeline = NULL;
    cg_diag diag = {0};
    cg_status st = cg_pipeline_new(&pipeline);
    if (st == CG_OK)
        st = cg_pipeline_parse(pipeline, r->text, r->text_len, &diag);
    if (st != CG_OK) {
        cg_pipeline_free(pipeline);
        fail(r, CGJS_STAGE_PARSE, st, &diag);
        return r;
    }
    cg_run_options opts = {.seed = r->seed, .width = width, .height = height};
    if (budget_run(r, pipeline, &opts) != CG_OK) {
        cg_pipeline_free(pipeline);
        return r;
    }
    st = cg_pipeline_run(pipeline, &opts, &r->grid, &r->info, &diag);
    cg_pipeline_free(pipeline);
    if (st != CG_OK)
        fail(r, CGJS_STAGE_RUN, st, &diag);
    return r;
}

CGJS_EXPORT void cgjs_free(cgjs_run *r)
{
    if (!r)
        return;
    cg_grid_free(r->grid);
    free(r->name);
    free(r->text);
    free(r->out);
    free(r);
}

/* What failed: the cg_status (0 with a map), the stage (enum cgjs_stage),
 * and the diag's line, column and message. */
CGJS_EXPORT int cgjs_status(const cgjs_run *r) { return r->status; }
CGJS_EXPORT int cgjs_stage(const cgjs_run *r) { return r->stage; }
CGJS_EXPORT int cgjs_diag_line(const cgjs_run *r) { return r->diag.line; }
CGJS_EXPORT int cgjs_diag_column(const cgjs_run *r) { return r->diag.column; }
CGJS_EXPORT const char *cgjs_diag_message(const cgjs_run *r) { return r->diag.message; }

CGJS_EXPORT uint32_t cgjs_width(const cgjs_run *r) { return cg_grid_width(r->grid); }
CGJS_EXPORT uint32_t cgjs_height(const cgjs_run *r) { return cg_grid_height(r->grid); }
CGJS_EXPORT uint32_t cgjs_attempts(const cgjs_run *r) { return r->info.attempts; }
CGJS_EXPORT uint32_t cgjs_run_seed_lo(const cgjs_run *r) { return (uint32_t)r->info.seed; }
CGJS_EXPORT uint32_t cgjs_run_seed_hi(const cgjs_run *r) { return (uint32_t)(r->info.seed >> 32); }

/* The cells into out (width * height bytes, row after row), as
 * cg_grid_copy's mode writes them. */
CGJS_EXPORT int cgjs_copy(const cgjs_run *r, uint8_t *out, int mode)
{
    return (int)cg_grid_copy(r->grid, out, cg_grid_width(r->grid), (cg_copy_mode)mode);
}

CGJS_EXPORT size_t cgjs_marker_count(const cgjs_run *r) { return cg_grid_marker_count(r->grid); }

/* Marker i into out: x, y, kind (cg_marker), symbol (its ASCII character). */
CGJS_EXPORT int cgjs_marker(const cgjs_run *r, size_t i, uint32_t out[4])
{
    cg_marker kind = CG_MARK_NONE;
    cg_status st = cg_grid_marker_at(r->grid, i, &out[0], &out[1], &kind);
    out[2] = (uint32_t)kind;
    out[3] = st == CG_OK ? (uint32_t)(unsigned char)cg_grid_marker_symbol(r->grid, out[0], out[1])
                         : 0;
    return (int)st;
}

/* The name of the kind of points written symbol, or NULL (the grid's). */
CGJS_EXPORT const char *cgjs_kind_name(const cgjs_run *r, int symbol)
{
    return cg_grid_point_kind_name(r->grid, (char)symbol);
}

/* The map's figures (cg_grid_stats) as doubles, every one exact below
 * 2^53: floor, floor_permille, regions, largest_region, dead_ends, points,
 * path_length. NULL when they cannot be computed. */
CGJS_EXPORT const double *cgjs_stats(cgjs_run *r)
{
    cg_stats s;
    if (cg_grid_stats(r->grid, NULL, &s, NULL) != CG_OK)
        return NULL;
    uint64_t cells = (uint64_t)s.width * s.height;
    r->figures[0] = (double)s.floor;
    r->figures[1] = (double)(s.floor * 1000 / cells);
    r->figures[2] = (double)s.regions;
    r->figures[3] = (double)s.largest_region;
    r->figures[4] = (double)s.dead_ends;
    r->figures[5] = (double)s.points;
    r->figures[6] = (double)s.path_length;
    return r->figures;
}

static int sink(void *ctx, const void *data, size_t len)
{
    cgjs_run *r = ctx;
    if (len > r->out_cap - r->out_len) {
        size_t cap = r->out_cap ? r->out_cap : 4096;
        while (cap - r->out_len < len)
            cap *= 2;
        char *grown = realloc(r->out, cap);
        if (!grown)
            return 1;
        r->out = grown;
        r->out_cap = cap;
    }
    memcpy(r->out + r->out_len, data, len);
    r->out_len += len;
    return 0;
}

/* Writes the map in format (cg_format) into the run's buffer, recording the
 * seed, attempts and preset as the CLI does; columns is ANSI's widest
 * picture (0: no limit). cgjs_out and cgjs_out_len give the bytes. */
CGJS_EXPORT int cgjs_write(cgjs_run *r, int format, uint32_t columns)
{
    cg_map_info info = {.has_seed = 1,
                        .seed = r->seed,
                        .run_seed = r->info.seed,
                        .attempts = r->info.attempts,
                        .preset_name = r->name,
                        .preset_text = r->text,
                        .preset_text_len = r->text_len};
    cg_write_options wo = {.format = (cg_format)format, .info = &info, .columns = columns};
    r->out_len = 0;
    cg_status st = cg_write(r->grid, &wo, sink, r, &r->diag);
    return (int)st;
}

CGJS_EXPORT const char *cgjs_out(const cgjs_run *r) { return r->out; }
CGJS_EXPORT size_t cgjs_out_len(const cgjs_run *r) { return r->out_len; }

/* The reach from (x, y) within max_moves moves (cg_grid_distances) into
 * dist (width * height words, CG_UNREACHED where not reached). Returns the
 * status; a start off the floor is CG_EINVAL. */
CGJS_EXPORT int cgjs_distances(cgjs_run *r, uint32_t x, uint32_t y, uint32_t max_moves,
                               uint32_t *dist)
{
    cg_point start = {x, y};
    cg_diag diag = {0};
    return (int)cg_grid_distances(r->grid, &start, 1, max_moves, dist, cg_grid_width(r->grid),
                                  NULL, &diag);
}

/* The built-in presets, for the module's list of them. */
CGJS_EXPORT size_t cgjs_preset_count(void) { return cg_preset_count(); }
CGJS_EXPORT const char *cgjs_preset_name(size_t i) { return cg_preset_name(i); }
CGJS_EXPORT const char *cgjs_preset_summary(size_t i) { return cg_preset_summary(i); }
CGJS_EXPORT const char *cgjs_preset_text(const char *name, size_t *len)
{
    return cg_preset_builtin(name, len);
}
CGJS_EXPORT const char *cgjs_version(void) { return cg_version_string(); }

/* The settings text[0..len) offers (cg_preset_settings): "NAME=VALUE\n"
 * lines, NUL-terminated, malloc'd for the caller to cgjs_release; NULL when
 * out of memory. */
CGJS_EXPORT char *cgjs_settings(const char *text, size_t len)
{
    size_t cap = 2 * len + 64, n = 0;
    for (size_t i = 0; i < len; i++)
        cap += text[i] == '\n' ? 64 : 0;
    char *out = malloc(cap + 1);
    if (!out || cg_preset_settings(text, len, out, cap, &n) != CG_OK) {
        free(out);
        return NULL;
    }
    out[n] = '\0';
    return out;
}

/* Memory for the JavaScript side's arguments. */
CGJS_EXPORT void *cgjs_alloc(size_t n) { return malloc(n ? n : 1); }
CGJS_EXPORT void cgjs_release(void *p) { free(p); }
