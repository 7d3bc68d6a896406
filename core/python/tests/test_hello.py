"""The top-level README's first Python program ("First hour"), run as it is
written there: a sand column collapses, it prints the particle count and
the runout, and writes a VTU file. tests/downstream/run.sh hello runs the C
program of the same section, which must print the same runout."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "README.md"


def first_hour_block(lang: str) -> str:
    text = README.read_text()
    section = text[text.index("## First hour"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(rf"```{lang}\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, f"the First hour section should hold exactly one {lang} block"
    return blocks[0]


def test_first_hour_python_runs(out_dir: Path):
    import bagnold

    env = dict(os.environ)
    pkg_parent = str(Path(bagnold.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, "-c", first_hour_block("python")], cwd=out_dir, env=env,
                       capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stderr
    m = re.search(r"^(\d+) particles: runout ([0-9.]+) R0 after ([0-9.]+) s$", r.stdout, flags=re.M)
    assert m, r.stdout
    n, runout, t = int(m.group(1)), float(m.group(2)), float(m.group(3))
    # the cylinder of radius 5 cm cut from the 20^3 lattice of 5 mm spacing
    assert n == 6320
    assert t == 0.5
    # a column of aspect 2 spreads: at least past its own radius, and
    # nowhere near the box's side faces (15 cm, 3 R0, from the axis)
    assert 1.3 < runout < 3.0
    assert "100" in r.stderr and "%" in r.stderr  # progress=True: the bar (tqdm) or the line
    assert (out_dir / "column.vtu").stat().st_size > 6320 * 12
