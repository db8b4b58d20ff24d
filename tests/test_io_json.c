/* test_io_json.c - cg_write(CG_FORMAT_JSON): python3's json module reads
 * what we write (strictly: no duplicate keys, no NaN, the documented keys in
 * the documented order), and every field it reads back equals the grid it
 * came from: rows, markers, stats, reach, metadata (docs/formats.md). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <inttypes.h>

#include "testutil.h"
#include "tools.h"

/* Reads a cavegen JSON map strictly and prints it flattened, one fact per
 * line, in a form the C side can build from the grid. */
static const char flatten_py[] =
    "import json, sys\n"
    "def flat(path):\n"
    "    def pairs(kv):\n"
    "        d = {}\n"
    "        for k, v in kv:\n"
    "            assert k not in d, 'duplicate key ' + k\n"
    "            d[k] = v\n"
    "        return d\n"
    "    def const(c):\n"
    "        raise ValueError('non-finite number ' + c)\n"
    "    def nat(v):\n"
    "        assert type(v) is int and v >= 0, repr(v)\n"
    "        return v\n"
    "    m = json.load(open(path, encoding='utf-8'), object_pairs_hook=pairs,\n"
    "                  parse_constant=const)\n"
    "    keys = ['format', 'format_version', 'cavegen_version', 'width', 'height', 'seed',\n"
    "            'run_seed', 'attempts', 'preset', 'preset_text', 'entrance', 'exit', 'points',\n"
    "            'blocked', 'stats', 'rows', 'reach']\n"
    "    assert list(m) == keys, list(m)\n"
    "    o = ['%s %d %s' % (m['format'], nat(m['format_version']), m['cavegen_version'])]\n"
    "    o.append('%d %d' % (nat(m['width']), nat(m['height'])))\n"
    "    o.append(json.dumps([m['seed'], m['run_seed'], m['attempts'], m['preset'],\n"
    "                         m['preset_text']]))\n"
    "    for k in ('entrance', 'exit'):\n"
    "        v = m[k]\n"
    "        o.append(k + (' null' if v is None else ' %d %d' % (nat(v['x']), nat(v['y']))))\n"
    "    def mark(v):\n"
    "        if list(v) == ['x', 'y']:\n"
    "            return ' %d,%d' % (nat(v['x']), nat(v['y']))\n"
    "        assert list(v) == ['x', 'y', 'kind', 'symbol'], list(v)\n"
    "        return ' %d,%d:%s:%s' % (nat(v['x']), nat(v['y']), v['kind'], v['symbol'])\n"
    "    for k in ('points', 'blocked'):\n"
    "        o.append(k + ''.join(mark(v) for v in m[k]))\n"
    "    s = m['stats']\n"
    "    assert list(s) == ['floor', 'floor_permille', 'regions', 'largest_region', 'dead_ends',\n"
    "                       'points', 'path_length'], list(s)\n"
    "    o.append('stats ' + ' '.join('null' if s[k] is None else str(nat(s[k])) for k in s))\n"
    "    assert len(m['rows']) == m['height']\n"
    "    for r in m['rows']:\n"
    "        assert len(r) == m['width'] and set(r) <= set('#.<>*xABCDEFGHIJKLMNOPQRSTUVWXYZ'), r\n"
    "        o.append(r)\n"
    "    r = m['reach']\n"
    "    if r is None:\n"
    "        o.append('reach null')\n"
    "    else:\n"
    "        assert list(r) == ['reached', 'max_distance', 'cells'], list(r)\n"
    "        assert len(r['cells']) == r['reached']\n"
    "        o.append('reach %d %d' % (nat(r['reached']), nat(r['max_distance'])))\n"
    "        o += ['%d %d %d' % tuple(nat(v) for v in c) for c in r['cells']]\n"
    "    return o\n"
    "for path in sys.argv[1:]:\n"
    "    print('\\n'.join(flat(path)))\n"
    "    print('@@end@@')\n";

static void add_py_string(tu_buf *t, const char *s)
{
    tu_buf_printf(t, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            tu_buf_printf(t, "\\%c", *s);
        else if (*s == '\n')
            tu_buf_printf(t, "\\n");
        else
            tu_buf_printf(t, "%c", *s);
    }
    tu_buf_printf(t, "\"");
}

/* What flatten_py prints for grid g written with info. */
static char *expected_flat(const cg_grid *g, const cg_map_info *info)
{
    tu_buf t = {0};
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    tu_buf_printf(&t, "cavegen-map 1 %s\n%" PRIu32 " %" PRIu32 "\n", CG_VERSION_STRING, w, h);
    if (info && info->has_seed)
        tu_buf_printf(&t, "[\"%" PRIu64 "\", \"%" PRIu64 "\", ", info->seed, info->run_seed);
    else
        tu_buf_printf(&t, "[null, null, ");
    if (info && info->attempts)
        tu_buf_printf(&t, "%" PRIu32 ", ", info->attempts);
    else
        tu_buf_printf(&t, "null, ");
    if (info && info->preset_name)
        add_py_string(&t, info->preset_name);
    else
        tu_buf_printf(&t, "null");
    tu_buf_printf(&t, ", ");
    if (info && info->preset_text)
        add_py_string(&t, info->preset_text);
    else
        tu_buf_printf(&t, "null");
    tu_buf_printf(&t, "]\n");

    const char *names[] = {"", "entrance", "exit", "points", "blocked"};
    for (cg_marker kind = CG_MARK_ENTRANCE; kind <= CG_MARK_BLOCKED; kind++) {
        int single = kind == CG_MARK_ENTRANCE || kind == CG_MARK_EXIT, found = 0;
        tu_buf_printf(&t, "%s", names[kind]);
        for (size_t i = 0; i < cg_grid_marker_count(g); i++) {
            uint32_t x, y;
            cg_marker k;
            assert_int_equal(cg_grid_marker_at(g, i, &x, &y, &k), CG_OK);
            if (k != kind || (single && found))
                continue;
            tu_buf_printf(&t, single ? " %" PRIu32 " %" PRIu32 : " %" PRIu32 ",%" PRIu32, x, y);
            char sym = cg_grid_marker_symbol(g, x, y);
            if (k == CG_MARK_POI && sym != '*')
                tu_buf_printf(&t, ":%s:%c", cg_grid_point_kind_name(g, sym), sym);
            found = 1;
        }
        tu_buf_printf(&t, single && !found ? " null\n" : "\n");
    }

    cg_stats s;
    assert_int_equal(cg_grid_stats(g, NULL, &s, NULL), CG_OK);
    tu_buf_printf(&t, "stats %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
        s.floor, s.floor * 1000 / ((uint64_t)w * h), s.regions, s.largest_region, s.dead_ends,
        s.points);
    if (s.path_length < 0)
        tu_buf_printf(&t, " null\n");
    else
        tu_buf_printf(&t, " %" PRId64 "\n", s.path_length);

    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            char sym = cg_grid_marker_symbol(g, x, y);
            tu_buf_printf(&t, "%c", cg_grid_get(g, x, y) == CG_WALL ? '#' : sym ? sym : '.');
        }
        tu_buf_printf(&t, "\n");
    }
    return t.data;
}

/* Appends the reach part: "reach null", or the count, the largest distance
 * and every reached cell in (y, x) order. */
static char *with_reach(char *flat, const cg_grid *g, int has_reach)
{
    tu_buf t = {.data = flat, .len = strlen(flat), .cap = strlen(flat) + 1};
    if (!has_reach) {
        tu_buf_printf(&t, "reach null\n");
        return t.data;
    }
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g), max = 0;
    tu_buf cells = {0};
    tu_buf_printf(&cells, "%s", "");
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t d = cg_grid_distance(g, x, y);
            if (d == CG_UNREACHED)
                continue;
            max = d > max ? d : max;
            tu_buf_printf(&cells, "%" PRIu32 " %" PRIu32 " %" PRIu32 "\n", x, y, d);
        }
    tu_buf_printf(&t, "reach %" PRIu64 " %" PRIu32 "\n%s", cg_grid_reached_count(g), max,
                  cells.data);
    free(cells.data);
    return t.data;
}

/* Writes g as JSON to tu_workdir/NAME.json; the path goes to path. */
static void write_json(const cg_grid *g, const cg_map_info *info, const char *name, char *path,
                       size_t cap)
{
    snprintf(path, cap, "%s/%s.json", tu_workdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    cg_write_options opt = {.format = CG_FORMAT_JSON, .scale = 0, .info = info};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &opt, tt_file_write, f, &diag), CG_OK);
    assert_int_equal(fclose(f), 0);
}

#define MAX_FILES 32
#define PATH_CAP TT_PATH_CAP

/* A random map with every kind of marker, some of them several times. */
static cg_grid *random_map(uint64_t *rng, uint32_t w, uint32_t h)
{
    cg_grid *g;
    assert_int_equal(cg_grid_new(&g, w, h), CG_OK);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            cg_grid_set(g, x, y, tu_unit(rng) < 0.4 ? CG_WALL : CG_FLOOR);
    for (int i = 0; i < 6; i++) {
        uint32_t x = (uint32_t)tu_range(rng, 0, (int)w - 1),
                 y = (uint32_t)tu_range(rng, 0, (int)h - 1);
        cg_marker m = (cg_marker)tu_range(rng, CG_MARK_ENTRANCE, CG_MARK_BLOCKED);
        if (cg_grid_get(g, x, y) == CG_FLOOR)
            assert_int_equal(cg_grid_set_marker(g, x, y, m), CG_OK);
    }
    /* Points of named kinds: "chest" on C, and Z unnamed (read from ASCII). */
    for (int i = 0; i < 3; i++) {
        uint32_t x = (uint32_t)tu_range(rng, 0, (int)w - 1),
                 y = (uint32_t)tu_range(rng, 0, (int)h - 1);
        if (cg_grid_get(g, x, y) == CG_FLOOR)
            assert_int_equal(cg_grid_set_point(g, x, y, i == 2 ? 'Z' : 'C', i == 2 ? NULL : "chest"),
                             CG_OK);
    }
    return g;
}

static void json_reads_back_as_the_grid_for_many_sizes(void **state)
{
    (void)state;
    TT_REQUIRE(CG_PYTHON3);
    static const uint32_t sizes[][2] = {{1, 1},  {1, 9},  {9, 1},   {7, 5},  {63, 4},
                                        {64, 3}, {65, 6}, {130, 3}, {17, 17}};
    uint64_t rng = 11;
    char paths[MAX_FILES][PATH_CAP];
    char *want[MAX_FILES];
    size_t n = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int reach = 0; reach < 2; reach++) {
            cg_grid *g = random_map(&rng, sizes[i][0], sizes[i][1]);
            int has_reach = 0;
            if (reach) {
                /* From the first free floor cell that is not blocked. */
                for (uint32_t y = 0; y < sizes[i][1] && !has_reach; y++)
                    for (uint32_t x = 0; x < sizes[i][0] && !has_reach; x++)
                        if (cg_grid_get(g, x, y) == CG_FLOOR &&
                            cg_grid_marker(g, x, y) != CG_MARK_BLOCKED) {
                            cg_point p = {x, y};
                            cg_diag diag = {0};
                            assert_int_equal(cg_grid_reach(g, &p, 1, 7, &diag), CG_OK);
                            has_reach = 1;
                        }
            }
            char name[64];
            snprintf(name, sizeof name, "map%zu-%d", i, reach);
            assert_true(n < MAX_FILES);
            write_json(g, NULL, name, paths[n], PATH_CAP);
            want[n++] = with_reach(expected_flat(g, NULL), g, has_reach);
            cg_grid_free(g);
        }
    }
    tt_assert_read_back(flatten_py, paths, want, n);
}

static void json_records_how_a_level_was_made(void **state)
{
    (void)state;
    TT_REQUIRE(CG_PYTHON3);
    const char *preset = "level";
    size_t len = 0;
    const char *text = cg_preset_builtin(preset, &len);
    assert_non_null(text);
    cg_pipeline *p = tu_pipeline(text);
    cg_run_options ro = {.seed = 42};
    cg_run_info ri;
    cg_grid *g = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_run(p, &ro, &g, &ri, &diag), CG_OK);
    cg_point start;
    cg_marker kind;
    assert_int_equal(cg_grid_marker_at(g, 0, &start.x, &start.y, &kind), CG_OK);
    assert_int_equal(cg_grid_reach(g, &start, 1, CG_MOVES_UNLIMITED, &diag), CG_OK);

    cg_map_info info = {1, 42, ri.seed, ri.attempts, preset, text, len};
    char paths[1][PATH_CAP];
    char *want = with_reach(expected_flat(g, &info), g, 1);
    /* A level has an entrance, an exit and a path between them. */
    assert_null(strstr(want, "entrance null"));
    assert_null(strstr(want, "exit null"));
    write_json(g, &info, "level", paths[0], PATH_CAP);
    tt_assert_read_back(flatten_py, paths, &want, 1);
    cg_grid_free(g);
    cg_pipeline_free(p);
}

static void json_strings_are_escaped_and_made_utf8(void **state)
{
    (void)state;
    TT_REQUIRE(CG_PYTHON3);
    cg_grid *g = tu_run("fill 0", 1, 3, 2, NULL);
    /* Quotes, backslashes, control characters, a lone continuation byte,
     * a truncated sequence, an overlong '/', a surrogate, valid UTF-8. */
    static const char raw[] = "a\"b\\c\x01\t\r\n\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|"
                              "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f";
    cg_map_info info = {0, 0, 0, 0, "n\"ame", raw, sizeof raw - 1};
    char paths[1][PATH_CAP];
    write_json(g, &info, "escapes", paths[0], PATH_CAP);
    char *got = tt_python_flat(flatten_py, paths, 1);
    char *line = strchr(strchr(got, '\n') + 1, '\n') + 1; /* the metadata line */
    static const char want[] =
        "[null, null, null, \"n\\\"ame\", \"a\\\"b\\\\c\\u0001\\t\\r\\n\\ufffd|\\ufffd\\ufffd|"
        "\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\u00e9\\u20ac\\ud83d\\ude00\\u007f\"]\n";
    assert_memory_equal(line, want, strlen(want));
    free(got);
    cg_grid_free(g);
}

static void json_bytes_depend_only_on_the_map_and_info(void **state)
{
    (void)state;
    cg_grid *a = tu_run("fill 45\ngenerations 4 r1=5 r2=2\nentrance\nexit", 9, 70, 30, NULL);
    cg_grid *b = tu_run("fill 45\ngenerations 4 r1=5 r2=2\nentrance\nexit", 9, 70, 30, NULL);
    cg_map_info info = {1, 9, 9, 1, "x", "fill 45\n", 8};
    tu_buf ba = {0}, bb = {0};
    cg_write_options opt = {.format = CG_FORMAT_JSON, .scale = 0, .info = &info};
    cg_diag diag = {0};
    assert_int_equal(cg_write(a, &opt, tu_buf_write, &ba, &diag), CG_OK);
    assert_int_equal(cg_write(b, &opt, tu_buf_write, &bb, &diag), CG_OK);
    assert_int_equal(ba.len, bb.len);
    assert_memory_equal(ba.data, bb.data, ba.len);
    /* Without info: nulls. */
    tu_buf bc = {0};
    opt.info = NULL;
    assert_int_equal(cg_write(a, &opt, tu_buf_write, &bc, &diag), CG_OK);
    assert_non_null(
        strstr(bc.data, "\"seed\": null,\n  \"run_seed\": null,\n  \"attempts\": null"));
    tu_buf_free(&ba);
    tu_buf_free(&bb);
    tu_buf_free(&bc);
    cg_grid_free(a);
    cg_grid_free(b);
}

/* The command line records the pipeline it ran - the preset's text, then
 * the step options - and the seeds: run again from that text with run_seed,
 * the tool makes the same map in one attempt. A converted map records no
 * seed and no preset. */
static void cli_json_holds_what_reproduces_the_map(void **state)
{
    (void)state;
    TT_REQUIRE(CG_PYTHON3);
    char a[400], b[400], preset[400], cmd[2000];
    snprintf(a, sizeof a, "%s/cli-a.json", tu_workdir);
    snprintf(b, sizeof b, "%s/cli-b.json", tu_workdir);
    snprintf(preset, sizeof preset, "%s/recorded.preset", tu_workdir);
    snprintf(cmd, sizeof cmd,
             "'%s' -p type4 -s 9 --size 50x40 --step entrance "
             "--step 'require open>=45%%' --generations 1:5,-1 -q -o '%s'",
             CAVEGEN_EXE, a);
    free(tt_run_ok(cmd));
    /* The recorded text, its seeds and attempts, via python's json. */
    snprintf(cmd, sizeof cmd,
             TT_PYTHON " -c 'import json, sys\n"
             "m = json.load(open(sys.argv[1]))\n"
             "open(sys.argv[2], \"w\").write(m[\"preset_text\"])\n"
             "print(m[\"preset\"], m[\"seed\"], m[\"run_seed\"], m[\"attempts\"])' '%s' '%s'",
             a, preset);
    char *facts = tt_run_ok(cmd);
    char name[64], seed[32], run_seed[32];
    unsigned attempts = 0;
    assert_int_equal(sscanf(facts, "%63s %31s %31s %u", name, seed, run_seed, &attempts), 4);
    free(facts);
    assert_string_equal(name, "type4");
    assert_string_equal(seed, "9");
    assert_true(attempts > 1); /* open>=45% takes several: run_seed is not the seed */
    size_t len = 0;
    char *text = tu_read_file(preset, &len);
    assert_non_null(text);
    size_t blen = 0;
    const char *builtin = cg_preset_builtin("type4", &blen);
    assert_true(len > blen);
    assert_memory_equal(text, builtin, blen);
    assert_string_equal(text + blen, "entrance\nrequire open>=45%\ngenerations 1 r1=5 r2=-1\n");
    free(text);

    snprintf(cmd, sizeof cmd, "'%s' -p '%s' -s %s --size 50x40 -o '%s'", CAVEGEN_EXE, preset,
             run_seed, b);
    free(tt_run_ok(cmd));
    snprintf(cmd, sizeof cmd,
             TT_PYTHON " -c 'import json, sys\n"
             "a, b = (json.load(open(p)) for p in sys.argv[1:3])\n"
             "assert a[\"rows\"] == b[\"rows\"], \"another map\"\n"
             "assert b[\"attempts\"] == 1 and b[\"seed\"] == b[\"run_seed\"] == a[\"run_seed\"]\n"
             "assert b[\"preset\"] == sys.argv[3]' '%s' '%s' '%s'",
             a, b, preset);
    free(tt_run_ok(cmd));

    /* A conversion: no seed, no preset, no steps. */
    snprintf(cmd, sizeof cmd,
             "'%s' -s 1 --size 12x5 | '%s' -i - -f json | " TT_PYTHON
             " -c 'import json, sys\n"
             "m = json.load(sys.stdin)\n"
             "print(m[\"seed\"], m[\"run_seed\"], m[\"preset\"], m[\"preset_text\"], "
             "m[\"attempts\"])'",
             CAVEGEN_EXE, CAVEGEN_EXE);
    char *conv = tt_run_ok(cmd);
    assert_string_equal(conv, "None None None None 1\n");
    free(conv);
}

static void a_failing_callback_fails_the_write_at_any_point(void **state)
{
    (void)state;
    cg_grid *g = tu_run("fill 45\ngenerations 3 r1=5 r2=-1", 3, 300, 300, NULL);
    cg_write_options opt = {.format = CG_FORMAT_JSON, .scale = 0};
    cg_diag diag = {0};
    tu_buf all = {0};
    assert_int_equal(cg_write(g, &opt, tu_buf_write, &all, &diag), CG_OK);
    assert_true(all.calls > 1); /* buffered: a few calls of up to 64 KiB */
    assert_true(all.calls <= (int)(all.len / 65536) + 1);
    for (int k = 1; k <= all.calls; k++) {
        tu_buf b = {0};
        b.fail_at = k;
        memset(&diag, 0, sizeof diag);
        assert_int_equal(cg_write(g, &opt, tu_buf_write, &b, &diag), CG_EIO);
        assert_string_equal(diag.message, "write failed");
        tu_buf_free(&b);
    }
    tu_buf_free(&all);
    cg_grid_free(g);
}

static void format_names_and_extensions_come_from_one_table(void **state)
{
    (void)state;
    static const struct {
        cg_format f;
        const char *name, *path;
    } cases[] = {{CG_FORMAT_ASCII, "ascii", "a/b.txt"}, {CG_FORMAT_PNG, "png", "x.PNG"},
                 {CG_FORMAT_JSON, "json", "m.json"},    {CG_FORMAT_TMX, "tmx", "d.x/m.tmx"},
                 {CG_FORMAT_TMJ, "tmj", "m.tmj"},       {CG_FORMAT_PBM, "pbm", "m.pbm"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cg_format f = (cg_format)99;
        assert_string_equal(cg_format_name(cases[i].f), cases[i].name);
        assert_int_equal(cg_format_from_name(cases[i].name, &f), CG_OK);
        assert_int_equal(f, cases[i].f);
        f = (cg_format)99;
        assert_int_equal(cg_format_from_path(cases[i].path, &f), CG_OK);
        assert_int_equal(f, cases[i].f);
    }
    cg_format f = CG_FORMAT_PBM;
    assert_int_equal(cg_format_from_name("JSON", &f), CG_OK);
    assert_int_equal(f, CG_FORMAT_JSON);
    assert_int_equal(cg_format_from_name("jpeg", &f), CG_EINVAL);
    assert_int_equal(cg_format_from_path("m.dat", &f), CG_EINVAL);
    assert_int_equal(cg_format_from_path(".json", &f), CG_EINVAL); /* a hidden file */
    assert_int_equal(cg_format_from_path("x.json/m", &f), CG_EINVAL);
    assert_int_equal(f, CG_FORMAT_JSON); /* unchanged by the failures */
    assert_null(cg_format_name((cg_format)99));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_reads_back_as_the_grid_for_many_sizes),
        cmocka_unit_test(json_records_how_a_level_was_made),
        cmocka_unit_test(json_strings_are_escaped_and_made_utf8),
        cmocka_unit_test(json_bytes_depend_only_on_the_map_and_info),
        cmocka_unit_test(cli_json_holds_what_reproduces_the_map),
        cmocka_unit_test(a_failing_callback_fails_the_write_at_any_point),
        cmocka_unit_test(format_names_and_extensions_come_from_one_table),
    };
    return cmocka_run_group_tests(tests, tu_workdir_setup, tu_workdir_teardown);
}
