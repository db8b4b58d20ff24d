#!/usr/bin/env python3
"""The determinism suite: every case's output hashed and compared with
tests/determinism/hashes.txt (docs/determinism.md).

    run.py --cavegen PATH [--wrapper CMD] [--paths PATHS] [--extra-args ARGS]
           [--no-png] [--update] [--jobs N] [--filter TEXT] [--share K/N]

A case is one run of the tool in an empty folder of its own. Its digest is
the SHA-256 of a manifest that lists, with their own SHA-256, what the run
wrote: stdout, every file it created (by relative name), and stderr when the
case asks for --stats; plus the exit status. Text outputs that carry the
tool's version (JSON, TMX, TMJ: "cavegen_version", the "generator"
property) are hashed with the version replaced by "VERSION", so a release
alone changes no hash.

--update rewrites hashes.txt and prints what changed; without it, any
difference, missing or extra case fails (exit 1). --paths sets
CAVEGEN_TEST_PATHS for a test build of the tool that forces the library's
code paths (force_paths.c); --wrapper runs the tool under an emulator
(qemu-s390x ...); --extra-args appends arguments to every case (-j 4).
--no-png: the tool was built without libpng; cases that write a PNG must
fail with "built without PNG support", the rest must match. --share K/N:
only the cases whose index is K modulo N, unless CAVEGEN_TEST_THOROUGH=1 is
set (as .ci/run sets it): ctest's N runs on forced paths, with threads and
with a flipped byte run every case between them; the run on the path this
CPU takes runs every case itself.
"""

import argparse
import concurrent.futures
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
HASHES = os.path.join(HERE, "hashes.txt")
INPUTS = os.path.join(HERE, "inputs")

MAX_SEED = "18446744073709551615"
SEEDS = ["0", "42", MAX_SEED]
PRESETS = ["classic", "level", "maze", "maze-perfect", "type1", "type2", "type3", "type4"]
MAZES = {"maze", "maze-perfect"}
# Steps that read only a bounded neighbourhood, so they run in chunks.
CHUNKABLE = ["type1", "type2", "type3", "type4"]


class Case:
    def __init__(self, name, args, stdin=None, stats=False):
        self.name = name
        self.args = args
        self.stdin = stdin  # a file of inputs/ fed to stdin
        self.stats = stats or any(a.startswith("--stats") for a in args)

    def needs_png(self):
        """Whether the run writes a PNG: a .png output, -f png, or a Tiled
        map written to a file (its tileset image lands beside it)."""
        a = self.args
        fmt = a[a.index("-f") + 1] if "-f" in a else None
        out = a[a.index("-o") + 1] if "-o" in a else "-"
        if fmt == "png" or (fmt is None and out.endswith(".png")):
            return True
        tiled = fmt in ("tmx", "tmj") or (fmt is None and out.endswith((".tmx", ".tmj")))
        return tiled and out != "-"


def format_cases():
    """Every built-in preset in every format at three seeds, default size."""
    outs = [
        ("ascii", ["-o", "-"]),
        ("png", ["-o", "map.png"]),
        ("png-scale1", ["--scale", "1", "-o", "map.png"]),
        ("json", ["-f", "json"]),
        ("tmx", ["-o", "map.tmx"]),
        ("tmj", ["-o", "map.tmj"]),
        ("pbm", ["-o", "map.pbm"]),
        ("distances", ["-f", "distances"]),
        ("ansi", ["-f", "ansi"]),
    ]
    for p in PRESETS:
        for s in SEEDS:
            for fname, extra in outs:
                if fname == "png-scale1" and s != "42":
                    continue
                if fname == "distances":  # from a floor cell: the entrance, or a maze's room
                    start = {"level": []}.get(p, ["--step", "entrance"])
                    extra = (["--reach", "1,1"] if p in MAZES else start + ["--reach", "entrance"]) + extra
                yield Case(f"format/{p}/s{s}/{fname}", ["-p", p, "-s", s] + extra)


def size_cases():
    """Sizes: 1x1, one row, one column, widths off a multiple of 64, over 1000
    wide. Mazes need odd sizes of at least 3; level needs room for its
    points, and its failure on a small map is pinned too (exit status)."""
    sizes = ["1x1", "1x37", "37x1", "2x2", "63x5", "64x9", "65x7", "131x37", "1203x41", "200x129"]
    maze_sizes = ["3x3", "3x37", "37x3", "63x5", "65x7", "131x37", "1203x41", "201x129"]
    level_sizes = ["1x1", "23x16", "24x16", "30x20", "127x81", "200x129", "1025x200", "1203x301"]
    for p in PRESETS:
        for size in maze_sizes if p in MAZES else level_sizes if p == "level" else sizes:
            for s in ("0", MAX_SEED) if p != "level" or size not in ("1x1", "23x16") else ("0",):
                yield Case(f"size/{p}/{size}/s{s}", ["-p", p, "-s", s, "--size", size])
        wide = "1203x301" if p == "level" else "1203x41"
        yield Case(f"size/{p}/{wide}/png", ["-p", p, "-s", "7", "--size", wide, "-o", "map.png"])
        small = "3x3" if p in MAZES else "1x1"
        yield Case(f"size/{p}/{small}/png", ["-p", p, "-s", "7", "--size", small, "-o", "map.png"])
        yield Case(f"size/{p}/{small}/json", ["-p", p, "-s", "7", "--size", small, "-f", "json"])


def big_cases():
    """Maps wide enough for the vector kernels (449 cells and more) and big
    enough (2 million cells and more) to be cut into stripes for threads."""
    for p in PRESETS:
        for s in ("0", "42"):
            yield Case(f"big/{p}/2111x1201/s{s}", ["-p", p, "-s", s, "--size", "2111x1201"])
        yield Case(f"big/{p}/2111x1201/png", ["-p", p, "-s", "1", "--size", "2111x1201", "-o", "big.png", "--scale", "1"])
    # 4 million cells and more: the PNG is deflated in stripes of rows, on
    # every thread with -j; the bytes are the same for any -j.
    for p, j in (("type2", "1"), ("type2", "2"), ("type2", "3"), ("level", "2")):
        yield Case(f"big/{p}/2111x2017/png-striped-j{j}", ["-p", p, "-s", "1", "--size", "2111x2017", "-j", j, "-o", "big.png", "--scale", "1"])
    # 2^20 cells and more: reach on the whole map takes two threads with -j
    # (one searches, one writes distances); the same distances for any -j.
    for j in ("1", "2", "3"):
        yield Case(f"big/type2/2111x1201/reach-j{j}", ["-p", "type2", "-s", "1", "--size", "2111x1201", "-j", j,
                                                      "--step", "entrance", "--reach", "entrance", "-f", "distances"])
    # 2^24 cells and more: the clean-up steps label the map in stripes of
    # rows (at once with -j); the same cells for any -j.
    for j in ("1", "2"):
        yield Case(f"big/type2/4099x4097/clean-j{j}", ["-p", "type2", "-s", "1", "--size", "4099x4097", "-j", j,
                                                      "--step", "remove-floor min=50", "--step", "remove-walls min=50",
                                                      "--step", "keep-largest", "-f", "pbm", "--scale", "1"])


def batch_cases():
    yield Case("batch/type2/ascii-stream", ["-p", "type2", "-s", "42", "-n", "5", "--size", "40x20"])
    yield Case("batch/type2/wrap", ["-p", "type2", "-s", MAX_SEED, "-n", "3", "--size", "30x10"])
    yield Case("batch/level/json-stream", ["-p", "level", "-s", "1", "-n", "4", "-f", "json"])
    yield Case("batch/level/png-files", ["-p", "level", "-s", "9", "-n", "6", "-o", "out/%02d.png"])
    yield Case("batch/maze/tmx-files", ["-p", "maze", "-s", "3", "-n", "3", "-o", "m%d.tmx"])
    yield Case("batch/type4/pbm-files", ["-p", "type4", "-s", "0", "-n", "4", "-o", "runs/%d/map.pbm"])
    yield Case("batch/level/stats-text", ["-p", "level", "-s", "100", "-n", "8", "--stats", "-o", "-"])
    yield Case("batch/level/stats-json", ["-p", "level", "-s", "100", "-n", "8", "--stats=json", "-o", "-"])
    yield Case("batch/classic/threads", ["-p", "classic", "-s", "5", "-n", "12", "-j", "3", "-o", "c%03d.txt"])
    yield Case("batch/type1/distances", ["-p", "type1", "-s", "2", "-n", "3", "--step", "entrance", "--reach", "entrance", "--moves", "12", "-f", "distances"])


def chunk_cases():
    coords = ["0,0", "-3,2", "5,-7", "-2147483647,-2147483647", "2147483647,2147483647", "-1,1000000"]
    for p in CHUNKABLE:
        for c in coords:
            yield Case(f"chunk/{p}/{c}", ["-p", p, "-s", "42", "--size", "70x30", "--chunk", c])
    # classic has a whole-map step: refused (the exit status is pinned)
    yield Case("chunk/classic/refused", ["-p", "classic", "-s", "42", "--chunk", "0,0"])
    yield Case("chunk/type2/png", ["-p", "type2", "-s", "1", "--size", "256x256", "--chunk", "-3,2", "-o", "c.png"])
    yield Case("chunk/type2/1x1", ["-p", "type2", "-s", "1", "--size", "1x1", "--chunk", "-9,9"])
    yield Case("chunk/type1/1203x3", ["-p", "type1", "-s", MAX_SEED, "--size", "1203x3", "--chunk", "7,-7"])
    yield Case("chunk/options", ["-s", "0", "--size", "100x40", "--chunk", "-1,-1", "--fill", "47.5",
                                 "--generations", "4:5,2", "--step", "smooth 2 walls=5", "--step", "rule 1 floor=5..9"])


def reach_cases():
    for p, start in (("level", []), ("type2", ["--step", "entrance"]), ("maze-perfect", [])):
        for moves in (None, "0", "7", "24", "25", "1000"):
            m = start + (["--moves", moves] if moves else [])
            tag = moves or "all"
            r = ["--reach", "1,1" if p in MAZES else "entrance"]
            yield Case(f"reach/{p}/{tag}/ascii", ["-p", p, "-s", "42"] + m + r)
            yield Case(f"reach/{p}/{tag}/distances", ["-p", p, "-s", "42", "-f", "distances"] + m + r)
        r = start + ["--reach", "1,1" if p in MAZES else "entrance"]
        yield Case(f"reach/{p}/png", ["-p", p, "-s", "42", "-o", "r.png"] + r)
        yield Case(f"reach/{p}/json", ["-p", p, "-s", "42", "-f", "json"] + r)
        yield Case(f"reach/{p}/ansi", ["-p", p, "-s", "42", "-f", "ansi"] + r)
    yield Case("reach/multi", ["-p", "type4", "-s", "3", "--reach", "7,10", "--reach", "61,30", "--reach", "4,25", "--moves", "30"])
    yield Case("reach/wide", ["-p", "type2", "-s", "8", "--size", "1203x41", "--reach", "595,20", "-f", "distances"])
    yield Case("reach/wall", ["-p", "type2", "-s", "8", "--reach", "0,0"])  # refused: pinned exit status


def pipeline_cases():
    """Pipelines from options and steps, one per step kind at least."""
    pipes = {
        "fill": ["--fill", "45"],
        "fill-fraction": ["--fill", "47.25"],
        "fill-0": ["--fill", "0"],
        "fill-100": ["--fill", "100"],
        "fill-ring-no": ["--step", "fill 45 ring=no", "--step", "smooth 2"],
        "generations": ["--fill", "45", "--generations", "5:5,-1", "--generations", "1:5,0"],
        "generations-self": ["--fill", "40", "--step", "generations 3 r1=5 r2=2 self=no"],
        "smooth": ["--fill", "50", "--step", "smooth 5"],
        "smooth-walls": ["--fill", "50", "--step", "smooth 3 walls=4"],
        "rule": ["--fill", "40", "--step", "rule 4 floor=5..8", "--step", "rule 3 floor=5..9"],
        "downscale": ["--fill", "40", "--step", "rule 4 floor=5..8", "--step", "downscale 2"],
        "downscale-3": ["--fill", "45", "--step", "smooth 3", "--step", "downscale 3"],
        "regions": ["-p", "type2", "--step", "remove-floor min=50", "--step", "remove-walls min=20"],
        "keep-largest": ["-p", "type1", "--step", "keep-largest"],
        "connect": ["-p", "type2", "--step", "connect"],
        "connect-width": ["-p", "type4", "--step", "connect width=3"],
        "place": ["-p", "type1", "--step", "entrance", "--step", "exit", "--step", "poi count=5 spacing=6"],
        "require": ["-p", "type2", "--step", "entrance", "--step", "require open>=20%"],
        "kinds": ["-p", "type1", "--step", "entrance", "--step", "poi kind=chest count=4 spacing=6",
                  "--step", "poi kind=key count=2 spacing=4 symbol=Q", "--step", "poi count=3"],
        "occupy": ["-p", "type1", "--step", "entrance", "--step", "exit", "--step", "occupy count=12 spacing=3",
                   "--reach", "entrance", "--stats"],
        "require-regions": ["-p", "type2", "--step", "keep-largest", "--step", "require regions=1"],
        "maze-plain": ["--size", "41x25", "--step", "maze"],
        "maze-loops": ["--size", "41x25", "--step", "maze loops"],
        "maze-connected": ["--size", "41x25", "--step", "maze connected no-isolated"],
    }
    for name, args in pipes.items():
        for s in ("0", "42", MAX_SEED):
            yield Case(f"pipeline/{name}/s{s}", ["-s", s] + args)
        wide = "1031x601" if "--size" not in args else None
        if wide:
            yield Case(f"pipeline/{name}/{wide}", ["-s", "42", "--size", wide] + args)


def input_cases():
    """Maps read with -i (from a file and from stdin) through steps and writers."""
    yield Case("input/ascii", ["-i", "in.txt"])
    yield Case("input/stdin-smooth", ["-i", "-", "--step", "smooth 2"], stdin="cave.txt")
    yield Case("input/png", ["-i", "in.txt", "-o", "map.png", "--scale", "8"])
    yield Case("input/json", ["-i", "in.txt", "-f", "json"])
    yield Case("input/tmx", ["-i", "in.txt", "-o", "map.tmx"])
    yield Case("input/tmj", ["-i", "in.txt", "-f", "tmj"])
    yield Case("input/pbm", ["-i", "in.txt", "-o", "map.pbm", "--scale", "2"])
    yield Case("input/generations", ["-i", "in.txt", "--generations", "1:5,0", "--step", "smooth 1"])
    yield Case("input/connect", ["-i", "in.txt", "--step", "connect", "--step", "remove-walls min=10"])
    yield Case("input/place", ["-i", "in.txt", "-s", "5", "--step", "entrance", "--step", "exit", "--step", "poi count=3 spacing=5"])
    yield Case("input/markers-reach", ["-i", "markers.txt", "--reach", "entrance"])
    yield Case("input/markers-png", ["-i", "markers.txt", "-o", "m.png"])
    yield Case("input/markers-json", ["-i", "markers.txt", "-f", "json"])
    yield Case("input/kinds-json", ["-i", "in.txt", "-s", "3", "--step", "entrance", "--step",
                                    "poi kind=chest count=3 spacing=4", "-f", "json"])
    yield Case("input/kinds-tmx", ["-i", "in.txt", "-s", "3", "--step", "entrance", "--step",
                                   "poi kind=chest count=3 spacing=4", "--step", "occupy count=2", "-o", "map.tmx"])
    yield Case("input/markers-stats", ["-i", "markers.txt", "--stats=json"])
    yield Case("input/markers-ansi", ["-i", "markers.txt", "-f", "ansi"])
    yield Case("pipeline/poi-for", ["-i", "in.txt", "-s", "4", "--step", "entrance", "--step",
                                    "poi count=30 spacing=12 for=200x100"])
    yield Case("pipeline/settings", ["-p", "level", "-s", "9", "-D", "poi.count=3", "-D", "fill=41",
                                     "-D", "rule.2.floor=4..9", "-f", "json"])
    yield Case("input/pipe-equals-preset", ["-i", "-", "--generations", "1:5,0"], stdin="type2-half.txt")


def all_cases():
    cases = []
    for gen in (format_cases, size_cases, big_cases, batch_cases, chunk_cases, reach_cases,
                pipeline_cases, input_cases):
        cases.extend(gen())
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate case names: {sorted(dup)}"
    return cases


def normalise(data, version):
    if data.startswith(b"\x89PNG"):
        return data
    v = version.encode()
    return (data.replace(b'"cavegen_version": "' + v + b'"', b'"cavegen_version": "VERSION"')
                .replace(b"cavegen " + v, b"cavegen VERSION"))


def sha(data):
    return hashlib.sha256(data).hexdigest()


def run_case(case, opts, version):
    """Returns (case, digest or None, error text or None)."""
    work = tempfile.mkdtemp(prefix="cavegen-det-")
    try:
        # The inputs the case names (a file it reads, or an output of the
        # same name, which is then not hashed), copied into its folder.
        inputs = {f for f in os.listdir(INPUTS) if any(f in a for a in case.args)}
        for f in inputs:
            shutil.copy(os.path.join(INPUTS, f), work)
        stdin = open(os.path.join(INPUTS, case.stdin), "rb") if case.stdin else subprocess.DEVNULL
        env = dict(os.environ)
        env.pop("CAVEGEN_TEST_PATHS", None)
        if opts.paths:
            env["CAVEGEN_TEST_PATHS"] = opts.paths
        cmd = opts.wrapper + [opts.cavegen] + case.args + opts.extra_args
        try:
            p = subprocess.run(cmd, cwd=work, stdin=stdin, capture_output=True, env=env,
                               timeout=opts.timeout)
        finally:
            if case.stdin:
                stdin.close()
        if p.returncode == 77 and opts.paths:
            return case, None, "skip: " + p.stderr.decode(errors="replace").strip()
        if opts.no_png and case.needs_png():
            if p.returncode == 0 or b"built without PNG support" not in p.stderr:
                return case, None, ("a build without PNG support should refuse it, got exit %d: %s"
                                    % (p.returncode, p.stderr.decode(errors="replace").strip()))
            if set(os.listdir(work)) != inputs:
                return case, None, "refused, but left files: %s" % sorted(set(os.listdir(work)) - inputs)
            return case, "no-png", None
        outputs = {}
        for root, _, files in sorted(os.walk(work)):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(root, f), work)
                if rel not in inputs:
                    with open(os.path.join(root, f), "rb") as fh:
                        outputs[rel] = fh.read()
        stdout = p.stdout
        if opts.flip_byte:  # the suite's own check: one byte changed must show
            if stdout:
                stdout = stdout[:-1] + bytes([stdout[-1] ^ 1])
            elif outputs:
                k = sorted(outputs)[0]
                outputs[k] = outputs[k][:-1] + bytes([outputs[k][-1] ^ 1])
            else:
                return case, "no-output", None
        lines = ["exit %d" % p.returncode, "stdout " + sha(normalise(stdout, version))]
        if case.stats:
            lines.append("stderr " + sha(p.stderr))
        for rel in sorted(outputs):
            lines.append("file %s %s" % (rel, sha(normalise(outputs[rel], version))))
        return case, sha("\n".join(lines).encode() + b"\n"), None
    except subprocess.TimeoutExpired:
        return case, None, "timed out after %d s" % opts.timeout
    finally:
        shutil.rmtree(work, ignore_errors=True)


def read_hashes():
    pinned = {}
    if not os.path.exists(HASHES):
        return pinned
    with open(HASHES) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            digest, name, cmd = line.rstrip("\n").split("  ", 2)
            pinned[name] = (digest, cmd)
    return pinned


HEADER = """\
# The determinism suite's pinned outputs (docs/determinism.md).
# One case per line: SHA-256 of its output manifest, its name, its command.
# A changed line is a changed output for users of that command: regenerate
# only on purpose, from the top of the repository after building, with
#   python3 tests/determinism/run.py --cavegen build/cavegen --update
# and record the change in docs/determinism.md.
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cavegen", required=True)
    ap.add_argument("--wrapper", default="", help="command the tool runs under (an emulator)")
    ap.add_argument("--paths", default="", help="CAVEGEN_TEST_PATHS for the test build")
    ap.add_argument("--extra-args", default="", help="arguments appended to every case")
    ap.add_argument("--no-png", action="store_true")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--flip-byte", action="store_true",
                    help="change one byte of each case's output: every case must then differ")
    ap.add_argument("--filter", default="", help="only cases whose name contains this")
    ap.add_argument("--share", default="",
                    help="K/N: the cases K modulo N, unless CAVEGEN_TEST_THOROUGH=1")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120)
    opts = ap.parse_args()
    opts.wrapper = shlex.split(opts.wrapper)
    opts.extra_args = shlex.split(opts.extra_args)
    opts.cavegen = os.path.abspath(opts.cavegen)
    if opts.update and (opts.paths or opts.extra_args or opts.wrapper or opts.no_png or opts.filter
                        or opts.flip_byte or opts.share):
        ap.error("--update takes the plain tool on this machine, every case")

    ver = subprocess.run(opts.wrapper + [opts.cavegen, "--version"], capture_output=True, check=True)
    version = ver.stdout.split()[1].decode()

    if opts.paths:  # a path this CPU cannot run: skip at once, not per case
        env = dict(os.environ, CAVEGEN_TEST_PATHS=opts.paths)
        probe = subprocess.run(opts.wrapper + [opts.cavegen, "--version"], capture_output=True,
                               env=env)
        if probe.returncode == 77:
            print("determinism: paths %s: %s; skipped"
                  % (opts.paths, probe.stderr.decode(errors="replace").strip()))
            return 77
    cases = [c for c in all_cases() if opts.filter in c.name]
    sampled = bool(opts.share) and os.environ.get("CAVEGEN_TEST_THOROUGH", "0") in ("", "0")
    if sampled:
        k, n = (int(v) for v in opts.share.split("/"))
        if not 0 <= k < n:
            ap.error("--share K/N needs 0 <= K < N")
        cases = [c for i, c in enumerate(cases) if i % n == k]
    pinned = read_hashes()
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(lambda c: run_case(c, opts, version), cases))

    where = (" ".join(filter(None, [opts.paths and "paths " + opts.paths, opts.wrapper and
                                    "under " + " ".join(opts.wrapper), " ".join(opts.extra_args),
                                    opts.no_png and "no PNG", sampled and "cases " + opts.share]))
             or "default paths")
    errors = [(c, e) for c, d, e in results if e and not e.startswith("skip")]
    skips = [(c, e) for c, d, e in results if e and e.startswith("skip")]
    if skips and len(skips) == len(results):
        print("determinism: %s: %s; skipped" % (where, skips[0][1][6:]))
        return 77
    for c, e in errors:
        print("ERROR %s: %s" % (c.name, e))

    if opts.update:
        if errors:
            print("determinism: not updated: %d cases failed to run" % len(errors))
            return 1
        new = {c.name: (d, shlex.join(c.args)) for c, d, _ in results}
        changed = 0
        for name in sorted(set(pinned) | set(new)):
            if name not in new:
                print("removed  %s" % name)
            elif name not in pinned:
                print("added    %s" % name)
            elif pinned[name] != new[name]:
                print("CHANGED  %s  %s -> %s" % (name, pinned[name][0][:12], new[name][0][:12]))
            else:
                continue
            changed += 1
        with open(HASHES, "w") as f:
            f.write(HEADER)
            for c, d, _ in results:
                f.write("%s  %s  %s\n" % (d, c.name, shlex.join(c.args)))
        print("determinism: %d cases, %d changed; wrote %s" % (len(results), changed,
                                                            os.path.relpath(HASHES)))
        return 0

    if opts.flip_byte:
        same = [c.name for c, d, e in results
                if not e and d != "no-output" and pinned.get(c.name, ("",))[0] == d]
        for name in same:
            print("UNCHANGED %s: one byte of its output changed, its hash did not" % name)
        flipped = sum(1 for c, d, e in results if not e and d != "no-output")
        print("determinism: one byte changed in each of %d outputs: %d unnoticed, %d errors"
              % (flipped, len(same), len(errors)))
        return 1 if same or errors or not flipped else 0

    failed = len(errors)
    for c, d, e in results:
        if e:
            continue
        if c.name not in pinned:
            print("NEW      %s: not in hashes.txt (run with --update)" % c.name)
            failed += 1
        elif pinned[c.name][1] != shlex.join(c.args):
            print("CHANGED  %s: command differs from hashes.txt" % c.name)
            failed += 1
        elif d != "no-png" and pinned[c.name][0] != d:
            print("DIFFERS  %s: %s\n         cavegen %s" % (c.name, d, shlex.join(c.args)))
            failed += 1
    if not opts.filter and not sampled:
        for name in sorted(set(pinned) - {c.name for c in cases}):
            print("MISSING  %s: in hashes.txt, not a case any more" % name)
            failed += 1
    print("determinism: %s: %d cases, %d failed, %d skipped" % (where, len(results), failed, len(skips)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
