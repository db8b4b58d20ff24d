/* core/grid.c - the bitboard grid: allocation, cell access, markers. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/grid.h"
#include "core/mem.h"
#include "regions/reach.h"

/* Grids of this many bytes and more ask for huge pages (cg_grid_new). */
#define HUGE_GRID ((size_t)8 << 20)

/* Words of memory for a w x h grid, or 0 on overflow. */
static size_t grid_words(uint32_t w, uint32_t h, size_t *nw_out)
{
    size_t nw = ((size_t)w + 63) / 64;
    size_t stride = nw + 2;
    size_t rows = (size_t)h + 2 * CG__PAD;
    if (rows != 0 && stride > SIZE_MAX / sizeof(uint64_t) / rows)
        return 0;
    if (nw_out)
        *nw_out = nw;
    return stride * rows;
}

cg_status cg_grid_bytes(uint32_t width, uint32_t height, uint64_t *bytes)
{
    if (width < 1 || height < 1 || width > CG_MAX_DIM || height > CG_MAX_DIM)
        return CG_EINVAL;
    size_t words = grid_words(width, height, NULL);
    if (words == 0)
        return CG_EOVERFLOW;
    *bytes = (uint64_t)words * sizeof(uint64_t) + sizeof(struct cg_grid);
    return CG_OK;
}

cg_status cg__grid_new_unset(cg_grid **out, uint32_t width, uint32_t height)
{
    *out = NULL;
    if (width < 1 || height < 1 || width > CG_MAX_DIM || height > CG_MAX_DIM)
        return CG_EINVAL;
    size_t nw;
    size_t words = grid_words(width, height, &nw);
    if (words == 0)
        return CG_EOVERFLOW;
    cg_grid *g = cg__calloc(1, sizeof *g);
    if (!g)
        return CG_ENOMEM;
    g->mem = cg__malloc(words * sizeof(uint64_t));
    if (!g->mem) {
        cg__free(g);
        return CG_ENOMEM;
    }
    g->w = width;
    g->h = height;
    g->nw = nw;
    g->stride = nw + 2;
    /* A big map's cells on huge pages (THP, advised before the first
     * touch): its first writes fault in 2 MiB at a time instead of 4 KiB
     * (a 65536x65536 map: 256 faults, not 131072), and its unmapping at
     * the end is as quick. */
    if (words * sizeof(uint64_t) >= HUGE_GRID)
        cg__mem_advise_huge(g->mem, words * sizeof(uint64_t));
    *out = g;
    return CG_OK;
}

void cg__grid_wall_rows(cg_grid *g, uint32_t y0, uint32_t y1)
{
    size_t from = y0 == 0 ? 0 : (size_t)y0 + CG__PAD;
    size_t to = y1 == g->h ? (size_t)g->h + 2 * CG__PAD : (size_t)y1 + CG__PAD;
    memset(g->mem + from * g->stride, 0xff, (to - from) * g->stride * sizeof(uint64_t));
}

cg_status cg_grid_new(cg_grid **out, uint32_t width, uint32_t height)
{
    cg_status st = cg__grid_new_unset(out, width, height);
    if (st == CG_OK)
        cg__grid_wall_rows(*out, 0, height);
    return st;
}

cg_status cg__grid_new_like(cg_grid **out, const cg_grid *g)
{
    return cg_grid_new(out, g->w, g->h);
}

void cg__grid_copy_rows(cg_grid *g, const cg_grid *src, uint32_t y0, uint32_t y1)
{
    size_t from = y0 == 0 ? 0 : (size_t)y0 + CG__PAD;
    size_t to = y1 == g->h ? (size_t)g->h + 2 * CG__PAD : (size_t)y1 + CG__PAD;
    memcpy(g->mem + from * g->stride, src->mem + from * src->stride,
           (to - from) * g->stride * sizeof(uint64_t));
}

cg_status cg__grid_clone_rest(cg_grid *g, const cg_grid *src)
{
    if (src->nmarks) {
        g->marks = cg__malloc(src->nmarks * sizeof *g->marks);
        if (!g->marks)
            return CG_ENOMEM;
        memcpy(g->marks, src->marks, src->nmarks * sizeof *g->marks);
        g->nmarks = g->capmarks = src->nmarks;
    }
    if (src->kinds) {
        g->kinds = cg__malloc(CG__KINDS * sizeof *g->kinds);
        if (!g->kinds)
            return CG_ENOMEM;
        memcpy(g->kinds, src->kinds, CG__KINDS * sizeof *g->kinds);
    }
    if (src->reach && cg__reach_clone(&g->reach, src->reach) != CG_OK)
        return CG_ENOMEM;
    return CG_OK;
}

/* The copy sets every word (frame and padding rows too), so the grid is
 * not walled first: its pages are written once, not twice. */
cg_status cg_grid_clone(cg_grid **out, const cg_grid *src)
{
    cg_grid *g;
    cg_status st = cg__grid_new_unset(&g, src->w, src->h);
    if (st != CG_OK) {
        *out = NULL;
        return st;
    }
    cg__grid_copy_rows(g, src, 0, src->h);
    if (cg__grid_clone_rest(g, src) != CG_OK) {
        cg_grid_free(g);
        *out = NULL;
        return CG_ENOMEM;
    }
    *out = g;
    return CG_OK;
}

void cg_grid_free(cg_grid *grid)
{
    if (!grid)
        return;
    cg__free(grid->mem);
    cg__free(grid->marks);
    cg__free(grid->kinds);
    cg__reach_free(grid->reach);
    cg__free(grid);
}

uint32_t cg_grid_width(const cg_grid *grid)
{
    return grid->w;
}

uint32_t cg_grid_height(const cg_grid *grid)
{
    return grid->h;
}

static int inside(const cg_grid *g, int64_t x, int64_t y)
{
    return x >= 0 && y >= 0 && x < (int64_t)g->w && y < (int64_t)g->h;
}

cg_cell cg_grid_get(const cg_grid *grid, int64_t x, int64_t y)
{
    if (!inside(grid, x, y))
        return CG_WALL;
    return (cg__row(grid, y)[x >> 6] >> (x & 63)) & 1 ? CG_WALL : CG_FLOOR;
}

/* Index of the first marker at or after (x, y) in (y, x) order. */
static size_t mark_lower_bound(const cg_grid *g, uint32_t x, uint32_t y)
{
    size_t lo = 0, hi = g->nmarks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const cg__mark *m = &g->marks[mid];
        if (m->y < y || (m->y == y && m->x < x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void mark_remove(cg_grid *g, uint32_t x, uint32_t y)
{
    size_t i = mark_lower_bound(g, x, y);
    if (i < g->nmarks && g->marks[i].x == x && g->marks[i].y == y) {
        memmove(&g->marks[i], &g->marks[i + 1], (g->nmarks - i - 1) * sizeof *g->marks);
        g->nmarks--;
    }
}

void cg_grid_set(cg_grid *grid, int64_t x, int64_t y, cg_cell cell)
{
    if (!inside(grid, x, y))
        return;
    cg_grid_clear_reach(grid); /* its distances assumed the old cells */
    uint64_t *w = &cg__row(grid, y)[x >> 6];
    uint64_t bit = UINT64_C(1) << (x & 63);
    if (cell == CG_WALL) {
        *w |= bit;
        mark_remove(grid, (uint32_t)x, (uint32_t)y);
    } else {
        *w &= ~bit;
    }
}

cg_marker cg_grid_marker(const cg_grid *grid, int64_t x, int64_t y)
{
    if (!inside(grid, x, y))
        return CG_MARK_NONE;
    size_t i = mark_lower_bound(grid, (uint32_t)x, (uint32_t)y);
    if (i < grid->nmarks && grid->marks[i].x == (uint32_t)x && grid->marks[i].y == (uint32_t)y)
        return (cg_marker)grid->marks[i].kind;
    return CG_MARK_NONE;
}

static cg_status mark_reserve(cg_grid *g, size_t n)
{
    if (n <= g->capmarks)
        return CG_OK;
    size_t cap = g->capmarks ? g->capmarks : 16;
    while (cap < n) {
        if (cap > SIZE_MAX / 2 / sizeof *g->marks)
            return CG_EOVERFLOW;
        cap *= 2;
    }
    cg__mark *m = cg__realloc(g->marks, cap * sizeof *m);
    if (!m)
        return CG_ENOMEM;
    g->marks = m;
    g->capmarks = cap;
    return CG_OK;
}

cg_status cg_grid_set_marker(cg_grid *grid, int64_t x, int64_t y, cg_marker marker)
{
    if (!inside(grid, x, y) || (unsigned)marker > CG_MARK_BLOCKED)
        return CG_EINVAL;
    uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
    if (marker == CG_MARK_BLOCKED || cg_grid_marker(grid, x, y) == CG_MARK_BLOCKED)
        cg_grid_clear_reach(grid); /* a blocked cell changes what is reachable */
    if (marker == CG_MARK_NONE) {
        mark_remove(grid, ux, uy);
        return CG_OK;
    }
    if (cg_grid_get(grid, x, y) != CG_FLOOR)
        return CG_EINVAL;
    size_t i = mark_lower_bound(grid, ux, uy);
    if (i < grid->nmarks && grid->marks[i].x == ux && grid->marks[i].y == uy) {
        grid->marks[i].kind = (uint8_t)marker;
        grid->marks[i].sym = cg__mark_symbol(marker);
        return CG_OK;
    }
    cg_status st = mark_reserve(grid, grid->nmarks + 1);
    if (st != CG_OK)
        return st;
    memmove(&grid->marks[i + 1], &grid->marks[i], (grid->nmarks - i) * sizeof *grid->marks);
    grid->marks[i] = (cg__mark){ux, uy, (uint8_t)marker, cg__mark_symbol(marker)};
    grid->nmarks++;
    return CG_OK;
}

cg_status cg__grid_push_mark(cg_grid *g, uint32_t x, uint32_t y, cg_marker kind)
{
    cg_status st = mark_reserve(g, g->nmarks + 1);
    if (st != CG_OK)
        return st;
    g->marks[g->nmarks++] = (cg__mark){x, y, (uint8_t)kind, cg__mark_symbol(kind)};
    return CG_OK;
}

void cg__grid_prune_marks(cg_grid *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        if (cg_grid_get(g, m->x, m->y) == CG_FLOOR)
            g->marks[n++] = *m;
    }
    g->nmarks = n;
}

/* The walls of the grid's rows, tail bits included. */
static inline uint64_t count_walls(const cg_grid *grid)
{
    uint64_t walls = 0;
    for (uint32_t y = 0; y < grid->h; y++) {
        const uint64_t *r = cg__row(grid, y);
        for (size_t i = 0; i < grid->nw; i++)
            walls += (uint64_t)__builtin_popcountll(r[i]);
    }
    return walls;
}

#if defined(CG__HAVE_X86)
/* The same with the POPCNT instruction: the baseline x86-64 build calls
 * libgcc's bit-twiddling popcount for every word, and the placement steps
 * count a level's floor several times a map. */
__attribute__((target("popcnt"))) static uint64_t count_walls_popcnt(const cg_grid *grid)
{
    return count_walls(grid);
}
#endif

uint64_t cg_grid_floor_count(const cg_grid *grid)
{
    uint64_t walls;
#if defined(CG__HAVE_X86)
    if (__builtin_cpu_supports("popcnt"))
        walls = count_walls_popcnt(grid);
    else
#endif
        walls = count_walls(grid);
    /* Tail bits are walls outside the map: subtract them. */
    uint64_t tail = (uint64_t)__builtin_popcountll(cg__tail_mask(grid)) * grid->h;
    return (uint64_t)grid->w * grid->h - (walls - tail);
}

void cg__grid_swap_cells(cg_grid *a, cg_grid *b)
{
    uint64_t *m = a->mem;
    a->mem = b->mem;
    b->mem = m;
}

void cg__grid_fill_walls(cg_grid *g)
{
    memset(g->mem, 0xff, g->stride * ((size_t)g->h + 2 * CG__PAD) * sizeof(uint64_t));
}

void cg__grid_fix_tail(cg_grid *g)
{
    uint64_t tail = cg__tail_mask(g);
    if (!tail)
        return;
    for (uint32_t y = 0; y < g->h; y++)
        cg__row(g, y)[g->nw - 1] |= tail;
}

void cg__grid_wall_ring(cg_grid *g)
{
    uint64_t *top = cg__row(g, 0), *bottom = cg__row(g, g->h - 1);
    for (size_t i = 0; i < g->nw; i++)
        top[i] = bottom[i] = ~UINT64_C(0);
    uint64_t last = UINT64_C(1) << ((g->w - 1) & 63);
    for (uint32_t y = 1; y + 1 < g->h; y++) {
        uint64_t *r = cg__row(g, y);
        r[0] |= 1;
        r[g->nw - 1] |= last;
    }
    cg__grid_fix_tail(g);
}

int cg__find_mark(const cg_grid *g, cg_marker kind, uint32_t *x, uint32_t *y)
{
    for (size_t i = 0; i < g->nmarks; i++)
        if (g->marks[i].kind == kind) {
            *x = g->marks[i].x;
            *y = g->marks[i].y;
            return 1;
        }
    return 0;
}

/* ------------------------------------------------------ kinds of points */

int cg__kind_name_valid(const char *s, size_t len)
{
    static const char *const reserved[] = {"entrance", "exit", "poi", "blocked"};
    if (len < 1 || len > CG__KIND_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!letter && (i == 0 || !((c >= '0' && c <= '9') || c == '_' || c == '-')))
            return 0;
    }
    for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
        if (strlen(reserved[k]) == len && memcmp(reserved[k], s, len) == 0)
            return 0;
    return 1;
}

static int kind_letter(uint8_t sym)
{
    return sym >= 'A' && sym <= 'Z';
}

const char *cg__grid_kind_name(const cg_grid *g, uint8_t sym)
{
    if (!kind_letter(sym) || !g->kinds || !g->kinds[sym - 'A'][0])
        return NULL;
    return g->kinds[sym - 'A'];
}

cg_status cg__grid_name_kind(cg_grid *g, uint8_t sym, const char *name, size_t len)
{
    if (!kind_letter(sym) || len > CG__KIND_NAME_MAX)
        return CG_EINVAL;
    const char *old = cg__grid_kind_name(g, sym);
    if (old)
        return strlen(old) == len && memcmp(old, name, len) == 0 ? CG_OK : CG_EINVAL;
    if (!g->kinds) {
        g->kinds = cg__calloc(CG__KINDS, sizeof *g->kinds);
        if (!g->kinds)
            return CG_ENOMEM;
    }
    memcpy(g->kinds[sym - 'A'], name, len);
    g->kinds[sym - 'A'][len] = '\0';
    return CG_OK;
}

cg_status cg__grid_copy_mark(cg_grid *dst, int64_t x, int64_t y, const cg_grid *src,
                             const cg__mark *m)
{
    cg_status st = cg_grid_set_marker(dst, x, y, (cg_marker)m->kind);
    if (st != CG_OK || m->sym == cg__mark_symbol((cg_marker)m->kind))
        return st;
    const char *name = cg__grid_kind_name(src, m->sym);
    if (name && !cg__grid_kind_name(dst, m->sym) &&
        (st = cg__grid_name_kind(dst, m->sym, name, strlen(name))) != CG_OK)
        return st;
    size_t i = mark_lower_bound(dst, (uint32_t)x, (uint32_t)y);
    dst->marks[i].sym = m->sym;
    return CG_OK;
}

char cg_grid_marker_symbol(const cg_grid *grid, int64_t x, int64_t y)
{
    if (!inside(grid, x, y))
        return 0;
    size_t i = mark_lower_bound(grid, (uint32_t)x, (uint32_t)y);
    if (i < grid->nmarks && grid->marks[i].x == (uint32_t)x && grid->marks[i].y == (uint32_t)y)
        return (char)grid->marks[i].sym;
    return 0;
}

const char *cg_grid_point_kind_name(const cg_grid *grid, char symbol)
{
    /* A letter nobody named stands for itself: "A" for 'A'. */
    static const char letters[CG__KINDS][2] = {
        "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M",
        "N", "O", "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z"};
    uint8_t sym = (uint8_t)symbol;
    if (!kind_letter(sym))
        return NULL;
    const char *name = cg__grid_kind_name(grid, sym);
    return name ? name : letters[sym - 'A'];
}

cg_status cg_grid_set_point(cg_grid *grid, int64_t x, int64_t y, char symbol, const char *name)
{
    uint8_t sym = (uint8_t)symbol;
    if (!inside(grid, x, y) || cg_grid_get(grid, x, y) != CG_FLOOR)
        return CG_EINVAL;
    if (sym == '*') {
        if (name)
            return CG_EINVAL;
        return cg_grid_set_marker(grid, x, y, CG_MARK_POI);
    }
    if (!kind_letter(sym))
        return CG_EINVAL;
    cg_status st = CG_OK;
    if (name) {
        size_t len = strlen(name);
        if (!cg__kind_name_valid(name, len))
            return CG_EINVAL;
        /* Named first: a name without points yet is harmless if the
         * marker then fails. */
        if ((st = cg__grid_name_kind(grid, sym, name, len)) != CG_OK)
            return st;
    }
    if ((st = cg_grid_set_marker(grid, x, y, CG_MARK_POI)) != CG_OK)
        return st;
    grid->marks[mark_lower_bound(grid, (uint32_t)x, (uint32_t)y)].sym = sym;
    return CG_OK;
}
