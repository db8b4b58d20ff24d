/* test_png_support.c - the CMake option CAVEGEN_PNG: a build without libpng
 * cannot write PNG, nor the tileset image of a Tiled map in a file.
 *
 * Without PNG (CAVEGEN_PNG=OFF) the library refuses with CG_EUNSUPPORTED and
 * a message before writing a byte, and the tool refuses the command line as
 * a usage error (exit 2, "built without PNG support") before making a map,
 * so no file is created or replaced; a Tiled map to standard output, which
 * gets no tileset image, and every other format still work. With PNG the
 * same calls and commands succeed. The other formats' bytes are the same in
 * both builds: the determinism suite checks them against the same hashes. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static int have_png(void)
{
    return cg_format_available(CG_FORMAT_PNG);
}

/* ------------------------------------------------------------- library */

static cg_grid *small_map(void)
{
    cg_grid *g = NULL;
    cg_diag diag = {0};
    static const char text[] = "#######\n#<..*.#\n#.#x>.#\n#######\n";
    assert_int_equal(cg_read_ascii(text, sizeof text - 1, &g, &diag), CG_OK);
    return g;
}

static void every_format_but_png_is_available_in_every_build(void **state)
{
    (void)state;
    for (int k = 0; cg_format_name((cg_format)k); k++) {
        int want = (cg_format)k == CG_FORMAT_PNG ? have_png() : 1;
        assert_int_equal(!!cg_format_available((cg_format)k), want);
    }
    assert_int_equal(cg_format_available((cg_format)99), 0);
    assert_true(strlen(cg_strerror(CG_EUNSUPPORTED)) > 0);
    assert_string_not_equal(cg_strerror(CG_EUNSUPPORTED), cg_strerror((cg_status)1000));
}

/* PNG of a plain map, of a map with a reach (its own writer) and the
 * tileset image: refused before the callback is called, or written. */
static void png_writes_are_refused_before_any_byte_without_png(void **state)
{
    (void)state;
    cg_grid *g = small_map();
    for (int reach = 0; reach < 3; reach++) {
        tu_buf b = {0};
        cg_diag diag = {0};
        cg_status st;
        if (reach == 2) {
            st = cg_write_tileset_image(tu_buf_write, &b, &diag);
        } else {
            if (reach) {
                cg_point start = {1, 1};
                assert_int_equal(cg_grid_reach(g, &start, 1, CG_MOVES_UNLIMITED, &diag), CG_OK);
            }
            cg_write_options o = {.format = CG_FORMAT_PNG, .scale = 2};
            st = cg_write(g, &o, tu_buf_write, &b, &diag);
        }
        if (have_png()) {
            assert_int_equal(st, CG_OK);
            assert_true(b.len > 8 && memcmp(b.data, "\x89PNG\r\n\x1a\n", 8) == 0);
        } else {
            assert_int_equal(st, CG_EUNSUPPORTED);
            assert_int_equal(b.calls, 0);
            if (!strstr(diag.message, "built without PNG support"))
                fail_msg("case %d: message '%s'", reach, diag.message);
        }
        tu_buf_free(&b);
    }
    /* The Tiled maps themselves are text: written in every build. */
    static const cg_format tiled[] = {CG_FORMAT_TMX, CG_FORMAT_TMJ};
    for (int k = 0; k < 2; k++) {
        tu_buf b = {0};
        cg_diag diag = {0};
        cg_write_options o = {.format = tiled[k]};
        assert_int_equal(cg_write(g, &o, tu_buf_write, &b, &diag), CG_OK);
        assert_true(b.len > 0);
        tu_buf_free(&b);
    }
    cg_grid_free(g);
}

/* ------------------------------------------------------- the command line */

/* Runs the tool in the work folder with args (shell words), its stdout a
 * pipe (so -o /dev/stdout is a stream, not a file in /dev). */
static tu_result run(const char *args)
{
    char line[1200];
    snprintf(line, sizeof line, "exec '%s' %s", CAVEGEN_EXE, args);
    tu_cmd cmd = {.dir = tu_workdir, .stdout_pipe = 1};
    return tu_shell(&cmd, line);
}

/* The names in the work folder, sorted, joined by spaces ("" if empty). */
static void list_dir(char *buf, size_t cap)
{
    tu_list_dir(tu_workdir, NULL, buf, cap);
}

/* Exit 2, one "cavegen: ..." line saying why and the pointer to --help,
 * nothing on stdout, and the work folder as it was (`before`). */
static void assert_refused(const tu_result *r, const char *args, const char *before)
{
    char after[1000];
    list_dir(after, sizeof after);
    if (r->status != 2 || strncmp(r->err, "cavegen: ", 9) != 0 ||
        !strstr(r->err, "built without PNG support") ||
        !strstr(r->err, "\nTry 'cavegen --help' for more information.\n") || r->outlen != 0 ||
        strcmp(after, before) != 0)
        fail_msg("cavegen %s: exit %d, %zu bytes on stdout, folder '%s' (was '%s'), stderr: %s",
                 args, r->status, r->outlen, after, before, r->err);
}

static void assert_ok(const tu_result *r, const char *args)
{
    if (r->status != 0)
        fail_msg("cavegen %s: exit %d: %s", args, r->status, r->err);
}

/* What writes a PNG, or a tileset image beside a map in a file. */
static const char *const png_commands[] = {
    "-s 1 -W 20 -H 10 -o x.png",
    "-s 1 -W 20 -H 10 -o x.tmx",
    "-s 1 -W 20 -H 10 -o x.tmj",
    "-s 1 -W 20 -H 10 -f png -o -",
    "-s 1 -W 20 -H 10 -f png",
    "-s 1 -W 20 -H 10 -f png -o x.dat",
    "-s 1 -W 20 -H 10 -f tmx -o x.xml",
    "-p level -s 1 --reach entrance -o reach.png",
    "-s 1 -W 20 -H 10 -n 3 -o 'out/%d.png'",
    "-s 1 -W 20 -H 10 -n 3 -o 'out/%d.tmj'",
};

static void the_tool_refuses_png_up_front_and_writes_nothing(void **state)
{
    (void)state;
    char before[1000];
    for (size_t i = 0; i < sizeof png_commands / sizeof *png_commands; i++) {
        list_dir(before, sizeof before);
        tu_result r = run(png_commands[i]);
        if (have_png()) {
            assert_ok(&r, png_commands[i]);
            tu_workdir_empty();
        } else {
            assert_refused(&r, png_commands[i], before);
        }
        tu_result_free(&r);
    }

    /* Refused before the input map is read: a missing one is not reported. */
    if (!have_png()) {
        list_dir(before, sizeof before);
        tu_result r = run("-i missing.txt -o x.png");
        assert_refused(&r, "-i missing.txt -o x.png", before);
        tu_result_free(&r);
    }

    /* A file already there is neither replaced nor removed. */
    char keep[400];
    static const char *const kept[] = {"keep.png", "keep.tmx"};
    for (int k = 0; k < 2; k++) {
        snprintf(keep, sizeof keep, "%s/%s", tu_workdir, kept[k]);
        tu_write_file(keep, "old\n", 4);
        char args[100];
        snprintf(args, sizeof args, "-s 1 -W 20 -H 10 -o %s", kept[k]);
        list_dir(before, sizeof before);
        tu_result r = run(args);
        if (have_png()) {
            assert_ok(&r, args);
        } else {
            assert_refused(&r, args, before);
            char *text = tu_read_file(keep, NULL);
            assert_string_equal(text, "old\n");
            free(text);
        }
        tu_result_free(&r);
        unlink(keep);
    }
    tu_workdir_empty();
}

/* A Tiled map to standard output or a device gets no tileset image in any
 * build, so it is written; so is every format that is not PNG. */
static void tiled_maps_to_stdout_and_the_other_formats_still_work(void **state)
{
    (void)state;
    static const struct {
        const char *args, *starts, *file;
    } cases[] = {
        {"-s 1 -W 20 -H 10 -f tmx -o -", "<?xml", NULL},
        {"-s 1 -W 20 -H 10 -f tmj", "{", NULL},
        {"-s 1 -W 20 -H 10 -f tmx -o /dev/stdout", "<?xml", NULL},
        {"-s 1 -W 20 -H 10 -f tmj -o /dev/null", "", NULL},
        {"-s 1 -W 20 -H 10", "####################\n", NULL},
        {"-p level -s 1 -o m.json", "", "m.json"},
        {"-p level -s 1 --reach entrance -f distances", "x,y,distance\n", NULL},
        {"-s 1 -W 20 -H 10 -o m.pbm", "", "m.pbm"},
        {"-s 1 -W 20 -H 10 -n 2 -o 'b/%d.txt'", "", "b/1.txt"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_result r = run(cases[i].args);
        assert_ok(&r, cases[i].args);
        if (strncmp(r.out, cases[i].starts, strlen(cases[i].starts)) != 0)
            fail_msg("cavegen %s: stdout starts '%.20s'", cases[i].args, r.out);
        tu_result_free(&r);
        char names[1000], want[200];
        list_dir(names, sizeof names);
        snprintf(want, sizeof want, "%s", cases[i].file ? cases[i].file : "");
        want[strcspn(want, "/")] = '\0';
        if (want[0])
            strcat(want, " ");
        if (strcmp(names, want) != 0)
            fail_msg("cavegen %s: the folder holds '%s', want '%s'", cases[i].args, names, want);
        tu_workdir_empty();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_format_but_png_is_available_in_every_build),
        cmocka_unit_test(png_writes_are_refused_before_any_byte_without_png),
        cmocka_unit_test(the_tool_refuses_png_up_front_and_writes_nothing),
        cmocka_unit_test(tiled_maps_to_stdout_and_the_other_formats_still_work),
    };
    printf("cavegen built %s PNG support\n", have_png() ? "with" : "without");
    return cmocka_run_group_tests(tests, tu_workdir_setup, tu_workdir_teardown);
}
