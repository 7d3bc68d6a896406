"""Packaging of the ctypes bindings with the built C library inside.

The package is pure Python; the one binary it carries is the libbagnold.so
the CMake build made, copied into the package at build time. Where from, in
order (the first that exists wins, and a named path that does not exist is an
error rather than a reason to pick some other build):

1. ``$BAGNOLD_LIBRARY``: the .so itself;
2. ``$BAGNOLD_BUILD_DIR/lib/libbagnold.so``: a build directory;
3. ``<repository>/build/lib/libbagnold.so``: the default build directory of
   ``scripts/lab`` beside this file.

The wheel is tagged for the platform because of that binary.
"""

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
LIBRARY = "libbagnold.so"


def find_library() -> Path:
    """The libbagnold.so to package (see the module docstring)."""
    env = os.environ.get("BAGNOLD_LIBRARY")
    if env:
        path = Path(env)
        if not path.is_file():
            raise SystemExit(f"bagnold: BAGNOLD_LIBRARY={env} is not a file")
        return path
    build = os.environ.get("BAGNOLD_BUILD_DIR")
    if build:
        path = Path(build) / "lib" / LIBRARY
        if not path.is_file():
            raise SystemExit(f"bagnold: BAGNOLD_BUILD_DIR={build} has no lib/{LIBRARY}; build it first "
                             f"(cmake --build {build})")
        return path
    path = HERE.parents[1] / "build" / "lib" / LIBRARY
    if path.is_file():
        return path
    raise SystemExit(f"bagnold: {LIBRARY} not found: build the library first (scripts/lab setup, or cmake "
                     f"--build BUILD_DIR) and set BAGNOLD_BUILD_DIR=BUILD_DIR unless it is {path.parents[1]}")


class BuildPyWithLibrary(build_py):
    """build_py, plus the C library copied into the built package."""

    def run(self) -> None:
        super().run()
        src = find_library()
        dest = Path(self.build_lib) / "bagnold" / LIBRARY
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.announce(f"bagnold: packaging {src}", level=2)
        shutil.copyfile(src, dest)
        dest.chmod(0o755)


class BinaryDistribution(Distribution):
    """A distribution that carries a platform binary (so the wheel is not py3-none-any)."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=BinaryDistribution)
