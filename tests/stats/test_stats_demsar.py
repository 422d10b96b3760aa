"""The worked example of Demšar (2006, JMLR 7:1-30, "Statistical comparisons of classifiers over
multiple data sets"), typed in as published facts: AUC of four C4.5 variants on 14 data sets."""

import numpy as np
import pytest
from scipy import stats

from pipeline.stats.compare import compare_methods
from pipeline.stats.friedman import friedman_chi2_from_ranks, friedman_test, iman_davenport
from pipeline.stats.nemenyi import nemenyi_cd, nemenyi_q
from pipeline.stats.ranks import average_ranks
from pipeline.stats.signed_rank import wilcoxon_signed_rank

METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
# Published ranks per data set (Table 6). Equal printed AUCs can carry different ranks (voting),
# because the paper ranked unrounded values, so the test uses the published ranks as the scores.
PUBLISHED_RANKS = np.array([
    [4, 3, 2, 1],          # adult (sample)
    [1, 2, 3, 4],          # breast cancer
    [4, 1, 2, 3],          # breast cancer wisconsin
    [4, 1, 3, 2],          # cmc
    [4, 2, 3, 1],          # ionosphere
    [1, 2.5, 4, 2.5],      # iris
    [3, 2, 4, 1],          # liver disorders
    [2.5, 2.5, 4, 1],      # lung cancer
    [4, 3, 2, 1],          # lymphography
    [2.5, 2.5, 2.5, 2.5],  # mushroom
    [4, 2.5, 1, 2.5],      # primary tumor
    [3, 2, 4, 1],          # rheum
    [4, 1, 2, 3],          # voting
    [3, 1, 4, 2],          # wine
])
PUBLISHED_AVG_RANKS = [3.143, 2.000, 2.893, 1.964]
# Table 2: AUC of C4.5 and C4.5+m (used for the Wilcoxon example).
AUC_C45 = [0.763, 0.599, 0.954, 0.628, 0.882, 0.936, 0.661, 0.583, 0.775, 1.000, 0.940, 0.619, 0.972, 0.957]
AUC_C45_M = [0.768, 0.591, 0.971, 0.661, 0.888, 0.931, 0.668, 0.583, 0.838, 1.000, 0.962, 0.666, 0.981, 0.978]


def test_average_ranks_match_the_paper():
    ranks = average_ranks(PUBLISHED_RANKS, lower_is_better=True)
    np.testing.assert_allclose(ranks, PUBLISHED_AVG_RANKS, atol=5e-4)


def test_friedman_and_iman_davenport_match_the_paper():
    # Published: chi2_F = 9.28, F_F = 3.69 with (3, 39) degrees of freedom (no tie correction).
    chi2 = friedman_chi2_from_ranks(average_ranks(PUBLISHED_RANKS, lower_is_better=True), 14)
    assert chi2 == pytest.approx(9.28, abs=5e-3)
    f_value, p = iman_davenport(chi2, 14, 4)
    assert f_value == pytest.approx(3.69, abs=5e-3)
    assert p < 0.05  # the paper rejects the null hypothesis (critical F(3,39) = 2.85 at 0.05)
    result = friedman_test(-PUBLISHED_RANKS)
    assert result.chi2_no_tie_correction == pytest.approx(chi2, rel=1e-12)
    assert result.df_f == (3, 39)
    # The tie-corrected statistic (SciPy) is larger because the blocks contain ties.
    assert result.chi2 > chi2


def test_nemenyi_critical_values_and_cd_match_the_paper():
    # Table 5(a) of the paper, k = 2..10.
    q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]
    for k, a, b in zip(range(2, 11), q05, q10):
        assert nemenyi_q(k, 0.05) == pytest.approx(a, abs=1.5e-3)
        assert nemenyi_q(k, 0.10) == pytest.approx(b, abs=1.5e-3)
    assert nemenyi_cd(4, 14, 0.05) == pytest.approx(1.25, abs=5e-3)   # published CD = 1.25
    assert nemenyi_cd(4, 14, 0.10) == pytest.approx(1.12, abs=5e-3)   # published CD = 1.12


def test_nemenyi_groups_follow_the_paper():
    # The paper: at alpha = 0.05 no pair differs (largest gap 3.143 - 1.964 = 1.179 < 1.25);
    # at alpha = 0.10 C4.5 is worse than C4.5+m and C4.5+m+cf (gaps 1.143 and 1.179 > 1.12).
    result = compare_methods(-PUBLISHED_RANKS, METHODS)
    assert result.cliques[0.05] == [("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")]
    assert result.cliques[0.10] == [("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5")]


def test_wilcoxon_example_matches_the_paper():
    # Zero differences split between the signs as in the paper: R+ = 93, R- = 12, T = 12 < 21.
    diff_rounded = np.round(np.subtract(AUC_C45_M, AUC_C45), 3)
    result = wilcoxon_signed_rank(diff_rounded, np.zeros(14), zero_method="zsplit")
    assert result.statistic == 12.0
    # Ties in |d| (0.005 twice) and two zeros: the exact distribution still applies (N = 14).
    assert result.method == "exact"
    assert result.p_value < 0.05  # the paper: T = 12 is below the critical value 21 at 0.05
    # All 2**12 sign flips of the 12 nonzero differences, counted directly (ranks include the zeros).
    ranks = stats.rankdata(np.abs(diff_rounded))
    moving = diff_rounded != 0
    flips = (np.arange(2 ** 12)[:, None] >> np.arange(12)) & 1
    r_plus = flips @ ranks[moving]
    observed = ranks[diff_rounded > 0].sum()
    tail = min((r_plus <= observed).sum(), (r_plus >= observed).sum())
    assert result.p_value == min(1.0, 2 * tail / 2 ** 12)
