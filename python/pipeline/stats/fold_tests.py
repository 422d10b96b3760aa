"""Per-block tests over repeated measurements: is a method significantly better or worse than a
reference on one block (data set), judged on its paired values (folds)?

The folds of a data set share most of their training rows, so their scores are not independent and
the plain paired t-test (variance ``s^2 / J`` of the mean of J differences) overstates significance.
The default is therefore the corrected resampled t-test of Nadeau and Bengio (2003), which adds the
correlation the overlap causes: variance ``(1/J + n_test/n_train) s^2``, df = J - 1. Bouckaert and
Frank (2004) use the same correction for r times repeated k-fold cross-validation, with J = r k
folds; a single k-fold cross-validation is r = 1. The plain test is the correction with
``n_test/n_train = 0`` (:data:`FOLD_TESTS` names both).

A t-test is used because it can reach the usual levels with few pairs: the exact two-sided
Wilcoxon signed-rank test over n pairs never gives p below 2 / 2**n (0.0625 with 5 folds).
"""

from __future__ import annotations

import math

import numpy as np

#: The per-dataset tests a report offers (``--fold-test``): the corrected resampled t-test, the default,
#: and the plain paired t-test.
CORRECTED_T_TEST, PAIRED_T_TEST = "corrected", "paired"
FOLD_TESTS = (CORRECTED_T_TEST, PAIRED_T_TEST)


def min_signed_rank_p(n_pairs: int) -> float:
    """Smallest two-sided p value the exact signed-rank test can give with ``n_pairs`` nonzero pairs."""
    return min(1.0, 2.0 / 2.0 ** n_pairs)


def corrected_t(x, y, test_train_ratio: float) -> tuple[float, int]:
    """(t, df) of the corrected resampled t-test of ``x`` against ``y`` (paired, shape (J,)):
    ``t = mean(d) / sqrt((1/J + test_train_ratio) s^2)``, df = J - 1, for d = x - y.

    ``test_train_ratio`` is n_test / n_train of the folds (>= 0; 0 gives the plain paired t-test).
    t is NaN with fewer than 2 pairs, a NaN value, or differences without spread (undefined there).
    """
    if not test_train_ratio >= 0:
        raise ValueError(f"test_train_ratio must be >= 0, got {test_train_ratio}")
    diffs = np.asarray(x, float) - np.asarray(y, float)
    if diffs.size < 2 or not np.all(np.isfinite(diffs)) or diffs.max() == diffs.min():
        return math.nan, max(diffs.size - 1, 1)
    variance = (1.0 / diffs.size + test_train_ratio) * diffs.var(ddof=1)
    return float(diffs.mean() / math.sqrt(variance)), diffs.size - 1


def two_sided_p(t, df):
    """Two-sided p of t statistics ``t`` with ``df`` degrees of freedom (arrays or numbers; NaN
    where t is NaN). One call for many: ``scipy.stats.t`` costs about 0.5 ms a call."""
    # scipy.stats takes about 0.3 s to import: the suite schema imports this module for FOLD_TESTS
    from scipy import stats

    return 2.0 * stats.t.sf(np.abs(t), df)


def corrected_t_p(x, y, test_train_ratio: float) -> float:
    """Two-sided p of :func:`corrected_t` (NaN where the test is undefined)."""
    return float(two_sided_p(*corrected_t(x, y, test_train_ratio)))


def paired_t_p(x, y) -> float:
    """Two-sided p of the plain paired t-test (``scipy.stats.ttest_rel``'s): no overlap correction."""
    return corrected_t_p(x, y, 0.0)


def significance_marks(pairs, *, alpha: float, lower_is_better: bool, test_train_ratio: float) -> list[str]:
    """For each ``(reference, other)`` pair of paired values: ``"better"`` / ``"worse"`` when
    ``other`` differs significantly from ``reference`` (corrected resampled t-test with
    ``test_train_ratio``, 0 for the plain paired one; two-sided, level ``alpha``), in the direction
    of its mean; ``""`` otherwise."""
    if not pairs:
        return []
    t, df = map(np.array, zip(*(corrected_t(other, reference, test_train_ratio) for reference, other in pairs)))
    advantage = -t if lower_is_better else t  # t has the sign of mean(other - reference)
    return ["" if not p <= alpha else "better" if a > 0 else "worse" if a < 0 else ""
            for a, p in zip(advantage, two_sided_p(t, df))]
