"""bagnold: the MLS-MPM granular solver's C library from Python.

A thin ctypes layer over libbagnold.so (core/include/bagnold.h) with numpy
arrays in and out::

    import numpy as np
    from bagnold import Sim, sand, halfspace

    sim = Sim(grid=(32, 32, 32), dx=0.01, material=sand(phi_deg=35),
              colliders=[halfspace((0, 0, 0.035), (0, 0, 1), friction=0.5)], threads=2)
    sim.add(positions, ppc=8)          # positions: (n, 3) m
    sim.run(100)
    rho = sim.density()                # (n,) kg/m^3

Materials: :func:`sand`, :func:`mui`, :func:`ngf` and taichi_mpm's
:func:`jelly`, :func:`snow`, :func:`water`, :func:`von_mises` (the models
this build has: :func:`models`), each from its header's defaults, with
taichi_mpm's parameter names accepted and every range checked when it is
made (core/python/README.md).

Failed C calls raise :class:`BagnoldError` with the status name and the
library's message. The library is found through ``$BAGNOLD_LIBRARY``, then
the copy installed with the package, then the build tree
(``$BAGNOLD_BUILD_DIR/lib``, ``<repo>/build/lib``); :data:`library_path`
says which file was loaded.
"""

from ._native import library_path
from .device import DeviceArray
from .errors import BagnoldError, ModelUnavailable
from .materials import has_model, jelly, models, snow, von_mises, water
from .output import PvdSeries, SimSeries, TsvSeries, pvd
from .scene import (
    FACES,
    Collider,
    Material,
    Sink,
    box,
    cylinder,
    halfspace,
    material,
    mui,
    ngf,
    sand,
    sdf,
    sink,
    wall_edge_offset,
)
from .library import (backend_available, backend_properties, backend_status, backends, thread_wait_policy,
                      verify_checkpoint)
from .bodies import Body
from .sim import Sim, Stats

__version__ = "0.1.0"  # bagnold.h's BG_VERSION_STRING (a test holds them equal)

__all__ = [
    "BagnoldError", "ModelUnavailable", "Sim", "Stats", "Body", "Material", "material", "sand", "mui", "ngf",
    "jelly", "snow", "water", "von_mises", "models", "has_model", "Collider",
    "halfspace", "box", "cylinder", "sdf", "Sink", "sink", "FACES", "wall_edge_offset",
    "PvdSeries", "pvd", "TsvSeries", "SimSeries", "backend_available", "backend_status",
    "backends", "backend_properties",
    "verify_checkpoint", "thread_wait_policy", "library_path", "DeviceArray", "__version__",
]
