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
The contract, the ranking rule and the random starts are described in docs/methods/README.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import ConfigError
from .starts import MAX_SEED, UniformStream

#: Integer parameters must survive the round trip through a MATLAB/Octave double exactly.
MAX_EXACT_INTEGER = 2**53

RankFunction = Callable[[np.ndarray, np.ndarray, dict, "dict | None"], "tuple[np.ndarray, dict]"]
InitFunction = Callable[[int, int, int, UniformStream, dict], dict]


@dataclass(frozen=True)
class Allowed:
    """What a parameter may be beyond its type: a range (``low_open``/``high_open`` exclude the
    bound) and/or a list of choices. Checked with the type before any task runs, so a bad value is
    a user error (exit code 2) on every engine, not a failure inside Octave."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()

    def admits(self, value: Any) -> bool:
        if self.choices:
            return value in self.choices
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return above and below

    def __str__(self) -> str:
        if self.choices:
            return f"one of {list(self.choices)}"
        low = "" if self.low is None else f"{'>' if self.low_open else '>='} {self.low:g}"
        high = "" if self.high is None else f"{'<' if self.high_open else '<='} {self.high:g}"
        return " and ".join(part for part in (low, high) if part)


NON_NEGATIVE = Allowed(low=0)
POSITIVE = Allowed(low=0, low_open=True)
AT_LEAST_ONE = Allowed(low=1)
FRACTION_BELOW_ONE = Allowed(low=0, high=1, high_open=True)


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
    allowed : Mapping[str, Allowed]
        Ranges or choices of parameters, beyond the type their default implies.
    """

    name: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    python: RankFunction | None = None
    matlab_function: str | None = None
    make_init: InitFunction | None = None
    summary: str = ""
    allowed: Mapping[str, Allowed] = field(default_factory=dict)

    def resolve_params(self, overrides: Mapping[str, Any] | None) -> dict:
        """Return the defaults updated with ``overrides``, each checked against its default's type.

        An int default accepts integers only (not bools, not 1.7) within +-2**53; a float default
        ints and finite floats (not bools); a bool default bools only; a str default strings
        only. ``seed`` must be an integer in [0, 2**32 - 1].

        Raises
        ------
        ConfigError
            An unknown key, or a value of the wrong type or range (the message names both).
        """
        overrides = dict(overrides or {})
        unknown = sorted((key for key in overrides if key not in self.defaults), key=str)
        if unknown:
            raise ConfigError(f"unknown parameter(s) {unknown} for method {self.name}",
                              expected=f"keys among {sorted(self.defaults)}")
        for name, value in overrides.items():
            _check_parameter(self.name, name, value, self.defaults[name])
            allowed = self.allowed.get(name)
            if allowed is not None and not allowed.admits(value):
                raise ConfigError(f"value out of range for parameter {name!r} of method {self.name}", field=name,
                                  expected=str(allowed), found=repr(value))
        return {**self.defaults, **overrides}

    def initial_matrices(self, n: int, d: int, n_labels: int, params: Mapping[str, Any]) -> dict | None:
        """Draw the initial matrices from ``UniformStream(params['seed'])`` (``None`` if not needed)."""
        if self.make_init is None:
            return None
        return self.make_init(n, d, n_labels, UniformStream(params.get("seed", 0)), dict(params))


def _check_parameter(method: str, name: str, value: Any, default: Any) -> None:
    """ConfigError unless ``value`` has the type (and range) that ``default`` implies."""
    if name == "seed":
        ok, expected = _is_integer(value) and 0 <= value <= MAX_SEED, f"an integer in [0, {MAX_SEED}]"
    elif isinstance(default, bool):
        ok, expected = isinstance(value, bool), "true or false"
    elif isinstance(default, Integral):
        ok = _is_integer(value) and abs(value) <= MAX_EXACT_INTEGER
        expected = f"an integer (|value| <= 2**53), like the default {default!r}"
    elif isinstance(default, Real):
        ok, expected = _is_finite_number(value), f"a finite number, like the default {default!r}"
    elif isinstance(default, str):
        ok, expected = isinstance(value, str), f"a string, like the default {default!r}"
    else:
        return
    if not ok:
        raise ConfigError(f"invalid value for parameter {name!r} of method {method}", field=name,
                          expected=expected, found=f"{value!r} ({type(value).__name__})")


def _is_integer(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _is_finite_number(value: Any) -> bool:
    if not isinstance(value, Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond the float range
        return False
