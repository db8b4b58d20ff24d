/* fuzz_preset.c - the preset parser on arbitrary bytes, and the pipelines
 * it accepts run on small maps.
 *
 * Invariants: cg_pipeline_parse never crashes, leaks or reads past len; a
 * rejected text has a message, a line and a column, and leaves the pipeline
 * as it was; an accepted text appends the same steps to a pipeline that
 * already had some. A pipeline whose numbers are all small (so a run stays
 * fast: at most 64 of any count, a start size of at most 2048 cells) is
 * run twice on a small map: both runs agree (determinism, docs/determinism.md), a
 * success gives a map of the requested size that survives an ASCII round
 * trip, a failure gives a message and no map.
 */
#include "fuzz_common.h"

#define MAX_NUMBER 64u
#define MAX_STEPS 12u
#define MAX_START_CELLS 2048u

/* The largest decimal number written anywhere in the text (saturated),
 * except on `size` lines: the run is given its own small size. */
static uint64_t largest_number(const uint8_t *data, size_t size)
{
    uint64_t largest = 0, v = 0;
    int in = 0, size_line = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i == 0 || data[i - 1] == '\n') {
            size_t j = i;
            while (j < size && (data[j] == ' ' || data[j] == '\t'))
                j++;
            size_line = size - j >= 5 && memcmp(data + j, "size ", 5) == 0;
        }
        if (size_line) {
            in = 0;
            v = 0;
            continue;
        }
        if (i < size && data[i] >= '0' && data[i] <= '9') {
            v = v > UINT64_MAX / 20 ? UINT64_MAX / 2 : v * 10 + (uint64_t)(data[i] - '0');
            in = 1;
        } else if (in) {
            largest = v > largest ? v : largest;
            v = 0;
            in = 0;
        }
    }
    return largest;
}

static uint64_t hash_bytes(const uint8_t *data, size_t size)
{
    uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * UINT64_C(1099511628211);
    return h;
}

static void check_rejection(cg_status st, const cg_diag *diag)
{
    if (st != CG_EPARSE && st != CG_ENOMEM)
        fuzz_fail("parse returned %d (%s)", (int)st, cg_strerror(st));
    if (st == CG_EPARSE && (diag->line < 1 || diag->column < 1 || diag->message[0] == '\0'))
        fuzz_fail("a parse error without a position: %d:%d: '%s'", diag->line, diag->column,
                  diag->message);
    if (!memchr(diag->message, '\0', sizeof diag->message))
        fuzz_fail("diag message not terminated");
}

static void run_small(const cg_pipeline *p, uint64_t h, const cg_grid *input)
{
    uint32_t dw, dh, w, h2, sw, sh;
    cg_pipeline_default_size(p, &dw, &dh);
    /* The preset's own size when it is small, else a small one from the hash. */
    if ((uint64_t)dw * dh <= MAX_START_CELLS && !(h & 1)) {
        w = 0;
        h2 = 0;
    } else {
        w = 1 + (uint32_t)(h >> 8) % 40;
        h2 = 1 + (uint32_t)(h >> 16) % 40;
    }
    if (!input) {
        if (cg_pipeline_start_size(p, w, h2, &sw, &sh) != CG_OK) {
            /* Too large once downscaled: the run refuses before allocating. */
            cg_run_options o = {.width = w, .height = h2, .max_attempts = 1};
            cg_grid *g = NULL;
            cg_diag d = {0};
            fuzz_check(cg_pipeline_run(p, &o, &g, NULL, &d) == CG_EINVAL);
            fuzz_check(g == NULL && d.message[0] != '\0');
            return;
        }
        if ((uint64_t)sw * sh > MAX_START_CELLS)
            return;
    }

    cg_run_options o = {
        .seed = h >> 24, .width = w, .height = h2, .input = input, .max_attempts = 2};
    cg_grid *a = NULL, *b = NULL;
    cg_run_info ia, ib;
    cg_diag da = {0}, db = {0};
    cg_status sa = cg_pipeline_run(p, &o, &a, &ia, &da);
    /* The second run has a memory budget of the first one's peak (or the
     * estimate, if larger: a run that fails may stop before its grids are
     * all made): it must not change anything (docs/determinism.md, core/mem.h). */
    uint64_t estimate = 0;
    cg_run_options ob = o;
    if (cg_pipeline_memory(p, &o, &estimate) != CG_OK)
        estimate = 0;
    ob.max_memory = ia.peak_memory > estimate ? ia.peak_memory : estimate;
    cg_status sb = cg_pipeline_run(p, ob.max_memory ? &ob : &o, &b, &ib, &db);

    if (sa != sb || strcmp(da.message, db.message) != 0)
        fuzz_fail("two runs disagree: %d '%s' / %d '%s'", (int)sa, da.message, (int)sb,
                  db.message);
    fuzz_check(ia.peak_memory == ib.peak_memory && !ia.over_budget && !ib.over_budget);
    /* The estimate is a lower bound of a successful run's peak. */
    fuzz_check(sa != CG_OK || estimate <= ia.peak_memory);
    /* Any budget under the peak stops the run, cleanly, as over budget. */
    if (ia.peak_memory > 1 && (h >> 7 & 1)) {
        cg_run_options oc = o;
        cg_grid *c = NULL;
        cg_run_info ic;
        cg_diag dc = {0};
        oc.max_memory = 1 + (h >> 32) % (ia.peak_memory - 1); /* 1..peak-1 */
        fuzz_check(cg_pipeline_run(p, &oc, &c, &ic, &dc) == CG_ENOMEM);
        fuzz_check(c == NULL && ic.over_budget && ic.peak_memory <= oc.max_memory);
        fuzz_check(strstr(dc.message, "memory budget") != NULL);
    }
    if (sa == CG_OK) {
        fuzz_check(a && b);
        fuzz_check(tu_grids_equal(a, b));
        fuzz_check(ia.attempts == ib.attempts && ia.seed == ib.seed);
        fuzz_check(ia.attempts >= 1 && ia.attempts <= 2);
        if (!input) {
            fuzz_check(cg_grid_width(a) == (w ? w : dw));
            fuzz_check(cg_grid_height(a) == (h2 ? h2 : dh));
        }
        /* Markers sit on floor, inside the map, in (y, x) order. */
        size_t n = cg_grid_marker_count(a);
        uint64_t prev = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t x, y;
            cg_marker k;
            fuzz_check(cg_grid_marker_at(a, i, &x, &y, &k) == CG_OK);
            fuzz_check(x < cg_grid_width(a) && y < cg_grid_height(a));
            fuzz_check(k != CG_MARK_NONE && cg_grid_get(a, x, y) == CG_FLOOR);
            uint64_t key = (uint64_t)y << 32 | x;
            fuzz_check(i == 0 || key > prev);
            prev = key;
        }
        /* ASCII round trip (a reach overlay hides markers: cells only). */
        fuzz_buf out = {0};
        cg_diag dw2 = {0};
        cg_grid *back = NULL;
        fuzz_check(cg_write(a, NULL, fuzz_buf_write, &out, &dw2) == CG_OK);
        fuzz_check(cg_read_ascii((const char *)out.data, out.len, &back, &dw2) == CG_OK);
        fuzz_check(cg_grid_reached_count(a) ? tu_cells_equal(a, back)
                                            : tu_grids_equal(a, back));
        cg_grid_free(back);
        fuzz_buf_free(&out);
    } else {
        fuzz_check(a == NULL && b == NULL);
        fuzz_check(sa == CG_EFAIL || sa == CG_EINVAL || sa == CG_ENOMEM);
        if (da.message[0] == '\0')
            fuzz_fail("a failed run (%d) without a message", (int)sa);
    }
    cg_grid_free(a);
    cg_grid_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cg_pipeline *fresh = NULL, *loaded = NULL;
    cg_diag d1 = {0}, d2 = {0};
    static const char base[] = "fill 45\n";

    if (cg_pipeline_new(&fresh) != CG_OK || cg_pipeline_new(&loaded) != CG_OK)
        fuzz_fail("out of memory");
    fuzz_check(cg_pipeline_parse(loaded, base, sizeof base - 1, &d2) == CG_OK);
    size_t before = cg_pipeline_step_count(loaded);

    /* A copy exactly size bytes long, so ASan sees any read past the end. */
    char *text = malloc(size ? size : 1);
    fuzz_check(text != NULL);
    if (size)
        memcpy(text, data, size);
    cg_status s1 = cg_pipeline_parse(fresh, text, size, &d1);
    cg_status s2 = cg_pipeline_parse(loaded, text, size, &d2);
    if (s1 != s2)
        fuzz_fail("the same text parses differently: %d, %d", (int)s1, (int)s2);

    if (s1 != CG_OK) {
        check_rejection(s1, &d1);
        fuzz_check(d1.line == d2.line && d1.column == d2.column);
        fuzz_check(strcmp(d1.message, d2.message) == 0);
        fuzz_check(cg_pipeline_step_count(fresh) == 0);
        fuzz_check(cg_pipeline_step_count(loaded) == before);
    } else {
        size_t n = cg_pipeline_step_count(fresh);
        fuzz_check(cg_pipeline_step_count(loaded) == before + n);
        uint64_t h = hash_bytes(data, size);
        if (n <= MAX_STEPS && largest_number(data, size) <= MAX_NUMBER) {
            run_small(fresh, h, NULL);
            if (h & 2) {
                /* The same pipeline on a map read from a file (cg_pipeline_run's input). */
                uint32_t w = 1 + (uint32_t)(h >> 32) % 24, hh = 1 + (uint32_t)(h >> 40) % 24;
                cg_grid *in = NULL;
                fuzz_check(cg_grid_new(&in, w, hh) == CG_OK);
                uint64_t s = h;
                for (uint32_t y = 0; y < hh; y++)
                    for (uint32_t x = 0; x < w; x++) {
                        s = s * UINT64_C(6364136223846793005) + 1442695040888963407u;
                        cg_grid_set(in, x, y, (s >> 60) < 7 ? CG_FLOOR : CG_WALL);
                    }
                uint64_t dwn = (uint64_t)w * hh;
                if (dwn <= MAX_START_CELLS)
                    run_small(fresh, h, in);
                cg_grid_free(in);
            }
        }
    }
    free(text);
    cg_pipeline_free(fresh);
    cg_pipeline_free(loaded);
    return 0;
}
