"""cavegen: cellular-automaton caves, mazes and game levels from libcavegen.

    >>> import cavegen, numpy
    >>> m = cavegen.generate("level", seed=42, size=(120, 80), overrides={"poi.count": 4})
    >>> cells = numpy.asarray(m)          # (80, 120) uint8 view: 0 floor, 1 wall
    >>> route = m.path()                  # entrance to exit, [(x, y), ...]

The same preset, seed and size make the same map as the command
(`cavegen --preset level --seed 42 --size 120x80 -D poi.count=4`), byte for
byte in every format. The library is compiled into the extension module;
nothing but the standard library is needed at run time (numpy is optional:
maps and distance arrays are buffers it views without copying).
See docs/python.md.
"""
import os

from ._cavegen import (  # noqa: F401  (the package's API)
    MAX_DIM,
    UNREACHED,
    ArgumentError,
    Batch,
    Error,
    Map,
    Pipeline,
    Point,
    PresetError,
    Region,
    RequirementError,
    formats,
    library_version,
)
from . import _cavegen

__version__ = library_version()

__all__ = [
    "generate", "batch", "preset", "presets", "formats", "Pipeline", "Map", "Batch", "Point",
    "Region", "Error", "PresetError", "ArgumentError", "RequirementError", "UNREACHED", "MAX_DIM",
]


def presets():
    """The built-in presets as a dict, name -> one-line summary."""
    return dict(_cavegen.presets())


def _setting(name, value):
    if isinstance(value, bool):
        value = "yes" if value else "no"
    return "%s=%s" % (name, value)


def _settings(overrides):
    if not overrides:
        return []
    if isinstance(overrides, dict):
        return [_setting(k, v) for k, v in overrides.items()]
    return [str(s) for s in overrides]  # already "NAME=VALUE"


def _is_file(name):
    # The command's rule for -p: a built-in name first, then a file when the
    # name has a '/', ends in .preset or exists.
    return "/" in name or name.endswith(".preset") or os.path.exists(name)


def preset(name="type2", overrides=None):
    """A Pipeline from a built-in preset or a preset file, with overrides
    applied as the command's -D NAME=VALUE (a dict {"poi.count": 4,
    "maze.loops": False} or a list of "NAME=VALUE" strings). The pipeline's
    name (recorded in JSON and Tiled maps) is name as given, as with -p."""
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    text = _cavegen.builtin_text(name)
    if text is None:
        if not _is_file(name):
            near = _cavegen.nearest_preset(name)
            hint = "; did you mean '%s'?" % near if near else ""
            raise ArgumentError("unknown preset '%s'%s (built-in presets: %s)"
                                % (name, hint, ", ".join(presets())))
        with open(name, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    settings = _settings(overrides)
    if settings:
        text = _cavegen.apply_settings(text, settings)
    return Pipeline(text, name)


def _pipeline(p, overrides):
    if isinstance(p, Pipeline):
        if overrides:
            return Pipeline(_cavegen.apply_settings(p.text, _settings(overrides)), p.name)
        return p
    return preset(p, overrides)


def generate(preset="type2", seed=None, size=None, overrides=None, *, max_attempts=0, jobs=1):
    """One map.

    preset: a built-in name (cavegen.presets()), a preset file, or a
    Pipeline. seed: 0 .. 2**64-1 (None: drawn from os.urandom, then in
    map.seed). size: (width, height) (None: the preset's). overrides: the
    command's -D settings, {"fill": 47, "poi.count": 4}. max_attempts: for
    the requirements (0: 100). jobs: threads for one big map (0: one per
    core); the map does not depend on it. The GIL is released while the map
    is made. Raises PresetError, ArgumentError, RequirementError."""
    return _pipeline(preset, overrides).run(seed, size, max_attempts=max_attempts, jobs=jobs)


def batch(preset="type2", seed=0, count=1, size=None, overrides=None, *, max_attempts=0, jobs=0,
          stats=False, keep_going=False):
    """An iterator over count maps, map i made with seed + i (mod 2**64), in
    order: the maps of the command's -n COUNT. They are made ahead of the
    loop on jobs threads (0: one per core), the calling one included, with
    the GIL released; stats=True computes each map's figures on those
    threads too. keep_going=True skips
    the maps whose requirements fail (as --keep-going), else the first such
    map raises RequirementError after the maps before it."""
    return Batch(_pipeline(preset, overrides), seed, count, size, max_attempts, jobs, stats,
                 keep_going)
