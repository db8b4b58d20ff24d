/* naive.c - the "naive C" baseline of the benchmark: the r1/r2 rule written
 * the way the articles' code and most game code write it - an int per cell, a
 * bounds-checked read per neighbour, loops over the neighbourhood offsets
 * (the cellular-automaton cave article's voisins_1 / voisins_2, the Russian
 * cellular-automata article's count_wall_neighbors; docs/algorithms.md).
 * Compiled with the same flags as the library (Release: -O3); deliberately
 * not tuned. */
#include "naive.h"

static int get(const int *m, int w, int h, int x, int y)
{
    if (x < 0 || y < 0 || x >= w || y >= h)
        return 1; /* outside the map counts as wall */
    return m[y * w + x];
}

void naive_generation(const int *src, int *dst, int w, int h, int r1, int r2)
{
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
                dst[y * w + x] = 1;
                continue;
            }
            int v1 = 0, v2 = 0;
            for (int dy = -2; dy <= 2; dy++) {
                for (int dx = -2; dx <= 2; dx++) {
                    int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
                    if (ax == 2 && ay == 2)
                        continue; /* the 5x5 block's corners */
                    int c = get(src, w, h, x + dx, y + dy);
                    if (ax <= 1 && ay <= 1)
                        v1 += c;
                    v2 += c;
                }
            }
            dst[y * w + x] = v1 >= r1 || v2 <= r2;
        }
    }
}
