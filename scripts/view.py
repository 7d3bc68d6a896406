#!/usr/bin/env python3
"""view.py RUN [options]: pictures of a run's particles (bagnold.view):
for each VTU series in RUN (a run folder's vtk/*.pvd, written with
--vtk-every) the final frame as a PNG coloured by a field, and with
--animate an animated PNG of the series; a .pvd or a .vtu given as RUN is
drawn alone. Pictures go to OUT (default RUN/pictures, or beside the file).
scripts/lab view RUN runs this with pyvista installed in a venv of its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def size_arg(text: str):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--size: '{text}' is not WIDTHxHEIGHT, e.g. 800x600")
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        raise argparse.ArgumentTypeError(f"--size: {w}x{h} is outside 64..4096 pixels a side")
    return w, h


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    ap.add_argument("run", type=Path, help="a run folder, a .pvd series or a .vtu frame")
    ap.add_argument("--field", default="speed",
                    help="speed (default), pressure, von_mises, density, mode, material, or a point array")
    ap.add_argument("--out", type=Path, default=None, help="folder for the pictures")
    ap.add_argument("--animate", action="store_true", help="also an animated PNG of each series")
    ap.add_argument("--size", type=size_arg, default=(800, 600), help="WIDTHxHEIGHT of a frame, pixels")
    ap.add_argument("--max-frames", type=int, default=60, help="frames of an animation, at most (>= 2)")
    ap.add_argument("--max-series", type=int, default=8, help="series drawn from a run folder, at most")
    ap.add_argument("--largest", action="store_true",
                    help="draw only the series whose final frame is the largest file (most particles)")
    ap.add_argument("--series", default="",
                    help="draw only the series whose name contains this text (with --largest: the largest of them)")
    a = ap.parse_args()
    if a.max_frames < 2:
        ap.error(f"--max-frames must be >= 2 (got {a.max_frames})")
    if a.max_series < 1:
        ap.error(f"--max-series must be >= 1 (got {a.max_series})")
    run = a.run
    if not run.exists():
        ap.error(f"{run} does not exist")
    if run.is_dir():
        series = sorted(run.rglob("*.pvd"))
        frames = [] if series else sorted(run.rglob("*.vtu"))[-1:]
        out = a.out or run / "pictures"
        if not series and not frames:
            ap.error(f"{run} holds no .pvd series and no .vtu frame (run the experiment with --vtk-every T)")
    elif run.suffix == ".pvd":
        series, frames, out = [run], [], a.out or run.parent
    elif run.suffix == ".vtu":
        series, frames, out = [], [run], a.out or run.parent
    else:
        ap.error(f"{run} is not a folder, a .pvd or a .vtu")
    from bagnold import view
    if a.series:
        chosen = [p for p in series if a.series in p.stem]
        if not chosen:
            ap.error(f"no series of {run} has '{a.series}' in its name (there are: "
                     f"{', '.join(p.stem for p in series) or 'none'})")
        series = chosen
    if a.largest and len(series) > 1:
        series = [max(series, key=lambda p: view.series_frames(p)[-1][1].stat().st_size)]

    if len(series) > a.max_series:
        print(f"view: {len(series)} series in {run}; drawing the first {a.max_series} (--max-series)")
        series = series[:a.max_series]
    for pvd in series:
        name = pvd.stem
        t, last = view.series_frames(pvd)[-1]
        png = view.render(last, out / f"{name}_{a.field}.png", field=a.field, size=a.size,
                          title=f"{name}  t = {t:.3f} s")
        print(f"view: {png}")
        if a.animate:
            anim = view.animate(pvd, out / f"{name}_{a.field}_anim.png", field=a.field, size=a.size,
                                max_frames=a.max_frames, title=name)
            print(f"view: {anim}")
    for vtu in frames:
        png = view.render(vtu, out / f"{vtu.stem}_{a.field}.png", field=a.field, size=a.size, title=vtu.stem)
        print(f"view: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
