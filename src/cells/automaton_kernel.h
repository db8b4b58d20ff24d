/* cells/automaton_kernel.h - the bit-sliced 3x3 / 5x5 counting kernel, as a
 * template: cells/automaton.c includes it once per code path, after defining
 *
 *   KV        the type of KL consecutive cell words (uint64_t, or a GCC
 *             vector of 8 of them),
 *   KL        words per KV,
 *   KLOAD(v, p) v = the KL words at p (any alignment),
 *   KSTORE(p, v) the reverse (v an lvalue), KSPLAT(u64) a broadcast,
 *   KFN(name) the name with this path's suffix,
 *   KATTR     this path's function attributes (a target ISA, or nothing),
 * and optionally KXOR3(a, b, c), KMAJ(a, b, c) (3-input XOR and majority:
 * one vpternlogq each on AVX-512) and KSHL(c, p, k), KSHR(c, e, k) (the
 * funnel shifts (c << k) | (p >> (64-k)) and (c >> k) | (e << (64-k)): one
 * vpshldq / vpshrdq each with AVX512-VBMI2); plain C operators otherwise.
 *
 * It is not a header in the usual sense: it has no include guard on purpose,
 * and nothing but cells/automaton.c includes it.
 *
 * The method (Knuth, TAOCP 7.1.3, "bitwise tricks"; the usual bit-sliced Life
 * counters): 64 cells per word, one lane per cell. For every row r of the
 * source, three horizontal sums are formed once, each as bit planes (plane j
 * = bit j of each lane's count):
 *   h = walls among x-1, x, x+1   (0..3)     n = walls among x-1, x+1 (0..2)
 *   q = walls among x-2, x+2      (0..2)
 * and kept in a ring of five rows. A row y of the result then adds the sums
 * of rows y-2..y+2 with carry-save adders (full adder: 3 bits in, sum and
 * carry out, no carry propagation), so each source row is shifted and summed
 * once, not once per neighbour:
 *   v1 = h[y-1] + (self ? h[y] : n[y]) + h[y+1]              (3x3 block)
 *   v2 = v1 + h[y-2] + h[y+2] + q[y-1] + q[y] + q[y+1]      (5x5 - corners)
 * Thresholds are run-time values: "v >= k" is the carry out of v + (2^n - k),
 * a chain of majority functions over the planes (one vpternlog per plane on
 * AVX-512), so no code is generated per rule.
 *
 * The grid is walked in strips of up to CG__STRIP words so the ring stays in
 * L1 whatever the width; a strip's last KL-word chunk may overlap the one
 * before it (both write the same values: dst is not src). */

#define KCHUNKS (CG__STRIP / KL)
#ifndef KXOR3
#define KXOR3(a, b, c) ((a) ^ (b) ^ (c))
#define KMAJ(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))
#define K_OWN_TERNARY
#endif
#ifndef KSHL
#define KSHL(c, p, k) (((c) << (k)) | ((p) >> (64 - (k))))
#define KSHR(c, e, k) (((c) >> (k)) | ((e) << (64 - (k))))
#define K_OWN_SHIFTS
#endif

/* The horizontal sums of one KL-word chunk of one row. */
typedef struct KFN(hsum) {
    KV h0, h1, n0, n1, q0, q1;
} KFN(hsum);

/* Full adder: s = a ^ b ^ c, k = majority(a, b, c). */
#define KFA(s, k, a, b, c)                                                                        \
    do {                                                                                          \
        KV fa_a = (a), fa_b = (b), fa_c = (c);                                                    \
        (s) = KXOR3(fa_a, fa_b, fa_c);                                                            \
        (k) = KMAJ(fa_a, fa_b, fa_c);                                                             \
    } while (0)

/* Half adder. */
#define KHA(s, k, a, b)                                                                           \
    do {                                                                                          \
        KV ha_a = (a), ha_b = (b);                                                                \
        (s) = ha_a ^ ha_b;                                                                        \
        (k) = ha_a & ha_b;                                                                        \
    } while (0)

/* ge = majority(p, ge, nk): one step of the comparison chain. */
#define KGE(ge, p, nk) ((ge) = KMAJ((p), (ge), (nk)))

/* Horizontal sums of the chunk at word i of row r; q and n only if wanted. */
static inline __attribute__((always_inline)) KATTR void
KFN(hsum_chunk)(KFN(hsum) *o, const uint64_t *r, size_t i, const int want_n, const int want_q)
{
    KV c, p, e;
    KLOAD(c, r + i);
    KLOAD(p, r + i - 1);
    KLOAD(e, r + i + 1);
    KV w1 = KSHL(c, p, 1), e1 = KSHR(c, e, 1);
    o->h0 = KXOR3(w1, e1, c);
    o->h1 = KMAJ(w1, e1, c);
    if (want_n) {
        o->n0 = w1 ^ e1;
        o->n1 = w1 & e1;
    }
    if (want_q) {
        KV w2 = KSHL(c, p, 2), e2 = KSHR(c, e, 2);
        o->q0 = w2 ^ e2;
        o->q1 = w2 & e2;
    }
}

/* Word offset of chunk k of a strip of n words starting at i0 (see above). */
static inline __attribute__((always_inline)) size_t KFN(chunk_at)(size_t i0, size_t n, size_t k)
{
    size_t i = i0 + k * KL;
    return i + KL <= i0 + n ? i : i0 + n - KL;
}

/* Rows y0..y1-1 of dst, strip by strip. The lanes of row y become
 *   wall = (v1 >= ka) | ~(x >= kb)
 * with x = v2 if five, else v1 when two_v1, else the second term is 0.
 * self: the centre counts in v1 (and so in v2). Needs rows y0-2..y1+1 of src
 * readable (the grid's padding rows) and nw >= KL. */
static inline __attribute__((always_inline)) KATTR void
KFN(count_rows)(const cg_grid *src, cg_grid *dst, uint32_t y0, uint32_t y1, int ka, int kb,
                const int self, const int five, const int two_v1)
{
    /* Negated threshold bits, one broadcast mask per plane: the chain needs
     * ~k_j, and k is clamped to what the planes can hold (v1 <= 9 < 16,
     * v2 <= 21 < 32), so "v >= k" stays exact at both ends. */
    ka = ka < 0 ? 0 : ka > 15 ? 15 : ka;
    kb = kb < 0 ? 0 : kb > 31 ? 31 : kb;
    KV na[4], nb[5];
    for (int j = 0; j < 4; j++)
        na[j] = KSPLAT((ka >> j) & 1 ? 0 : ~UINT64_C(0));
    for (int j = 0; j < 5; j++)
        nb[j] = KSPLAT((kb >> j) & 1 ? 0 : ~UINT64_C(0));
    const int want_n = !self;
    const int second = five || two_v1;
    const int64_t reach = five ? 2 : 1; /* rows above and below that count */
    const size_t ring = five ? 5 : 3;
    KFN(hsum) buf[5][KCHUNKS];

    for (size_t i0 = 0; i0 < src->nw; i0 += CG__STRIP) {
        size_t n = src->nw - i0 < CG__STRIP ? src->nw - i0 : CG__STRIP;
        size_t nchunks = (n + KL - 1) / KL;
        /* The ring: slot[j] holds the sums of row y-2+j (five rows), or of
         * row y-1+j (three). Prime it with the rows above y0. */
        KFN(hsum) *slot[5] = {buf[0], buf[1], buf[2], buf[3], buf[4]};
        for (int64_t j = 0; j + 1 < (int64_t)ring; j++) {
            const uint64_t *row = cg__row(src, (int64_t)y0 - reach + j);
            for (size_t k = 0; k < nchunks; k++)
                KFN(hsum_chunk)(&slot[j][k], row, KFN(chunk_at)(i0, n, k), want_n, five);
        }
        for (uint32_t y = y0; y < y1; y++) {
            const uint64_t *row = cg__row(src, (int64_t)y + reach);
            KFN(hsum) *fresh = slot[ring - 1];
            for (size_t k = 0; k < nchunks; k++)
                KFN(hsum_chunk)(&fresh[k], row, KFN(chunk_at)(i0, n, k), want_n, five);
            const KFN(hsum) *T = slot[0], *A = slot[five ? 1 : 0], *B = slot[five ? 2 : 1];
            const KFN(hsum) *C = slot[five ? 3 : 2], *D = slot[4];
            uint64_t *out = cg__row(dst, y);
            for (size_t k = 0; k < nchunks; k++) {
                /* v1: three 2-bit counts -> s0..s3. */
                KV b0 = self ? B[k].h0 : B[k].n0, b1 = self ? B[k].h1 : B[k].n1;
                KV s0, s1, s2, s3, k1, k2, k3, t1;
                KFA(s0, k1, A[k].h0, b0, C[k].h0);
                KFA(t1, k2, A[k].h1, b1, C[k].h1);
                KHA(s1, k3, t1, k1);
                KHA(s2, s3, k2, k3);
                KV ge = KSPLAT(~UINT64_C(0));
                KGE(ge, s0, na[0]);
                KGE(ge, s1, na[1]);
                KGE(ge, s2, na[2]);
                KGE(ge, s3, na[3]);
                KV wall = ge;
                if (five) {
                    /* v2 = v1 + h[y-2] + h[y+2] + q[y-1] + q[y] + q[y+1],
                     * column by column of weights 1, 2, 4, 8. */
                    KV u0, u1, c1a, c1b, c1c, z0, z1, z2, z3, z4;
                    KV a2, b2, c2, c2a, c2b, c2c, c2d, d4, c4a, c4b;
                    KFA(u0, c1a, T[k].h0, D[k].h0, A[k].q0);
                    KFA(u1, c1b, B[k].q0, C[k].q0, s0);
                    KHA(z0, c1c, u0, u1);
                    KFA(a2, c2a, T[k].h1, D[k].h1, A[k].q1);
                    KFA(b2, c2b, B[k].q1, C[k].q1, s1);
                    KFA(c2, c2c, c1a, c1b, c1c);
                    KFA(z1, c2d, a2, b2, c2);
                    KFA(d4, c4a, c2a, c2b, c2c);
                    KFA(z2, c4b, d4, c2d, s2);
                    KFA(z3, z4, s3, c4a, c4b);
                    KV g2 = KSPLAT(~UINT64_C(0));
                    KGE(g2, z0, nb[0]);
                    KGE(g2, z1, nb[1]);
                    KGE(g2, z2, nb[2]);
                    KGE(g2, z3, nb[3]);
                    KGE(g2, z4, nb[4]);
                    wall |= ~g2;
                } else if (second) {
                    KV g2 = KSPLAT(~UINT64_C(0));
                    KGE(g2, s0, nb[0]);
                    KGE(g2, s1, nb[1]);
                    KGE(g2, s2, nb[2]);
                    KGE(g2, s3, nb[3]);
                    wall |= ~g2;
                }
                KSTORE(out + KFN(chunk_at)(i0, n, k), wall);
            }
            KFN(hsum) *oldest = slot[0];
            for (size_t j = 0; j + 1 < ring; j++)
                slot[j] = slot[j + 1];
            slot[ring - 1] = oldest;
        }
    }
}

/* Narrow grids (fewer than CG__FLAT_NW words a row; the 80x50 maps of a
 * batch are 2): rows y0..y1-1 of dst treated as one flat run of words.
 * A row's frame words are walls, so the horizontal sums of a cell word
 * computed along the flat run of memory (word - 1, word + 1) are exactly
 * those of its row, and the rows above and below are the words one and two
 * strides away. So the sums of a block of rows are formed once, KL words at
 * a time, into plane arrays (hs[P][j] for the word at flat offset j), and
 * each output word adds the planes at offsets -2..+2 strides - no chunk
 * straddles a row's end half empty, as the strip kernel's would on rows of
 * fewer than KL words. The n sums (self=no) are h minus the centre cell,
 * read from src. The words between two rows come out as garbage; an OR
 * with the bits each place of a row must have set (frame words all wall,
 * the tail bits, and with ring the cells x = 0 and x = w-1: pat[k] for
 * column k mod stride, KL of them from a chunk's first column) walls them,
 * so nothing is read back after the vector stores. Blocks of rows
 * keep the planes in CG__FLAT_WORDS words (in L1); the caller checks that
 * the flat output run of every block holds at least KL words (path_for in
 * cells/automaton.c). Same result as count_rows followed by the ring or the
 * tail, bit for bit. (cg__generation_passes also runs it on copies packed
 * without the frame words, stride = nw: why that holds is said there.) */
static inline __attribute__((always_inline)) KATTR void
KFN(count_flat)(const cg_grid *src, cg_grid *dst, uint32_t y0, uint32_t y1, int ka, int kb,
                const int self, const int five, const int two_v1, int ring)
{
    ka = ka < 0 ? 0 : ka > 15 ? 15 : ka;
    kb = kb < 0 ? 0 : kb > 31 ? 31 : kb;
    KV na[4], nb[5];
    for (int j = 0; j < 4; j++)
        na[j] = KSPLAT((ka >> j) & 1 ? 0 : ~UINT64_C(0));
    for (int j = 0; j < 5; j++)
        nb[j] = KSPLAT((kb >> j) & 1 ? 0 : ~UINT64_C(0));
    const int second = five || two_v1;
    const size_t reach = five ? 2 : 1;
    const size_t stride = src->stride, nw = src->nw;
    /* h0 h1, then q0 q1 (five rows only). */
    uint64_t hs[4][CG__FLAT_WORDS], pat[CG__FLAT_NW + 2 + KL];
    /* Output rows per block: their sums span rows - 1 + 2 * reach strides
     * plus one row's words. Blocks of near-equal size (at least half of
     * max_rows when there are several), so none is short. A map that fits
     * one block (the small maps of a batch) takes no division here: a
     * handful of them cost as much as a pass over 100 words. */
    const size_t total = y1 - y0;
    size_t nblocks = 1;
    if ((total + 2 * reach) * stride > CG__FLAT_WORDS) {
        const size_t max_rows = CG__FLAT_WORDS / stride - 2 * reach;
        nblocks = (total + max_rows - 1) / max_rows;
    }
    const uint64_t first = ring ? 1 : 0;
    const uint64_t end = cg__tail_mask(dst) | (ring ? UINT64_C(1) << ((dst->w - 1) & 63) : 0);
    for (size_t k = 0, col = 0; k < stride + KL; k++) {
        pat[k] = col >= nw ? ~UINT64_C(0) : (col == 0 ? first : 0) | (col == nw - 1 ? end : 0);
        col = col + 1 == stride ? 0 : col + 1;
    }
    size_t step = KL; /* KL % stride, the column a chunk on moves by */
    while (step >= stride)
        step -= stride;

    for (size_t bi = 0; bi < nblocks; bi++) {
        const uint32_t yb = nblocks == 1 ? y0 : y0 + (uint32_t)(total * bi / nblocks);
        const uint32_t ye = nblocks == 1 ? y1 : y0 + (uint32_t)(total * (bi + 1) / nblocks);
        const uint64_t *s = cg__row(src, (int64_t)yb - (int64_t)reach);
        const size_t len = (ye - yb + 2 * reach - 1) * stride + nw;
        for (size_t j0 = 0; j0 < len; j0 += KL) {
            const size_t j = j0 + KL <= len ? j0 : len - KL;
            KFN(hsum) o;
            KFN(hsum_chunk)(&o, s, j, 0, five);
            KSTORE(&hs[0][j], o.h0);
            KSTORE(&hs[1][j], o.h1);
            if (five) {
                KSTORE(&hs[2][j], o.q0);
                KSTORE(&hs[3][j], o.q1);
            }
        }
        uint64_t *out = cg__row(dst, yb);
        const size_t olen = (ye - yb - 1) * stride + nw, base = reach * stride;
        for (size_t j0 = 0, col = 0; j0 < olen; j0 += KL) {
            const size_t oj = j0 + KL <= olen ? j0 : olen - KL, j = oj + base;
            if (oj != j0) { /* the last chunk, moved back by fewer than KL words */
                const size_t back = j0 - oj;
                while (col < back)
                    col += stride;
                col -= back;
            }
            /* A, B, C: rows y-1, y, y+1; T, D: y-2, y+2 (five only). */
            const size_t a = j - stride, c = j + stride;
            KV ah0, ah1, ch0, ch1, b0, b1;
            KLOAD(ah0, &hs[0][a]);
            KLOAD(ah1, &hs[1][a]);
            KLOAD(ch0, &hs[0][c]);
            KLOAD(ch1, &hs[1][c]);
            KLOAD(b0, &hs[0][j]);
            KLOAD(b1, &hs[1][j]);
            if (!self) {
                /* n = h - centre: one less where the centre is wall. */
                KV centre;
                KLOAD(centre, s + j);
                b1 &= b0 | ~centre;
                b0 ^= centre;
            }
            KV s0, s1, s2, s3, k1, k2, k3, t1;
            KFA(s0, k1, ah0, b0, ch0);
            KFA(t1, k2, ah1, b1, ch1);
            KHA(s1, k3, t1, k1);
            KHA(s2, s3, k2, k3);
            KV ge = KSPLAT(~UINT64_C(0));
            KGE(ge, s0, na[0]);
            KGE(ge, s1, na[1]);
            KGE(ge, s2, na[2]);
            KGE(ge, s3, na[3]);
            KV wall = ge;
            if (five) {
                KV th0, th1, dh0, dh1, aq0, aq1, bq0, bq1, cq0, cq1;
                KLOAD(th0, &hs[0][j - 2 * stride]);
                KLOAD(th1, &hs[1][j - 2 * stride]);
                KLOAD(dh0, &hs[0][j + 2 * stride]);
                KLOAD(dh1, &hs[1][j + 2 * stride]);
                KLOAD(aq0, &hs[2][a]);
                KLOAD(aq1, &hs[3][a]);
                KLOAD(bq0, &hs[2][j]);
                KLOAD(bq1, &hs[3][j]);
                KLOAD(cq0, &hs[2][c]);
                KLOAD(cq1, &hs[3][c]);
                KV u0, u1, c1a, c1b, c1c, z0, z1, z2, z3, z4;
                KV a2, b2, c2, c2a, c2b, c2c, c2d, d4, c4a, c4b;
                KFA(u0, c1a, th0, dh0, aq0);
                KFA(u1, c1b, bq0, cq0, s0);
                KHA(z0, c1c, u0, u1);
                KFA(a2, c2a, th1, dh1, aq1);
                KFA(b2, c2b, bq1, cq1, s1);
                KFA(c2, c2c, c1a, c1b, c1c);
                KFA(z1, c2d, a2, b2, c2);
                KFA(d4, c4a, c2a, c2b, c2c);
                KFA(z2, c4b, d4, c2d, s2);
                KFA(z3, z4, s3, c4a, c4b);
                KV g2 = KSPLAT(~UINT64_C(0));
                KGE(g2, z0, nb[0]);
                KGE(g2, z1, nb[1]);
                KGE(g2, z2, nb[2]);
                KGE(g2, z3, nb[3]);
                KGE(g2, z4, nb[4]);
                wall |= ~g2;
            } else if (second) {
                KV g2 = KSPLAT(~UINT64_C(0));
                KGE(g2, s0, nb[0]);
                KGE(g2, s1, nb[1]);
                KGE(g2, s2, nb[2]);
                KGE(g2, s3, nb[3]);
                wall |= ~g2;
            }
            KV mask;
            KLOAD(mask, &pat[col]);
            wall |= mask;
            KSTORE(out + oj, wall);
            col += step;
            col -= col >= stride ? stride : 0;
        }
    }
}

/* Rows ya..yb-1 by the flat kernel on narrow grids (vector paths only: the
 * rows come out with their ring, if ring, and tail bits set), else by the
 * strip kernel (the caller sets those bits). */
static inline __attribute__((always_inline)) KATTR void
KFN(count_any)(const cg_grid *src, cg_grid *dst, uint32_t y0, uint32_t y1, int ka, int kb,
               const int self, const int five, const int two_v1, int ring)
{
    if (KL > 1 && src->nw < CG__FLAT_NW)
        KFN(count_flat)(src, dst, y0, y1, ka, kb, self, five, two_v1, ring);
    else
        KFN(count_rows)(src, dst, y0, y1, ka, kb, self, five, two_v1);
}

/* The entry points of this path; see cells/automaton.c. Each computes rows
 * ya..yb-1 of dst (a stripe: several may run at once on disjoint rows). */
static KATTR void KFN(generation)(const cg_grid *src, cg_grid *dst, int r1, int r2, int self,
                                  uint32_t y0, uint32_t y1)
{
    /* The outer ring is not computed: the caller leaves its rows out of
     * y0..y1-1 and makes it wall. */
    if (y0 >= y1)
        return;
    if (r2 < 0) {
        if (self)
            KFN(count_any)(src, dst, y0, y1, r1, 0, 1, 0, 0, 1);
        else
            KFN(count_any)(src, dst, y0, y1, r1, 0, 0, 0, 0, 1);
    } else {
        if (self)
            KFN(count_any)(src, dst, y0, y1, r1, r2 + 1, 1, 1, 0, 1);
        else
            KFN(count_any)(src, dst, y0, y1, r1, r2 + 1, 0, 1, 0, 1);
    }
}

static KATTR void KFN(smooth)(const cg_grid *src, cg_grid *dst, int walls, uint32_t ya,
                              uint32_t yb)
{
    if (ya < yb)
        KFN(count_any)(src, dst, ya, yb, walls, 0, 0, 0, 0, 0);
}

static KATTR void KFN(rule)(const cg_grid *src, cg_grid *dst, int lo, int hi, uint32_t ya,
                            uint32_t yb)
{
    /* floor iff 9-hi <= walls <= 9-lo: wall iff walls >= 10-lo or
     * !(walls >= 9-hi). */
    if (ya < yb)
        KFN(count_any)(src, dst, ya, yb, 10 - lo, 9 - hi, 1, 0, 1, 0);
}

#undef KCHUNKS
#ifdef K_OWN_TERNARY
#undef KXOR3
#undef KMAJ
#undef K_OWN_TERNARY
#endif
#ifdef K_OWN_SHIFTS
#undef KSHL
#undef KSHR
#undef K_OWN_SHIFTS
#endif
#undef KFA
#undef KHA
#undef KGE
