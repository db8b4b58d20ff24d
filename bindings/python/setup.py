"""Builds the cavegen Python package: the extension module cavegen._cavegen,
linked statically with libcavegen (docs/python.md).

The library comes from the source tree this folder sits in (../..): by
default CMake builds its static library, in Release, under the build's
temporary folder; with CAVEGEN_BUILD_DIR set to an existing CMake build of
the tree (one holding libcavegen.a), that library is linked instead. The
build needs what the library's build needs (cmake, a C compiler, libpng and
zlib unless the build is configured with -DCAVEGEN_PNG=OFF) and Python's
headers; nothing is downloaded.

    python3 -m venv --system-site-packages ~/.venvs/cavegen
    ~/.venvs/cavegen/bin/pip install --no-build-isolation ./bindings/python
or, for the tests, in place (then PYTHONPATH=bindings/python):
    python3 bindings/python/setup.py build_ext --inplace
"""
import os
import re
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HEADER = os.path.join(ROOT, "include", "cavegen", "cavegen.h")

# Paths below, and relative --build-lib and --build-temp, are relative to
# this folder wherever setup.py is run from; CAVEGEN_BUILD_DIR to where it is
# run from.
CALLER_CWD = os.getcwd()
os.chdir(HERE)

if not os.path.exists(HEADER):
    sys.exit("setup.py: %s is missing: build the package from the cavegen source tree "
             "(bindings/python inside it)" % HEADER)


def version():
    with open(HEADER) as f:
        m = re.search(r'#define CG_VERSION_STRING "([^"]+)"', f.read())
    return m.group(1)


def cmake_cache(build_dir):
    """The entries of a CMake build's cache, NAME -> value."""
    cache = {}
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"^([A-Za-z_0-9]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                cache[m.group(1)] = m.group(2)
    return cache


class BuildWithLibrary(build_ext):
    """build_ext that first builds (or finds) libcavegen.a, then links it in
    with what it needs (libpng and zlib, as the CMake build found them)."""

    def run(self):
        build_dir = os.environ.get("CAVEGEN_BUILD_DIR")
        if build_dir:
            build_dir = os.path.join(CALLER_CWD, build_dir)
        else:
            build_dir = os.path.join(os.path.abspath(self.build_temp), "libcavegen")
            jobs = os.environ.get("CAVEGEN_JOBS", "2")
            self.announce("building libcavegen.a with CMake in %s" % build_dir, level=2)
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir,
                                   "-DCMAKE_BUILD_TYPE=Release", "-DCAVEGEN_TESTS=OFF"])
            subprocess.check_call(["cmake", "--build", build_dir, "--target", "cavegen",
                                   "-j", jobs])
        lib = os.path.join(build_dir, "libcavegen.a")
        if not os.path.exists(lib):
            sys.exit("setup.py: no libcavegen.a in %s (build its 'cavegen' target)" % build_dir)
        cache = cmake_cache(build_dir)
        deps = []
        if cache.get("CAVEGEN_PNG", "ON").upper() not in ("OFF", "0", "FALSE", "NO"):
            for key in ("PNG_LIBRARY_RELEASE", "PNG_LIBRARY", "ZLIB_LIBRARY_RELEASE",
                        "ZLIB_LIBRARY"):
                v = cache.get(key, "")
                if v and not v.endswith("NOTFOUND") and v not in deps:
                    deps.append(v)
            if len(deps) < 2:
                deps = ["-lpng", "-lz"]
        for ext in self.extensions:
            ext.extra_objects = [lib]
            # A newer library (or header) relinks the module: setuptools
            # otherwise looks only at the module's own source, and an in-place
            # build against a rebuilt library would keep the old code.
            ext.depends = list(ext.depends) + [lib, HEADER]
            # The library's cg_ symbols stay inside the module.
            ext.extra_link_args = deps + ["-pthread", "-Wl,--exclude-libs,ALL"]
        super().run()


setup(
    name="cavegen",
    version=version(),
    description="Cave and maze generator (libcavegen): maps as numpy-ready arrays",
    long_description=open(os.path.join(HERE, "README.md")).read(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.9",
    packages=["cavegen"],
    package_data={"cavegen": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("cavegen._cavegen", ["cavegen/_cavegen.c"],
                           include_dirs=[os.path.join(ROOT, "include")],
                           extra_compile_args=["-std=gnu11", "-Wall", "-Wextra",
                                               "-Wno-missing-field-initializers",
                                               "-Wno-cast-function-type"])],
    cmdclass={"build_ext": BuildWithLibrary},
    zip_safe=False,
)
