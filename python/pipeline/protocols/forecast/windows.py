"""Backtest windows: where each series is cut into context and target, window by window.

A *cut* ``c`` splits a series ``y`` into the context ``y[:c]`` and the target ``y[c:c+H]``.
Cuts come from a plan (docs/forecast.md, "Windows"):

* :func:`offset_cuts` -- an integer offset, fev's ``initial_cutoff`` semantics: a negative offset
  counts from each series' end (window k cuts at ``L + offset + k*step``), a non-negative one is
  a position from the start (``offset + k*step``);
* :func:`date_cuts` -- a timestamp cutoff (fev): the context is every point at or before
  ``cutoff_k = first + k*step``.

:func:`make_windows` turns the cuts into :class:`Window`\\ s lazily, one window in memory at a
time; contexts are views of the series, never copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from ...errors import DataError


@dataclass(frozen=True)
class Window:
    """One evaluation window over a dataset.

    ``contexts`` holds the past of each kept series (variable lengths), ``targets`` is ``(N, H)``,
    ``item_index`` maps rows back to the dataset's series, ``n_skipped`` counts series with fewer
    than ``min_context_length`` points before the cut or fewer than H after it.
    """

    index: int
    contexts: list[np.ndarray]
    targets: np.ndarray
    item_index: np.ndarray
    n_skipped: int


def offset_cuts(lengths: np.ndarray, *, offset: int, step: int, num_windows: int) -> Iterator[np.ndarray]:
    """Cut positions ``(N,)`` per window for an integer ``offset`` (negative: from each series' end)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    base = lengths + offset if offset < 0 else np.full(len(lengths), offset, dtype=np.int64)
    for k in range(num_windows):
        yield base + k * step


def date_cuts(timestamps: Sequence[np.ndarray], *, first: pd.Timestamp, step: pd.DateOffset,
              num_windows: int) -> Iterator[np.ndarray]:
    """Cut positions ``(N,)`` per window: the number of timestamps at or before each cutoff.

    The first cutoff is ``first``; window k adds ``k * step`` (not applied for k = 0, so that an
    anchored offset such as month-end does not move the first cutoff, as fev does).
    """
    for k in range(num_windows):
        cutoff = np.datetime64(first + k * step if k else first, "ns")
        yield np.array([np.searchsorted(stamps, cutoff, side="right") for stamps in timestamps], dtype=np.int64)


def make_windows(series: Sequence[np.ndarray], cuts: Iterable[np.ndarray], *, prediction_length: int,
                 min_context_length: int = 1, max_context_length: int | None = None,
                 label: str | None = None) -> Iterator[Window]:
    """Yield one :class:`Window` per cut array; series too short for a window are skipped and counted.

    Raises DataError (naming task ``label``) when a window keeps no series at all (the cutoff or
    offset lies outside every series), so that a task never reports a score from fewer windows
    than it declares.
    """
    lengths = np.array([len(values) for values in series], dtype=np.int64)
    for index, cut in enumerate(cuts):
        kept = np.flatnonzero((cut >= min_context_length) & (cut + prediction_length <= lengths))
        if not len(kept):
            raise DataError(f"window {index} keeps no series: no series has {min_context_length} point(s) "
                            f"before its cut and {prediction_length} after it", field=label,
                            expected=f"series longer than the offset or cutoff (longest: {lengths.max(initial=0)})")
        starts = np.zeros(len(kept), dtype=np.int64) if max_context_length is None else \
            np.maximum(cut[kept] - max_context_length, 0)
        contexts = [series[i][start:cut[i]] for i, start in zip(kept, starts)]
        targets = np.array([series[i][cut[i]:cut[i] + prediction_length] for i in kept], dtype=float)
        yield Window(index, contexts, targets.reshape(len(kept), prediction_length), kept,
                     len(series) - len(kept))


def backtest_windows(series: Sequence[np.ndarray], *, offset: int, prediction_length: int, num_windows: int = 1,
                     step: int | None = None, **options) -> Iterator[Window]:
    """:func:`make_windows` over :func:`offset_cuts` (step H by default): the integer-offset case."""
    lengths = np.array([len(values) for values in series], dtype=np.int64)
    cuts = offset_cuts(lengths, offset=offset, step=step or prediction_length, num_windows=num_windows)
    return make_windows(series, cuts, prediction_length=prediction_length, **options)
