"""What a simulation is made of: materials, colliders, sinks and walls.

Each object holds the ctypes struct bagnold.h defines for it; ranges are
checked by the library when the simulation is created (its message names the
field), types and array shapes here.
"""

from __future__ import annotations

import ctypes
import math
import re
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native as _n
from .errors import check

#: A friction given the Pythonic way: a Coulomb coefficient, "slip" or
#: "stick" (and "open" for a domain face).
FrictionSpec = Union[float, str]

_COMMON = ("E", "nu", "rho0", "stress", "volume_correction", "elastic_only")

#: taichi_mpm's parameter names (its README's particle attributes) that mean
#: exactly what a bagnold parameter means, each accepted in its place:
#: name -> (model label, or None for every model; bagnold's name). The value
#: is in bagnold's units, SI (core/python/README.md has the table).
ALIASES: Dict[str, Tuple[Optional[str], str]] = {
    "youngs_modulus": (None, "E"),
    "poisson_ratio": (None, "nu"),
    "density": (None, "rho0"),
    "friction_angle": ("drucker-prager", "phi_deg"),
    "k": ("water", "bulk_modulus"),
}

#: taichi_mpm's Lame pair, given together in place of E and nu.
LAME = ("mu_0", "lambda_0")


def _vec(value: Sequence[float], n: int, name: str) -> Tuple[float, ...]:
    """n finite-or-not floats from a sequence (the library checks finiteness
    and says which field), or ValueError naming the argument."""
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must be {n} numbers (got {value!r})") from e
    if arr.shape != (n,):
        raise ValueError(f"{name} must be {n} numbers (got shape {np.shape(value)})")
    return tuple(float(v) for v in arr)


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number (got {value!r})")
    return float(value)


# ------------------------------------------------------------------ materials


#: taichi_mpm's particle types under the label of the model that is each.
MODEL_ALIASES = {"jelly": "elastic", "sand": "drucker-prager", "von_mises": "von-mises"}


def _model_index(model: Union[str, int]) -> int:
    if isinstance(model, str):
        label = MODEL_ALIASES.get(model, model)
        idx = _n.C.bg_material_model_from_name(label.encode())
        if idx < 0:
            labels = ", ".join(label for _, label, _ in _n.MODELS)
            what = f"{model!r} ({label!r})" if label != model else repr(model)
            raise ValueError(f"material model {what} is unknown to this build of {_n.library_path}; "
                             f"registered: {labels}")
        return int(idx)
    if isinstance(model, (int, np.integer)) and not isinstance(model, bool):
        return int(model)
    raise ValueError(f"material model must be a name or an index (got {model!r})")


class Material:
    """A bg_material: the model, its elasticity and density, and the model's
    own parameters (the union member named after the model).

    Parameters are attributes of the underlying struct; :meth:`set` changes
    any of them by name and :meth:`params` lists them. Enumerations take
    their names: ``stress="hencky" | "fixed-corotated"``, and for
    Drucker-Prager ``cone="compression" | "extension" | "plane-strain"``.
    """

    def __init__(self, c: _n.Material) -> None:
        self._c = c
        # field ("E", "dp.phi_deg") -> the argument that set it, for messages
        self._given: Dict[str, str] = {}

    @property
    def model(self) -> str:
        """The model's label ("drucker-prager", "mu-i", "ngf", ...: bagnold.models())."""
        name = _n.C.bg_material_model_name(self._c.model)
        return name.decode() if name else f"model {self._c.model}"

    def _member_name(self) -> Optional[str]:
        """The union member ("dp") of the current model, None for an unknown tag."""
        if 0 <= self._c.model < len(_n.MODELS):
            return _n.MODELS[self._c.model][0]
        return None

    def _member(self) -> Optional[ctypes.Structure]:
        """The union member of the current model, or None for an unknown tag."""
        name = self._member_name()
        return getattr(self._c, name) if name is not None else None

    def params(self) -> Dict[str, Any]:
        """Every parameter by name: the common ones, then the model's."""
        out: Dict[str, Any] = {k: getattr(self._c, k) for k in _COMMON}
        out["stress"] = _name_of(_n.STRESS_MODELS, out["stress"])
        out["volume_correction"] = bool(out["volume_correction"])
        out["elastic_only"] = bool(out["elastic_only"])
        member, name = self._member(), self._member_name()
        if member is not None:
            kinds = _n.PARAM_KINDS[name]
            for field, _ in member._fields_:
                value = getattr(member, field)
                if kinds[field] == _n.MATP_INT:
                    value = bool(value)
                elif (self.model, field) in _n.ENUMS:
                    value = _name_of(_n.ENUMS[self.model, field], value)
                out[field] = value
        return out

    def set(self, **params: Any) -> "Material":
        """Sets parameters by name (any common or model parameter, or one of
        taichi_mpm's names in :data:`ALIASES`, or its Lame pair ``mu_0`` and
        ``lambda_0`` together in place of E and nu); returns self. An
        unknown name is a ValueError listing the accepted ones. Ranges are
        the library's: :meth:`check`."""
        member, name = self._member(), self._member_name()
        model_fields = [f for f, _ in member._fields_] if member is not None else []
        params = self._lame_to_elasticity(self._resolve_aliases(params))
        for key, (arg, value) in params.items():
            given = arg if "=" in arg else f"{arg}={value!r}"
            if key == "stress":
                self._c.stress = _enum_value(_n.STRESS_MODELS, value, arg)
            elif key in ("volume_correction", "elastic_only"):
                setattr(self._c, key, int(bool(value)))
            elif key in _COMMON:
                setattr(self._c, key, _number(value, arg))
            elif key in model_fields:
                kind = _n.PARAM_KINDS[name][key]
                if (self.model, key) in _n.ENUMS:
                    value = _enum_value(_n.ENUMS[self.model, key], value, arg)
                elif kind == _n.MATP_INT:
                    value = int(bool(value))
                elif kind == _n.MATP_ENUM:
                    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                        raise ValueError(f"{arg} takes the integer value of its C enum (got {value!r})")
                    value = int(value)
                else:
                    value = _number(value, arg)
                setattr(member, key, value)
            else:
                aliases = [a for a, (m, _) in ALIASES.items() if m in (None, self.model)]
                accepted = ", ".join(list(_COMMON) + model_fields + aliases + list(LAME))
                raise ValueError(f"{self.model} has no parameter {key!r} in this build ({_n.library_path}); "
                                 f"accepted: {accepted}")
            self._given[key if key in _COMMON else f"{name}.{key}"] = given
        return self

    def _resolve_aliases(self, params: Mapping[str, Any]) -> Dict[str, Tuple[str, Any]]:
        """{bagnold name: (argument as given, value)}: taichi_mpm's names
        replaced by bagnold's; one parameter given twice is a ValueError."""
        out: Dict[str, Tuple[str, Any]] = {}
        for key, value in params.items():
            target = key
            if key in ALIASES:
                owner, target = ALIASES[key]
                if owner not in (None, self.model):
                    raise ValueError(f"{key} is {owner}'s {target}, not a parameter of {self.model}")
            if target in out:
                raise ValueError(f"{out[target][0]} and {key} name the same parameter ({target}): give one")
            out[target] = (key, value)
        return out

    @staticmethod
    def _lame_to_elasticity(params: Dict[str, Tuple[str, Any]]) -> Dict[str, Tuple[str, Any]]:
        """taichi_mpm's mu_0 and lambda_0 (Pa) as E and nu:
        E = mu (3 lambda + 2 mu) / (lambda + mu), nu = lambda / (2 (lambda + mu))."""
        given = [k for k in LAME if k in params]
        if not given:
            return params
        if len(given) == 1:
            raise ValueError(f"{given[0]} needs {LAME[1 - LAME.index(given[0])]} too: "
                             "the Lame pair mu_0, lambda_0 replaces E and nu together")
        if "E" in params or "nu" in params:
            raise ValueError("give E and nu, or mu_0 and lambda_0, not both")
        mu = _number(params.pop("mu_0")[1], "mu_0")
        lam = _number(params.pop("lambda_0")[1], "lambda_0")
        arg = f"mu_0={mu:g}, lambda_0={lam:g}"
        s = lam + mu
        # a pair with lambda + mu = 0 has no E, nu: NaN, which check() names
        params["E"] = (arg, mu * (3 * lam + 2 * mu) / s if s != 0 else math.nan)
        params["nu"] = (arg, lam / (2 * s) if s != 0 else math.nan)
        return params

    def replace(self, **params: Any) -> "Material":
        """A copy with some parameters changed."""
        return self.copy().set(**params)

    def copy(self) -> "Material":
        c = _n.Material()
        ctypes.pointer(c)[0] = self._c
        m = Material(c)
        m._given = dict(self._given)
        return m

    def pwave_speed(self) -> float:
        """sqrt((lambda + 2 mu) / rho0), m/s (bg_material_pwave_speed)."""
        return float(_n.C.bg_material_pwave_speed(ctypes.byref(self._c)))

    def check(self) -> "Material":
        """Runs bg_sim_create's checks of the material alone
        (bg_material_params): every parameter against the range its model's
        header gives. Raises BagnoldError naming the bad field and its range,
        led by the argument that set it (``friction_angle=95: material.dp.phi_deg
        must be in (0, 90) ...``); returns self."""
        coeffs = ctypes.create_string_buffer(_n.MAT_COEFFS_BYTES)
        err = _n.err_buffer()
        code = _n.C.bg_material_params(ctypes.byref(self._c), coeffs, err, len(err))
        msg = err.value.decode(errors="replace")
        if code != 0:
            # the library names the field as material.E or material.<member>.<field>
            for field in re.findall(r"material\.((?:\w+\.)?\w+)", msg):
                if field in self._given:
                    msg = f"{self._given[field]}: {msg}"
                    break
        check(code, msg, "bg_material_params")
        return self

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={_fmt(v)}" for k, v in self.params().items())
        return f"Material({self.model!r}, {body})"


def _fmt(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else repr(v)


def _name_of(table: Mapping[str, int], value: int) -> Union[str, int]:
    for k, v in table.items():
        if v == value:
            return k
    return value


def _enum_value(table: Mapping[str, int], value: Union[str, int], name: str) -> int:
    if isinstance(value, str):
        if value not in table:
            raise ValueError(f"{name} must be one of {', '.join(table)} (got {value!r})")
        return table[value]
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)  # a raw enum value: the library checks its range
    raise ValueError(f"{name} must be one of {', '.join(table)} (got {value!r})")


def material(model: Union[str, int], **params: Any) -> Material:
    """A registered model (its label, bagnold.models(), or taichi_mpm's
    type name: jelly, sand, von_mises) with its default parameters
    (bg_material_default: its header's), then ``params`` set by name
    (:meth:`Material.set`: bagnold's names or taichi_mpm's), then every
    parameter checked against its range (:meth:`Material.check`: a
    BagnoldError naming the argument, the field and the range)."""
    return Material(_n.C.bg_material_default(_model_index(model))).set(**params).check()


def sand(phi_deg: Optional[float] = None, **params: Any) -> Material:
    """Klar et al. 2016's Drucker-Prager sand (bg_mat_dp.h's defaults: phi
    35 degrees) with friction angle ``phi_deg`` (degrees; taichi_mpm's
    ``friction_angle``) and any other parameter by name: E, nu, rho0
    (``youngs_modulus``, ``poisson_ratio``, ``density``), stress,
    volume_correction, elastic_only, cone, hardening, h0, h1, h2, h3, and
    in a build with cohesion ``cohesion`` (Pa) and ``beta``. Checked as
    :func:`material` checks."""
    if phi_deg is not None:
        params["phi_deg"] = phi_deg
    return material("drucker-prager", **params)


def mui(**params: Any) -> Material:
    """Jop et al. 2006's mu(I) sand (bg_material_mui); parameters by name:
    mu_s, mu_2, I0, d, rho_s and the common E, nu, rho0, stress,
    volume_correction, elastic_only. Checked as :func:`material` checks."""
    return material("mu-i", **params)


def ngf(**params: Any) -> Material:
    """Nonlocal granular fluidity (Kamrin & Koval 2012) with its defaults;
    parameters by name: mu_s, b, A, d, rho_s, t0 and the common ones.
    Checked as :func:`material` checks."""
    return material("ngf", **params)


# ------------------------------------------------------------------ boundaries


def friction(spec: FrictionSpec, allow_open: bool = False) -> Tuple[int, float]:
    """(bg_friction, mu) of a friction spec: a Coulomb coefficient (0 is
    slip), "slip", "stick", or, for a domain face, "open"."""
    if isinstance(spec, str):
        kinds = {"slip": _n.FRICTION_SLIP, "stick": _n.FRICTION_STICK}
        if allow_open:
            kinds["open"] = _n.FRICTION_OPEN
        if spec not in kinds:
            raise ValueError(f"friction must be a number or one of {', '.join(kinds)} (got {spec!r})")
        return kinds[spec], 0.0
    return _n.FRICTION_COULOMB, _number(spec, "friction")


class Collider:
    """A bg_collider. Made by :func:`halfspace`, :func:`box`,
    :func:`cylinder` or :func:`sdf`; the library copies node arrays at
    creation, so a collider can be reused across simulations."""

    def __init__(self, shape: int, friction_spec: FrictionSpec, velocity: Sequence[float]) -> None:
        self._c = _n.Collider()
        self._c.shape = shape
        self._c.friction, self._c.mu = friction(friction_spec)
        self._c.velocity[:] = _vec(velocity, 3, "velocity")
        self.phi: Optional[np.ndarray] = None
        self.normals: Optional[np.ndarray] = None
        self.friction = friction_spec
        #: the node spacing an SDF was sampled at, when given (from_sdf)
        self.dx: Optional[float] = None

    @property
    def shape(self) -> str:
        return ("halfspace", "box", "cylinder", "sdf")[self._c.shape]

    def _struct(self, dims: Tuple[int, int, int], index: int, sim_dx: Optional[float] = None) -> _n.Collider:
        """The struct for a grid of dims nodes, its arrays pointed at (the
        arrays must outlive the bg_sim_create call that reads them)."""
        if self.phi is not None:
            if self.dx is not None and sim_dx is not None and not math.isclose(self.dx, sim_dx, rel_tol=1e-6):
                raise ValueError(f"colliders[{index}]: the SDF was sampled at dx = {self.dx:g} m, "
                                 f"the simulation's dx is {sim_dx:g} m")
            if self.phi.shape != tuple(dims):
                raise ValueError(f"colliders[{index}]: phi_nodes must have the grid's shape {tuple(dims)} "
                                 f"(got {self.phi.shape})")
            self._c.phi = self.phi.ctypes.data_as(_n._F)
            if self.normals is not None:
                if self.normals.shape != tuple(dims) + (3,):
                    raise ValueError(f"colliders[{index}]: normals must have shape {tuple(dims) + (3,)} "
                                     f"(got {self.normals.shape})")
                self._c.normals = self.normals.ctypes.data_as(_n._F)
        return self._c

    @classmethod
    def from_sdf(cls, phi: np.ndarray, normals: Optional[np.ndarray] = None, dx: Optional[float] = None,
                 mu: Optional[float] = 0.3, invert: bool = False) -> "Collider":
        """The seed's spelling of :func:`sdf`: ``phi`` on the grid's nodes
        (m, negative in solid), ``normals`` or None, the node spacing ``dx``
        the field was sampled at (a :class:`~bagnold.Sim` of another dx
        refuses it), and the wall friction ``mu``: a Coulomb coefficient,
        or None for a stick wall (``friction="stick"``)."""
        c = sdf(phi, normals, friction="stick" if mu is None else _number(mu, "mu"), invert=invert)
        if dx is not None:
            c.dx = _number(dx, "dx")
            if not c.dx > 0:
                raise ValueError(f"dx must be > 0 m (got {dx!r})")
        return c

    def __repr__(self) -> str:
        return f"Collider({self.shape}, friction={self.friction!r})"


def halfspace(point: Sequence[float], normal: Sequence[float], friction: FrictionSpec = "slip",
              velocity: Sequence[float] = (0, 0, 0)) -> Collider:
    """Solid where (x - point) . normal < 0 (a floor: normal (0, 0, 1))."""
    c = Collider(_n.SHAPE_HALFSPACE, friction, velocity)
    c._c.point[:] = _vec(point, 3, "point")
    c._c.normal[:] = _vec(normal, 3, "normal")
    return c


def box(lo: Sequence[float], hi: Sequence[float], friction: FrictionSpec = "slip",
        invert: bool = False, velocity: Sequence[float] = (0, 0, 0)) -> Collider:
    """Solid inside [lo, hi] (outside with invert=True)."""
    c = Collider(_n.SHAPE_BOX, friction, velocity)
    c._c.lo[:] = _vec(lo, 3, "lo")
    c._c.hi[:] = _vec(hi, 3, "hi")
    c._c.invert = int(bool(invert))
    return c


def cylinder(center: Sequence[float], radius: float, zlo: float, zhi: float,
             invert: bool = False, friction: FrictionSpec = "slip",
             velocity: Sequence[float] = (0, 0, 0)) -> Collider:
    """A cylinder along z through center (x, y) between zlo and zhi, solid
    inside; invert=True makes it a container (solid outside the radius and
    beyond its z extent: let zlo/zhi reach past the grid for an open top)."""
    c = Collider(_n.SHAPE_CYLINDER, friction, velocity)
    c._c.center[:] = _vec(center, 2, "center")
    c._c.radius = _number(radius, "radius")
    c._c.lo[2] = _number(zlo, "zlo")
    c._c.hi[2] = _number(zhi, "zhi")
    c._c.invert = int(bool(invert))
    return c


def sdf(phi_nodes: np.ndarray, normals: Optional[np.ndarray] = None, friction: FrictionSpec = "slip",
        invert: bool = False) -> Collider:
    """A signed distance sampled on every grid node (BG_SHAPE_NODES):
    ``phi_nodes`` shaped like the grid (nx, ny, nz), metres, negative in
    solid; ``normals`` (nx, ny, nz, 3), outward from solid, or None for
    central differences of phi. Node (i, j, k) is ``phi_nodes[i, j, k]``."""
    c = Collider(_n.SHAPE_NODES, friction, (0, 0, 0))
    phi = np.ascontiguousarray(phi_nodes, dtype=np.float32)
    if phi.ndim != 3:
        raise ValueError(f"phi_nodes must be a 3-d array shaped like the grid (got shape {phi.shape})")
    c.phi = phi
    if normals is not None:
        nrm = np.ascontiguousarray(normals, dtype=np.float32)
        if nrm.shape != phi.shape + (3,):
            raise ValueError(f"normals must have shape {phi.shape + (3,)} (got {nrm.shape})")
        c.normals = nrm
    c._c.invert = int(bool(invert))
    return c


class Sink:
    """An axis-aligned box; particles that enter it are parked (bg_sink)."""

    def __init__(self, lo: Sequence[float], hi: Sequence[float]) -> None:
        self._c = _n.Sink()
        self._c.lo[:] = _vec(lo, 3, "lo")
        self._c.hi[:] = _vec(hi, 3, "hi")

    def __repr__(self) -> str:
        return f"Sink(lo={tuple(self._c.lo)}, hi={tuple(self._c.hi)})"


def sink(lo: Sequence[float], hi: Sequence[float]) -> Sink:
    """A sink box [lo, hi]."""
    return Sink(lo, hi)


#: Domain faces in bagnold.h's order, with the names walls= accepts.
FACES = ("-x", "+x", "-y", "+y", "-z", "+z")
_FACE_ALIASES = {"xlo": "-x", "xhi": "+x", "ylo": "-y", "yhi": "+y", "zlo": "-z", "zhi": "+z",
                 "floor": "-z", "top": "+z"}


def walls_table(walls: Union[None, FrictionSpec, Mapping[str, FrictionSpec]],
                defaults: Iterable[_n.Wall]) -> list:
    """The six (friction, mu) pairs of a walls= argument: one spec for every
    face, or a mapping from face ("-x".."+z", "xlo".."zhi", "floor", "top",
    "all") to spec; faces not named keep the descriptor's default (slip)."""
    table = [(w.friction, w.mu) for w in defaults]
    if walls is None:
        return table
    if not isinstance(walls, Mapping):
        return [friction(walls, allow_open=True)] * len(FACES)
    if "all" in walls:
        table = [friction(walls["all"], allow_open=True)] * len(FACES)
    for key, spec in walls.items():
        if key == "all":
            continue
        face = _FACE_ALIASES.get(key, key)
        if face not in FACES:
            raise ValueError(f"walls: unknown face {key!r}; accepted: {', '.join(FACES)}, "
                             f"{', '.join(_FACE_ALIASES)}, all")
        table[FACES.index(face)] = friction(spec, allow_open=True)
    return table


def wall_edge_offset(kind: FrictionSpec, plane_cells: float) -> float:
    """bg_wall_edge_offset: cells from a wall's plane to where the material's
    edge should start (references/walls.md)."""
    return float(_n.C.bg_wall_edge_offset(friction(kind, allow_open=True)[0], float(plane_cells)))


__all__ = [
    "ALIASES", "MODEL_ALIASES", "Material", "material", "sand", "mui", "ngf", "Collider", "halfspace", "box", "cylinder", "sdf",
    "Sink", "sink", "FACES", "wall_edge_offset", "friction",
]
