#!/usr/bin/python3
"""regions_scipy.py - the peer for docs/PERFORMANCE.md "Regions and connect":
scipy.ndimage.label + a bincount filter, i.e. remove-floor min=N and
remove-walls min=N written the way a numpy user would, on the very map that
bench/regions_bench.c wrote to regions_bench.map (raw bytes, 1 = wall).

    cd build-rel && /usr/bin/python3 ../bench/regions_scipy.py [SIZE [REPS]]
                                          (default 4096 5; reads ./regions_bench.map)

Prints the best of REPS runs of each, and scipy's count of floor regions
(to compare with the one regions_bench printed for the same map)."""
import sys
import time

import numpy as np
import scipy
from scipy import ndimage

size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
walls = np.fromfile("regions_bench.map", dtype=np.uint8).reshape(size, size).astype(bool)
four = ndimage.generate_binary_structure(2, 1)  # 4-connectivity, as cavegen


def label_floor(m):
    return ndimage.label(~m, structure=four)


def remove_floor(m, n):
    lab, count = ndimage.label(~m, structure=four)
    sizes = np.bincount(lab.ravel())
    small = sizes < n
    small[0] = False  # label 0 is the walls
    return m | small[lab]


def remove_walls(m, n):
    # Wall regions touching the edge are connected to the outside: pad with
    # one ring of wall so they all join the outer region.
    p = np.pad(m, 1, constant_values=True)
    lab, count = ndimage.label(p, structure=four)
    sizes = np.bincount(lab.ravel())
    small = sizes < n
    small[0] = False
    small[lab[0, 0]] = False
    return (p & ~small[lab])[1:-1, 1:-1]


def best(fn, *args):
    t = 1e30
    out = None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn(*args)
        t = min(t, time.perf_counter() - t0)
    return t, out


cells = size * size
print(f"scipy {scipy.__version__}, numpy {np.__version__}, map {size}x{size}")
t, (lab, count) = best(label_floor, walls)
print(f"scipy label floor regions    {t * 1e3:8.2f} ms  {cells / t * 1e-9:6.3f} Gcells/s "
      f"({count} regions)")
t, out = best(remove_floor, walls, 50)
print(f"scipy remove-floor min=50    {t * 1e3:8.2f} ms  {cells / t * 1e-9:6.3f} Gcells/s")
t, out = best(remove_walls, walls, 50)
print(f"scipy remove-walls min=50    {t * 1e3:8.2f} ms  {cells / t * 1e-9:6.3f} Gcells/s")
