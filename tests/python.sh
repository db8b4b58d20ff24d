#!/usr/bin/env bash
# tests/python.sh BUILD SOURCE CLI - the Python package (bindings/python)
# against this build: built under BUILD/python-test from this build's
# libcavegen.a, then its pytest suite, which compares it with CLI and with
# the determinism suite's pinned hashes (docs/python.md). Skipped (77)
# without Debian's python3-dev, python3-setuptools and python3-pytest; CI
# installs them and also runs the suite on its own (.ci/run).
set -euo pipefail
build=$1 src=$2 cli=$3
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "python: no python3: skipped"; exit 77; }
if ! "$py" -c 'import os, sysconfig, setuptools, pytest
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null; then
    echo "python: needs python3-dev, python3-setuptools and python3-pytest: skipped"
    exit 77
fi
out=$build/python-test
rm -rf "$out"
CAVEGEN_BUILD_DIR=$build "$py" "$src/bindings/python/setup.py" -q build \
    --build-lib "$out/lib" --build-temp "$out/temp" >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
cd "$out"
CAVEGEN_CLI=$cli PYTHONPATH=$out/lib "$py" -m pytest -q -p no:cacheprovider \
    "$src/bindings/python/tests"
