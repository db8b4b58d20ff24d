/* io/write.c - cg_write: check the options and hand the grid
 * to the writer of the chosen format through the format table
 * (io/format_table.c); the public questions about formats (names,
 * extensions, properties) answered from the same table. io/png.c and
 * io/png_reach.c are compiled only with libpng (CG_HAVE_PNG, the CMake
 * option CAVEGEN_PNG). */
#include <string.h>

#include "cells/par.h"
#include "core/diag.h"
#include "core/mem.h"
#include "io/format.h"

/* The definition of a format; NULL for a value outside the enum. */
static const cg__format_def *def_of(cg_format format)
{
    return (unsigned)format < cg__format_count ? cg__formats[format] : NULL;
}

/* ASCII-only, so a format name never depends on the locale. */
static int equal_nocase(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        ca = ca >= 'A' && ca <= 'Z' ? ca - 'A' + 'a' : ca;
        cb = cb >= 'A' && cb <= 'Z' ? cb - 'A' + 'a' : cb;
        if (ca != cb)
            return 0;
        if (ca == '\0')
            return 1;
    }
}

const char *cg_format_name(cg_format format)
{
    const cg__format_def *d = def_of(format);
    return d ? d->name : NULL;
}

size_t cg_format_count(void)
{
    return cg__format_count;
}

cg_status cg_format_describe(cg_format format, cg_format_info *info)
{
    const cg__format_def *d = def_of(format);
    if (!d || !info)
        return CG_EINVAL;
    *info = (cg_format_info){d->name,
                             d->extension,
                             d->summary,
                             d->binary,
                             d->stream,
                             d->tileset,
                             cg_format_available(format)};
    return CG_OK;
}

cg_status cg_format_from_name(const char *name, cg_format *format)
{
    for (size_t i = 0; name && i < cg__format_count; i++) {
        if (equal_nocase(name, cg__formats[i]->name)) {
            *format = (cg_format)i;
            return CG_OK;
        }
    }
    return CG_EINVAL;
}

cg_status cg_format_from_path(const char *path, cg_format *format)
{
    if (!path)
        return CG_EINVAL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    /* ".png" alone is a hidden file's name, not an extension. */
    if (!dot || dot == base)
        return CG_EINVAL;
    for (size_t i = 0; i < cg__format_count; i++) {
        if (equal_nocase(dot, cg__formats[i]->extension)) {
            *format = (cg_format)i;
            return CG_OK;
        }
    }
    return CG_EINVAL;
}

int cg_format_available(cg_format format)
{
    const cg__format_def *d = def_of(format);
#ifndef CG_HAVE_PNG
    if (d && d->needs_png)
        return 0;
#endif
    return d != NULL;
}

cg_status cg_write(const cg_grid *grid, const cg_write_options *options, cg_write_fn write,
                   void *ctx, cg_diag *diag)
{
    static const cg_write_options defaults; /* ASCII, nothing known */
    static const cg_map_info unknown;
    const cg_write_options *o = options ? options : &defaults;
    const cg_map_info *in = o->info ? o->info : &unknown;
    uint32_t scale = o->scale ? o->scale : CG_DEFAULT_SCALE;
    if (!grid || !write) {
        cg__diag(diag, 0, 0, "no %s to write", grid ? "write callback" : "map");
        return CG_EINVAL;
    }
    cg_status st = cg__reserved_zero(o->reserved, sizeof o->reserved / sizeof o->reserved[0],
                                     "cg_write_options", diag);
    if (st == CG_OK && o->reserved32) {
        cg__diag(diag, 0, 0, "cg_write_options.reserved32 must be zero");
        st = CG_EINVAL;
    }
    if (st != CG_OK)
        return st;
    if (scale > CG_MAX_SCALE) {
        cg__diag(diag, 0, 0, "scale must be in 1..%u, not %u", CG_MAX_SCALE, scale);
        return CG_EINVAL;
    }
    if (in->preset_text_len > 0 && !in->preset_text) {
        cg__diag(diag, 0, 0, "the map info has a preset text length but no text");
        return CG_EINVAL;
    }
    /* The writers hold a few rows, but JSON's figures label the regions:
     * held to the caller's budget like a run (core/mem.h). */
    cg__budget budget = {0};
    if (o->max_memory)
        cg__budget_begin(&budget, o->max_memory);
    const cg__format_def *d = def_of(o->format);
    const cg__par par = {o->parallel, o->parallel_ctx};
    cg__write_args args = {scale, o->columns, in, write, ctx, diag, &par};
    st = CG_EINVAL;
    if (d)
        st = d->write(grid, &args);
    else
        cg__diag(diag, 0, 0, "unknown format %d", (int)o->format);
    if (o->max_memory)
        cg__budget_end(&budget);
    if (st == CG_ENOMEM && budget.refused) {
        char limit[32];
        cg_format_bytes(limit, budget.limit, 0);
        cg__diag(diag, 0, 0, "writing a %ux%u map as %s needs more than the memory budget of %s",
                 grid->w, grid->h, cg_format_name(o->format), limit);
    } else if (st == CG_ENOMEM && diag && !diag->message[0]) {
        cg__diag(diag, 0, 0, "out of memory writing a %ux%u map as %s", grid->w, grid->h,
                 cg_format_name(o->format));
    }
    return st;
}
