"""Feature-ranking methods and their registry.

Each method is described by a :class:`~pipeline.methods.base.MethodSpec`. The shipped methods are
the built-in plug-ins listed in ``_SPECS``; a user's methods come from plug-in folders
(:mod:`pipeline.methods.plugins`, docs/plugins.md) and from installed packages that declare
entry points in the group ``mlfs_bench.methods``. :func:`get_method` and :func:`available_methods`
are the one lookup for all of them.
"""

from __future__ import annotations

from importlib import metadata

from ..errors import ConfigError
from . import (anchors, dagfs, grro, information_filters, lrdg, lrmfs, lsmfs, mdfs, mfs_mcdm, mgfs, mifs, rfs, rfsfs,
               scnmf, srfs)
from .base import MethodSpec

#: Entry-point group of installed method packages; each entry is a MethodSpec.
ENTRY_POINT_GROUP = "mlfs_bench.methods"
SHIPPED = "the shipped methods"

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
    rfs.SPEC,
    mifs.SPEC,
    mdfs.SPEC,
    mfs_mcdm.SPEC,
    mgfs.SPEC,
    *information_filters.SPECS.values(),
)
_REGISTRY = {method_spec.name: method_spec for method_spec in _SPECS}
#: Method name -> where it came from (a plug-in file, an entry point, the shipped methods).
_ORIGINS = dict.fromkeys(_REGISTRY, SHIPPED)
_entry_points_loaded = False


def register(method_spec: MethodSpec, origin: str) -> None:
    """Add a plug-in method; ConfigError naming ``origin`` when its name is taken already."""
    _load_entry_points()
    _add(method_spec, origin)


def _add(method_spec: MethodSpec, origin: str) -> None:
    if not isinstance(method_spec, MethodSpec):
        raise ConfigError("a plug-in method must be a MethodSpec", file=origin, found=type(method_spec).__name__)
    known = _REGISTRY.get(method_spec.name)
    if known is method_spec:
        return
    if known is not None:
        raise ConfigError(f"method name {method_spec.name} is taken by {_ORIGINS.get(method_spec.name, SHIPPED)}",
                          file=origin, expected="another name for the plug-in method")
    _REGISTRY[method_spec.name] = method_spec
    _ORIGINS[method_spec.name] = origin


def origin_of(name: str) -> str:
    """Where method ``name`` comes from (a file, an entry point, or the shipped methods)."""
    return _ORIGINS.get(name, SHIPPED)


def _load_entry_points() -> None:
    """Register the methods of installed packages (group ``mlfs_bench.methods``), once."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        origin = f"entry point {entry.name} = {entry.value}"
        try:
            method_spec = entry.load()
        except Exception as exc:  # a broken installed package: name it, run nothing
            raise ConfigError(f"cannot load method entry point: {type(exc).__name__}: {exc}", file=origin) from None
        _add(method_spec, origin)


def available_methods() -> list[str]:
    """Names of every registered method: the shipped ones, then the plug-ins in loading order."""
    _load_entry_points()
    return list(_REGISTRY)


def get_method(name: str) -> MethodSpec:
    """Return the :class:`MethodSpec` of ``name`` or raise ConfigError listing the known methods."""
    _load_entry_points()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown method {name!r}", expected=f"one of {available_methods()} "
                          "(a plug-in method needs its folder: --plugins DIR or plugins: in the suite)") from None


__all__ = ["ENTRY_POINT_GROUP", "MethodSpec", "available_methods", "get_method", "origin_of", "register"]
