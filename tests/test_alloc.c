/* test_alloc.c - every allocation of representative runs fails in turn
 * (docs/testing.md), as SQLite tests its out-of-memory paths.
 *
 * The executable is linked with --wrap=malloc,calloc,realloc,free
 * (alloc_inject.h): the static libcavegen's allocations go through wrappers
 * that fail the n-th one. For each scenario - every built-in preset run at a
 * small size, a pipeline with every step, every format of cg_write, the
 * tileset image, cg_read_ascii, reach (both searches), stats, clone - a
 * clean run counts its allocations N, then for n = 1..N the n-th fails
 * (and, in a second pass, every one from the n-th on). Each time: the call
 * returns CG_ENOMEM, its outputs are NULL, every allocation made is freed
 * (the wrappers' balance; ASan's leak checker in the sanitizer build), and
 * nothing crashes. Then the same for the tool (cavegen_alloc, armed from
 * the environment): exit 1, one "cavegen: " line, no output file.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_inject.h"
#include "cavegen/cavegen.h"
#include "cells/par.h"
#include "regions/reach.h"

/* Totals over the whole program, printed at the end. */
static long total_injected;
static int scenarios;

/* A scenario makes its calls, frees everything it made, and returns the
 * first status that was not CG_OK (asserting its outputs are NULL then). */
typedef cg_status (*scenario_fn)(const void *ctx);

/* A sink that allocates nothing (the wrappers would count it). */
static int hash_sink(void *ctx, const void *data, size_t len)
{
    uint64_t *h = ctx;
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        *h = (*h ^ p[i]) * UINT64_C(1099511628211);
    return 0;
}

/* Set around scenarios that may allocate nothing at all: a writer of a
 * small map (ASCII formats its rows on the stack). */
static int may_allocate_nothing;

static void inject_all(const char *name, scenario_fn fn, const void *ctx)
{
    alloc_inject_arm(0, 0);
    cg_status st = fn(ctx);
    long n = alloc_inject_calls(), live = alloc_inject_live();
    alloc_inject_disarm();
    if (st != CG_OK)
        fail_msg("%s: the run without failures gives %s", name, cg_strerror(st));
    if (live != 0)
        fail_msg("%s: %ld allocations not freed", name, live);
    if (n == 0 && may_allocate_nothing) {
        printf("%-34s no allocation\n", name);
        return;
    }
    assert_true(n > 0);

    for (int persistent = 0; persistent <= 1; persistent++) {
        for (long i = 1; i <= n; i++) {
            alloc_inject_arm(i, persistent);
            st = fn(ctx);
            int fired = alloc_inject_fired();
            live = alloc_inject_live();
            alloc_inject_disarm();
            if (!fired)
                fail_msg("%s: allocation %ld of %ld was never made", name, i, n);
            if (st != CG_ENOMEM)
                fail_msg("%s: with allocation %ld%s failing: %s, not CG_ENOMEM", name, i,
                         persistent ? " and all later" : "", cg_strerror(st));
            if (live != 0)
                fail_msg("%s: with allocation %ld failing, %ld allocations leak", name, i,
                         live);
            total_injected++;
        }
    }
    scenarios++;
    printf("%-32s %4ld allocations, each failed in turn\n", name, n);
}

/* ---------------------------------------------------------- scenarios */

typedef struct run_case {
    const char *text; /* preset text */
    size_t len;
    uint32_t width, height; /* 0: the preset's size */
    uint64_t seed;
} run_case;

static cg_status run_pipeline(const void *ctx)
{
    const run_case *rc = ctx;
    cg_pipeline *p = NULL;
    cg_grid *map = NULL;
    cg_diag diag = {0};
    cg_status st = cg_pipeline_new(&p);
    if (st != CG_OK) {
        assert_null(p);
        return st;
    }
    st = cg_pipeline_parse(p, rc->text, rc->len, &diag);
    if (st != CG_OK) {
        assert_int_equal(cg_pipeline_step_count(p), 0); /* unchanged */
        cg_pipeline_free(p);
        return st;
    }
    cg_run_options o = {.seed = rc->seed, .width = rc->width, .height = rc->height};
    cg_run_info info;
    st = cg_pipeline_run(p, &o, &map, &info, &diag);
    if (st != CG_OK) {
        assert_null(map);
        if (diag.message[0] == '\0')
            fail_msg("cg_pipeline_run: %s without a message (allocation %ld)",
                     cg_strerror(st), alloc_inject_calls());
    }
    cg_grid_free(map);
    cg_pipeline_free(p);
    return st;
}

/* A map with every kind of marker and (with_reach) a reach, for the
 * writers; with neither markers nor reach when plain. */
static cg_grid *sample_map_of(int plain, int with_reach)
{
    static const char text[] = "fill 45\n"
                               "generations 4 r1=5 r2=2\n"
                               "generations 2 r1=5 r2=-1\n"
                               "entrance\n"
                               "exit\n"
                               "poi count=3 spacing=4\n"
                               "poi kind=chest count=2 spacing=4\n"
                               "occupy count=2\n";
    cg_pipeline *p = NULL;
    cg_grid *map = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_parse(p, text, sizeof text - 1, &diag), CG_OK);
    cg_run_options o = {.seed = 42, .width = 70, .height = 30};
    assert_int_equal(cg_pipeline_run(p, &o, &map, NULL, &diag), CG_OK);
    cg_pipeline_free(p);
    if (plain) {
        while (cg_grid_marker_count(map) > 0) {
            uint32_t mx, my;
            cg_marker mk;
            assert_int_equal(cg_grid_marker_at(map, 0, &mx, &my, &mk), CG_OK);
            assert_int_equal(cg_grid_set_marker(map, mx, my, CG_MARK_NONE), CG_OK);
        }
        return map;
    }
    /* A blocked cell on some floor. */
    for (uint32_t y = 0; y < 30; y++)
        for (uint32_t x = 0; x < 70; x++)
            if (cg_grid_get(map, x, y) == CG_FLOOR && cg_grid_marker(map, x, y) == CG_MARK_NONE) {
                assert_int_equal(cg_grid_set_marker(map, x, y, CG_MARK_BLOCKED), CG_OK);
                y = 30;
                break;
            }
    uint32_t x, y;
    cg_marker kind;
    for (size_t i = 0; i < cg_grid_marker_count(map); i++) {
        assert_int_equal(cg_grid_marker_at(map, i, &x, &y, &kind), CG_OK);
        if (kind == CG_MARK_ENTRANCE && with_reach) {
            cg_point start = {x, y};
            assert_int_equal(cg_grid_reach(map, &start, 1, 40, &diag), CG_OK);
        }
    }
    return map;
}

static cg_grid *sample_map(void)
{
    return sample_map_of(0, 1);
}

typedef struct write_case {
    const cg_grid *map;
    cg_format format;
    uint32_t scale;
} write_case;

static cg_status write_format(const void *ctx)
{
    const write_case *wc = ctx;
    static const char preset[] = "fill 45\ngenerations 4 r1=5 r2=2\n";
    cg_map_info info = {1, 42, 43, 2, "custom", preset, sizeof preset - 1};
    cg_write_options o = {.format = wc->format, .scale = wc->scale, .info = &info};
    uint64_t h = 0;
    cg_diag diag = {0};
    cg_status st = cg_write(wc->map, &o, hash_sink, &h, &diag);
    if (st != CG_OK)
        assert_true(diag.message[0] != '\0');
    return st;
}

static cg_status write_tileset(const void *ctx)
{
    (void)ctx;
    uint64_t h = 0;
    cg_diag diag = {0};
    return cg_write_tileset_image(hash_sink, &h, &diag);
}

typedef struct text_case {
    const char *text;
    size_t len;
} text_case;

static cg_status read_ascii(const void *ctx)
{
    const text_case *tc = ctx;
    cg_grid *g = NULL;
    cg_diag diag = {0};
    cg_status st = cg_read_ascii(tc->text, tc->len, &g, &diag);
    if (st != CG_OK) {
        assert_null(g);
        assert_true(diag.message[0] != '\0');
    }
    cg_grid_free(g);
    return st;
}

typedef struct reach_case {
    cg_grid *map;
    uint32_t moves;
    cg_parallel_fn parallel; /* the wide search on two threads, forced */
} reach_case;

static cg_status reach(const void *ctx)
{
    const reach_case *rc = ctx;
    cg_point starts[2];
    size_t n = 0;
    cg_diag diag = {0};
    for (uint32_t y = 0; y < cg_grid_height(rc->map) && n < 2; y++)
        for (uint32_t x = 0; x < cg_grid_width(rc->map) && n < 2; x++)
            if (cg_grid_get(rc->map, x, y) == CG_FLOOR &&
                cg_grid_marker(rc->map, x, y) != CG_MARK_BLOCKED) {
                starts[n++] = (cg_point){x, y};
                y += 5;
                break;
            }
    cg__par par = {rc->parallel, NULL};
    cg__reach_force_split(rc->parallel != NULL);
    cg_status st = cg__grid_reach_par(rc->map, starts, n, rc->moves, &par, &diag);
    cg__reach_force_split(0);
    if (st != CG_OK) {
        assert_int_equal(cg_grid_reached_count(rc->map), 0);
        assert_true(diag.message[0] != '\0');
    }
    cg_grid_clear_reach(rc->map);
    return st;
}

static cg_status stats(const void *ctx)
{
    cg_stats s;
    cg_diag diag = {0};
    cg_status st = cg_grid_stats(ctx, NULL, &s, &diag);
    if (st != CG_OK)
        assert_true(diag.message[0] != '\0');
    return st;
}

static cg_status clone(const void *ctx)
{
    cg_grid *copy = NULL;
    cg_status st = cg_grid_clone(&copy, ctx);
    if (st != CG_OK)
        assert_null(copy);
    cg_grid_free(copy);
    return st;
}

/* -------------------------------------------------------------- tests */

static void every_preset_fails_cleanly_at_each_allocation(void **state)
{
    (void)state;
    for (size_t i = 0; i < cg_preset_count(); i++) {
        const char *name = cg_preset_name(i);
        size_t len = 0;
        const char *text = cg_preset_builtin(name, &len);
        assert_non_null(text);
        /* Small sizes keep the loop fast; level keeps its 80x50, where
         * seed 42 meets its requirements (in two attempts). */
        run_case rc = {text, len, 31, 21, 42};
        if (strcmp(name, "level") == 0)
            rc.width = rc.height = 0;
        char label[64];
        snprintf(label, sizeof label, "preset %s", name);
        inject_all(label, run_pipeline, &rc);
    }
}

static void a_pipeline_of_every_step_fails_cleanly_at_each_allocation(void **state)
{
    (void)state;
    static const char text[] = "size 40x24\n"
                               "fill 47.5\n"
                               "generations 3 r1=5 r2=2\n"
                               "smooth 1 walls=5\n"
                               "rule 1 floor=5..9\n"
                               "downscale 2\n"
                               "remove-floor min=4\n"
                               "remove-walls min=3\n"
                               "connect width=2\n"
                               "keep-largest\n"
                               "entrance\n"
                               "require open>=5% regions<=3\n"
                               "exit\n"
                               "poi count=2 spacing=3\n"
                               "poi kind=chest count=2 spacing=3\n"
                               "occupy count=2 spacing=2\n"
                               "reach from=entrance moves=9\n";
    run_case rc = {text, sizeof text - 1, 0, 0, 7};
    inject_all("every step", run_pipeline, &rc);
    static const char maze[] = "size 31x21\nmaze connected loops=20% no-isolated\n"
                               "reach from=1,1\n";
    run_case mc = {maze, sizeof maze - 1, 0, 0, 3};
    inject_all("maze and reach", run_pipeline, &mc);
}

/* src/regions/regions.h: cuts every map into stripes of n rows for
 * remove-floor / remove-walls (tests only). */
void cg__regions_set_stripe_rows(uint32_t n);

/* The striped removal (regions/stripes.c), forced onto a small map: its
 * labels, edge lists and joins fail cleanly too. */
static void the_striped_removal_fails_cleanly_at_each_allocation(void **state)
{
    (void)state;
    static const char text[] = "size 40x24\n"
                               "fill 47.5\n"
                               "generations 2 r1=5 r2=-1\n"
                               "remove-floor min=4\n"
                               "remove-walls min=300\n";
    run_case rc = {text, sizeof text - 1, 0, 0, 7};
    cg__regions_set_stripe_rows(5);
    inject_all("striped removal", run_pipeline, &rc);
    cg__regions_set_stripe_rows(0);
}

static void every_format_fails_cleanly_at_each_allocation(void **state)
{
    (void)state;
    /* Each writer has paths for a bare map, for markers and for a reach. */
    static const char *const kinds[] = {"bare", "markers", "markers+reach"};
    cg_grid *maps[3] = {sample_map_of(1, 0), sample_map_of(0, 0), sample_map_of(0, 1)};
    may_allocate_nothing = 1;
    for (int k = 0; k < 3; k++) {
        for (int f = 0; cg_format_name((cg_format)f); f++) {
            /* The distances format needs a reach (CG_EINVAL without). */
            if (k < 2 && strcmp(cg_format_name((cg_format)f), "distances") == 0)
                continue;
            /* PNG in a build without it (CAVEGEN_PNG=OFF): refused before
             * allocating anything (test_png_support.c). */
            if (!cg_format_available((cg_format)f))
                continue;
            for (uint32_t scale = 1; scale <= 3; scale += 2) {
                write_case wc = {maps[k], (cg_format)f, scale};
                char label[64];
                snprintf(label, sizeof label, "write %s %s x%u", kinds[k],
                         cg_format_name((cg_format)f), scale);
                inject_all(label, write_format, &wc);
            }
        }
        cg_grid_free(maps[k]);
    }
    may_allocate_nothing = 0;
    /* A map whose ASCII rows need more than the writer's stack buffer. */
    cg_grid *big = NULL;
    assert_int_equal(cg_grid_new(&big, 300, 60), CG_OK);
    write_case wc = {big, CG_FORMAT_ASCII, 1};
    inject_all("write big ascii", write_format, &wc);
    cg_grid_free(big);
    if (cg_format_available(CG_FORMAT_PNG))
        inject_all("tileset image", write_tileset, NULL);
}

/* A growing buffer, used while the wrappers are disarmed. */
static void reading_and_analysis_fail_cleanly_at_each_allocation(void **state)
{
    (void)state;
    cg_grid *map = sample_map();
    tu_buf text = {0};
    cg_diag diag = {0};
    /* The map as text, markers and reach overlay included. */
    assert_int_equal(cg_write(map, NULL, tu_buf_write, &text, &diag), CG_OK);
    text_case tc = {text.data, text.len};
    inject_all("read ascii", read_ascii, &tc);

    inject_all("clone with reach", clone, map);
    cg_grid_clear_reach(map); /* the scenarios make their own */
    reach_case near = {map, 6, NULL}, far = {map, CG_MOVES_UNLIMITED, NULL};
    reach_case split = {map, CG_MOVES_UNLIMITED, tu_shuffled_for};
    inject_all("reach moves=6", reach, &near);
    inject_all("reach unlimited", reach, &far);
    inject_all("reach unlimited, two threads", reach, &split);
    inject_all("stats", stats, map);
    inject_all("clone", clone, map);
    free(text.data);
    cg_grid_free(map);
}

/* ---------------------------------------------------------- the tool */

/* Entries of dir other than the harness's (".report", "in.txt"). */
static int count_entries(const char *dir, char *names, size_t cap)
{
    return tu_list_dir(dir, TU_ARGS(".report", "in.txt"), names, cap);
}

/* The tool's allocation call sites reached over all its runs. */
static unsigned long tool_sites[1024];
static size_t ntool_sites;

static void note_tool_site(unsigned long offset)
{
    for (size_t i = 0; i < ntool_sites; i++)
        if (tool_sites[i] == offset)
            return;
    if (ntool_sites < sizeof tool_sites / sizeof *tool_sites)
        tool_sites[ntool_sites++] = offset;
}

typedef struct tool_run {
    int status;
    long calls;
    int fired;
    char *out, *err;
} tool_run;

/* In the child: its fail_at-th allocation fails, the report to .report. */
static void arm_tool(const void *fail_at)
{
    setenv("CAVEGEN_ALLOC_FAIL", fail_at, 1);
    setenv("CAVEGEN_ALLOC_REPORT", ".report", 1);
}

/* Runs cavegen_alloc in dir with its n-th allocation failing; stdin is the
 * map in.txt when there is one (for -i -). */
static tool_run run_tool(const char *dir, long n, const char *const *args)
{
    char fail[32], in[512], path[512];
    snprintf(fail, sizeof fail, "%ld", n);
    snprintf(in, sizeof in, "%s/in.txt", dir);
    tu_cmd cmd = {.dir = dir, .child_setup = arm_tool, .ctx = fail};
    if (access(in, F_OK) == 0)
        cmd.stdin_path = in;
    tu_result ran = tu_exec(&cmd, CAVEGEN_ALLOC_EXE, args);
    tool_run r = {ran.status, -1, 0, ran.out, ran.err};
    snprintf(path, sizeof path, "%s/.report", dir);
    char *rep = tu_read_file(path, NULL);
    if (rep && sscanf(rep, "%ld %d", &r.calls, &r.fired) != 2)
        r.calls = -1;
    char *line = rep ? strchr(rep, '\n') : NULL;
    for (; line && line[1]; line = strchr(line + 1, '\n'))
        note_tool_site(strtoul(line + 1, NULL, 16));
    free(rep);
    return r;
}

/* Every allocation of one command fails in turn: exit 1, one message, no
 * file; then the command runs through and writes expect_files files. */
static void tool_inject_all(const char *label, int expect_files, int tiled,
                            const char *const *args)
{
    char names[1024];
    long n, absorbed = 0;
    for (n = 1;; n++) {
        tool_run r = run_tool(tu_workdir, n, args);
        if (r.calls < 0)
            fail_msg("%s: no report from the tool (status %d): %s", label, r.status, r.err);
        if (!r.fired) {
            if (r.status != 0)
                fail_msg("%s: without a failure, status %d: %s", label, r.status, r.err);
            assert_int_equal(count_entries(tu_workdir, names, sizeof names), expect_files);
            free(r.out);
            free(r.err);
            break;
        }
        /* A few allocations are optional (src/cli/output.c sync_directory,
         * after the rename; batch.c make_parents once the folder exists):
         * the run may succeed without them, and then wrote everything. */
        if (r.status == 0) {
            if (count_entries(tu_workdir, names, sizeof names) != expect_files)
                fail_msg("%s: allocation %ld failing, exit 0 leaving '%s'", label, n, names);
            absorbed++;
            free(r.out);
            free(r.err);
            char rm[700];
            snprintf(rm, sizeof rm, "cd '%s' && rm -f -- map.* cavegen-tiles.png", tu_workdir);
            assert_int_equal(system(rm), 0);
            continue;
        }
        if (r.status != 1 || strncmp(r.err, "cavegen: ", 9) != 0 ||
            strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
            fail_msg("%s: allocation %ld failing: status %d, stderr '%s'", label, n, r.status,
                     r.err);
        if (r.out[0] != '\0')
            fail_msg("%s: allocation %ld failing: output on stdout", label, n);
        /* --stats runs after the map is committed (docs/cli.md): a map
         * complete on disk and a failure to compute its figures. */
        int after_commit = strstr(r.err, "statistics") != NULL;
        int left = count_entries(tu_workdir, names, sizeof names);
        /* A Tiled map's tileset image is written after the map is
         * committed (src/cli/main.c write_tileset): a failure there leaves
         * the complete map without its image (docs/testing.md, findings). */
        if (tiled && left == 1 && strcmp(names, "map.out ") == 0)
            after_commit = 1, left = expect_files;
        if (left != (after_commit ? expect_files : 0))
            fail_msg("%s: allocation %ld failing (%s) left: %s", label, n, r.err, names);
        if (after_commit) {
            char cmd[600];
            snprintf(cmd, sizeof cmd, "cd '%s' && rm -f -- map.*", tu_workdir);
            assert_int_equal(system(cmd), 0);
        }
        free(r.out);
        free(r.err);
    }
    /* Clean up the successful run's files. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cd '%s' && rm -f -- map.* cavegen-tiles.png", tu_workdir);
    assert_int_equal(system(cmd), 0);
    printf("%-32s %4ld allocations, each failed in turn", label, n - 1);
    printf(absorbed ? " (%ld optional)\n" : "\n", absorbed);
}

static void the_tool_fails_cleanly_at_each_allocation(void **state)
{
    (void)state;
    for (size_t i = 0; i < cg_preset_count(); i++) {
        const char *name = cg_preset_name(i);
        char label[64];
        snprintf(label, sizeof label, "cavegen -p %s", name);
        int level = strcmp(name, "level") == 0;
        /* --stats once: it adds the same allocations to every run. */
        const char *args[] = {"-p",      name, "-s", "42", "--size", level ? "80x50" : "31x21",
                              "-o",      "map.txt",
                              i == 0 ? "--stats" : NULL, NULL};
        tool_inject_all(label, 1, 0, args);
    }
    /* The formats from a small map with every marker and a reach: the
     * writers' own paths are covered above; this is the tool's handling. */
    char path[512];
    tu_path(path, sizeof path, "in.txt");
    tu_write_text(path, "##########\n#<..#...>#\n#.*.....x#\n##########\n");
    for (int k = 0; cg_format_name((cg_format)k); k++) {
        const char *format = cg_format_name((cg_format)k);
        int tiled = strcmp(format, "tmx") == 0 || strcmp(format, "tmj") == 0;
        /* A build without PNG (CAVEGEN_PNG=OFF) refuses PNG and Tiled maps
         * in files before allocating (test_png_support.c). */
        if (!cg_format_available((cg_format)k) || (tiled && !cg_format_available(CG_FORMAT_PNG)))
            continue;
        char label[64];
        snprintf(label, sizeof label, "cavegen -i in.txt -f %s", format);
        const char *args[] = {"-i", "in.txt", "--reach", "1,1", "-f", format, "-o", "map.out",
                              NULL};
        tool_inject_all(label, tiled ? 2 : 1, tiled, args);
    }
    remove(path);
}

/* The files of folder sub/ of the work folder, as "NAME:SIZE:HASH ". */
static void describe_sub(char *buf, size_t cap)
{
    char sub[600];
    snprintf(sub, sizeof sub, "%s/sub", tu_workdir);
    buf[0] = '\0';
    struct dirent **names;
    int n = scandir(sub, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (strcmp(name, ".") && strcmp(name, "..")) {
            char path[900], item[300];
            snprintf(path, sizeof path, "%s/%s", sub, name);
            char *text = tu_read_file(path, NULL);
            uint64_t h = 0;
            size_t len = text ? strlen(text) : 0;
            hash_sink(&h, text ? text : "", len);
            free(text);
            snprintf(item, sizeof item, "%s:%zu:%llx ", name, len, (unsigned long long)h);
            strncat(buf, item, cap - strlen(buf) - 1);
        }
        free(names[i]);
    }
    if (n >= 0)
        free(names);
}

/* A batch on two threads into sub/: a failing allocation stops it with
 * exit 1 and one message (docs/cli.md: "the maps before the failing one are
 * written"), so every map left must be complete - the very file the run
 * without failures writes - and no temporary file may be left. */
static void a_batch_fails_cleanly_at_each_allocation(void **state)
{
    (void)state;
    const char *args[] = {"-p", "type2", "-s", "3", "--size", "40x20", "-n", "4", "-j", "2",
                          "-o", "sub/%d.txt", NULL};
    char want[4096], got[4096], names[1024], cmd[700];
    tool_run r = run_tool(tu_workdir, 0, args); /* counts, fails nothing */
    assert_int_equal(r.status, 0);
    free(r.out);
    free(r.err);
    describe_sub(want, sizeof want);
    long n, total = r.calls;
    snprintf(cmd, sizeof cmd, "rm -rf '%s/sub'", tu_workdir);
    assert_int_equal(system(cmd), 0);
    /* Threads make the order of allocations vary: fail each of the first
     * `total` and check whatever happens is clean. */
    for (n = 1; n <= total; n++) {
        r = run_tool(tu_workdir, n, args);
        describe_sub(got, sizeof got);
        /* make_parents (src/cli/batch.c) ignores a failed allocation once
         * the folder exists: the batch then succeeds, with every map. */
        if (r.status == 0 && strcmp(got, want) != 0)
            fail_msg("batch: allocation %ld failing, exit 0 with '%s'", n, got);
        if (r.status != 0 && (r.status != 1 || strncmp(r.err, "cavegen: ", 9) != 0 ||
                              strchr(r.err, '\n') != r.err + strlen(r.err) - 1))
            fail_msg("batch: allocation %ld failing: status %d, stderr '%s'", n, r.status,
                     r.err);
        /* Every file left is one of the complete maps, none temporary. */
        for (char *item = strtok(got, " "); item; item = strtok(NULL, " ")) {
            if (item[0] == '.' || !strstr(want, item))
                fail_msg("batch: allocation %ld failing left sub/%s", n, item);
        }
        if (count_entries(tu_workdir, names, sizeof names) > 1)
            fail_msg("batch: allocation %ld failing left %s", n, names);
        free(r.out);
        free(r.err);
        assert_int_equal(system(cmd), 0);
    }
    printf("%-32s %4ld allocations, each failed in turn\n", "cavegen -n 4 -j 2", total);
}

static void the_tool_reading_a_map_fails_cleanly_at_each_allocation(void **state)
{
    (void)state;
    char path[512];
    tu_path(path, sizeof path, "in.txt");
    tu_write_text(path, "#########\n#<..#..>#\n#.*...x.#\n#########\n");
    /* An image: PNG, or PBM in a build without PNG (CAVEGEN_PNG=OFF). */
    const char *image = cg_format_available(CG_FORMAT_PNG) ? "map.png" : "map.pbm";
    const char *args[] = {"-i", "in.txt", "-s", "1", "--step", "smooth 1", "--fill", "10",
                          "--generations", "1:5,-1", "-o", image, NULL};
    tool_inject_all("cavegen -i in.txt --step ...", 1, 0, args);
    const char *piped[] = {"-i", "-", "--reach", "1,1", "-o", "./map.json", NULL};
    tool_inject_all("cavegen -i - -o ./map.json", 1, 0, piped);
    remove(path);
}

/* A test that failed while armed would leave the wrappers armed. */
static int disarm(void **state)
{
    (void)state;
    alloc_inject_disarm();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(every_preset_fails_cleanly_at_each_allocation, disarm),
        cmocka_unit_test_setup(a_pipeline_of_every_step_fails_cleanly_at_each_allocation,
                               disarm),
        cmocka_unit_test_setup(the_striped_removal_fails_cleanly_at_each_allocation, disarm),
        cmocka_unit_test_setup(every_format_fails_cleanly_at_each_allocation, disarm),
        cmocka_unit_test_setup(reading_and_analysis_fail_cleanly_at_each_allocation, disarm),
        cmocka_unit_test_setup_teardown(the_tool_fails_cleanly_at_each_allocation,
                                        tu_workdir_setup, tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(the_tool_reading_a_map_fails_cleanly_at_each_allocation,
                                        tu_workdir_setup, tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(a_batch_fails_cleanly_at_each_allocation,
                                        tu_workdir_setup, tu_workdir_teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    printf("%d scenarios, %ld injected failures, %zu distinct allocation call sites reached\n",
           scenarios, total_injected, alloc_inject_sites());
    printf("the tool: %zu distinct allocation call sites reached\n", ntool_sites);
    /* CAVEGEN_ALLOC_SITES=1: the sites as offsets for addr2line -e test_alloc
     * (lines "lib ...") and -e cavegen_alloc (lines "tool ..."). */
    if (getenv("CAVEGEN_ALLOC_SITES")) {
        extern char __executable_start;
        for (size_t i = 0; i < alloc_inject_sites(); i++)
            printf("lib %#lx\n", (unsigned long)((const char *)alloc_inject_site(i) -
                                                 &__executable_start - 1));
        for (size_t i = 0; i < ntool_sites; i++)
            printf("tool %#lx\n", tool_sites[i]);
    }
    return failed;
}
