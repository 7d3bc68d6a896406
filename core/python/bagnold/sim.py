"""Sim: one bagnold simulation (a bg_sim handle) with numpy arrays in and out.

Every array crosses the boundary once, as a contiguous float32 (or float64
where the C API uses double) buffer the C function fills or reads; there is
no per-particle Python loop anywhere.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native as _n
from . import device as _dev
from .errors import BagnoldError, check
from .library import _path
from .readout import Readouts
from .running import drive as _drive
from .bodies import Body
from .scene import Collider, Material, Sink, sand, walls_table, _vec, _number

PathLike = Union[str, "os.PathLike[str]"]

#: Fields bg_sim_set accepts.
SETTABLE = ("v", "F", "stress")


@dataclass(frozen=True)
class Stats:
    """bg_stats: counters after the last step."""

    step: int
    time: float
    dt: float
    n_particles: int
    n_active: int
    n_parked: int
    n_parked_sink: int
    n_parked_out: int
    parked_mass: float
    total_mass: float
    max_speed: float
    steps_nonlocal_dt: int  # steps whose dt the nonlocal model's bound set
    nonlocal_dt_ratio: float  # that bound over the CFL bound at the last step


def _f32(a: Any, name: str, shape: Tuple[Optional[int], ...]) -> np.ndarray:
    """a as one contiguous float32 array of the given shape (None: any
    length), or ValueError naming the argument."""
    try:
        arr = np.ascontiguousarray(a, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must be an array of numbers") from e
    want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"
    if arr.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, arr.shape)):
        raise ValueError(f"{name} must have shape {want} (got {arr.shape})")
    return arr


_ptr = _n.ptr


def _check_materials(material: Any) -> None:
    """Material.check of the material given, or of each in a list (a
    material table, whose entry it names as bg_sim_create does:
    materials[k].nu), before bg_sim_create: a bad value's message then leads
    with the argument that set it."""
    if isinstance(material, Material):
        material.check()
    elif isinstance(material, (list, tuple)):
        for i, m in enumerate(material):
            try:
                m.check()
            except BagnoldError as e:
                msg = e.message.replace("material.", f"materials[{i}].")
                raise BagnoldError(e.code, msg, e.function) from None


class Sim(Readouts):
    """An MLS-MPM simulation.

    Args:
        grid: nodes per axis (nx, ny, nz), each >= 4; or (nx, nz): a 2D
            (plane-strain) simulation in the x-z plane y = origin[1], on a
            grid of nx x 1 x nz nodes (bg_sim_desc.dim 2). Its masses,
            volumes and forces are per metre of depth; :meth:`add` takes
            (n, 2) positions (x, z) or (n, 3) ones on the plane.
        dx: node spacing, m.
        origin: position of node (0, 0, 0), m.
        material: a :class:`~bagnold.Material` (default: ``sand()``), or a
            list of them: several materials in one simulation (at most
            256), each particle of the entry :meth:`add` names.
        colliders: :func:`~bagnold.halfspace`, :func:`~bagnold.box`,
            :func:`~bagnold.cylinder`, :func:`~bagnold.sdf` objects.
        collider: one collider, the seed's spelling
            (``collider=Collider.from_sdf(...)``); it comes first, before
            any in ``colliders``.
        bodies: :class:`~bagnold.Body` objects, rigid bodies coupled both
            ways with the material (``sim.body(k)``, ``sim.set_body_velocity``).
        sinks: :class:`~bagnold.Sink` objects or (lo, hi) pairs.
        walls: friction of the domain faces: one spec for all, or a mapping
            {"-x": ..., "+z": "open", "floor": 0.5, "all": "stick"}; a spec
            is a Coulomb coefficient, "slip", "stick" or "open".
        gravity: m/s^2 (default (0, 0, -9.81)).
        backend: a name of :func:`backends`, or "auto".
        properties: the backend's tuning (:func:`backend_properties`), a
            mapping {name: value} or a "name=value,..." string; None keeps
            every default.
        threads: CPU threads, 0 for the OpenMP default.
        cfl, fixed_dt, force_dt, sort_interval, damping: the
            bg_sim_desc fields of the same names; None keeps the library's
            default (bg_sim_desc_default).

    Raises:
        BagnoldError: the library refused the descriptor (``.status``, and
            the message naming the field and its range).
        ValueError: an argument of the wrong type or shape.
    """

    def __init__(self, grid: Sequence[int], dx: float, origin: Sequence[float] = (0.0, 0.0, 0.0),
                 material: Union[None, Material, Sequence[Material]] = None, colliders: Sequence[Collider] = (),
                 sinks: Sequence[Union[Sink, Tuple[Sequence[float], Sequence[float]]]] = (),
                 walls: Any = None, gravity: Optional[Sequence[float]] = None, backend: str = "auto",
                 threads: int = 0, cfl: Optional[float] = None, fixed_dt: Optional[float] = None,
                 force_dt: bool = False, sort_interval: Optional[int] = None,
                 properties: Union[None, str, Mapping[str, Any]] = None, damping: float = 0.0,
                 collider: Optional[Collider] = None, bodies: Sequence[Body] = ()) -> None:
        self._h = _n.c_void_p()
        d = _n.C.bg_sim_desc_default()
        dims = tuple(int(g) for g in grid) if np.ndim(grid) == 1 else ()
        if len(dims) not in (2, 3):
            raise ValueError(f"grid must be three node counts (nx, ny, nz), or two (nx, nz) for 2D "
                             f"(got {grid!r})")
        if min(dims) < 0:
            raise ValueError(f"grid counts must be >= 0 (got {dims})")
        if len(dims) == 2:
            d.dim = 2
            dims = (dims[0], 1, dims[1])
        d.dims[:] = dims
        d.dx = _number(dx, "dx")
        d.origin[:] = _vec(origin, 3, "origin")
        if gravity is not None:
            d.gravity[:] = _vec(gravity, 3, "gravity")
        many = isinstance(material, (list, tuple))
        mats = list(material) if many else [sand() if material is None else material]
        if not mats:
            raise ValueError("material: the list of materials is empty")
        for i, m in enumerate(mats):
            if not isinstance(m, Material):
                where = f"material[{i}]" if many else "material"
                raise ValueError(f"{where} must be a bagnold.Material (got {type(m).__name__})")
        mat = mats[0]
        d.material = mat._c
        # the table only has to live through bg_sim_create, which copies it
        table = (_n.Material * len(mats))(*[m._c for m in mats])
        if many:
            d.materials = table
            d.n_materials = len(mats)
        # the collider structs and their node arrays only have to live
        # through bg_sim_create, which copies them
        if collider is not None and not isinstance(collider, Collider):
            raise ValueError(f"collider must be a bagnold collider (got {type(collider).__name__})")
        cols = ([collider] if collider is not None else []) + list(colliders)
        for i, c in enumerate(cols):
            if not isinstance(c, Collider):
                raise ValueError(f"colliders[{i}] must be a bagnold collider (got {type(c).__name__})")
        col_arr = (_n.Collider * max(len(cols), 1))(*[c._struct(dims, i, d.dx) for i, c in enumerate(cols)])
        d.colliders = col_arr if cols else None
        d.n_colliders = len(cols)
        bods = list(bodies)
        for i, b in enumerate(bods):
            if not isinstance(b, Body):
                raise ValueError(f"bodies[{i}] must be a bagnold.Body (got {type(b).__name__})")
        body_arr = (_n.Body * max(len(bods), 1))(*[b._struct() for b in bods])
        d.bodies = body_arr if bods else None
        d.n_bodies = len(bods)
        snk = [s if isinstance(s, Sink) else Sink(*s) for s in sinks]
        snk_arr = (_n.Sink * max(len(snk), 1))(*[s._c for s in snk])
        d.sinks = snk_arr if snk else None
        d.n_sinks = len(snk)
        for f, (kind, mu) in enumerate(walls_table(walls, d.walls)):
            d.walls[f].friction, d.walls[f].mu = kind, mu
        self._backend_name = backend.encode()
        d.backend = self._backend_name
        d.threads = int(threads)
        if cfl is not None:
            d.cfl = _number(cfl, "cfl")
        if fixed_dt is not None:
            d.fixed_dt = _number(fixed_dt, "fixed_dt")
        d.force_dt = int(bool(force_dt))
        if sort_interval is not None:
            d.sort_interval = int(sort_interval)
        if isinstance(properties, Mapping):
            properties = ",".join(f"{k}={v}" for k, v in properties.items())
        self._properties = None if properties is None else str(properties).encode()
        d.properties = self._properties
        d.damping = _number(damping, "damping")
        _check_materials(material)
        err = _n.err_buffer()
        code = _n.C.bg_sim_create(ctypes.byref(d), ctypes.byref(self._h), err, len(err))
        check(code, err.value.decode(errors="replace"), "bg_sim_create")
        self._init_shape(dims, len(cols), len(snk))
        self._n_bodies = len(bods)
        self._plane_y = float(d.origin[1])
        self.material = mat.copy()
        self.materials = [m.copy() for m in mats]

    def _init_shape(self, dims: Optional[Tuple[int, ...]], n_colliders: Optional[int],
                    n_sinks: Optional[int]) -> None:
        self._dims = dims
        # bg_sim_desc.dim: a 2D simulation is the one grid with one y layer
        self.dim = 2 if dims is not None and dims[1] == 1 else 3
        self._n_colliders = n_colliders
        self._n_sinks = n_sinks
        self._C = _n.C  # kept so that __del__ works during interpreter shutdown

    # -------------------------------------------------------------- lifecycle

    @classmethod
    def load(cls, path: PathLike, backend: str = "auto", threads: int = 0) -> "Sim":
        """A new simulation from a checkpoint (bg_sim_load), on ``backend``;
        its grid, colliders and sinks are the checkpoint's (bg_sim_describe)."""
        self = cls.__new__(cls)
        self._h = _n.c_void_p()
        err = _n.err_buffer()
        code = _n.C.bg_sim_load(_path(path), backend.encode(), int(threads), ctypes.byref(self._h), err,
                                len(err))
        check(code, err.value.decode(errors="replace"), "bg_sim_load")
        d = _n.SimDesc()
        check(_n.C.bg_sim_describe(self._h, ctypes.byref(d)), "", "bg_sim_describe")
        self._init_shape(tuple(int(g) for g in d.dims), int(d.n_colliders), int(d.n_sinks))
        self._plane_y = float(d.origin[1])
        # the checkpoint's material table, copied out of the handle's own
        self.materials = [Material(_n.Material.from_buffer_copy(d.materials[k])) for k in range(d.n_materials)]
        self.material = self.materials[0] if self.materials else None
        return self

    def close(self) -> None:
        """Frees the simulation (bg_sim_destroy); later calls raise."""
        h, self._h = getattr(self, "_h", None), _n.c_void_p()
        if h:
            self._C.bg_sim_destroy(h)

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> "Sim":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handle(self) -> _n.c_void_p:
        if not self._h:
            raise ValueError("the simulation is closed")
        return self._h

    def _check(self, code: int, function: str) -> None:
        if code != 0:
            msg = _n.C.bg_sim_last_error(self._h)
            raise BagnoldError(code, msg.decode(errors="replace") if msg else "", function)

    @property
    def last_error(self) -> str:
        """bg_sim_last_error: the message of the last failed call ("" after success)."""
        msg = _n.C.bg_sim_last_error(self._handle())
        return msg.decode(errors="replace") if msg else ""

    @property
    def backend(self) -> str:
        """The backend in use, its full name (one of :func:`backends`)."""
        return _n.C.bg_sim_backend(self._handle()).decode()

    @property
    def properties(self) -> Dict[str, str]:
        """Every property of the backend in use with its resolved value (bg_sim_describe)."""
        d = _n.SimDesc()
        check(_n.C.bg_sim_describe(self._handle(), ctypes.byref(d)), "", "bg_sim_describe")
        text = d.properties.decode() if d.properties else ""
        return dict(item.split("=", 1) for item in text.split(",") if item)

    @property
    def grid(self) -> Optional[Tuple[int, ...]]:
        """Nodes per axis, or None for a loaded simulation not told its grid."""
        return self._dims

    def __len__(self) -> int:
        return self.stats.n_particles

    def __repr__(self) -> str:
        if not self._h:
            return "Sim(closed)"
        s = self.stats
        return (f"Sim(backend={self.backend!r}, grid={self._dims}, particles={s.n_particles}, "
                f"step={s.step}, time={s.time:.6g})")

    # -------------------------------------------------------------- particles

    def add(self, positions: Any, ppc: Optional[float] = None, velocities: Any = None,
            volumes: Any = None, material: int = 0) -> range:
        """Appends particles; returns their indices.

        Args:
            positions: (n, 3) m, inside the grid's interior; in 2D also
                (n, 2), (x, z) on the plane y = origin[1].
            ppc: particles per cell (volume dx^3 / ppc each, dx^2 (1 m) /
                ppc in 2D); default 8 (4 in 2D).
            velocities: (n, 3) m/s, or None for rest.
            volumes: m^3 per particle, a number or (n,) array, instead of ppc.
            material: the entry of the simulation's list of materials the
                particles are made of (mass: its rho0 times the volume).
        """
        if isinstance(material, bool) or not isinstance(material, (int, np.integer)):
            raise ValueError(f"material must be an index into the list of materials (got {material!r})")
        if _dev.has_cai(positions):  # a GPU array: bg_sim_add_particles_device, no host copy
            if volumes is not None:
                raise ValueError("particles from device arrays take ppc, not volumes")
            start = len(self)
            ppc = (4.0 if self.dim == 2 else 8.0) if ppc is None else _number(ppc, "ppc")
            return range(start, start + _dev.add_from(self, positions, velocities, ppc, int(material)))
        positions, velocities = self._plane_arrays(positions, velocities)
        x = _f32(positions, "positions", (None, 3))
        n = x.shape[0]
        v = None if velocities is None else _f32(velocities, "velocities", (n, 3))
        start = len(self)
        h = self._handle()
        if volumes is not None:
            if ppc is not None:
                raise ValueError("give ppc or volumes, not both")
            vol = np.full(n, volumes, np.float32) if np.ndim(volumes) == 0 else _f32(volumes, "volumes", (n,))
            self._check(_n.C.bg_sim_add_particles_volume_material(h, n, _ptr(x), _ptr(v), _ptr(vol), int(material)),
                        "bg_sim_add_particles_volume_material")
        else:
            ppc = (4.0 if self.dim == 2 else 8.0) if ppc is None else _number(ppc, "ppc")
            self._check(_n.C.bg_sim_add_particles_material(h, n, _ptr(x), _ptr(v), ppc, int(material)),
                        "bg_sim_add_particles_material")
        return range(start, start + n)

    def _plane_arrays(self, positions: Any, velocities: Any) -> Tuple[Any, Any]:
        """In 2D, (n, 2) positions (x, z) onto the plane and (n, 2)
        velocities with v_y 0; anything else unchanged."""
        if self.dim != 2:
            return positions, velocities
        def widen(a: Any, y: float) -> Any:
            a = np.asarray(a, dtype=np.float32)
            if a.ndim == 2 and a.shape[1] == 2:
                return np.stack([a[:, 0], np.full(a.shape[0], y, np.float32), a[:, 1]], axis=1)
            return a
        return widen(positions, self._plane_y), None if velocities is None else widen(velocities, 0.0)

    def get(self, field: str, out: Any = None) -> Any:
        """A copy of a per-particle field, in insertion order.

        "x", "v": (n, 3); "F", "C", "stress": (n, 3, 3) (row-major);
        "Jp", "density", "q", "mass": (n,) float32; "active": (n,) bool;
        "mode": (n,) int32 (0 elastic, 1 shear, 2 tip); "material": (n,) int32,
        each particle's index in the list of materials.

        out: a float32 GPU array of that shape (torch, CuPy: anything with
        __cuda_array_interface__) on a CUDA backend, written in place on the
        device and returned; "active", "mode" and "material" come as 1.0/0.0
        and the index as float32 there (bagnold.device).
        """
        if field not in _n.FIELDS:
            raise ValueError(f"unknown field {field!r}; accepted: {', '.join(_n.FIELDS)}")
        code, width = _n.FIELDS[field]
        if out is not None:
            if not _dev.has_cai(out):
                raise ValueError("out must be a GPU array (with __cuda_array_interface__); "
                                 "without out, get returns a new numpy array")
            return _dev.get_into(self, code, width, out)
        n = len(self)
        out = np.empty(n * width, np.float32)
        self._check(_n.C.bg_sim_get(self._handle(), code, _ptr(out), out.size), "bg_sim_get")
        if field == "active":
            return out != 0
        if field in ("mode", "material"):
            return out.astype(np.int32)
        return out.reshape((n, 3, 3) if width == 9 else (n, 3) if width == 3 else (n,))

    @property
    def device(self) -> Optional[int]:
        """The CUDA ordinal whose memory holds the particles, or None on a
        host backend (then get, set and add take numpy arrays only)."""
        d = _n.C.bg_sim_device_ordinal(self._handle())
        return None if d < 0 else int(d)

    @property
    def memory(self) -> Dict[str, float]:
        """The bytes the backend holds (bg_sim_memory): particle_bytes,
        grid_bytes, other_bytes, particles, per_particle (their total
        over the particles held) and grid_nodes (the nodes the grid holds
        memory for: the box's on a dense grid, fewer on a sparse or paged one)."""
        m = _n.Memory()
        self._check(_n.C.bg_sim_memory(self._handle(), ctypes.byref(m)), "bg_sim_memory")
        return {name: getattr(m, name) for name, _ in m._fields_}

    def get_device(self, field: str) -> "_dev.DeviceArray":
        """Field of every particle into new GPU memory the library owns, in
        insertion order: a DeviceArray (torch.as_tensor(a, device="cuda")
        and cupy.asarray(a) view it without a copy)."""
        if field not in _n.FIELDS:
            raise ValueError(f"unknown field {field!r}; accepted: {', '.join(_n.FIELDS)}")
        code, width = _n.FIELDS[field]
        return _dev.get_new(self, code, width)

    def density(self) -> np.ndarray:
        """rho0 / (det F Jp) per particle, kg/m^3, shape (n,)."""
        return self.get("density")

    def set(self, field: str, values: Any) -> None:
        """Overwrites a field of every particle (bg_sim_set): "v" (n, 3) m/s,
        "F" (n, 3, 3) elastic deformation gradient, or "stress" (n, 3, 3)
        symmetric Cauchy stress, Pa (the elastic F that carries it is set)."""
        if field not in SETTABLE:
            raise ValueError(f"field {field!r} cannot be set; accepted: {', '.join(SETTABLE)}")
        code, width = _n.FIELDS[field]
        n = len(self)
        if _dev.has_cai(values):  # a GPU array: velocities only, checked on the device
            if field != "v":
                raise ValueError(f"field {field!r} cannot be set from a GPU array: only 'v' can "
                                 "(F and stress are checked and inverted on the host)")
            _dev.set_from(self, code, values, field)
            return
        arr = _f32(values, field, (n, 3) if width == 3 else (n, 3, 3))
        self._check(_n.C.bg_sim_set(self._handle(), code, _ptr(arr), arr.size), "bg_sim_set")

    # ----------------------------------------------------------------- sources

    def add_source(self, *, mass_rate: float, shape: str = "disc", center: Sequence[float] = (0, 0, 0),
                   radius: float = 0.0, half: Sequence[float] = (0, 0, 0),
                   velocity: Sequence[float] = (0, 0, 0), t_start: float = 0.0, t_stop: float = float("inf"),
                   material: int = 0, ppc: float = 8.0, seed: int = 1) -> int:
        """Adds an emitter (bg_sim_add_source); returns its id.

        At the start of each step it owes mass_rate (kg/s) times the time it
        is active in the step (t_start <= t < t_stop, s) and emits that mass
        in particles of rho0 dx^3 / ppc, keeping the remainder. shape "disc":
        an inlet of ``radius`` (m) at ``center`` normal to ``velocity`` (m/s,
        nonzero), its particles spread over the cylinder it sweeps in the
        step; "box": uniform in the box of half extents ``half`` (m) about
        ``center``. ``material`` is an entry of the list of materials, and
        ``seed`` makes the placement repeatable. The library checks every
        value and names the one it refuses (BagnoldError).
        """
        if shape not in _n.SOURCE_SHAPES:
            raise ValueError(f"shape must be one of {', '.join(_n.SOURCE_SHAPES)} (got {shape!r})")
        for name, value in (("material", material), ("seed", seed)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{name} must be an integer (got {value!r})")
        if not 0 <= int(seed) < 1 << 64:
            raise ValueError(f"seed must lie in [0, 2^64) (got {seed})")
        if not -(1 << 31) <= int(material) < 1 << 31:
            raise ValueError(f"material must be an index into the list of materials (got {material})")
        s = _n.C.bg_source_default()
        s.shape = _n.SOURCE_SHAPES[shape]
        s.center[:] = _vec(center, 3, "center")
        s.half[:] = _vec(half, 3, "half")
        s.velocity[:] = _vec(velocity, 3, "velocity")
        s.radius = _number(radius, "radius")
        s.mass_rate = _number(mass_rate, "mass_rate")
        s.t_start = _number(t_start, "t_start")
        s.t_stop = _number(t_stop, "t_stop")
        s.material = int(material)
        s.ppc = _number(ppc, "ppc")
        s.seed = int(seed)
        sid = ctypes.c_int(-1)
        self._check(_n.C.bg_sim_add_source(self._handle(), ctypes.byref(s), ctypes.byref(sid)), "bg_sim_add_source")
        return sid.value

    def source_mass(self, sid: int) -> float:
        """Mass source sid emitted so far, kg (the sum of its particles' masses)."""
        kg = ctypes.c_double()
        self._check(_n.C.bg_sim_source_mass(self._handle(), int(sid), ctypes.byref(kg)), "bg_sim_source_mass")
        return kg.value

    def source_count(self, sid: int) -> int:
        """Particles source sid emitted so far."""
        n = ctypes.c_uint64()
        self._check(_n.C.bg_sim_source_count(self._handle(), int(sid), ctypes.byref(n)), "bg_sim_source_count")
        return n.value

    def source(self, sid: int) -> Dict[str, Any]:
        """Source sid as it was added (or as a checkpoint brought it back),
        as add_source's keyword arguments."""
        s = _n.Source()
        self._check(_n.C.bg_sim_source_describe(self._handle(), int(sid), ctypes.byref(s)), "bg_sim_source_describe")
        shape = {v: k for k, v in _n.SOURCE_SHAPES.items()}[s.shape]
        return dict(shape=shape, center=tuple(s.center), radius=s.radius, half=tuple(s.half),
                    velocity=tuple(s.velocity), mass_rate=s.mass_rate, t_start=s.t_start, t_stop=s.t_stop,
                    material=s.material, ppc=s.ppc, seed=s.seed)

    # ---------------------------------------------------------------- stepping

    def step(self) -> float:
        """One step; returns the dt taken, s."""
        dt = _n.bg_real()
        self._check(_n.C.bg_sim_step(self._handle(), ctypes.byref(dt)), "bg_sim_step")
        return float(dt.value)

    def run(self, n: Optional[int] = None, *, until: Optional[float] = None, progress: bool = False,
            callback: Optional[Callable[["Sim"], Any]] = None, every: int = 1) -> None:
        """n steps, or until=t: steps to the simulated time t, s (the last
        one shortened to land on it, as :meth:`advance_to`).

        The steps go to the library in calls of about 0.1 s, so Ctrl-C
        (KeyboardInterrupt) stops the run between two steps within a
        fraction of a second and leaves a consistent simulation to save or
        run on; the steps taken are those of one call, bit for bit.
        progress=True shows a bar (tqdm when installed, else a line on
        stderr with an ETA); callback(sim) runs after every ``every`` steps
        and once at the end."""
        if n is not None:
            if isinstance(n, bool) or int(n) != n or int(n) < 0:
                raise ValueError(f"n must be a whole number of steps >= 0 (got {n!r})")
            n = int(n)
        if until is not None:
            until = _number(until, "until")
        _drive(self, n, until, bool(progress), callback, int(every))

    def _run_steps(self, n: int) -> None:
        """n steps in one library call (bg_sim_run)."""
        self._check(_n.C.bg_sim_run(self._handle(), int(n)), "bg_sim_run")

    def advance_to(self, t: float) -> None:
        """Steps until the simulated time reaches t, s (the last step lands on it)."""
        self._check(_n.C.bg_sim_advance_to(self._handle(), _number(t, "t")), "bg_sim_advance_to")

    def next_dt(self) -> Tuple[float, float]:
        """(dt the next step would take, the stable bound it is held to), s."""
        dt, bound = _n.bg_real(), _n.bg_real()
        self._check(_n.C.bg_sim_next_dt(self._handle(), ctypes.byref(dt), ctypes.byref(bound)),
                    "bg_sim_next_dt")
        return float(dt.value), float(bound.value)

    # ----------------------------------------------------------------- set-up

    def set_gravity(self, g: Sequence[float]) -> None:
        """Gravity from the next step on, m/s^2."""
        arr = _f32(g, "g", (3,))
        self._check(_n.C.bg_sim_set_gravity(self._handle(), _ptr(arr)), "bg_sim_set_gravity")

    def set_damping(self, rate: float) -> None:
        """Grid damping rate from the next step on, 1/s (>= 0)."""
        self._check(_n.C.bg_sim_set_damping(self._handle(), _number(rate, "rate")), "bg_sim_set_damping")

    def set_geostatic(self, z_surface: float, k0: float) -> None:
        """The geostatic stress of a layer with its free surface at
        z = z_surface under the current gravity, sigma_xx = k0 sigma_zz."""
        self._check(_n.C.bg_sim_set_geostatic(self._handle(), _number(z_surface, "z_surface"),
                                              _number(k0, "k0")), "bg_sim_set_geostatic")

    # ------------------------------------------------------------- observation

    @property
    def stats(self) -> Stats:
        """bg_stats after the last step."""
        s = _n.Stats()
        self._check(_n.C.bg_sim_stats(self._handle(), ctypes.byref(s)), "bg_sim_stats")
        return Stats(**{f.name: getattr(s, f.name) for f in fields(Stats)})

    @property
    def time(self) -> float:
        """Simulated time, s."""
        return self.stats.time

    @property
    def step_count(self) -> int:
        """Steps taken."""
        return self.stats.step

    # -------------------------------------------------------------- checkpoint

    def save(self, path: PathLike, user: bytes = b"") -> None:
        """The whole state to a checkpoint file, with an optional user blob."""
        blob = bytes(user)
        self._check(_n.C.bg_sim_save(self._handle(), _path(path), blob, len(blob)), "bg_sim_save")

    def restore(self, path: PathLike) -> bytes:
        """Replaces particles, clock and tallies with a checkpoint's (the
        simulation must come from the same descriptor); returns its user blob."""
        h = self._handle()
        n = ctypes.c_size_t(0)
        # the blob's length is only known from the file: a first restore
        # skips the blob and reports it; a non-empty one is then read into a
        # buffer of that size (restoring twice from one file is idempotent)
        self._check(_n.C.bg_sim_restore(h, _path(path), None, 0, ctypes.byref(n)), "bg_sim_restore")
        if n.value == 0:
            return b""
        buf = ctypes.create_string_buffer(n.value)
        got = ctypes.c_size_t(0)
        self._check(_n.C.bg_sim_restore(h, _path(path), buf, n.value, ctypes.byref(got)), "bg_sim_restore")
        return buf.raw[: got.value]

    # ------------------------------------------------------------------ output

    def write_vtu(self, path: PathLike) -> None:
        """Binary VTU of every particle and field (ParaView)."""
        self._check(_n.C.bg_sim_write_vtu(self._handle(), _path(path)), "bg_sim_write_vtu")

    def write_vtk(self, path: PathLike) -> None:
        """Legacy VTK polydata: position, velocity, density, Jp."""
        self._check(_n.C.bg_sim_write_vtk(self._handle(), _path(path)), "bg_sim_write_vtk")

    def write_ply(self, path: PathLike) -> None:
        """Binary PLY (Blender): position, velocity, density, Jp."""
        self._check(_n.C.bg_sim_write_ply(self._handle(), _path(path)), "bg_sim_write_ply")

    def series(self, path: PathLike, comment: str = "") -> "SimSeries":
        """The standard per-step TSV series of this simulation; call
        ``.row()`` on it after the steps to record."""
        from .output import SimSeries

        return SimSeries(self, path, comment)
