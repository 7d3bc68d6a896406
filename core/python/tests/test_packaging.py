"""setup.py's build step copies the built library into the package, and the
package then loads that copy (BAGNOLD_LIBRARY unset, no build tree named):
what `pip install ./core/python` relies on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bagnold import _native

PKG = Path(__file__).resolve().parents[1]


def package_copy(out_dir: Path) -> Path:
    """The package's sources copied under out_dir: setuptools writes
    bagnold.egg-info beside setup.py, which must not land in the source tree."""
    src = out_dir / "src"
    shutil.copytree(PKG / "bagnold", src / "bagnold", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for f in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(PKG / f, src / f)
    return src


def test_build_py_packages_the_library(out_dir: Path):
    pytest.importorskip("setuptools")
    lib = _native.library_path
    env = dict(os.environ, BAGNOLD_LIBRARY=str(lib))
    build = out_dir / "build"
    r = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(build)],
                       cwd=package_copy(out_dir),
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    copy = build / "bagnold" / "libbagnold.so"
    assert copy.read_bytes() == lib.read_bytes()
    env = {k: v for k, v in os.environ.items() if k not in ("BAGNOLD_LIBRARY", "BAGNOLD_BUILD_DIR")}
    env["PYTHONPATH"] = str(build)
    r = subprocess.run([sys.executable, "-c", "import bagnold; print(bagnold.library_path)"], cwd=out_dir,
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()) == copy.resolve()


def test_missing_library_is_a_clear_error(out_dir: Path):
    pytest.importorskip("setuptools")
    env = dict(os.environ, BAGNOLD_LIBRARY=str(out_dir / "nope.so"))
    r = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(out_dir / "b")],
                       cwd=package_copy(out_dir), env=env, capture_output=True, text=True)
    assert r.returncode != 0 and "nope.so is not a file" in r.stderr + r.stdout
    r = subprocess.run([sys.executable, "-c", "import bagnold"], cwd=out_dir,
                       env=dict(env, PYTHONPATH=str(PKG)), capture_output=True, text=True)
    assert r.returncode != 0 and "BAGNOLD_LIBRARY" in r.stderr
