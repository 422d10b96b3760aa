"""Bonferroni–Dunn test: every method against one control, on average ranks (Demšar 2006).

The control differs from another method when their average ranks differ by at least

    CD = q_alpha * sqrt(k (k + 1) / (6 N)),   q_alpha = z_{1 - alpha / (2 (k - 1))},

the two-sided normal quantile at the level divided among the k - 1 comparisons. Demšar's Table 5(b)
gives q_0.05 = 1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.724, 2.773 for k = 2..10; the
formula reproduces every entry (and the q_0.10 row) to 1e-3 except k = 9, where it gives 2.734: the
printed 2.724 is a misprint (it breaks the table's smooth growth; 2.734 = z at 1 - 0.05/16).
"""

from __future__ import annotations

import math

from scipy.stats import norm


def bonferroni_dunn_q(n_methods: int, alpha: float) -> float:
    """Critical value q_alpha for ``n_methods`` methods compared with one control."""
    if n_methods < 2:
        raise ValueError(f"Bonferroni-Dunn needs at least 2 methods, got {n_methods}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return float(norm.ppf(1.0 - alpha / (2.0 * (n_methods - 1))))


def bonferroni_dunn_cd(n_methods: int, n_blocks: int, alpha: float = 0.05) -> float:
    """Critical difference of average ranks between the control and any other of k methods over N blocks."""
    if n_blocks < 1:
        raise ValueError(f"Bonferroni-Dunn needs at least 1 block, got {n_blocks}")
    return bonferroni_dunn_q(n_methods, alpha) * math.sqrt(n_methods * (n_methods + 1) / (6.0 * n_blocks))
