"""Zhang & Zhou's ML-kNN, evaluated over a whole grid of feature counts.

Semantics (docs/evaluation.md, "ML-kNN semantics" and "The neighbour rule"), with s = ``smooth``
and Num = ``num``:

- prior ``P_j = (s + c_j) / (2s + n_train)``, ``PN_j = 1 - P_j`` (c_j = training positives);
- neighbours by the exact (canonical squared distance, training index) rule of
  :mod:`pipeline.evaluation.neighbours`: a training point is never its own neighbour, exact
  duplicates are;
- ``Cond_j[c] = (s + a_j[c]) / (s(Num+1) + Σ a_j + eps)`` over the positive training instances of
  label j whose Num neighbours hold c positives, ``CondN_j`` the same over the negatives
  (eps = 2**-52, kept for parity);
- ``Output = P_j Cond_j[t] / (P_j Cond_j[t] + PN_j CondN_j[t])`` (``P_j`` if the sum is 0) for a test
  point with t positive neighbours; relevant iff ``Output >= 0.5`` (0.5 counts as relevant).

:func:`evaluate_grid` adds the ranked features chunk by chunk along the grid (distances are never
recomputed from scratch) and scores every grid point with :mod:`pipeline.evaluation.metrics`.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numba
import numpy as np

from ..errors import ConfigError, DataError
from ..rankings import validate_ranking
from .metrics import METRICS, as_binary_labels, compute_all, macro_pr_auc_labels_used
from .neighbours import DISTANCE_SCRATCH_BYTES, prefix_neighbours

_EPS = np.finfo(np.float64).eps


def label_priors(Y_train: np.ndarray, smooth: float) -> tuple[np.ndarray, np.ndarray]:
    """Smoothed priors ``(P, PN)``, each of shape (L,), from boolean training labels (n, L)."""
    n = Y_train.shape[0]
    prior = (smooth + Y_train.sum(axis=0)) / (2 * smooth + n)
    return prior, 1.0 - prior


@numba.njit(cache=True, nogil=True)
def _add_neighbour_labels(Y_train, neighbours, counts):
    for i in range(neighbours.shape[0]):
        for p in range(neighbours.shape[1]):
            row = Y_train[neighbours[i, p]]
            for label in range(row.size):
                counts[i, label] += row[label]


def neighbour_label_counts(Y_train: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """Counts (n_query, L): how many of each query's neighbours are positive for each label."""
    counts = np.zeros((neighbours.shape[0], Y_train.shape[1]), dtype=np.int64)
    _add_neighbour_labels(np.ascontiguousarray(Y_train, dtype=np.bool_), np.ascontiguousarray(neighbours),
                          counts)
    return counts


def _checked_counts(counts, num: int) -> np.ndarray:
    """Neighbour counts as a contiguous int64 array, each in 0..num (the compiled loops index by them)."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    if counts.size and not (counts.min() >= 0 and counts.max() <= num):
        raise ValueError(f"neighbour counts must lie in 0..{num}")
    return counts


@numba.njit(cache=True, nogil=True)
def _count_histograms(Y_train, train_counts, num):
    L = Y_train.shape[1]
    pos, neg = np.zeros((L, num + 1), np.int64), np.zeros((L, num + 1), np.int64)
    for i in range(Y_train.shape[0]):
        for label in range(L):
            if Y_train[i, label]:
                pos[label, train_counts[i, label]] += 1
            else:
                neg[label, train_counts[i, label]] += 1
    return pos, neg


def conditionals(Y_train: np.ndarray, train_counts: np.ndarray, num: int,
                 smooth: float) -> tuple[np.ndarray, np.ndarray]:
    """Smoothed conditionals ``(Cond, CondN)``, each (L, num+1): P(count = c | label on/off)."""
    train_counts = _checked_counts(train_counts, num)
    pos, neg = _count_histograms(np.ascontiguousarray(Y_train, dtype=np.bool_), train_counts, num)

    def smoothed(hist):
        return (smooth + hist) / (smooth * (num + 1) + hist.sum(axis=1, keepdims=True) + _EPS)

    return smoothed(pos), smoothed(neg)


@numba.njit(cache=True, nogil=True)
def _look_up(table, query_counts):
    outputs = np.empty(query_counts.shape)
    for i in range(query_counts.shape[0]):
        for label in range(query_counts.shape[1]):
            outputs[i, label] = table[label, query_counts[i, label]]
    return outputs


def posteriors(prior, prior_n, cond, cond_n, query_counts) -> np.ndarray:
    """ML-kNN outputs (n_query, L) from the statistics and the queries' neighbour counts.

    An output depends only on its label and its count, so the (L, num+1) table of every possible
    output is computed once (the same operations on the same operands, hence the same bits as
    element by element) and looked up.
    """
    p1 = prior[:, None] * cond
    p0 = prior_n[:, None] * cond_n
    total = p1 + p0
    with np.errstate(invalid="ignore", divide="ignore"):
        table = np.where(total == 0, prior[:, None], p1 / total)
    return _look_up(table, _checked_counts(query_counts, cond.shape[1] - 1))


def _check_num_smooth(num, smooth, n_train: int) -> tuple[int, float]:
    if isinstance(num, bool) or not isinstance(num, Integral) or num < 1:
        raise ConfigError("the number of ML-kNN neighbours must be a positive integer",
                          field="num", found=repr(num))
    if num >= n_train:
        raise ConfigError("ML-kNN needs more training instances than neighbours", field="num",
                          expected=f"num < n_train = {n_train}", found=str(num))
    if isinstance(smooth, bool) or not isinstance(smooth, Real) or not np.isfinite(smooth) \
            or smooth <= 0:
        raise ConfigError("the ML-kNN smoothing must be a positive finite number",
                          field="smooth", found=repr(smooth))
    return int(num), float(smooth)


def _features(X, name: str) -> np.ndarray:
    arr = np.asarray(X)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise DataError("features must be a non-empty 2-D array", field=name,
                        expected="shape (n, d)", found=f"shape {arr.shape}")
    if arr.dtype.kind not in "iufb":
        raise DataError("features must be numeric", field=name, found=f"dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise DataError("features hold NaN or infinite values", field=name)
    return arr


def _labels_for(X: np.ndarray, Y, name: str, n_labels: int | None = None) -> np.ndarray:
    y = as_binary_labels(Y, name)
    if y.shape[0] != X.shape[0] or (n_labels is not None and y.shape[1] != n_labels):
        expected_l = "L" if n_labels is None else str(n_labels)
        raise DataError("labels do not match the features", field=name,
                        expected=f"shape ({X.shape[0]}, {expected_l})", found=f"shape {y.shape}")
    return y


def clean_k_values(k_values, d: int) -> list[int]:
    """The reference evaluator's k-list cleaning: integers, drop < 1 and > d, unique, ascending.

    Raises
    ------
    ConfigError
        If a value is not an integer or nothing is left.
    """
    arr = np.asarray(k_values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ConfigError("k values must be integers", field="k_values",
                          found=np.array2string(arr[:10]))
    ks = sorted({int(v) for v in arr if 1 <= v <= d})
    if not ks:
        raise ConfigError("the k-grid is empty after cleaning", field="k_values",
                          expected=f"at least one integer in 1..{d}",
                          found=np.array2string(arr[:10]))
    return ks


@dataclass(frozen=True, eq=False)
class PreparedFold:
    """A fold checked and converted once for ML-kNN: what every ranking scored on it shares.

    Made by :func:`prepare_fold`; :func:`evaluate_prepared` scores any number of rankings on it
    (the candidates of one inner split do, see :mod:`pipeline.runner.tuning`).
    """

    X_train: np.ndarray
    Y_train: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray
    num: int
    smooth: float
    prior: np.ndarray
    prior_n: np.ndarray
    labels_used: int

    @property
    def n_features(self) -> int:
        return self.X_train.shape[1]


def prepare_fold(X_train, Y_train, X_test, Y_test, *, num: int = 10, smooth: float = 1.0) -> PreparedFold:
    """Check one fold and the ML-kNN settings, and compute what does not depend on the ranking.

    Raises
    ------
    DataError, ConfigError
        As :func:`evaluate_grid` documents.
    """
    Xtr, Xte = _features(X_train, "X_train"), _features(X_test, "X_test")
    if Xte.shape[1] != Xtr.shape[1]:
        raise DataError("train and test have different feature counts", field="X_test",
                        expected=f"{Xtr.shape[1]} columns", found=f"{Xte.shape[1]}")
    Ytr = _labels_for(Xtr, Y_train, "Y_train")
    Yte = _labels_for(Xte, Y_test, "Y_test", Ytr.shape[1])
    num, smooth = _check_num_smooth(num, smooth, Xtr.shape[0])
    prior, prior_n = label_priors(Ytr, smooth)
    return PreparedFold(Xtr, Ytr, Xte, Yte, num, smooth, prior, prior_n, macro_pr_auc_labels_used(Yte))


def evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, k_values, *, num: int = 10,
                  smooth: float = 1.0, block_rows: int = 256, n_threads: int | None = None,
                  scratch_bytes: int = DISTANCE_SCRATCH_BYTES) -> dict:
    """Evaluate one fold with ML-kNN on the top-k ranked features for every k of a grid.

    Parameters
    ----------
    X_train, X_test : array-like of shape (n_train, d) and (n_test, d)
    Y_train, Y_test : array-like of shape (n_train, L) and (n_test, L), {0,1} or {-1,+1}
    ranking : array-like of shape (d,)
        1-based permutation of 1..d, most important feature first.
    k_values : iterable of int
        Feature counts; cleaned as :func:`clean_k_values` does (integers, 1 <= k <= d, unique, ascending).
    num, smooth : ML-kNN's Num (1 <= num < n_train) and Laplace smoothing s (> 0).
    block_rows, n_threads, scratch_bytes : performance knobs only (query rows per thread task,
        threads, bound on each thread's distance scratch); results do not depend on them.

    Returns
    -------
    dict
        ``k_values`` (cleaned), one list per metric of :data:`~pipeline.evaluation.metrics.METRICS`
        aligned with it (floats, NaN where a metric is undefined), ``macro_pr_auc_labels_used``
        and ``macro_pr_auc_labels_total``.
    """
    fold = prepare_fold(X_train, Y_train, X_test, Y_test, num=num, smooth=smooth)
    return evaluate_prepared(fold, ranking, k_values, block_rows=block_rows, n_threads=n_threads,
                             scratch_bytes=scratch_bytes)


def evaluate_prepared(fold: PreparedFold, ranking, k_values, *, block_rows: int = 256,
                      n_threads: int | None = None, scratch_bytes: int = DISTANCE_SCRATCH_BYTES) -> dict:
    """:func:`evaluate_grid` on a fold made by :func:`prepare_fold` (identical results)."""
    order = validate_ranking(ranking, fold.n_features) - 1
    ks = clean_k_values(k_values, fold.n_features)
    prefix = order[:ks[-1]]
    A, B = fold.X_train[:, prefix], fold.X_test[:, prefix]
    knobs = {"num": fold.num, "block_rows": block_rows, "n_threads": n_threads, "scratch_bytes": scratch_bytes}
    train_sets = prefix_neighbours(A, A, ks, exclude_self=True, **knobs)
    test_sets = prefix_neighbours(A, B, ks, exclude_self=False, **knobs)
    Ytr, Yte = fold.Y_train, fold.Y_test
    curves = {name: [] for name in METRICS}
    for train_nb, test_nb in zip(train_sets, test_sets):
        cond, cond_n = conditionals(Ytr, neighbour_label_counts(Ytr, train_nb), fold.num, fold.smooth)
        outputs = posteriors(fold.prior, fold.prior_n, cond, cond_n, neighbour_label_counts(Ytr, test_nb))
        for name, value in compute_all(Yte, outputs >= 0.5, outputs).items():
            curves[name].append(value)
    return {"k_values": ks, **curves, "macro_pr_auc_labels_used": fold.labels_used,
            "macro_pr_auc_labels_total": int(Yte.shape[1])}


def align_to_grid(result: dict, k_per_entry) -> dict:
    """Repeat :func:`evaluate_grid`'s curves for a grid whose entries map to (possibly repeated) k.

    Used by the p-grid: entry i gets the metrics of ``k_per_entry[i]``.
    """
    position = {k: i for i, k in enumerate(result["k_values"])}
    missing = [k for k in k_per_entry if k not in position]
    if missing:
        raise ConfigError("grid entry has no evaluated k", field="k_values",
                          expected=f"values among {result['k_values']}", found=str(missing[:5]))
    idx = [position[k] for k in k_per_entry]
    aligned = {name: [result[name][i] for i in idx] for name in METRICS}
    return {**result, "k_values": [int(k) for k in k_per_entry], **aligned}


class MLkNN:
    """ML-kNN on one feature set, scikit-learn style (exact neighbour rule, ``fit``/``predict``).

    Parameters
    ----------
    num : int, default 10
        Number of neighbours (must be < n_train).
    smooth : float, default 1.0
        Laplace smoothing s (> 0).

    Attributes (after ``fit``)
    --------------------------
    prior_, prior_n_ : ndarray (L,)
    cond_, cond_n_ : ndarray (L, num + 1)
    train_neighbours_ : ndarray (n_train, num), ascending training indices
    """

    def __init__(self, num: int = 10, smooth: float = 1.0):
        self.num = num
        self.smooth = smooth

    def fit(self, X, Y) -> "MLkNN":
        """Learn priors and conditionals from X (n, d) and Y (n, L) in {0,1} or {-1,+1}."""
        X = _features(X, "X")
        Y = _labels_for(X, Y, "Y")
        num, smooth = _check_num_smooth(self.num, self.smooth, X.shape[0])
        self.train_neighbours_ = prefix_neighbours(X, X, [X.shape[1]], num=num,
                                                   exclude_self=True)[0]
        self.prior_, self.prior_n_ = label_priors(Y, smooth)
        self.cond_, self.cond_n_ = conditionals(
            Y, neighbour_label_counts(Y, self.train_neighbours_), num, smooth)
        self._X, self._Y = X, Y
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "_X"):
            raise ConfigError("MLkNN is not fitted; call fit(X, Y) first")

    def kneighbors(self, X) -> np.ndarray:
        """Neighbour sets (n_query, num) of query points among the training points."""
        self._check_fitted()
        X = _features(X, "X")
        if X.shape[1] != self._X.shape[1]:
            raise DataError("query has a different feature count", field="X",
                            expected=f"{self._X.shape[1]} columns", found=f"{X.shape[1]}")
        return prefix_neighbours(self._X, X, [X.shape[1]], num=self.num, exclude_self=False)[0]

    def predict_proba(self, X) -> np.ndarray:
        """Posterior ``P(label relevant | neighbour count)`` of shape (n_query, L)."""
        self._check_fitted()
        counts = neighbour_label_counts(self._Y, self.kneighbors(X))
        return posteriors(self.prior_, self.prior_n_, self.cond_, self.cond_n_, counts)

    def predict(self, X) -> np.ndarray:
        """Hard predictions (n_query, L) in {0, 1}: relevant iff the posterior is >= 0.5."""
        return (self.predict_proba(X) >= 0.5).astype(np.int8)
