/* place/maze.c - the `maze` step: the "mole" maze generator of Labyrinth
 * Generator v1.0 (docs/algorithms.md).
 *
 * The seed (Labyrinth Generator v1.0, "Cyrus the great"): start from all
 * walls with no cell initialised; find an uninitialised cell; drop a virtual
 * mole there that digs at random, each step towards an uninitialised
 * neighbour, marking every cell it passes; when it is stuck (no
 * uninitialised neighbour left), look for the next uninitialised cell; when
 * there is none, the maze is done. Three fixes, each an option of its menu:
 *
 * - connected ("Labyrinth always possible"): just before a mole starts, break
 *   a wall towards an already initialised cell.
 * - loops ("Different itineraries"): where a mole gets stuck, break a wall
 *   towards an initialised cell (here with a probability P, default 100 %).
 * - no-isolated ("Forbid isolated squares"): find the isolated blocks and tie
 *   each to the rest of the maze with a wall.
 *
 * Layout: the article's "cases" are rooms at odd (x, y); the cells between two
 * rooms are their walls; cells at even (x, y) are pillars, never dug. A room
 * is initialised iff its cell is floor, so the bitboard itself is the article's
 * second table: no other per-room state, no allocation. The mole is not a
 * backtracker: it never returns, so it needs no stack; the scan for the next
 * uninitialised room only moves forward, so the whole run is O(rooms).
 *
 * Randomness (docs/randomness.md, docs/maze.md): four sub-keys of the step key. The
 * mole's direction choices come from one splitmix64 stream (the decisions are
 * sequential); the `connected`, `loops` and `no-isolated` choices are hashes
 * of the room or pillar they concern. So the moles dig the same tunnels
 * whatever the options - the options only open or close extra walls - and
 * raising the loop probability only ever adds openings. */
#include <string.h>

#include "core/diag.h"
#include "core/grid.h"
#include "core/mem.h"
#include "core/rng.h"
#include "engine/steps.h"

/* Bits of cg__args.flags: the order of the flags list in the step table
 * (src/engine/steps.c). */
/* The step's bare words (bits of cg__args.flags) and its one key. */
enum { FLAG_CONNECTED, FLAG_LOOPS, FLAG_NO_ISOLATED };
enum { KEY_LOOPS };
#define HAS(a, flag) (((a)->flags >> (flag)) & 1u)

/* Sub-keys of the step key, one per kind of decision. */
enum { SUB_DIG = 1, SUB_CONNECT = 2, SUB_LOOPS = 3, SUB_ISOLATED = 4 };

/* Neighbour rooms two cells away, in this order (north, west, east, south). */
static const int DX[4] = {0, -2, 2, 0};
static const int DY[4] = {-2, 0, 0, 2};

static uint64_t sub_key(uint64_t key, uint64_t sub)
{
    return cg__mix64(key ^ sub);
}

static inline int is_wall(const cg_grid *g, uint32_t x, uint32_t y)
{
    return (int)((cg__row(g, y)[x >> 6] >> (x & 63)) & 1);
}

static inline void set_floor(cg_grid *g, uint32_t x, uint32_t y)
{
    cg__row(g, y)[x >> 6] &= ~(UINT64_C(1) << (x & 63));
}

static inline void set_wall(cg_grid *g, uint32_t x, uint32_t y)
{
    cg__row(g, y)[x >> 6] |= UINT64_C(1) << (x & 63);
}

static inline unsigned bit_at(const uint64_t *row, uint32_t x)
{
    return (unsigned)(row[x >> 6] >> (x & 63)) & 1u;
}

/* Bit d set when room (x, y) has a neighbour room in direction d. Rooms lie
 * at x in 1..w-2, y in 1..h-2 (w, h odd). */
static inline unsigned has_rooms(const cg_grid *g, uint32_t x, uint32_t y)
{
    return (unsigned)(y >= 3) | (unsigned)(x >= 3) << 1 | (unsigned)(x + 3 < g->w) << 2 |
           (unsigned)(y + 3 < g->h) << 3;
}

/* Bit d set when the cell at distance k (1: the wall between, 2: the
 * neighbour room) in direction d is wall. Branch-free; every read stays in
 * the padding (CG__PAD = 2 rows, a frame word each side, x - k read only
 * when x >= k), and the caller masks with has_rooms(). */
static inline unsigned walls_at(const cg_grid *g, uint32_t x, uint32_t y, uint32_t k)
{
    const uint64_t *r = cg__row(g, y);
    return bit_at(cg__row(g, (int64_t)y - k), x) | bit_at(r, x >= k ? x - k : x) << 1 |
           bit_at(r, x + k) << 2 | bit_at(cg__row(g, (int64_t)y + k), x) << 3;
}

/* NTH[m][i]: the direction of the i-th set bit of the 4-bit mask m; COUNT[m]:
 * its set bits. The mole's choice without a branch per direction. */
static const uint8_t NTH[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
    {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3},
};
static const uint8_t COUNT[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* Opens the wall between room (x, y) and its neighbour in direction d. */
static inline void open_wall(cg_grid *g, uint32_t x, uint32_t y, unsigned d)
{
    set_floor(g, (uint32_t)((int64_t)x + DX[d] / 2), (uint32_t)((int64_t)y + DY[d] / 2));
}

/* One direction of the mask m (nonzero), from a cell's own small stream. */
static unsigned pick(uint64_t hash, unsigned m)
{
    cg__rng r = {hash};
    return COUNT[m] == 1 ? NTH[m][0] : NTH[m][cg__rng_below(&r, COUNT[m])];
}

/* The article's algorithm on an all-wall grid of odd size >= 3. */
static void dig_moles(cg_grid *g, uint64_t key, int connected, uint32_t loops_ppb)
{
    cg__rng mole = {sub_key(key, SUB_DIG)};
    const uint64_t kconnect = sub_key(key, SUB_CONNECT), kloops = sub_key(key, SUB_LOOPS);
    /* A stuck mole opens a loop iff a 32-bit draw is below P * 2^32 (exact
     * integer arithmetic, as for `fill`): never at 0 %, always at 100 %. */
    const uint64_t loop_below = ((uint64_t)loops_ppb << 32) / 1000000000u;

    /* Step 3 of the seed: the first uninitialised room in scan order. Every
     * room before the cursor is initialised, so the scan never goes back. */
    for (uint32_t sy = 1; sy + 1 < g->h; sy += 2) {
        for (uint32_t sx = 1; sx + 1 < g->w; sx += 2) {
            if (!is_wall(g, sx, sy))
                continue;
            if (connected) {
                /* "juste avant de la lancer, on detruit un mur vers une case
                 * deja initialisee". The rooms above and to the left precede
                 * this one in scan order, so they are initialised: every mole
                 * but the very first finds one, and its tunnels join the
                 * component of the moles before it - one component in all. */
                unsigned m = has_rooms(g, sx, sy) & ~walls_at(g, sx, sy, 2);
                if (m)
                    open_wall(g, sx, sy, pick(cg__cell_hash(kconnect, sx, sy), m));
            }
            set_floor(g, sx, sy);
            /* Step 4: dig towards random uninitialised neighbours until stuck.
             * A draw is made only where there is a choice (two or more). */
            uint32_t x = sx, y = sy;
            for (;;) {
                unsigned m = has_rooms(g, x, y) & walls_at(g, x, y, 2);
                if (!m)
                    break;
                unsigned d = COUNT[m] == 1 ? NTH[m][0] : NTH[m][cg__rng_below(&mole, COUNT[m])];
                open_wall(g, x, y, d);
                x = (uint32_t)((int64_t)x + DX[d]);
                y = (uint32_t)((int64_t)y + DY[d]);
                set_floor(g, x, y);
            }
            if (loop_below == 0)
                continue;
            /* "Sur la case ou la taupe se bloque, on detruit un mur vers une
             * case deja initialisee": every neighbour is initialised now; one
             * whose wall is still closed gets an opening, which closes a cycle
             * (or, without `connected`, may join two moles' trees). Each room
             * is where a mole stops at most once, so the hash of the room is a
             * fresh draw. */
            unsigned m = has_rooms(g, x, y) & walls_at(g, x, y, 1);
            if (!m)
                continue;
            cg__rng r = {cg__cell_hash(kloops, x, y)};
            if ((cg__rng_next(&r) >> 32) < loop_below)
                open_wall(g, x, y, pick(cg__rng_next(&r), m));
        }
    }
}

/* The article's "blocs isoles": a pillar (even x, even y, strictly inside the
 * border ring) whose four neighbours are floor stands alone. Each is tied to
 * a neighbouring pillar by closing the opening between them.
 *
 * Why this never disconnects anything. Every floor cell is a room or an
 * opening between two rooms, so connectivity is that of the room graph
 * (rooms = vertices, openings = edges). The four cells around a pillar at
 * (x, y) are the openings between the rooms at (x-1, y-1), (x+1, y-1),
 * (x+1, y+1), (x-1, y+1), taken in a ring: when all four are open they form a
 * cycle of four edges in the room graph. An edge on a cycle is never a
 * bridge: after closing it, its two rooms are still joined by the other three
 * edges of the cycle. So closing one opening of an isolated pillar leaves
 * the components of the room graph (and of the floor) exactly as they were,
 * and it only removes an opening, so it cannot make another pillar isolated.
 * Each pillar is re-checked against the current map when its turn comes, so
 * the argument holds at every step and the final map has the components of
 * the map before, with no isolated pillar left. (A maze without cycles -
 * `maze connected` - has no isolated pillar at all.)
 *
 * Which neighbour. Walls are pillars joined by closed openings; a wall piece
 * that does not reach the border ring floats in a floor cycle, and there are
 * exactly as many floating pieces as independent cycles of the floor (Euler's
 * formula on the planar floor graph), so no choice of ties can remove a
 * floating piece without removing a cycle (docs/maze.md). What the choice
 * decides is whether a lone pillar joins the border's wall or makes a
 * floating piece bigger. So a lone pillar beside the border's wall is tied to
 * it: the border's wall is flooded first (`border`, a byte per pillar), then
 * every lone pillar with a neighbour in it is tied to one of those, chosen at
 * random, in scan order and then outwards from each pillar tied (a tied
 * pillar is part of the border's wall, so its lone neighbours qualify too).
 * Only lone pillars that no chain of lone pillars links to the border's wall
 * are left; each is tied to a random neighbour, in scan order, as the
 * article does. */
typedef struct pillars {
    uint32_t pw, ph; /* pillars per row and column: pillar (i, j) is cell (2i, 2j) */
    uint8_t *border; /* per pillar: in the wall joined to the border ring */
    uint32_t *stack; /* pillars to look at; each is pushed at most once */
    size_t n;
} pillars;

/* A pillar strictly inside the ring with four floor neighbours. */
static inline int lone(const cg_grid *g, uint32_t x, uint32_t y)
{
    return x > 0 && y > 0 && x + 1 < g->w && y + 1 < g->h && is_wall(g, x, y) &&
           !is_wall(g, x - 1, y) && !is_wall(g, x + 1, y) && !is_wall(g, x, y - 1) &&
           !is_wall(g, x, y + 1);
}

/* Bit d set when the neighbour pillar of pillar index p in direction d
 * (north, west, east, south) is in the border's wall. */
static unsigned border_mask(const pillars *pl, uint32_t p)
{
    uint32_t i = p % pl->pw, j = p / pl->pw;
    return (unsigned)(j > 0 && pl->border[p - pl->pw]) | (unsigned)(i > 0 && pl->border[p - 1]) << 1 |
           (unsigned)(i + 1 < pl->pw && pl->border[p + 1]) << 2 |
           (unsigned)(j + 1 < pl->ph && pl->border[p + pl->pw]) << 3;
}

/* Floods the border's wall from the ring's pillars through closed openings. */
static void flood_border(const cg_grid *g, pillars *pl)
{
    for (uint32_t j = 0; j < pl->ph; j++)
        for (uint32_t i = 0; i < pl->pw; i++)
            if (i == 0 || j == 0 || i + 1 == pl->pw || j + 1 == pl->ph) {
                pl->border[j * pl->pw + i] = 1;
                pl->stack[pl->n++] = j * pl->pw + i;
            }
    while (pl->n) {
        uint32_t p = pl->stack[--pl->n], i = p % pl->pw, j = p / pl->pw;
        uint32_t x = 2 * i, y = 2 * j;
        const int ok[4] = {j > 0 && is_wall(g, x, y - 1), i > 0 && is_wall(g, x - 1, y),
                           i + 1 < pl->pw && is_wall(g, x + 1, y),
                           j + 1 < pl->ph && is_wall(g, x, y + 1)};
        const uint32_t q[4] = {p - pl->pw, p - 1, p + 1, p + pl->pw};
        for (int d = 0; d < 4; d++)
            if (ok[d] && !pl->border[q[d]]) {
                pl->border[q[d]] = 1;
                pl->stack[pl->n++] = q[d];
            }
    }
}

/* Ties lone pillar p to one of its neighbours in the border's wall (mask m,
 * nonzero), which puts it in the border's wall. */
static void tie_to_border(cg_grid *g, pillars *pl, uint64_t kiso, uint32_t p, unsigned m)
{
    static const int OX[4] = {0, -1, 1, 0}, OY[4] = {-1, 0, 0, 1};
    uint32_t x = 2 * (p % pl->pw), y = 2 * (p / pl->pw);
    unsigned d = pick(cg__cell_hash(kiso, x, y), m);
    set_wall(g, (uint32_t)((int64_t)x + OX[d]), (uint32_t)((int64_t)y + OY[d]));
    pl->border[p] = 1;
    pl->stack[pl->n++] = p;
}

static cg_status join_pillars(cg_grid *g, uint64_t key)
{
    static const int OX[4] = {0, -1, 1, 0}, OY[4] = {-1, 0, 0, 1};
    const uint64_t kiso = sub_key(key, SUB_ISOLATED);
    pillars pl = {(g->w + 1) / 2, (g->h + 1) / 2, NULL, NULL, 0};
    size_t np = (size_t)pl.pw * pl.ph;
    pl.border = cg__calloc(np, 1);
    pl.stack = cg__malloc(np * sizeof *pl.stack);
    if (!pl.border || !pl.stack) {
        cg__free(pl.border);
        cg__free(pl.stack);
        return CG_ENOMEM;
    }
    flood_border(g, &pl);
    /* Lone pillars beside the border's wall, in scan order, then outwards. */
    for (uint32_t y = 2; y + 2 < g->h; y += 2)
        for (uint32_t x = 2; x + 2 < g->w; x += 2) {
            uint32_t p = (y / 2) * pl.pw + x / 2;
            unsigned m;
            if (lone(g, x, y) && (m = border_mask(&pl, p)) != 0)
                tie_to_border(g, &pl, kiso, p, m);
        }
    while (pl.n) {
        uint32_t p = pl.stack[--pl.n], x = 2 * (p % pl.pw), y = 2 * (p / pl.pw);
        for (int d = 0; d < 4; d++) {
            uint32_t nx = (uint32_t)((int64_t)x + 2 * OX[d]), ny = (uint32_t)((int64_t)y + 2 * OY[d]);
            if (lone(g, nx, ny)) {
                uint32_t q = (ny / 2) * pl.pw + nx / 2;
                tie_to_border(g, &pl, kiso, q, border_mask(&pl, q));
            }
        }
    }
    cg__free(pl.border);
    cg__free(pl.stack);
    /* The rest, enclosed by floating wall: the article's tie, in scan order. */
    for (uint32_t y = 2; y + 2 < g->h; y += 2)
        for (uint32_t x = 2; x + 2 < g->w; x += 2)
            if (lone(g, x, y)) {
                int d = (int)cg__rng_below(&(cg__rng){cg__cell_hash(kiso, x, y)}, 4);
                set_wall(g, (uint32_t)((int64_t)x + OX[d]), (uint32_t)((int64_t)y + OY[d]));
            }
    return CG_OK;
}

/* The nearest valid maze side (odd, 3..CG_MAX_DIM) below or above n. */
static uint32_t odd_below(uint32_t n)
{
    n = (n & 1u) ? n : n - 1;
    return n < 3 ? 3 : n;
}

static uint32_t odd_above(uint32_t n)
{
    n = (n & 1u) ? n : n + 1;
    if (n < 3)
        n = 3;
    return n > CG_MAX_DIM ? odd_below(CG_MAX_DIM) : n;
}

static cg_status bad_size(const cg__step *step, const cg__run *run)
{
    const cg_grid *g = run->grid;
    uint32_t w0 = odd_below(g->w), h0 = odd_below(g->h);
    uint32_t w1 = odd_above(g->w), h1 = odd_above(g->h);
    const char *why = (g->w & 1u) && (g->h & 1u) ? "too small" : "even";
    if (w0 == w1 && h0 == h1)
        cg__diag(run->diag, step->line, step->column,
                 "a maze needs odd sizes of at least 3: %ux%u is %s; use %ux%u", g->w, g->h, why,
                 w0, h0);
    else
        cg__diag(run->diag, step->line, step->column,
                 "a maze needs odd sizes of at least 3: %ux%u is %s; use %ux%u or %ux%u", g->w,
                 g->h, why, w0, h0, w1, h1);
    return CG_EINVAL;
}

static cg_status parse_maze(cg__step *step, const cg__args *a, cg_diag *diag)
{
    step->u.maze.connected = HAS(a, FLAG_CONNECTED);
    step->u.maze.no_isolated = HAS(a, FLAG_NO_ISOLATED);
    step->u.maze.loops_ppb = 0;
    const cg__token *v = &a->values[KEY_LOOPS];
    if (v->s) {
        /* The tokeniser matches `loops` as a flag and `loops=P` as a key. */
        int key_column = v->column - (int)strlen("loops=");
        if (HAS(a, FLAG_LOOPS)) {
            cg__diag(diag, a->line, key_column, "maze: loops given twice");
            return CG_EPARSE;
        }
        return cg__parse_percent(v, a->line, "loops", &step->u.maze.loops_ppb, diag);
    }
    if (HAS(a, FLAG_LOOPS))
        step->u.maze.loops_ppb = 1000000000u;
    return CG_OK;
}

static cg_status run_maze(const cg__step *step, cg__run *run)
{
    cg_grid *g = run->grid;
    if (!(g->w & 1u) || !(g->h & 1u) || g->w < 3 || g->h < 3)
        return bad_size(step, run);
    uint64_t key = cg__step_rand_key(step, run->seed);
    /* The maze replaces every cell (the article's step 2: walls everywhere). */
    cg__grid_fill_walls(g);
    dig_moles(g, key, step->u.maze.connected, step->u.maze.loops_ppb);
    if (step->u.maze.no_isolated && join_pillars(g, key) != CG_OK) {
        cg__diag(run->diag, 0, 0, "out of memory for no-isolated on a %ux%u maze", g->w, g->h);
        return CG_ENOMEM;
    }
    /* Markers from before stay where their cell is floor in the maze; a
     * reach computed before describes other cells and goes. */
    cg__grid_prune_marks(g);
    cg_grid_clear_reach(g);
    return CG_OK;
}

/* `loops` is both a bare word and a key (`loops`, `loops=30%`). */
const cg__step_def cg__step_maze = {
    .name = "maze",
    .usage = "maze [connected] [loops[=PERCENT]] [no-isolated]",
    .keys = {[KEY_LOOPS] = "loops"},
    .flags = {[FLAG_CONNECTED] = "connected",
              [FLAG_LOOPS] = "loops",
              [FLAG_NO_ISOLATED] = "no-isolated"},
    .rand_kind = CG__RAND_MAZE,
    .parse = parse_maze,
    .run = run_maze,
};
