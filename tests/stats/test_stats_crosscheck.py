"""Cross-checks against scipy, statsmodels, autorank and scikit-posthocs on random tables."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scikit_posthocs as sp
from autorank import autorank
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pipeline.stats.compare import compare_methods, win_tie_loss
from pipeline.stats.friedman import friedman_test
from pipeline.stats.multiple import holm_adjust
from pipeline.stats.nemenyi import cd_cliques, nemenyi_cd
from pipeline.stats.ranks import average_ranks, rank_matrix
from pipeline.stats.signed_rank import wilcoxon_signed_rank


def random_table(seed, n_blocks=15, n_methods=6, ties=False):
    rng = np.random.default_rng(seed)
    table = rng.random((n_blocks, n_methods)) + np.linspace(0.3, 0, n_methods)
    return np.round(table, 1) if ties else table


@pytest.mark.parametrize("seed", range(4))
def test_friedman_matches_scipy_and_autorank(seed):
    table = random_table(seed, ties=seed % 2 == 1)
    result = friedman_test(table)
    reference = stats.friedmanchisquare(*table.T)
    assert result.chi2 == pytest.approx(reference.statistic, rel=1e-12)
    assert result.chi2_p == pytest.approx(reference.pvalue, rel=1e-12)
    n, k = table.shape
    f_value = (n - 1) * result.chi2 / (n * (k - 1) - result.chi2)
    assert result.iman_davenport_f == pytest.approx(f_value, rel=1e-12)
    assert result.iman_davenport_p == pytest.approx(stats.f.sf(f_value, k - 1, (k - 1) * (n - 1)), rel=1e-10)

    frame = pd.DataFrame(table, columns=[f"m{i}" for i in range(k)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = autorank(frame, alpha=0.05, order="descending", force_mode="nonparametric")
    assert auto.omnibus == "friedman"
    assert auto.pvalue == pytest.approx(result.chi2_p, rel=1e-9)
    mine = dict(zip(frame.columns, average_ranks(table)))
    for name, row in auto.rankdf.iterrows():
        assert row["meanrank"] == pytest.approx(mine[name], abs=1e-12)
    # autorank evaluates the studentized range at a large finite df instead of infinity.
    assert auto.cd == pytest.approx(nemenyi_cd(k, n, 0.05), rel=1e-4)


@pytest.mark.parametrize("seed", range(3))
def test_nemenyi_agrees_with_scikit_posthocs(seed):
    table = random_table(seed + 10, n_blocks=20, n_methods=5)
    ranks = average_ranks(table, lower_is_better=True)  # scikit-posthocs ranks ascending
    pvals = sp.posthoc_nemenyi_friedman(table).to_numpy()
    for alpha in (0.05, 0.10):
        cd = nemenyi_cd(5, 20, alpha)
        for i in range(5):
            for j in range(i + 1, 5):
                gap = abs(ranks[i] - ranks[j])
                if abs(gap - cd) > 1e-6:
                    assert (pvals[i, j] < alpha) == (gap > cd), (i, j, gap, cd, pvals[i, j])


def test_holm_matches_the_step_down_definition():
    rng = np.random.default_rng(3)
    for _ in range(20):
        p = rng.random(7) ** 3
        order = np.argsort(p, kind="mergesort")
        running, expected = 0.0, np.empty(7)
        for r, idx in enumerate(order):
            running = max(running, min(1.0, (7 - r) * p[idx]))
            expected[idx] = running
        np.testing.assert_allclose(holm_adjust(p), expected, rtol=1e-12)


def test_holm_equals_statsmodels_bit_for_bit():
    # ties (in either input order), products above 1, one test alone: the tables' values must not move
    families = [np.random.default_rng(5).random(9) ** 2, [0.04, 0.01, 0.04, 0.3, 0.01], [0.6, 0.2, 0.9, 0.45], [0.03]]
    for family in families:
        assert holm_adjust(family).tolist() == multipletests(family, method="holm")[1].tolist(), family


def test_holm_leaves_nan_out_of_the_family():
    adjusted = holm_adjust([0.01, np.nan, 0.04])
    np.testing.assert_allclose(adjusted[[0, 2]], [0.02, 0.04])
    assert np.isnan(adjusted[1])


def test_wilcoxon_exact_two_sided_when_the_reference_wins_everywhere():
    ref = np.linspace(0.6, 0.9, 15)
    other = ref - np.arange(1, 16) * 1e-3
    result = wilcoxon_signed_rank(ref, other)
    assert result.method == "exact"
    assert result.p_value == pytest.approx(2 / 2 ** 15, rel=1e-12)  # 6.1035e-05


def test_wilcoxon_eight_blocks_with_ties_is_exact():
    # |d| ties four times at 3 and twice at 4: R+ = 27.5 of 36. 48 of the 256 sign flips are at
    # least as extreme, p = 0.1875; the normal approximation would say 0.1775.
    d = np.array([-4.0, -1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 4.0])
    result = wilcoxon_signed_rank(d, np.zeros(8))
    assert (result.method, result.statistic) == ("exact", 8.5)
    assert result.p_value == 48 / 256
    normal = stats.wilcoxon(d, correction=False, method="asymptotic").pvalue
    assert normal == pytest.approx(0.17748, abs=1e-5)


def scipy_enumerated_p(d, zero_method):
    """SciPy's permutation test over all 2**n sign flips (exact, but exponential in n)."""
    return stats.wilcoxon(d, zero_method=zero_method, method=stats.PermutationMethod(n_resamples=np.inf)).pvalue


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=2, max_size=9), st.sampled_from(["wilcox", "pratt", "zsplit"]))
def test_wilcoxon_exact_p_equals_scipy_enumeration_with_ties_and_zeros(values, zero_method):
    d = np.array(values, dtype=float) / 4  # small integers: many ties and zeros
    result = wilcoxon_signed_rank(d, np.zeros(d.size), zero_method=zero_method)
    if not d.any():
        assert (result.method, result.p_value) == ("all-zero", 1.0)
        return
    assert result.method == "exact"
    assert result.p_value == pytest.approx(scipy_enumerated_p(d, zero_method), rel=1e-12, abs=0)
    reference = stats.wilcoxon(d, zero_method=zero_method, correction=False, method="asymptotic")
    assert result.statistic == reference.statistic


def test_wilcoxon_exact_up_to_fifty_nonzero_differences_then_normal():
    rng = np.random.default_rng(7)
    d = rng.permutation(np.arange(1, 51)) * np.where(rng.random(50) < 0.35, -1.0, 1.0)
    at_limit = wilcoxon_signed_rank(d, np.zeros(50))
    # Without ties SciPy's "exact" distribution is exact: the dynamic programme must agree at 2**50.
    assert at_limit.method == "exact"
    assert at_limit.p_value == pytest.approx(stats.wilcoxon(d, method="exact").pvalue, rel=1e-10)
    tied = np.concatenate([np.sign(d) * np.ceil(np.abs(d) / 4), [-1.0, 0.0, 0.0]])  # 51 nonzero
    beyond = wilcoxon_signed_rank(tied, np.zeros(53), zero_method="pratt")
    expected = stats.wilcoxon(tied, zero_method="pratt", correction=False, method="asymptotic")
    assert (beyond.method, beyond.n_nonzero, beyond.n_blocks) == ("asymptotic", 51, 53)
    assert beyond.p_value == pytest.approx(expected.pvalue, rel=1e-12)


def test_wilcoxon_all_zero_differences_give_p_one():
    result = wilcoxon_signed_rank(np.ones(20), np.ones(20))
    assert (result.p_value, result.statistic, result.method) == (1.0, 0.0, "all-zero")
    single = wilcoxon_signed_rank([2.0, 1.0], [1.0, 1.0])  # one nonzero difference: both signs as extreme
    assert (single.p_value, single.method, single.n_nonzero) == (1.0, "exact", 1)


def test_win_tie_loss_uses_direction_and_tolerance():
    ref = np.array([0.5, 0.5, 0.5, 0.5])
    other = np.array([0.4, 0.5 + 1e-13, 0.6, 0.3])
    assert win_tie_loss(ref, other) == (2, 1, 1)
    assert win_tie_loss(ref, other, lower_is_better=True) == (1, 1, 2)


def test_compare_methods_reference_block():
    table = random_table(5, n_blocks=12, n_methods=4)
    table[:, 0] += 1.0  # the reference wins every block
    result = compare_methods(table, ["R", "a", "b", "c"], reference="R", bayesian_rope=0.01)
    out = result.to_dict()
    assert set(out["wilcoxon_p"]) == {"a", "b", "c"}
    for pair in result.pairwise:
        assert (pair.wins, pair.ties, pair.losses) == (12, 0, 0)
        assert pair.gain > 0.5
        assert pair.wilcoxon.p_value == pytest.approx(2 / 2 ** 12)
        assert pair.holm_p == pytest.approx(min(1, 3 * 2 / 2 ** 12))
        assert pair.bayesian.p_x_better > 0.95
    assert out["avg_ranks"]["R"] == 1.0
    lower = compare_methods(-table, ["R", "a", "b", "c"], reference="R", lower_is_better=True)
    np.testing.assert_allclose(lower.avg_ranks, result.avg_ranks)


def test_cd_cliques_are_maximal_groups():
    assert cd_cliques([1.0, 1.5, 1.9, 2.8, 3.5], 1.0) == [(0, 1, 2), (2, 3), (3, 4)]
    assert cd_cliques([3.5, 1.0, 2.8, 1.5, 1.9], 1.0) == [(1, 3, 4), (4, 2), (2, 0)]
    assert cd_cliques([1.0, 3.0, 5.0], 1.0) == []


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(1, 12), st.integers(0, 10_000), st.booleans())
def test_ranks_are_a_permutation_and_direction_reverses_them(k, n, seed, lower):
    rng = np.random.default_rng(seed)
    table = np.round(rng.random((n, k)), 1)
    ranks = rank_matrix(table, lower_is_better=lower)
    np.testing.assert_allclose(ranks.sum(axis=1), k * (k + 1) / 2)
    np.testing.assert_allclose(rank_matrix(table, lower_is_better=not lower), k + 1 - ranks)


def test_bayesian_signed_rank_is_seeded_and_oriented():
    from pipeline.stats.bayesian import bayesian_signed_rank

    rng = np.random.default_rng(0)
    x = rng.random(12)
    y = x - 0.05 + rng.normal(0, 0.01, 12)
    first = bayesian_signed_rank(x, y, rope=0.01, nsamples=2000, seed=3)
    assert first == bayesian_signed_rank(x, y, rope=0.01, nsamples=2000, seed=3)
    assert first.p_x_better > 0.9 and abs(first.p_x_better + first.p_rope + first.p_y_better - 1) < 1e-12
    flipped = bayesian_signed_rank(x, y, rope=0.01, nsamples=2000, seed=3, lower_is_better=True)
    assert (flipped.p_y_better, flipped.p_x_better) == (first.p_x_better, first.p_y_better)
