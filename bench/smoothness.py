#!/usr/bin/python3
"""smoothness.py - how ragged a preset's walls are, and the shape of its maps
(docs/algorithms.md, "Smooth walls"). Python standard library only.

For each preset (a built-in name or a preset file) it runs
`cavegen -p PRESET -s SEED -n COUNT -W W -H H` and reads the ASCII maps of
the batch (any character but '#' is floor: markers stand on floor). Per
preset it prints, over all maps:

  teeth/100   single-cell teeth per 100 edges of wall/floor boundary. A
              tooth is a cell that differs from at least 3 of its 4
              side neighbours (cells outside the map are wall): a
              one-cell spike of wall into floor, a one-cell notch of floor
              into wall, a lone pillar or a lone floor cell. A boundary
              edge is a pair of side neighbours, one wall and one floor.
              Both are counted over every cell, the outer ring included.
  floor       the share of the map that is floor (mean)
  regions     4-connected floor regions per map (mean)
  ring        maps with a floor cell on the outer ring
  width       the median over floor cells of min(horizontal run, vertical
              run) of floor through the cell: about the corridor width in
              corridors, larger in halls
  <=3         the share of floor cells whose width (as above) is 3 or less
  halls       the share of floor cells at least 3 cells from every wall
              (the 5x5 block around them all floor): the inside of halls,
              never of a corridor 4 or fewer cells wide

Example: python3 bench/smoothness.py -n 100 -W 80 -H 50 type1 classic level
"""
import argparse
import statistics
import subprocess
import sys


def read_maps(text):
    """The maps of a batch's ASCII output: blank lines separate them."""
    maps, cur = [], []
    for line in text.split("\n"):
        if line == "":
            if cur:
                maps.append(cur)
            cur = []
        else:
            cur.append(line)
    if cur:
        maps.append(cur)
    return [[[c == "#" for c in row] for row in m] for m in maps]


def measure(m):
    h, w = len(m), len(m[0])

    def wall(x, y):
        return x < 0 or y < 0 or x >= w or y >= h or m[y][x]

    teeth = edges = floor = ring = 0
    for y in range(h):
        for x in range(w):
            v = m[y][x]
            differ = sum(wall(x + dx, y + dy) != v for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            teeth += differ >= 3
            # each inner edge once (right and down), edges to outside too
            edges += (wall(x + 1, y) != v) + (wall(x, y + 1) != v)
            edges += (x == 0 and not v) + (y == 0 and not v)
            if not v:
                floor += 1
                ring += x in (0, w - 1) or y in (0, h - 1)
    # horizontal and vertical floor runs through each floor cell
    hrun = [[0] * w for _ in range(h)]
    vrun = [[0] * w for _ in range(h)]
    for y in range(h):
        x = 0
        while x < w:
            if m[y][x]:
                x += 1
                continue
            x1 = x
            while x1 < w and not m[y][x1]:
                x1 += 1
            for i in range(x, x1):
                hrun[y][i] = x1 - x
            x = x1
    for x in range(w):
        y = 0
        while y < h:
            if m[y][x]:
                y += 1
                continue
            y1 = y
            while y1 < h and not m[y1][x]:
                y1 += 1
            for i in range(y, y1):
                vrun[i][x] = y1 - y
            y = y1
    halls = 0
    for y in range(2, h - 2):
        for x in range(2, w - 2):
            halls += all(not m[y + dy][x + dx] for dy in range(-2, 3) for dx in range(-2, 3))
    widths = [min(hrun[y][x], vrun[y][x]) for y in range(h) for x in range(w) if not m[y][x]]
    # 4-connected floor regions
    seen = [[False] * w for _ in range(h)]
    regions = 0
    for y in range(h):
        for x in range(w):
            if m[y][x] or seen[y][x]:
                continue
            regions += 1
            stack = [(x, y)]
            seen[y][x] = True
            while stack:
                cx, cy = stack.pop()
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < w and 0 <= ny < h and not m[ny][nx] and not seen[ny][nx]:
                        seen[ny][nx] = True
                        stack.append((nx, ny))
    return teeth, edges, floor / (w * h), regions, ring > 0, widths, halls / max(floor, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("presets", nargs="+", help="built-in preset names or preset files")
    ap.add_argument("--cavegen", default="build/cavegen")
    ap.add_argument("-s", "--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("-n", "--count", type=int, default=100, help="maps per preset (default 100)")
    ap.add_argument("-W", "--width", type=int, help="width (default: the preset's)")
    ap.add_argument("-H", "--height", type=int, help="height (default: the preset's)")
    a = ap.parse_args()
    print(f"{'preset':<16} {'maps':>5} {'teeth/100':>9} {'floor':>6} {'regions':>7} "
          f"{'ring':>5} {'width':>5} {'<=3':>5} {'halls':>5}")
    for p in a.presets:
        cmd = [a.cavegen, "-q", "-p", p, "-s", str(a.seed), "-n", str(a.count), "-f", "ascii",
               "-o", "-"]
        if a.width:
            cmd += ["-W", str(a.width)]
        if a.height:
            cmd += ["-H", str(a.height)]
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if r.returncode != 0:
            print(f"{p}: {r.stderr.strip()}", file=sys.stderr)
        maps = read_maps(r.stdout)
        if not maps:
            continue
        teeth = edges = rings = 0
        floors, regions, widths, halls = [], [], [], []
        for m in maps:
            t, e, f, reg, ring, wd, hl = measure(m)
            halls.append(hl)
            teeth += t
            edges += e
            floors.append(f)
            regions.append(reg)
            rings += ring
            widths += wd
        narrow = sum(x <= 3 for x in widths) / len(widths) if widths else 0
        print(f"{p:<16} {len(maps):>5} {100 * teeth / max(edges, 1):>9.2f} "
              f"{statistics.mean(floors):>6.1%} {statistics.mean(regions):>7.2f} {rings:>5} "
              f"{statistics.median(widths) if widths else 0:>5} {narrow:>5.0%} "
              f"{statistics.mean(halls):>5.0%}")


if __name__ == "__main__":
    main()
