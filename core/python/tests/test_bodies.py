"""Rigid bodies through the Python API: Body mirrors bg_body, a bad value
is refused with the library's message, Sim.body reads the state back, a
kinematic body follows set_body_velocity, and the walls name the body."""

from __future__ import annotations

import numpy as np
import pytest

from bagnold import BagnoldError, Body, Sim, sand
from conftest import DX, THREADS


def scene(*bodies: Body, gravity=(0, 0, -9.81)) -> Sim:
    return Sim(grid=(20, 20, 20), dx=DX, material=sand(), threads=THREADS, bodies=bodies, gravity=gravity)


def test_refused_with_the_library_message():
    with pytest.raises(BagnoldError) as e:
        scene(Body("sphere", radius=0.02, density=-5.0, x=(0.1, 0.1, 0.1)))
    assert e.value.status == "BG_ERR_RANGE" and "bodies[0].density must be > 0" in e.value.message


def test_shape_needs_its_size():
    with pytest.raises(ValueError, match="radius"):
        Body("sphere")
    with pytest.raises(ValueError, match="shape"):
        Body("cone", radius=1.0)


def test_ballistic_and_state():
    r = 0.02
    with scene(Body("sphere", radius=r, density=2000.0, x=(0.1, 0.1, 0.15), v=(0.3, 0, 0))) as sim:
        st0 = sim.body(0)
        assert st0["mass"] == pytest.approx(2000.0 * 4 / 3 * np.pi * r**3, rel=1e-6)
        sim.run(50)
        st = sim.body(0)
        t = sim.stats.time
        # no material: the body falls freely (semi-implicit Euler: x within g dt t of the closed form)
        assert st["x"][0] == pytest.approx(0.1 + 0.3 * t, abs=1e-6)
        assert st["v"][2] == pytest.approx(-9.81 * t, rel=1e-5)
        assert st["force"] == (0.0, 0.0, 0.0) and not st["parked"]
        assert sim.wall_names[:2] == ["body0", "-x"]


def test_kinematic_script():
    box = Body("box", half=(0.02, 0.02, 0.02), x=(0.1, 0.1, 0.1), kinematic=True)
    with scene(box, gravity=(0, 0, 0)) as sim:
        sim.set_body_velocity(0, (0.0, 0.0, 0.5), (0.0, 0.0, 2.0))
        sim.run(20)
        st = sim.body(0)
        assert st["v"] == pytest.approx((0.0, 0.0, 0.5)) and st["w"] == pytest.approx((0.0, 0.0, 2.0))
        assert st["x"][2] == pytest.approx(0.1 + 0.5 * sim.stats.time, abs=1e-6)
        with pytest.raises(BagnoldError, match="not finite"):
            sim.set_body_velocity(0, (float("nan"), 0, 0))


def test_surface_file(tmp_path):
    with scene(Body("sphere", radius=0.02, x=(0.1, 0.1, 0.1))) as sim:
        path = tmp_path / "bodies.vtu"
        sim.write_bodies_vtu(path)
        text = path.read_text()
        # a sphere in 12 x 24 bands: 2 poles and 11 rings of 24
        assert 'NumberOfPoints="266" NumberOfCells="528"' in text


CUBE_V = [(x, y, z) for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)]
CUBE_F = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
          (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]


def write_cube(path, half, faces=CUBE_F):
    with open(path, "w") as f:
        for v in CUBE_V:
            f.write("v %.9g %.9g %.9g\n" % tuple(half * c + 0.3 for c in v))  # anywhere in the file's frame
        for t in faces:
            f.write("f %d %d %d\n" % tuple(i + 1 for i in t))


def test_mesh_body(tmp_path):
    h = 0.02
    write_cube(tmp_path / "cube.obj", h)
    body = Body("mesh", mesh=tmp_path / "cube.obj", density=2000.0, x=(0.1, 0.1, 0.15))
    assert "cube.obj" in repr(body)
    with scene(body, gravity=(0, 0, 0)) as sim:
        st = sim.body(0)
        assert st["mass"] == pytest.approx(2000.0 * (2 * h) ** 3, rel=1e-12)
        assert st["inertia"] == pytest.approx([st["mass"] * (2 * h) ** 2 / 6] * 3, rel=1e-9)
        assert st["x"] == pytest.approx((0.1, 0.1, 0.15), abs=1e-7)
        assert st["q"] == pytest.approx((1, 0, 0, 0), abs=1e-9)
    with pytest.raises(ValueError, match="needs mesh"):
        Body("mesh")
    with pytest.raises(BagnoldError) as e:
        Body("mesh", mesh=tmp_path / "missing.obj")
    assert e.value.status == "BG_ERR_IO" and "missing.obj" in e.value.message
    write_cube(tmp_path / "open.obj", h, CUBE_F[:-1])  # one triangle short: not closed
    with pytest.raises(BagnoldError) as e:
        Body("mesh", mesh=tmp_path / "open.obj")
    assert e.value.status == "BG_ERR_CORRUPT"


def test_plate():
    # a thin plate that cuts the material, its mass from the nominal thickness half[2]
    with pytest.raises(BagnoldError) as e:
        scene(Body("plate", half=(0.03, 0.0, 0.002), x=(0.1, 0.1, 0.1)))
    assert e.value.status == "BG_ERR_RANGE" and "bodies[0].half[1]" in e.value.message
    with pytest.raises(ValueError, match="half"):
        Body("plate")
    plate = Body("plate", half=(0.03, 0.02, 0.002), density=7800.0, x=(0.1, 0.1, 0.1), kinematic=True)
    with scene(plate, gravity=(0, 0, 0)) as sim:
        assert sim.body(0)["mass"] == pytest.approx(7800.0 * 0.06 * 0.04 * 0.004, rel=1e-6)
        sim.run(5)
        assert sim.body(0)["x"] == pytest.approx((0.1, 0.1, 0.1))
