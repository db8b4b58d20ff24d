#!/usr/bin/python3
"""walk_path.py - generate a game level and walk from its entrance to its exit.

    python3 walk_path.py [SEED]

Prints the level with the walk drawn on it ('o'), then the walk's legs:
where it turns and which points of interest it passes within two cells.
The map is the one `cavegen --preset level --seed SEED` prints."""
import sys

import cavegen

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 42
level = cavegen.generate("level", seed=seed)
route = level.path()  # [(x, y), ...], entrance first, exit last

rows = [list(r) for r in level.to_ascii().splitlines()]
for x, y in route[1:-1]:
    if rows[y][x] == ".":
        rows[y][x] = "o"
print("\n".join("".join(r) for r in rows))

print(f"seed {seed}: {len(route) - 1} steps from {level.entrance} to {level.exit}")
heading = None
for i, ((x0, y0), (x1, y1)) in enumerate(zip(route, route[1:])):
    step = {(1, 0): "east", (-1, 0): "west", (0, 1): "south", (0, -1): "north"}[(x1 - x0, y1 - y0)]
    if step != heading:
        print(f"  step {i:3}: at ({x0}, {y0}) head {step}")
        heading = step
    for p in level.points:
        if abs(p.x - x1) + abs(p.y - y1) == 2:
            print(f"  step {i + 1:3}: a point of interest two cells away, at ({p.x}, {p.y})")
print(f"  step {len(route) - 1:3}: the exit")
