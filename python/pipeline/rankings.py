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


def validate_scores(scores, d: int, *, source: str | Path | None = None) -> np.ndarray:
    """Return per-feature ``scores`` as a float64 array of shape (d,) if they are d finite numbers.

    Raises
    ------
    RankingError
        If the scores are missing, of the wrong length or not finite.
    """
    if scores is None:
        raise RankingError("the method returned no feature scores", file=source, expected="info['scores'] (d,)")
    arr = np.asarray(scores, dtype=np.float64).reshape(-1)
    if arr.size != d:
        raise RankingError("feature scores have the wrong length", file=source, expected=f"{d}",
                           found=f"{arr.size}")
    if not np.all(np.isfinite(arr)):
        raise RankingError("feature scores are not finite", file=source,
                           found=f"{int(np.sum(~np.isfinite(arr)))} non-finite")
    return arr


#: Two scores are a rounding-level tie when they differ by at most this fraction of their magnitude.
RELATIVE_TIE_TOLERANCE = 1e-10


def rank_scores(scores, method: str) -> np.ndarray:
    """The 1-based ranking of ``scores`` (d,): decreasing score, rounding-level ties to the lower index.

    The rule (docs/methods/README.md; twin: ``matlab/util/mlfs_rank_scores.m``):

    1. sort the features by decreasing score, equal scores by increasing index;
    2. walk that order forming tie groups: a feature joins the current group when its score is
       within ``RELATIVE_TIE_TOLERANCE`` of the group's first (largest) score,
       ``s_first - s <= 1e-10 * max(|s_first|, |s|)``, and starts a new group otherwise;
    3. order each group by increasing feature index.

    So scores that differ only by rounding noise (duplicate columns, solver round-off) are ordered
    by index in every engine, while small but well-separated scores keep their order, whatever
    their size relative to the largest score.

    Raises
    ------
    RankingError
        If a score is NaN or infinite (a failed fit must not yield a ranking).
    """
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(s)):
        raise RankingError(f"{method} produced non-finite feature scores",
                           found=f"{int(np.sum(~np.isfinite(s)))} of {s.size}")
    order = np.argsort(-s, kind="stable")
    groups = _tie_groups(s[order])
    return order[np.lexsort((order, groups))].astype(np.int64) + 1


def _tie_groups(descending: np.ndarray) -> np.ndarray:
    """Group number of each score of a non-increasing sequence (step 2 of :func:`rank_scores`)."""
    groups = np.empty(descending.size, dtype=np.int64)
    group, first = -1, 0.0
    for i, value in enumerate(descending.tolist()):
        if group < 0 or first - value > RELATIVE_TIE_TOLERANCE * max(abs(first), abs(value)):
            group, first = group + 1, value
        groups[i] = group
    return groups
