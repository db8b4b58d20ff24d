/* io/ansi.c - a picture of the map for a terminal (docs/formats.md): each
 * character is an upper half block (U+2580) whose foreground is one cell and
 * whose background is the cell below it, in 24-bit colour escapes, so a
 * character is two cells and the picture is about as high as it is wide.
 * The colours are the PNG's (io/palette.c): walls, floor, the reach ramp and
 * the markers on top.
 *
 * A map wider than `columns` characters is shown reduced: each picture
 * cell stands for a k x k block of cells, k the smallest that fits. A block
 * shows its most important marker (entrance, exit, points, blocked cells, in
 * that order), else its nearest reached distance, else wall when more than
 * half its cells are walls. */
#include <stdio.h>
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "io/format.h"
#include "io/palette.h"
#include "io/sink.h"
#include "regions/reach.h"

/* One band of k cell rows, summed per picture column. */
typedef struct band {
    uint64_t *walls; /* walls in the block */
    uint64_t *cells; /* cells of the map in the block (edge blocks are partial) */
    uint32_t *dist;  /* nearest reached distance; UINT32_MAX: none */
    uint8_t *mark;   /* the block's marker symbol; 0: none */
} band;

/* How much a marker matters when several share a block. */
static int mark_rank(uint8_t sym)
{
    switch (sym) {
    case '<':
        return 4;
    case '>':
        return 3;
    case 'x':
        return 1;
    default:
        return 2;
    }
}

/* Walls among cells [x0, x1) of a row (x1 <= the map's width). */
static uint64_t walls_in(const uint64_t *row, uint64_t x0, uint64_t x1)
{
    uint64_t n = 0;
    while (x0 < x1) {
        uint64_t word = row[x0 >> 6] >> (x0 & 63);
        uint64_t take = 64 - (x0 & 63);
        if (take > x1 - x0)
            take = x1 - x0;
        if (take < 64)
            word &= (UINT64_C(1) << take) - 1;
        n += (uint64_t)__builtin_popcountll(word);
        x0 += take;
    }
    return n;
}

/* Fills b for the cell rows [y0, y1); *mi walks the markers in (y, x)
 * order. */
static void fill_band(const cg_grid *g, uint32_t k, uint32_t pw, uint32_t y0, uint32_t y1, band *b,
                      size_t *mi)
{
    memset(b->walls, 0, pw * sizeof *b->walls);
    memset(b->cells, 0, pw * sizeof *b->cells);
    memset(b->mark, 0, pw);
    for (uint32_t px = 0; px < pw; px++)
        b->dist[px] = UINT32_MAX;
    for (uint32_t y = y0; y < y1; y++) {
        const uint64_t *row = cg__row(g, y);
        for (uint32_t px = 0; px < pw; px++) {
            uint64_t x0 = (uint64_t)px * k, x1 = x0 + k < g->w ? x0 + k : g->w;
            b->walls[px] += walls_in(row, x0, x1);
            b->cells[px] += x1 - x0;
        }
    }
    for (; *mi < g->nmarks && g->marks[*mi].y < y1; ++*mi) {
        const cg__mark *m = &g->marks[*mi];
        uint8_t *slot = &b->mark[m->x / k];
        if (!*slot || mark_rank(m->sym) > mark_rank(*slot))
            *slot = m->sym;
    }
    const cg__reach *r = g->reach;
    if (!r)
        return;
    for (uint32_t y = y0 > r->y0 ? y0 : r->y0; y < y1 && y - r->y0 < r->h; y++) {
        const size_t d = cg__reach_at(r, 0, y - r->y0);
        for (uint32_t i = 0; i < r->w; i++) {
            uint32_t *slot = &b->dist[(r->x0 + i) / k], v = cg__reach_dist(r, d + i);
            if (v < *slot) /* CG_UNREACHED (UINT32_MAX) never is */
                *slot = v;
        }
    }
}

static cg__rgb colour_of(const cg_grid *g, const band *b, uint32_t px)
{
    if (b->mark[px])
        return cg__mark_rgb(b->mark[px]);
    if (b->dist[px] != UINT32_MAX) {
        uint64_t span = g->reach->max_distance ? g->reach->max_distance : 1;
        return cg__ramp_rgb((uint32_t)((uint64_t)b->dist[px] * (CG__RAMP_STEPS - 1) / span),
                            CG__RAMP_STEPS);
    }
    return 2 * b->walls[px] > b->cells[px] ? cg__wall_rgb : cg__floor_rgb;
}

static int same_rgb(cg__rgb a, cg__rgb b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b;
}

/* "\x1b[38;2;R;G;Bm" (layer 38: foreground) or 48 (background). */
static void put_colour(cg__sink *s, unsigned layer, cg__rgb c)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "\x1b[%u;2;%u;%u;%um", layer, c.r, c.g, c.b);
    cg__sink_bytes(s, buf, (size_t)n);
}

static cg_status write_ansi(const cg_grid *g, const cg__write_args *a)
{
    /* k: the smallest block side whose picture fits in the columns. */
    uint32_t k = a->columns && g->w > a->columns ? (g->w + a->columns - 1) / a->columns : 1;
    uint32_t pw = (uint32_t)(((uint64_t)g->w + k - 1) / k);
    uint32_t ph = (uint32_t)(((uint64_t)g->h + k - 1) / k);
    /* Both bands in one block: the 64-bit arrays first, then the 32-bit,
     * then the bytes, so each stays aligned whatever pw is. */
    band bands[2];
    size_t per = sizeof(uint64_t) * 2 + sizeof(uint32_t) + 1;
    void *mem = cg__malloc((size_t)pw * per * 2);
    if (!mem)
        return CG_ENOMEM;
    uint64_t *walls = mem, *cells = walls + 2 * (size_t)pw;
    uint32_t *dist = (uint32_t *)(void *)(cells + 2 * (size_t)pw);
    uint8_t *mark = (uint8_t *)(dist + 2 * (size_t)pw);
    for (size_t i = 0; i < 2; i++)
        bands[i] = (band){walls + i * (size_t)pw, cells + i * (size_t)pw, dist + i * (size_t)pw,
                          mark + i * (size_t)pw};
    cg__sink s;
    cg_status st = cg__sink_init(&s, a->write, a->ctx, a->diag);
    size_t mi = 0;
    for (uint32_t py = 0; st == CG_OK && py < ph; py += 2) {
        int lower = py + 1 < ph;
        uint32_t y0 = py * k;
        fill_band(g, k, pw, y0, y0 + k < g->h ? y0 + k : g->h, &bands[0], &mi);
        if (lower) {
            y0 += k;
            fill_band(g, k, pw, y0, y0 + k < g->h ? y0 + k : g->h, &bands[1], &mi);
        }
        cg__rgb fg = {0, 0, 0}, bg = {0, 0, 0};
        for (uint32_t px = 0; px < pw; px++) {
            cg__rgb top = colour_of(g, &bands[0], px);
            if (px == 0 || !same_rgb(top, fg))
                put_colour(&s, 38, top);
            fg = top;
            if (lower) {
                cg__rgb bottom = colour_of(g, &bands[1], px);
                if (px == 0 || !same_rgb(bottom, bg))
                    put_colour(&s, 48, bottom);
                bg = bottom;
            }
            cg__sink_str(&s, "\xe2\x96\x80"); /* U+2580 upper half block */
        }
        cg__sink_str(&s, "\x1b[0m\n");
    }
    if (st == CG_OK)
        st = cg__sink_finish(&s, a->diag);
    cg__free(mem);
    return st;
}

const cg__format_def cg__format_ansi = {
    .name = "ansi",
    .extension = ".ans",
    .summary = "a picture for a terminal: colour, two cells per character",
    .stream = 1,
    .write = write_ansi,
};
