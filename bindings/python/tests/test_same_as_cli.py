"""The package makes the bytes the command makes, for the same inputs: the
command is run here and its output compared (ASCII, JSON, --stats, -D, -n)."""
import json

import pytest

import cavegen

PRESETS = sorted(cavegen.presets())
SEEDS = [0, 1, 42, 1234567, 2**64 - 1]


@pytest.mark.parametrize("preset", PRESETS)
def test_ascii_equals_the_command_for_every_preset_and_seed(cli, preset):
    for seed in SEEDS:
        want = cli("--preset", preset, "--seed", seed).stdout.decode()
        assert cavegen.generate(preset, seed=seed).to_ascii() + "\n" == want, (preset, seed)


@pytest.mark.parametrize("preset", PRESETS)
def test_json_equals_the_command(cli, preset):
    for seed in (0, 42):
        want = cli("-p", preset, "-s", seed, "-f", "json").stdout.decode()
        assert cavegen.generate(preset, seed=seed).to_json() == want, (preset, seed)


@pytest.mark.parametrize("size", [(1, 37), (37, 1), (63, 5), (65, 7), (131, 37), (200, 129)])
def test_sizes_equal_the_command(cli, size):
    w, h = size
    for preset in ("type1", "type2", "classic"):
        want = cli("-p", preset, "-s", 7, "--size", "%dx%d" % size).stdout.decode()
        got = cavegen.generate(preset, seed=7, size=size)
        assert (got.width, got.height) == (w, h)
        assert got.to_ascii() + "\n" == want


def test_overrides_equal_the_commands_settings(cli):
    cases = [
        ("level", {"poi.count": 4, "fill": 41}, (120, 80)),
        ("level", {"rule.2.floor": "4..9"}, None),
        ("maze", {"maze.loops": False}, (41, 25)),
        ("type2", ["fill=47.5", "generations.2.r2=1"], None),
    ]
    for preset, overrides, size in cases:
        items = overrides.items() if isinstance(overrides, dict) else \
            [s.split("=", 1) for s in overrides]
        args = ["-p", preset, "-s", 9, "-f", "json"]
        for k, v in items:
            v = {False: "no", True: "yes"}.get(v, v) if isinstance(v, bool) else v
            args += ["-D", "%s=%s" % (k, v)]
        if size:
            args += ["--size", "%dx%d" % size]
        want = cli(*args).stdout.decode()
        got = cavegen.generate(preset, seed=9, size=size, overrides=overrides).to_json()
        assert got == want, (preset, overrides)


def test_stats_have_the_commands_keys_and_values(cli):
    for preset in ("level", "type2", "maze-perfect"):
        for seed in (3, 100):
            line = cli("-p", preset, "-s", seed, "--stats=json", "-o", "/dev/null").stderr
            want = json.loads(line)
            want["seed"] = int(want["seed"])
            want["run_seed"] = int(want["run_seed"])
            got = cavegen.generate(preset, seed=seed).stats
            assert list(got) == list(want)
            assert got == want


def test_a_batch_is_the_commands_batch(cli):
    want = cli("-p", "type2", "-s", 2**64 - 3, "-n", 7, "--size", "30x10").stdout.decode()
    maps = list(cavegen.batch("type2", seed=2**64 - 3, count=7, size=(30, 10)))
    assert "\n\n".join(m.to_ascii() for m in maps) + "\n" == want
    assert [m.index for m in maps] == list(range(7))
    assert [m.seed for m in maps] == [(2**64 - 3 + i) % 2**64 for i in range(7)]


def test_a_preset_file_is_named_as_the_command_names_it(cli, tmp_path):
    path = tmp_path / "mine.preset"
    path.write_text("# mine - mine\nsize 50x30\nfill 46\ngenerations 4 r1=5 r2=2")
    want = cli("-p", str(path), "-s", 5, "-f", "json").stdout.decode()
    assert cavegen.generate(str(path), seed=5).to_json() == want


def test_printing_the_ascii_map_prints_what_the_command_prints(cli):
    # The documented check, as a user types it.
    import subprocess
    import sys

    code = "import cavegen; print(cavegen.generate('type2', seed=42).to_ascii())"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout
    assert got == cli("--preset", "type2", "--seed", 42).stdout
    m = cavegen.generate("level", seed=3)
    assert m.encode("ascii") == (m.to_ascii() + "\n").encode()
