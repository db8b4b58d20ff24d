/* fuzz_write.c - every writer on grids, markers, reach results and map
 * metadata built from the input bytes.
 *
 * Layout of the input: width, height, scale, flags, then the cells (one bit
 * each), marker triples (x, y, kind), reach starts and budget, seeds, and
 * the rest split at the first NUL into a preset name and a preset text
 * (arbitrary bytes: the metadata writers must escape them).
 *
 * Invariants: cg_grid_reach agrees with a plain breadth-first search;
 * cg_grid_stats agrees with the grid; every format is written without
 * error, twice to the same bytes; ASCII has (W+1)*H bytes and reads back to
 * the same grid; PNG decodes (libpng) to the right size; JSON and TMJ are
 * valid JSON in UTF-8; TMX is UTF-8 without control characters; PBM has its
 * header and size; a sink that fails part way gives CG_EIO, no leak. A
 * format this build leaves out (PNG with CAVEGEN_PNG=OFF) gives
 * CG_EUNSUPPORTED with a message and writes nothing.
 */
#ifdef CG_HAVE_PNG
#include <png.h>
#endif

#include "fuzz_common.h"

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned take(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint64_t take64(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | take(r);
    return v;
}

/* Breadth-first distances from the starts within max moves (the oracle). */
static void check_reach(const cg_grid *g, const cg_point *starts, size_t nstarts, uint32_t moves)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    size_t cells = (size_t)w * h;
    uint32_t *dist = malloc(cells * sizeof *dist);
    size_t *queue = malloc(cells * sizeof *queue);
    size_t head = 0, tail = 0;
    uint64_t reached = 0;
    fuzz_check(dist && queue);
    for (size_t i = 0; i < cells; i++)
        dist[i] = CG_UNREACHED;
    for (size_t s = 0; s < nstarts; s++) {
        size_t i = (size_t)starts[s].y * w + starts[s].x;
        if (dist[i] != 0) {
            dist[i] = 0;
            queue[tail++] = i;
        }
    }
    while (head < tail) {
        size_t i = queue[head++];
        uint32_t x = (uint32_t)(i % w), y = (uint32_t)(i / w);
        if (dist[i] >= moves)
            continue;
        static const int dx[] = {1, -1, 0, 0}, dy[] = {0, 0, 1, -1};
        for (int k = 0; k < 4; k++) {
            int64_t nx = (int64_t)x + dx[k], ny = (int64_t)y + dy[k];
            if (cg_grid_get(g, nx, ny) != CG_FLOOR ||
                cg_grid_marker(g, nx, ny) == CG_MARK_BLOCKED)
                continue;
            size_t j = (size_t)ny * w + (size_t)nx;
            if (dist[j] == CG_UNREACHED) {
                dist[j] = dist[i] + 1;
                queue[tail++] = j;
            }
        }
    }
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t want = dist[(size_t)y * w + x], got = cg_grid_distance(g, x, y);
            if (want != got)
                fuzz_fail("reach distance at %u,%u: %u, expected %u", x, y, got, want);
            reached += want != CG_UNREACHED;
        }
    fuzz_check(cg_grid_reached_count(g) == reached);
    free(dist);
    free(queue);
}

static void check_stats(const cg_grid *g)
{
    cg_stats s;
    fuzz_check(cg_grid_stats(g, NULL, &s, NULL) == CG_OK);
    fuzz_check(s.width == cg_grid_width(g) && s.height == cg_grid_height(g));
    fuzz_check(s.floor == cg_grid_floor_count(g));
    fuzz_check(s.largest_region <= s.floor && s.regions <= s.floor);
    fuzz_check((s.floor == 0) == (s.regions == 0));
    fuzz_check(s.dead_ends <= s.floor && s.points <= s.floor);
    fuzz_check(s.path_length >= -1);
}

static int decode_png;

static void check_output(const cg_grid *g, cg_format f, uint32_t scale, const fuzz_buf *b)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    switch (f) {
    case CG_FORMAT_DISTANCES: /* added by the lead with the format: CSV of the reach */
        fuzz_check(b->len >= 13 && memcmp(b->data, "x,y,distance\n", 13) == 0);
        break;
    case CG_FORMAT_ASCII: {
        /* As docs/formats.md spells it: '#', then the marker, then a reached cell's distance
         * (0-9, a-z without x, '+' from 35), else '.'. */
        static const char marks[] = ".<>*x";
        static const char digits[] = "0123456789abcdefghijklmnopqrstuvwyz";
        cg_grid *back = NULL;
        cg_diag d = {0};
        fuzz_check(b->len == ((size_t)w + 1) * h);
        for (uint32_t y = 0; y < h; y++) {
            const unsigned char *row = b->data + (size_t)y * (w + 1);
            fuzz_check(row[w] == '\n');
            for (uint32_t x = 0; x < w; x++) {
                uint32_t dist = cg_grid_distance(g, x, y);
                cg_marker m = cg_grid_marker(g, x, y);
                char want = cg_grid_get(g, x, y) == CG_WALL ? '#'
                            : m != CG_MARK_NONE            ? marks[m]
                            : dist != CG_UNREACHED         ? (dist < 35 ? digits[dist] : '+')
                                                           : '.';
                if (row[x] != want)
                    fuzz_fail("ASCII cell %u,%u is '%c', expected '%c'", x, y, row[x], want);
            }
        }
        fuzz_check(cg_read_ascii((const char *)b->data, b->len, &back, &d) == CG_OK);
        /* Distances read back as floor and markers stay on top: the same map. */
        fuzz_check(tu_grids_equal(g, back));
        cg_grid_free(back);
        break;
    }
#ifdef CG_HAVE_PNG
    case CG_FORMAT_PNG: {
        png_image img;
        static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        fuzz_check(b->len > 8 && memcmp(b->data, sig, 8) == 0);
        if (!decode_png)
            break; /* decoding costs most of a run: one input in four */
        memset(&img, 0, sizeof img);
        img.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_memory(&img, b->data, b->len))
            fuzz_fail("libpng cannot read the PNG: %s", img.message);
        fuzz_check(img.width == w * scale && img.height == h * scale);
        img.format = PNG_FORMAT_RGB;
        unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
        fuzz_check(px != NULL);
        if (!png_image_finish_read(&img, NULL, px, 0, NULL))
            fuzz_fail("libpng cannot decode the PNG: %s", img.message);
        free(px);
        png_image_free(&img);
        break;
    }
#endif
    case CG_FORMAT_JSON:
    case CG_FORMAT_TMJ:
        if (!fuzz_json_valid(b->data, b->len))
            fuzz_fail("%s output is not valid JSON", cg_format_name(f));
        break;
    case CG_FORMAT_TMX:
        fuzz_check(fuzz_utf8_valid(b->data, b->len));
        fuzz_check(b->len > 5 && memcmp(b->data, "<?xml", 5) == 0);
        for (size_t i = 0; i < b->len; i++)
            if (b->data[i] < 0x20 && b->data[i] != '\n' && b->data[i] != '\t' &&
                b->data[i] != '\r')
                fuzz_fail("TMX has control byte 0x%02x at %zu", b->data[i], i);
        break;
    case CG_FORMAT_PBM: {
        char header[64];
        int hl = snprintf(header, sizeof header, "P4\n%u %u\n", w * scale, h * scale);
        fuzz_check(b->len == (size_t)hl + ((size_t)w * scale + 7) / 8 * h * scale);
        fuzz_check(memcmp(b->data, header, (size_t)hl) == 0);
        break;
    }
    default: /* a format newer than this target: written, deterministic */
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    /* Up to 70 wide, so rows cross a 64-cell word. */
    uint32_t w = 1 + take(&r) % 70, h = 1 + take(&r) % 24;
    unsigned sc = take(&r), flags = take(&r);
    /* Mostly small scales; 64, the largest, only on a tiny map. */
    uint32_t scale = (uint64_t)w * h <= 4 && (sc & 0x80) ? 64 : 1 + sc % 3;
    cg_grid *g = NULL;
    int has_reach = 0;

    fuzz_check(cg_grid_new(&g, w, h) == CG_OK);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x += 8) {
            unsigned bits = take(&r);
            for (uint32_t k = 0; k < 8 && x + k < w; k++)
                cg_grid_set(g, x + k, y, (bits >> k) & 1 ? CG_WALL : CG_FLOOR);
        }
    unsigned nmarks = take(&r) % 16;
    for (unsigned i = 0; i < nmarks; i++) {
        uint32_t x = take(&r) % w, y = take(&r) % h;
        cg_marker m = (cg_marker)(take(&r) % 5);
        cg_status st = cg_grid_set_marker(g, x, y, m);
        fuzz_check(st == CG_OK || (st == CG_EINVAL && cg_grid_get(g, x, y) == CG_WALL));
    }
    if (flags & 1) {
        cg_point starts[4];
        size_t nstarts = 1 + take(&r) % 4;
        for (size_t i = 0; i < nstarts; i++)
            starts[i] = (cg_point){take(&r) % (w + 2), take(&r) % (h + 2)};
        unsigned m = take(&r);
        uint32_t moves = m == 255 ? CG_MOVES_UNLIMITED : m % 64;
        cg_diag d = {0};
        cg_status st = cg_grid_reach(g, starts, nstarts, moves, &d);
        if (st == CG_OK) {
            check_reach(g, starts, nstarts, moves);
            has_reach = 1;
        }
        else
            fuzz_check(st == CG_EINVAL && d.message[0] != '\0');
    }
    check_stats(g);

    cg_map_info info = {0};
    info.has_seed = (flags & 2) != 0;
    info.seed = take64(&r);
    info.run_seed = take64(&r);
    info.attempts = take(&r);
    const uint8_t *nul = memchr(r.p, '\0', r.n);
    char *name = NULL;
    if (nul && (flags & 4)) {
        size_t nl = (size_t)(nul - r.p);
        name = malloc(nl + 1);
        fuzz_check(name != NULL);
        memcpy(name, r.p, nl + 1);
        info.preset_name = name;
        r.p += nl + 1;
        r.n -= nl + 1;
    }
    /* The text exactly r.n bytes long, so ASan sees any read past it. */
    char *text = malloc(r.n ? r.n : 1);
    fuzz_check(text != NULL);
    if (r.n)
        memcpy(text, r.p, r.n);
    if (flags & 8) {
        info.preset_text = text;
        info.preset_text_len = r.n;
    }

    decode_png = (flags & 0xc0) == 0;
    /* Every format the library names, so a new one is fuzzed at once. */
    size_t nformats = 0;
    while (cg_format_name((cg_format)nformats))
        nformats++;
    for (size_t i = 0; i < nformats; i++) {
        cg_format format = (cg_format)i;
        cg_write_options o = {.format = format, .scale = scale, .info = &info};
        fuzz_buf a = {0}, b = {0};
        cg_diag d = {0};
        cg_status st = cg_write(g, &o, fuzz_buf_write, &a, &d);
        /* The distances format writes a reach: without one it refuses. */
        if (!has_reach && strcmp(cg_format_name(format), "distances") == 0) {
            fuzz_check(st == CG_EINVAL && d.message[0] != '\0' && a.len == 0);
            continue;
        }
        if (!cg_format_available(format)) {
            fuzz_check(st == CG_EUNSUPPORTED && d.message[0] != '\0' && a.len == 0);
            continue;
        }
        if (st != CG_OK)
            fuzz_fail("%s: %s", cg_format_name(format), d.message);
        check_output(g, format, scale, &a);
        if ((flags >> 4) % nformats == i && a.len > 0) {
            /* The same bytes again, under a memory budget (core/mem.h) of up to
             * 256 KiB: the same bytes, or CG_ENOMEM saying so (what was
             * written by then is the caller's to discard, as after a failed
             * write); then a sink that fails part way. */
            cg_write_options ob = o;
            ob.max_memory = 1 + info.seed % (UINT64_C(1) << 18);
            cg_status bs = cg_write(g, &ob, fuzz_buf_write, &b, &d);
            if (bs == CG_ENOMEM)
                fuzz_check(strstr(d.message, "memory budget") != NULL);
            else
                fuzz_check(bs == CG_OK && a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
            fuzz_buf f = {0};
            f.fail_after = 1 + (size_t)(info.seed % a.len);
            cg_status fs = cg_write(g, &o, fuzz_buf_write, &f, &d);
            fuzz_check(fs == (f.fail_after >= a.len ? CG_OK : CG_EIO));
            fuzz_buf_free(&f);
        }
        fuzz_buf_free(&a);
        fuzz_buf_free(&b);
    }

    free(name);
    free(text);
    cg_grid_free(g);
    return 0;
}
