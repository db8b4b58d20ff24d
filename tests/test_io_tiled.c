/* test_io_tiled.c - Tiled maps (TMX, TMJ) and their tileset image.
 *
 * Read as Tiled's users read them: python3's XML and JSON parsers flatten
 * both files into the same facts (which must equal the grid's), and Tiled's
 * own renderer, tmxrasterizer, draws them - every CG_TILE_SIZE square of the
 * picture must be the colour of its cell's tile: a marker's over a reach
 * distance's over wall or floor. The tileset image passes pngcheck. The
 * command line writes the image beside a map and keeps one already there.
 * Built without libpng (CAVEGEN_PNG=OFF), only the maps' structure is
 * checked: the image, the pictures and the tool's image need PNG. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#ifdef CG_HAVE_PNG
#include <png.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tools.h"

#define TILE CG_TILE_SIZE
#define NTILES 43u /* 6 kinds of cell, 37 reach distances */

#ifdef CG_HAVE_PNG
/* ------------------------------------------------------------ decoding */

typedef struct rgba_image {
    uint32_t width, height;
    uint8_t *px; /* width * height * 4 */
} rgba_image;

/* Decodes any PNG file to 8-bit RGBA with libpng. */
static void read_rgba(const char *path, rgba_image *img)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    assert_non_null(png);
    assert_non_null(info);
    png_bytep *volatile rows = NULL;
    uint8_t *volatile px = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        fclose(f);
        print_error("libpng cannot read %s\n", path);
        fail();
    }
    png_init_io(png, f);
    png_read_info(png, info);
    png_set_expand(png); /* palette and low depths to 8 bits, tRNS to alpha */
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_read_update_info(png, info);
    img->width = png_get_image_width(png, info);
    img->height = png_get_image_height(png, info);
    assert_int_equal(png_get_rowbytes(png, info), (size_t)img->width * 4);
    px = malloc((size_t)img->width * img->height * 4);
    rows = malloc(sizeof *rows * img->height);
    assert_non_null(px);
    assert_non_null(rows);
    for (uint32_t y = 0; y < img->height; y++)
        rows[y] = px + (size_t)y * img->width * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    free(rows);
    img->px = px;
}

static const uint8_t *pixel(const rgba_image *img, uint32_t x, uint32_t y)
{
    return img->px + ((size_t)y * img->width + x) * 4;
}

/* Writes the tileset image into dir; returns its RGBA decoding. */
static rgba_image tileset_in(const char *dir)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, CG_TILESET_IMAGE);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    cg_diag diag = {0};
    assert_int_equal(cg_write_tileset_image(tt_file_write, f, &diag), CG_OK);
    assert_int_equal(fclose(f), 0);
    rgba_image img;
    read_rgba(path, &img);
    return img;
}

/* The colour of tile t in the tileset image (checked solid below). */
static const uint8_t *tile_colour(const rgba_image *ts, unsigned t)
{
    unsigned columns = ts->width / TILE;
    return pixel(ts, (t % columns) * TILE, (t / columns) * TILE);
}

/* The tile a cell shows: its marker's, else its reach distance's, else
 * wall (0) or floor (1). */
static unsigned cell_tile(const cg_grid *g, uint32_t x, uint32_t y)
{
    cg_marker m = cg_grid_marker(g, x, y);
    if (m != CG_MARK_NONE)
        return 1u + (unsigned)m;
    uint32_t d = cg_grid_distance(g, x, y);
    if (d != CG_UNREACHED)
        return 6u + (d < 36 ? d : 36);
    return cg_grid_get(g, x, y) == CG_WALL ? 0 : 1;
}

/* ------------------------------------------------------------- tileset */

static void tileset_image_is_a_valid_png_of_solid_tiles(void **state)
{
    (void)state;
    rgba_image ts = tileset_in(tu_workdir);
    assert_int_equal(ts.width % TILE, 0);
    assert_int_equal(ts.height % TILE, 0);
    unsigned columns = ts.width / TILE, count = columns * (ts.height / TILE);
    assert_true(count >= NTILES);
    for (unsigned t = 0; t < count; t++) {
        const uint8_t *c = tile_colour(&ts, t);
        for (unsigned y = 0; y < TILE; y++)
            for (unsigned x = 0; x < TILE; x++)
                assert_memory_equal(pixel(&ts, (t % columns) * TILE + x, (t / columns) * TILE + y),
                                    c, 4);
        /* Used tiles are opaque and unused ones transparent. */
        assert_int_equal(c[3], t < NTILES ? 255 : 0);
    }
    /* The PNG writer's colours (docs/formats.md). */
    static const uint8_t base[6][3] = {{46, 40, 36},  {226, 212, 178}, {40, 175, 60},
                                       {205, 40, 40}, {240, 190, 30},  {95, 110, 140}};
    for (unsigned t = 0; t < 6; t++)
        assert_memory_equal(tile_colour(&ts, t), base[t], 3);
    /* Every used tile tells itself apart from every other. */
    for (unsigned a = 0; a < NTILES; a++)
        for (unsigned b = a + 1; b < NTILES; b++)
            assert_memory_not_equal(tile_colour(&ts, a), tile_colour(&ts, b), 3);
    free(ts.px);

    /* The same bytes every time, and pngcheck finds nothing wrong. */
    tu_buf a = {0}, b = {0};
    cg_diag diag = {0};
    assert_int_equal(cg_write_tileset_image(tu_buf_write, &a, &diag), CG_OK);
    assert_int_equal(cg_write_tileset_image(tu_buf_write, &b, &diag), CG_OK);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    for (int k = 1; k <= a.calls; k++) {
        tu_buf c = {0};
        c.fail_at = k;
        assert_int_equal(cg_write_tileset_image(tu_buf_write, &c, &diag), CG_EIO);
        tu_buf_free(&c);
    }
    tu_buf_free(&a);
    tu_buf_free(&b);
    TT_REQUIRE("pngcheck");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "pngcheck -q '%s/%s' 2>&1", tu_workdir, CG_TILESET_IMAGE);
    free(tt_run_ok(cmd));
}
#endif /* CG_HAVE_PNG */

/* ---------------------------------------------------------- structure */

/* Flattens a TMX (argv[1] ends in .tmx) or TMJ file into one fact per line,
 * the same facts for both. */
static const char flatten_py[] =
    "import json, sys, xml.etree.ElementTree as ET\n"
    "def flat(path):\n"
    "    def pairs(kv):\n"
    "        d = {}\n"
    "        for k, v in kv:\n"
    "            assert k not in d, 'duplicate key ' + k\n"
    "            d[k] = v\n"
    "        return d\n"
    "    def const(c):\n"
    "        raise ValueError(c)\n"
    "    def s(v):\n"
    "        return str(v).lower() if isinstance(v, bool) else str(v)\n"
    "    o = []\n"
    "    MAP = ('version', 'orientation', 'renderorder', 'width', 'height', 'tilewidth',\n"
    "           'tileheight', 'infinite', 'nextlayerid', 'nextobjectid')\n"
    "    TS = ('firstgid', 'name', 'tilewidth', 'tileheight', 'tilecount', 'columns')\n"
    "    OBJ = ('id', 'name', 'type', 'gid', 'x', 'y', 'width', 'height')\n"
    "    if path.endswith('.tmx'):\n"
    "        m = ET.parse(path).getroot()\n"
    "        assert m.tag == 'map'\n"
    "        o.append('map ' + ' '.join(m.get(k) for k in MAP))\n"
    "        for p in m.findall('properties/property'):\n"
    "            v = p.get('value') if p.get('value') is not None else p.text\n"
    "            o.append('property %s %s %s' % (p.get('name'), p.get('type', 'string'),\n"
    "                                            json.dumps(v)))\n"
    "        t = m.find('tileset')\n"
    "        im = t.find('image')\n"
    "        o.append('tileset ' + ' '.join(t.get(k) for k in TS) + ' ' + im.get('source') +\n"
    "                 ' ' + im.get('width') + ' ' + im.get('height'))\n"
    "        for tile in t.findall('tile'):\n"
    "            o.append('tile %s %s ' % (tile.get('id'), tile.get('type')) + ' '.join(\n"
    "                '%s:%s=%s' % (p.get('name'), p.get('type'), p.get('value'))\n"
    "                for p in tile.findall('properties/property')))\n"
    "        for l in m:\n"
    "            if l.tag == 'layer':\n"
    "                o.append('layer %s %s %s %s' % (l.get('id'), l.get('name'), l.get('width'),\n"
    "                                                l.get('height')))\n"
    "                d = l.find('data')\n"
    "                assert d.get('encoding') == 'csv'\n"
    "                g = [int(v) for v in d.text.replace('\\n', '').split(',')]\n"
    "                w = int(l.get('width'))\n"
    "                assert len(g) == w * int(l.get('height'))\n"
    "                o += [' '.join(map(str, g[i:i + w])) for i in range(0, len(g), w)]\n"
    "            elif l.tag == 'objectgroup':\n"
    "                o.append('objectgroup %s %s' % (l.get('id'), l.get('name')))\n"
    "                for b in l.findall('object'):\n"
    "                    o.append('object ' + ' '.join(b.get(k) for k in OBJ))\n"
    "    else:\n"
    "        m = json.load(open(path, encoding='utf-8'), object_pairs_hook=pairs,\n"
    "                      parse_constant=const)\n"
    "        assert m['type'] == 'map'\n"
    "        m['infinite'] = int(m['infinite'])\n"
    "        o.append('map ' + ' '.join(s(m[k]) for k in MAP))\n"
    "        for p in m.get('properties', []):\n"
    "            o.append('property %s %s %s' % (p['name'], p['type'], "
    "json.dumps(s(p['value']))))\n"
    "        assert len(m['tilesets']) == 1\n"
    "        t = m['tilesets'][0]\n"
    "        o.append('tileset ' + ' '.join(s(t[k]) for k in TS) + ' ' + t['image'] + ' ' +\n"
    "                 s(t['imagewidth']) + ' ' + s(t['imageheight']))\n"
    "        for tile in t['tiles']:\n"
    "            o.append('tile %d %s ' % (tile['id'], tile['type']) + ' '.join(\n"
    "                '%s:%s=%s' % (p['name'], p['type'], s(p['value'])) for p in "
    "tile['properties']))\n"
    "        for l in m['layers']:\n"
    "            assert l['opacity'] == 1 and l['visible'] is True\n"
    "            if l['type'] == 'tilelayer':\n"
    "                o.append('layer %d %s %d %d' % (l['id'], l['name'], l['width'], "
    "l['height']))\n"
    "                g, w = l['data'], l['width']\n"
    "                assert len(g) == w * l['height']\n"
    "                o += [' '.join(map(str, g[i:i + w])) for i in range(0, len(g), w)]\n"
    "            else:\n"
    "                assert l['type'] == 'objectgroup'\n"
    "                o.append('objectgroup %d %s' % (l['id'], l['name']))\n"
    "                for b in l['objects']:\n"
    "                    o.append('object ' + ' '.join(s(b[k]) for k in OBJ))\n"
    "    return o\n"
    "for path in sys.argv[1:]:\n"
    "    print('\\n'.join(flat(path)))\n"
    "    print('@@end@@')\n";

static void add_py_string(tu_buf *t, const char *s, size_t len)
{
    tu_buf_printf(t, "\"");
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"' || s[i] == '\\')
            tu_buf_printf(t, "\\%c", s[i]);
        else if (s[i] == '\n')
            tu_buf_printf(t, "\\n");
        else
            tu_buf_printf(t, "%c", s[i]);
    }
    tu_buf_printf(t, "\"\n");
}

/* What flatten_py prints for g written with info (ASCII-only strings). */
static char *expected_flat(const cg_grid *g, const cg_map_info *info)
{
    tu_buf t = {0};
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    int reach = cg_grid_reached_count(g) > 0;
    size_t nmarks = cg_grid_marker_count(g);
    tu_buf_printf(&t, "map 1.8 orthogonal right-down %u %u %u %u 0 %d %zu\n", w, h, TILE, TILE,
        reach ? 4 : 3, nmarks + 1);
    tu_buf_printf(&t, "property generator string \"cavegen %s\"\n", CG_VERSION_STRING);
    if (info->has_seed)
        tu_buf_printf(&t, "property seed string \"%llu\"\nproperty run_seed string \"%llu\"\n",
            (unsigned long long)info->seed, (unsigned long long)info->run_seed);
    if (info->attempts)
        tu_buf_printf(&t, "property attempts int \"%u\"\n", info->attempts);
    if (info->preset_name) {
        tu_buf_printf(&t, "property preset string ");
        add_py_string(&t, info->preset_name, strlen(info->preset_name));
    }
    if (info->preset_text) {
        tu_buf_printf(&t, "property preset_text string ");
        add_py_string(&t, info->preset_text, info->preset_text_len);
    }
    tu_buf_printf(&t, "tileset 1 cavegen %u %u 48 8 %s 128 96\n", TILE, TILE, CG_TILESET_IMAGE);
    static const char *const kinds[] = {"wall", "floor", "entrance", "exit", "poi", "blocked"};
    for (unsigned i = 0; i < NTILES; i++) {
        if (i < 6)
            tu_buf_printf(&t, "tile %u %s solid:bool=%s\n", i, kinds[i],
                          i == 0 || i == 5 ? "true" : "false");
        else
            tu_buf_printf(&t, "tile %u reach distance:int=%u\n", i, i - 6);
    }
    tu_buf_printf(&t, "layer 1 cells %u %u\n", w, h);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++)
            tu_buf_printf(&t, "%s%d", x ? " " : "", cg_grid_get(g, x, y) == CG_WALL ? 1 : 2);
        tu_buf_printf(&t, "\n");
    }
    if (reach) {
        tu_buf_printf(&t, "layer 2 reach %u %u\n", w, h);
        for (uint32_t y = 0; y < h; y++) {
            for (uint32_t x = 0; x < w; x++) {
                uint32_t d = cg_grid_distance(g, x, y);
                tu_buf_printf(&t, "%s%u", x ? " " : "",
                              d == CG_UNREACHED ? 0 : 7 + (d < 36 ? d : 36));
            }
            tu_buf_printf(&t, "\n");
        }
    }
    tu_buf_printf(&t, "objectgroup %d markers\n", reach ? 3 : 2);
    static const char *const names[] = {"", "entrance", "exit", "poi", "blocked"};
    for (size_t i = 0; i < nmarks; i++) {
        uint32_t x, y;
        cg_marker k;
        assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
        /* A point of a named kind is named and typed by its kind. */
        const char *name = cg_grid_point_kind_name(g, cg_grid_marker_symbol(g, x, y));
        if (!name)
            name = names[k];
        tu_buf_printf(&t, "object %zu %s %s %d %u %u %u %u\n", i + 1, name, name, (int)k + 2,
                      x * TILE, (y + 1) * TILE, TILE, TILE);
    }
    return t.data;
}

static void write_map(const cg_grid *g, const cg_map_info *info, cg_format f, const char *path)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    cg_write_options opt = {.format = f, .scale = 0, .info = info};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &opt, tt_file_write, fp, &diag), CG_OK);
    assert_int_equal(fclose(fp), 0);
}

#define MAX_FILES 32
#define PATH_CAP TT_PATH_CAP

/* A random cave with every kind of marker (and points of two named kinds,
 * one named "chest", one only a letter) and, if reach, a reach from the
 * first free cell. */
static cg_grid *sample_map(uint64_t seed, uint32_t w, uint32_t h, int reach)
{
    uint64_t rng = seed;
    cg_grid *g;
    assert_int_equal(cg_grid_new(&g, w, h), CG_OK);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            cg_grid_set(g, x, y, tu_unit(&rng) < 0.35 ? CG_WALL : CG_FLOOR);
    cg_marker kinds[] = {CG_MARK_ENTRANCE, CG_MARK_EXIT,    CG_MARK_POI,
                         CG_MARK_POI,      CG_MARK_BLOCKED, CG_MARK_BLOCKED};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        uint32_t x = (uint32_t)tu_range(&rng, 0, (int)w - 1),
                 y = (uint32_t)tu_range(&rng, 0, (int)h - 1);
        cg_grid_set(g, x, y, CG_FLOOR);
        assert_int_equal(cg_grid_set_marker(g, x, y, kinds[i]), CG_OK);
    }
    for (int i = 0; i < 2; i++) {
        uint32_t x = (uint32_t)tu_range(&rng, 0, (int)w - 1),
                 y = (uint32_t)tu_range(&rng, 0, (int)h - 1);
        cg_grid_set(g, x, y, CG_FLOOR);
        assert_int_equal(cg_grid_set_point(g, x, y, i ? 'K' : 'C', i ? NULL : "chest"), CG_OK);
    }
    if (reach) {
        for (uint32_t i = 0; i < w * h; i++) {
            uint32_t x = i % w, y = i / w;
            if (cg_grid_get(g, x, y) == CG_FLOOR && cg_grid_marker(g, x, y) != CG_MARK_BLOCKED) {
                cg_point p = {x, y};
                cg_diag diag = {0};
                assert_int_equal(cg_grid_reach(g, &p, 1, 45, &diag), CG_OK);
                break;
            }
        }
    }
    return g;
}

static void tmx_and_tmj_say_the_same_thing_about_the_grid(void **state)
{
    (void)state;
    TT_REQUIRE(CG_PYTHON3);
    static const uint32_t sizes[][2] = {{1, 1}, {9, 1}, {1, 9}, {65, 7}, {40, 25}};
    const char *preset = "fill 40\n# a \"comment\" with <markup> & 'quotes'\nsmooth 2\n";
    cg_map_info infos[2] = {{0, 0, 0, 0, NULL, NULL, 0},
                            {1, UINT64_MAX, 77, 3, "my <preset> & \"co\"", preset, strlen(preset)}};
    char paths[MAX_FILES][PATH_CAP];
    char *want[MAX_FILES];
    size_t n = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int variant = 0; variant < 2; variant++) {
            cg_grid *g = sample_map(i + 1, sizes[i][0], sizes[i][1], variant);
            for (int json = 0; json < 2; json++) {
                assert_true(n < MAX_FILES);
                snprintf(paths[n], PATH_CAP, "%s/m%zu-%d.%s", tu_workdir, i, variant,
                         json ? "tmj" : "tmx");
                write_map(g, &infos[variant], json ? CG_FORMAT_TMJ : CG_FORMAT_TMX, paths[n]);
                want[n++] = expected_flat(g, &infos[variant]);
            }
            cg_grid_free(g);
        }
    }
    tt_assert_read_back(flatten_py, paths, want, n);
}

/* Any bytes in the preset's name and text make a well-formed map: markup
 * characters escaped, line breaks and tabs kept, what XML 1.0 cannot hold
 * (control characters) or what is not UTF-8 as U+FFFD. JSON keeps control
 * characters, escaped. */
static void tiled_maps_hold_any_preset_text(void **state)
{
    (void)state;
    TT_REQUIRE(CG_PYTHON3);
    static const char name[] = "n<&>\"'\x7f";
    static const char raw[] = "a\"b<c>&d'\x01\t\r\n\x80\xc3\xa9]]>";
    cg_map_info info = {0, 0, 0, 0, name, raw, sizeof raw - 1};
    cg_grid *g = tu_run("fill 0", 1, 2, 2, NULL);
    char tmx[400], tmj[400], cmd[2000];
    snprintf(tmx, sizeof tmx, "%s/text.tmx", tu_workdir);
    snprintf(tmj, sizeof tmj, "%s/text.tmj", tu_workdir);
    write_map(g, &info, CG_FORMAT_TMX, tmx);
    write_map(g, &info, CG_FORMAT_TMJ, tmj);
    snprintf(
        cmd, sizeof cmd,
        TT_PYTHON " -c 'import json, sys, xml.etree.ElementTree as ET\n"
        "x = {p.get(\"name\"): p.get(\"value\", p.text)\n"
        "     for p in ET.parse(sys.argv[1]).getroot().findall(\"properties/property\")}\n"
        "j = {p[\"name\"]: p[\"value\"] for p in json.load(open(sys.argv[2]))[\"properties\"]}\n"
        "for d in (x, j):\n"
        "    print(json.dumps(d[\"preset\"]), json.dumps(d[\"preset_text\"]))' '%s' '%s'",
        tmx, tmj);
    char *got = tt_run_ok(cmd);
    static const char want[] =
        "\"n<&>\\\"'\\u007f\" \"a\\\"b<c>&d'\\ufffd\\t\\r\\n\\ufffd\\u00e9]]>\"\n"
        "\"n<&>\\\"'\\u007f\" \"a\\\"b<c>&d'\\u0001\\t\\r\\n\\ufffd\\u00e9]]>\"\n";
    assert_string_equal(got, want);
    free(got);
    cg_grid_free(g);
}

/* A strict reader (tests/tiled_strict.py, the format documentation's
 * attributes, those strict importers require included) accepts every
 * built-in preset's map, with markers, named kinds, blocked cells and a
 * reach, in TMX and TMJ; and it refuses a map without tiledversion, so it
 * is a test that can fail. */
static void strict_readers_accept_every_map(void **state)
{
    (void)state;
    TT_REQUIRE(CG_PYTHON3);
    char files[4096] = "", path[400], cmd[5000];
    size_t used = 0;
    for (size_t i = 0; i < cg_preset_count(); i++) {
        size_t len = 0;
        const char *text = cg_preset_builtin(cg_preset_name(i), &len);
        char buf[8192];
        int n = snprintf(buf, sizeof buf, "%.*s\nentrance\npoi kind=chest count=1\noccupy count=1\n"
                                          "reach from=entrance moves=5\n",
                         (int)len, text);
        assert_true(n > 0 && (size_t)n < sizeof buf);
        cg_pipeline *p = tu_pipeline(buf);
        cg_grid *g = NULL;
        cg_diag diag = {0};
        cg_run_options o = {.seed = 3};
        if (cg_pipeline_run(p, &o, &g, NULL, &diag) != CG_OK) /* a maze: no room */
            g = tu_run(text, 3, 0, 0, NULL);
        cg_pipeline_free(p);
        cg_map_info info = {1, 3, 3, 1, cg_preset_name(i), text, len};
        for (int json = 0; json < 2; json++) {
            snprintf(path, sizeof path, "%s/%s.%s", tu_workdir, cg_preset_name(i),
                     json ? "tmj" : "tmx");
            write_map(g, &info, json ? CG_FORMAT_TMJ : CG_FORMAT_TMX, path);
            used += (size_t)snprintf(files + used, sizeof files - used, " '%s'", path);
        }
        cg_grid_free(g);
    }
    snprintf(cmd, sizeof cmd, TT_PYTHON " '%s/tiled_strict.py' %s 2>&1 && echo ok",
             CG_TEST_DIR, files);
    char *got = tt_run_ok(cmd);
    assert_string_equal(got, "ok\n");
    free(got);
    /* Without tiledversion: refused. */
    snprintf(cmd, sizeof cmd,
             "sed 's/ tiledversion=\"[^\"]*\"//' '%s/type2.tmx' > '%s/old.tmx' && "
             TT_PYTHON " '%s/tiled_strict.py' '%s/old.tmx' 2>&1; echo $?",
             tu_workdir, tu_workdir, CG_TEST_DIR, tu_workdir);
    got = tt_run_ok(cmd);
    assert_non_null(strstr(got, "no tiledversion attribute\n1\n"));
    free(got);
}

#ifdef CG_HAVE_PNG
/* ------------------------------------------------------------ pictures */

/* Renders map_path with tmxrasterizer and checks every tile of the picture
 * against g. The tileset image must be beside the map. */
static void assert_renders_as(const char *map_path, const cg_grid *g, const rgba_image *ts)
{
    char out[400], cmd[1200];
    snprintf(out, sizeof out, "%s.png", map_path);
    unlink(out);
    /* The offscreen platform: Qt needs no display. */
    snprintf(cmd, sizeof cmd,
             "QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR='%s' tmxrasterizer '%s' '%s' 2>&1",
             tu_workdir, map_path, out);
    free(tt_run_ok(cmd));
    rgba_image img;
    read_rgba(out, &img);
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    assert_int_equal(img.width, w * TILE);
    assert_int_equal(img.height, h * TILE);
    for (uint32_t cy = 0; cy < h; cy++)
        for (uint32_t cx = 0; cx < w; cx++) {
            unsigned t = cell_tile(g, cx, cy);
            const uint8_t *want = tile_colour(ts, t);
            for (uint32_t y = 0; y < TILE; y++)
                for (uint32_t x = 0; x < TILE; x++) {
                    const uint8_t *got = pixel(&img, cx * TILE + x, cy * TILE + y);
                    if (memcmp(got, want, 4) != 0) {
                        print_error("%s: cell (%u,%u) pixel (%u,%u) is #%02x%02x%02x%02x, want "
                                    "tile %u #%02x%02x%02x%02x\n",
                                    map_path, cx, cy, x, y, got[0], got[1], got[2], got[3], t,
                                    want[0], want[1], want[2], want[3]);
                        fail();
                    }
                }
        }
    free(img.px);
}

static void tmxrasterizer_draws_each_cell_with_its_tile(void **state)
{
    (void)state;
    TT_REQUIRE("tmxrasterizer");
    rgba_image ts = tileset_in(tu_workdir);
    cg_map_info info = {1, 5, 5, 1, "type2", "fill 45\n", 8};
    for (int reach = 0; reach < 2; reach++) {
        cg_grid *g = sample_map(40 + (uint64_t)reach, 37, 23, reach);
        for (int json = 0; json < 2; json++) {
            char path[400];
            snprintf(path, sizeof path, "%s/r%d.%s", tu_workdir, reach, json ? "tmj" : "tmx");
            write_map(g, &info, json ? CG_FORMAT_TMJ : CG_FORMAT_TMX, path);
            assert_renders_as(path, g, &ts);
        }
        cg_grid_free(g);
    }
    free(ts.px);
}

/* ------------------------------------------------------ the command line */

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void cli_writes_the_tileset_beside_a_map_that_renders(void **state)
{
    (void)state;
    TT_REQUIRE("tmxrasterizer");
    char dir[400], map[500], img[500], cmd[2000];
    snprintf(dir, sizeof dir, "%s/cli", tu_workdir);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(img, sizeof img, "%s/%s", dir, CG_TILESET_IMAGE);
    rgba_image ts = tileset_in(tu_workdir);

    /* The same map as ASCII, without the reach (its overlay hides the
     * entrance under a 0), is what the picture must show, with the reach
     * computed again on the map read. */
    static const char map_args[] = "-p level -s 7 --size 50x30";
    static const char args[] = "-p level -s 7 --size 50x30 --step 'reach from=entrance moves=20'";
    snprintf(cmd, sizeof cmd, "'%s' %s", CAVEGEN_EXE, map_args);
    char *ascii = tt_run_ok(cmd);
    cg_grid *g = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_read_ascii(ascii, strlen(ascii), &g, &diag), CG_OK);
    free(ascii);
    uint32_t x = 0, y = 0;
    cg_marker k = CG_MARK_NONE;
    for (size_t i = 0; i < cg_grid_marker_count(g) && k != CG_MARK_ENTRANCE; i++)
        assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
    assert_int_equal(k, CG_MARK_ENTRANCE);
    cg_point p = {x, y};
    assert_int_equal(cg_grid_reach(g, &p, 1, 20, &diag), CG_OK);

    for (int json = 0; json < 2; json++) {
        snprintf(map, sizeof map, "%s/level.%s", dir, json ? "tmj" : "tmx");
        snprintf(cmd, sizeof cmd, "'%s' %s -o '%s' 2>&1", CAVEGEN_EXE, args, map);
        free(tt_run_ok(cmd));
        assert_true(file_exists(img));
        assert_renders_as(map, g, &ts);
    }

    /* The image the tool wrote is the library's. */
    tu_buf lib = {0};
    assert_int_equal(cg_write_tileset_image(tu_buf_write, &lib, &diag), CG_OK);
    size_t len = 0;
    char *written = tu_read_file(img, &len);
    assert_non_null(written);
    assert_int_equal(len, lib.len);
    assert_memory_equal(written, lib.data, len);
    free(written);
    tu_buf_free(&lib);

    /* One already there - redrawn by a user, say - is kept. */
    tu_write_file(img, "mine", 4);
    snprintf(cmd, sizeof cmd, "'%s' -s 1 -o '%s/other.tmx' 2>&1", CAVEGEN_EXE, dir);
    free(tt_run_ok(cmd));
    written = tu_read_file(img, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(written, "mine", 4);
    free(written);

    /* A map on stdout has no folder: no image is written anywhere. */
    unlink(img);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -s 1 -f tmj > /dev/null", dir, CAVEGEN_EXE);
    free(tt_run_ok(cmd));
    assert_false(file_exists(img));
    cg_grid_free(g);
    free(ts.px);
}
#endif /* CG_HAVE_PNG */

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifdef CG_HAVE_PNG
        cmocka_unit_test(tileset_image_is_a_valid_png_of_solid_tiles),
#endif
        cmocka_unit_test(tmx_and_tmj_say_the_same_thing_about_the_grid),
        cmocka_unit_test(tiled_maps_hold_any_preset_text),
        cmocka_unit_test(strict_readers_accept_every_map),
#ifdef CG_HAVE_PNG
        cmocka_unit_test(tmxrasterizer_draws_each_cell_with_its_tile),
        cmocka_unit_test(cli_writes_the_tileset_beside_a_map_that_renders),
#endif
    };
    return cmocka_run_group_tests(tests, tu_workdir_setup, tu_workdir_teardown);
}
