#!/usr/bin/python3
"""dataset.py - the figures of 10,000 maps as one numpy array.

    python3 dataset.py [--preset level] [--count 10000] [--out stats.npy]

Runs cavegen.batch (map i made with seed i, on every core, the GIL released,
the figures computed on the same threads) and stacks each map's stats -
the keys of `cavegen --stats` - into a (count, keys) int64 array, saved with
numpy.save when --out is given. Then a few summaries, as a start for
quality metrics or for picking maps."""
import argparse

import numpy as np

import cavegen

KEYS = ["floor_permille", "regions", "largest_region", "dead_ends", "points", "path_length",
        "attempts"]

ap = argparse.ArgumentParser()
ap.add_argument("--preset", default="level")
ap.add_argument("--count", type=int, default=10000)
ap.add_argument("--size", default="80x50")
ap.add_argument("--out")
a = ap.parse_args()
size = tuple(int(v) for v in a.size.split("x"))

data = np.empty((a.count, len(KEYS)), dtype=np.int64)
for m in cavegen.batch(a.preset, seed=0, count=a.count, size=size, stats=True):
    s = m.stats
    data[m.index] = [s[k] for k in KEYS]
if a.out:
    np.save(a.out, data)

print(f"{a.count} maps of {a.preset} at {a.size}: columns {', '.join(KEYS)}")
for j, k in enumerate(KEYS):
    col = data[:, j]
    print(f"  {k:15} min {col.min():6}  median {int(np.median(col)):6}  max {col.max():6}")
best = int(np.argmax(data[:, KEYS.index("path_length")]))
print(f"longest entrance-to-exit path: seed {best} "
      f"({data[best, KEYS.index('path_length')]} steps): cavegen -p {a.preset} -s {best}")
