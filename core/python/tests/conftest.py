"""Shared helpers of the Python tests: particle lattices, an output folder,
the thread count. The tests run against the library named by
$BAGNOLD_LIBRARY (ctest sets it to the build's lib/libbagnold.so)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

#: One thread per test process: ctest runs two test files side by side on
#: the project's two cores.
THREADS = 1
#: Node spacing of most scenes, m.
DX = 0.01


def lattice(lo: Sequence[float], hi: Sequence[float], spacing: float) -> np.ndarray:
    """Particle positions at the centres of a regular lattice filling the box
    [lo, hi] (spacing dx/2 gives 8 particles per cell), shape (n, 3)."""
    axes = [np.arange(a + spacing / 2, b, spacing) for a, b in zip(lo, hi)]
    grid = np.meshgrid(*axes, indexing="ij")
    return np.stack([g.ravel() for g in grid], axis=1)


@pytest.fixture
def out_dir(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A fresh folder for a test's files: under $BAGNOLD_TEST_OUT (the build
    tree, where ctest puts it, kept for inspection) or pytest's tmp_path."""
    base = os.environ.get("BAGNOLD_TEST_OUT")
    if not base:
        return tmp_path
    d = Path(base) / request.node.name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True, exist_ok=True)
    return d
