/* io/ascii.c - the ASCII map format (docs/formats.md): '#' wall, '.' floor, '<'
 * entrance, '>' exit, '*' point of interest, 'A'..'Z' a point of a named
 * kind, 'x' blocked; one line per row. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "core/table8.h"
#include "io/format.h"
#include "regions/reach.h"


/* What a map character means: -1 unknown, else wall (1) or floor (0) with a
 * marker in *mark. Reach distances ('0'-'9', 'a'-'z' but 'x', '+') read as
 * floor, so an overlay can be read back as a map. A capital letter is a
 * point of that kind's letter, unnamed: the map does not say the name. */
static int classify(unsigned char c, cg_marker *mark)
{
    *mark = CG_MARK_NONE;
    if (c >= 'A' && c <= 'Z') {
        *mark = CG_MARK_POI;
        return 0;
    }
    switch (c) {
    case '#':
        return 1;
    case '.':
    case ' ':
    case '+':
        return 0;
    case '<':
        *mark = CG_MARK_ENTRANCE;
        return 0;
    case '>':
        *mark = CG_MARK_EXIT;
        return 0;
    case '*':
        *mark = CG_MARK_POI;
        return 0;
    case 'x':
        *mark = CG_MARK_BLOCKED;
        return 0;
    default:
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ? 0 : -1;
    }
}

/* Length of the line at s (up to len bytes) without its "\n" or "\r\n",
 * and in *next the offset of the following line. */
static size_t line_length(const char *s, size_t len, size_t *next)
{
    const char *nl = memchr(s, '\n', len);
    size_t l = nl ? (size_t)(nl - s) : len;
    *next = nl ? l + 1 : len;
    if (nl && l > 0 && s[l - 1] == '\r')
        l--;
    return l;
}

static cg_status bad_char(cg_diag *diag, int line, size_t col, unsigned char c)
{
    if (c >= 0x21 && c < 0x7f)
        cg__diag(diag, line, (int)col, "unexpected character '%c' (a map uses # . < > * x A-Z)",
                 c);
    else
        cg__diag(diag, line, (int)col, "unexpected byte 0x%02x (a map uses # . < > * x A-Z)", c);
    return CG_EPARSE;
}

cg_status cg_read_ascii(const char *text, size_t len, cg_grid **out, cg_diag *diag)
{
    *out = NULL;
    if (len == 0) {
        cg__diag(diag, 1, 1, "empty map");
        return CG_EPARSE;
    }
    /* Pass 1: validate, measure. */
    size_t width = 0, height = 0, pos = 0;
    while (pos < len) {
        size_t next;
        size_t l = line_length(text + pos, len - pos, &next);
        int line = height < (size_t)INT32_MAX ? (int)height + 1 : INT32_MAX;
        if (height == 0) {
            if (l == 0) {
                cg__diag(diag, 1, 1, "empty first row");
                return CG_EPARSE;
            }
            if (l > CG_MAX_DIM) {
                cg__diag(diag, 1, CG_MAX_DIM + 1, "a row has more than %u cells", CG_MAX_DIM);
                return CG_EPARSE;
            }
            width = l;
        } else if (l != width) {
            size_t col = (l < width ? l : width) + 1;
            cg__diag(diag, line, (int)col, "row has %zu cell%s, the first row has %zu", l,
                     l == 1 ? "" : "s", width);
            return CG_EPARSE;
        }
        for (size_t x = 0; x < l; x++) {
            cg_marker m;
            if (classify((unsigned char)text[pos + x], &m) < 0)
                return bad_char(diag, line, x + 1, (unsigned char)text[pos + x]);
        }
        height++;
        if (height > CG_MAX_DIM) {
            cg__diag(diag, line, 1, "a map has more than %u rows", CG_MAX_DIM);
            return CG_EPARSE;
        }
        pos += next;
    }
    cg_grid *g;
    cg_status st = cg_grid_new(&g, (uint32_t)width, (uint32_t)height);
    if (st != CG_OK) {
        cg__diag(diag, 0, 0, "out of memory for a %zux%zu map", width, height);
        return st;
    }
    /* Pass 2: set floor bits and markers, in scan order so markers stay
     * sorted. */
    pos = 0;
    for (uint32_t y = 0; y < height; y++) {
        size_t next;
        line_length(text + pos, len - pos, &next);
        uint64_t *row = cg__row(g, y);
        for (uint32_t x = 0; x < width; x++) {
            cg_marker m;
            if (classify((unsigned char)text[pos + x], &m) == 0) {
                row[x >> 6] &= ~(UINT64_C(1) << (x & 63));
                if (m != CG_MARK_NONE && (st = cg__grid_push_mark(g, x, y, m)) != CG_OK) {
                    cg_grid_free(g);
                    cg__diag(diag, 0, 0, "out of memory");
                    return st;
                }
                if (m == CG_MARK_POI)
                    g->marks[g->nmarks - 1].sym = (uint8_t)text[pos + x];
            }
        }
        pos += next;
    }
    *out = g;
    return CG_OK;
}

/* A reached cell shows its distance in 35 digits, 0-9 then a-z without
 * 'x' (0..34), and '+' from 35 on (start cells are 0). 'x' is left out
 * because it is the blocked marker: every character of the overlay reads
 * back as plain floor, and none means something else (docs/reach.md). Only
 * plain floor ('.') is overwritten: a marker ('<', '>', a point, 'x') stays
 * on top of its distance, so an overlay piped back in keeps them. */
static void overlay_reach(const cg__reach *r, uint32_t y, char *row)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwyz";
    const uint32_t ndigits = sizeof digits - 1;
    if (y < r->y0 || y - r->y0 >= r->h)
        return;
    const size_t d = cg__reach_at(r, 0, y - r->y0);
    char *cells = row + r->x0;
    for (uint32_t i = 0; i < r->w; i++) {
        uint32_t v = cg__reach_dist(r, d + i);
        if (v != CG_UNREACHED && cells[i] == '.')
            cells[i] = v < ndigits ? digits[v] : '+';
    }
}

/* '#' for a wall bit, '.' for floor (core/table8.h). */
#define CELL_CHAR(v, b) (((v) >> (b)) & 1 ? '#' : '.')
const char cg__cells8[256][8] = CG__TABLE8(CELL_CHAR);
#undef CELL_CHAR

/* Cells words 0..nw-1 of a row as characters at p, 8 at a time through
 * cg__cells8; the last word only up to its last group of 8 cells that
 * holds cells (last). */
static void row_chars(char *p, const uint64_t *row, size_t nw, unsigned last)
{
    for (size_t i = 0; i + 1 < nw; i++) {
        uint64_t w = row[i];
        for (unsigned k = 0; k < 8; k++)
            memcpy(p + i * 64 + k * 8, cg__cells8[(w >> (8 * k)) & 0xff], 8);
    }
    uint64_t w = row[nw - 1];
    for (unsigned k = 0; k < last; k++)
        memcpy(p + (nw - 1) * 64 + k * 8, cg__cells8[(w >> (8 * k)) & 0xff], 8);
}

#if defined(CG__HAVE_X86)
#include <immintrin.h>

/* AVX-512BW: a word's 64 bits are a byte mask, and one blend makes its 64
 * characters. Rows y0..y1-1, each with its newline, at p: the last word's
 * cells and the newline go in one masked store, so a row writes only its
 * own bytes. The same bytes as row_chars; tests/test_io_ascii.c compares
 * the two. */
__attribute__((target("avx512f,avx512bw"))) static void
rows_avx512(char *p, const cg_grid *g, uint32_t y0, uint32_t y1, size_t rowlen)
{
    const __m512i floor = _mm512_set1_epi8('.'), wall = _mm512_set1_epi8('#');
    const __m512i newline = _mm512_set1_epi8('\n');
    const size_t nw = g->nw;
    const unsigned r = (unsigned)(g->w - 64 * (nw - 1)); /* cells in the last word: 1..64 */
    const __mmask64 at_newline = r < 64 ? (__mmask64)1 << r : 0;
    const __mmask64 keep = r < 64 ? ((__mmask64)2 << r) - 1 : ~(__mmask64)0;
    /* The row pointer steps on here: from g, which the stores might alias
     * for all the compiler knows, it would be reloaded every row. */
    const size_t stride = g->stride;
    const uint64_t *row = cg__row(g, y0);
    for (uint32_t y = y0; y < y1; y++, p += rowlen, row += stride) {
        for (size_t i = 0; i + 1 < nw; i++)
            _mm512_storeu_si512(p + i * 64,
                                _mm512_mask_blend_epi8((__mmask64)row[i], floor, wall));
        __m512i last = _mm512_mask_blend_epi8((__mmask64)row[nw - 1], floor, wall);
        last = _mm512_mask_blend_epi8(at_newline, last, newline);
        _mm512_mask_storeu_epi8(p + (nw - 1) * 64, keep, last);
        if (r == 64)
            p[64 * nw] = '\n';
    }
}
#endif

/* Stack room for the rows of a small map (80x50 takes 4 KiB). */
#define SMALL_BUF 8192

/* Gives back cg__write_ascii's buffer: the stack's counted bytes, or the
 * block. */
static void release(char *buf, const char *small, size_t cap, uint64_t small_id)
{
    if (buf == small)
        cg__mem_release(sizeof(cg__mem_hdr) + cap, small_id);
    else
        cg__free(buf);
}

cg_status cg__write_ascii(const cg_grid *g, cg_write_fn write, void *ctx, cg_diag *diag)
{
    /* Eight cells at a time through cg__cells8 (64 with AVX-512), rows
     * gathered into one buffer of about 64 KiB per write call (or the
     * map's, if smaller). */
    size_t rowlen = (size_t)g->w + 1;
    size_t rows_per_buf = 65536 / rowlen ? 65536 / rowlen : 1;
    if (rows_per_buf > g->h)
        rows_per_buf = g->h;
    /* The groups of 8 cells of the last word that hold cells. */
    const unsigned last = (unsigned)(((g->w - 1) & 63u) / 8u + 1u);
#if defined(CG__HAVE_X86)
    /* The AVX-512 kernel paths imply AVX-512BW (core/cpu.c). */
    const int wide = cg__kernel_path() >= CG__PATH_AVX512;
#endif
    /* Room for whole words: a row is formatted in 64-cell units. */
    size_t cap = (rows_per_buf - 1) * rowlen + g->nw * 64 + 1;
    /* A small map's buffer is on the stack: a batch writes many, and a
     * block of a few KiB a map costs malloc more than its formatting. It
     * is counted against the budget as the block would be (core/mem.h), so
     * a budget refuses the same maps either way. */
    char small[SMALL_BUF];
    uint64_t small_id = 0;
    char *buf;
    if (cap <= sizeof small) {
        buf = cg__mem_fits(cap, &small_id) ? small : NULL;
    } else {
        buf = cg__malloc(cap);
    }
    if (!buf) {
        cg__diag(diag, 0, 0, "out of memory");
        return CG_ENOMEM;
    }
    size_t mi = 0;
    for (uint32_t y0 = 0; y0 < g->h;) {
        /* The buffer's rows: their cells and newlines, then the markers
         * and the reach on top (neither touches a newline). */
        uint32_t y1 = g->h - y0 > rows_per_buf ? y0 + (uint32_t)rows_per_buf : g->h;
#if defined(CG__HAVE_X86)
        if (wide)
            rows_avx512(buf, g, y0, y1, rowlen);
        else
#endif
            for (uint32_t y = y0; y < y1; y++) {
                char *p = buf + (size_t)(y - y0) * rowlen;
                row_chars(p, cg__row(g, y), g->nw, last);
                p[g->w] = '\n';
            }
        for (uint32_t y = y0; y < y1 && (mi < g->nmarks || g->reach); y++) {
            char *p = buf + (size_t)(y - y0) * rowlen;
            for (; mi < g->nmarks && g->marks[mi].y == y; mi++)
                p[g->marks[mi].x] = (char)g->marks[mi].sym;
            if (g->reach)
                overlay_reach(g->reach, y, p);
        }
        if (write(ctx, buf, (size_t)(y1 - y0) * rowlen) != 0) {
            release(buf, small, cap, small_id);
            cg__diag(diag, 0, 0, "write failed");
            return CG_EIO;
        }
        y0 = y1;
    }
    release(buf, small, cap, small_id);
    return CG_OK;
}

static cg_status write_ascii(const cg_grid *g, const cg__write_args *a)
{
    return cg__write_ascii(g, a->write, a->ctx, a->diag);
}

const cg__format_def cg__format_ascii = {
    .name = "ascii",
    .extension = ".txt",
    .summary = "a character per cell, a line per row",
    .stream = 1,
    .write = write_ascii,
};
