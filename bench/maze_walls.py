#!/usr/bin/env python3
"""Floating wall in mazes (docs/maze.md): over N seeds, the wall pieces that
do not reach the outer ring, the floor's independent cycles, and where
`no-isolated` ties the lone pillars of `maze connected loops`.

    python3 bench/maze_walls.py build/cavegen 50 79 49
"""
import collections
import subprocess
import sys


def grid(exe, step, seed, w, h):
    out = subprocess.run([exe, '--step', step, '-W', str(w), '-H', str(h), '-s', str(seed),
                          '-f', 'ascii', '-o', '-'], capture_output=True, text=True, check=True)
    return [[c == '#' for c in row] for row in out.stdout.split()]


def flood(g, starts, wall):
    """Cells 4-connected to starts through cells whose wall bit is `wall`."""
    h, w = len(g), len(g[0])
    seen, stack = set(starts), list(starts)
    while stack:
        x, y = stack.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < w and 0 <= ny < h and g[ny][nx] == wall and (nx, ny) not in seen:
                seen.add((nx, ny))
                stack.append((nx, ny))
    return seen


def analyse(g):
    """(pieces of wall not joined to the ring by size, cycle rank, ring-joined wall)."""
    h, w = len(g), len(g[0])
    ring = [(x, y) for y in range(h) for x in range(w) if g[y][x] and (x in (0, w - 1) or y in (0, h - 1))]
    border = flood(g, ring, True)
    pieces, seen = collections.Counter(), set(border)
    floor, comps, edges = 0, 0, 0
    for y in range(h):
        for x in range(w):
            if g[y][x] and (x, y) not in seen:
                piece = flood(g, [(x, y)], True)
                seen |= piece
                pieces[len(piece)] += 1
            if not g[y][x]:
                floor += 1
                edges += (x + 1 < w and not g[y][x + 1]) + (y + 1 < h and not g[y + 1][x])
                if (x, y) not in seen:
                    seen |= flood(g, [(x, y)], False)
                    comps += 1
    return pieces, edges - floor + comps, border


def main():
    exe, n, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    for step in ('maze connected loops', 'maze connected loops no-isolated'):
        pieces, cycles = collections.Counter(), 0
        lone = to_border = 0
        for seed in range(1, n + 1):
            g = grid(exe, step, seed, w, h)
            p, c, border = analyse(g)
            pieces += p
            cycles += c
            if step.endswith('no-isolated'):
                a = grid(exe, 'maze connected loops', seed, w, h)
                for y in range(2, h - 2, 2):
                    for x in range(2, w - 2, 2):
                        if not (a[y - 1][x] or a[y + 1][x] or a[y][x - 1] or a[y][x + 1]):
                            lone += 1
                            to_border += (x, y) in border
        small = {s: pieces[s] for s in sorted(pieces)[:4]}
        print(f'{step}: {n} maps {w}x{h}: floating wall pieces {sum(pieces.values())}, '
              f'floor cycles {cycles}; by size {small}')
        if lone:
            print(f'  lone pillars before the ties {lone}: joined to the border wall {to_border}, '
                  f'left in floating wall {lone - to_border}')


if __name__ == '__main__':
    main()
