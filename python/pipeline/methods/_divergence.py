"""Divergence guard shared by the Baselines II ports (LSMFS, LRDG, RFSFS).

An iterate with a non-finite entry, or with an entry larger in magnitude than ``limit`` (the
method's ``divergence_limit`` parameter, 1e100 by default in ``definitions/<METHOD>.json``), stops
the method with an :class:`~pipeline.errors.EngineError` naming the method, the iteration and the
iterate, instead of letting NaN or overflow reach the ranking. The engines add the task (``method/dataset/foldN``).
Twin: ``matlab/util/mlfs_check_iterates.m`` (error identifier ``mlfs:<METHOD>:diverged``).

Why 1e100 (docs/methods/README.md): features are in [0, 1] and labels in {0, 1}; on fold 0 of the
13 benchmark data sets where they run, the largest entries measured are LRDG ≤ 7e3 and RFSFS ≤ 2 at
their defaults, and LSMFS ≤ 6e24 at α = 0.1, β = 1 (where its V grows every iteration). Squares of
entries up to 1e100 summed over 1e10 entries stay far from float64 overflow (1.8e308), so every
objective value computed before the guard fires is still finite.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError, EngineError


def check_limit(method: str, limit) -> float:
    """Validate a ``divergence_limit`` parameter (positive, may be ``inf``)."""
    value = float(limit)
    if not value > 0:
        raise ConfigError(f"{method} divergence_limit must be > 0", field="divergence_limit", found=limit)
    return value


def check_iterates(method: str, iteration: int, limit: float, **iterates: np.ndarray) -> None:
    """Raise EngineError if an iterate is non-finite or has an entry above ``limit`` in magnitude.

    Parameters
    ----------
    method : str
        Named in the message.
    iteration : int
        1-based iteration just completed.
    limit : float
        Largest admissible magnitude of an entry.
    **iterates : ndarray
        The matrices to check, by name (e.g. ``W=W, V=V``).
    """
    for name, value in iterates.items():
        finite = np.isfinite(value)
        if not finite.all():
            raise EngineError(f"{method} diverged at iteration {iteration}: {name} has non-finite entries",
                              field=name, found=f"{int(value.size - finite.sum())} of {value.size} non-finite")
        peak = float(np.max(np.abs(value))) if value.size else 0.0
        if peak > limit:
            raise EngineError(f"{method} diverged at iteration {iteration}: an entry of {name} exceeds "
                              f"divergence_limit", field=name, expected=f"max |{name}| <= {limit:g}",
                              found=f"{peak:.3g}")
