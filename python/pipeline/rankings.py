"""Feature rankings: 1-based permutations of 1..d, most important feature first.

A ranking file holds d numbers separated by line ends, commas or blanks. Its size is checked
against d before it is read (:func:`max_ranking_bytes`), so a huge file never reaches memory, and
every value is reported as it appears in the file when it is not an integer in 1..d.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from pathlib import Path

import numpy as np

from .definitions import definitions
from .errors import RankingError

#: Bytes allowed per feature in a ranking file: room for NumPy's default ``%.18e`` text
#: (``1.000000000000000000e+00``, 24 characters) plus a CRLF line end, with margin (declared in
#: definitions.json, which ``mlfs_read_ranking.m`` reads too).
RANKING_BYTES_PER_FEATURE = int(definitions()["ranking_files"]["bytes_per_feature"])
#: Extra bytes allowed per file (a byte-order mark, trailing blank lines).
RANKING_SLACK_BYTES = int(definitions()["ranking_files"]["slack_bytes"])
#: Longest value read (NumPy's ``%.18e`` text has 24 characters).
MAX_INDEX_CHARS = RANKING_BYTES_PER_FEATURE

_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_SEPARATORS = re.compile(r"[,\s]+", re.ASCII)
_SHOWN_CHARACTERS = 20


def max_ranking_bytes(d: int) -> int:
    """Largest ranking file accepted for a fold with ``d`` features (a documented, fixed bound)."""
    return int(d) * RANKING_BYTES_PER_FEATURE + RANKING_SLACK_BYTES


def read_ranking_file(path: str | Path, d: int) -> np.ndarray:
    """Read and validate a ranking file for a fold with ``d`` features.

    The file size is checked against :func:`max_ranking_bytes` before any byte is read.

    Returns
    -------
    ndarray of shape (d,), int64
        The 1-based ranking.

    Raises
    ------
    RankingError
        Missing or too large file, a value that is not a decimal number, not an integer or not in
        1..d (named as written in the file), or not a permutation of 1..d.
    """
    path = Path(path)
    if not path.is_file():
        raise RankingError("ranking file not found", file=path)
    limit = max_ranking_bytes(d)
    size = path.stat().st_size
    if size > limit:
        raise RankingError(f"ranking file is larger than a ranking of {d} features can be", file=path,
                           expected=f"at most {limit} bytes ({RANKING_BYTES_PER_FEATURE} per feature "
                                    f"+ {RANKING_SLACK_BYTES})", found=f"{size} bytes")
    with open(path, "rb") as handle:
        text = handle.read(limit + 1).decode("utf-8", errors="replace").lstrip("\ufeff")
    tokens = [token for token in _SEPARATORS.split(text) if token]
    return validate_ranking(_token_values(tokens, d, path), d, source=path)


def _token_values(tokens: list[str], d: int, source: Path) -> np.ndarray:
    """The tokens as int64, or RankingError quoting the first token that is not an integer in 0..d.

    0 passes here so that :func:`validate_ranking` can say the ranking looks 0-based.
    """
    values = np.empty(len(tokens), dtype=np.int64)
    for i, token in enumerate(tokens):
        if _INTEGER.fullmatch(token) and len(token) <= MAX_INDEX_CHARS:
            value = int(token)
        elif _DECIMAL.fullmatch(token) and len(token) <= MAX_INDEX_CHARS:
            value = Decimal(token)  # exact: 2.9999999999999999999 is not 3, as a float would say
        elif _INTEGER.fullmatch(token) or _DECIMAL.fullmatch(token):
            raise RankingError("ranking index too long", file=source,
                               expected=f"values in 1..{d} of at most {MAX_INDEX_CHARS} characters",
                               found=f"{_quoted(token)} (entry {i + 1}, {len(token)} characters)")
        else:
            raise RankingError("ranking holds a non-numeric value", file=source,
                               expected="integers 1..d", found=_quoted(token))
        if not (math.isfinite(value) and 0 <= value <= d):
            raise RankingError("ranking index out of range", file=source,
                               expected=f"values in 1..{d}", found=f"{_quoted(token)} (entry {i + 1})")
        if value != int(value):
            raise RankingError("ranking holds non-integer values", file=source,
                               expected="integers 1..d", found=f"{_quoted(token)} (entry {i + 1})")
        values[i] = int(value)
    return values


def validate_ranking(ranking, d: int, *, source: str | Path | None = None) -> np.ndarray:
    """Return ``ranking`` as an int64 array of shape (d,) if it is a permutation of 1..d.

    Values are range-checked in their own type before the cast to int64, so a value such as 1e30
    is reported as it is, never as the integer its cast overflows to.

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
    arr = np.asarray(ranking).reshape(-1)
    if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not np.all(np.isfinite(arr))):
        raise RankingError("ranking holds non-numeric or non-finite values", file=source,
                           expected="integers 1..d")
    if arr.dtype.kind == "f" and np.any(arr != np.round(arr)):
        first = int(np.flatnonzero(arr != np.round(arr))[0])
        raise RankingError("ranking holds non-integer values", file=source, expected="integers 1..d",
                           found=f"{arr[first].item()!r} (entry {first + 1})")
    if arr.size != d:
        raise RankingError("ranking has the wrong length", file=source,
                           expected=f"{d} entries (one per feature)", found=f"{arr.size}")
    if arr.size and np.any(arr == 0):
        raise RankingError("ranking looks 0-based", file=source, expected="1-based indices 1..d",
                           found="a 0")
    outside = (arr < 1) | (arr > d)
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise RankingError("ranking index out of range", file=source, expected=f"values in 1..{d}",
                           found=f"{arr[first].item()!r} (entry {first + 1})")
    arr = arr.astype(np.int64)
    counts = np.bincount(arr, minlength=d + 1)
    if np.any(counts[1:] != 1):
        dup = int(np.flatnonzero(counts > 1)[0])
        raise RankingError("ranking repeats a feature", file=source,
                           expected="each of 1..d exactly once", found=f"feature {dup} {counts[dup]} times")
    return arr


def validate_scores(scores, d: int, *, source: str | Path | None = None) -> np.ndarray:
    """Return per-feature ``scores`` as a float64 array of shape (d,) if they are d finite real numbers.

    Raises
    ------
    RankingError
        If the scores are missing, not real numbers (text, complex, objects), of the wrong length
        or not finite.
    """
    if scores is None:
        raise RankingError("the method returned no feature scores", file=source, expected="info['scores'] (d,)")
    if np.ma.isMaskedArray(scores) and np.ma.getmaskarray(scores).any():  # asarray would use what is masked
        raise RankingError("feature scores are masked", file=source, expected="d finite real numbers",
                           found=f"{int(np.ma.getmaskarray(scores).sum())} masked")
    try:
        given = np.asarray(scores)
    except (ValueError, TypeError) as exc:  # ragged nesting, an object numpy cannot read
        raise RankingError("feature scores are not an array of numbers", file=source,
                           found=f"{type(exc).__name__}: {exc}") from None
    if given.dtype.kind not in "biuf":  # a cast would fail, or drop imaginary parts silently
        raise RankingError("feature scores must be real numbers", file=source,
                           expected="d real numbers (bool, integer or floating point)", found=f"dtype {given.dtype}")
    arr = given.astype(np.float64).reshape(-1)
    if arr.size != d:
        raise RankingError("feature scores have the wrong length", file=source, expected=f"{d}",
                           found=f"{arr.size}")
    if not np.all(np.isfinite(arr)):
        raise RankingError("feature scores are not finite", file=source,
                           found=f"{int(np.sum(~np.isfinite(arr)))} non-finite")
    return arr


#: Two scores are a rounding-level tie when they differ by at most this fraction of their magnitude.
RELATIVE_TIE_TOLERANCE = 1e-10


def check_ranking_sorts_scores(ranking: np.ndarray, scores: np.ndarray, *, source: str) -> None:
    """RankingError unless the scores never increase along the (validated, 1-based) ranking, beyond
    a rounding-level tie: the scores file is documented as the scores the ranking sorts, and a
    method that returns both (the full form) could otherwise make them disagree."""
    ordered = scores[np.asarray(ranking) - 1]
    rises = ordered[1:] - ordered[:-1] > RELATIVE_TIE_TOLERANCE * np.maximum(np.abs(ordered[1:]), np.abs(ordered[:-1]))
    if rises.any():
        first = int(np.flatnonzero(rises)[0])
        raise RankingError("the ranking does not sort the scores (decreasing)", file=source,
                           expected="info['scores'] non-increasing along the ranking",
                           found=f"feature {int(ranking[first + 1])} (score {ordered[first + 1]:.6g}) ranked after "
                                 f"feature {int(ranking[first])} (score {ordered[first]:.6g})")


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


def _quoted(token: str) -> str:
    """The token in quotes as it appears in the file (cut to its first characters)."""
    shown = token if len(token) <= _SHOWN_CHARACTERS else token[:_SHOWN_CHARACTERS] + "..."
    return repr(shown)
