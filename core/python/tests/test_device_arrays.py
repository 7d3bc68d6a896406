"""GPU arrays in and out of a CUDA simulation (bagnold.device): torch reads
a field in place, writes velocities and hands particles over on the device,
and every refusal of the host path holds there. The host-backend cases run
everywhere; the CUDA ones need a device, a CUDA build and torch (skipped
otherwise, named in the skip reason)."""

from __future__ import annotations

import numpy as np
import pytest

import bagnold as bag
from bagnold import BagnoldError

from conftest import DX, THREADS, lattice


def scene(backend: str) -> bag.Sim:
    floor = bag.halfspace((0, 0, 0.035), (0, 0, 1), friction=0.5)
    return bag.Sim(grid=(24, 24, 24), dx=DX, material=bag.sand(phi_deg=30), colliders=[floor],
                   backend=backend, threads=THREADS)


BLOCK = lattice((0.08, 0.08, 0.04), (0.16, 0.16, 0.12), DX / 2)


class FakeDeviceArray:
    """What a consumer's array shows the library: only the interface."""

    def __init__(self, shape, typestr="<f4", ptr=0x1000, strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "version": 3, "strides": strides, "stream": None}


# ------------------------------------------------------------- host backends

def test_host_backend_has_no_device():
    sim = scene("cpu")
    sim.add(BLOCK, ppc=8)
    assert sim.device is None
    with pytest.raises(BagnoldError, match="host memory"):
        sim.get_device("x")
    with pytest.raises(BagnoldError, match="host memory"):
        sim.get("x", out=FakeDeviceArray((len(sim), 3)))
    with pytest.raises(BagnoldError, match="host memory"):
        sim.add(FakeDeviceArray((4, 3)), ppc=8)


def test_device_arguments_are_checked_before_the_library_is_called():
    sim = scene("cpu")
    sim.add(BLOCK, ppc=8)
    n = len(sim)
    with pytest.raises(ValueError, match="float32"):
        sim.get("x", out=FakeDeviceArray((n, 3), typestr="<f8"))
    with pytest.raises(ValueError, match=r"shape \(%d, 3\)" % n):
        sim.get("x", out=FakeDeviceArray((n, 2)))
    with pytest.raises(ValueError, match="C-contiguous"):
        sim.get("x", out=FakeDeviceArray((n, 3), strides=(4, 4 * n)))
    with pytest.raises(ValueError, match="GPU array"):
        sim.get("x", out=np.empty((n, 3), np.float32))
    with pytest.raises(ValueError, match="only 'v'"):
        sim.set("F", FakeDeviceArray((n, 3, 3)))
    with pytest.raises(ValueError, match="ppc, not volumes"):
        sim.add(FakeDeviceArray((4, 3)), volumes=1e-6)


@pytest.mark.parametrize("backend", ["cpu", "cpu/ref"])
def test_memory_is_accounted(backend):
    sim = scene(backend)
    sim.add(BLOCK, ppc=8)
    m = sim.memory
    n = len(sim)
    assert m["particles"] == n
    # at least the state a particle carries (x, v, F, C, stress, mass, volume: 33 floats) and a float4 per node
    assert m["particle_bytes"] >= n * 33 * 4
    # cpu/ref holds the dense grid; cpu's is paged: memory only where P2G wrote (none yet)
    assert m["grid_bytes"] >= (24 ** 3 * 16 if backend == "cpu/ref" else 0)
    # the nodes held: the dense box on cpu/ref; on the paged grid as many as its backed float4 pages hold
    assert m["grid_nodes"] == 24 ** 3 if backend == "cpu/ref" else m["grid_nodes"] * 16 <= m["grid_bytes"]
    total = m["particle_bytes"] + m["grid_bytes"] + m["other_bytes"]
    assert m["per_particle"] == pytest.approx(total / n)
    sim.add(BLOCK + [0.0, 0.0, 0.1], ppc=8)  # capacity grows by doubling: never less than what is held
    assert sim.memory["particle_bytes"] >= 2 * n * 33 * 4


# --------------------------------------------------------------------- CUDA

def _torch():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    if not bag.backend_available("cuda"):
        pytest.skip("this build has no usable cuda backend: " + bag.backend_status("cuda")[1])
    return torch


def test_torch_reads_a_field_in_place():
    torch = _torch()
    sim = scene("cuda")
    sim.add(BLOCK, ppc=8)
    sim.run(30)  # sorted: slots no longer in insertion order
    arr = sim.get_device("x")
    t = torch.as_tensor(arr, device="cuda")
    assert t.data_ptr() == arr.ptr  # a view, not a copy
    assert t.shape == (len(sim), 3) and t.dtype == torch.float32
    np.testing.assert_array_equal(t.cpu().numpy(), sim.get("x"))
    del sim, arr  # the tensor keeps the array, the array its simulation
    torch.cuda.synchronize()
    assert torch.isfinite(t).all()


def test_get_into_a_tensor_on_a_side_stream():
    torch = _torch()
    sim = scene("cuda")
    sim.add(BLOCK, ppc=8)
    sim.run(30)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        out = torch.full((len(sim), 3, 3), float("nan"), device="cuda")
        sim.get("stress", out=out)  # ordered after the fill on the same stream
        total = out.sum()
    side.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), sim.get("stress"))
    assert torch.isfinite(total)
    for name in ("density", "Jp", "q", "mass", "v", "F", "C"):
        w = {"v": (len(sim), 3), "F": (len(sim), 3, 3), "C": (len(sim), 3, 3)}.get(name, (len(sim),))
        o = torch.empty(w, device="cuda")
        np.testing.assert_array_equal(sim.get(name, out=o).cpu().numpy(), sim.get(name), err_msg=name)


def test_particles_from_the_gpu_equal_particles_from_the_host():
    torch = _torch()
    x = BLOCK.astype(np.float32)
    v = np.zeros_like(x)
    v[:, 0] = 0.3
    a, b = scene("cuda"), scene("cuda")
    a.add(x, ppc=8, velocities=v)
    b.add(torch.as_tensor(x, device="cuda"), ppc=8, velocities=torch.as_tensor(v, device="cuda"))
    for name in ("x", "v", "F", "mass", "density"):
        np.testing.assert_array_equal(a.get(name), b.get(name), err_msg=name)
    assert a.stats.total_mass == b.stats.total_mass
    assert a.stats.max_speed == pytest.approx(b.stats.max_speed, rel=1e-6)
    assert a.next_dt() == pytest.approx(b.next_dt(), rel=1e-6)
    a.run(40)
    b.run(40)
    np.testing.assert_allclose(a.get("x"), b.get("x"), atol=1e-6)


def test_set_velocities_from_a_tensor():
    torch = _torch()
    sim = scene("cuda")
    sim.add(BLOCK, ppc=8)
    n = len(sim)
    v = torch.zeros((n, 3), device="cuda")
    v[:, 2] = -torch.linspace(0, 2, n, device="cuda")
    sim.set("v", v)
    np.testing.assert_array_equal(sim.get("v"), v.cpu().numpy())
    assert sim.stats.max_speed == pytest.approx(2.0, rel=1e-6)  # the next dt sees it


def test_device_input_is_checked_on_the_device():
    torch = _torch()
    sim = scene("cuda")
    sim.add(BLOCK, ppc=8)
    n = len(sim)
    x = torch.as_tensor(BLOCK[:100].astype(np.float32), device="cuda")
    x[37, 1] = float("nan")
    with pytest.raises(BagnoldError, match=r"particle 37, axis 1\) is not finite"):
        sim.add(x, ppc=8)
    x[37, 1] = 0.1
    x[52, 2] = 0.5  # above the grid
    with pytest.raises(BagnoldError, match="particle 52: x\\[2\\] = 0.5 m is outside"):
        sim.add(x, ppc=8)
    assert len(sim) == n  # refused whole
    v = torch.zeros((n, 3), device="cuda")
    v[n - 1, 0] = float("inf")
    with pytest.raises(BagnoldError, match=f"particle {n - 1}\\) is not finite"):
        sim.set("v", v)
    with pytest.raises(ValueError, match="float32"):
        sim.get("x", out=torch.empty((n, 3), device="cuda", dtype=torch.float64))
    with pytest.raises(ValueError, match="C-contiguous"):
        sim.get("x", out=torch.empty((3, n), device="cuda").t())


def test_device_memory_is_accounted():
    _torch()
    sim = scene("cuda")
    sim.add(BLOCK, ppc=8)
    m = sim.memory
    assert m["particles"] == len(sim) and m["grid_bytes"] >= 24 ** 3 * 16 and m["grid_nodes"] == 24 ** 3
    det = bag.Sim(grid=(24, 24, 24), dx=DX, material=bag.sand(phi_deg=30), backend="cuda",
                  properties={"deterministic": "1"})
    assert det.memory["grid_bytes"] == 24 ** 3 * (16 + 32)  # the fixed-point planes beside the float4 grid


def test_cupy_reads_a_field_in_place():
    _torch()
    cupy = pytest.importorskip("cupy", reason="cupy is not installed")
    sim = scene("cuda")
    sim.add(BLOCK, ppc=8)
    sim.run(10)
    arr = sim.get_device("density")
    c = cupy.asarray(arr)
    assert c.data.ptr == arr.ptr
    np.testing.assert_array_equal(cupy.asnumpy(c), sim.density())
