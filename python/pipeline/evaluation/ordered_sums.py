"""The sums of the order-based average precision, compiled with Numba.

:func:`pairwise_sum` adds floats in NumPy's own pairwise order, so the native and the Octave
evaluators (``mlfs_np_sum.m``) agree to the last bit; :func:`order_ap_rows` is the AP of each row
of an ordered boolean array (:func:`pipeline.evaluation.metrics._order_ap` documents it).
They live apart from :mod:`.metrics` because importing Numba takes longer than a second: the
metric definitions there are read by every command at start, the kernels only by an evaluation.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def order_ap_rows(rows: np.ndarray) -> np.ndarray:
    """Order-based AP (m,) of each row of ``rows`` (m, L) bool, NaN for a row without positives."""
    out = np.empty(rows.shape[0])
    precisions = np.empty(rows.shape[1])
    for i in range(rows.shape[0]):
        hits = 0
        for r in range(rows.shape[1]):
            if rows[i, r]:
                hits += 1
                precisions[hits - 1] = hits / (r + 1)
        out[i] = pairwise_sum(precisions, 0, hits) / hits if hits else np.nan
    return out


@numba.njit(cache=True, nogil=True)
def pairwise_sum(values: np.ndarray, start: int, n: int) -> float:
    """``np.sum(values[start:start + n])`` for float64, in NumPy's own pairwise order.

    NumPy sums blocks of at most 128 values (below 8 left to right; else eight interleaved
    accumulators combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the remainder) and splits
    longer runs into two halves, the first a multiple of 8 long, added as left + right. The
    recursion is unrolled onto an explicit stack (Numba cannot cache a recursive kernel).
    Twin: ``matlab/util/mlfs_np_sum.m``.
    """
    starts = np.empty(64, dtype=np.int64)
    lengths = np.empty(64, dtype=np.int64)
    stages = np.zeros(64, dtype=np.int64)
    partial = np.empty(64)
    top, done = 0, 0
    starts[0], lengths[0] = start, n
    while top >= 0:
        first, length = starts[top], lengths[top]
        half = length // 2 - (length // 2) % 8
        if length <= 128:
            partial[done] = _block_sum(values, first, length)
            done += 1
            top -= 1
        elif stages[top] < 2:
            child = top + 1
            starts[child] = first if stages[top] == 0 else first + half
            lengths[child] = half if stages[top] == 0 else length - half
            stages[child] = 0
            stages[top] += 1
            top = child
        else:
            partial[done - 2] = partial[done - 2] + partial[done - 1]
            done -= 1
            top -= 1
    return partial[0]


@numba.njit(cache=True, nogil=True)
def _block_sum(values: np.ndarray, start: int, n: int) -> float:
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    r = values[start:start + 8].copy()
    stop = start + n - n % 8
    for i in range(start + 8, stop, 8):
        for j in range(8):
            r[j] += values[i + j]
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for i in range(stop, start + n):
        total += values[i]
    return total
