"""Wilcoxon signed-rank test over blocks, pinned so the result does not depend on the SciPy version.

Conventions (always the same, whatever SciPy's ``method="auto"`` would choose):

* two-sided alternative, no continuity correction;
* ``zero_method="wilcox"`` by default: blocks with a zero difference are dropped before ranking;
  ``"pratt"`` ranks them with the others and then leaves them out of R+ and R-; ``"zsplit"`` ranks
  them and adds half of their ranks to each of R+ and R-;
* tied absolute differences get their mid-rank;
* up to :data:`EXACT_TEST_NONZERO_CUTOFF` nonzero differences: the **exact** permutation distribution of R+
  over all 2**n sign flips of the nonzero differences, ties and zeros included (see
  :func:`exact_signed_rank_p`); beyond: the normal approximation with the tie correction;
* if every difference is zero there is no evidence either way: statistic 0, p = 1, method
  ``"all-zero"``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats
from scipy.stats import rankdata

ZERO_METHODS = ("wilcox", "zsplit", "pratt")
#: Largest number of nonzero differences tested exactly. 2**50 sign vectors still count exactly
#: in int64, and the dynamic programme costs about n**3 additions (a millisecond at n = 50).
EXACT_TEST_NONZERO_CUTOFF = 50


@dataclass(frozen=True)
class SignedRankResult:
    """Outcome of one paired comparison.

    ``statistic`` is min(R+, R-); ``method`` is ``"exact"``, ``"asymptotic"`` or ``"all-zero"``;
    ``n_nonzero`` counts the blocks whose difference is not zero.
    """

    statistic: float
    p_value: float
    method: str
    zero_method: str
    n_blocks: int
    n_nonzero: int

    def to_dict(self) -> dict:
        return asdict(self)


def exact_signed_rank_p(ranks, positive) -> float:
    """Exact two-sided p value of R+ given the (mid-)ranks of the nonzero differences.

    Under the null hypothesis each nonzero difference is positive or negative with probability 1/2,
    independently, so R+ = sum_i r_i B_i with B_i ~ Bernoulli(1/2). Mid-ranks are multiples of 1/2,
    hence the doubled ranks are integers and the 2**n equally likely outcomes can be counted by a
    dynamic programme over the doubled sum (one shifted addition per difference) instead of by
    enumeration. Zero differences never change sign, so they only shift R+ by a constant (zsplit)
    or not at all, and do not enter here.

    Parameters
    ----------
    ranks : array-like, shape (n,)
        Ranks of the nonzero |differences| (mid-ranks for ties), n <= ``EXACT_TEST_NONZERO_CUTOFF``.
    positive : array-like of bool, shape (n,)
        Which differences are positive.

    Returns
    -------
    p : float
        ``min(1, 2 * min(P(R+ <= r+), P(R+ >= r+)))``, the same rule as ``scipy.stats.permutation_test``.
    """
    doubled = np.rint(2 * np.asarray(ranks, dtype=float)).astype(np.int64)
    if doubled.size > EXACT_TEST_NONZERO_CUTOFF:
        raise ValueError(f"exact distribution limited to {EXACT_TEST_NONZERO_CUTOFF} differences, got {doubled.size}")
    counts = np.zeros(int(doubled.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for weight in doubled:
        counts[weight:] = counts[weight:] + counts[:-weight]
    observed = int(doubled[np.asarray(positive, dtype=bool)].sum())
    tail = min(int(counts[:observed + 1].sum()), int(counts[observed:].sum()))
    return min(1.0, 2.0 * tail / 2.0 ** doubled.size)


def wilcoxon_signed_rank(x, y, *, zero_method: str = "wilcox") -> SignedRankResult:
    """Two-sided Wilcoxon signed-rank test of the paired samples ``x`` and ``y`` (shape (n,)).

    Differences are taken as ``x - y``; the test is symmetric in its p value.
    """
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"zero_method must be one of {ZERO_METHODS}, got {zero_method!r}")
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-D of equal length, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("x and y must be finite")
    diff = x - y
    nonzero = diff != 0
    n_nonzero = int(nonzero.sum())
    if n_nonzero == 0:
        return SignedRankResult(0.0, 1.0, "all-zero", zero_method, diff.size, 0)
    ranked = diff[nonzero] if zero_method == "wilcox" else diff
    ranks = rankdata(np.abs(ranked))
    r_plus, r_minus = float(ranks[ranked > 0].sum()), float(ranks[ranked < 0].sum())
    if zero_method == "zsplit":
        half_zero = float(ranks[ranked == 0].sum()) / 2
        r_plus, r_minus = r_plus + half_zero, r_minus + half_zero
    if n_nonzero <= EXACT_TEST_NONZERO_CUTOFF:
        moving = ranked != 0
        p_value, method = exact_signed_rank_p(ranks[moving], ranked[moving] > 0), "exact"
    else:
        p_value, method = _normal_approximation_p(ranked, zero_method), "asymptotic"
    return SignedRankResult(min(r_plus, r_minus), p_value, method, zero_method, diff.size, n_nonzero)


def _normal_approximation_p(ranked, zero_method: str) -> float:
    """SciPy's normal approximation with the tie correction (and Cureton's for pratt zeros)."""
    result = stats.wilcoxon(ranked, zero_method=zero_method, correction=False, alternative="two-sided",
                            method="asymptotic")
    return float(result.pvalue)
