/* io/tiled.c - Tiled maps (https://www.mapeditor.org): TMX (XML) and TMJ
 * (JSON), and the tileset image they reference (docs/formats.md).
 *
 * Tiled is the map editor most 2D game developers use, and many engines
 * import its maps. A map here is orthogonal, one CG_TILE_SIZE tile per cell,
 * with:
 *   - layer "cells": wall and floor tiles (CSV in TMX, an array in TMJ);
 *   - layer "reach" (only with an attached reach): a distance-ramp tile on
 *     each reached cell;
 *   - object layer "markers": one tile object per marker, named and typed
 *     entrance, exit, poi or blocked (a point of a named kind: the kind's
 *     name), drawn with that marker's tile;
 *   - map properties: generator, and seed, run_seed, attempts, preset and
 *     preset_text when known.
 * The tileset is embedded in the map rather than kept in a .tsx/.tsj file:
 * several popular importers (Phaser's Tiled JSON loader, LOVE's STI) read
 * only embedded tilesets, while Tiled and every other loader read both. Its
 * image, CG_TILESET_IMAGE, is shared by all maps; cg_write_tileset_image
 * writes it. The map format version written is Tiled 1.8's (Debian 12's
 * Tiled), so objects carry "type" rather than 1.9's "class", which Tiled 1.9
 * and later still read. Attributes the format calls optional but strict
 * readers require are written out with their default: tiledversion, a tile
 * layer's encoding, an object group's draworder (tests/tiled_strict.py). */
#ifdef CG_HAVE_PNG
#include <setjmp.h>

#include "io/png.h" /* libpng, and the writers' shared callbacks */
#endif
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "io/format.h"
#include "io/sink.h"
#include "regions/reach.h"

/* ------------------------------------------------------------- tileset */

#define TILE CG_TILE_SIZE
/* The Tiled whose format version this is (Debian 12's): strict readers
 * want to know which Tiled wrote a map. */
#define TILED_VERSION "1.8.2"
#define COLUMNS 8u
#define ROWS 6u
#define TILECOUNT (COLUMNS * ROWS)
#define REACH_TILES 37u                /* distances 0..35, then 36 and more (like ASCII's '+') */
#define T_REACH 6u                     /* the tile of distance 0 */
#define T_USED (T_REACH + REACH_TILES) /* tiles past this are transparent, unused */

/* Tile ids (gid = id + 1): 0 wall, 1 floor, 1 + cg_marker for a marker. */
static const struct {
    const char *type;
    int solid; /* a unit cannot stand there */
    uint8_t r, g, b;
} base_tiles[T_REACH] = {
    /* The colours of the PNG writer (docs/formats.md). */
    {"wall", 1, 46, 40, 36},  {"floor", 0, 226, 212, 178}, {"entrance", 0, 40, 175, 60},
    {"exit", 0, 205, 40, 40}, {"poi", 0, 240, 190, 30},    {"blocked", 1, 95, 110, 140},
};

static unsigned reach_tile(uint32_t distance)
{
    return T_REACH + (distance < REACH_TILES - 1 ? distance : REACH_TILES - 1);
}

/* ------------------------------------------------------- tileset image */

/* The image is a PNG: without libpng (CAVEGEN_PNG=OFF) the maps are still
 * written, and only cg_write_tileset_image fails. */
#ifdef CG_HAVE_PNG

/* The colour of reach tile d (0..36): light cyan at the start, deepening to
 * dark blue at 35 moves, and darker still for 36 and more. */
static void reach_colour(unsigned d, uint8_t rgb[3])
{
    static const int near[3] = {150, 230, 250}, far[3] = {30, 60, 150}, beyond[3] = {25, 30, 80};
    for (int c = 0; c < 3; c++) {
        int v = d >= REACH_TILES - 1
                    ? beyond[c]
                    : near[c] + (far[c] - near[c]) * (int)d / (int)(REACH_TILES - 2);
        rgb[c] = (uint8_t)v;
    }
}

cg_status cg_write_tileset_image(cg_write_fn write, void *ctx, cg_diag *diag)
{
    /* A palette image: index i is tile i's colour, index T_USED the
     * transparent colour of the unused tiles. */
    png_color palette[T_USED + 1];
    png_byte alpha[T_USED + 1];
    for (unsigned i = 0; i <= T_USED; i++) {
        uint8_t rgb[3] = {0, 0, 0};
        if (i < T_REACH) {
            rgb[0] = base_tiles[i].r;
            rgb[1] = base_tiles[i].g;
            rgb[2] = base_tiles[i].b;
        } else if (i < T_USED) {
            reach_colour(i - T_REACH, rgb);
        }
        palette[i].red = rgb[0];
        palette[i].green = rgb[1];
        palette[i].blue = rgb[2];
        alpha[i] = i < T_USED ? 255 : 0;
    }
    /* Built on each call (12 KiB), on the heap: libpng may longjmp. */
    png_byte(*img)[COLUMNS * TILE] = cg__malloc((size_t)ROWS * TILE * COLUMNS * TILE);
    if (!img) {
        cg__diag(diag, 0, 0, "out of memory");
        return CG_ENOMEM;
    }
    for (unsigned y = 0; y < ROWS * TILE; y++)
        for (unsigned x = 0; x < COLUMNS * TILE; x++) {
            unsigned t = (y / TILE) * COLUMNS + x / TILE;
            img[y][x] = (png_byte)(t < T_USED ? t : T_USED);
        }

    struct cg__png_sink sink = {write, ctx, 0};
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, diag, cg__png_on_error, cg__png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, NULL);
        cg__free(img);
        cg__diag(diag, 0, 0, "out of memory");
        return CG_ENOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        cg__free(img);
        if (sink.failed) {
            cg__diag(diag, 0, 0, "write failed");
            return CG_EIO;
        }
        return CG_ENOMEM; /* libpng fails otherwise only when out of memory */
    }
    png_set_write_fn(png, &sink, cg__png_sink_write, cg__png_sink_flush);
    png_set_compression_level(png, 9);
    png_set_IHDR(png, info, COLUMNS * TILE, ROWS * TILE, 8, PNG_COLOR_TYPE_PALETTE,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_PLTE(png, info, palette, (int)(T_USED + 1));
    png_set_tRNS(png, info, alpha, (int)(T_USED + 1), NULL);
    png_write_info(png, info);
    for (unsigned y = 0; y < ROWS * TILE; y++)
        png_write_row(png, img[y]);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    cg__free(img);
    return CG_OK;
}

#else

cg_status cg_write_tileset_image(cg_write_fn write, void *ctx, cg_diag *diag)
{
    (void)write;
    (void)ctx;
    cg__diag(diag, 0, 0,
             "cannot write the tileset image " CG_TILESET_IMAGE
             ": libcavegen was built without PNG support");
    return CG_EUNSUPPORTED;
}

#endif /* CG_HAVE_PNG */

/* ------------------------------------------------------------ the maps */

static const char *const mark_names[] = {"", "entrance", "exit", "poi", "blocked"};

/* An object's name and type: the marker's, or for a point of a named kind
 * the kind's name (its letter when the map does not name it). Names are
 * letters, digits, '_' and '-': nothing to escape in XML or JSON. */
static const char *object_name(const cg_grid *g, const cg__mark *m)
{
    const char *kind = m->kind == CG_MARK_POI ? cg_grid_point_kind_name(g, (char)m->sym) : NULL;
    return kind ? kind : mark_names[m->kind];
}

/* The reach distance of window cell (wx, wy), or CG_UNREACHED. */
static uint32_t window_distance(const cg__reach *r, uint32_t wx, uint32_t wy)
{
    return cg__reach_dist(r, cg__reach_at(r, wx, wy));
}

/* The "cells" layer's text for 8 cells at a time: entry v holds the gids of
 * the 8 cells whose wall bits are v (bit j = cell j; 1 wall, 2 floor), each
 * followed by the separator, `cell` bytes per cell. */
typedef struct cells_text {
    char t[256][8 * 3];
    size_t cell; /* 1 + the separator's length (1 or 2) */
} cells_text;

static void cells_text_init(cells_text *c, const char *sep)
{
    size_t seplen = strlen(sep);
    c->cell = 1 + seplen;
    for (unsigned v = 0; v < 256; v++)
        for (unsigned j = 0; j < 8; j++) {
            c->t[v][j * c->cell] = (v >> j) & 1 ? '1' : '2';
            memcpy(&c->t[v][j * c->cell + 1], sep, seplen);
        }
}

/* Tile layer data of row y, each gid followed by sep except the map's very
 * last one: the "cells" layer when reach is NULL (through cells), else the
 * "reach" layer. */
static void layer_row(cg__sink *s, const cg_grid *g, const cg__reach *reach, uint32_t y,
                      const char *sep, const cells_text *cells)
{
    size_t seplen = strlen(sep);
    int last_row = y + 1 == g->h;
    const uint64_t *row = cg__row(g, y);
    /* 512 cells (a multiple of 64) of at most 4 bytes each per piece. */
    for (uint32_t x0 = 0; x0 < g->w; x0 += 512) {
        uint32_t n = g->w - x0 < 512 ? g->w - x0 : 512;
        char *p = cg__sink_reserve(s, 512 * 4);
        if (!p)
            return;
        size_t len = 0;
        if (!reach) {
            /* Whole groups of 8; the bytes past n cells are not committed. */
            for (uint32_t x = 0; x < n; x += 8) {
                unsigned v = (unsigned)(row[(x0 + x) >> 6] >> ((x0 + x) & 63)) & 0xffu;
                memcpy(p + x * cells->cell, cells->t[v], 8 * cells->cell);
            }
            len = n * cells->cell;
            if (last_row && x0 + n == g->w)
                len -= seplen;
            cg__sink_commit(s, len);
            continue;
        }
        for (uint32_t x = x0; x < x0 + n; x++) {
            uint32_t d = CG_UNREACHED;
            if (x >= reach->x0 && x - reach->x0 < reach->w && y >= reach->y0 &&
                y - reach->y0 < reach->h)
                d = window_distance(reach, x - reach->x0, y - reach->y0);
            unsigned gid = d == CG_UNREACHED ? 0 : reach_tile(d) + 1;
            if (gid >= 10)
                p[len++] = (char)('0' + gid / 10);
            p[len++] = (char)('0' + gid % 10);
            if (!(last_row && x + 1 == g->w)) {
                memcpy(p + len, sep, seplen);
                len += seplen;
            }
        }
        cg__sink_commit(s, len);
    }
}

/* Object coordinates of marker cell (x, y): a tile object's anchor is its
 * bottom-left corner in orthogonal maps. */
static void object_xy(cg__sink *s, const cg__mark *m, const char *mid, const char *end)
{
    cg__sink_u64(s, (uint64_t)m->x * TILE);
    cg__sink_str(s, mid);
    cg__sink_u64(s, ((uint64_t)m->y + 1) * TILE);
    cg__sink_str(s, end);
}

/* The map's custom properties, in the order written. */
typedef struct property {
    const char *name;
    int is_int;     /* an "int" property with value num, else a string */
    int num_string; /* a string holding num in decimal (64-bit seeds) */
    uint64_t num;
    const char *text; /* a string's bytes */
    size_t len;
} property;

static size_t map_properties(const cg_map_info *info, property *p)
{
    size_t n = 0;
    p[n++] = (property){
        "generator", 0, 0, 0, "cavegen " CG_VERSION_STRING, strlen("cavegen " CG_VERSION_STRING)};
    if (info->has_seed) {
        p[n++] = (property){"seed", 0, 1, info->seed, NULL, 0};
        p[n++] = (property){"run_seed", 0, 1, info->run_seed, NULL, 0};
    }
    if (info->attempts)
        p[n++] = (property){"attempts", 1, 0, info->attempts, NULL, 0};
    if (info->preset_name)
        p[n++] = (property){"preset", 0, 0, 0, info->preset_name, strlen(info->preset_name)};
    if (info->preset_text)
        p[n++] = (property){"preset_text", 0, 0, 0, info->preset_text, info->preset_text_len};
    return n;
}
#define MAX_PROPERTIES 6

static void str_u64(cg__sink *s, const char *a, uint64_t v, const char *b)
{
    cg__sink_str(s, a);
    cg__sink_u64(s, v);
    cg__sink_str(s, b);
}

/* ----------------------------------------------------------------- TMX */

static void tmx_properties(cg__sink *s, const property *p, size_t n)
{
    cg__sink_str(s, " <properties>\n");
    for (size_t i = 0; i < n; i++) {
        cg__sink_str(s, "  <property name=\"");
        cg__sink_str(s, p[i].name);
        cg__sink_str(s, p[i].is_int ? "\" type=\"int\"" : "\"");
        if (p[i].is_int || p[i].num_string) {
            str_u64(s, " value=\"", p[i].num, "\"/>\n");
        } else if (memchr(p[i].text, '\n', p[i].len)) {
            /* Tiled keeps a multi-line string as the element's text. */
            cg__sink_str(s, ">");
            cg__sink_xml_text(s, p[i].text, p[i].len, 0);
            cg__sink_str(s, "</property>\n");
        } else {
            cg__sink_str(s, " value=\"");
            cg__sink_xml_text(s, p[i].text, p[i].len, 1);
            cg__sink_str(s, "\"/>\n");
        }
    }
    cg__sink_str(s, " </properties>\n");
}

static void tmx_tileset(cg__sink *s)
{
    str_u64(s, " <tileset firstgid=\"1\" name=\"cavegen\" tilewidth=\"", TILE, "\"");
    str_u64(s, " tileheight=\"", TILE, "\"");
    str_u64(s, " tilecount=\"", TILECOUNT, "\"");
    str_u64(s, " columns=\"", COLUMNS, "\">\n");
    cg__sink_str(s, "  <image source=\"" CG_TILESET_IMAGE "\"");
    str_u64(s, " width=\"", COLUMNS * TILE, "\"");
    str_u64(s, " height=\"", ROWS * TILE, "\"/>\n");
    for (unsigned t = 0; t < T_USED; t++) {
        str_u64(s, "  <tile id=\"", t, "\" type=\"");
        if (t < T_REACH) {
            cg__sink_str(s, base_tiles[t].type);
            cg__sink_str(s, "\">\n   <properties>\n    <property name=\"solid\" type=\"bool\" "
                            "value=\"");
            cg__sink_str(s, base_tiles[t].solid ? "true" : "false");
        } else {
            cg__sink_str(s, "reach\">\n   <properties>\n    <property name=\"distance\" "
                            "type=\"int\" value=\"");
            cg__sink_u64(s, t - T_REACH);
        }
        cg__sink_str(s, "\"/>\n   </properties>\n  </tile>\n");
    }
    cg__sink_str(s, " </tileset>\n");
}

static void tmx_layer(cg__sink *s, const cg_grid *g, const cg__reach *reach, unsigned id)
{
    cells_text cells;
    cells_text_init(&cells, ",");
    str_u64(s, " <layer id=\"", id, reach ? "\" name=\"reach\"" : "\" name=\"cells\"");
    str_u64(s, " width=\"", g->w, "\"");
    str_u64(s, " height=\"", g->h, "\">\n  <data encoding=\"csv\">\n");
    for (uint32_t y = 0; y < g->h; y++) {
        layer_row(s, g, reach, y, ",", &cells);
        cg__sink_str(s, "\n");
    }
    cg__sink_str(s, "</data>\n </layer>\n");
}

static void tmx_markers(cg__sink *s, const cg_grid *g, unsigned id)
{
    str_u64(s, " <objectgroup id=\"", id, "\" name=\"markers\" draworder=\"topdown\">\n");
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        str_u64(s, "  <object id=\"", i + 1, "\" name=\"");
        cg__sink_str(s, object_name(g, m));
        cg__sink_str(s, "\" type=\"");
        cg__sink_str(s, object_name(g, m));
        str_u64(s, "\" gid=\"", (uint64_t)m->kind + 2, "\" x=\"");
        object_xy(s, m, "\" y=\"", "\"");
        str_u64(s, " width=\"", TILE, "\"");
        str_u64(s, " height=\"", TILE, "\"/>\n");
    }
    cg__sink_str(s, " </objectgroup>\n");
}

static void write_tmx(cg__sink *s, const cg_grid *g, const property *props, size_t nprops)
{
    unsigned layers = g->reach ? 3 : 2;
    cg__sink_str(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.8\" "
                    "tiledversion=\"" TILED_VERSION "\" orientation=\"orthogonal\" renderorder=\"right-down\"");
    str_u64(s, " width=\"", g->w, "\"");
    str_u64(s, " height=\"", g->h, "\"");
    str_u64(s, " tilewidth=\"", TILE, "\"");
    str_u64(s, " tileheight=\"", TILE, "\" infinite=\"0\"");
    str_u64(s, " nextlayerid=\"", layers + 1, "\"");
    str_u64(s, " nextobjectid=\"", (uint64_t)g->nmarks + 1, "\">\n");
    tmx_properties(s, props, nprops);
    tmx_tileset(s);
    tmx_layer(s, g, NULL, 1);
    if (g->reach)
        tmx_layer(s, g, g->reach, 2);
    tmx_markers(s, g, layers);
    cg__sink_str(s, "</map>\n");
}

/* ----------------------------------------------------------------- TMJ */

static void tmj_properties(cg__sink *s, const property *p, size_t n)
{
    cg__sink_str(s, "  \"properties\": [");
    for (size_t i = 0; i < n; i++) {
        cg__sink_str(s, i ? ",\n    {\"name\": \"" : "\n    {\"name\": \"");
        cg__sink_str(s, p[i].name);
        cg__sink_str(s, p[i].is_int ? "\", \"type\": \"int\", \"value\": "
                                    : "\", \"type\": \"string\", \"value\": ");
        if (p[i].is_int)
            str_u64(s, "", p[i].num, "}");
        else if (p[i].num_string)
            str_u64(s, "\"", p[i].num, "\"}");
        else {
            cg__sink_json_string(s, p[i].text, p[i].len);
            cg__sink_str(s, "}");
        }
    }
    cg__sink_str(s, "\n  ],\n");
}

static void tmj_tileset(cg__sink *s)
{
    str_u64(s, "  \"tilesets\": [\n    {\"columns\": ", COLUMNS, ", \"firstgid\": 1");
    cg__sink_str(s, ", \"image\": \"" CG_TILESET_IMAGE "\"");
    str_u64(s, ", \"imageheight\": ", ROWS * TILE, "");
    str_u64(s, ", \"imagewidth\": ", COLUMNS * TILE, "");
    cg__sink_str(s, ", \"margin\": 0, \"name\": \"cavegen\", \"spacing\": 0");
    str_u64(s, ", \"tilecount\": ", TILECOUNT, "");
    str_u64(s, ", \"tileheight\": ", TILE, "");
    str_u64(s, ", \"tilewidth\": ", TILE, ",\n     \"tiles\": [");
    for (unsigned t = 0; t < T_USED; t++) {
        str_u64(s, t ? ",\n       {\"id\": " : "\n       {\"id\": ", t, ", \"type\": \"");
        if (t < T_REACH) {
            cg__sink_str(s, base_tiles[t].type);
            cg__sink_str(s, "\", \"properties\": [{\"name\": \"solid\", \"type\": \"bool\", "
                            "\"value\": ");
            cg__sink_str(s, base_tiles[t].solid ? "true" : "false");
        } else {
            cg__sink_str(s, "reach\", \"properties\": [{\"name\": \"distance\", \"type\": "
                            "\"int\", \"value\": ");
            cg__sink_u64(s, t - T_REACH);
        }
        cg__sink_str(s, "}]}");
    }
    cg__sink_str(s, "\n     ]}\n  ],\n");
}

static void tmj_layer(cg__sink *s, const cg_grid *g, const cg__reach *reach, unsigned id)
{
    cells_text cells;
    cells_text_init(&cells, ", ");
    cg__sink_str(s, "    {\"data\": [");
    for (uint32_t y = 0; y < g->h; y++) {
        cg__sink_str(s, "\n      ");
        layer_row(s, g, reach, y, ", ", &cells);
    }
    str_u64(s, "\n     ], \"encoding\": \"csv\", \"height\": ", g->h, "");
    str_u64(s, ", \"id\": ", id, reach ? ", \"name\": \"reach\"" : ", \"name\": \"cells\"");
    cg__sink_str(s, ", \"opacity\": 1, \"type\": \"tilelayer\", \"visible\": true");
    str_u64(s, ", \"width\": ", g->w, ", \"x\": 0, \"y\": 0},\n");
}

static void tmj_markers(cg__sink *s, const cg_grid *g, unsigned id)
{
    str_u64(s, "    {\"draworder\": \"topdown\", \"id\": ", id,
            ", \"name\": \"markers\", \"objects\": [");
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        str_u64(s, i ? ",\n      {\"gid\": " : "\n      {\"gid\": ", (uint64_t)m->kind + 2, "");
        str_u64(s, ", \"height\": ", TILE, "");
        str_u64(s, ", \"id\": ", i + 1, ", \"name\": \"");
        cg__sink_str(s, object_name(g, m));
        cg__sink_str(s, "\", \"rotation\": 0, \"type\": \"");
        cg__sink_str(s, object_name(g, m));
        cg__sink_str(s, "\", \"visible\": true");
        str_u64(s, ", \"width\": ", TILE, ", \"x\": ");
        object_xy(s, m, ", \"y\": ", "}");
    }
    cg__sink_str(s, g->nmarks ? "\n     ]" : "]");
    cg__sink_str(s, ", \"opacity\": 1, \"type\": \"objectgroup\", \"visible\": true, "
                    "\"x\": 0, \"y\": 0}\n");
}

static void write_tmj(cg__sink *s, const cg_grid *g, const property *props, size_t nprops)
{
    unsigned layers = g->reach ? 3 : 2;
    str_u64(s, "{ \"compressionlevel\": -1,\n  \"height\": ", g->h, ",\n  \"infinite\": false,\n");
    cg__sink_str(s, "  \"layers\": [\n");
    tmj_layer(s, g, NULL, 1);
    if (g->reach)
        tmj_layer(s, g, g->reach, 2);
    tmj_markers(s, g, layers);
    str_u64(s, "  ],\n  \"nextlayerid\": ", layers + 1, ",\n");
    str_u64(s, "  \"nextobjectid\": ", (uint64_t)g->nmarks + 1, ",\n");
    cg__sink_str(s, "  \"orientation\": \"orthogonal\",\n");
    tmj_properties(s, props, nprops);
    cg__sink_str(s, "  \"renderorder\": \"right-down\",\n");
    str_u64(s, "  \"tileheight\": ", TILE, ",\n");
    tmj_tileset(s);
    str_u64(s, "  \"tilewidth\": ", TILE, ",\n");
    cg__sink_str(s, "  \"tiledversion\": \"" TILED_VERSION "\",\n");
    cg__sink_str(s, "  \"type\": \"map\",\n  \"version\": \"1.8\",\n");
    str_u64(s, "  \"width\": ", g->w, "\n}\n");
}

static cg_status write_tiled(const cg_grid *g, const cg_map_info *info, int json, cg_write_fn write,
                             void *ctx, cg_diag *diag)
{
    /* Pixel coordinates of objects must fit Tiled's int (CG_MAX_DIM * 16 does). */
    property props[MAX_PROPERTIES];
    size_t nprops = map_properties(info, props);
    cg__sink s;
    if (cg__sink_init(&s, write, ctx, diag) != CG_OK)
        return cg__sink_finish(&s, diag);
    if (json)
        write_tmj(&s, g, props, nprops);
    else
        write_tmx(&s, g, props, nprops);
    return cg__sink_finish(&s, diag);
}

static cg_status format_tmx(const cg_grid *g, const cg__write_args *a)
{
    return write_tiled(g, a->info, 0, a->write, a->ctx, a->diag);
}

static cg_status format_tmj(const cg_grid *g, const cg__write_args *a)
{
    return write_tiled(g, a->info, 1, a->write, a->ctx, a->diag);
}

const cg__format_def cg__format_tmx = {
    .name = "tmx",
    .extension = ".tmx",
    .summary = "Tiled map (XML), tileset beside it",
    .tileset = 1,
    .write = format_tmx,
};

const cg__format_def cg__format_tmj = {
    .name = "tmj",
    .extension = ".tmj",
    .summary = "Tiled map (JSON), tileset beside it",
    .tileset = 1,
    .write = format_tmj,
};
