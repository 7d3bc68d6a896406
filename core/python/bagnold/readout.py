"""The read-outs of a running simulation beyond its particle fields: the
grid, the sinks' parked mass, the stage timers and the walls' loads. A
mixin of Sim: it uses Sim's handle, error check and shape."""

from __future__ import annotations

import ctypes
import os
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from . import _native as _n
from .bodies import state_dict
from .scene import FACES, _vec


_ptr = _n.ptr


class Readouts:
    """Grid, sink, stage-time and wall read-outs (see Sim)."""

    def _need_dims(self) -> Tuple[int, ...]:
        if self._dims is None:
            raise ValueError("this simulation's grid is unknown")
        return self._dims

    def grid_mass(self) -> np.ndarray:
        """Node mass after the last step's P2G, kg, shape (nx, ny, nz)."""
        dims = self._need_dims()
        out = np.empty(dims, np.float32)
        self._check(_n.C.bg_sim_grid_mass(self._handle(), _ptr(out), out.size), "bg_sim_grid_mass")
        return out

    def grid_velocity(self) -> np.ndarray:
        """Node velocity after the grid update, m/s, shape (nx, ny, nz, 3)."""
        dims = self._need_dims()
        out = np.empty(tuple(dims) + (3,), np.float32)
        self._check(_n.C.bg_sim_grid_velocity(self._handle(), _ptr(out), out.size), "bg_sim_grid_velocity")
        return out

    def sink_mass(self) -> np.ndarray:
        """Parked mass per sink, kg, shape (n_sinks,)."""
        if self._n_sinks is None:
            raise ValueError("this simulation's sink count is unknown")
        out = np.zeros(self._n_sinks, np.float64)
        buf = out if out.size else np.zeros(1, np.float64)  # a valid pointer even for no sinks
        self._check(_n.C.bg_sim_sink_mass(self._handle(), _ptr(buf, _n._D), out.size), "bg_sim_sink_mass")
        return out

    def stage_times(self) -> Dict[str, float]:
        """Cumulative wall time per stage since creation, ms."""
        ms = (ctypes.c_double * 4)()
        self._check(_n.C.bg_sim_stage_times(self._handle(), ms), "bg_sim_stage_times")
        return dict(zip(("sort", "p2g", "grid", "g2p"), ms))

    @property
    def wall_names(self) -> List[str]:
        """Names of the walls in wall_forces' order: "collider0".., "body0".., then the faces."""
        n = int(_n.C.bg_sim_wall_count(self._handle()))
        nb = getattr(self, "_n_bodies", 0) or 0
        return ([f"collider{i}" for i in range(n - len(FACES) - nb)] + [f"body{k}" for k in range(nb)]
                + list(FACES))

    def wall_forces(self) -> np.ndarray:
        """Force the material exerted on each wall over the last step, N,
        shape (n_walls, 3): the colliders, the bodies, then the faces -x, +x, -y, +y, -z, +z."""
        n = int(_n.C.bg_sim_wall_count(self._handle()))
        out = np.empty((n, 3), np.float64)
        self._check(_n.C.bg_sim_wall_forces(self._handle(), _ptr(out, _n._D), out.size), "bg_sim_wall_forces")
        return out

    def wall_impulses(self) -> np.ndarray:
        """Impulse each wall received from the material since creation, N s,
        shape (n_walls, 3). A wall's mean load over a window is the difference
        of two readings over the window's length (contact forces come in
        impulses; a step shortened by advance_to divides one by a tiny dt)."""
        n = int(_n.C.bg_sim_wall_count(self._handle()))
        out = np.empty((n, 3), np.float64)
        self._check(_n.C.bg_sim_wall_impulses(self._handle(), _ptr(out, _n._D), out.size),
                    "bg_sim_wall_impulses")
        return out

    def body(self, k: int) -> Dict[str, Any]:
        """Rigid body k as it is now: x, q (w, x, y, z), v, w (world frame),
        the material's force and torque (about x) over the last step, mass,
        principal inertia, and whether it is parked (left the grid)."""
        st = _n.BodyState()
        self._check(_n.C.bg_sim_body_state(self._handle(), int(k), ctypes.byref(st)), "bg_sim_body_state")
        return state_dict(st)

    def set_body_velocity(self, k: int, v: Sequence[float], w: Sequence[float] = (0.0, 0.0, 0.0)) -> None:
        """Sets body k's linear and angular velocity (m/s, rad/s, world frame)
        before the next step: a kinematic body's script, or a kick."""
        cv = (_n.bg_real * 3)(*_vec(v, 3, "v"))
        cw = (_n.bg_real * 3)(*_vec(w, 3, "w"))
        self._check(_n.C.bg_sim_set_body_velocity(self._handle(), int(k), cv, cw), "bg_sim_set_body_velocity")

    def write_bodies_vtu(self, path: "os.PathLike[str] | str") -> None:
        """Every body's surface as posed now, one VTU of triangles (cell
        field "body", point field "velocity") for ParaView."""
        self._check(_n.C.bg_sim_write_bodies_vtu(self._handle(), os.fsencode(path)), "bg_sim_write_bodies_vtu")
