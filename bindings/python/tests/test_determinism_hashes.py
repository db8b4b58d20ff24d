"""The package's output for the determinism suite's cases that it can
express (a preset, a seed, a size, settings, a format, a file): hashed
as tests/determinism/run.py hashes the command's output, it must give the
digest pinned in tests/determinism/hashes.txt."""
import importlib.util
import os
import shlex

import pytest

import cavegen

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RUN_PY = os.path.join(ROOT, "tests", "determinism", "run.py")


def _suite():
    spec = importlib.util.spec_from_file_location("determinism_run", RUN_PY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _parse(args):
    """The case's arguments as generate() and output arguments, or None
    when the case uses an option the package does not take."""
    it = iter(args)
    o = {"preset": "type2", "seed": None, "size": None, "overrides": [], "out": "-",
         "format": None, "scale": 0}
    for a in it:
        if a == "-p":
            o["preset"] = next(it)
        elif a == "-s":
            o["seed"] = int(next(it))
        elif a == "--size":
            o["size"] = tuple(int(v) for v in next(it).split("x"))
        elif a == "-D":
            o["overrides"].append(next(it))
        elif a == "-o":
            o["out"] = next(it)
        elif a == "-f":
            o["format"] = next(it)
        elif a == "--scale":
            o["scale"] = int(next(it))
        else:
            return None
    return o


def _digest(suite, o, tmp):
    """What run.py's manifest would be for the package's output."""
    try:
        m = cavegen.generate(o["preset"], seed=o["seed"], size=o["size"],
                             overrides=o["overrides"], jobs=2)
    except cavegen.Error:
        return suite.sha(b"exit 1\nstdout " + suite.sha(b"").encode() + b"\n")
    version = cavegen.__version__
    stdout = b""
    if o["out"] == "-":
        stdout = m.encode(o["format"] or "ascii", scale=o["scale"])
    else:
        m.save(os.path.join(tmp, o["out"]), format=o["format"], scale=o["scale"])
    lines = ["exit 0", "stdout " + suite.sha(suite.normalise(stdout, version))]
    for name in sorted(os.listdir(tmp)):
        with open(os.path.join(tmp, name), "rb") as f:
            data = f.read()
        lines.append("file %s %s" % (name, suite.sha(suite.normalise(data, version))))
        os.remove(os.path.join(tmp, name))
    return suite.sha("\n".join(lines).encode() + b"\n")


def test_pinned_outputs(tmp_path):
    suite = _suite()
    pinned = suite.read_hashes()
    checked, wrong = 0, []
    for case in suite.all_cases():
        if case.stats or case.stdin or not case.name.startswith(
                ("format/", "size/", "big/", "pipeline/settings")):
            continue
        o = _parse(case.args)
        if o is None or case.name not in pinned:
            continue
        checked += 1
        if _digest(suite, o, str(tmp_path)) != pinned[case.name][0]:
            wrong.append("%s  (%s)" % (case.name, shlex.join(case.args)))
    assert not wrong, "%d of %d cases differ:\n%s" % (len(wrong), checked, "\n".join(wrong))
    assert checked >= 300  # the suite's shape: format, size and big cases
