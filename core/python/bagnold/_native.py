"""The C side of the bindings: finding libbagnold.so, the ctypes mirrors of
bagnold.h's structs, and the prototypes of every function the header declares.

Nothing here is meant for users; :mod:`bagnold` builds the Pythonic API on top.
The material models' parameter structs are not written here: they are read
at import from the library's registry (``bg_material_param_info``), so a
model added by its header alone reaches Python with no edit.
The struct layouts are checked against the C compiler's by
``tests/test_layout.py`` (through the ``bagnold_py_layout`` tool the CMake
build makes), so a header change that is not mirrored here fails a test
instead of corrupting memory.
"""

from __future__ import annotations

import ctypes
import os
import sys
import warnings
from ctypes import (
    POINTER,
    Structure,
    Union,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_size_t,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Dict, List, Optional, Tuple

LIBRARY_NAME = "libbagnold.so"

# ------------------------------------------------------------ finding the .so


def _source_root() -> Optional[Path]:
    """The repository root when this package is imported from its source tree
    (core/python/bagnold), else None."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / "core" / "include" / "bagnold.h").is_file() else None


def _prefix_libraries(prefix: Path) -> List[Path]:
    """Where ``cmake --install --prefix PREFIX`` puts the library:
    <libdir>/bagnold/libbagnold.so for the libdirs GNUInstallDirs picks."""
    dirs = ["lib", "lib64"]
    multiarch = getattr(sys.implementation, "_multiarch", None)
    if multiarch:
        dirs.append(f"lib/{multiarch}")
    return [prefix / d / "bagnold" / LIBRARY_NAME for d in dirs]


def library_candidates() -> List[Tuple[str, Path]]:
    """Where the library is looked for, in order, as (why, path) pairs:
    ``$BAGNOLD_LIBRARY``; the copy installed inside this package (a wheel);
    ``$BAGNOLD_PREFIX`` (a ``cmake --install`` prefix); the build tree
    (``$BAGNOLD_BUILD_DIR/lib``, then ``<repo>/build/lib`` when imported
    from the source tree); then the usual install prefixes (this Python's,
    ``~/.local``, ``/usr/local``, ``/usr``)."""
    found: List[Tuple[str, Path]] = []
    env = os.environ.get("BAGNOLD_LIBRARY")
    if env:
        found.append(("$BAGNOLD_LIBRARY", Path(env)))
    found.append(("installed with the package", Path(__file__).resolve().parent / LIBRARY_NAME))
    prefix = os.environ.get("BAGNOLD_PREFIX")
    if prefix:
        found += [("$BAGNOLD_PREFIX", p) for p in _prefix_libraries(Path(prefix))]
    build = os.environ.get("BAGNOLD_BUILD_DIR")
    if build:
        found.append(("$BAGNOLD_BUILD_DIR/lib", Path(build) / "lib" / LIBRARY_NAME))
    root = _source_root()
    if root is not None:
        found.append(("the source tree's build/lib", root / "build" / "lib" / LIBRARY_NAME))
    for pre in (Path(sys.prefix), Path.home() / ".local", Path("/usr/local"), Path("/usr")):
        found += [(f"installed under {pre}", p) for p in _prefix_libraries(pre)]
    return found


def _libgomp_loaded() -> bool:
    """Whether this process has loaded the system's libgomp already (then it
    has read its wait policy, and setting one now changes nothing)."""
    try:
        with open("/proc/self/maps") as maps:
            return any("libgomp.so" in line for line in maps)
    except OSError:
        return False


def _choose_wait_policy() -> None:
    """Passive waiting for the CPU backend's OpenMP threads unless the user
    chose a policy: libgomp reads it once, when the library below loads it,
    and its spinning default runs about 8x slower on cores shared with other
    work. ``bagnold.thread_wait_policy()`` says what is in effect."""
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return
    if _libgomp_loaded():
        # a libgomp loaded before this one has read its policy already; the
        # library's own copy (a wheel's, grafted by auditwheel) has not
        warnings.warn("bagnold: an OpenMP runtime (libgomp) was loaded before bagnold; if the library "
                      "shares it, its threads spin while they wait (set OMP_WAIT_POLICY=passive before "
                      "starting Python on shared cores)", RuntimeWarning, stacklevel=4)
    os.environ["OMP_WAIT_POLICY"] = "passive"


def _load() -> Tuple[ctypes.CDLL, Path]:
    _choose_wait_policy()
    tried = []
    for why, path in library_candidates():
        if path.is_file():
            return ctypes.CDLL(str(path), use_errno=True), path
        # an explicit BAGNOLD_LIBRARY that is wrong is an error, not a hint to
        # fall back silently on some other build
        if why == "$BAGNOLD_LIBRARY":
            raise ImportError(f"bagnold: BAGNOLD_LIBRARY={path} is not a file")
        tried.append(f"  {path} ({why})")
    raise ImportError(
        "bagnold: libbagnold.so not found; pip install ./core/python builds it into the package, or "
        "build it (cmake --build build) and set BAGNOLD_BUILD_DIR, or install it (cmake --install build "
        "--prefix P) and set BAGNOLD_PREFIX=P, or name the file in BAGNOLD_LIBRARY. "
        "Looked in:\n" + "\n".join(tried)
    )


#: The library, loaded first: the material structs below are read from it.
lib, library_path = _load()


# --------------------------------------------------------------------- types

bg_real = c_float  # bagnold.h: typedef float bg_real
bg_status = c_int  # C enums are int-sized on every ABI the library builds for
bg_enum = c_int

#: Status names in the order of bagnold.h's BG_STATUS_LIST (the enum values).
#: Only a fallback: messages and names always come from the library itself.
STATUS_NAMES = (
    "BG_OK",
    "BG_ERR_NULL",
    "BG_ERR_RANGE",
    "BG_ERR_NONFINITE",
    "BG_ERR_OVERFLOW",
    "BG_ERR_NOMEM",
    "BG_ERR_BACKEND",
    "BG_ERR_UNSTABLE_DT",
    "BG_ERR_OUTSIDE",
    "BG_ERR_IO",
    "BG_ERR_DEVICE",
    "BG_ERR_INTERNAL",
    "BG_ERR_CORRUPT",
    "BG_ERR_TRUNCATED",
    "BG_ERR_VERSION",
    "BG_ERR_MISMATCH",
)

# bg_friction, bg_shape, bg_stress_model, bg_dp_cone
FRICTION_COULOMB, FRICTION_SLIP, FRICTION_STICK, FRICTION_OPEN = 0, 1, 2, 3
SHAPE_HALFSPACE, SHAPE_BOX, SHAPE_CYLINDER, SHAPE_NODES = 0, 1, 2, 3
STRESS_MODELS = {"hencky": 0, "fixed-corotated": 1}
DP_CONES = {"compression": 0, "extension": 1, "plane-strain": 2}
FACE_COUNT = 6

#: bg_field: name -> (enum value, components per particle)
FIELDS: Dict[str, Tuple[int, int]] = {
    "x": (0, 3),
    "v": (1, 3),
    "F": (2, 9),
    "C": (3, 9),
    "Jp": (4, 1),
    "density": (5, 1),
    "q": (6, 1),
    "stress": (7, 9),
    "mass": (8, 1),
    "active": (9, 1),
    "mode": (10, 1),
    "material": (11, 1),
}

#: BG_MAX_MATERIALS: the most entries a simulation's material table holds.
MAX_MATERIALS = 256


#: ctypes of a parameter's kind (bagnold.h's bg_matp_kind: real, int, enum).
_PARAM_KINDS = (bg_real, c_int, bg_enum)
MATP_REAL, MATP_INT, MATP_ENUM = 0, 1, 2

#: Each model's parameters' kinds, by union member then field (MATP_*),
#: read from the registry with the structs (an int is a 0/1 switch).
PARAM_KINDS: Dict[str, Dict[str, int]] = {}

#: The names of the enumerations a model's header defines, by (model label,
#: field). The registry gives a field's kind, not its enumerators' names, so
#: these few are spelled here; a field not listed takes the raw integer.
ENUMS: Dict[Tuple[str, str], Dict[str, int]] = {
    ("drucker-prager", "cone"): DP_CONES,
    # bg_mat_elastic.h's law: BG_ELASTIC_NEO_HOOKEAN, BG_ELASTIC_FIXED_COROTATED
    ("elastic", "law"): {"neo-hookean": 0, "fixed-corotated": 1},
}


def _read_models() -> List[Tuple[str, str, type]]:
    """The registered material models, read from the library's registry
    (bg_material_model_count, bg_material_param_info, ...), in their order:
    (union member, user-facing label, parameter struct). Each struct is built
    from the C field list and its offsets and size checked against the C's."""
    try:
        f = lib.bg_material_model_count
    except AttributeError:
        raise ImportError(f"bagnold: {library_path} lacks the material registry calls (an older build?)") from None
    f.restype, f.argtypes = c_int, []
    member = lib.bg_material_model_member
    member.restype, member.argtypes = c_char_p, [bg_enum]
    label = lib.bg_material_model_name
    label.restype, label.argtypes = c_char_p, [bg_enum]
    size = lib.bg_material_params_size
    size.restype, size.argtypes = c_size_t, [bg_enum]
    count = lib.bg_material_param_count
    count.restype, count.argtypes = c_int, [bg_enum]
    info = lib.bg_material_param_info
    info.restype = bg_status
    info.argtypes = [bg_enum, c_int, POINTER(c_char_p), POINTER(c_size_t), POINTER(bg_enum)]
    models = []
    for m in range(f()):
        name, rows = member(m).decode(), []
        kinds = PARAM_KINDS.setdefault(name, {})
        for i in range(count(m)):
            fname, off, kind = c_char_p(), c_size_t(), bg_enum()
            if info(m, i, ctypes.byref(fname), ctypes.byref(off), ctypes.byref(kind)) != 0:
                raise ImportError(f"bagnold: bg_material_param_info({m}, {i}) failed")
            rows.append((fname.value.decode(), _PARAM_KINDS[kind.value], off.value))
            kinds[rows[-1][0]] = kind.value
        struct = type(f"{name.capitalize()}Params", (Structure,), {
            "__doc__": f"bg_{name}_params, read from the library's registry.",
            "_fields_": [(n, t) for n, t, _ in rows],
        })
        built = [(n, getattr(struct, n).offset) for n, _, _ in rows]
        if built != [(n, o) for n, _, o in rows] or ctypes.sizeof(struct) != size(m):
            raise ImportError(f"bagnold: the ctypes layout of bg_{name}_params differs from the C one")
        models.append((name, label(m).decode(), struct))
    return models


#: The material models (the generated BG_MATERIAL_LIST, in its order: the
#: enum value is the index): (union member, user-facing label, parameter
#: struct), read from the library.
MODELS: List[Tuple[str, str, type]] = _read_models()


class MaterialParams(Union):
    """The anonymous union of bg_material, one member per registered model."""

    _fields_ = [(member, struct) for member, _, struct in MODELS]


class Material(Structure):
    """bg_material."""

    _anonymous_ = ("params",)
    _fields_ = [
        ("model", bg_enum),
        ("E", bg_real),
        ("nu", bg_real),
        ("rho0", bg_real),
        ("stress", bg_enum),
        ("volume_correction", c_int),
        ("elastic_only", c_int),
        ("params", MaterialParams),
    ]


class Collider(Structure):
    """bg_collider."""

    _fields_ = [
        ("shape", bg_enum),
        ("point", bg_real * 3),
        ("normal", bg_real * 3),
        ("lo", bg_real * 3),
        ("hi", bg_real * 3),
        ("center", bg_real * 2),
        ("radius", bg_real),
        ("invert", c_int),
        ("phi", POINTER(bg_real)),
        ("normals", POINTER(bg_real)),
        ("friction", bg_enum),
        ("mu", bg_real),
        ("velocity", bg_real * 3),
    ]


class Sink(Structure):
    """bg_sink."""

    _fields_ = [("lo", bg_real * 3), ("hi", bg_real * 3)]


class Wall(Structure):
    """bg_wall."""

    _fields_ = [("friction", bg_enum), ("mu", bg_real)]


class Body(Structure):
    """bg_body."""

    _fields_ = [
        ("shape", bg_enum),
        ("radius", bg_real),
        ("half", bg_real * 3),
        ("density", bg_real),
        ("x", bg_real * 3),
        ("q", bg_real * 4),
        ("v", bg_real * 3),
        ("w", bg_real * 3),
        ("friction", bg_enum),
        ("mu", bg_real),
        ("kinematic", c_int),
        ("axis", bg_real * 3),
        ("linear_damping", bg_real),
        ("angular_damping", bg_real),
        ("mesh", c_void_p),
    ]


class BodyState(Structure):
    """bg_body_state."""

    _fields_ = [
        ("x", c_double * 3),
        ("q", c_double * 4),
        ("v", c_double * 3),
        ("w", c_double * 3),
        ("force", c_double * 3),
        ("torque", c_double * 3),
        ("mass", c_double),
        ("inertia", c_double * 3),
        ("parked", c_int),
    ]


class SimDesc(Structure):
    """bg_sim_desc."""

    _fields_ = [
        ("dims", c_size_t * 3),
        ("dx", bg_real),
        ("origin", bg_real * 3),
        ("gravity", bg_real * 3),
        ("material", Material),
        ("colliders", POINTER(Collider)),
        ("n_colliders", c_size_t),
        ("sinks", POINTER(Sink)),
        ("n_sinks", c_size_t),
        ("walls", Wall * FACE_COUNT),
        ("backend", c_char_p),
        ("threads", c_int),
        ("cfl", bg_real),
        ("fixed_dt", bg_real),
        ("force_dt", c_int),
        ("sort_interval", c_int),
        ("properties", c_char_p),
        ("damping", bg_real),
        ("materials", POINTER(Material)),
        ("n_materials", c_size_t),
        ("dim", c_int),
        ("bodies", POINTER(Body)),
        ("n_bodies", c_size_t),
    ]


class Source(Structure):
    """bg_source."""

    _fields_ = [
        ("shape", bg_enum),
        ("center", bg_real * 3),
        ("radius", bg_real),
        ("half", bg_real * 3),
        ("velocity", bg_real * 3),
        ("mass_rate", c_double),
        ("t_start", c_double),
        ("t_stop", c_double),
        ("material", c_int),
        ("ppc", bg_real),
        ("seed", c_uint64),
    ]


#: bg_source_shape by name.
SOURCE_SHAPES = {"disc": 0, "box": 1}


class Stats(Structure):
    """bg_stats."""

    _fields_ = [
        ("step", c_uint64),
        ("time", c_double),
        ("dt", bg_real),
        ("n_particles", c_size_t),
        ("n_active", c_size_t),
        ("n_parked", c_size_t),
        ("n_parked_sink", c_size_t),
        ("n_parked_out", c_size_t),
        ("parked_mass", c_double),
        ("total_mass", c_double),
        ("max_speed", c_double),
        ("steps_nonlocal_dt", c_uint64),
        ("nonlocal_dt_ratio", bg_real),
    ]


class Memory(Structure):
    """bg_memory."""

    _fields_ = [
        ("particle_bytes", c_size_t),
        ("grid_bytes", c_size_t),
        ("other_bytes", c_size_t),
        ("particles", c_size_t),
        ("per_particle", c_double),
        ("grid_nodes", c_size_t),
    ]


class Host(Structure):
    """bg_host."""

    _fields_ = [("name", c_char * 256), ("cpu", c_char * 256), ("cores", c_int)]


#: Every struct above under its C name (the layout test walks this table).
STRUCTS: Dict[str, type] = {
    **{f"bg_{member}_params": struct for member, _, struct in MODELS},
    "bg_material": Material,
    "bg_collider": Collider,
    "bg_sink": Sink,
    "bg_wall": Wall,
    "bg_sim_desc": SimDesc,
    "bg_body": Body,
    "bg_body_state": BodyState,
    "bg_source": Source,
    "bg_stats": Stats,
    "bg_memory": Memory,
    "bg_host": Host,
}

#: bg_material_params writes a struct bg_mat, an internal type
#: (core/physics/bg_materials.h) the bindings treat as opaque bytes; the
#: layout test checks that it fits.
MAT_COEFFS_BYTES = 4096

# ---------------------------------------------------------------- prototypes

_P = c_void_p  # opaque handles: bg_sim *, bg_pvd *, bg_series *
_F = POINTER(bg_real)
_D = POINTER(c_double)

#: name -> (restype, argtypes): every function bagnold.h declares. The
#: completeness test parses the header and compares it with this table.
PROTOTYPES: Dict[str, Tuple[object, List[object]]] = {
    "bg_status_str": (c_char_p, [bg_status]),
    "bg_status_name": (c_char_p, [bg_status]),
    # material
    "bg_material_sand": (Material, []),
    "bg_material_mui": (Material, []),
    "bg_material_default": (Material, [bg_enum]),
    "bg_material_model_name": (c_char_p, [bg_enum]),
    "bg_material_model_from_name": (c_int, [c_char_p]),
    "bg_material_pwave_speed": (bg_real, [POINTER(Material)]),
    "bg_material_params": (bg_status, [POINTER(Material), c_void_p, c_char_p, c_size_t]),
    "bg_material_model_count": (c_int, []),
    "bg_material_model_member": (c_char_p, [bg_enum]),
    "bg_material_params_size": (c_size_t, [bg_enum]),
    "bg_material_param_count": (c_int, [bg_enum]),
    "bg_material_param_info": (
        bg_status,
        [bg_enum, c_int, POINTER(c_char_p), POINTER(c_size_t), POINTER(bg_enum)],
    ),
    "bg_material_state_count": (c_int, []),
    "bg_material_state_name": (c_char_p, [bg_enum, c_int]),
    # boundaries
    "bg_wall_edge_offset": (c_double, [bg_enum, c_double]),
    # simulation
    "bg_sim_desc_default": (SimDesc, []),
    "bg_sim_create": (bg_status, [POINTER(SimDesc), POINTER(_P), c_char_p, c_size_t]),
    "bg_sim_destroy": (None, [_P]),
    "bg_sim_last_error": (c_char_p, [_P]),
    "bg_backend_count": (c_int, []),
    "bg_backend_name": (c_char_p, [c_int]),
    "bg_backend_available": (c_int, [c_char_p, c_char_p, c_size_t]),
    "bg_backend_on_device": (c_int, [c_char_p]),
    "bg_backend_resolve": (c_char_p, [c_char_p]),
    "bg_backend_property_count": (c_int, [c_char_p]),
    "bg_backend_property": (bg_status, [c_char_p, c_int, POINTER(c_char_p), POINTER(c_char_p),
                                        POINTER(c_char_p), POINTER(c_char_p)]),
    "bg_sim_backend": (c_char_p, [_P]),
    "bg_sim_describe": (bg_status, [_P, POINTER(SimDesc)]),
    "bg_sim_add_particles": (bg_status, [_P, c_size_t, _F, _F, bg_real]),
    "bg_sim_add_particles_volume": (bg_status, [_P, c_size_t, _F, _F, _F]),
    "bg_sim_add_particles_material": (bg_status, [_P, c_size_t, _F, _F, bg_real, c_int]),
    "bg_sim_add_particles_volume_material": (bg_status, [_P, c_size_t, _F, _F, _F, c_int]),
    # seeding: the descriptor (with the caller's callbacks) passed as a pointer
    "bg_seed_lattice": (bg_status, [c_void_p, _F, c_size_t, POINTER(c_size_t), c_char_p, c_size_t]),
    # meshes: bg_mesh * is opaque; bg_ply_read_points hands back a malloc'd array
    "bg_mesh_load": (bg_status, [c_char_p, POINTER(_P), c_char_p, c_size_t]),
    "bg_mesh_destroy": (None, [_P]),
    "bg_mesh_vertex_count": (c_size_t, [_P]),
    "bg_mesh_triangle_count": (c_size_t, [_P]),
    "bg_mesh_bounds": (None, [_P, _D, _D]),
    "bg_mesh_sdf": (c_double, [_P, _D]),
    "bg_mesh_sdf_grid": (bg_status, [_P, POINTER(c_size_t), c_double, _D, _F, c_size_t, c_char_p, c_size_t]),
    "bg_mesh_inside": (c_int, [_D, _P]),
    "bg_ply_read_points": (bg_status, [c_char_p, POINTER(_F), POINTER(c_size_t), c_char_p, c_size_t]),
    "bg_seed_poisson_radius": (c_double, [c_double, c_double]),
    "bg_seed_poisson": (bg_status, [c_void_p, _F, c_size_t, POINTER(c_size_t), c_char_p, c_size_t]),
    "bg_seed_volume": (bg_status, [c_void_p, c_size_t, c_void_p, c_char_p, c_size_t]),
    "bg_sim_step": (bg_status, [_P, _F]),
    "bg_sim_run": (bg_status, [_P, c_uint64]),
    "bg_sim_advance_to": (bg_status, [_P, c_double]),
    "bg_sim_next_dt": (bg_status, [_P, _F, _F]),
    "bg_field_width": (c_int, [bg_enum]),
    "bg_sim_get": (bg_status, [_P, bg_enum, _F, c_size_t]),
    "bg_sim_stats": (bg_status, [_P, POINTER(Stats)]),
    "bg_sim_sink_mass": (bg_status, [_P, _D, c_size_t]),
    "bg_sim_grid_mass": (bg_status, [_P, _F, c_size_t]),
    "bg_sim_grid_velocity": (bg_status, [_P, _F, c_size_t]),
    "bg_sim_stage_times": (bg_status, [_P, _D]),
    # set-up after creation
    "bg_sim_set_gravity": (bg_status, [_P, _F]),
    "bg_sim_set_damping": (bg_status, [_P, bg_real]),
    "bg_sim_set": (bg_status, [_P, bg_enum, _F, c_size_t]),
    # device memory (GPU backends): device pointers and streams as integers
    "bg_sim_memory": (bg_status, [_P, POINTER(Memory)]),
    "bg_sim_device_ordinal": (c_int, [_P]),
    "bg_sim_get_device": (bg_status, [_P, bg_enum, c_void_p, c_size_t, c_size_t]),
    "bg_sim_set_device": (bg_status, [_P, bg_enum, c_void_p, c_size_t, c_size_t]),
    "bg_sim_add_particles_device": (bg_status, [_P, c_size_t, c_void_p, c_void_p, bg_real, c_int, c_size_t]),
    "bg_sim_device_alloc": (bg_status, [_P, c_size_t, POINTER(c_void_p)]),
    "bg_sim_device_free": (None, [_P, c_void_p]),
    "bg_sim_set_geostatic": (bg_status, [_P, c_double, c_double]),
    # sources
    "bg_source_default": (Source, []),
    "bg_sim_add_source": (bg_status, [_P, POINTER(Source), POINTER(c_int)]),
    "bg_sim_source_mass": (bg_status, [_P, c_int, _D]),
    "bg_sim_source_count": (bg_status, [_P, c_int, POINTER(c_uint64)]),
    "bg_sim_source_describe": (bg_status, [_P, c_int, POINTER(Source)]),
    # observation
    "bg_sim_wall_count": (c_size_t, [_P]),
    "bg_sim_wall_forces": (bg_status, [_P, _D, c_size_t]),
    "bg_sim_wall_impulses": (bg_status, [_P, _D, c_size_t]),
    "bg_body_default": (Body, []),
    "bg_sim_body_state": (bg_status, [_P, c_size_t, POINTER(BodyState)]),
    "bg_sim_set_body_velocity": (bg_status, [_P, c_size_t, _F, _F]),
    "bg_sim_write_bodies_vtu": (bg_status, [_P, c_char_p]),
    # checkpoint
    "bg_sim_save": (bg_status, [_P, c_char_p, c_void_p, c_size_t]),
    "bg_sim_load": (bg_status, [c_char_p, c_char_p, c_int, POINTER(_P), c_char_p, c_size_t]),
    "bg_checkpoint_verify": (bg_status, [c_char_p, c_char_p, c_size_t]),
    "bg_sim_restore": (bg_status, [_P, c_char_p, c_void_p, c_size_t, POINTER(c_size_t)]),
    # output
    "bg_sim_write_vtu": (bg_status, [_P, c_char_p]),
    "bg_pvd_open": (bg_status, [c_char_p, c_char_p, c_int, POINTER(_P)]),
    "bg_pvd_frame": (bg_status, [_P, _P]),
    "bg_pvd_last_error": (c_char_p, [_P]),
    "bg_pvd_close": (None, [_P]),
    "bg_sim_write_vtk": (bg_status, [_P, c_char_p]),
    "bg_sim_write_ply": (bg_status, [_P, c_char_p]),
    "bg_series_open": (bg_status, [c_char_p, c_char_p, POINTER(c_char_p), c_size_t, POINTER(_P)]),
    "bg_series_row": (bg_status, [_P, _D, c_size_t]),
    "bg_series_close": (bg_status, [_P]),
    "bg_sim_series_open": (bg_status, [c_char_p, c_char_p, POINTER(_P)]),
    "bg_sim_series_row": (bg_status, [_P, _P]),
    "bg_sim_series_values": (bg_status, [_P, _D]),
    # records
    "bg_sha256_hex": (None, [c_void_p, c_size_t, c_char_p]),
    "bg_sha256_file_hex": (bg_status, [c_char_p, c_char_p]),
    "bg_host_describe": (None, [POINTER(Host)]),
    "bg_thread_wait_policy": (c_char_p, []),
}

class _Missing:
    """Stands in for a function the loaded library lacks: the import works,
    and calling it says which symbol is missing from which file."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path

    def __call__(self, *args: object) -> None:
        raise NotImplementedError(f"{self.name} is not in {self.path} (an older build?)")


#: Functions of PROTOTYPES the loaded library does not export.
missing: List[str] = []


class _Functions:
    """Attribute access to the prototyped functions (``C.bg_sim_run(...)``)."""


C = _Functions()
for _name, (_res, _args) in PROTOTYPES.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError:
        missing.append(_name)
        setattr(C, _name, _Missing(_name, library_path))
        continue
    _fn.restype = _res
    _fn.argtypes = _args
    setattr(C, _name, _fn)


def status_name(code: int) -> str:
    """bg_status_name, with the Python table as the fallback for a code the
    library does not know."""
    if isinstance(C.bg_status_name, _Missing):
        return STATUS_NAMES[code] if 0 <= code < len(STATUS_NAMES) else f"status {code}"
    name = C.bg_status_name(code)
    return name.decode() if name else f"status {code}"


def status_str(code: int) -> str:
    """bg_status_str: the static description of a status code."""
    s = C.bg_status_str(code)
    return s.decode() if s else ""


def ptr(a, kind=_F):
    """The data pointer of a contiguous numpy array as kind (float32 by
    default), or None for None."""
    return None if a is None else a.ctypes.data_as(kind)


def err_buffer(n: int = 1024) -> ctypes.Array:
    """A zeroed char buffer for the functions that report into err/why."""
    return (c_char * n)()
