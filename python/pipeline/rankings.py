"""Feature rankings: 1-based permutations of 1..d, most important feature first."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import RankingError


def validate_ranking(ranking, d: int, *, source: str | Path | None = None) -> np.ndarray:
    """Return ``ranking`` as an int64 array of shape (d,) if it is a permutation of 1..d.

    Parameters
    ----------
    ranking : array-like of shape (d,)
        1-based feature indices, most important first.
    d : int
        Number of features of the fold the ranking belongs to.
    source : str or Path, optional
        Where the ranking came from, named in the error message.

    Raises
    ------
    RankingError
        If the values are not integers, not 1-based, out of range, repeated, or not d of them.
    """
    arr = np.asarray(ranking)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not np.all(np.isfinite(arr))):
        raise RankingError("ranking holds non-numeric or non-finite values", file=source,
                           expected="integers 1..d")
    if arr.dtype.kind == "f" and np.any(arr != np.round(arr)):
        raise RankingError("ranking holds non-integer values", file=source, expected="integers 1..d")
    arr = arr.astype(np.int64)
    if arr.size != d:
        raise RankingError("ranking has the wrong length", file=source,
                           expected=f"{d} entries (one per feature)", found=f"{arr.size}")
    if arr.size and arr.min() == 0:
        raise RankingError("ranking looks 0-based", file=source, expected="1-based indices 1..d",
                           found="a 0")
    if arr.size and (arr.min() < 1 or arr.max() > d):
        raise RankingError("ranking index out of range", file=source, expected=f"values in 1..{d}",
                           found=f"values in {arr.min()}..{arr.max()}")
    counts = np.bincount(arr, minlength=d + 1)
    if np.any(counts[1:] != 1):
        dup = int(np.flatnonzero(counts > 1)[0])
        raise RankingError("ranking repeats a feature", file=source,
                           expected="each of 1..d exactly once", found=f"feature {dup} {counts[dup]} times")
    return arr


def stable_descending_order(scores) -> np.ndarray:
    """Return the 1-based ranking of ``scores``: decreasing value, ties to the lower index.

    NaN scores are placed last (in index order), so a method that produces NaN for a feature
    never ranks it first by accident.
    """
    s = np.asarray(scores, dtype=np.float64)
    key = np.where(np.isnan(s), np.inf, -s)
    return np.argsort(key, kind="stable").astype(np.int64) + 1
