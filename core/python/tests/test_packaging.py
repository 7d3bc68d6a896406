"""Where the package finds its library: a copy inside the package (a wheel,
tests/wheel_check.sh builds and installs one), a cmake --install prefix
(BAGNOLD_PREFIX, or the usual prefixes), a build tree, or a file named in
BAGNOLD_LIBRARY; and the error that says all of this when none is there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from bagnold import _native

PKG = Path(__file__).resolve().parents[1]


def package_copy(out_dir: Path) -> Path:
    """The package's Python sources alone, as a pure-Python install leaves
    them: no library inside, no build tree beside."""
    src = out_dir / "site"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(PKG / "bagnold", src / "bagnold", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    return src


def clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("BAGNOLD_LIBRARY", "BAGNOLD_BUILD_DIR", "BAGNOLD_PREFIX", "PYTHONPATH")}
    env.update(extra)
    return env


def loaded_from(out_dir: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import bagnold; print(bagnold.library_path)"],
                          cwd=out_dir, env=env, capture_output=True, text=True)


def test_installed_prefix_is_found(out_dir: Path):
    # the layout cmake --install --prefix P makes (core/python/library.cmake)
    prefix = out_dir / "prefix"
    lib = prefix / "lib" / "bagnold" / "libbagnold.so"
    lib.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_native.library_path, lib)
    r = loaded_from(out_dir, clean_env(PYTHONPATH=str(package_copy(out_dir)), BAGNOLD_PREFIX=str(prefix)))
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()) == lib.resolve()


def test_copy_inside_the_package_comes_first(out_dir: Path):
    site = package_copy(out_dir)
    inside = site / "bagnold" / "libbagnold.so"
    shutil.copyfile(_native.library_path, inside)
    r = loaded_from(out_dir, clean_env(PYTHONPATH=str(site), BAGNOLD_PREFIX=str(out_dir / "elsewhere")))
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()) == inside.resolve()


def test_missing_library_is_a_clear_error(out_dir: Path):
    r = loaded_from(out_dir, clean_env(PYTHONPATH=str(package_copy(out_dir)), HOME=str(out_dir)))
    if r.returncode == 0:
        # a library installed under /usr/local or /usr on this machine is a
        # legitimate find; the message is then not reachable here
        assert "/usr" in r.stdout
        return
    for route in ("pip install ./core/python", "BAGNOLD_BUILD_DIR", "BAGNOLD_PREFIX", "BAGNOLD_LIBRARY"):
        assert route in r.stderr
    r = subprocess.run([sys.executable, "-c", "import bagnold"], cwd=out_dir,
                       env=clean_env(PYTHONPATH=str(package_copy(out_dir)),
                                     BAGNOLD_LIBRARY=str(out_dir / "nope.so")), capture_output=True, text=True)
    assert r.returncode != 0 and "nope.so is not a file" in r.stderr
