/* test_version.c - the version and ABI contract (docs/api.md, "Versions and
 * ABI"): cg_version() is the header's version; NULL options are the
 * defaults; a nonzero reserved word of an option struct is refused, since
 * it would be a field of a later version; and the layout of the option
 * structs, which programs built against any 1.x rely on, is pinned.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

#define TEXT "fill 45\ngenerations 4 r1=5 r2=2\nentrance\nexit\n"

static void version_is_the_headers(void **state)
{
    (void)state;
    assert_int_equal(cg_version(), CG_VERSION_NUMBER);
    assert_string_equal(cg_version_string(), CG_VERSION_STRING);
    char want[32];
    uint32_t v = cg_version();
    snprintf(want, sizeof want, "%u.%u.%u", (unsigned)(v >> 16), (unsigned)(v >> 8 & 0xff),
             (unsigned)(v & 0xff));
    assert_string_equal(cg_version_string(), want);
    assert_int_equal(v >> 16, CG_VERSION_MAJOR);
}

static void null_options_are_the_defaults(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline("size 33x21\n" TEXT);
    cg_run_options zero = {0};
    cg_grid *a = NULL, *b = NULL;
    cg_run_info ia, ib;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_run(p, NULL, &a, &ia, &diag), CG_OK);
    assert_int_equal(cg_pipeline_run(p, &zero, &b, &ib, &diag), CG_OK);
    assert_int_equal(cg_grid_width(a), 33); /* the pipeline's default size, seed 0 */
    assert_int_equal(cg_grid_height(a), 21);
    assert_true(tu_grids_equal(a, b));
    assert_int_equal(ia.attempts, ib.attempts);
    assert_true(ia.seed == ib.seed);

    uint64_t ma = 0, mb = 0;
    assert_int_equal(cg_pipeline_memory(p, NULL, &ma), CG_OK);
    assert_int_equal(cg_pipeline_memory(p, &zero, &mb), CG_OK);
    assert_true(ma == mb && ma > 0);

    cg_stats sa, sb;
    cg_stats_options szero = {0};
    assert_int_equal(cg_grid_stats(a, NULL, &sa, &diag), CG_OK);
    assert_int_equal(cg_grid_stats(a, &szero, &sb, &diag), CG_OK);
    assert_memory_equal(&sa, &sb, sizeof sa);

    tu_buf wa = {0}, wb = {0};
    cg_write_options wzero = {0};
    assert_int_equal(cg_write(a, NULL, tu_buf_write, &wa, &diag), CG_OK);
    assert_int_equal(cg_write(a, &wzero, tu_buf_write, &wb, &diag), CG_OK);
    assert_int_equal(wa.len, wb.len);
    assert_memory_equal(wa.data, wb.data, wa.len);
    char *ascii = tu_ascii(a);
    assert_string_equal(wa.data, ascii);
    free(ascii);

    tu_buf_free(&wa);
    tu_buf_free(&wb);
    cg_grid_free(a);
    cg_grid_free(b);
    cg_pipeline_free(p);
}

/* A program built against a later 1.x may set a field that this library
 * knows only as reserved room: it must hear so, not have the field
 * ignored. */
static void nonzero_reserved_words_are_refused(void **state)
{
    (void)state;
    cg_pipeline *p = tu_pipeline(TEXT);
    cg_grid *map = tu_run(TEXT, 7, 40, 20, NULL);
    for (size_t i = 0; i < 8; i++) {
        cg_run_options o = {.seed = 7, .width = 40, .height = 20};
        o.reserved[i] = 1;
        cg_grid *g = NULL;
        cg_run_info info;
        cg_diag diag = {0};
        assert_int_equal(cg_pipeline_run(p, &o, &g, &info, &diag), CG_EINVAL);
        assert_null(g);
        char want[64];
        snprintf(want, sizeof want, "cg_run_options.reserved[%zu] is not zero", i);
        assert_non_null(strstr(diag.message, want));
        assert_non_null(strstr(diag.message, CG_VERSION_STRING));
        uint64_t bytes = 0;
        assert_int_equal(cg_pipeline_memory(p, &o, &bytes), CG_EINVAL);
    }
    for (size_t i = 0; i < 4; i++) {
        cg_stats_options so = {0};
        so.reserved[i] = UINT64_MAX;
        cg_stats s;
        cg_diag diag = {0};
        assert_int_equal(cg_grid_stats(map, &so, &s, &diag), CG_EINVAL);
        assert_non_null(strstr(diag.message, "cg_stats_options.reserved["));

        /* reserved[0], then the 32-bit reserved32 beside columns. */
        cg_write_options wo = {.format = CG_FORMAT_JSON};
        if (i < 1)
            wo.reserved[i] = 1;
        else if (i == 1)
            wo.reserved32 = 1;
        else
            continue;
        tu_buf b = {0};
        memset(&diag, 0, sizeof diag);
        assert_int_equal(cg_write(map, &wo, tu_buf_write, &b, &diag), CG_EINVAL);
        assert_int_equal(b.calls, 0); /* refused before a byte */
        assert_non_null(strstr(diag.message, "cg_write_options.reserved"));
    }
    cg_grid_free(map);
    cg_pipeline_free(p);
}

static void null_pipeline_or_map_is_einval(void **state)
{
    (void)state;
    cg_grid *g = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_run(NULL, NULL, &g, NULL, &diag), CG_EINVAL);
    assert_null(g);
    assert_true(diag.message[0] != '\0');
    cg_pipeline *p = tu_pipeline(TEXT);
    assert_int_equal(cg_pipeline_run(p, NULL, NULL, NULL, NULL), CG_EINVAL);
    cg_stats s;
    assert_int_equal(cg_grid_stats(NULL, NULL, &s, NULL), CG_EINVAL);
    cg_pipeline_free(p);
}

/* The layout of the option structs is ABI: a later 1.x only gives reserved
 * words new names, so every offset below stays (LP64). */
static void option_structs_keep_their_layout(void **state)
{
    (void)state;
#if UINTPTR_MAX == UINT64_MAX && SIZE_MAX == UINT64_MAX
    assert_int_equal(sizeof(cg_run_options), 144);
    assert_int_equal(offsetof(cg_run_options, seed), 0);
    assert_int_equal(offsetof(cg_run_options, width), 8);
    assert_int_equal(offsetof(cg_run_options, height), 12);
    assert_int_equal(offsetof(cg_run_options, input), 16);
    assert_int_equal(offsetof(cg_run_options, max_attempts), 24);
    assert_int_equal(offsetof(cg_run_options, max_memory), 32);
    assert_int_equal(offsetof(cg_run_options, parallel), 40);
    assert_int_equal(offsetof(cg_run_options, parallel_ctx), 48);
    assert_int_equal(offsetof(cg_run_options, chunk), 56);
    assert_int_equal(offsetof(cg_run_options, origin_x), 64);
    assert_int_equal(offsetof(cg_run_options, origin_y), 72);
    assert_int_equal(offsetof(cg_run_options, reserved), 80);

    assert_int_equal(sizeof(cg_stats_options), 40);
    assert_int_equal(offsetof(cg_stats_options, max_memory), 0);
    assert_int_equal(offsetof(cg_stats_options, reserved), 8);

    assert_int_equal(sizeof(cg_write_options), 56);
    assert_int_equal(offsetof(cg_write_options, format), 0);
    assert_int_equal(offsetof(cg_write_options, scale), 4);
    assert_int_equal(offsetof(cg_write_options, max_memory), 8);
    assert_int_equal(offsetof(cg_write_options, info), 16);
    assert_int_equal(offsetof(cg_write_options, columns), 24);
    assert_int_equal(offsetof(cg_write_options, reserved32), 28);
    assert_int_equal(offsetof(cg_write_options, parallel), 32);
    assert_int_equal(offsetof(cg_write_options, parallel_ctx), 40);
    assert_int_equal(offsetof(cg_write_options, reserved), 48);
#else
    print_message("SKIPPED: the pinned layout is LP64's\n");
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_is_the_headers),
        cmocka_unit_test(null_options_are_the_defaults),
        cmocka_unit_test(nonzero_reserved_words_are_refused),
        cmocka_unit_test(null_pipeline_or_map_is_einval),
        cmocka_unit_test(option_structs_keep_their_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
