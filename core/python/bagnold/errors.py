"""BagnoldError: a failed C call as a Python exception carrying the C message."""

from __future__ import annotations

from . import _native as _n


class BagnoldError(RuntimeError):
    """A bagnold C function returned a status other than BG_OK.

    Attributes:
        status: the status's enum name, e.g. ``"BG_ERR_RANGE"``.
        code: its integer value.
        message: the library's own sentence (bg_sim_last_error, or the err
            buffer of bg_sim_create / bg_sim_load); falls back to the status's
            static description when the call left none.
        function: the C function that failed.
    """

    def __init__(self, code: int, message: str, function: str = "") -> None:
        self.code = int(code)
        self.status = _n.status_name(self.code)
        self.message = message or _n.status_str(self.code)
        self.function = function
        where = f" ({function})" if function else ""
        super().__init__(f"{self.status}{where}: {self.message}")


def check(code: int, message: str = "", function: str = "") -> None:
    """Raises BagnoldError unless code is BG_OK (0)."""
    if code != 0:
        raise BagnoldError(code, message, function)


class ModelUnavailable(LookupError):
    """A material model the loaded library was built without (its header
    was not in core/physics/materials/ when the library was configured)."""
