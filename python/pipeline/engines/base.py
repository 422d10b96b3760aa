"""Engines: where a method ranks features and where ML-kNN evaluates a ranking.

An engine turns a (method, training data) pair into a ranking; an evaluator turns a (fold, ranking,
grid) into metric curves. Both are small objects with ``close()`` so a worker can keep one
long-lived instance (for Octave: one Octave process per worker) across many tasks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Sequence

import numpy as np

from ..errors import EngineError
from ..methods.base import MethodSpec


class Engine(ABC):
    """Runs methods. Subclasses: PythonEngine, OctaveEngine, MatlabEngine."""

    name: str = "abstract"

    @abstractmethod
    def supports(self, method_spec: MethodSpec) -> bool:
        """Whether this engine can run ``method_spec``."""

    @abstractmethod
    def rank(self, method_spec: MethodSpec, X_train: np.ndarray, Y_train: np.ndarray, params: dict,
             init: dict | None, *, context: str = "") -> tuple[np.ndarray, dict]:
        """Rank the features of ``X_train`` (n, d) given ``Y_train`` (n, L) in {0,1}.

        Returns the 1-based ranking (d,) and the method's info dict (with its ``scores`` (d,)),
        to which the engine adds ``compute_seconds``: the method call's own time, measured where
        it runs (no start-up, no data transfer), and the messages of the call's numerical warnings
        (:data:`~pipeline.method_warnings.INFO_KEY`). ``context`` ("method/dataset/fold") is used in
        error messages. Failures raise :class:`~pipeline.errors.EngineError`.
        """

    def default_params(self, function: str) -> dict:
        """What ``function()`` returns when called with no argument: a MATLAB/Octave method's
        default parameters (its plug-in contract). EngineError when the call fails."""
        raise EngineError(f"engine {self.name} runs no MATLAB/Octave function ({function})")

    def start(self) -> None:
        """Start the engine's process now; a MATLAB/Octave engine checks its plug-in folders as it
        starts (:func:`~pipeline.engines.octave.plugin_clash`), so a bad folder is refused before any work."""

    def versions(self) -> dict:
        """What the method ran on beyond Python and NumPy (e.g. Octave, its BLAS), for the ranking's record."""
        return {}

    def close(self) -> None:
        """Release external resources (an Octave process, a MATLAB session)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Evaluator(ABC):
    """Scores a ranking with ML-kNN over a grid of feature counts."""

    name: str = "abstract"

    @abstractmethod
    def evaluate(self, X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray,
                 Y_test: np.ndarray, ranking: np.ndarray, k_values: Sequence[int], *,
                 num: int, smooth: float, context: str = "") -> dict:
        """Return ``k_values`` and the metric lists (see ``pipeline.evaluation.mlknn``)."""

    def prepare(self, X_train: np.ndarray, Y_train: np.ndarray, X_test: np.ndarray, Y_test: np.ndarray, *,
                num: int, smooth: float):
        """A fold checked and converted once (``prepare_fold``), to score many rankings on it with
        :meth:`evaluate_prepared` (the candidates of one inner split do)."""
        from ..evaluation.mlknn import prepare_fold

        return prepare_fold(X_train, Y_train, X_test, Y_test, num=num, smooth=smooth)

    def evaluate_prepared(self, fold, ranking: np.ndarray, k_values: Sequence[int], *,
                          context: str = "") -> dict:
        """:meth:`evaluate` on a fold made by :meth:`prepare` (the same curves). This default sends
        the prepared arrays to :meth:`evaluate`, which does its own ML-kNN set-up."""
        return self.evaluate(fold.X_train, fold.Y_train, fold.X_test, fold.Y_test, ranking, k_values,
                             num=fold.num, smooth=fold.smooth, context=context)

    def close(self) -> None:
        """Release external resources."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
