"""Generic paired statistics: Hedges' g, effect categories, bootstrap CIs, sign-flip test."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.stats.paired import (cohens_dz, effect_category, hedges_correction,
                                   paired_effect_size, sign_flip_test)


def test_hedges_correction_matches_reference_values():
    assert hedges_correction(5 - 1) == pytest.approx(0.8, abs=1e-12)
    assert hedges_correction(500 - 1) == pytest.approx(0.998496, abs=5e-7)
    assert math.isnan(hedges_correction(0))


@pytest.mark.parametrize("value,label", [(0.0, "negligible"), (0.199, "negligible"), (0.2, "small"),
                                         (-0.49, "small"), (0.5, "medium"), (0.8, "large"),
                                         (-3.0, "large"), (math.nan, "undefined")])
def test_effect_category_boundaries_belong_to_upper_class(value, label):
    assert effect_category(value) == label


def test_cohens_dz_edge_cases():
    assert math.isnan(cohens_dz(np.array([1.0]))[0])
    assert cohens_dz(np.zeros(5)) == (0.0, True)
    d, degenerate = cohens_dz(np.full(5, 2.0))
    assert math.isnan(d) and degenerate
    d, degenerate = cohens_dz(np.array([1.0, 2.0, 3.0]))
    assert d == pytest.approx(2.0) and not degenerate


def test_effect_size_ci_approaches_normal_theory_for_large_n():
    rng = np.random.default_rng(3)
    diffs = rng.normal(0.5, 1.0, 2000)
    result = paired_effect_size(diffs, n_bootstrap=2000, seed=1)
    half_width = 1.96 * math.sqrt(1 / diffs.size + result.d ** 2 / (2 * diffs.size))
    assert result.ci_method == "BCa"
    for low, high in (result.d_ci, result.d_percentile_ci):
        assert low == pytest.approx(result.d - half_width, abs=0.015)
        assert high == pytest.approx(result.d + half_width, abs=0.015)
    assert result.g == pytest.approx(hedges_correction(1999) * result.d)
    assert result.g_ci[0] == pytest.approx(result.hedges_j * result.d_ci[0])
    assert result.category == "medium"


def test_effect_size_is_reproducible_and_degenerate_input_has_no_ci():
    diffs = np.random.default_rng(0).normal(0.1, 1, 30)
    assert paired_effect_size(diffs, n_bootstrap=500) == paired_effect_size(diffs, n_bootstrap=500)
    flat = paired_effect_size(np.full(10, 0.3), n_bootstrap=200)
    assert flat.degenerate and math.isnan(flat.d) and flat.ci_method == "none"


def test_bca_falls_back_to_percentile_when_undefined():
    # leaving the single 1 out gives all zeros, so the jackknife acceleration of BCa is undefined
    diffs = np.array([0.0] * 6 + [1.0])
    result = paired_effect_size(diffs, n_bootstrap=300, seed=0)
    assert result.ci_method == "percentile"
    assert result.d_ci == result.d_percentile_ci
    assert all(math.isfinite(v) for v in result.d_percentile_ci)


def test_exact_sign_flip_matches_brute_force_enumeration():
    diffs = np.array([0.3, -0.1, 0.7, 0.2, 0.05, 0.4, -0.2])
    observed = abs(diffs.mean())
    tol = 1e-12 * max(1, observed)
    hits = sum(abs(np.mean(np.array(s) * diffs)) >= observed - tol
               for s in itertools.product([-1, 1], repeat=diffs.size))
    result = sign_flip_test(diffs, n_permutations=10000)[0]
    assert result.exact and result.n_permutations == 2 ** 7
    assert result.p_value == pytest.approx(hits / 2 ** 7, abs=1e-15)


def test_monte_carlo_p_value_is_plus_one_corrected_and_never_zero():
    diffs = np.random.default_rng(1).normal(2.0, 0.1, 40)
    result = sign_flip_test(diffs, n_permutations=999, seed=5)[0]
    assert not result.exact
    assert result.p_value == pytest.approx(1 / 1000)
    assert result.significant and result.n_sequences == 40


def test_columns_are_tested_like_separate_calls():
    rng = np.random.default_rng(2)
    matrix = rng.normal(0.05, 1, (60, 4))
    together = sign_flip_test(matrix, n_permutations=3000, seed=9)
    alone = [sign_flip_test(matrix[:, k], n_permutations=3000, seed=9)[0] for k in range(4)]
    assert [r.p_value for r in together] == [r.p_value for r in alone]
    assert [r.observed_diff for r in together] == pytest.approx([r.observed_diff for r in alone])


def test_sign_flip_under_null_is_roughly_uniform():
    rng = np.random.default_rng(4)
    p = np.array([r.p_value for r in sign_flip_test(rng.normal(0, 1, (25, 400)),
                                                    n_permutations=499, seed=3)])
    assert 0.02 <= np.mean(p <= 0.05) <= 0.09
    assert abs(np.mean(p) - 0.5) < 0.05


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=40))
def test_p_value_is_valid_and_invariant_to_global_sign(values):
    diffs = np.array(values)
    forward = sign_flip_test(diffs, n_permutations=200, seed=1)[0]
    backward = sign_flip_test(-diffs, n_permutations=200, seed=1)[0]
    assert 0 < forward.p_value <= 1
    assert forward.p_value == pytest.approx(backward.p_value)
