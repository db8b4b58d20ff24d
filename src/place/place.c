/* place/place.c - placement on a cave (the level article, docs/algorithms.md): `entrance`, `exit`,
 * `poi count=K spacing=D`, `require open>=P%`, and the 4-connected searches
 * they share (flood fill, shortest path).
 *
 * The level article: "I take a point at random on a circle centred on the map, with a
 * radius large enough for the circle to lie entirely outside the map. I draw
 * a line from that point to the centre of the map, and the first empty cell
 * on that line is the level's entrance." Then the cells connected to the
 * entrance are listed, too few means starting again, and unconnected cells
 * are filled; the exit is found the same way from a point turned 120 to 240
 * degrees; points of interest are drawn from the shuffled connected cells,
 * each far enough from the entrance, the exit and the other points, and
 * too few means starting again. "Starting again" is the pipeline's attempts
 * (engine/pipeline.c): a step here that cannot be satisfied returns CG_EFAIL.
 *
 * Everything that decides a cell is integer arithmetic: angles are 65536
 * units per turn and their sines come from a fixed table, so every platform
 * casts the same rays. docs/placement.md gives the exact rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "core/rng.h"
#include "engine/steps.h"
#include "regions/flood.h"
#include "regions/regions.h"

/* ------------------------------------------------------------------ angles */

#define TURN 65536u
#define Q30 (INT64_C(1) << 30)

/* sin(i * pi / 512) * 2^30, rounded, for i = 0..256: a quarter turn in 256
 * steps of 64 angle units. Computed once with 50-digit decimal arithmetic
 * (the Python line is in docs/placement.md) and fixed here so that no
 * platform's libm takes part in placing a cell. */
static const int32_t sin_table[257] = {
    0,          6588356,    13176464,   19764076,   26350943,   32936819,   39521455,   46104602,
    52686014,   59265442,   65842639,   72417357,   78989349,   85558366,   92124163,   98686491,
    105245103,  111799753,  118350194,  124896179,  131437462,  137973796,  144504935,  151030634,
    157550647,  164064728,  170572633,  177074115,  183568930,  190056834,  196537583,  203010932,
    209476638,  215934457,  222384147,  228825464,  235258165,  241682010,  248096755,  254502159,
    260897982,  267283981,  273659918,  280025552,  286380643,  292724951,  299058239,  305380268,
    311690799,  317989595,  324276419,  330551034,  336813204,  343062693,  349299266,  355522689,
    361732726,  367929144,  374111709,  380280190,  386434353,  392573967,  398698801,  404808624,
    410903207,  416982319,  423045732,  429093217,  435124548,  441139496,  447137835,  453119340,
    459083786,  465030947,  470960600,  476872522,  482766489,  488642281,  494499676,  500338453,
    506158392,  511959275,  517740883,  523502998,  529245404,  534967884,  540670223,  546352205,
    552013618,  557654248,  563273883,  568872310,  574449320,  580004702,  585538248,  591049748,
    596538995,  602005783,  607449906,  612871159,  618269338,  623644239,  628995660,  634323400,
    639627258,  644907034,  650162530,  655393548,  660599890,  665781362,  670937767,  676068911,
    681174602,  686254647,  691308855,  696337036,  701339000,  706314559,  711263525,  716185713,
    721080937,  725949013,  730789757,  735602987,  740388522,  745146182,  749875788,  754577161,
    759250125,  763894504,  768510122,  773096806,  777654384,  782182683,  786681534,  791150767,
    795590213,  799999706,  804379079,  808728167,  813046808,  817334838,  821592095,  825818421,
    830013654,  834177638,  838310216,  842411232,  846480531,  850517961,  854523370,  858496606,
    862437520,  866345964,  870221790,  874064853,  877875009,  881652112,  885396022,  889106597,
    892783698,  896427186,  900036924,  903612776,  907154608,  910662286,  914135678,  917574653,
    920979082,  924348837,  927683790,  930983817,  934248793,  937478595,  940673101,  943832191,
    946955747,  950043650,  953095785,  956112036,  959092290,  962036435,  964944360,  967815955,
    970651112,  973449725,  976211688,  978936898,  981625251,  984276646,  986890984,  989468165,
    992008094,  994510675,  996975812,  999403415,  1001793390, 1004145648, 1006460100, 1008736660,
    1010975242, 1013175761, 1015338134, 1017462281, 1019548121, 1021595575, 1023604567, 1025575020,
    1027506862, 1029400018, 1031254418, 1033069992, 1034846671, 1036584389, 1038283080, 1039942680,
    1041563127, 1043144360, 1044686319, 1046188946, 1047652185, 1049075980, 1050460278, 1051805027,
    1053110176, 1054375676, 1055601479, 1056787540, 1057933813, 1059040255, 1060106826, 1061133483,
    1062120190, 1063066909, 1063973603, 1064840240, 1065666786, 1066453210, 1067199483, 1067905576,
    1068571464, 1069197120, 1069782521, 1070327646, 1070832474, 1071296985, 1071721163, 1072104991,
    1072448455, 1072751542, 1073014240, 1073236540, 1073418433, 1073559913, 1073660973, 1073721611,
    1073741824,
};

/* sin(2 pi a / 65536) * 2^30, linearly interpolated between table entries
 * (error below 5e-6). */
static int64_t sin_q30(uint32_t a)
{
    a &= TURN - 1;
    uint32_t q = a >> 14, r = a & 0x3FFF;
    if (q & 1)
        r = 0x4000 - r; /* second and fourth quarters mirror the first */
    uint32_t i = r >> 6, f = r & 63;
    int64_t v = sin_table[i];
    if (f)
        v += ((int64_t)(sin_table[i + 1] - sin_table[i]) * f) / 64;
    return q >= 2 ? -v : v;
}

static int64_t cos_q30(uint32_t a)
{
    return sin_q30(a + TURN / 4);
}

/* v / 2^30 rounded to nearest, halves away from zero (no shift of a
 * negative number, whose meaning C leaves to the implementation). */
static int64_t round_q30(int64_t v)
{
    return v >= 0 ? (v + Q30 / 2) / Q30 : -((-v + Q30 / 2) / Q30);
}

/* ------------------------------------------------------------ ray casting */

/* Where the exit may go: the dot product of its vector from the map's
 * centre with the entrance's is at most 0 (at least 90 degrees apart),
 * measured from every corner of the box between the centre cell
 * ((W-1)/2, (H-1)/2 rounded down) and (W/2, H/2). The dot product is a
 * convex function of the centre, so the corners bound it over the whole
 * box: the rule holds whichever of the usual centres one measures from.
 * Coordinates are doubled so that the half cells are whole. */
typedef struct across {
    int active;
    int64_t ex2, ey2;         /* the entrance, doubled */
    int64_t cx2[2], cy2[2];   /* the box's corners, doubled */
} across;

static across across_from(const cg_grid *g, int have, uint32_t ex, uint32_t ey)
{
    across a = {0};
    a.active = have;
    a.ex2 = 2 * (int64_t)ex;
    a.ey2 = 2 * (int64_t)ey;
    a.cx2[0] = 2 * (((int64_t)g->w - 1) / 2);
    a.cx2[1] = g->w;
    a.cy2[0] = 2 * (((int64_t)g->h - 1) / 2);
    a.cy2[1] = g->h;
    return a;
}

static int is_across(const across *a, int64_t x, int64_t y)
{
    if (!a->active)
        return 1;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if ((a->ex2 - a->cx2[i]) * (2 * x - a->cx2[i]) +
                    (a->ey2 - a->cy2[j]) * (2 * y - a->cy2[j]) >
                0)
                return 0;
    return 1;
}

/* The level article's ray: from the point at `angle` on a circle around the map's
 * centre cell, of radius w + h + 2 (beyond the farthest corner), along the
 * straight line through the centre to the mirror point on the other side
 * (if the ray meets no floor before the centre, it keeps walking through
 * it). Bresenham's
 * stepping visits the centre cell itself, since the line's exact position
 * there is a whole cell. The first floor cell inside the map that has no
 * marker, is floor in allowed if that is given, and lies across the map from
 * the entrance if `side` says so, goes to (*x, *y). */
static int ray_cast(const cg_grid *g, const cg_grid *allowed, const across *side, uint32_t angle,
                    uint32_t *x, uint32_t *y)
{
    const int64_t w = g->w, h = g->h;
    const int64_t cx = (w - 1) / 2, cy = (h - 1) / 2, radius = w + h + 2;
    /* Angles turn anticlockwise on screen from east: y grows downwards. */
    int64_t x0 = cx + round_q30(radius * cos_q30(angle));
    int64_t y0 = cy - round_q30(radius * sin_q30(angle));
    int64_t x1 = 2 * cx - x0, y1 = 2 * cy - y0;
    int64_t ax = x1 > x0 ? x1 - x0 : x0 - x1, ay = y1 > y0 ? y1 - y0 : y0 - y1;
    int64_t sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int64_t err = ax - ay;
    for (;;) {
        if (cg__is_floor(g, x0, y0) && cg_grid_marker(g, x0, y0) == CG_MARK_NONE &&
            (!allowed || !cg__bit(cg__row(allowed, y0), (uint64_t)x0)) &&
            (!side || is_across(side, x0, y0))) {
            *x = (uint32_t)x0;
            *y = (uint32_t)y0;
            return 1;
        }
        if (x0 == x1 && y0 == y1)
            return 0;
        int64_t e2 = 2 * err;
        if (e2 > -ay) {
            err -= ay;
            x0 += sx;
        }
        if (e2 < ax) {
            err += ax;
            y0 += sy;
        }
    }
}

static void remove_marks(cg_grid *g, cg_marker kind)
{
    size_t n = 0;
    for (size_t i = 0; i < g->nmarks; i++)
        if (g->marks[i].kind != kind)
            g->marks[n++] = g->marks[i];
    g->nmarks = n;
}

/* Whether the map is still what `entrance` left: then all its floor is
 * connected to the entrance and no flood fill is needed. */
static int unchanged_since_entrance(const cg__run *run, uint32_t x, uint32_t y)
{
    const cg_grid *g = run->grid, *c = run->connected;
    return c && c->w == g->w && c->h == g->h && run->connected_x == x && run->connected_y == y &&
           memcmp(c->mem, g->mem, g->stride * ((size_t)g->h + 2 * CG__PAD) * sizeof *g->mem) == 0;
}

/* The floor the map's entrance marker reaches, moving as a unit: never
 * into a blocked cell (docs/placement.md, "Blocked cells"). *have: there is
 * an entrance. *region: a new grid holding that floor, or NULL when it is
 * all the floor of the map (or there is no entrance). *count: its cells. */
static cg_status entrance_region(const cg__run *run, cg_grid **region, int *have, uint64_t *count)
{
    const cg_grid *g = run->grid;
    uint32_t x, y;
    *region = NULL;
    *count = 0;
    *have = cg__find_mark(g, CG_MARK_ENTRANCE, &x, &y);
    if (!*have)
        return CG_OK;
    if (!cg__has_blocked(g) && unchanged_since_entrance(run, x, y)) {
        *count = cg_grid_floor_count(g);
        return CG_OK;
    }
    cg_status st = cg__grid_new_like(region, g);
    if (st == CG_OK)
        st = cg__flood_moves(g, x, y, *region, count);
    if (st != CG_OK) {
        cg_grid_free(*region);
        *region = NULL;
    }
    return st;
}

static cg_status out_of_memory(const cg__step *step, cg__run *run, cg_status st)
{
    cg__diag(run->diag, step->line, step->column, "%s: out of memory for a %ux%u map",
             step->def->name, run->grid->w, run->grid->h);
    return st;
}

/* ------------------------------------------------------ entrance and exit */

static cg_status run_entrance(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    cg__rng rng = {cg__step_rand_key(step, run->seed)};
    uint32_t angle = cg__rng_below(&rng, TURN), x, y;
    remove_marks(g, CG_MARK_ENTRANCE); /* one entrance per map */
    if (!ray_cast(g, NULL, NULL, angle, &x, &y)) {
        run->fail_score = 0;
        cg__diag(run->diag, step->line, step->column,
                 "entrance: no floor cell on the ray across the map");
        return CG_EFAIL;
    }
    /* The level article, D: the floor not connected to the entrance is filled. */
    cg_grid *region = NULL;
    uint64_t count;
    cg_status st = cg__grid_new_like(&region, g);
    if (st == CG_OK)
        st = cg__flood(g, x, y, region, &count);
    if (st != CG_OK) {
        cg_grid_free(region);
        return out_of_memory(step, run, st);
    }
    cg__grid_swap_cells(g, region);
    cg__grid_prune_marks(g);
    cg_grid_clear_reach(g);
    if ((st = cg_grid_set_marker(g, x, y, CG_MARK_ENTRANCE)) != CG_OK) {
        cg_grid_free(region);
        return out_of_memory(step, run, st);
    }
    /* Keep these cells: `require`, `exit` and `poi` need the floor connected
     * to the entrance, which is all of it until a step changes the map. */
    memcpy(region->mem, g->mem, g->stride * ((size_t)g->h + 2 * CG__PAD) * sizeof *g->mem);
    cg_grid_free(run->connected);
    run->connected = region;
    run->connected_x = x;
    run->connected_y = y;
    run->have_entrance_angle = 1;
    run->entrance_angle = angle;
    return CG_OK;
}

/* Rays the exit tries: the drawn angle, then angles spread evenly over the
 * rest of its window (about one degree apart), so that a cave whose floor
 * across from the entrance lies off the first ray still gets its exit. */
#define EXIT_WINDOW 21845u /* 120 to 240 degrees: 21846 + 0..21844 units */
#define EXIT_RAYS_WINDOW 120u
#define EXIT_RAYS_TURN 360u

static cg_status run_exit(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    cg__rng rng = {cg__step_rand_key(step, run->seed)};
    /* 120 to 240 degrees from the entrance's angle: 21846..43690 units,
     * the whole angles of the closed range. Without an entrance in this
     * run, any angle. */
    uint32_t base = run->have_entrance_angle ? run->entrance_angle + 21846 : 0;
    uint32_t span = run->have_entrance_angle ? EXIT_WINDOW : TURN;
    uint32_t rays = run->have_entrance_angle ? EXIT_RAYS_WINDOW : EXIT_RAYS_TURN;
    uint32_t first = cg__rng_below(&rng, span);
    uint32_t x = 0, y = 0, ex = 0, ey = 0;
    remove_marks(g, CG_MARK_EXIT);
    /* Only cells the entrance reaches: right after `entrance` that is all
     * the floor, but steps in between may have changed the map. */
    cg_grid *region = NULL;
    uint64_t count;
    int have_entrance;
    cg_status st = entrance_region(run, &region, &have_entrance, &count);
    if (st != CG_OK)
        return out_of_memory(step, run, st);
    /* Across the map from the entrance marker, wherever it came from. */
    if (have_entrance)
        cg__find_mark(g, CG_MARK_ENTRANCE, &ex, &ey);
    across side = across_from(g, have_entrance, ex, ey);
    int found = 0;
    for (uint32_t k = 0; k < rays && !found; k++) {
        uint32_t offset = (uint32_t)((first + (uint64_t)k * span / rays) % span);
        found = ray_cast(g, region, &side, (base + offset) & (TURN - 1), &x, &y);
    }
    cg_grid_free(region);
    if (!found) {
        run->fail_score = 0;
        cg__diag(run->diag, step->line, step->column,
                 have_entrance ? "exit: no floor cell that the entrance reaches on the rays "
                                 "across the map from it"
                               : "exit: no floor cell on the rays across the map");
        return CG_EFAIL;
    }
    if ((st = cg_grid_set_marker(g, x, y, CG_MARK_EXIT)) != CG_OK)
        return out_of_memory(step, run, st);
    return CG_OK;
}

/* ------------------------------------------------------ points of interest */

#define POI_MAX_COUNT 100000
#define POI_MAX_SPACING (2 * CG_MAX_DIM)

enum { POI_COUNT, POI_SPACING };

static cg_status parse_poi(cg__step *step, const cg__args *a, cg_diag *diag)
{
    long count, spacing = 0;
    if (!a->values[POI_COUNT].s)
        return cg__step_missing(step, a, "count=", diag);
    if (cg__parse_int(&a->values[POI_COUNT], a->line, "count", 1, POI_MAX_COUNT, &count, diag) ||
        (a->values[POI_SPACING].s && cg__parse_int(&a->values[POI_SPACING], a->line, "spacing", 0,
                                                   POI_MAX_SPACING, &spacing, diag)))
        return CG_EPARSE;
    step->u.poi.count = (uint32_t)count;
    step->u.poi.spacing = (uint32_t)spacing;
    return CG_OK;
}

/* The points placed so far, bucketed by cells of side `spacing` so a new
 * point is checked against the 3x3 buckets around it only: any point closer
 * than `spacing` lies there. Open addressing over bucket coordinates. */
typedef struct points {
    uint64_t *xy;   /* packed cells */
    uint32_t *next; /* chain within a bucket; UINT32_MAX ends it */
    uint32_t n;
    uint64_t *keys;    /* bucket key + 1; 0 = empty slot */
    uint32_t *heads;   /* first point of the slot's bucket */
    size_t mask;       /* slots - 1 */
    uint64_t side;     /* bucket side: max(spacing, 1) */
    uint64_t spacing2; /* spacing squared */
} points;

static cg_status points_init(points *p, size_t max, uint64_t spacing)
{
    memset(p, 0, sizeof *p);
    if (max >= UINT32_MAX / 4)
        return CG_EOVERFLOW;
    size_t slots = 16;
    while (slots < 2 * max)
        slots *= 2;
    p->xy = cg__malloc(max * sizeof *p->xy);
    p->next = cg__malloc(max * sizeof *p->next);
    p->keys = cg__calloc(slots, sizeof *p->keys);
    p->heads = cg__malloc(slots * sizeof *p->heads);
    p->mask = slots - 1;
    p->side = spacing ? spacing : 1;
    p->spacing2 = spacing * spacing;
    return p->xy && p->next && p->keys && p->heads ? CG_OK : CG_ENOMEM;
}

static void points_free(points *p)
{
    cg__free(p->xy);
    cg__free(p->next);
    cg__free(p->keys);
    cg__free(p->heads);
}

/* The slot of bucket (bx, by): where it is, or the empty slot it would take. */
static size_t points_slot(const points *p, uint64_t bx, uint64_t by)
{
    uint64_t key = cg__pack_xy(bx, by) + 1;
    size_t i = (size_t)cg__mix64(key) & p->mask;
    while (p->keys[i] && p->keys[i] != key)
        i = (i + 1) & p->mask;
    return i;
}

static int points_far(const points *p, uint64_t x, uint64_t y)
{
    uint64_t bx = x / p->side, by = y / p->side;
    for (uint64_t j = by ? by - 1 : 0; j <= by + 1; j++)
        for (uint64_t i = bx ? bx - 1 : 0; i <= bx + 1; i++) {
            size_t s = points_slot(p, i, j);
            if (!p->keys[s])
                continue;
            for (uint32_t k = p->heads[s]; k != UINT32_MAX; k = p->next[k]) {
                int64_t dx = (int64_t)(p->xy[k] & 0xFFFFFFFFu) - (int64_t)x;
                int64_t dy = (int64_t)(p->xy[k] >> 32) - (int64_t)y;
                if ((uint64_t)(dx * dx + dy * dy) < p->spacing2)
                    return 0;
            }
        }
    return 1;
}

static void points_add(points *p, uint64_t x, uint64_t y)
{
    size_t s = points_slot(p, x / p->side, y / p->side);
    if (!p->keys[s]) {
        p->keys[s] = cg__pack_xy(x / p->side, y / p->side) + 1;
        p->heads[s] = UINT32_MAX;
    }
    p->xy[p->n] = cg__pack_xy(x, y);
    p->next[p->n] = p->heads[s];
    p->heads[s] = p->n++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Adds n POI markers (packed cells, free of markers) keeping (y, x) order. */
static cg_status add_points(cg_grid *g, uint64_t *cells, size_t n)
{
    qsort(cells, n, sizeof *cells, cmp_u64); /* packed y << 32 | x sorts by (y, x) */
    size_t total = g->nmarks + n;
    cg__mark *m = cg__malloc(total * sizeof *m);
    if (!m)
        return CG_ENOMEM;
    size_t i = 0, j = 0, k = 0;
    while (i < g->nmarks || j < n) {
        if (j == n || (i < g->nmarks && cg__pack_xy(g->marks[i].x, g->marks[i].y) < cells[j])) {
            m[k++] = g->marks[i++];
        } else {
            m[k++] = (cg__mark){(uint32_t)(cells[j] & 0xFFFFFFFFu), (uint32_t)(cells[j] >> 32),
                                (uint8_t)CG_MARK_POI, cg__mark_symbol(CG_MARK_POI)};
            j++;
        }
    }
    cg__free(g->marks);
    g->marks = m;
    g->nmarks = g->capmarks = total;
    return CG_OK;
}

/* The candidate cells in scan order: floor in `from` (the entrance's region,
 * or the map) without a marker in g. */
static cg_status list_candidates(const cg_grid *g, const cg_grid *from, uint64_t **out, size_t *n)
{
    uint64_t floor = cg_grid_floor_count(from);
    *out = NULL;
    *n = 0;
    if (floor > SIZE_MAX / sizeof **out)
        return CG_EOVERFLOW;
    uint64_t *v = cg__malloc((size_t)(floor ? floor : 1) * sizeof *v);
    if (!v)
        return CG_ENOMEM;
    size_t k = 0, mi = 0;
    for (uint32_t y = 0; y < from->h; y++) {
        const uint64_t *r = cg__row(from, y);
        for (size_t i = 0; i < from->nw; i++) {
            uint64_t open = ~r[i];
            while (open) {
                uint64_t c = cg__pack_xy((uint64_t)i * 64 + (uint64_t)__builtin_ctzll(open), y);
                open &= open - 1;
                while (mi < g->nmarks && cg__pack_xy(g->marks[mi].x, g->marks[mi].y) < c)
                    mi++;
                if (mi < g->nmarks && cg__pack_xy(g->marks[mi].x, g->marks[mi].y) == c)
                    continue;
                v[k++] = c;
            }
        }
    }
    *out = v;
    *n = k;
    return CG_OK;
}

/* Uniform in 0..n-1: cg__rng_below while n fits 32 bits; beyond (maps of
 * more than 2^32 floor cells), rejection from a power-of-two mask. */
static uint64_t below64(cg__rng *rng, uint64_t n)
{
    if (n <= UINT32_MAX)
        return cg__rng_below(rng, (uint32_t)n);
    uint64_t mask = ~UINT64_C(0) >> __builtin_clzll(n - 1), v;
    do
        v = cg__rng_next(rng) & mask;
    while (v >= n);
    return v;
}

static cg_status run_poi(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    const uint32_t count = step->u.poi.count;
    const uint64_t spacing = step->u.poi.spacing;
    cg_grid *region = NULL;
    uint64_t *cells = NULL;
    size_t n = 0;
    uint64_t reached;
    int have_entrance;
    points p = {0};
    cg_status st = entrance_region(run, &region, &have_entrance, &reached);
    if (st == CG_OK)
        st = list_candidates(g, region ? region : g, &cells, &n);
    cg_grid_free(region);
    if (st == CG_OK)
        st = points_init(&p, g->nmarks + count, spacing);
    if (st != CG_OK) {
        cg__free(cells);
        points_free(&p);
        return out_of_memory(step, run, st);
    }
    /* Spacing counts from the entrance, the exit and every point. */
    for (size_t i = 0; i < g->nmarks; i++) {
        const cg__mark *m = &g->marks[i];
        if (m->kind == CG_MARK_ENTRANCE || m->kind == CG_MARK_EXIT || m->kind == CG_MARK_POI)
            points_add(&p, m->x, m->y);
    }
    /* The level article, F: shuffle the connected cells and take them one by one.
     * Fisher-Yates drawn lazily: the i-th pick is the i-th cell of the full
     * shuffle, and only as many draws are made as cells are looked at. */
    cg__rng rng = {cg__step_rand_key(step, run->seed)};
    uint32_t chosen = 0;
    uint32_t first = p.n;
    for (size_t i = 0; i < n && chosen < count; i++) {
        size_t j = i + (size_t)below64(&rng, n - i);
        uint64_t c = cells[j];
        cells[j] = cells[i];
        cells[i] = c;
        uint64_t x = c & 0xFFFFFFFFu, y = c >> 32;
        if (points_far(&p, x, y)) {
            points_add(&p, x, y);
            chosen++;
        }
    }
    cg__free(cells);
    if (chosen < count) {
        points_free(&p);
        run->fail_score = chosen;
        cg__diag(run->diag, step->line, step->column, "poi count=%u spacing=%u: only %u fit", count,
                 (unsigned)spacing, chosen);
        return CG_EFAIL;
    }
    st = add_points(g, p.xy + first, chosen);
    points_free(&p);
    return st == CG_OK ? CG_OK : out_of_memory(step, run, st);
}

/* ------------------------------------------------------------ requirements */

enum { REQUIRE_OPEN, REQUIRE_REGIONS, REQUIRE_REGIONS_UP_TO };

#define REQUIRE_MAX_REGIONS 1000000000L

static cg_status parse_require(cg__step *step, const cg__args *a, cg_diag *diag)
{
    /* "open>=P%" and "regions<=N" split at their '=' like any key=value, so
     * the keys are "open>" and "regions<". */
    const cg__token *open = &a->values[REQUIRE_OPEN], *exact = &a->values[REQUIRE_REGIONS],
                    *up_to = &a->values[REQUIRE_REGIONS_UP_TO];
    if (!open->s && !exact->s && !up_to->s)
        return cg__step_missing(step, a, "open>=PERCENT, regions=N or regions<=N", diag);
    if (exact->s && up_to->s) {
        cg__diag(diag, a->line, up_to->column - 9,
                 "require takes regions=N or regions<=N, not both");
        return CG_EPARSE;
    }
    if (open->s) {
        step->u.require.open = 1;
        if (cg__parse_percent(open, a->line, "open", &step->u.require.ppb, diag))
            return CG_EPARSE;
    }
    if (exact->s || up_to->s) {
        long n;
        if (cg__parse_int(exact->s ? exact : up_to, a->line, "regions", 1, REQUIRE_MAX_REGIONS,
                          &n, diag))
            return CG_EPARSE;
        step->u.require.regions = (uint64_t)n;
        step->u.require.regions_up_to = up_to->s != NULL;
    }
    return CG_OK;
}

/* a * b < c * d for 64-bit operands, exactly (128-bit products from 32-bit
 * halves: C11 has no wider integer). */
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *lo = (ll & 0xFFFFFFFFu) | mid << 32;
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static int product_less(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t h1, l1, h2, l2;
    mul128(a, b, &h1, &l1);
    mul128(c, d, &h2, &l2);
    return h1 < h2 || (h1 == h2 && l1 < l2);
}

/* A percentage in parts per billion as typed: "45", "47.5". */
static void format_ppb(char *buf, size_t cap, uint32_t ppb)
{
    uint32_t whole = ppb / 10000000u, frac = ppb % 10000000u;
    int digits = 7;
    while (frac && frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    if (frac)
        snprintf(buf, cap, "%u.%0*u", whole, digits, frac);
    else
        snprintf(buf, cap, "%u", whole);
}

/* open>=P%: the level article, D: "if there are not enough [connected
 * cells], I start again from scratch". Open = the floor the entrance
 * reaches; without an entrance, the largest floor region. */
static cg_status require_open(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    cg_grid *region = NULL;
    uint64_t open = 0, regions;
    int have_entrance;
    cg_status st = entrance_region(run, &region, &have_entrance, &open);
    if (st == CG_OK && !have_entrance)
        st = cg__floor_regions(g, &regions, &open);
    cg_grid_free(region);
    if (st != CG_OK)
        return out_of_memory(step, run, st);
    uint64_t total = (uint64_t)g->w * g->h;
    if (!product_less(open, 1000000000u, step->u.require.ppb, total))
        return CG_OK;
    /* Tenths of a percent, rounded down so a failure never reads as the
     * threshold itself. */
    uint64_t tenths = open * 1000 / total;
    char want[32];
    format_ppb(want, sizeof want, step->u.require.ppb);
    run->fail_score = open;
    cg__diag(run->diag, step->line, step->column,
             "require open>=%s%%: %llu.%llu%% of the map is open%s", want,
             (unsigned long long)(tenths / 10), (unsigned long long)(tenths % 10),
             have_entrance ? " from the entrance" : " in its largest region");
    return CG_EFAIL;
}

/* regions=N (exactly N) or regions<=N (1..N): the 4-connected floor
 * regions of the cave's shape, as --stats counts them (blocked cells are
 * floor), so `require regions=1` means one cave, whatever stands in it. */
static cg_status require_regions(const cg__step *step, cg__run *run)
{
    uint64_t regions = 0, largest;
    cg_status st = cg__floor_regions(run->grid, &regions, &largest);
    if (st != CG_OK)
        return out_of_memory(step, run, st);
    uint64_t want = step->u.require.regions;
    int up_to = step->u.require.regions_up_to;
    if (up_to ? regions >= 1 && regions <= want : regions == want)
        return CG_OK;
    /* Closer: fewer regions off the mark. */
    uint64_t off = regions > want ? regions - want : want - regions;
    run->fail_score = UINT64_MAX - off;
    cg__diag(run->diag, step->line, step->column, "require regions%s=%llu: the floor is %llu %s",
             up_to ? "<" : "", (unsigned long long)want, (unsigned long long)regions,
             regions == 1 ? "region" : "regions");
    return CG_EFAIL;
}

static cg_status run_require(const cg__step *step, cg__run *run)
{
    cg_status st = CG_OK;
    if (step->u.require.open)
        st = require_open(step, run);
    if (st == CG_OK && step->u.require.regions)
        st = require_regions(step, run);
    return st;
}

/* ------------------------------------------------------------ the steps */

/* A flood of the map is made while it runs and kept as run->connected. */
const cg__step_def cg__step_entrance = {
    .name = "entrance",
    .usage = "entrance",
    .rand_kind = CG__RAND_ENTRANCE,
    .keeps_region = 1,
    .run = run_entrance,
};

const cg__step_def cg__step_exit = {
    .name = "exit",
    .usage = "exit",
    .rand_kind = CG__RAND_EXIT,
    .run = run_exit,
};

const cg__step_def cg__step_poi = {
    .name = "poi",
    .usage = "poi count=K [spacing=D]",
    .keys = {[POI_COUNT] = "count", [POI_SPACING] = "spacing"},
    .rand_kind = CG__RAND_POI,
    .parse = parse_poi,
    .run = run_poi,
};

/* "open>=P%" and "regions<=N" split at their '=' like any key=value: the
 * keys are "open>" and "regions<". */
const cg__step_def cg__step_require = {
    .name = "require",
    .usage = "require [open>=PERCENT] [regions=N|regions<=N]",
    .keys = {[REQUIRE_OPEN] = "open>", [REQUIRE_REGIONS] = "regions",
             [REQUIRE_REGIONS_UP_TO] = "regions<"},
    .parse = parse_require,
    .run = run_require,
};
