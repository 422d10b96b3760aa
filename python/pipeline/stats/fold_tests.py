"""Per-block tests over repeated measurements: is a method significantly better or worse than a
reference on one block (data set), judged on its paired values (folds)?

The paired t-test is used because it can reach the usual levels with few pairs: the exact
two-sided Wilcoxon signed-rank test over n pairs never gives p below 2 / 2**n (0.0625 with 5 folds).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special


def min_signed_rank_p(n_pairs: int) -> float:
    """Smallest two-sided p value the exact signed-rank test can give with ``n_pairs`` nonzero pairs."""
    return min(1.0, 2.0 / 2.0 ** n_pairs)


def paired_t_p(x, y) -> float:
    """Two-sided p of the paired t-test of ``x`` against ``y``; NaN with fewer than 2 pairs, a NaN
    value, or differences without spread (the test is undefined there)."""
    diffs = np.asarray(x, float) - np.asarray(y, float)
    if diffs.size < 2 or not np.all(np.isfinite(diffs)) or diffs.max() == diffs.min():
        return math.nan
    # scipy.stats.ttest_rel's statistic and two-sided p (tested against it), without its per-call overhead
    t = diffs.mean() / (diffs.std(ddof=1) / math.sqrt(diffs.size))
    return float(2.0 * special.stdtr(diffs.size - 1, -abs(t)))


def significance_mark(reference, other, *, alpha: float, lower_is_better: bool) -> str:
    """``"better"`` / ``"worse"`` when ``other`` differs significantly from ``reference`` (paired
    t-test, two-sided, level ``alpha``), in the direction of its mean; ``""`` otherwise."""
    p = paired_t_p(other, reference)
    if not p <= alpha:
        return ""
    advantage = float(np.mean(np.asarray(other, float) - np.asarray(reference, float)))
    if lower_is_better:
        advantage = -advantage
    return "better" if advantage > 0 else "worse" if advantage < 0 else ""
