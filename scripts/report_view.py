"""report_view.py: the report's pictures of the sand itself (the registry's
column view): which frames a run writes for them, and their rendering by
scripts/view.py (pyvista, off-screen) in the venv scripts/view-env makes.
A machine that cannot have pyvista (no network for its first install) gets
a report that says so in place of the pictures, never a silent gap."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import List, Optional, Tuple

#: Fields the library writes into its VTU frames (bagnold.view.TITLES).
FIELDS = ("speed", "pressure", "von_mises", "density", "mode", "material")
#: --vtk-every of a still: longer than any run, so the first and final frames only.
STILL_EVERY = 1e4


def parse_spec(text: str) -> Optional[dict]:
    """'-', 'FIELD still [SERIES]' or 'FIELD anim T [SERIES]' (T simulated
    seconds between frames; SERIES, optional, text the drawn series' name
    must contain, where a run writes several and the largest is not the one
    to show) into None or {field, anim, every, series}; ValueError says
    what is wrong."""
    if text == "-":
        return None
    f = text.split()
    form = "'-', 'FIELD still [SERIES]' or 'FIELD anim T [SERIES]'"
    if len(f) < 2 or f[0] not in FIELDS:
        raise ValueError(f"'{text}' is not {form} with FIELD one of {', '.join(FIELDS)}")
    if f[1] == "still" and len(f) in (2, 3):
        return {"field": f[0], "anim": False, "every": STILL_EVERY, "series": f[2] if len(f) == 3 else ""}
    if f[1] == "anim" and len(f) in (3, 4):
        try:
            every = float(f[2])
        except ValueError:
            every = float("nan")
        if not 0 < every <= 10:
            raise ValueError(f"'{text}': the frame interval T must be in (0, 10] simulated seconds")
        return {"field": f[0], "anim": True, "every": every, "series": f[3] if len(f) == 4 else ""}
    raise ValueError(f"'{text}' is not {form}")


def run_args(spec: Optional[dict]) -> List[str]:
    """The run's extra arguments for its frames."""
    return [] if spec is None else ["--vtk-every", f"{spec['every']:g}"]


class Renderer:
    """scripts/view.py in the pyview venv, made once per report (on first
    use); why says why not when it cannot be had."""

    def __init__(self, root: str, build: str) -> None:
        self.root, self.build = root, build
        self.python: Optional[str] = None
        self.why = ""
        self._tried = False

    def _ensure(self) -> bool:
        if not self._tried:
            self._tried = True
            r = subprocess.run(["bash", os.path.join(self.root, "scripts", "view-env"),
                                os.path.join(self.build, "pyview")], capture_output=True, text=True)
            if r.returncode == 0 and r.stdout.strip():
                self.python = r.stdout.strip().splitlines()[-1]
            else:
                self.why = (r.stderr.strip().splitlines() or ["scripts/view-env failed"])[-1]
        return self.python is not None

    def render(self, spec: dict, rundir: str, name: str, figdir: str) -> Tuple[List[Tuple[str, str, str]], str]:
        """[(key, png, caption)] of run NAME's pictures copied into figdir,
        and '' or why there are none."""
        if not self._ensure():
            return [], f"no renderer ({self.why})"
        tmp = os.path.join(rundir, "pictures")
        shutil.rmtree(tmp, ignore_errors=True)
        cmd = [self.python, os.path.join(self.root, "scripts", "view.py"), rundir, "--field", spec["field"],
               "--out", tmp, "--largest", "--size", "720x540"]
        if spec["anim"]:
            cmd += ["--animate", "--max-frames", "40"]
        if spec["series"]:
            cmd += ["--series", spec["series"]]
        env = dict(os.environ, BAGNOLD_LIBRARY=os.path.join(self.build, "lib", "libbagnold.so"),
                   PYTHONPATH=os.path.join(self.root, "core", "python"))
        with open(os.path.join(rundir, "view.log"), "w") as log:
            r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        if r.returncode != 0:
            return [], f"scripts/view.py failed (exit {r.returncode}; see runs/{name}/view.log)"
        pngs = sorted(p for p in os.listdir(tmp) if p.endswith(".png")) if os.path.isdir(tmp) else []
        stills = [p for p in pngs if not p.endswith("_anim.png")]
        anims = [p for p in pngs if p.endswith("_anim.png")]
        out = []
        for kind, files in (("final", stills), ("anim", anims)):
            if not files:
                continue
            series = files[0][: -len(f"_{spec['field']}.png")] if kind == "final" else \
                files[0][: -len(f"_{spec['field']}_anim.png")]
            key = f"view_{name}" + ("_anim" if kind == "anim" else "")
            shutil.copyfile(os.path.join(tmp, files[0]), os.path.join(figdir, key + ".png"))
            what = ("The final particles" if kind == "final" else "The run in motion (animated PNG)")
            out.append((key, os.path.join(figdir, key + ".png"),
                        f"{what} of the simulation {series}, coloured by {spec['field'].replace('_', ' ')}; "
                        "rendered off-screen by pyvista from the run's VTU series (vtk/)"))
        if not out:
            return [], f"scripts/view.py wrote no picture (see runs/{name}/view.log)"
        return out, ""
