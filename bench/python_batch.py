#!/usr/bin/python3
"""python_batch.py - the Python package's batch, timed as a whole process by
bench/report.py against the command's -n (docs/python.md):

    python_batch.py --lib DIR [--jobs N] [--count N] [--ascii]

makes COUNT type2 maps of 80x50 with cavegen.batch (seeds 1..COUNT) and
touches each one's cells; --ascii also encodes each map as the command
writes it. DIR holds the cavegen package built in place (bench/run builds
it there)."""
import argparse
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True)
ap.add_argument("--jobs", type=int, default=1)
ap.add_argument("--count", type=int, default=10000)
ap.add_argument("--ascii", action="store_true")
a = ap.parse_args()
sys.path.insert(0, a.lib)
import cavegen  # noqa: E402

total = 0
for m in cavegen.batch("type2", seed=1, count=a.count, size=(80, 50), jobs=a.jobs):
    total += len(m.to_ascii()) if a.ascii else memoryview(m).nbytes
if total == 0:
    sys.exit("no maps")
