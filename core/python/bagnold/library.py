"""What the library offers before any simulation exists: its backends and
their properties, the thread wait policy in effect, and checkpoint checks."""

from __future__ import annotations

import ctypes
import os
from typing import Any, Dict, List, Tuple, Union

from . import _native as _n
from .errors import check

PathLike = Union[str, "os.PathLike[str]"]


def _path(p: PathLike) -> bytes:
    return os.fsencode(os.fspath(p))


def backend_status(name: str) -> Tuple[bool, str]:
    """(available, why) of bg_backend_available: why is the reason when not
    available, the device's description (or "") when it is."""
    why = _n.err_buffer()
    ok = _n.C.bg_backend_available(name.encode(), why, len(why))
    return bool(ok), why.value.decode(errors="replace")


def verify_checkpoint(path: PathLike) -> None:
    """The checks Sim.load makes of a checkpoint before reading it (header,
    length, SHA-256: bg_checkpoint_verify), with no simulation made; raises
    BagnoldError (BG_ERR_CORRUPT, BG_ERR_TRUNCATED, ...) naming the file."""
    err = _n.err_buffer()
    check(_n.C.bg_checkpoint_verify(_path(path), err, len(err)), err.value.decode(errors="replace"),
          "bg_checkpoint_verify")


def thread_wait_policy() -> str:
    """How the CPU backend's idle threads wait (bg_thread_wait_policy):
    "passive" (they sleep: the package's choice when the user set neither
    OMP_WAIT_POLICY nor GOMP_SPINCOUNT before importing it), "active",
    "spin N" or "default" (libgomp spins before sleeping, about 8x slower
    on cores shared with other work)."""
    return _n.C.bg_thread_wait_policy().decode()


def backend_available(name: str) -> bool:
    """True when the backend (a name of :func:`backends`, or "auto") can run here."""
    return backend_status(name)[0]


def backends() -> List[str]:
    """The backends compiled into the library (bg_backend_count,
    bg_backend_name), in the order "auto" prefers them."""
    return [_n.C.bg_backend_name(i).decode() for i in range(_n.C.bg_backend_count())]


def backend_properties(name: str) -> List[Dict[str, Any]]:
    """The named tuning properties of a backend (bg_backend_property): one
    dict per property with its name, accepted values, default and doc."""
    count = _n.C.bg_backend_property_count(name.encode())
    if count < 0:
        raise ValueError(f"backend {name!r} is not in this build (backends(): {backends()})")
    out = []
    for i in range(count):
        f = [ctypes.c_char_p() for _ in range(4)]
        check(_n.C.bg_backend_property(name.encode(), i, *[ctypes.byref(x) for x in f]), "",
              "bg_backend_property")
        name_, values, default, doc = (x.value.decode() for x in f)
        out.append({"name": name_, "values": values.split("|"), "default": default, "doc": doc})
    return out
