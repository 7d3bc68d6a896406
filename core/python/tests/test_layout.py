"""The bindings against the C they mirror: struct layouts as the C compiler
lays them out, every function bagnold.h declares bound and present in the
library, and the tables the package keeps (statuses, fields, models,
version) equal to the library's."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

import bagnold
from bagnold import _native as n

HEADER = Path(__file__).resolve().parents[2] / "include" / "bagnold.h"


@pytest.fixture(scope="module")
def layout() -> dict:
    tool = os.environ.get("BAGNOLD_LAYOUT_TOOL")
    if not tool:
        pytest.skip("BAGNOLD_LAYOUT_TOOL is not set (ctest sets it to the build's bagnold_py_layout)")
    return json.loads(subprocess.run([tool], check=True, capture_output=True, text=True).stdout)


@pytest.mark.parametrize("name", sorted(n.STRUCTS))
def test_struct_layout(layout: dict, name: str) -> None:
    struct = n.STRUCTS[name]
    c = layout[name]
    assert (name, n.ctypes.sizeof(struct)) == (name, c["size"])
    offsets = {f: getattr(struct, f).offset for f, _ in struct._fields_ if f != "params"}
    if name == "bg_material":  # the anonymous union's members sit at its offset
        offsets.update({m: struct.params.offset for m, _, _ in n.MODELS})
    assert offsets == c["fields"]


def test_material_coefficients_fit_the_buffer(layout: dict) -> None:
    assert layout["bg_mat"]["size"] <= n.MAT_COEFFS_BYTES


def test_constants(layout: dict) -> None:
    k = layout["constants"]
    assert k["BG_STATUS_COUNT"] == len(n.STATUS_NAMES)
    assert k["BG_MODEL_COUNT"] == len(n.MODELS)
    assert k["BG_FIELD_COUNT"] == len(n.FIELDS)
    assert k["BG_FACE_COUNT"] == n.FACE_COUNT == len(bagnold.FACES)
    assert k["BG_VERSION_STRING"] == bagnold.__version__


def test_enum_names(layout: dict) -> None:
    """The enumerators the package names are the header's values; every
    model whose enumerators it names and the build has is compared."""
    c = layout["enums"]
    unchecked = []
    for (label, field), names in n.ENUMS.items():
        key = f"{label}.{field}"
        if key in c:
            assert (key, names) == (key, c[key])
        elif bagnold.has_model(label) and field in bagnold.material(label).params():
            unchecked.append(key)
    if unchecked:
        pytest.skip(f"layout.c prints no enumerators for {unchecked} (its #ifdef misses the header's guard)")


def header_functions() -> set:
    """Names of the functions bagnold.h declares (comments and preprocessor
    lines removed, then every `type name(args);` at file scope)."""
    text = HEADER.read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return set(re.findall(r"\b(bg_\w+)\s*\([^;{}()]*(?:\([^()]*\)[^;{}()]*)*\)\s*;", text))


def test_every_header_function_is_bound() -> None:
    declared = header_functions()
    assert len(declared) > 40, "the header parser found too few declarations"
    assert sorted(declared - set(n.PROTOTYPES)) == [], "declared in bagnold.h, not bound in _native.py"
    assert sorted(set(n.PROTOTYPES) - declared) == [], "bound in _native.py, not declared in bagnold.h"


def test_library_exports_every_function() -> None:
    assert n.missing == [], f"{n.library_path} lacks {n.missing}"


def test_version_matches_header() -> None:
    m = re.search(r'#define BG_VERSION_STRING "([^"]+)"', HEADER.read_text())
    assert m and m.group(1) == bagnold.__version__


def test_status_names() -> None:
    for code, name in enumerate(n.STATUS_NAMES):
        assert n.C.bg_status_name(code).decode() == name
        assert n.status_str(code)


def test_field_widths() -> None:
    for name, (code, width) in n.FIELDS.items():
        assert (name, n.C.bg_field_width(code)) == (name, width)


def test_model_labels() -> None:
    for i, (_, label, _) in enumerate(n.MODELS):
        assert n.C.bg_material_model_name(i).decode() == label
        assert n.C.bg_material_model_from_name(label.encode()) == i
    assert n.C.bg_material_model_name(len(n.MODELS)) is None


def test_model_registry() -> None:
    """The mirror is read from the registry: the models in the header's
    union, every parameter struct named after its member, the state slots
    described by each model, and the first models in their stored order."""
    assert n.C.bg_material_model_count() == len(n.MODELS)
    assert [m for m, _, _ in n.MODELS][:3] == ["dp", "mui", "ngf"]  # checkpoints store the index
    for i, (member, _, struct) in enumerate(n.MODELS):
        assert n.C.bg_material_model_member(i).decode() == member
        assert n.C.bg_material_param_count(i) == len(struct._fields_)
        assert n.C.bg_material_params_size(i) == n.ctypes.sizeof(struct)
        assert n.STRUCTS[f"bg_{member}_params"] is struct
        names = [n.C.bg_material_state_name(i, k) for k in range(n.C.bg_material_state_count())]
        assert all(s is not None for s in names)
        assert n.C.bg_material_state_name(i, n.C.bg_material_state_count()) is None
    assert n.C.bg_material_model_member(len(n.MODELS)) is None
    assert n.C.bg_material_param_count(len(n.MODELS)) == -1
    name, off, kind = n.c_char_p(), n.c_size_t(), n.bg_enum()
    assert n.C.bg_material_param_info(0, 99, n.ctypes.byref(name), n.ctypes.byref(off), n.ctypes.byref(kind)) != 0
    assert n.C.bg_material_state_name(0, 0) == b"log_jp" and n.C.bg_material_state_name(0, 1) == b"q"


def test_descriptor_defaults() -> None:
    d = n.C.bg_sim_desc_default()
    assert list(d.dims) == [64, 64, 64]
    assert d.dx == pytest.approx(0.01)
    assert list(d.gravity) == pytest.approx([0, 0, -9.81])
    assert d.cfl == pytest.approx(0.3)
    assert d.material.model == 0 and d.material.dp.phi_deg == pytest.approx(35)
    assert d.backend == b"auto"
