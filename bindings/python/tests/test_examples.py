"""The examples run, and say what they claim: the walk's map is the
command's level with the path drawn in, the dataset's rows are the maps'
figures."""
import os
import subprocess
import sys

import pytest

import cavegen

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(cavegen.__file__))))


def run(*args):
    p = subprocess.run([sys.executable] + list(args), capture_output=True, text=True, env=ENV)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_walk_path_draws_the_levels_path():
    out = run(os.path.join(EXAMPLES, "walk_path.py"), "7")
    level = cavegen.generate("level", seed=7)
    drawn = out.splitlines()[:level.height]
    route = set(level.path()[1:-1])
    for y, (got, want) in enumerate(zip(drawn, level.to_ascii().splitlines())):
        for x, (g, w) in enumerate(zip(got, want)):
            assert g == ("o" if (x, y) in route and w == "." else w)
    assert "%d steps" % (len(route) + 1) in out


def test_dataset_stacks_the_maps_figures(tmp_path):
    np = pytest.importorskip("numpy")
    out = tmp_path / "stats.npy"
    run(os.path.join(EXAMPLES, "dataset.py"), "--count", "120", "--size", "40x30",
        "--out", str(out))
    data = np.load(out)
    assert data.shape == (120, 7)
    for i in (0, 57, 119):
        s = cavegen.generate("level", seed=i, size=(40, 30)).stats
        assert list(data[i]) == [s[k] for k in ("floor_permille", "regions", "largest_region",
                                                "dead_ends", "points", "path_length", "attempts")]
