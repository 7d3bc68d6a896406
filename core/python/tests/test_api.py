"""The Python API's contract: arrays in and out with their shapes and
dtypes, set/get, stepping and the clock, materials and colliders, and C
errors raised as BagnoldError with the library's status and message."""

from __future__ import annotations

import numpy as np
import pytest

import bagnold
from bagnold import BagnoldError, Sim, box, cylinder, halfspace, sand, sdf, sink
from conftest import DX, THREADS, lattice


def small_sim(**kw) -> Sim:
    args = dict(grid=(16, 16, 16), dx=DX, threads=THREADS)
    args.update(kw)
    return Sim(**args)


def cube(lo=(0.05, 0.05, 0.05), size=0.04) -> np.ndarray:
    return lattice(lo, [a + size for a in lo], DX / 2)  # 8^3 = 512 particles


# ------------------------------------------------------------------ arrays


def test_fields_roundtrip_with_shapes():
    sim = small_sim()
    x = cube()
    v = np.tile(np.array([0.1, -0.2, 0.3], np.float32), (len(x), 1))
    idx = sim.add(x, ppc=8, velocities=v)
    assert idx == range(0, len(x)) and len(sim) == len(x) == 512
    n = len(x)
    assert np.array_equal(sim.get("x"), x.astype(np.float32))
    assert np.array_equal(sim.get("v"), v)
    shapes = {"x": (n, 3), "v": (n, 3), "F": (n, 3, 3), "C": (n, 3, 3), "stress": (n, 3, 3),
              "Jp": (n,), "density": (n,), "q": (n,), "mass": (n,), "active": (n,), "mode": (n,)}
    for field, shape in shapes.items():
        a = sim.get(field)
        assert a.shape == shape, field
    assert sim.get("active").dtype == np.bool_ and sim.get("active").all()
    assert sim.get("mode").dtype == np.int32
    assert np.array_equal(sim.get("F"), np.broadcast_to(np.eye(3, dtype=np.float32), (n, 3, 3)))
    assert np.all(sim.get("Jp") == 1)
    # mass rho0 dx^3 / ppc, and the density of an undeformed particle is rho0
    assert np.allclose(sim.get("mass"), 2200 * DX**3 / 8, rtol=1e-6)
    assert np.allclose(sim.density(), 2200, rtol=1e-6)
    # a second add appends
    assert sim.add(cube((0.05, 0.05, 0.1)), ppc=8) == range(512, 1024)


def test_explicit_volumes():
    sim = small_sim()
    x = cube()
    sim.add(x, volumes=2e-7)
    assert np.allclose(sim.get("mass"), 2200 * 2e-7, rtol=1e-6)
    vols = np.linspace(1e-7, 3e-7, len(x))
    sim.add(x, volumes=vols)
    assert np.allclose(sim.get("mass")[len(x):], 2200 * vols, rtol=1e-6)
    with pytest.raises(ValueError, match="ppc or volumes"):
        sim.add(x, ppc=8, volumes=1e-7)


def test_set_and_get_velocity():
    sim = small_sim()
    x = cube()
    sim.add(x)
    v = np.random.default_rng(1).normal(size=(len(x), 3)).astype(np.float32)
    sim.set("v", v)
    assert np.array_equal(sim.get("v"), v)
    # float64 input is converted, not refused
    sim.set("v", v.astype(np.float64) * 2)
    assert np.allclose(sim.get("v"), 2 * v)


def test_set_F_and_stress():
    sim = small_sim()
    sim.add(cube())
    n = len(sim)
    F = np.broadcast_to(np.diag([1.0, 1.0, 0.999]), (n, 3, 3))
    sim.set("F", F)
    assert np.allclose(sim.get("F"), F)
    assert np.allclose(sim.density(), 2200 / 0.999, rtol=1e-5)
    sigma = np.broadcast_to(np.diag([-300.0, -300.0, -600.0]), (n, 3, 3))
    sim.set("stress", sigma)
    assert np.allclose(sim.get("stress"), sigma, rtol=1e-3, atol=1e-2)


def test_geostatic_stress():
    sim = small_sim()
    x = cube()
    sim.add(x)
    z_s = 0.09
    sim.set_geostatic(z_surface=z_s, k0=0.5)
    s = sim.get("stress")
    szz = -2200 * 9.81 * (z_s - x[:, 2])
    assert np.allclose(s[:, 2, 2], szz, rtol=2e-3, atol=0.05)
    assert np.allclose(s[:, 0, 0], 0.5 * szz, rtol=2e-3, atol=0.05)
    assert np.allclose(s[:, 0, 1], 0, atol=0.05)


def test_wrong_shapes_raise_value_error_naming_the_argument():
    sim = small_sim()
    with pytest.raises(ValueError, match="positions"):
        sim.add(np.zeros((10, 2)))
    with pytest.raises(ValueError, match="velocities"):
        sim.add(cube(), velocities=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="positions"):
        sim.add([["a", "b", "c"]])
    sim.add(cube())
    with pytest.raises(ValueError, match="v must have shape"):
        sim.set("v", np.zeros((len(sim) + 1, 3)))
    with pytest.raises(ValueError, match="stress must have shape"):
        sim.set("stress", np.zeros((len(sim), 9)))
    with pytest.raises(ValueError, match="cannot be set"):
        sim.set("x", sim.get("x"))
    with pytest.raises(ValueError, match="unknown field"):
        sim.get("pressure")
    with pytest.raises(ValueError, match="g must have shape"):
        sim.set_gravity((0, -9.81))
    with pytest.raises(ValueError, match="grid"):
        Sim(grid=(16, 16, 16, 16), dx=DX)  # two counts are a 2D grid (test_2d.py), four nothing


# ---------------------------------------------------------------- stepping


def test_clock_step_run_advance():
    sim = small_sim()
    sim.add(cube())
    dt, bound = sim.next_dt()
    assert 0 < dt <= bound
    taken = sim.step()
    assert taken == pytest.approx(dt, rel=1e-6)
    assert sim.step_count == 1 and sim.time == pytest.approx(taken)
    sim.run(4)
    assert sim.step_count == 5
    sim.advance_to(0.01)
    assert sim.time == pytest.approx(0.01, abs=1e-12)
    s = sim.stats
    assert isinstance(s, bagnold.Stats) and s.n_particles == s.n_active == 512
    assert s.total_mass == pytest.approx(512 * 2200 * DX**3 / 8, rel=1e-5)
    assert set(sim.stage_times()) == {"sort", "p2g", "grid", "g2p"}


def test_set_gravity_and_damping():
    # free fall of a small cube far from every wall: v_z follows the gravity set
    sim = small_sim(grid=(16, 16, 32))
    sim.add(cube((0.06, 0.06, 0.2)))
    sim.set_gravity((0, 0, -5.0))
    sim.advance_to(0.02)
    assert np.allclose(sim.get("v")[:, 2], -5.0 * 0.02, rtol=0.02)
    sim.set_gravity((0, 0, 0))
    sim.set_damping(200.0)
    sim.advance_to(0.04)
    # exp(-200 * 0.02) = 0.018 of the speed is left
    assert np.abs(sim.get("v")[:, 2]).max() < 0.1 * 5.0 * 0.02
    with pytest.raises(BagnoldError) as e:
        sim.set_damping(-1.0)
    assert e.value.status == "BG_ERR_RANGE"


def test_sinks_park_particles():
    sim = small_sim(grid=(16, 16, 32), sinks=[sink((0.0, 0.0, 0.0), (0.16, 0.16, 0.1))])
    sim.add(cube((0.06, 0.06, 0.12)))
    sim.advance_to(0.2)
    s = sim.stats
    assert s.n_parked_sink == s.n_parked > 0
    assert sim.sink_mass().shape == (1,)
    assert sim.sink_mass()[0] == pytest.approx(s.parked_mass, rel=1e-6)
    assert (~sim.get("active")).sum() == s.n_parked


def test_colliders_of_every_shape_are_accepted():
    phi = np.fromfunction(lambda i, j, k: (k - 3.5) * DX, (16, 16, 16), dtype=np.float32)
    for c in [halfspace((0, 0, 0.035), (0, 0, 1), friction=0.3), box((0.0, 0.0, 0.0), (0.16, 0.16, 0.035)),
              cylinder((0.08, 0.08), 0.06, -1.0, 1.0, invert=True, friction="stick"), sdf(phi, friction="slip")]:
        sim = small_sim(colliders=[c])
        sim.add(cube((0.06, 0.06, 0.04)))
        sim.run(3)
        assert sim.wall_names[0] == "collider0" and len(sim.wall_forces()) == 7
    with pytest.raises(ValueError, match="phi_nodes must have the grid's shape"):
        small_sim(colliders=[sdf(np.zeros((8, 8, 8)))])
    with pytest.raises(ValueError, match="friction"):
        halfspace((0, 0, 0), (0, 0, 1), friction="sticky")


def test_walls_argument():
    sim = small_sim(walls={"floor": 0.5, "+z": "open", "-x": "stick"})
    sim.add(cube())
    sim.run(2)
    with pytest.raises(ValueError, match="unknown face"):
        small_sim(walls={"bottom": "slip"})
    with pytest.raises(ValueError, match="friction"):
        small_sim(walls="glue")


def test_materials():
    m = sand(phi_deg=30, E=1e6, cone="extension", hardening=True)
    p = m.params()
    assert m.model == "drucker-prager" and p["phi_deg"] == pytest.approx(30) and p["E"] == pytest.approx(1e6)
    assert p["cone"] == "extension" and p["hardening"] is True
    assert m.pwave_speed() > 0
    mu = bagnold.mui(mu_s=0.4, d=1e-3)
    assert mu.model == "mu-i" and mu.params()["mu_s"] == pytest.approx(0.4)
    g = bagnold.material("ngf", A=0.0)
    assert g.model == "ngf" and g.params()["A"] == 0
    assert m.replace(phi_deg=40).params()["phi_deg"] == pytest.approx(40)
    assert m.params()["phi_deg"] == pytest.approx(30)  # replace copies
    with pytest.raises(ValueError, match="no parameter 'mu_s'"):
        sand(mu_s=0.4)
    with pytest.raises(ValueError, match="unknown"):
        bagnold.material("clay")
    sand().check()
    with pytest.raises(BagnoldError) as e:
        sand(phi_deg=95).check()
    assert e.value.status == "BG_ERR_RANGE" and "phi" in e.value.message
    for model in (bagnold.mui(), bagnold.ngf()):
        sim = small_sim(material=model)
        sim.add(cube())
        sim.run(2)


def test_backends():
    names = bagnold.backends()
    assert names and len(set(names)) == len(names)
    assert bagnold.backend_available("auto")
    assert small_sim().backend in names
    for name in names:
        ok, why = bagnold.backend_status(name)
        assert ok or why
        if not ok:
            continue
        sim = small_sim(backend=name)
        assert sim.backend == name
        props = bagnold.backend_properties(name)
        assert sim.properties == {p["name"]: p["default"] for p in props}
        for p in props:
            assert p["default"] in p["values"] and p["doc"]
            for v in p["values"]:
                assert small_sim(backend=name, properties={p["name"]: v}).properties[p["name"]] == v
    assert not bagnold.backend_available("opencl")
    with pytest.raises(ValueError):
        bagnold.backend_properties("opencl")


def test_unknown_property():
    with pytest.raises(BagnoldError) as e:
        small_sim(properties="no_such_knob=1")
    assert e.value.status == "BG_ERR_RANGE" and "no_such_knob" in e.value.message


def test_wall_edge_offset():
    assert bagnold.wall_edge_offset("slip", 4.5) == pytest.approx(-0.5)
    assert bagnold.wall_edge_offset("open", 4.5) == 0


# ------------------------------------------------------------------ errors


def test_bad_descriptor_raises_range_error_naming_the_field():
    with pytest.raises(BagnoldError) as e:
        small_sim(material=sand(E=-1.0))
    err = e.value
    assert isinstance(err, RuntimeError)
    assert err.status == "BG_ERR_RANGE" and err.code == 2
    assert "material.E" in err.message and "material.E" in str(err)
    with pytest.raises(BagnoldError, match="cfl") as e:
        small_sim(cfl=2.0)
    assert e.value.status == "BG_ERR_RANGE"
    with pytest.raises(BagnoldError, match="dims") as e:
        small_sim(grid=(2, 16, 16))
    assert e.value.status == "BG_ERR_RANGE"
    with pytest.raises(BagnoldError) as e:
        small_sim(dx=float("nan"))
    assert e.value.status == "BG_ERR_NONFINITE" and "dx" in e.value.message


def test_unknown_backend():
    with pytest.raises(BagnoldError) as e:
        small_sim(backend="opencl")
    assert e.value.status == "BG_ERR_BACKEND" and "opencl" in e.value.message


def test_particle_outside_the_grid():
    sim = small_sim()
    x = cube()
    x[7] = (0.5, 0.05, 0.05)  # the grid ends at 0.15 m
    with pytest.raises(BagnoldError) as e:
        sim.add(x)
    assert e.value.status == "BG_ERR_OUTSIDE"
    assert e.value.message == sim.last_error and e.value.message
    assert len(sim) == 0  # a failed call leaves the simulation as it was
    x[7] = np.nan
    with pytest.raises(BagnoldError) as e:
        sim.add(x)
    assert e.value.status == "BG_ERR_NONFINITE"


def test_closed_sim():
    sim = small_sim()
    sim.close()
    with pytest.raises(ValueError, match="closed"):
        sim.run(1)
    with small_sim() as s2:
        s2.add(cube())
    assert repr(s2) == "Sim(closed)"
