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

A :class:`MethodSpec` describes where a method can run: a NumPy implementation and/or a
MATLAB/Octave function of the same signature (``matlab_function``, under ``matlab/baselines/`` or
in a plug-in folder). The NumPy implementation comes in one of two forms:

- minimal (the shipped methods' form): ``scores=f`` with ``f(X_train, Y_train, params)`` returning
  the (d,) finite scores, higher = more important, or ``(scores, info)`` with ``info`` a dict of
  JSON-serialisable extras (iteration counts, objective traces); ``f(X_train, Y_train, params,
  init)`` when the method has ``make_init`` or the caller passes initial matrices;
- full: ``python=rank`` with the signature above.

Either way :meth:`MethodSpec.run` is the harness every caller goes through: it validates the
inputs (non-negative features too for a method with ``nonnegative_features``), merges and
type-checks the parameters, draws the random starts, and for the minimal form checks the scores,
applies the project's ranking rule and adds ``"scores"`` to ``info``. The contract, the ranking
rule and the random starts are described in docs/methods/README.md; plug-in methods in
docs/plugins.md.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Callable, Mapping

import numpy as np

from ..definitions import MAX_SEED, SEED_RANGE, method_definition
from ..errors import ConfigError, EngineError, RankingError
from ..names import validate_name
from ..rankings import rank_scores, validate_scores
from ..validation import Interval, is_finite_number, is_integer
from ._common import check_training_data
from .starts import UniformStream

#: Integer parameters must survive the round trip through a MATLAB/Octave double exactly.
MAX_EXACT_INTEGER = 2**53

RankFunction = Callable[[np.ndarray, np.ndarray, dict, "dict | None"], "tuple[np.ndarray, dict]"]
InitFunction = Callable[[int, int, int, UniformStream, dict], dict]
ScoresFunction = Callable[..., "np.ndarray | tuple[np.ndarray, dict]"]


@dataclass(frozen=True)
class MethodSpec:
    """Where and how a feature-ranking method runs.

    Attributes
    ----------
    name : str
        Registry name, also the results sub-folder (e.g. ``"DAGFS"``).
    defaults : Mapping[str, Any]
        Default parameters; user parameters may only override these keys (a shipped method's
        from its definition file, :meth:`shipped`).
    python : callable or None
        NumPy implementation, full form (module docstring).
    scores : callable or None
        NumPy implementation, minimal form: ``scores(X_train, Y_train, params)`` returning the
        (d,) scores or ``(scores, info)`` (with ``init`` as a fourth argument when ``make_init``
        is set or the caller passes ``init``). At most one of the two forms.
    matlab_function : str or None
        Name of the MATLAB/Octave function with the same signature.
    make_init : callable or None
        ``make_init(n, d, L, stream, params) -> dict`` of initial matrices for methods with random
        starts, drawn from ``stream.matrix(rows, cols)`` in the method's order; the harness seeds
        the stream with ``params["seed"]``.
    summary : str
        One line for ``--help`` listings.
    allowed : Mapping[str, Interval]
        Ranges or choices of parameters, beyond the type their default implies (a shipped
        method's from its definition file, :meth:`shipped`). Checked with
        the type before any task runs, so a bad value is a user error (exit code 2) on every
        engine, not a failure inside Octave.
    plugin_dir : str or None
        The plug-in folder the method was loaded from (set by the loader; None for the shipped
        methods): MATLAB/Octave plug-ins are looked up, and fingerprinted, there.
    nonnegative_features : bool
        Whether the harness refuses negative features (the factorisation baselines need X >= 0;
        min-max scaled folds always pass).
    """

    name: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    python: RankFunction | None = None
    matlab_function: str | None = None
    make_init: InitFunction | None = None
    summary: str = ""
    allowed: Mapping[str, Interval] = field(default_factory=dict)
    scores: ScoresFunction | None = None
    plugin_dir: str | None = None
    nonnegative_features: bool = False

    def __post_init__(self):
        validate_name(self.name, "method")
        if self.python is not None and self.scores is not None:
            raise ConfigError(f"method {self.name} gives both python= and scores=", expected="one of the two forms")
        if not isinstance(self.defaults, Mapping):
            raise ConfigError(f"method {self.name}: defaults must be a mapping", found=type(self.defaults).__name__)
        undeclared = sorted(set(self.allowed) - set(self.defaults), key=str)
        if undeclared:
            raise ConfigError(f"method {self.name}: a range for parameter(s) {undeclared} it does not have",
                              expected=f"parameters among {sorted(self.defaults)}")
        for name, allowed in self.allowed.items():
            if not allowed.admits(self.defaults[name]):
                raise ConfigError(f"method {self.name}: the default of parameter {name!r} lies outside its range",
                                  expected=str(allowed), found=repr(self.defaults[name]))

    @classmethod
    def shipped(cls, name: str, **spec) -> "MethodSpec":
        """A shipped method: its defaults and ranges are those of ``methods/definitions/<name>.json``
        (:func:`~pipeline.definitions.method_definition`), the file the MATLAB/Octave twin reads too."""
        definition = method_definition(name)
        return cls(name=name, defaults=definition.defaults, allowed=definition.ranges, **spec)

    @property
    def has_python(self) -> bool:
        """Whether the method has a NumPy implementation (either form)."""
        return self.python is not None or self.scores is not None

    @property
    def python_function(self) -> Callable | None:
        """The user's NumPy function (either form): its file is what the fingerprint covers."""
        return self.python if self.python is not None else self.scores

    def run(self, X_train, Y_train, params: Mapping[str, Any] | None, init: dict | None = None
            ) -> tuple[np.ndarray, dict]:
        """The harness: rank the features of a training fold with the NumPy implementation.

        Validates the fold (2-D, same rows, finite features, labels in {0, 1}, non-negative
        features when ``nonnegative_features``), merges and checks the parameters
        (:meth:`resolve_params`), draws the random starts when ``init`` is None, and returns the
        1-based ranking and the info dict with the ``scores`` (d,).

        Raises
        ------
        DataError, ConfigError
            For a bad fold or bad parameters.
        EngineError
            For scores that are not d finite real numbers, or a method that writes into its inputs
            (it gets read-only copies of X_train, Y_train and init, and a copy of params).
        """
        if not self.has_python:
            raise ConfigError(f"method {self.name} has no Python implementation")
        X, Y = check_training_data(X_train, Y_train, self.name, nonnegative=self.nonnegative_features)
        params = self.resolve_params(params)
        n, d = X.shape
        takes_init = self.make_init is not None or init is not None
        if init is None:
            init = self.initial_matrices(n, d, Y.shape[1], params)
        # The method gets read-only copies: the fold it ranks is the one ML-kNN scores next, so a
        # method that changed it in place would change the reported numbers (and a write fails loudly).
        X, Y, init, params = _read_only(X), _read_only(Y), _read_only_values(init), copy.deepcopy(params)
        with _writes_explained(self.name):
            if self.python is not None:
                return self.python(X, Y, params, init)
            arguments = (X, Y, params, init) if takes_init else (X, Y, params)
            result = self.scores(*arguments)
        scores, info = self._scores_and_info(result)
        try:
            scores = validate_scores(scores, d, source=f"{self.name} scores")
        except RankingError as exc:  # the method's output, not the user's input: its task fails (exit 1)
            raise EngineError(str(exc)) from None
        return rank_scores(scores, self.name), {**info, "scores": scores}

    def _scores_and_info(self, result) -> tuple[Any, dict]:
        """Split what a scores function returned: the scores alone, or ``(scores, info)``."""
        if not isinstance(result, tuple):
            return result, {}
        if len(result) != 2 or not isinstance(result[1], Mapping):
            raise EngineError(f"method {self.name}: the scores function returned a tuple that is not "
                              "(scores, info)", expected="(d,) scores or (scores, info dict)",
                              found=f"a tuple of {len(result)}")
        return result[0], result[1]

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


def _read_only(array: np.ndarray) -> np.ndarray:
    copied = np.array(array, copy=True)
    copied.flags.writeable = False
    return copied


def _read_only_values(init: dict | None) -> dict | None:
    if init is None:
        return None
    return {key: _read_only(value) if isinstance(value, np.ndarray) else copy.deepcopy(value)
            for key, value in init.items()}


@contextmanager
def _writes_explained(method: str):
    """A method writing into its read-only inputs fails with what to do instead."""
    try:
        yield
    except ValueError as exc:
        if "read-only" not in str(exc):
            raise
        raise EngineError(f"{method} writes into its inputs ({exc}): the harness passes X_train, Y_train and init "
                          "read-only; work on a copy (X = X - X.mean(axis=0), or X = X.copy())") from None


def _check_parameter(method: str, name: str, value: Any, default: Any) -> None:
    """ConfigError unless ``value`` has the type (and range) that ``default`` implies."""
    if name == "seed":
        ok, expected = is_integer(value) and SEED_RANGE.admits(value), f"an integer in [0, {MAX_SEED}]"
    elif isinstance(default, bool):
        ok, expected = isinstance(value, bool), "true or false"
    elif isinstance(default, Integral):
        ok = is_integer(value) and abs(value) <= MAX_EXACT_INTEGER
        expected = f"an integer (|value| <= 2**53), like the default {default!r}"
    elif isinstance(default, Real):
        ok, expected = is_finite_number(value), f"a finite number, like the default {default!r}"
    elif isinstance(default, str):
        ok, expected = isinstance(value, str), f"a string, like the default {default!r}"
    else:
        return
    if not ok:
        raise ConfigError(f"invalid value for parameter {name!r} of method {method}", field=name,
                          expected=expected, found=f"{value!r} ({type(value).__name__})")
