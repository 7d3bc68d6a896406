"""Rigid bodies coupled both ways with the material (bagnold.h's bg_body).

A :class:`Body` goes into ``Sim(..., bodies=[...])``; ``sim.body(k)``
reads one back as it is now (pose, velocities, the material's force and
torque on it), ``sim.set_body_velocity(k, v, w)`` scripts a kinematic one.
"""

import ctypes
import os
from typing import Any, Dict, Optional, Sequence, Union

from . import _native as _n
from .errors import check
from .scene import FrictionSpec, _number, _vec, friction

_SHAPES = {"sphere": 0, "box": 1, "mesh": 2, "plate": 3}


class Body:
    """A rigid body: a sphere (``radius``), a box (``half``, the
    half-extents along its own axes), a thin plate that cuts the material
    (``half``: its half-extents along its own x and y, its normal along its
    z, ``half[2]`` a half-thickness for its mass only) or a closed triangle mesh (``mesh``,
    the path of an OBJ or STL file in metres, read at once: its volume,
    centre of mass and inertia come from the surface, ``x`` places that
    centre and ``q`` turns the file's axes), of ``density`` kg/m^3, centred at
    ``x`` with orientation ``q`` (a quaternion w, x, y, z), moving at ``v``
    and spinning at ``w`` (world frame). ``friction`` is a Coulomb
    coefficient, "slip" or "stick"; ``kinematic`` bodies keep the velocity
    they are given; a nonzero ``axis`` keeps the spin along it. The library
    checks every value when the simulation is created and names the field
    it refuses."""

    def __init__(self, shape: str = "sphere", *, radius: Optional[float] = None,
                 half: Optional[Sequence[float]] = None, density: float = 1000.0,
                 x: Sequence[float] = (0.0, 0.0, 0.0), q: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                 v: Sequence[float] = (0.0, 0.0, 0.0), w: Sequence[float] = (0.0, 0.0, 0.0),
                 friction: FrictionSpec = 0.5, kinematic: bool = False,
                 axis: Sequence[float] = (0.0, 0.0, 0.0), linear_damping: float = 0.0,
                 angular_damping: float = 0.0, mesh: Union[None, str, "os.PathLike[str]"] = None) -> None:
        self._mesh = None  # the bg_mesh handle, destroyed with the Body
        if shape not in _SHAPES:
            raise ValueError(f"shape must be one of {', '.join(_SHAPES)} (got {shape!r})")
        if shape == "sphere" and radius is None:
            raise ValueError("a sphere needs radius")
        if shape in ("box", "plate") and half is None:
            raise ValueError(f"a {shape} needs half (three half-extents)")
        if shape == "mesh" and mesh is None:
            raise ValueError("a mesh body needs mesh (the path of a closed OBJ or STL surface, in metres)")
        if shape != "mesh" and mesh is not None:
            raise ValueError(f"mesh is read for shape='mesh' only (got shape {shape!r})")
        self.mesh_path = None if mesh is None else os.fspath(mesh)
        if self.mesh_path is not None:
            handle = ctypes.c_void_p()
            err = _n.err_buffer()
            code = _n.C.bg_mesh_load(self.mesh_path.encode(), ctypes.byref(handle), err, len(err))
            check(code, err.value.decode(errors="replace"), "bg_mesh_load")
            self._mesh = handle
        self.shape = shape
        self.radius = None if radius is None else _number(radius, "radius")
        self.half = None if half is None else _vec(half, 3, "half")
        self.density = _number(density, "density")
        self.x, self.q = _vec(x, 3, "x"), _vec(q, 4, "q")
        self.v, self.w = _vec(v, 3, "v"), _vec(w, 3, "w")
        self.friction = friction
        self.kinematic = bool(kinematic)
        self.axis = _vec(axis, 3, "axis")
        self.linear_damping = _number(linear_damping, "linear_damping")
        self.angular_damping = _number(angular_damping, "angular_damping")

    def _struct(self) -> "_n.Body":
        b = _n.C.bg_body_default()
        b.shape = _SHAPES[self.shape]
        if self.radius is not None:
            b.radius = self.radius
        if self.half is not None:
            b.half[:] = self.half
        b.density = self.density
        b.x[:], b.q[:], b.v[:], b.w[:] = self.x, self.q, self.v, self.w
        b.friction, b.mu = friction(self.friction)
        b.kinematic = int(self.kinematic)
        b.axis[:] = self.axis
        b.linear_damping, b.angular_damping = self.linear_damping, self.angular_damping
        if self._mesh is not None:
            b.mesh = self._mesh.value  # read (and copied) by bg_sim_create while this Body lives
        return b

    def __del__(self) -> None:
        handle = getattr(self, "_mesh", None)
        if handle is not None:
            self._mesh = None
            try:
                _n.C.bg_mesh_destroy(handle)
            except Exception:  # the library already unloaded at interpreter exit
                pass

    def __repr__(self) -> str:
        size = (f"radius={self.radius}" if self.shape == "sphere" else
                f"mesh={self.mesh_path!r}" if self.shape == "mesh" else f"half={self.half}")
        return f"Body({self.shape!r}, {size}, density={self.density}, x={self.x})"


def state_dict(st: "_n.BodyState") -> Dict[str, Any]:
    """A bg_body_state as plain Python values."""
    return {"x": tuple(st.x), "q": tuple(st.q), "v": tuple(st.v), "w": tuple(st.w),
            "force": tuple(st.force), "torque": tuple(st.torque), "mass": st.mass,
            "inertia": tuple(st.inertia), "parked": bool(st.parked)}
