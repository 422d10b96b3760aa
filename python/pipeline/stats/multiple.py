"""Corrections for multiple comparisons (statsmodels)."""

from __future__ import annotations

import numpy as np
from statsmodels.stats.multitest import multipletests


def holm_adjust(p_values) -> np.ndarray:
    """Holm's step-down adjusted p values, same order as the input.

    NaN entries (tests that could not be run) are left out of the family and stay NaN, so they
    neither weaken nor strengthen the correction of the others.
    """
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    finite = np.isfinite(p)
    if finite.any():
        adjusted[finite] = multipletests(p[finite], method="holm")[1]
    return adjusted
