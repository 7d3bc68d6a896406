"""The material constructors: taichi_mpm's particle types (jelly, snow,
water, von_mises, sand with cohesion), their defaults read from the library,
taichi_mpm's parameter names as aliases, and every range checked when the
material is made, the message naming the argument. A model the loaded
library was built without is skipped, with the reason."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import bagnold
from bagnold import BagnoldError, ModelUnavailable, Sim
from bagnold import _native as n
from bagnold import materials
from conftest import DX, THREADS, lattice

#: constructor name -> (model label, its header)
NEW = {
    "jelly": ("elastic", "bg_mat_elastic.h"),
    "snow": ("snow", "bg_mat_snow.h"),
    "water": ("water", "bg_mat_water.h"),
    "von_mises": ("von-mises", "bg_mat_vm.h"),
}


def need(label: str) -> None:
    if not bagnold.has_model(label):
        pytest.skip(f"the {label!r} model is not in this build of {n.library_path}")


def library_default(label: str) -> n.Material:
    return n.C.bg_material_default(n.C.bg_material_model_from_name(label.encode()))


def member_bytes(c: n.Material) -> bytes:
    member = getattr(c, n.MODELS[c.model][0])
    return ctypes.string_at(ctypes.addressof(member), ctypes.sizeof(member))


def common(c: n.Material) -> tuple:
    return (c.model, c.E, c.nu, c.rho0, c.stress, c.volume_correction, c.elastic_only)


def test_models_are_the_registry():
    assert bagnold.models() == [n.C.bg_material_model_name(i).decode() for i in range(len(n.MODELS))]
    assert bagnold.has_model("drucker-prager") and not bagnold.has_model("clay")


@pytest.mark.parametrize("name", sorted(NEW))
def test_default_is_the_library_default(name: str):
    label, _ = NEW[name]
    need(label)
    m = getattr(bagnold, name)()
    c = library_default(label)
    assert m.model == label
    assert common(m._c) == common(c) and member_bytes(m._c) == member_bytes(c)


def test_sand_default_is_the_library_default():
    m, c = bagnold.sand(), library_default("drucker-prager")
    assert common(m._c) == common(c) and member_bytes(m._c) == member_bytes(c)
    assert bagnold.material("sand").params() == m.params()  # taichi_mpm's type name


@pytest.mark.parametrize("name", sorted(NEW))
def test_missing_model_is_a_clear_error(name: str, monkeypatch: pytest.MonkeyPatch):
    """As a build without the header sees it: ModelUnavailable naming the
    model, the header and the models there are."""
    label, header = NEW[name]
    monkeypatch.setattr(materials, "has_model", lambda lab: False)
    with pytest.raises(ModelUnavailable) as e:
        getattr(bagnold, name)()
    assert label in str(e.value) and header in str(e.value) and "drucker-prager" in str(e.value)


def test_common_aliases():
    a = bagnold.sand(youngs_modulus=1e6, poisson_ratio=0.25, density=1500.0)
    b = bagnold.sand(E=1e6, nu=0.25, rho0=1500.0)
    assert a.params() == b.params()
    assert bagnold.sand(friction_angle=30).params()["phi_deg"] == pytest.approx(30)


def test_lame_pair():
    """taichi_mpm's snow Lame pair (58333.3, 38888.9) is E 1.4e5, nu 0.2."""
    p = bagnold.sand(mu_0=58333.3, lambda_0=38888.9).params()
    assert p["E"] == pytest.approx(1.4e5, rel=1e-5) and p["nu"] == pytest.approx(0.2, rel=1e-5)
    with pytest.raises(ValueError, match="lambda_0 too"):
        bagnold.sand(mu_0=1e5)
    with pytest.raises(ValueError, match="not both"):
        bagnold.sand(mu_0=1e5, lambda_0=1e5, E=1e6)


def test_alias_misuse():
    with pytest.raises(ValueError, match="same parameter"):
        bagnold.sand(phi_deg=30, friction_angle=35)
    with pytest.raises(ValueError, match="same parameter"):
        bagnold.sand(E=1e6, youngs_modulus=1e6)
    with pytest.raises(ValueError, match="bulk_modulus, not a parameter of drucker-prager"):
        bagnold.sand(k=1e5)
    with pytest.raises(ValueError, match="no parameter 'mu_s'.*friction_angle"):
        bagnold.sand(mu_s=0.4)


@pytest.mark.parametrize("call, argument, field", [
    (lambda: bagnold.sand(friction_angle=95), "friction_angle=95", "material.dp.phi_deg"),
    (lambda: bagnold.sand(phi_deg=0), "phi_deg=0", "material.dp.phi_deg"),
    (lambda: bagnold.sand(youngs_modulus=-1.0), "youngs_modulus=-1.0", "material.E"),
    (lambda: bagnold.sand(poisson_ratio=0.5), "poisson_ratio=0.5", "material.nu"),
    (lambda: bagnold.mui(mu_s=-1), "mu_s=-1", "mu_s"),
    (lambda: bagnold.sand(mu_0=-1.0, lambda_0=2.0), "mu_0=-1, lambda_0=2", "material.E"),
])
def test_range_error_names_the_argument(call, argument, field):
    """Raised when the material is made, before any simulation: the
    library's range with the argument that set the value."""
    with pytest.raises(BagnoldError) as e:
        call()
    assert e.value.status == "BG_ERR_RANGE"
    assert e.value.message.startswith(argument + ": ") and field in e.value.message


def test_sim_names_the_argument_of_a_replaced_value():
    m = bagnold.sand().replace(youngs_modulus=-5.0)
    with pytest.raises(BagnoldError, match="youngs_modulus=-5.0: material.E"):
        Sim(grid=(8, 8, 8), dx=DX, material=m, threads=THREADS)


def test_kinds_from_the_registry():
    """An int field is a switch (bool), a real is a number: dp's hardening
    is a switch, snow's and von Mises's are reals."""
    assert bagnold.sand(hardening=True).params()["hardening"] is True
    for name in ("snow", "von_mises"):
        label, _ = NEW[name]
        if bagnold.has_model(label):
            h = getattr(bagnold, name)(hardening=2.5).params()["hardening"]
            assert isinstance(h, float) and h == pytest.approx(2.5)


def test_jelly_laws():
    need("elastic")
    assert bagnold.jelly().params()["law"] in ("neo-hookean", "fixed-corotated")  # the header's
    for law in ("neo-hookean", "fixed-corotated"):
        j = bagnold.jelly(law=law, youngs_modulus=1e5, poisson_ratio=0.3)
        assert j.params()["law"] == law and j.params()["E"] == pytest.approx(1e5)
    with pytest.raises(ValueError, match="neo-hookean, fixed-corotated"):
        bagnold.jelly(law="linear")
    with pytest.raises(BagnoldError, match="law=7: .*law"):
        bagnold.jelly(law=7)


def test_snow_parameters():
    need("snow")
    s = bagnold.snow(hardening=5.0, theta_c=0.02, theta_s=0.005, mu_0=58333.3, lambda_0=38888.9)
    p = s.params()
    assert (p["hardening"], p["theta_c"], p["theta_s"]) == pytest.approx((5.0, 0.02, 0.005))
    assert p["E"] == pytest.approx(1.4e5, rel=1e-5)
    with pytest.raises(BagnoldError, match="theta_c=-0.1: .*theta_c"):
        bagnold.snow(theta_c=-0.1)


def test_water_parameters():
    need("water")
    w = bagnold.water(k=2e5, gamma=7.0)
    assert w.params()["bulk_modulus"] == pytest.approx(2e5) and w.params()["gamma"] == pytest.approx(7)
    assert bagnold.water(bulk_modulus=2e5).params() == w.params()
    with pytest.raises(BagnoldError, match="k=-1.0: .*bulk_modulus"):
        bagnold.water(k=-1.0)
    with pytest.raises(BagnoldError, match="viscosity=-1.0: .*viscosity"):
        bagnold.water(viscosity=-1.0)


def test_von_mises_parameters():
    need("von-mises")
    v = bagnold.von_mises(youngs_modulus=5e3, poisson_ratio=0.4, yield_stress=1.0)
    p = v.params()
    assert (p["E"], p["nu"], p["yield_stress"]) == pytest.approx((5e3, 0.4, 1.0))
    assert bagnold.material("von_mises").params() == bagnold.von_mises().params()
    with pytest.raises(BagnoldError, match="yield_stress=-1.0: .*yield_stress"):
        bagnold.von_mises(yield_stress=-1.0)


def test_cohesive_sand():
    if "cohesion" not in n.PARAM_KINDS["dp"]:
        pytest.skip(f"this build of {n.library_path} has Drucker-Prager without cohesion")
    assert bagnold.sand().params()["cohesion"] == 0
    s = bagnold.sand(friction_angle=30, cohesion=100.0)
    assert s.params()["cohesion"] == pytest.approx(100) and "beta" in s.params()
    with pytest.raises(BagnoldError, match="cohesion=-1.0: .*cohesion"):
        bagnold.sand(cohesion=-1.0)


@pytest.mark.parametrize("name", sorted(NEW))
def test_each_model_steps(name: str):
    """A small block of each model falls two steps under gravity."""
    label, _ = NEW[name]
    need(label)
    sim = Sim(grid=(12, 12, 12), dx=DX, material=getattr(bagnold, name)(), threads=THREADS)
    sim.add(lattice((0.04, 0.04, 0.04), (0.08, 0.08, 0.08), DX / 2), ppc=8)
    sim.run(2)
    assert sim.material.model == label and np.isfinite(sim.get("x")).all()


def test_sim_names_the_table_entry():
    if "n_materials" not in dict(n.SimDesc._fields_):
        pytest.skip("this package's Sim takes one material (no material table)")
    bad = bagnold.sand().replace(youngs_modulus=-5.0)
    with pytest.raises(BagnoldError, match=r"youngs_modulus=-5.0: materials\[1\].E must"):
        Sim(grid=(8, 8, 8), dx=DX, material=[bagnold.sand(), bad], threads=THREADS)
