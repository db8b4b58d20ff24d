/* test_write_file.c - cg_write_file: the bytes of cg_write, the format from
 * the extension (none: ASCII; unknown: refused, nothing created), an old
 * file left as it was when the write fails, its mode kept when replaced, no
 * temporary file left behind, and a Tiled map's tileset image beside it. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h> /* after the four above, which it needs */

#include "testutil.h"

static cg_grid *a_level(void)
{
    return tu_run("fill 45\ngenerations 3 r1=5 r2=-1\nentrance\nexit\n", 7, 41, 23, NULL);
}

/* The file's bytes equal cg_write's with that format. */
static void assert_file_is(const char *path, const cg_grid *g, cg_format format)
{
    tu_buf want = {0};
    cg_write_options o = {.format = format};
    cg_diag diag = {0};
    assert_int_equal(cg_write(g, &o, tu_buf_write, &want, &diag), CG_OK);
    size_t len = 0;
    char *got = tu_read_file(path, &len);
    assert_non_null(got);
    assert_int_equal(len, want.len);
    assert_memory_equal(got, want.data, len);
    free(got);
    free(want.data);
}

static void the_format_comes_from_the_extension(void **state)
{
    (void)state;
    cg_grid *g = a_level();
    static const struct {
        const char *name;
        cg_format format;
    } cases[] = {
        {"a.txt", CG_FORMAT_ASCII}, {"b.JSON", CG_FORMAT_JSON}, {"c.pbm", CG_FORMAT_PBM},
        {"noext", CG_FORMAT_ASCII}, {".hidden", CG_FORMAT_ASCII}, {"e.ans", CG_FORMAT_ANSI},
    };
    char path[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_path(path, sizeof path, cases[i].name);
        cg_diag diag = {0};
        assert_int_equal(cg_write_file(g, path, NULL, &diag), CG_OK);
        assert_file_is(path, g, cases[i].format);
    }
    /* An explicit format wins over the name. */
    tu_path(path, sizeof path, "f.txt");
    cg_write_options o = {.format = CG_FORMAT_JSON};
    assert_int_equal(cg_write_file(g, path, &o, NULL), CG_OK);
    assert_file_is(path, g, CG_FORMAT_JSON);
    o.format = CG_FORMAT_AUTO;
    assert_int_equal(cg_write_file(g, path, &o, NULL), CG_OK);
    assert_file_is(path, g, CG_FORMAT_ASCII);
    /* Unknown: refused, nothing created. */
    char before[4096], after[4096];
    tu_list_dir(tu_workdir, NULL, before, sizeof before);
    tu_path(path, sizeof path, "g.gif");
    cg_diag diag = {0};
    assert_int_equal(cg_write_file(g, path, NULL, &diag), CG_EINVAL);
    assert_non_null(strstr(diag.message, "'.gif'"));
    tu_list_dir(tu_workdir, NULL, after, sizeof after);
    assert_string_equal(before, after);
    cg_grid_free(g);
}

static void a_failed_write_leaves_the_old_file(void **state)
{
    (void)state;
    cg_grid *g = a_level();
    char path[512], before[4096], after[4096];
    tu_path(path, sizeof path, "map.json");
    tu_write_text(path, "old contents\n");
    tu_list_dir(tu_workdir, NULL, before, sizeof before);
    /* JSON labels the regions: a budget of 1 byte fails the write midway. */
    cg_write_options o = {.format = CG_FORMAT_AUTO, .max_memory = 1};
    cg_diag diag = {0};
    assert_int_equal(cg_write_file(g, path, &o, &diag), CG_ENOMEM);
    char *text = tu_read_file(path, NULL);
    assert_string_equal(text, "old contents\n");
    free(text);
    tu_list_dir(tu_workdir, NULL, after, sizeof after);
    assert_string_equal(before, after); /* no temporary file left */
    /* A folder that does not exist: CG_EIO naming it. */
    tu_path(path, sizeof path, "no/such/folder/map.txt");
    memset(&diag, 0, sizeof diag);
    assert_int_equal(cg_write_file(g, path, NULL, &diag), CG_EIO);
    assert_non_null(strstr(diag.message, "no/such/folder"));
    cg_grid_free(g);
}

static void a_replaced_file_keeps_its_mode(void **state)
{
    (void)state;
    cg_grid *g = a_level();
    char path[512];
    tu_path(path, sizeof path, "private.txt");
    tu_write_text(path, "x\n");
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(cg_write_file(g, path, NULL, NULL), CG_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_file_is(path, g, CG_FORMAT_ASCII);
    cg_grid_free(g);
}

/* A symbolic link is written through and kept; one that cannot be
 * followed is refused and left as it is (the tool's rule, docs/cli.md). */
static void links_are_written_through(void **state)
{
    (void)state;
    cg_grid *g = a_level();
    char target[512], link[512], dangling[512];
    tu_path(target, sizeof target, "real.txt");
    tu_path(link, sizeof link, "link.txt");
    tu_path(dangling, sizeof dangling, "dangling.txt");
    tu_write_text(target, "old\n");
    assert_int_equal(symlink("real.txt", link), 0);
    assert_int_equal(cg_write_file(g, link, NULL, NULL), CG_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_is(target, g, CG_FORMAT_ASCII);
    assert_int_equal(symlink("no/such/file.txt", dangling), 0);
    cg_diag diag = {0};
    assert_int_equal(cg_write_file(g, dangling, NULL, &diag), CG_EIO);
    assert_non_null(strstr(diag.message, "symbolic link that cannot be followed"));
    assert_int_equal(lstat(dangling, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    cg_grid_free(g);
}

static void a_tiled_map_gets_its_tileset_image(void **state)
{
    (void)state;
    cg_grid *g = a_level();
    char path[512], image[512];
    tu_path(path, sizeof path, "level.tmx");
    tu_path(image, sizeof image, CG_TILESET_IMAGE);
    cg_diag diag = {0};
    cg_status st = cg_write_file(g, path, NULL, &diag);
    if (!cg_format_available(CG_FORMAT_PNG)) {
        assert_int_equal(st, CG_EUNSUPPORTED); /* refused before writing anything */
        struct stat sb;
        assert_int_not_equal(stat(path, &sb), 0);
        cg_grid_free(g);
        return;
    }
    assert_int_equal(st, CG_OK);
    assert_file_is(path, g, CG_FORMAT_TMX);
    size_t len = 0;
    char *png = tu_read_file(image, &len);
    assert_non_null(png);
    assert_true(len > 8 && memcmp(png, "\x89PNG", 4) == 0);
    free(png);
    /* An image already there is kept. */
    tu_write_text(image, "redrawn\n");
    tu_path(path, sizeof path, "level.tmj");
    assert_int_equal(cg_write_file(g, path, NULL, NULL), CG_OK);
    char *kept = tu_read_file(image, NULL);
    assert_string_equal(kept, "redrawn\n");
    free(kept);
    cg_grid_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(the_format_comes_from_the_extension, tu_workdir_setup,
                                        tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(a_failed_write_leaves_the_old_file, tu_workdir_setup,
                                        tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(a_replaced_file_keeps_its_mode, tu_workdir_setup,
                                        tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(links_are_written_through, tu_workdir_setup,
                                        tu_workdir_teardown),
        cmocka_unit_test_setup_teardown(a_tiled_map_gets_its_tileset_image, tu_workdir_setup,
                                        tu_workdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
