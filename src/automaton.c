/* automaton.c - the three cellular-automaton rules on the bitboard.
 *
 * Each output word holds 64 cells computed at once: the neighbours of a word
 * are the same row shifted by one or two bits (carrying bits over from the
 * adjacent words), and the neighbourhood counts are kept bit-sliced - plane j
 * holds bit j of the 64 counts - and added with full adders. Thresholds are
 * run-time parameters, compared bit-sliced too. Cells outside the map are
 * walls because the grid is padded with wall words and rows (grid.c).
 *
 * The plain per-cell oracle these kernels are tested against is
 * tests/oracle.c. */
#include "internal.h"

/* Cell x-k (k = 1, 2) brought to lane x; r points at word i of a row. */
static inline uint64_t west(const uint64_t *r, unsigned k)
{
    return (r[0] << k) | (r[-1] >> (64 - k));
}

/* Cell x+k (k = 1, 2) brought to lane x. */
static inline uint64_t east(const uint64_t *r, unsigned k)
{
    return (r[0] >> k) | (r[1] << (64 - k));
}

/* acc (n planes) += x (nx planes), ripple carry; acc must be wide enough. */
static inline void bs_add(uint64_t *acc, int n, const uint64_t *x, int nx)
{
    uint64_t carry = 0;
    for (int j = 0; j < n; j++) {
        uint64_t xj = j < nx ? x[j] : 0;
        uint64_t t = acc[j] ^ xj;
        uint64_t s = t ^ carry;
        carry = (acc[j] & xj) | (carry & t);
        acc[j] = s;
    }
}

/* Sum of three one-bit lanes as two planes. */
static inline void sum3(uint64_t out[2], uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t t = a ^ b;
    out[0] = t ^ c;
    out[1] = (a & b) | (t & c);
}

/* Lanes whose n-plane count is >= k. */
static inline uint64_t bs_ge(const uint64_t *p, int n, int k)
{
    if (k <= 0)
        return ~UINT64_C(0);
    if (k >= (1 << n))
        return 0;
    uint64_t gt = 0, eq = ~UINT64_C(0);
    for (int j = n - 1; j >= 0; j--) {
        if ((k >> j) & 1) {
            eq &= p[j];
        } else {
            gt |= eq & p[j];
            eq &= ~p[j];
        }
    }
    return gt | eq;
}

/* Walls in the 3x3 block around each lane, as 4 planes; the centre counts
 * iff self. a, b, c point at word i of rows y-1, y, y+1. */
static inline void count3x3(uint64_t v[4], const uint64_t *a, const uint64_t *b,
                            const uint64_t *c, int self)
{
    uint64_t ra[2], rb[2], rc[2];
    sum3(ra, west(a, 1), a[0], east(a, 1));
    sum3(rb, west(b, 1), self ? b[0] : 0, east(b, 1));
    sum3(rc, west(c, 1), c[0], east(c, 1));
    v[0] = ra[0];
    v[1] = ra[1];
    v[2] = v[3] = 0;
    bs_add(v, 4, rb, 2);
    bs_add(v, 4, rc, 2);
}

void cg__generation(const cg_grid *src, cg_grid *dst, int r1, int r2, int self)
{
    const uint32_t h = src->h;
    const size_t nw = src->nw;
    /* SPEC 3.1, seed 000: v1 over the 3x3 block, v2 over the 5x5 block
     * without corners, both with the centre unless self=no; wall iff
     * v1 >= r1 or v2 <= r2; the outer ring stays wall. */
    for (uint32_t y = 1; y + 1 < h; y++) {
        const uint64_t *t = cg__row(src, (int64_t)y - 2), *a = cg__row(src, (int64_t)y - 1);
        const uint64_t *b = cg__row(src, y), *c = cg__row(src, y + 1);
        const uint64_t *d = cg__row(src, y + 2);
        uint64_t *out = cg__row(dst, y);
        for (size_t i = 0; i < nw; i++) {
            uint64_t v1[4], v2[5], s[2];
            count3x3(v1, a + i, b + i, c + i, self);
            uint64_t wall = bs_ge(v1, 4, r1);
            if (r2 >= 0) {
                v2[0] = v1[0];
                v2[1] = v1[1];
                v2[2] = v1[2];
                v2[3] = v1[3];
                v2[4] = 0;
                sum3(s, west(t + i, 1), t[i], east(t + i, 1));
                bs_add(v2, 5, s, 2);
                sum3(s, west(d + i, 1), d[i], east(d + i, 1));
                bs_add(v2, 5, s, 2);
                sum3(s, west(a + i, 2), west(b + i, 2), west(c + i, 2));
                bs_add(v2, 5, s, 2);
                sum3(s, east(a + i, 2), east(b + i, 2), east(c + i, 2));
                bs_add(v2, 5, s, 2);
                wall |= ~bs_ge(v2, 5, r2 + 1);
            }
            out[i] = wall;
        }
    }
    cg__grid_wall_ring(dst);
}

void cg__smooth(const cg_grid *src, cg_grid *dst, int walls)
{
    /* Seed 002: wall iff at least `walls` of the 8 neighbours are walls,
     * outside counting as wall; every cell, border included. */
    for (uint32_t y = 0; y < src->h; y++) {
        const uint64_t *a = cg__row(src, (int64_t)y - 1), *b = cg__row(src, y);
        const uint64_t *c = cg__row(src, (int64_t)y + 1);
        uint64_t *out = cg__row(dst, y);
        for (size_t i = 0; i < src->nw; i++) {
            uint64_t v[4];
            count3x3(v, a + i, b + i, c + i, 0);
            out[i] = bs_ge(v, 4, walls);
        }
    }
    cg__grid_fix_tail(dst);
}

void cg__rule(const cg_grid *src, cg_grid *dst, int lo, int hi)
{
    /* Seed 001: floor iff the floor cells of the 3x3 block (centre included)
     * number lo..hi. With w walls among the 9, floor = 9 - w, so floor iff
     * 9-hi <= w <= 9-lo. */
    for (uint32_t y = 0; y < src->h; y++) {
        const uint64_t *a = cg__row(src, (int64_t)y - 1), *b = cg__row(src, y);
        const uint64_t *c = cg__row(src, (int64_t)y + 1);
        uint64_t *out = cg__row(dst, y);
        for (size_t i = 0; i < src->nw; i++) {
            uint64_t v[4];
            count3x3(v, a + i, b + i, c + i, 1);
            uint64_t floor = bs_ge(v, 4, 9 - hi) & ~bs_ge(v, 4, 10 - lo);
            out[i] = ~floor;
        }
    }
    cg__grid_fix_tail(dst);
}
