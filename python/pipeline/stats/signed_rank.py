"""Wilcoxon signed-rank test over blocks, pinned so the result does not depend on the SciPy version.

Conventions (always the same, whatever SciPy's ``method="auto"`` would choose):

* two-sided alternative, no continuity correction;
* ``zero_method="wilcox"`` by default: blocks with a zero difference are dropped before ranking
  (``"zsplit"`` and ``"pratt"`` are accepted as well);
* exact null distribution when, after that, the absolute differences have no ties and there are no
  zeros left; otherwise the normal approximation with the tie correction;
* if every difference is zero there is no evidence either way: statistic 0, p = 1, method
  ``"all-zero"``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

ZERO_METHODS = ("wilcox", "zsplit", "pratt")


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
    nonzero = diff[diff != 0]
    if nonzero.size == 0:
        return SignedRankResult(0.0, 1.0, "all-zero", zero_method, diff.size, 0)
    if zero_method == "wilcox":
        diff = nonzero
    has_ties = np.unique(np.abs(diff)).size < diff.size
    method = "asymptotic" if has_ties else "exact"
    result = stats.wilcoxon(diff, zero_method=zero_method, correction=False,
                            alternative="two-sided", method=method)
    return SignedRankResult(float(result.statistic), float(result.pvalue), method, zero_method,
                            int(x.size), int(nonzero.size))
