/* test_maze.c - the `maze` step (Labyrinth Generator v1.0, docs/maze.md) and its presets.
 *
 * Every map is checked against the layout (wall ring; rooms at odd (x, y),
 * all floor; pillars at even (x, y), all wall; any other floor cell is an
 * opening between two rooms) and read as a graph: rooms are vertices,
 * openings are edges. Then each option's property, over many seeds and odd
 * sizes (3x3, one-room-wide strips, widths across 64-bit words, 1001x1001):
 * - maze connected: one spanning tree (openings = rooms - 1);
 * - maze: a forest (no cycle), and connected adds exactly one opening per
 *   mole after the first, to the same tunnels;
 * - loops: only adds openings, makes cycles; loops=0% is no loops;
 * - no-isolated: no free-standing pillar, same components, only closes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

/* clang-format off */
static const uint64_t seeds[] = {
    0, 1, 2, 3, 42, 7, 123456789, UINT64_C(0x8000000000000000), UINT64_C(0xFFFFFFFFFFFFFFFF),
    UINT64_C(0xDEADBEEFCAFEBABE), 99, 2024,
};
/* clang-format on */
#define N_SEEDS (sizeof seeds / sizeof seeds[0])

typedef struct size2 {
    uint32_t w, h;
} size2;

/* Odd sizes: the smallest, strips one room wide or high, widths around the
 * 64-bit word boundaries, and ordinary mazes. */
static const size2 sizes[] = {
    {3, 3},    {3, 5},   {3, 21},   {3, 129}, {5, 3},   {21, 3},  {129, 3},
    {5, 5},    {7, 9},   {9, 7},    {11, 11}, {63, 5},  {65, 7},  {127, 9},
    {129, 11}, {131, 5}, {101, 51}, {31, 47}, {21, 21}, {41, 11},
};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

/* ------------------------------------------------------------ analysis */

typedef struct maze_info {
    uint64_t rooms, openings;
    uint64_t components; /* of the room graph */
    uint64_t cycles;     /* openings - (rooms - components): independent cycles */
    uint64_t isolated;   /* pillars strictly inside the ring with four floor neighbours */
} maze_info;

static uint32_t find(uint32_t *parent, uint32_t a)
{
    while (parent[a] != a) {
        parent[a] = parent[parent[a]];
        a = parent[a];
    }
    return a;
}

/* Checks the layout of a maze and reads its graph; fails the test (naming
 * what) if the layout is wrong. */
static maze_info analyse(const cg_grid *g, const char *what)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    assert_true(w % 2 == 1 && h % 2 == 1 && w >= 3 && h >= 3);
    uint8_t *c = tu_cells_from_grid(g);
    uint32_t rw = (w - 1) / 2, rh = (h - 1) / 2;
    maze_info info = {0};
    info.rooms = (uint64_t)rw * rh;
    uint32_t *parent = malloc(info.rooms * sizeof *parent);
    assert_non_null(parent);
    for (uint32_t i = 0; i < info.rooms; i++)
        parent[i] = i;
    info.components = info.rooms;
#define CELL(x, y) c[(size_t)(y)*w + (x)]
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            int wall = CELL(x, y);
            const char *bad = NULL;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
                bad = wall ? NULL : "a floor cell on the border ring";
            } else if (x % 2 == 1 && y % 2 == 1) {
                bad = wall ? "a room left undug" : NULL;
            } else if (wall) {
                /* Any wall inside the ring with four floor neighbours stands
                 * alone (only pillars can: other walls touch two pillars). */
                info.isolated +=
                    !CELL(x - 1, y) && !CELL(x + 1, y) && !CELL(x, y - 1) && !CELL(x, y + 1);
            } else if (x % 2 == 0 && y % 2 == 0) {
                bad = "a dug pillar";
            } else {
                /* An opening: between the rooms left and right of it (y odd)
                 * or above and below it (x odd). */
                uint32_t ax = x % 2 ? x : x - 1, ay = y % 2 ? y : y - 1;
                uint32_t bx = x % 2 ? x : x + 1, by = y % 2 ? y : y + 1;
                uint32_t a = find(parent, (ay / 2) * rw + ax / 2);
                uint32_t b = find(parent, (by / 2) * rw + bx / 2);
                info.openings++;
                if (a == b) {
                    info.cycles++;
                } else {
                    parent[a] = b;
                    info.components--;
                }
            }
            if (bad) {
                print_error("%s: %ux%u maze has %s at (%u,%u)\n", what, w, h, bad, x, y);
                free(parent);
                free(c);
                fail();
            }
        }
    }
#undef CELL
    free(parent);
    free(c);
    return info;
}

static cg_grid *maze(const char *text, uint64_t seed, uint32_t w, uint32_t h)
{
    return tu_run(text, seed, w, h, NULL);
}

static cg_grid *preset(const char *name, uint64_t seed, uint32_t w, uint32_t h)
{
    size_t len = 0;
    const char *text = cg_preset_builtin(name, &len);
    if (!text) {
        print_error("built-in preset %s is missing\n", name);
        fail();
    }
    cg_pipeline *p = NULL;
    cg_diag diag = {0};
    assert_int_equal(cg_pipeline_new(&p), CG_OK);
    assert_int_equal(cg_pipeline_parse(p, text, len, &diag), CG_OK);
    cg_grid *g = NULL;
    cg_status st = tu_run_pipeline(p, seed, w, h, NULL, &g, &diag);
    if (st != CG_OK) {
        print_error("preset %s at %ux%u: %s\n", name, w, h, diag.message);
        fail();
    }
    cg_pipeline_free(p);
    return g;
}

/* Every floor cell of a is floor in b. */
static int floor_subset(const cg_grid *a, const cg_grid *b)
{
    for (uint32_t y = 0; y < cg_grid_height(a); y++)
        for (uint32_t x = 0; x < cg_grid_width(a); x++)
            if (cg_grid_get(a, x, y) == CG_FLOOR && cg_grid_get(b, x, y) == CG_WALL)
                return 0;
    return 1;
}

static void report(const char *what, uint64_t seed, size2 s, const maze_info *m)
{
    print_error("%s, seed %llu, %ux%u: rooms %llu, openings %llu, components %llu, "
                "cycles %llu, isolated pillars %llu\n",
                what, (unsigned long long)seed, s.w, s.h, (unsigned long long)m->rooms,
                (unsigned long long)m->openings, (unsigned long long)m->components,
                (unsigned long long)m->cycles, (unsigned long long)m->isolated);
}

/* ------------------------------------------------------ hand-made cases */

static void a_3x3_maze_is_one_room(void **state)
{
    (void)state;
    const char *texts[] = {"maze", "maze connected", "maze connected loops no-isolated",
                           "maze loops=50%"};
    const char *want[] = {"###", "#.#", "###"};
    for (size_t k = 0; k < 4; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            cg_grid *g = maze(texts[k], seeds[i], 3, 3);
            tu_assert_grid_equals_rows(g, want, 3, texts[k]);
            cg_grid_free(g);
        }
}

/* One room wide or high, the mole has one way at each step: it digs the whole
 * strip in one go, whatever the options. */
static void a_one_room_wide_strip_is_one_straight_corridor(void **state)
{
    (void)state;
    const char *texts[] = {"maze", "maze connected", "maze connected loops no-isolated"};
    for (uint32_t n = 3; n <= 131; n += 2) {
        for (size_t k = 0; k < 3; k++) {
            cg_grid *tall = maze(texts[k], n, 3, n), *wide = maze(texts[k], n, n, 3);
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t j = 0; j < 3; j++) {
                    int want = (i == 0 || i == n - 1 || j != 1) ? CG_WALL : CG_FLOOR;
                    assert_int_equal(cg_grid_get(tall, j, i), want);
                    assert_int_equal(cg_grid_get(wide, i, j), want);
                }
            cg_grid_free(tall);
            cg_grid_free(wide);
        }
    }
}

/* 5x5 has four rooms around one pillar. The mole from (1,1) always visits
 * all four (each room has two neighbours in the ring), so plain and
 * connected mazes are a path of three openings; loops opens the fourth where
 * the mole stops, isolating the pillar; no-isolated closes one again. */
static void a_5x5_maze_follows_the_mole_by_hand(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SEEDS; i++) {
        size2 s = {5, 5};
        cg_grid *g = maze("maze", seeds[i], 5, 5);
        maze_info m = analyse(g, "maze");
        assert_true(m.rooms == 4 && m.openings == 3 && m.components == 1 && m.isolated == 0);
        cg_grid_free(g);
        g = maze("maze loops", seeds[i], 5, 5);
        m = analyse(g, "maze loops");
        if (!(m.openings == 4 && m.cycles == 1 && m.isolated == 1)) {
            report("maze loops", seeds[i], s, &m);
            fail();
        }
        const char *ring[] = {"#####", "#...#", "#.#.#", "#...#", "#####"};
        tu_assert_grid_equals_rows(g, ring, 5, "maze loops 5x5");
        cg_grid_free(g);
        g = maze("maze loops no-isolated", seeds[i], 5, 5);
        m = analyse(g, "maze loops no-isolated");
        assert_true(m.openings == 3 && m.components == 1 && m.isolated == 0);
        cg_grid_free(g);
    }
}

/* ------------------------------------------------------- maze-perfect */

static void maze_perfect_is_a_spanning_tree_of_the_rooms(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            cg_grid *g = preset("maze-perfect", seeds[i], sizes[k].w, sizes[k].h);
            maze_info m = analyse(g, "maze-perfect");
            /* Connected with rooms - 1 openings: a tree, so no cycle, so
             * exactly one path between any two cells. */
            if (m.components != 1 || m.openings != m.rooms - 1 || m.cycles || m.isolated) {
                report("maze-perfect", seeds[i], sizes[k], &m);
                fail();
            }
            cg_grid_free(g);
        }
}

/* Every odd size from 3x3 to 25x25, a few seeds each. */
static void maze_perfect_is_a_spanning_tree_at_every_small_size(void **state)
{
    (void)state;
    for (uint32_t w = 3; w <= 25; w += 2)
        for (uint32_t h = 3; h <= 25; h += 2)
            for (uint64_t seed = 100; seed < 104; seed++) {
                size2 s = {w, h};
                cg_grid *g = preset("maze-perfect", seed, w, h);
                maze_info m = analyse(g, "maze-perfect");
                if (m.components != 1 || m.openings != m.rooms - 1) {
                    report("maze-perfect", seed, s, &m);
                    fail();
                }
                cg_grid_free(g);
                g = preset("maze", seed, w, h);
                m = analyse(g, "maze");
                if (m.components != 1 || m.isolated) {
                    report("maze", seed, s, &m);
                    fail();
                }
                cg_grid_free(g);
            }
}

static void large_mazes_keep_their_properties(void **state)
{
    (void)state;
    size2 s = {1001, 1001};
    cg_grid *g = preset("maze-perfect", 5, s.w, s.h);
    maze_info m = analyse(g, "maze-perfect");
    if (m.components != 1 || m.openings != m.rooms - 1) {
        report("maze-perfect", 5, s, &m);
        fail();
    }
    cg_grid_free(g);
    g = preset("maze", 5, s.w, s.h);
    m = analyse(g, "maze");
    if (m.components != 1 || m.cycles < 1000 || m.isolated) {
        report("maze", 5, s, &m);
        fail();
    }
    cg_grid_free(g);
}

/* ---------------------------------------------------------- connected */

/* Without `connected` each mole digs a tree of its own: a forest, one
 * component per mole, and big mazes have many moles. */
static void a_plain_maze_is_a_forest_of_several_trees(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            cg_grid *g = maze("maze", seeds[i], sizes[k].w, sizes[k].h);
            maze_info m = analyse(g, "maze");
            int big = sizes[k].w >= 31 && sizes[k].h >= 31;
            if (m.cycles || m.openings != m.rooms - m.components || (big && m.components < 2)) {
                report("maze", seeds[i], sizes[k], &m);
                fail();
            }
            cg_grid_free(g);
        }
}

/* The moles dig the same tunnels with or without `connected`; it opens one
 * wall more for every mole but the first, which joins the forest into one
 * tree. */
static void connected_joins_each_mole_to_the_ones_before(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            cg_grid *plain = maze("maze", seeds[i], sizes[k].w, sizes[k].h);
            cg_grid *conn = maze("maze connected", seeds[i], sizes[k].w, sizes[k].h);
            maze_info a = analyse(plain, "maze"), b = analyse(conn, "maze connected");
            assert_true(floor_subset(plain, conn));
            if (b.components != 1 || b.openings != a.openings + a.components - 1) {
                report("maze", seeds[i], sizes[k], &a);
                report("maze connected", seeds[i], sizes[k], &b);
                fail();
            }
            cg_grid_free(plain);
            cg_grid_free(conn);
        }
}

/* -------------------------------------------------------------- loops */

static void loops_add_openings_and_make_cycles(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            size2 s = sizes[k];
            cg_grid *tree = maze("maze connected", seeds[i], s.w, s.h);
            cg_grid *loop = maze("maze connected loops", seeds[i], s.w, s.h);
            maze_info a = analyse(tree, "maze connected");
            maze_info b = analyse(loop, "maze connected loops");
            assert_true(floor_subset(tree, loop));
            /* Every room of a 2-room-wide maze or more is in a 4-room square;
             * each mole's stop with a closed wall around it makes a cycle. */
            int can_cycle = s.w >= 5 && s.h >= 5;
            if (b.components != 1 || b.openings < a.openings || (can_cycle && b.cycles < 1) ||
                (!can_cycle && b.cycles)) {
                report("maze connected loops", seeds[i], s, &b);
                fail();
            }
            cg_grid_free(tree);
            cg_grid_free(loop);
            /* Without connected, loops still only adds openings. */
            tree = maze("maze", seeds[i], s.w, s.h);
            loop = maze("maze loops", seeds[i], s.w, s.h);
            assert_true(floor_subset(tree, loop));
            cg_grid_free(tree);
            cg_grid_free(loop);
        }
}

static void loops_at_zero_percent_equal_no_loops(void **state)
{
    (void)state;
    const char *pairs[][2] = {
        {"maze loops=0%", "maze"},
        {"maze loops=0", "maze"},
        {"maze connected loops=0%", "maze connected"},
        {"maze connected loops=0.0000000% no-isolated", "maze connected no-isolated"},
        {"maze loops=100%", "maze loops"},
        {"maze connected no-isolated loops=100", "maze connected loops no-isolated"},
    };
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++)
            for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
                cg_grid *a = maze(pairs[p][0], seeds[i], sizes[k].w, sizes[k].h);
                cg_grid *b = maze(pairs[p][1], seeds[i], sizes[k].w, sizes[k].h);
                if (!tu_grids_equal(a, b)) {
                    print_error("'%s' and '%s' differ at seed %llu, %ux%u\n", pairs[p][0],
                                pairs[p][1], (unsigned long long)seeds[i], sizes[k].w, sizes[k].h);
                    fail();
                }
                cg_grid_free(a);
                cg_grid_free(b);
            }
}

/* Each stuck mole's loop is decided by a draw of its own room, so raising P
 * only ever adds openings, and P = 50 % opens about half of P = 100 %'s. */
static void a_higher_loop_probability_only_adds_openings(void **state)
{
    (void)state;
    const char *texts[] = {"maze connected", "maze connected loops=10%", "maze connected loops=50%",
                           "maze connected loops=99.5%", "maze connected loops"};
    size2 s = {101, 51};
    for (size_t i = 0; i < N_SEEDS; i++) {
        cg_grid *g[5];
        maze_info m[5];
        for (size_t k = 0; k < 5; k++) {
            g[k] = maze(texts[k], seeds[i], s.w, s.h);
            m[k] = analyse(g[k], texts[k]);
            assert_int_equal(m[k].components, 1);
            if (k)
                assert_true(floor_subset(g[k - 1], g[k]));
        }
        uint64_t full = m[4].cycles, half = m[2].cycles;
        if (!(full > 20 && half > full / 4 && half < full * 3 / 4)) {
            report(texts[2], seeds[i], s, &m[2]);
            report(texts[4], seeds[i], s, &m[4]);
            fail();
        }
        for (size_t k = 0; k < 5; k++)
            cg_grid_free(g[k]);
    }
}

/* -------------------------------------------------------- no-isolated */

static void no_isolated_ties_every_pillar_without_disconnecting(void **state)
{
    (void)state;
    const char *pairs[][2] = {
        {"maze connected loops", "maze connected loops no-isolated"},
        {"maze loops", "maze loops no-isolated"},
        {"maze", "maze no-isolated"},
        {"maze connected loops=40%", "maze connected loops=40% no-isolated"},
    };
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++)
            for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
                size2 s = sizes[k];
                cg_grid *before = maze(pairs[p][0], seeds[i], s.w, s.h);
                cg_grid *after = maze(pairs[p][1], seeds[i], s.w, s.h);
                maze_info a = analyse(before, pairs[p][0]);
                maze_info b = analyse(after, pairs[p][1]);
                /* It only closes openings, one per isolated pillar at most (a
                 * closed cell can tie two pillars), each one an opening next
                 * to a pillar that was isolated; and it never changes the
                 * components: the proof is in src/place/maze.c. */
                assert_true(floor_subset(after, before));
                uint64_t closed = a.openings - b.openings;
                if (b.isolated || b.components != a.components || closed > a.isolated ||
                    2 * closed < a.isolated) {
                    report(pairs[p][0], seeds[i], s, &a);
                    report(pairs[p][1], seeds[i], s, &b);
                    fail();
                }
                for (uint32_t y = 1; y + 1 < s.h; y++)
                    for (uint32_t x = 1; x + 1 < s.w; x++) {
                        if (cg_grid_get(before, x, y) == cg_grid_get(after, x, y))
                            continue;
                        /* (x, y) was closed: a pillar beside it was isolated. */
                        int found = 0;
                        for (int d = -1; d <= 1; d += 2) {
                            uint32_t px = x % 2 ? x + (uint32_t)d : x;
                            uint32_t py = x % 2 ? y : y + (uint32_t)d;
                            found |= cg_grid_get(before, px - 1, py) == CG_FLOOR &&
                                     cg_grid_get(before, px + 1, py) == CG_FLOOR &&
                                     cg_grid_get(before, px, py - 1) == CG_FLOOR &&
                                     cg_grid_get(before, px, py + 1) == CG_FLOOR;
                        }
                        assert_true(found);
                    }
                cg_grid_free(before);
                cg_grid_free(after);
            }
}

/* Two lone pillars side by side share an opening. 7x5 (or 5x7) with all
 * seven openings dug has exactly that. The first pillar (in scan order) is
 * beside the ring on three sides and is tied to it by one of those three,
 * never by the shared opening, which leads to the other lone pillar; the
 * second is then beside the border's wall on all four sides (the first is
 * part of it now), so it closes any one of its four. Either way two
 * openings close and the maze stays connected. The seeds that dig all seven
 * are found by search. */
static void two_lone_pillars_side_by_side_close_only_what_they_need(void **state)
{
    (void)state;
    for (int vertical = 0; vertical <= 1; vertical++) {
        uint32_t w = vertical ? 5 : 7, h = vertical ? 7 : 5;
        uint32_t sx = vertical ? 2 : 3, sy = vertical ? 3 : 2; /* the shared opening */
        int shared = 0, separate = 0;
        for (uint64_t seed = 0; seed < 400; seed++) {
            cg_grid *a = maze("maze connected loops", seed, w, h);
            maze_info ma = analyse(a, "maze connected loops");
            cg_grid_free(a);
            if (ma.openings != 7)
                continue;
            assert_int_equal(ma.isolated, 2);
            cg_grid *b = maze("maze connected loops no-isolated", seed, w, h);
            maze_info mb = analyse(b, "maze connected loops no-isolated");
            assert_int_equal(mb.components, 1);
            assert_int_equal(mb.isolated, 0);
            assert_int_equal(mb.openings, 5);
            /* The first pillar's openings other than the shared one. */
            uint32_t px = 2, py = 2;
            int own = (cg_grid_get(b, px, py - 1) == CG_WALL) +
                      (cg_grid_get(b, px - 1, py) == CG_WALL) +
                      (vertical ? cg_grid_get(b, px + 1, py) == CG_WALL
                                : cg_grid_get(b, px, py + 1) == CG_WALL);
            assert_int_equal(own, 1);
            if (cg_grid_get(b, sx, sy) == CG_WALL)
                shared++;
            else
                separate++;
            cg_grid_free(b);
        }
        assert_true(shared > 0 && separate > 0);
    }
}

/* Wall pieces: pillars joined by closed openings (4- and 8-connected wall
 * are the same here: every wall cell but a pillar touches a pillar). Marks
 * in `border` (w * h bytes) every wall cell joined to the ring, and returns
 * the number of pieces that are not. */
static uint64_t wall_pieces(const cg_grid *g, uint8_t *border)
{
    uint32_t w = cg_grid_width(g), h = cg_grid_height(g);
    uint8_t *c = tu_cells_from_grid(g);
    uint32_t *stack = malloc((size_t)w * h * sizeof *stack);
    assert_non_null(stack);
    memset(border, 0, (size_t)w * h);
    uint64_t floating = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                size_t at = (size_t)y * w + x;
                int ring = x == 0 || y == 0 || x + 1 == w || y + 1 == h;
                /* Pass 0 floods from the ring (mark 1), pass 1 the rest (2). */
                if (!c[at] || border[at] || (pass == 0 && !ring))
                    continue;
                floating += (uint64_t)pass;
                size_t n = 0;
                stack[n++] = (uint32_t)at;
                border[at] = (uint8_t)(pass + 1);
                while (n) {
                    uint32_t q = stack[--n], qx = q % w, qy = q / w;
                    const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
                    for (int d = 0; d < 4; d++) {
                        int64_t nx = (int64_t)qx + dx[d], ny = (int64_t)qy + dy[d];
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                            continue;
                        size_t nat = (size_t)ny * w + (size_t)nx;
                        if (c[nat] && !border[nat]) {
                            border[nat] = (uint8_t)(pass + 1);
                            stack[n++] = (uint32_t)nat;
                        }
                    }
                }
            }
    for (size_t i = 0; i < (size_t)w * h; i++)
        border[i] = border[i] == 1;
    free(stack);
    free(c);
    return floating;
}

/* What no-isolated can and cannot do about floating wall. Every
 * independent cycle of the floor encloses one wall piece that does not
 * reach the ring (Euler's formula: pieces not joined to the ring = cycles),
 * so with loops some must float. The ties decide where lone pillars go:
 * each one beside the border's wall - directly or through other lone
 * pillars tied before it - joins the border's wall. So after the step, no
 * pillar that stood alone and still floats has a neighbour pillar in the
 * border's wall. */
static void no_isolated_ties_lone_pillars_to_the_border_wall(void **state)
{
    (void)state;
    const char *pairs[][2] = {
        {"maze connected loops", "maze connected loops no-isolated"},
        {"maze loops", "maze loops no-isolated"},
        {"maze connected loops=40%", "maze connected loops=40% no-isolated"},
    };
    uint64_t lone = 0, joined = 0;
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++)
            for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
                size2 s = sizes[k];
                cg_grid *before = maze(pairs[p][0], seeds[i], s.w, s.h);
                cg_grid *after = maze(pairs[p][1], seeds[i], s.w, s.h);
                maze_info b = analyse(after, pairs[p][1]);
                uint8_t *border = malloc((size_t)s.w * s.h);
                assert_non_null(border);
                uint64_t floating = wall_pieces(after, border);
                if (floating != b.cycles) {
                    report(pairs[p][1], seeds[i], s, &b);
                    print_error("floating wall pieces: %llu\n", (unsigned long long)floating);
                    fail();
                }
#define B(x, y) border[(size_t)(y)*s.w + (x)]
                for (uint32_t y = 2; y + 2 < s.h; y += 2)
                    for (uint32_t x = 2; x + 2 < s.w; x += 2) {
                        int was_lone = cg_grid_get(before, x - 1, y) == CG_FLOOR &&
                                       cg_grid_get(before, x + 1, y) == CG_FLOOR &&
                                       cg_grid_get(before, x, y - 1) == CG_FLOOR &&
                                       cg_grid_get(before, x, y + 1) == CG_FLOOR;
                        if (!was_lone)
                            continue;
                        lone++;
                        joined += B(x, y);
                        if (!B(x, y) && (B(x - 2, y) || B(x + 2, y) || B(x, y - 2) || B(x, y + 2))) {
                            print_error("%s, seed %llu, %ux%u: pillar (%u,%u) floats beside the "
                                        "border's wall\n",
                                        pairs[p][1], (unsigned long long)seeds[i], s.w, s.h, x, y);
                            fail();
                        }
                    }
#undef B
                free(border);
                cg_grid_free(before);
                cg_grid_free(after);
            }
    /* Not vacuous: lone pillars were found, and some joined the border. */
    assert_true(lone > 100 && joined > 0 && joined < lone);
}

/* A tree has no 4-cycle, so no pillar of a perfect maze stands alone. */
static void no_isolated_leaves_a_perfect_maze_unchanged(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            cg_grid *a = maze("maze connected", seeds[i], sizes[k].w, sizes[k].h);
            cg_grid *b = maze("maze connected no-isolated", seeds[i], sizes[k].w, sizes[k].h);
            assert_true(tu_grids_equal(a, b));
            cg_grid_free(a);
            cg_grid_free(b);
        }
}

/* -------------------------------------------------------- maze preset */

static void maze_preset_is_connected_with_cycles_and_no_lone_pillar(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SIZES; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            size2 s = sizes[k];
            cg_grid *g = preset("maze", seeds[i], s.w, s.h);
            maze_info m = analyse(g, "maze");
            /* no-isolated spends one cycle per lone pillar it ties, and
             * small mazes can lose all of theirs (docs/maze.md: 23 % of 7x7
             * mazes, none of 1500 seeds with 100 rooms or more). */
            int big = m.rooms >= 100;
            if (m.components != 1 || m.isolated || (big && m.cycles < 1)) {
                report("maze preset", seeds[i], s, &m);
                fail();
            }
            cg_grid_free(g);
        }
    /* Small mazes: most seeds still have a cycle. */
    const size2 small[] = {{7, 7}, {9, 9}, {7, 11}, {11, 11}};
    for (size_t k = 0; k < 4; k++) {
        size_t with_cycles = 0;
        for (size_t i = 0; i < N_SEEDS; i++) {
            cg_grid *g = preset("maze", seeds[i], small[k].w, small[k].h);
            maze_info m = analyse(g, "maze");
            assert_true(m.components == 1 && m.isolated == 0);
            with_cycles += m.cycles > 0;
            cg_grid_free(g);
        }
        if (2 * with_cycles <= N_SEEDS) {
            print_error("maze preset %ux%u: only %zu of %zu seeds have a cycle\n", small[k].w,
                        small[k].h, with_cycles, (size_t)N_SEEDS);
            fail();
        }
    }
}

static void maze_presets_have_a_default_odd_size(void **state)
{
    (void)state;
    const char *names[] = {"maze", "maze-perfect"};
    for (size_t k = 0; k < 2; k++) {
        cg_grid *g = preset(names[k], 1, 0, 0);
        assert_int_equal(cg_grid_width(g), 79);
        assert_int_equal(cg_grid_height(g), 49);
        analyse(g, names[k]);
        cg_grid_free(g);
    }
}

/* ------------------------------------------------------ reproducibility */

static void the_same_seed_gives_the_same_maze(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SEEDS; i++) {
        cg_grid *a = preset("maze", seeds[i], 101, 51);
        cg_grid *b = preset("maze", seeds[i], 101, 51);
        cg_grid *c = preset("maze", seeds[i] + 1, 101, 51);
        assert_true(tu_grids_equal(a, b));
        assert_false(tu_grids_equal(a, c));
        cg_grid_free(a);
        cg_grid_free(b);
        cg_grid_free(c);
    }
}

/* The maze replaces every cell: what came before (another step, an input
 * map) does not change it, and other kinds of steps do not shift its key. */
static void a_maze_ignores_the_cells_before_it(void **state)
{
    (void)state;
    uint64_t rng = 77;
    uint8_t *cells = tu_alloc_cells(41, 23);
    tu_random_cells(cells, 41, 23, 0.5, &rng);
    cg_grid *in = tu_grid_from_cells(cells, 41, 23);
    for (size_t i = 0; i < N_SEEDS; i++) {
        cg_grid *a = maze("maze connected loops", seeds[i], 41, 23);
        cg_grid *b = maze("fill 45\nsmooth 2\nmaze connected loops", seeds[i], 41, 23);
        cg_grid *c = tu_run("maze connected loops", seeds[i], 0, 0, in);
        assert_true(tu_grids_equal(a, b));
        assert_true(tu_grids_equal(a, c));
        cg_grid_free(a);
        cg_grid_free(b);
        cg_grid_free(c);
    }
    cg_grid_free(in);
    free(cells);
}

/* A second maze step draws its own maze (its ordinal is 1). */
static void each_maze_step_draws_its_own_maze(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SEEDS; i++) {
        cg_grid *one = maze("maze connected", seeds[i], 61, 31);
        cg_grid *two = maze("maze connected\nmaze connected", seeds[i], 61, 31);
        assert_false(tu_grids_equal(one, two));
        maze_info m = analyse(two, "second maze");
        assert_int_equal(m.components, 1);
        assert_int_equal(m.openings, m.rooms - 1);
        cg_grid_free(one);
        cg_grid_free(two);
    }
}

/* Pinned: a change to the algorithm or its keys shows here (and in every
 * maze a user has saved a seed of). */
static void a_small_maze_is_pinned(void **state)
{
    (void)state;
    /* clang-format off */
    const char *want[] = {
        "#####################",
        "#.#...#.......#.....#",
        "#.#.#.#.###.#.#.#.#.#",
        "#.#.#...#...#...#.#.#",
        "#.#.#####.#####.#.#.#",
        "#.........#.....#.#.#",
        "#.#######.#.#.###.#.#",
        "#...#.....#.#.....#.#",
        "###.#.#.###.#######.#",
        "#.....#.............#",
        "#####################",
    };
    /* clang-format on */
    cg_grid *g = maze("maze connected loops no-isolated", 1, 21, 11);
    tu_assert_grid_equals_rows(g, want, 11, "maze seed 1 21x11");
    cg_grid_free(g);
}

/* ----------------------------------------------------------- bad input */

static void assert_size_error(uint32_t w, uint32_t h, const char *want)
{
    cg_pipeline *p = tu_pipeline("maze connected");
    cg_grid *g = NULL;
    cg_diag diag = {0};
    assert_int_equal(tu_run_pipeline(p, 1, w, h, NULL, &g, &diag), CG_EINVAL);
    assert_null(g);
    if (strcmp(diag.message, want) != 0) {
        print_error("%ux%u: got \"%s\"\n      want \"%s\"\n", w, h, diag.message, want);
        fail();
    }
    cg_pipeline_free(p);
}

static void an_even_or_too_small_size_is_an_error_that_names_good_sizes(void **state)
{
    (void)state;
    assert_size_error(80, 50,
                      "a maze needs odd sizes of at least 3: 80x50 is even; "
                      "use 79x49 or 81x51");
    assert_size_error(81, 50,
                      "a maze needs odd sizes of at least 3: 81x50 is even; "
                      "use 81x49 or 81x51");
    assert_size_error(2, 7, "a maze needs odd sizes of at least 3: 2x7 is even; use 3x7");
    assert_size_error(1, 5, "a maze needs odd sizes of at least 3: 1x5 is too small; use 3x5");
    assert_size_error(1, 1, "a maze needs odd sizes of at least 3: 1x1 is too small; use 3x3");
    assert_size_error(4, 1,
                      "a maze needs odd sizes of at least 3: 4x1 is even; "
                      "use 3x3 or 5x3");
    assert_size_error(CG_MAX_DIM, 3,
                      "a maze needs odd sizes of at least 3: 1048576x3 is even; "
                      "use 1048575x3");
}

static void malformed_maze_options_are_rejected_with_their_column(void **state)
{
    (void)state;
    tu_expect_parse_error("maze loops loops=30%", 12, "loops given twice");
    tu_expect_parse_error("maze loops=30% loops", 6, "loops given twice");
    tu_expect_parse_error("maze loops=130%", 12, "loops must be a percentage");
    tu_expect_parse_error("maze loops=", 12, "loops must be a percentage");
    tu_expect_parse_error("maze loops=-5", 12, "loops must be a percentage");
    tu_expect_parse_error("maze connected connected", 16, "connected given twice");
    tu_expect_parse_error("maze 5", 6, "unexpected '5'");
    tu_expect_parse_error("maze no_isolated", 6, "unexpected 'no_isolated'");
    tu_expect_parse_error("maze walls=3", 6, "no option 'walls'");
}

/* ------------------------------------------------- markers, composition */

/* Markers from before the maze stay on its floor; those on walls go. */
static void markers_survive_only_on_the_mazes_floor(void **state)
{
    (void)state;
    cg_grid *in = NULL;
    assert_int_equal(cg_grid_new(&in, 21, 11), CG_OK);
    for (uint32_t y = 1; y < 10; y++)
        for (uint32_t x = 1; x < 20; x++)
            cg_grid_set(in, x, y, CG_FLOOR);
    assert_int_equal(cg_grid_set_marker(in, 1, 1, CG_MARK_ENTRANCE), CG_OK); /* a room */
    assert_int_equal(cg_grid_set_marker(in, 19, 9, CG_MARK_EXIT), CG_OK);    /* a room */
    assert_int_equal(cg_grid_set_marker(in, 2, 2, CG_MARK_POI), CG_OK);      /* a pillar */
    assert_int_equal(cg_grid_set_marker(in, 10, 5, CG_MARK_BLOCKED), CG_OK); /* a pillar */
    cg_grid *g = tu_run("reach from=1,1\nmaze connected", 3, 0, 0, in);
    /* The reach computed on the old cells does not survive the maze. */
    assert_int_equal(cg_grid_reached_count(g), 0);
    assert_int_equal(cg_grid_distance(g, 1, 1), CG_UNREACHED);
    assert_int_equal(cg_grid_marker(g, 1, 1), CG_MARK_ENTRANCE);
    assert_int_equal(cg_grid_marker(g, 19, 9), CG_MARK_EXIT);
    assert_int_equal(cg_grid_marker(g, 2, 2), CG_MARK_NONE);
    assert_int_equal(cg_grid_marker(g, 10, 5), CG_MARK_NONE);
    cg_grid_free(g);
    cg_grid_free(in);
}

/* The maze is an ordinary map for the steps after it. */
static void steps_after_a_maze_work_on_it(void **state)
{
    (void)state;
    cg_grid *g = maze("maze connected\nsmooth 1 walls=5\nrule 1 floor=3..9", 4, 41, 21);
    assert_int_equal(cg_grid_width(g), 41);
    assert_int_equal(cg_grid_height(g), 21);
    cg_grid_free(g);
    /* A maze's corridors are one cell wide: smoothing with walls=9 (a wall
     * only where all 8 neighbours are walls) leaves its floor floor. */
    cg_grid *a = maze("maze connected", 4, 41, 21);
    cg_grid *b = maze("maze connected\nsmooth 1 walls=9", 4, 41, 21);
    assert_true(floor_subset(a, b));
    cg_grid_free(a);
    cg_grid_free(b);
}

/* Placement (docs/placement.md) and --stats work on a maze like on a cave: the
 * entrance, exit and points sit on the maze's floor, all in its one region;
 * a perfect maze has 2 * rooms - 1 floor cells, and its dead ends are the
 * rooms with one opening. */
static void placement_and_stats_work_on_a_maze(void **state)
{
    (void)state;
    const size2 sz[] = {{41, 21}, {79, 49}, {101, 51}};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < N_SEEDS; i++) {
            size2 s = sz[k];
            cg_grid *g =
                maze("maze connected\nentrance\nexit\npoi count=4 spacing=6", seeds[i], s.w, s.h);
            maze_info m = analyse(g, "maze with markers");
            assert_int_equal(m.components, 1);
            assert_int_equal(m.openings, m.rooms - 1);
            int n[5] = {0};
            uint64_t leaves = 0;
            for (uint32_t y = 0; y < s.h; y++)
                for (uint32_t x = 0; x < s.w; x++) {
                    cg_marker mk = cg_grid_marker(g, x, y);
                    if (mk != CG_MARK_NONE)
                        assert_int_equal(cg_grid_get(g, x, y), CG_FLOOR);
                    n[mk]++;
                    if (x % 2 == 0 || y % 2 == 0)
                        continue;
                    int degree = (cg_grid_get(g, x - 1, y) == CG_FLOOR) +
                                 (cg_grid_get(g, x + 1, y) == CG_FLOOR) +
                                 (cg_grid_get(g, x, y - 1) == CG_FLOOR) +
                                 (cg_grid_get(g, x, y + 1) == CG_FLOOR);
                    leaves += degree == 1;
                }
            assert_int_equal(n[CG_MARK_ENTRANCE], 1);
            assert_int_equal(n[CG_MARK_EXIT], 1);
            assert_int_equal(n[CG_MARK_POI], 4);
            cg_stats st;
            assert_int_equal(cg_grid_stats(g, NULL, &st, NULL), CG_OK);
            assert_int_equal(st.floor, 2 * m.rooms - 1);
            assert_int_equal(st.regions, 1);
            assert_int_equal(st.largest_region, st.floor);
            assert_int_equal(st.dead_ends, leaves);
            assert_int_equal(st.points, 4);
            assert_true(st.path_length > 0);
            cg_grid_free(g);
        }
    /* The full maze preset too. */
    cg_grid *g = tu_run("size 79x49\nmaze connected loops no-isolated\nentrance\nexit\n"
                        "poi count=6 spacing=8",
                        9, 0, 0, NULL);
    cg_stats st;
    assert_int_equal(cg_grid_stats(g, NULL, &st, NULL), CG_OK);
    assert_int_equal(st.regions, 1);
    assert_int_equal(st.points, 6);
    assert_true(st.path_length > 0);
    cg_grid_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_3x3_maze_is_one_room),
        cmocka_unit_test(a_one_room_wide_strip_is_one_straight_corridor),
        cmocka_unit_test(a_5x5_maze_follows_the_mole_by_hand),
        cmocka_unit_test(maze_perfect_is_a_spanning_tree_of_the_rooms),
        cmocka_unit_test(maze_perfect_is_a_spanning_tree_at_every_small_size),
        cmocka_unit_test(large_mazes_keep_their_properties),
        cmocka_unit_test(a_plain_maze_is_a_forest_of_several_trees),
        cmocka_unit_test(connected_joins_each_mole_to_the_ones_before),
        cmocka_unit_test(loops_add_openings_and_make_cycles),
        cmocka_unit_test(loops_at_zero_percent_equal_no_loops),
        cmocka_unit_test(a_higher_loop_probability_only_adds_openings),
        cmocka_unit_test(no_isolated_ties_every_pillar_without_disconnecting),
        cmocka_unit_test(two_lone_pillars_side_by_side_close_only_what_they_need),
        cmocka_unit_test(no_isolated_ties_lone_pillars_to_the_border_wall),
        cmocka_unit_test(no_isolated_leaves_a_perfect_maze_unchanged),
        cmocka_unit_test(maze_preset_is_connected_with_cycles_and_no_lone_pillar),
        cmocka_unit_test(maze_presets_have_a_default_odd_size),
        cmocka_unit_test(the_same_seed_gives_the_same_maze),
        cmocka_unit_test(a_maze_ignores_the_cells_before_it),
        cmocka_unit_test(each_maze_step_draws_its_own_maze),
        cmocka_unit_test(a_small_maze_is_pinned),
        cmocka_unit_test(an_even_or_too_small_size_is_an_error_that_names_good_sizes),
        cmocka_unit_test(malformed_maze_options_are_rejected_with_their_column),
        cmocka_unit_test(markers_survive_only_on_the_mazes_floor),
        cmocka_unit_test(steps_after_a_maze_work_on_it),
        cmocka_unit_test(placement_and_stats_work_on_a_maze),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
