"""Nemenyi's post-hoc test: critical difference of average ranks and groups of tied methods.

Two methods differ significantly when their average ranks differ by at least

    CD = q_alpha * sqrt(k (k + 1) / (6 N)),

where q_alpha is the upper-alpha quantile of the studentized range of k means with infinite degrees
of freedom, divided by sqrt(2) (``scipy.stats.studentized_range``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.stats import studentized_range


@functools.cache  # the quantile's numerical inversion takes 6 ms; a report asks for it once per table and figure
def nemenyi_q(n_methods: int, alpha: float) -> float:
    """Critical value q_alpha for ``n_methods`` methods (e.g. 2.569 for k=4, alpha=0.05)."""
    if n_methods < 2:
        raise ValueError(f"Nemenyi needs at least 2 methods, got {n_methods}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return float(studentized_range.ppf(1.0 - alpha, n_methods, np.inf) / math.sqrt(2.0))


def nemenyi_cd(n_methods: int, n_blocks: int, alpha: float = 0.05) -> float:
    """Critical difference of average ranks for k methods compared over N blocks."""
    if n_blocks < 1:
        raise ValueError(f"Nemenyi needs at least 1 block, got {n_blocks}")
    return nemenyi_q(n_methods, alpha) * math.sqrt(n_methods * (n_methods + 1) / (6.0 * n_blocks))


def cd_cliques(avg_ranks, cd: float) -> list[tuple[int, ...]]:
    """Maximal groups of methods whose average ranks all lie within ``cd`` of each other.

    Parameters
    ----------
    avg_ranks : array-like, shape (n_methods,)
    cd : float
        Critical difference.

    Returns
    -------
    list of tuples of column indices, each sorted by average rank; groups of one are left out.
    The groups are the bars drawn in a critical-difference diagram.
    """
    ranks = np.asarray(avg_ranks, dtype=float)
    order = np.argsort(ranks, kind="mergesort")
    cliques: list[tuple[int, ...]] = []
    last_end = -1
    for start in range(len(order)):
        end = start
        while end + 1 < len(order) and ranks[order[end + 1]] - ranks[order[start]] < cd:
            end += 1
        if end > start and end > last_end:
            cliques.append(tuple(int(i) for i in order[start:end + 1]))
            last_end = end
    return cliques
