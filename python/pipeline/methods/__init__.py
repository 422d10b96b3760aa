"""Feature-ranking methods and their registry.

Each method is described by a :class:`~pipeline.methods.base.MethodSpec`; register a new one by
adding its ``SPEC`` to ``_SPECS`` below (docs/methods/README.md, "Adding a method").
"""

from __future__ import annotations

from ..errors import ConfigError
from . import anchors, dagfs, grro, lrdg, lrmfs, lsmfs, rfsfs, scnmf, srfs
from .base import MethodSpec

_SPECS: tuple[MethodSpec, ...] = (
    dagfs.SPEC,
    anchors.RANDOM,
    anchors.VARIANCE,
    anchors.LABELCORR,
    lrmfs.SPEC,
    grro.SPEC,
    srfs.SPEC,
    scnmf.SPEC,
    lsmfs.SPEC,
    lrdg.SPEC,
    rfsfs.SPEC,
)
_REGISTRY = {spec.name: spec for spec in _SPECS}


def available_methods() -> list[str]:
    """Names of every registered method, in registry order."""
    return list(_REGISTRY)


def get_method(name: str) -> MethodSpec:
    """Return the :class:`MethodSpec` of ``name`` or raise ConfigError listing the known methods."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown method {name!r}", expected=f"one of {available_methods()}") from None


__all__ = ["MethodSpec", "available_methods", "get_method"]
