"""GPU arrays in and out of a simulation on a CUDA backend, without the host.

A simulation whose particles live in GPU memory (``Sim.device`` is its CUDA
ordinal) exchanges fields with any array that carries
``__cuda_array_interface__`` (torch CUDA tensors, CuPy, Numba): the library
reads and writes the array's memory in place, ordered against the stream the
array names (version 3 of the interface), so no copy passes through the host
and the caller's stream need not be synchronised by hand.

    x = torch.empty((len(sim), 3), device="cuda")
    sim.get("x", out=x)                       # insertion order, in place
    arr = sim.get_device("density")           # a DeviceArray the library owns
    rho = torch.as_tensor(arr, device="cuda") # the same memory, no copy
    sim.set("v", v_tensor)                    # velocities from the GPU
    sim.add(x_tensor, ppc=8)                  # particles from the GPU

A :class:`DeviceArray` is memory the library allocated on the simulation's
device; it keeps its simulation open while it lives, and torch or CuPy views
of it keep it alive in turn.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, Optional, Tuple

from . import _native as _n

_F32 = "<f4"


def has_cai(a: Any) -> bool:
    """Whether a is a device array (carries __cuda_array_interface__)."""
    return hasattr(a, "__cuda_array_interface__")


def _stream_of(cai: Dict[str, Any]) -> int:
    """The interface's stream as the C API takes it: 0 none (the call
    waits), 1 legacy default, 2 per-thread default, else a cudaStream_t."""
    st = cai.get("stream")
    if st is None:
        return 0
    if not isinstance(st, int) or st == 0:
        raise ValueError(f"__cuda_array_interface__ stream must be None or a nonzero integer (got {st!r})")
    return st


def view(a: Any, name: str, shape: Tuple[int, ...], writable: bool) -> Tuple[int, int]:
    """(pointer, stream) of a C-contiguous float32 device array of the given
    shape, or ValueError naming the argument and what is wrong."""
    cai = a.__cuda_array_interface__
    if cai.get("typestr") != _F32:
        raise ValueError(f"{name} must be float32 ('{_F32}'); got typestr {cai.get('typestr')!r} "
                         "(e.g. tensor.float())")
    got = tuple(int(d) for d in cai["shape"])
    size = 1
    for d in got:
        size *= d
    want = 1
    for d in shape:
        want *= d
    if size != want or (got != shape and not (len(got) == 1 and len(shape) > 1)):
        raise ValueError(f"{name} must have shape {shape} (got {got})")
    strides = cai.get("strides")
    if strides is not None:
        expect, acc = [], 4
        for d in reversed(got):
            expect.append(acc)
            acc *= d
        if tuple(strides) != tuple(reversed(expect)) and size > 1:
            raise ValueError(f"{name} must be C-contiguous (strides {tuple(strides)}; e.g. tensor.contiguous())")
    if cai.get("mask") is not None:
        raise ValueError(f"{name} has a mask; masked arrays are not accepted")
    ptr, readonly = cai["data"]
    if writable and readonly:
        raise ValueError(f"{name} is read-only")
    if size and not ptr:
        raise ValueError(f"{name} has a null data pointer")
    return int(ptr), _stream_of(cai)


class DeviceArray:
    """float32 memory on the simulation's GPU, owned by the library, shaped
    like the field it holds; exposes ``__cuda_array_interface__`` (no
    stream: it is complete when handed out)."""

    def __init__(self, sim: Any, shape: Tuple[int, ...]) -> None:
        self._sim = sim  # the allocation belongs to the simulation's device and library
        self.shape = shape
        self.dtype = "float32"
        size = 1
        for d in shape:
            size *= d
        self.size = size
        ptr = ctypes.c_void_p()
        sim._check(_n.C.bg_sim_device_alloc(sim._handle(), 4 * size, ctypes.byref(ptr)), "bg_sim_device_alloc")
        self.ptr = int(ptr.value or 0)

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        return {"shape": self.shape, "typestr": _F32, "data": (self.ptr, False), "version": 3,
                "strides": None, "stream": None}

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 0

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype=float32, device={self._sim.device})"

    def __del__(self) -> None:
        sim = getattr(self, "_sim", None)
        if sim is not None and getattr(self, "ptr", 0) and sim._h:
            _n.C.bg_sim_device_free(sim._h, ctypes.c_void_p(self.ptr))
        self.ptr = 0


def field_shape(width: int, n: int) -> Tuple[int, ...]:
    return (n, 3, 3) if width == 9 else (n, 3) if width == 3 else (n,)


def get_into(sim: Any, code: int, width: int, out: Any, name: str = "out") -> Any:
    """Field code of every particle into the device array out, in place."""
    n = len(sim)
    ptr, stream = view(out, name, field_shape(width, n), writable=True)
    sim._check(_n.C.bg_sim_get_device(sim._handle(), code, ptr, n * width, stream), "bg_sim_get_device")
    return out


def get_new(sim: Any, code: int, width: int) -> DeviceArray:
    n = len(sim)
    arr = DeviceArray(sim, field_shape(width, n))
    if n:
        sim._check(_n.C.bg_sim_get_device(sim._handle(), code, arr.ptr, n * width, 0), "bg_sim_get_device")
    return arr


def set_from(sim: Any, code: int, values: Any, name: str) -> None:
    n = len(sim)
    ptr, stream = view(values, name, (n, 3), writable=False)
    sim._check(_n.C.bg_sim_set_device(sim._handle(), code, ptr, 3 * n, stream), "bg_sim_set_device")


def add_from(sim: Any, positions: Any, velocities: Optional[Any], ppc: float, material: int) -> int:
    """Particles from device arrays; returns their count."""
    shape = tuple(int(d) for d in positions.__cuda_array_interface__["shape"])
    if len(shape) != 2 or shape[1] != 3:
        raise ValueError(f"positions must have shape (n, 3) (got {shape})")
    n = shape[0]
    xp, stream = view(positions, "positions", (n, 3), writable=False)
    vp = 0
    if velocities is not None:
        if not has_cai(velocities):
            raise ValueError("velocities must be a device array when positions are")
        vp, vstream = view(velocities, "velocities", (n, 3), writable=False)
        stream = stream or vstream
    sim._check(_n.C.bg_sim_add_particles_device(sim._handle(), n, xp, vp or None, ppc, int(material), stream),
               "bg_sim_add_particles_device")
    return n
