/* place/entrance.c - `entrance` and `exit` (the level article,
 * docs/placement.md): the first floor cell on a ray from outside the map
 * through its centre, then the floor the entrance does not reach filled;
 * the exit by the same ray from 120 to 240 degrees round, across the map
 * from the entrance.
 *
 * The level article: "I take a point at random on a circle centred on the
 * map, with a radius large enough for the circle to lie entirely outside
 * the map. I draw a line from that point to the centre of the map, and the
 * first empty cell on that line is the level's entrance."
 *
 * Everything that decides a cell is integer arithmetic: angles are 65536
 * units per turn and their sines come from a fixed table, so every platform
 * casts the same rays. */
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "core/rng.h"
#include "engine/steps.h"
#include "place/place.h"
#include "regions/flood.h"

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
    int64_t ex2, ey2;       /* the entrance, doubled */
    int64_t cx2[2], cy2[2]; /* the box's corners, doubled */
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
        return cg__place_oom(step, run, st);
    }
    cg__grid_swap_cells(g, region);
    cg__grid_prune_marks(g);
    cg_grid_clear_reach(g);
    if ((st = cg_grid_set_marker(g, x, y, CG_MARK_ENTRANCE)) != CG_OK) {
        cg_grid_free(region);
        return cg__place_oom(step, run, st);
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
    cg_status st = cg__entrance_region(run, &region, &have_entrance, &count);
    if (st != CG_OK)
        return cg__place_oom(step, run, st);
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
        return cg__place_oom(step, run, st);
    return CG_OK;
}

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
