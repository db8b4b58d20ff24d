#!/usr/bin/python3
"""numpy_cave.py - the numpy peers of bench/run (docs/PERFORMANCE.md).

    /usr/bin/python3 bench/numpy_cave.py [-r REPS] [-m MAPFILE] CASE...

Cases (each prints one tab-separated line, like bench/bench.c):
  np_gen52_SIZE, np_gen5m1_SIZE   one generation of the r1/r2 rule by seed
        000's method: a uint8 array padded with three rings of walls, v1 and
        v2 as whole-array sums of shifted slices (voisins_1, voisins_2), then
        (v1 >= r1) | (v2 <= r2). For r2 = -1 v2 is not computed (the article's
        code always computes it; skipping it is the fair comparison).
  np_fill_SIZE                  the article's fill: randint(0, 100) < 45.
  scipy_remove_floor_4096       scipy.ndimage.label + bincount filter on the
        type2 map bench.c wrote to MAPFILE (remove-floor min=50).
  scipy_label_4096              scipy.ndimage.label alone, same map.
The median of REPS runs is printed. A missing module prints "missing"."""
import sys
import time

def report(name, times, units, unit, note=""):
    times = sorted(times)
    n = len(times)
    med = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    print(f"{name}\t{med:.9f}\t{units}\t{unit}\t{note}", flush=True)


def missing(name, why):
    print(f"{name}\tmissing\t0\t-\t{why}", flush=True)


try:
    import numpy as np
except ImportError as e:  # reported, never skipped silently
    np = None
    NUMPY_ERROR = str(e)

# The cellular-automaton cave article's neighbour tables (docs/algorithms.md).
VOISINS_1 = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
VOISINS_2 = ((-2, -1), (-2, 0), (-2, 1), (2, -1), (2, 0), (2, 1),
             (-1, -2), (0, -2), (1, -2), (-1, 2), (0, 2), (1, 2))


def new_zone(size, rng):
    """Fill at 45 % walls, padded with three rings of walls, as the article does."""
    zone = (rng.integers(0, 100, (size + 6, size + 6)) < 45).astype(np.uint8)
    for i in range(-3, 3):
        zone[i, :] = 1
        zone[:, i] = 1
    return zone


def generation(zone, r1, r2):
    """One generation, in place, as the article's code does it."""
    inner = zone[3:-3, 3:-3]
    v1 = inner.copy()  # uint8, the cell itself counted
    for dy, dx in VOISINS_1:
        v1 += zone[3 + dy:zone.shape[0] - 3 + dy, 3 + dx:zone.shape[1] - 3 + dx]
    wall = v1 >= r1
    if r2 >= 0:
        v2 = v1.copy()
        for dy, dx in VOISINS_2:
            v2 += zone[3 + dy:zone.shape[0] - 3 + dy, 3 + dx:zone.shape[1] - 3 + dx]
        wall |= v2 <= r2
    inner[...] = wall
    # The map's outer ring stays wall.
    inner[0, :] = 1
    inner[-1, :] = 1
    inner[:, 0] = 1
    inner[:, -1] = 1


def timed(fn, n):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return ts


def main():
    reps = 5
    mapfile = None
    args = sys.argv[1:]
    while args and args[0] in ("-r", "-m"):
        if args[0] == "-r":
            reps = int(args[1])
        else:
            mapfile = args[1]
        args = args[2:]
    if np is None:
        for case in args:
            missing(case, f"numpy: {NUMPY_ERROR}")
        return
    rng = np.random.default_rng(1)
    note = f"numpy {np.__version__}"
    for case in args:
        kind, _, size = case.rpartition("_")
        size = int(size)
        if kind in ("np_gen52", "np_gen5m1"):
            zone = new_zone(size, rng)
            r2 = 2 if kind == "np_gen52" else -1
            report(case, timed(lambda: generation(zone, 5, r2), reps), size * size, "cells",
                   note + ", uint8 shifted slices")
        elif kind == "np_fill":
            report(case, timed(lambda: (rng.integers(0, 100, (size, size)) < 45), reps),
                   size * size, "cells", note + ", randint < 45")
        elif kind in ("scipy_remove_floor", "scipy_label"):
            try:
                import scipy
                from scipy import ndimage
            except ImportError as e:
                missing(case, f"scipy: {e}")
                continue
            if not mapfile:
                missing(case, "no map file")
                continue
            walls = np.fromfile(mapfile, dtype=np.uint8).reshape(size, size).astype(bool)
            four = ndimage.generate_binary_structure(2, 1)  # 4-connected, as cavegen

            def remove_floor():
                lab, _ = ndimage.label(~walls, structure=four)
                sizes = np.bincount(lab.ravel())
                small = sizes < 50
                small[0] = False  # label 0: the walls
                return walls | small[lab]

            def label():
                return ndimage.label(~walls, structure=four)

            fn = remove_floor if kind == "scipy_remove_floor" else label
            report(case, timed(fn, reps), size * size, "cells", f"scipy {scipy.__version__}")
        else:
            print(f"numpy_cave.py: unknown case {case}", file=sys.stderr)
            sys.exit(2)


if __name__ == "__main__":
    main()
