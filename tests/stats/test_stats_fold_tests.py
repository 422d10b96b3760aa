"""The per-dataset test of the tables: the corrected resampled t-test (Nadeau and Bengio 2003;
Bouckaert and Frank 2004 for cross-validation) against a worked example computed here from the
formula, and its properties against the plain paired t-test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pipeline.stats.fold_tests import corrected_t_p, paired_t_p, significance_marks

#: Five hold-out splits of 80 training and 20 test rows: n_test/n_train = 0.25.
REFERENCE = np.array([0.50, 0.52, 0.51, 0.49, 0.50])
OTHER = np.array([0.55, 0.58, 0.56, 0.55, 0.57])


def test_corrected_t_test_equals_the_worked_example():
    # By hand: differences 0.05, 0.06, 0.05, 0.06, 0.07; mean 0.058; squared deviations from it sum
    # to 0.00028, so s^2 = 0.00028 / 4 = 7e-5. Corrected variance (1/5 + 20/80) s^2 = 0.45 * 7e-5
    # = 3.15e-5; t = 0.058 / sqrt(3.15e-5) = 10.3341...; df = 4.
    t = 0.058 / math.sqrt(0.45 * 7e-5)
    assert t == pytest.approx(10.33410, abs=1e-4)
    expected_p = 2 * stats.t.sf(t, 4)  # about 4.96e-4
    assert corrected_t_p(OTHER, REFERENCE, 20 / 80) == pytest.approx(expected_p, rel=1e-12)
    assert expected_p == pytest.approx(4.96e-4, rel=1e-2)
    # The plain test on the same numbers: variance s^2 / 5 = 1.4e-5, t = 15.501..., p much smaller
    plain_t = 0.058 / math.sqrt(7e-5 / 5)
    assert paired_t_p(OTHER, REFERENCE) == pytest.approx(2 * stats.t.sf(plain_t, 4), rel=1e-12)
    assert paired_t_p(OTHER, REFERENCE) == pytest.approx(stats.ttest_rel(OTHER, REFERENCE).pvalue, rel=1e-12)


def test_the_correction_removes_a_mark_the_plain_test_gives():
    # 5-fold cross-validation (n_test/n_train = 1/4): differences of mean 0.017 are significant for
    # the plain test (t = 3.16, p = 0.034) only; corrected, t shrinks by sqrt(1 + 5/4) = 1.5 (p = 0.10).
    reference = np.zeros(5)
    other = np.array([0.02, 0.0, 0.03, 0.01, 0.025])
    plain, corrected = paired_t_p(other, reference), corrected_t_p(other, reference, 1 / 4)
    assert plain < 0.05 < corrected
    pairs = [(reference, other), (other, reference)]
    assert significance_marks(pairs, alpha=0.05, lower_is_better=False, test_train_ratio=0.0) == ["better", "worse"]
    assert significance_marks(pairs, alpha=0.05, lower_is_better=True, test_train_ratio=0.0) == ["worse", "better"]
    assert significance_marks(pairs, alpha=0.05, lower_is_better=False, test_train_ratio=1 / 4) == ["", ""]


def test_undefined_cases_give_no_mark():
    assert math.isnan(corrected_t_p(REFERENCE + 0.01, REFERENCE, 0.25))  # differences without spread
    assert math.isnan(corrected_t_p([0.5], [0.4], 0.25))  # a single pair
    assert math.isnan(corrected_t_p([0.5, np.nan], [0.4, 0.3], 0.25))
    undefined = [(REFERENCE, REFERENCE + 0.01), (REFERENCE, REFERENCE[::-1]), ([0.5], [0.4])]
    assert significance_marks(undefined, alpha=0.05, lower_is_better=False, test_train_ratio=0.25) == ["", "", ""]
    assert significance_marks([], alpha=0.05, lower_is_better=False, test_train_ratio=0.25) == []
    with pytest.raises(ValueError, match="test_train_ratio"):
        corrected_t_p(OTHER, REFERENCE, -0.1)


differences = st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=30).filter(
    lambda d: max(d) - min(d) > 1e-6)


@settings(max_examples=200, deadline=None)
@given(diffs=differences, ratio=st.floats(0, 10), more=st.floats(0, 10))
def test_corrected_p_is_never_below_the_plain_p_and_grows_with_the_ratio(diffs, ratio, more):
    """Same t numerator and df, a variance larger by the factor 1 + J n_test/n_train: so the corrected
    p is at least the plain one, equal to it at n_test/n_train = 0 (test sets negligible next to the
    training sets), and never smaller for a larger ratio."""
    zeros = np.zeros(len(diffs))
    plain = paired_t_p(diffs, zeros)
    assert corrected_t_p(diffs, zeros, 0.0) == plain
    assert corrected_t_p(diffs, zeros, ratio) >= plain - 1e-15
    assert corrected_t_p(diffs, zeros, ratio + more) >= corrected_t_p(diffs, zeros, ratio) - 1e-15
    # t shrinks by exactly sqrt(1 + J ratio): the p of that t under the same df
    d = np.asarray(diffs)
    t = d.mean() / (d.std(ddof=1) / math.sqrt(d.size)) / math.sqrt(1 + d.size * ratio)
    assert corrected_t_p(diffs, zeros, ratio) == pytest.approx(2 * stats.t.sf(abs(t), d.size - 1), rel=1e-9,
                                                               abs=1e-300)
