"""The method contract shared by every engine.

A method ranks the d features of a training set from most to least important::

    ranking_1based, info = rank(X_train, Y_train, params, init)

- ``X_train``: (n, d) float64, min–max scaled training features.
- ``Y_train``: (n, L) {0,1} labels.
- ``params``: the method's parameters (defaults merged with user values).
- ``init``: optional initial matrices, drawn by the harness from :class:`~pipeline.methods.starts.UniformStream`
  so every engine and both front doors start from the same point (``None`` for deterministic methods).
- ``ranking_1based``: int64 (d,), a permutation of 1..d, made by
  :func:`~pipeline.rankings.rank_scores` from the method's per-feature scores;
- ``info``: a dict whose ``"scores"`` entry holds those scores (d,) (written to
  ``<DATASET>_fold<i>_scores.csv``); every other entry is JSON-serialisable.

A :class:`MethodSpec` describes where a method can run: a NumPy implementation (``python``) and/or
a MATLAB/Octave function of the same signature under ``matlab/baselines/`` (``matlab_function``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import ConfigError
from .starts import UniformStream

RankFunction = Callable[[np.ndarray, np.ndarray, dict, "dict | None"], "tuple[np.ndarray, dict]"]
InitFunction = Callable[[int, int, int, UniformStream, dict], dict]


@dataclass(frozen=True)
class MethodSpec:
    """Where and how a feature-ranking method runs.

    Attributes
    ----------
    name : str
        Registry name, also the results sub-folder (e.g. ``"DAGFS"``).
    defaults : Mapping[str, Any]
        Default parameters; user parameters may only override these keys.
    python : callable or None
        NumPy implementation with the signature in the module docstring.
    matlab_function : str or None
        Name of the MATLAB/Octave function with the same signature.
    make_init : callable or None
        ``make_init(n, d, L, stream, params) -> dict`` of initial matrices for methods with random
        starts, drawn from ``stream.matrix(rows, cols)`` in the method's order; the harness seeds
        the stream with ``params["seed"]``.
    summary : str
        One line for ``--help`` listings.
    """

    name: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    python: RankFunction | None = None
    matlab_function: str | None = None
    make_init: InitFunction | None = None
    summary: str = ""

    def resolve_params(self, overrides: Mapping[str, Any] | None) -> dict:
        """Return the defaults updated with ``overrides``; unknown keys raise ConfigError."""
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(self.defaults))
        if unknown:
            raise ConfigError(f"unknown parameter(s) {unknown} for method {self.name}",
                              expected=f"keys among {sorted(self.defaults)}")
        return {**self.defaults, **overrides}

    def initial_matrices(self, n: int, d: int, n_labels: int, params: Mapping[str, Any]) -> dict | None:
        """Draw the initial matrices from ``UniformStream(params['seed'])`` (``None`` if not needed)."""
        if self.make_init is None:
            return None
        return self.make_init(n, d, n_labels, UniformStream(params.get("seed", 0)), dict(params))
