"""Multi-label metrics with the reference evaluator's exact conventions (docs/evaluation.md, "Metrics").

Every function takes ``Y_true`` of shape (n, L) with values in {0, 1} (bool and {-1, +1} are
accepted too; +1 / 1 / True mean relevant) and either hard predictions of the same shape and
encoding or real-valued scores (n, L). Instances are rows, labels are columns.

Tie handling is part of the definition: ML-kNN outputs take only Num + 1 distinct values per label,
so ties are everywhere. The average-precision variants are **order based**: scores are sorted with
a stable descending sort, tied scores keep their original order, and ``AP = (1/P) Σ_k k / r_k``
over the 1-based positions ``r_1 < ... < r_P`` of the P positives. This is not scikit-learn's
``average_precision_score`` (which groups ties). Ranking loss counts tied (relevant, irrelevant)
pairs as misordered; coverage breaks ties as Zhang & Zhou's ``coverage.m`` does (docs/evaluation.md
gives both's relation to scikit-learn's ``label_ranking_loss`` and ``coverage_error``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ConfigError, DataError
from ..validation import Interval

@dataclass(frozen=True)
class MetricSpec:
    """What the project knows about one metric: its key, direction, name in tables, and convention.

    ``added_later``: the evaluator computed it only from a later version on, so metrics files written
    before lack it (readers treat it as missing there, not as a damaged file).
    """

    key: str
    higher_is_better: bool
    display: str
    convention: str
    #: the values the metric can take (a value outside it in a results file is damage, not a result)
    range: Interval
    added_later: bool = False


#: The one definition of the metrics, in the order used everywhere (files, tables, figures):
#: ``metrics.json`` beside this module, which MATLAB/Octave reads too (``mlknn_metric_names.m``).
METRICS_FILE = Path(__file__).resolve().with_name("metrics.json")


def _declared_metrics() -> tuple[MetricSpec, ...]:
    """The metrics ``metrics.json`` declares; ConfigError naming the file if it cannot be read."""
    try:
        entries = json.loads(METRICS_FILE.read_text(encoding="utf-8"))["metrics"]
        return tuple(MetricSpec(**{**entry, "range": Interval.from_declaration(entry["range"], f"{entry['key']}.range")})
                     for entry in entries)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"cannot read the metric definitions: {exc}", file=METRICS_FILE,
                          expected='{"metrics": [{"key", "higher_is_better", "display", "convention", '
                                   '"added_later", "range"}, ...]}') from None


METRIC_SPECS = _declared_metrics()

METRICS = tuple(metric.key for metric in METRIC_SPECS)
HIGHER_IS_BETTER = {metric.key: metric.higher_is_better for metric in METRIC_SPECS}
METRIC_CONVENTIONS = {metric.key: metric.convention for metric in METRIC_SPECS}
LATER_METRICS = frozenset(metric.key for metric in METRIC_SPECS if metric.added_later)
METRIC_RANGES = {metric.key: metric.range for metric in METRIC_SPECS}


def as_binary_labels(Y, name: str = "Y") -> np.ndarray:
    """Return a boolean (n, L) array from {0, 1}, {-1, +1} or bool labels.

    Raises
    ------
    DataError
        If Y is not 2-D, is empty, or holds other values (or mixes -1 with 0).
    """
    arr = np.asarray(Y)
    if arr.ndim != 2 or arr.size == 0:
        raise DataError("labels must be a non-empty 2-D array", field=name,
                        expected="shape (n, L)", found=f"shape {arr.shape}")
    if arr.dtype == bool:
        return arr.copy()
    if arr.dtype.kind not in "iuf":
        raise DataError("labels must be numeric", field=name, found=f"dtype {arr.dtype}")
    values = np.unique(arr)
    if not (np.isin(values, (0, 1)).all() or np.isin(values, (-1, 1)).all()):
        raise DataError("labels must be {0,1} or {-1,+1}", field=name,
                        expected="values in {0,1} or {-1,+1}",
                        found=f"values {np.array2string(values[:6])}")
    return arr > 0


def _scores(S, shape, name: str = "scores") -> np.ndarray:
    arr = np.asarray(S, dtype=np.float64)
    if arr.shape != shape:
        raise DataError("scores do not match the labels", field=name, expected=f"shape {shape}",
                        found=f"shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise DataError("scores must be finite", field=name)
    return arr


def _pair(Y_true, Y_pred) -> tuple[np.ndarray, np.ndarray]:
    y = as_binary_labels(Y_true, "Y_true")
    p = as_binary_labels(Y_pred, "Y_pred")
    if p.shape != y.shape:
        raise DataError("predictions do not match the labels", field="Y_pred",
                        expected=f"shape {y.shape}", found=f"shape {p.shape}")
    return y, p


def _f1(tp, fp, fn) -> np.ndarray:
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)


def micro_f1(Y_true, Y_pred) -> float:
    """Micro-F1 ``2TP/(2TP+FP+FN)`` over all cells; 0 when there is no positive anywhere."""
    y, p = _pair(Y_true, Y_pred)
    tp, fp, fn = np.sum(y & p), np.sum(~y & p), np.sum(y & ~p)
    return float(_f1(tp, fp, fn))


def macro_f1(Y_true, Y_pred) -> float:
    """Macro-F1: per-label F1 averaged over **all** L labels; 0/0 labels contribute 0."""
    y, p = _pair(Y_true, Y_pred)
    tp, fp, fn = np.sum(y & p, axis=0), np.sum(~y & p, axis=0), np.sum(y & ~p, axis=0)
    return float(np.mean(_f1(tp, fp, fn)))


def hamming_loss(Y_true, Y_pred) -> float:
    """Share of the n·L cells where the prediction differs from the truth."""
    y, p = _pair(Y_true, Y_pred)
    return float(np.mean(y != p))


def _order_ap(sorted_truth: np.ndarray) -> np.ndarray:
    """Order-based AP of each row of an already ordered boolean array (NaN for rows without positives).

    ``AP = (1/P) Σ_k k / r_k``, the sum taken over the P positives only, in NumPy's pairwise order
    (what ``np.sum`` does to that vector and what ``mlfs_np_sum.m`` does in Octave), so the native
    and the Octave evaluators agree to the last bit.
    """
    from .ordered_sums import order_ap_rows  # compiled with Numba: see that module

    rows = np.ascontiguousarray(sorted_truth, dtype=np.bool_).reshape(-1, sorted_truth.shape[-1])
    return order_ap_rows(rows).reshape(sorted_truth.shape[:-1])


def _descending(scores: np.ndarray) -> np.ndarray:
    """Stable descending order along the last axis (ties keep their original order)."""
    return np.argsort(-scores, axis=-1, kind="stable")


def micro_pr_auc(Y_true, scores) -> float:
    """Order-based AP of the scores flattened label-major (index ``label·n + instance``).

    NaN when there is no positive cell at all.
    """
    y = as_binary_labels(Y_true, "Y_true")
    s = _scores(scores, y.shape)
    flat_y, flat_s = y.T.reshape(-1), s.T.reshape(-1)
    return float(_order_ap(flat_y[_descending(flat_s)]))


def macro_pr_auc_labels_used(Y_true) -> int:
    """Number of labels with both classes among the instances (those macro PR-AUC averages)."""
    y = as_binary_labels(Y_true, "Y_true")
    positives = y.sum(axis=0)
    return int(np.sum((positives > 0) & (positives < y.shape[0])))


def macro_pr_auc(Y_true, scores) -> float:
    """Mean order-based AP per label, over labels with both classes present; NaN if none."""
    y = as_binary_labels(Y_true, "Y_true")
    s = _scores(scores, y.shape)
    positives = y.sum(axis=0)
    used = (positives > 0) & (positives < y.shape[0])
    if not used.any():
        return float("nan")
    yt, st = y.T[used], s.T[used]
    ap = _order_ap(np.take_along_axis(yt, _descending(st), axis=1))
    return float(np.mean(ap))


def avg_precision(Y_true, scores) -> float:
    """Example-based AP: per instance over its labels (stable descending score), sum / n.

    Instances without a relevant label add 0 but still count in the denominator.
    """
    y = as_binary_labels(Y_true, "Y_true")
    s = _scores(scores, y.shape)
    ap = _order_ap(np.take_along_axis(y, _descending(s), axis=1))
    return float(np.sum(np.nan_to_num(ap, nan=0.0)) / y.shape[0])


def one_error(Y_true, scores) -> float:
    """Share of instances whose top-scored label (first argmax) is not relevant."""
    y = as_binary_labels(Y_true, "Y_true")
    s = _scores(scores, y.shape)
    top = np.argmax(s, axis=1)
    return float(np.mean(~y[np.arange(y.shape[0]), top]))


def ranking_loss(Y_true, scores) -> float:
    """Zhang & Zhou's ranking loss: the share of (relevant, irrelevant) label pairs ordered wrongly.

    A pair is wrong when the relevant label's score is not above the irrelevant one's (ties count as
    wrong). Instances with no relevant or no irrelevant label are left out of the mean; NaN if no
    instance is left. The per-instance shares are summed in NumPy's pairwise order (twin:
    ``metric_ranking_loss.m``).
    """
    y = as_binary_labels(Y_true, "Y_true")
    s = _scores(scores, y.shape)
    n_pos = y.sum(axis=1)
    kept = (n_pos > 0) & (n_pos < y.shape[1])
    if not kept.any():
        return float("nan")
    yk, n_pos = y[kept], n_pos[kept]
    # Descending score; among tied scores the irrelevant labels first, so each relevant label has
    # every irrelevant label scored >= its own before it.
    order = np.lexsort((yk, -s[kept]), axis=-1)
    relevant = np.take_along_axis(yk, order, axis=1)
    misordered = np.sum(np.cumsum(~relevant, axis=1) * relevant, axis=1)
    per_instance = misordered / (n_pos * (y.shape[1] - n_pos))
    return float(np.sum(per_instance) / per_instance.size)


def coverage(Y_true, scores) -> float:
    """Zhang & Zhou's coverage: how far down the label ranking one must go to cover every relevant label.

    An instance's value is the largest rank of a relevant label, ranks taken from a stable ascending
    sort of its scores read from the end (rank = L + 1 - position), so among tied labels the higher
    label index ranks first, as in their ``coverage.m``. The result is ``sum(ranks) / n - 1`` over
    the n instances with a relevant label (the others are left out); NaN if there is none. The ranks
    are integers, so every summation order gives the same bits (twin: ``metric_coverage.m``).
    """
    y = as_binary_labels(Y_true, "Y_true")
    s = _scores(scores, y.shape)
    kept = y.any(axis=1)
    if not kept.any():
        return float("nan")
    yk, sk = y[kept], s[kept]
    # The deepest relevant label is the lowest-scored one, and among those the lowest label index.
    lowest = np.min(np.where(yk, sk, np.inf), axis=1, keepdims=True)
    deepest = np.argmax(yk & (sk == lowest), axis=1)[:, None]
    after = np.arange(y.shape[1])[None, :] > deepest
    ranks = 1 + np.sum(sk > lowest, axis=1) + np.sum((sk == lowest) & after, axis=1)
    return float(np.sum(ranks) / ranks.size - 1)


def compute_all(Y_true, Y_pred, scores) -> dict[str, float]:
    """Every metric (keys of :data:`METRICS`) for one prediction."""
    return {"micro_f1": micro_f1(Y_true, Y_pred), "macro_f1": macro_f1(Y_true, Y_pred),
            "hamming_loss": hamming_loss(Y_true, Y_pred),
            "micro_pr_auc": micro_pr_auc(Y_true, scores),
            "macro_pr_auc": macro_pr_auc(Y_true, scores),
            "avg_precision": avg_precision(Y_true, scores), "one_error": one_error(Y_true, scores),
            "ranking_loss": ranking_loss(Y_true, scores), "coverage": coverage(Y_true, scores)}
