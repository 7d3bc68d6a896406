"""Series written while a simulation runs: ParaView .pvd time series
(bg_pvd_*) and TSV scalar series (bg_series_*, bg_sim_series_*)."""

from __future__ import annotations

import ctypes
import os
from typing import TYPE_CHECKING, Sequence, Union

import numpy as np

from . import _native as _n
from .errors import BagnoldError, check

if TYPE_CHECKING:
    from .sim import Sim

PathLike = Union[str, "os.PathLike[str]"]


class PvdSeries:
    """A ParaView time series: frames DIR/PREFIX_NNNNNN.vtu and the index
    DIR/PREFIX.pvd, which lists the frames on disk after every frame.

    Use as a context manager, or call :meth:`close`. ``resume=True`` keeps
    the frames of an existing index whose time is below the next frame's.
    """

    def __init__(self, directory: PathLike, prefix: str = "frame", resume: bool = False) -> None:
        self._h = _n.c_void_p()
        self._C = _n.C
        self.directory, self.prefix = os.fspath(directory), prefix
        code = _n.C.bg_pvd_open(os.fsencode(self.directory), prefix.encode(), int(bool(resume)),
                                ctypes.byref(self._h))
        if code != 0:
            # bg_pvd_open has no err buffer: without a handle, the message of
            # this thread's last failed open is bg_pvd_last_error(NULL)'s
            msg = self._last_error()
            self.close()
            raise BagnoldError(code, msg or f"{self.directory}/{prefix}.pvd: {_n.status_str(code)}",
                               "bg_pvd_open")

    def _last_error(self) -> str:
        msg = _n.C.bg_pvd_last_error(self._h or None)
        return msg.decode(errors="replace") if msg else ""

    def frame(self, sim: "Sim") -> None:
        """Writes the simulation's current state as the next frame."""
        if not self._h:
            raise ValueError("the series is closed")
        code = _n.C.bg_pvd_frame(self._h, sim._handle())
        check(code, self._last_error(), "bg_pvd_frame")

    @property
    def index_path(self) -> str:
        return os.path.join(self.directory, self.prefix + ".pvd")

    def close(self) -> None:
        h, self._h = getattr(self, "_h", None), _n.c_void_p()
        if h:
            self._C.bg_pvd_close(h)

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> "PvdSeries":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pvd(directory: PathLike, prefix: str = "frame", resume: bool = False) -> PvdSeries:
    """A ParaView .pvd time series in directory (see :class:`PvdSeries`)."""
    return PvdSeries(directory, prefix, resume)


class TsvSeries:
    """A TSV scalar series (bg_series): a '#' comment line, a header naming
    the columns, then one row per :meth:`row`. The file appears under its
    name only when :meth:`close` succeeds (it is written under PATH.tmp)."""

    def __init__(self, path: PathLike, columns: Sequence[str], comment: str = "") -> None:
        self._h = _n.c_void_p()
        self._C = _n.C
        self.path = os.fspath(path)
        self.columns = [str(c) for c in columns]
        names = (ctypes.c_char_p * max(len(self.columns), 1))(*[c.encode() for c in self.columns])
        code = _n.C.bg_series_open(os.fsencode(self.path), comment.encode(), names, len(self.columns),
                                   ctypes.byref(self._h))
        check(code, f"{self.path}: {_n.status_str(code)}", "bg_series_open")

    def row(self, values: Sequence[float]) -> None:
        """One row, a value per column."""
        arr = np.ascontiguousarray(values, dtype=np.float64)
        if arr.shape != (len(self.columns),):
            raise ValueError(f"values must be {len(self.columns)} numbers (got shape {arr.shape})")
        code = _n.C.bg_series_row(self._live(), arr.ctypes.data_as(_n._D), arr.size)
        check(code, f"{self.path}: {_n.status_str(code)}", "bg_series_row")

    def _live(self) -> _n.c_void_p:
        if not self._h:
            raise ValueError("the series is closed")
        return self._h

    def close(self) -> None:
        """Flushes and renames the file into place; BagnoldError (BG_ERR_IO)
        if any write failed."""
        h, self._h = getattr(self, "_h", None), _n.c_void_p()
        if h:
            code = self._C.bg_series_close(h)
            if code != 0:
                err = ctypes.get_errno()
                raise BagnoldError(code, f"{self.path}: {os.strerror(err) if err else 'write failed'}",
                                   "bg_series_close")

    def __del__(self) -> None:
        try:
            self.close()
        except BagnoldError:
            pass  # a destructor cannot report; close() explicitly to see it

    def __enter__(self) -> "TsvSeries":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SimSeries(TsvSeries):
    """The standard per-step series of a simulation (bg_sim_series_open):
    step, time, dt, active, parked, parked mass, kinetic energy, max speed."""

    def __init__(self, sim: "Sim", path: PathLike, comment: str = "") -> None:
        self._h = _n.c_void_p()
        self._C = _n.C
        self.path = os.fspath(path)
        self.columns = []
        self._sim = sim
        code = _n.C.bg_sim_series_open(os.fsencode(self.path), comment.encode(), ctypes.byref(self._h))
        check(code, f"{self.path}: {_n.status_str(code)}", "bg_sim_series_open")

    def row(self, values: Sequence[float] = ()) -> None:  # type: ignore[override]
        """One row of the simulation's current state."""
        if len(values):
            raise ValueError("a simulation series takes no values: row() records the simulation's state")
        sim = self._sim
        code = _n.C.bg_sim_series_row(sim._handle(), self._live())
        sim._check(code, "bg_sim_series_row")
