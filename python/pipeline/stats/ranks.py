"""Score matrices and average ranks.

A *score matrix* has one row per block (a data set, a subject, a sequence) and one column per
method. Every function here takes it as a float array of shape ``(n_blocks, n_methods)`` with no
missing entries: the tests below assume a complete block design, so a caller that has gaps must
decide which blocks to drop (and say so) before calling.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError


def check_score_matrix(scores, *, min_blocks: int = 1, min_methods: int = 2,
                       source: str | None = None) -> np.ndarray:
    """Return ``scores`` as a finite float64 array of shape (n_blocks, n_methods) or raise DataError.

    Parameters
    ----------
    scores : array-like, shape (n_blocks, n_methods)
    min_blocks, min_methods : int
        Smallest acceptable shape.
    source : str, optional
        File or table name used in the error message.
    """
    matrix = np.asarray(scores, dtype=float)
    if matrix.ndim != 2:
        raise DataError("score matrix must be 2-D (blocks x methods)", file=source,
                        found=f"{matrix.ndim}-D array")
    n_blocks, n_methods = matrix.shape
    if n_blocks < min_blocks or n_methods < min_methods:
        raise DataError("score matrix too small", file=source,
                        expected=f">= {min_blocks} blocks and >= {min_methods} methods",
                        found=f"{n_blocks} blocks x {n_methods} methods")
    bad = ~np.isfinite(matrix)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise DataError("score matrix has missing or non-finite entries; drop incomplete blocks first",
                        file=source, found=f"{int(bad.sum())} such entries, first at row {row}, column {col}")
    return matrix


def rank_matrix(scores, *, lower_is_better: bool = False) -> np.ndarray:
    """Rank methods within each block: 1 = best, ties get the average of the ranks they span.

    Equality is exact float equality (no tolerance), as in ``scipy.stats.rankdata``.

    Parameters
    ----------
    scores : array-like, shape (n_blocks, n_methods)
    lower_is_better : bool
        Direction of the score (True for losses and errors).

    Returns
    -------
    ranks : ndarray, shape (n_blocks, n_methods)
    """
    matrix = check_score_matrix(scores)
    oriented = matrix if lower_is_better else -matrix
    from scipy.stats import rankdata  # SciPy's statistics take about 0.7 s to import: not to check a table

    return rankdata(oriented, method="average", axis=1)


def average_ranks(scores, *, lower_is_better: bool = False) -> np.ndarray:
    """Mean rank of each method over the blocks, shape (n_methods,); 1 is the best possible."""
    return rank_matrix(scores, lower_is_better=lower_is_better).mean(axis=0)
