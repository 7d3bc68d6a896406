"""Pictures of particles, rendered off-screen by VTK through pyvista: one
frame of a VTU file (or of a live :class:`~bagnold.Sim`) coloured by a field,
and an animation (animated PNG) of a VTU series (.pvd). pyvista is optional:
``pip install 'bagnold[view]'``, or ``scripts/lab view RUN``, which installs
it into a venv of its own and renders a run folder.

Fields: ``speed`` (|velocity|, m/s), ``pressure`` (-tr(sigma)/3, Pa),
``von_mises`` (Pa), ``density`` (kg/m^3), ``mode`` (the plastic mode the
return map took), ``material`` (the table entry), or any point array the
file holds.
"""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

PathLike = Union[str, "os.PathLike[str]"]

#: Colour-bar titles of the fields the library writes.
TITLES = {"speed": "speed, m/s", "pressure": "pressure, Pa", "von_mises": "von Mises stress, Pa",
          "density": "density, kg/m^3", "mode": "plastic mode", "material": "material"}


def _pyvista() -> Any:
    try:
        import pyvista
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("bagnold.view needs pyvista: pip install 'bagnold[view]', or run "
                          "scripts/lab view, which installs it in a venv of its own") from e
    pyvista.OFF_SCREEN = True
    # off-screen without a display VTK says so once per window: not news here
    try:
        from vtkmodules.vtkCommonCore import vtkLogger, vtkObject

        vtkObject.GlobalWarningDisplayOff()
        vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)
    except ImportError:  # pragma: no cover - an older VTK
        pass
    return pyvista


def field_values(mesh: Any, field: str) -> np.ndarray:
    """The per-particle values of a field of a VTU mesh (speed from velocity)."""
    if field == "speed":
        return np.linalg.norm(np.asarray(mesh.point_data["velocity"]), axis=1)
    if field not in mesh.point_data:
        raise ValueError(f"field {field!r} is not in the file (it has {sorted(mesh.point_data.keys())} and speed)")
    v = np.asarray(mesh.point_data[field])
    if v.ndim != 1:
        raise ValueError(f"field {field!r} has {v.shape[1]} components per particle; name a scalar field")
    return v


def _frame(pv: Any, mesh: Any, field: str, size: Tuple[int, int], clim: Optional[Sequence[float]],
           title: Optional[str], camera: Optional[Any]) -> Tuple[np.ndarray, Any]:
    vals = field_values(mesh, field)
    cloud = pv.PolyData(np.asarray(mesh.points, dtype=np.float64))
    cloud.point_data[field] = vals
    if clim is None:
        lo, hi = float(np.min(vals)), float(np.max(vals))
        clim = (lo, hi if hi > lo else lo + 1.0)
    p = pv.Plotter(off_screen=True, window_size=list(size))
    p.set_background("white")
    # points as spheres about one particle spacing across at this window size
    radius_px = max(2.0, min(10.0, 0.6 * size[0] / max(1.0, len(vals) ** (1 / 3.0)) / 2))
    p.add_mesh(cloud, scalars=field, cmap="viridis", clim=list(clim), render_points_as_spheres=True,
               point_size=radius_px, scalar_bar_args={"title": TITLES.get(field, field), "color": "black"})
    if title:
        p.add_text(title, font_size=10, color="black")
    if camera is None:
        p.camera_position = "iso"
        p.camera.zoom(1.1)
    else:
        p.camera_position = camera
    img = p.screenshot(return_img=True)
    cam = p.camera_position
    p.close()
    return img, cam


def render(source: Any, path: PathLike, field: str = "speed", size: Tuple[int, int] = (800, 600),
           clim: Optional[Sequence[float]] = None, title: Optional[str] = None) -> Path:
    """One PNG of the particles of ``source`` (a .vtu file or a Sim) coloured
    by ``field``; returns the path written."""
    pv = _pyvista()
    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        if hasattr(source, "write_vtu"):
            vtu = Path(tmp) / "frame.vtu"
            source.write_vtu(vtu)
        else:
            vtu = Path(source)
        img, _ = _frame(pv, pv.read(str(vtu)), field, size, clim, title, None)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(img).save(out)
    return out


def series_frames(pvd: PathLike) -> List[Tuple[float, Path]]:
    """(time, VTU path) of each frame of a ParaView series file, in order."""
    pvd = Path(pvd)
    root = ET.parse(pvd).getroot()
    frames = [(float(d.get("timestep", "0")), pvd.parent / d.get("file", "")) for d in root.iter("DataSet")]
    if not frames:
        raise ValueError(f"{pvd} lists no frames")
    return sorted(frames, key=lambda f: f[0])


def animate(pvd: PathLike, path: PathLike, field: str = "speed", size: Tuple[int, int] = (640, 480),
            max_frames: int = 60, fps: float = 10.0, title: str = "") -> Path:
    """An animated PNG of a series (at most ``max_frames`` frames, evenly
    picked, the last always in), one colour scale and one camera for all."""
    if max_frames < 2:
        raise ValueError(f"max_frames must be >= 2 (got {max_frames})")
    pv = _pyvista()
    from PIL import Image

    frames = series_frames(pvd)
    if len(frames) > max_frames:
        idx = np.unique(np.linspace(0, len(frames) - 1, max_frames).round().astype(int))
        frames = [frames[i] for i in idx]
    meshes = [(t, pv.read(str(f))) for t, f in frames]
    allv = np.concatenate([field_values(m, field) for _, m in meshes])
    lo, hi = float(allv.min()), float(np.percentile(allv, 99.5))
    clim = (lo, hi if hi > lo else lo + 1.0)
    # the camera of the first frame, widened to hold the last one too
    bounds = np.array([m.bounds for _, m in meshes])
    box = pv.Box(bounds=(bounds[:, 0].min(), bounds[:, 1].max(), bounds[:, 2].min(), bounds[:, 3].max(),
                         bounds[:, 4].min(), bounds[:, 5].max()))
    p = pv.Plotter(off_screen=True, window_size=list(size))
    p.add_mesh(box, opacity=0)
    p.camera_position = "iso"
    p.camera.zoom(1.1)
    camera = p.camera_position
    p.close()
    images = []
    for t, m in meshes:
        img, _ = _frame(pv, m, field, size, clim, f"{title}  t = {t:.3f} s".strip(), camera)
        images.append(Image.fromarray(img))
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(out, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return out
