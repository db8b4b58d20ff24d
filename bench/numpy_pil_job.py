#!/usr/bin/python3
"""numpy_pil_job.py - the whole-process peer of `cavegen` in bench/run: the
same job done the way a numpy user would, timed from process start to exit.

    /usr/bin/python3 bench/numpy_pil_job.py png SIZE OUT.png
        type2 (fill 45 %, 5 x (5,-1), 1 x (5,0), the article's shifted-slice
        method on uint8) on SIZE x SIZE, written as a 1-bit PNG by Pillow at
        4 pixels per cell (cavegen's default scale).
    /usr/bin/python3 bench/numpy_pil_job.py batch N
        N type2 maps of 80x50, each written as ASCII ('#' and '.') to one
        stream (stdout)."""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from numpy_cave import generation, new_zone  # noqa: E402  (same method as the kernel peer)


def type2(size_w, size_h, rng):
    zone = new_zone(max(size_w, size_h), rng)[: size_h + 6, : size_w + 6]
    for _ in range(5):
        generation(zone, 5, -1)
    generation(zone, 5, 0)
    return zone[3:-3, 3:-3]


def main():
    rng = np.random.default_rng(42)
    if sys.argv[1] == "png":
        from PIL import Image

        size = int(sys.argv[2])
        cells = type2(size, size, rng)
        floor = (cells == 0).repeat(4, axis=0).repeat(4, axis=1)
        Image.fromarray(floor).convert("1").save(sys.argv[3])
    elif sys.argv[1] == "batch":
        out = sys.stdout.buffer
        table = np.frombuffer(b"." + b"#", dtype=np.uint8)
        for _ in range(int(sys.argv[2])):
            cells = type2(80, 50, rng)
            text = np.empty((50, 81), dtype=np.uint8)
            text[:, :80] = table[cells]
            text[:, 80] = ord("\n")
            out.write(text.tobytes())
    else:
        sys.exit("usage: numpy_pil_job.py png SIZE OUT | batch N")


main()
