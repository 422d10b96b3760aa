"""Friedman's test and the Iman–Davenport F correction.

Blocks are the rows of the score matrix, treatments its columns. The Friedman statistic comes from
``scipy.stats.friedmanchisquare`` and therefore includes the correction for ties within blocks
(the uncorrected textbook value is reported alongside);
the direction of the score does not matter for it. Iman and Davenport's statistic rescales it,

    F = (N - 1) chi2 / (N (k - 1) - chi2),

which follows an F distribution with (k - 1, (k - 1)(N - 1)) degrees of freedom and is less
conservative than the chi-square approximation.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats
from scipy.stats import rankdata

from .ranks import check_score_matrix


@dataclass(frozen=True)
class FriedmanResult:
    """Omnibus test over k methods and N blocks.

    ``iman_davenport_f`` is ``inf`` (and its p value 0) when every block ranks the methods in the
    same order, because the denominator N(k-1) - chi2 is then 0.
    """

    n_blocks: int
    n_methods: int
    chi2: float
    chi2_p: float
    chi2_no_tie_correction: float
    iman_davenport_f: float
    iman_davenport_p: float
    df_chi2: int
    df_f: tuple[int, int]

    def to_dict(self) -> dict:
        return asdict(self)


def iman_davenport(chi2: float, n_blocks: int, n_methods: int) -> tuple[float, float]:
    """Return (F, p) of the Iman–Davenport statistic for a Friedman chi2 from N blocks, k methods."""
    df1, df2 = n_methods - 1, (n_methods - 1) * (n_blocks - 1)
    denominator = n_blocks * (n_methods - 1) - chi2
    if denominator <= 0:
        return float("inf"), 0.0
    f_value = (n_blocks - 1) * chi2 / denominator
    return float(f_value), float(stats.f.sf(f_value, df1, df2))


def friedman_chi2_from_ranks(avg_ranks, n_blocks: int) -> float:
    """Textbook Friedman statistic from average ranks, *without* the tie correction:

    chi2 = 12 N / (k (k + 1)) * (sum_j R_j^2 - k (k + 1)^2 / 4).

    This is the form used in worked examples (e.g. Demšar, 2006); with tied scores it is smaller
    than SciPy's tie-corrected value.
    """
    ranks = np.asarray(avg_ranks, dtype=float)
    k = ranks.size
    return float(12.0 * n_blocks / (k * (k + 1)) * (np.sum(ranks ** 2) - k * (k + 1) ** 2 / 4.0))


def friedman_test(scores) -> FriedmanResult:
    """Friedman chi-square (tie-corrected, SciPy) and Iman–Davenport F for a score matrix.

    Parameters
    ----------
    scores : array-like, shape (n_blocks, n_methods)
        At least 2 blocks and 3 methods (SciPy's requirement for the Friedman test).
    """
    matrix = check_score_matrix(scores, min_blocks=2, min_methods=3)
    n_blocks, n_methods = matrix.shape
    if np.all(matrix == matrix[:, :1]):
        # Every block is one big tie: no evidence of any difference (SciPy would divide by zero).
        chi2, chi2_p = 0.0, 1.0
    else:
        result = stats.friedmanchisquare(*matrix.T)
        chi2, chi2_p = float(result.statistic), float(result.pvalue)
    f_value, f_p = iman_davenport(chi2, n_blocks, n_methods)
    plain = friedman_chi2_from_ranks(rankdata(matrix, axis=1).mean(axis=0), n_blocks)
    return FriedmanResult(n_blocks=n_blocks, n_methods=n_methods, chi2=chi2, chi2_p=chi2_p,
                          chi2_no_tie_correction=plain,
                          iman_davenport_f=f_value, iman_davenport_p=f_p, df_chi2=n_methods - 1,
                          df_f=(n_methods - 1, (n_methods - 1) * (n_blocks - 1)))
