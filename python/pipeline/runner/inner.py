"""Inner splits of an outer fold's training part, for hyperparameter selection (docs/tuning.md).

A :class:`TuningSpec` says how the outer training part is split (``holdout`` repeats or ``kfold``,
made by the project's iteratively stratified splitter, :func:`~pipeline.data.splits.stratified_splits`,
on the outer training labels only) and what is maximised or minimised on the inner validation
parts (a metric of :data:`~pipeline.evaluation.metrics.METRICS` over one grid: its mean, or for
the p-grid optionally its value at ``p_target``). Each inner part is scaled again with the suite's
scaler fitted on the inner training part only. Nothing of the outer test part is read here.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.folds import load_fold
from ..data.scaling import scale_fold
from ..data.splits import stratified_splits
from ..evaluation.grids import p_target_index
from ..evaluation.metrics import HIGHER_IS_BETTER, METRICS
from .records import grid_points
from .tasks import GridSpec

#: How a candidate's inner criterion summarises the grid: its mean, or (p-grid) its value at p_target.
STATISTICS = ("mean", "p_target")


@dataclass(frozen=True)
class TuningSpec:
    """The declared inner-split rule and selection criterion (picklable, compared by value)."""

    mode: str
    count: int
    seed: int
    test_size: float | None
    scaler: str
    clip_test: bool
    metric: str
    grid: GridSpec
    statistic: str = "mean"

    @property
    def higher_is_better(self) -> bool:
        return HIGHER_IS_BETTER[self.metric]

    def describe(self) -> dict:
        """The settings as recorded in candidate and tuning records (and compared for freshness)."""
        inner = {"mode": self.mode, "count": self.count, "seed": self.seed, "scaler": self.scaler,
                 "clip_test": self.clip_test}
        if self.mode == "holdout":
            inner["test_size"] = self.test_size
        criterion = {"metric": self.metric, "grid": self.grid.mode, "grid_settings": self.grid.describe(),
                     "statistic": self.statistic,
                     "direction": "higher is better" if self.higher_is_better else "lower is better"}
        return {"inner": inner, "criterion": criterion}


@dataclass(frozen=True, eq=False)
class InnerSplit:
    """One inner split: positions (0-based, into the outer training part) and the rescaled parts."""

    index: int
    seed: int
    train: np.ndarray
    validation: np.ndarray
    X_train: np.ndarray
    Y_train: np.ndarray
    X_validation: np.ndarray
    Y_validation: np.ndarray

    def describe(self) -> dict:
        """What rebuilds the split: sizes, the validation positions and a hash of both index lists."""
        digest = hashlib.sha256(self.train.astype("<i8").tobytes() + b"|" + self.validation.astype("<i8").tobytes())
        return {"index": self.index, "seed": self.seed, "n_train": int(self.train.size),
                "n_validation": int(self.validation.size),
                "labels_absent_from_train": int(np.sum(self.Y_train.sum(axis=0) == 0)),
                "labels_absent_from_validation": int(np.sum(self.Y_validation.sum(axis=0) == 0)),
                "indices_sha256": digest.hexdigest(), "validation_indices": self.validation.tolist()}


def make_inner_splits(X_train: np.ndarray, Y_train: np.ndarray, rule: TuningSpec) -> list[InnerSplit]:
    """The inner splits of one outer training part, each rescaled on its inner training part."""
    splits = stratified_splits(Y_train, mode=rule.mode, n_folds=rule.count, seed=rule.seed,
                               test_size=rule.test_size if rule.mode == "holdout" else None)
    inner = []
    for index, split in enumerate(splits):
        X_in, X_val = scale_fold(X_train[split.train], X_train[split.test], rule.scaler, clip_test=rule.clip_test)
        inner.append(InnerSplit(index, split.seed, split.train, split.test, np.ascontiguousarray(X_in),
                                np.ascontiguousarray(Y_train[split.train]), np.ascontiguousarray(X_val),
                                np.ascontiguousarray(Y_train[split.test])))
    return inner


def training_sha256(X_train: np.ndarray, Y_train: np.ndarray) -> str:
    """SHA-256 of an outer training part (shapes and values): what tuning depends on, and nothing else."""
    digest = hashlib.sha256()
    for array in (np.ascontiguousarray(X_train, dtype="<f8"), np.ascontiguousarray(Y_train, dtype="u1")):
        digest.update(repr(array.shape).encode("ascii"))
        digest.update(array.tobytes())
    return digest.hexdigest()


def fold_training_sha256(path: str | Path) -> str:
    """:func:`training_sha256` of a fold file, computed once while the file stays the same."""
    stat = Path(path).stat()
    return _training_sha256_of(Path(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _training_sha256_of(path: Path, _mtime_ns: int, _size: int) -> str:
    fold = load_fold(path)
    return training_sha256(fold.X_train, fold.Y_train)


def criterion_scores(curves: dict, rule: TuningSpec, d: int) -> dict:
    """The criterion grid's entries of an evaluator result, every metric along them, and the criterion.

    A NaN criterion (a metric undefined on that validation part) is kept as NaN: such a candidate
    loses to every candidate with a number (:func:`best_candidate`).
    """
    k_per_entry, p_values = grid_points(rule.grid, d)
    index = {int(k): i for i, k in enumerate(curves["k_values"])}
    rows = [index[int(k)] for k in k_per_entry]
    scores = {"k_values": [int(k) for k in k_per_entry]}
    if p_values is not None:
        scores["p_values"] = p_values
    for name in METRICS:
        scores[name] = [float(curves[name][r]) for r in rows]
    values = scores[rule.metric]
    if rule.statistic == "p_target":
        scores["criterion"] = values[p_target_index(p_values, rule.grid.p_target)]
    else:
        scores["criterion"] = float(np.mean(values))
    return scores


def best_candidate(criteria: list[float], higher_is_better: bool) -> int:
    """Index of the best criterion (NaN counts as worst; ties go to the first in declared order)."""
    best = None
    for i, value in enumerate(criteria):
        if value != value:  # NaN
            continue
        if best is None or (value > criteria[best] if higher_is_better else value < criteria[best]):
            best = i
    return 0 if best is None else best
