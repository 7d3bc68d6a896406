"""The package README's Python example, run as it is written there, so the
README cannot drift from the API: the one ```python block of its "From
Python" section."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_example() -> str:
    text = README.read_text()
    section = text[text.index("## From Python"):]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "the From Python section should hold exactly one python block"
    return blocks[0]


def test_readme_example_runs(out_dir: Path):
    code = readme_example()
    env = dict(os.environ)
    # the same package this test imports, however pytest found it
    import bagnold

    pkg_parent = str(Path(bagnold.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, "-c", code], cwd=out_dir, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    m = re.search(r"(\d+) particles, density (\d+) kg/m\^3, floor load ([0-9.]+) of the weight", r.stdout)
    assert m, r.stdout
    n, rho, load = int(m.group(1)), float(m.group(2)), float(m.group(3))
    assert n == 26 * 26 * 12
    assert abs(rho / 2200 - 1) < 0.02
    assert 0.5 < load < 1.5  # 100 steps (20 ms) in: the layer is still settling, but it stands on the floor
    assert (out_dir / "sand.vtu").stat().st_size > 0
