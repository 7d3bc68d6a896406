"""taichi_mpm's particle types as bagnold materials: jelly, snow, water and
von Mises (sand is :func:`bagnold.sand`).

Each constructor starts from the library's default of the model
(bg_material_default: the defaults are its header's, in SI), sets the
keyword arguments by name (bagnold's names, or taichi_mpm's where the
meaning is the same: :data:`bagnold.scene.ALIASES`) and checks every
parameter against the range the library holds it to, so that a bad value
fails here, naming the argument and the range, not in a run. A model whose
header is not in the loaded library's build is a :class:`ModelUnavailable`
error naming the header.
"""

from __future__ import annotations

from typing import Any, List

from . import _native as _n
from .errors import ModelUnavailable
from .scene import Material, material


def models() -> List[str]:
    """The labels of the material models this build of the library has, in
    their order (the model number is the index)."""
    return [label for _, label, _ in _n.MODELS]


def has_model(label: str) -> bool:
    """Whether this build has the model (its label: "elastic", "snow", ...)."""
    return _n.C.bg_material_model_from_name(label.encode()) >= 0


def _named(label: str, header: str, constructor: str, params: Any) -> Material:
    if not has_model(label):
        raise ModelUnavailable(
            f"bagnold.{constructor}(): the {label!r} model is not in this build of {_n.library_path} "
            f"(registered: {', '.join(models())}); it is core/physics/materials/{header}: "
            "rebuild the library with that header in place")
    return material(label, **params)


def jelly(**params: Any) -> Material:
    """taichi_mpm's ``jelly``: the hyperelastic model (bg_mat_elastic.h,
    label "elastic") with its defaults; parameters by name: ``law``
    ("neo-hookean" or "fixed-corotated"), E, nu, rho0 (taichi_mpm's
    ``youngs_modulus``, ``poisson_ratio``, ``density``, or the Lame pair
    ``mu_0``, ``lambda_0`` together), and the common stress,
    volume_correction, elastic_only."""
    return _named("elastic", "bg_mat_elastic.h", "jelly", params)


def snow(**params: Any) -> Material:
    """Stomakhin et al. 2013's snow (bg_mat_snow.h) with its defaults;
    parameters by name: ``hardening`` (xi), ``theta_c`` (critical
    compression), ``theta_s`` (critical stretch), and the model's other
    fields, E, nu, rho0 (or taichi_mpm's ``mu_0``, ``lambda_0``)."""
    return _named("snow", "bg_mat_snow.h", "snow", params)


def water(**params: Any) -> Material:
    """Weakly compressible water (bg_mat_water.h) with its defaults;
    parameters by name: ``bulk_modulus`` (Pa; taichi_mpm's ``k``),
    ``gamma``, ``viscosity`` (dynamic, Pa s), rho0 (``density``). The
    model's stress and wave speed come from k and gamma, not E and nu."""
    return _named("water", "bg_mat_water.h", "water", params)


def von_mises(**params: Any) -> Material:
    """J2 plasticity (bg_mat_vm.h, label "von-mises") with its defaults;
    parameters by name: ``yield_stress`` (Pa), ``hardening`` (linear
    isotropic modulus, Pa), E, nu, rho0 (``youngs_modulus``,
    ``poisson_ratio``, ``density``)."""
    return _named("von-mises", "bg_mat_vm.h", "von_mises", params)


__all__ = ["models", "has_model", "jelly", "snow", "water", "von_mises", "ModelUnavailable"]
