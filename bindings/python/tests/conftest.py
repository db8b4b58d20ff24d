"""Shared fixtures: the command to compare with, and the source tree.

The command is $CAVEGEN_CLI, else build/cavegen of the source tree; CI sets
CAVEGEN_CLI, and then a missing command is an error, not a skip."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _cli_path():
    env = os.environ.get("CAVEGEN_CLI")
    if env:
        if not os.access(env, os.X_OK):
            raise RuntimeError("CAVEGEN_CLI=%s is not an executable" % env)
        return env
    path = os.path.join(ROOT, "build", "cavegen")
    return path if os.access(path, os.X_OK) else None


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cli():
    """A function running the command with arguments, returning its
    CompletedProcess (bytes); skips without the command."""
    path = _cli_path()
    if path is None:
        pytest.skip("no cavegen command: build it (cmake --build build) or set CAVEGEN_CLI")

    def run(*args, check=True, cwd=None):
        p = subprocess.run([path] + [str(a) for a in args], capture_output=True, cwd=cwd)
        if check and p.returncode != 0:
            raise AssertionError("cavegen %s: exit %d: %s"
                                 % (" ".join(map(str, args)), p.returncode, p.stderr.decode()))
        return p

    return run
