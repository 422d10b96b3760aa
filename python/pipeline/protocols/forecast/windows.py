"""Backtest windows of spec §4.3: offset, prediction length, rolling windows (step = H by default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pipeline.errors import ConfigError


@dataclass(frozen=True)
class Window:
    """One evaluation window over a dataset.

    ``contexts`` holds the full past of each kept series (variable lengths), ``targets`` is
    ``(N, H)``, ``item_index`` maps rows back to the dataset's series, ``n_skipped`` counts series
    whose context would be empty or whose target would be shorter than H.
    """

    index: int
    contexts: list[np.ndarray]
    targets: np.ndarray
    item_index: np.ndarray
    n_skipped: int


def make_windows(series: Sequence[np.ndarray], *, offset: int, prediction_length: int,
                 num_rolls: int = 1, step: int | None = None) -> list[Window]:
    """Cut each series into ``num_rolls`` windows.

    Window k uses context ``y[: L + offset + k*step]`` and target ``y[L + offset + k*step :][:H]``.
    """
    if prediction_length < 1 or num_rolls < 1:
        raise ConfigError("prediction_length and num_rolls must be >= 1",
                          found=(prediction_length, num_rolls))
    if offset >= 0:
        raise ConfigError("offset must be a negative integer", field="offset", found=offset)
    step = prediction_length if step is None else step
    windows = []
    for k in range(num_rolls):
        contexts, targets, kept = [], [], []
        for i, values in enumerate(series):
            cut = len(values) + offset + k * step
            target = values[cut:cut + prediction_length] if cut > 0 else values[:0]
            if cut <= 0 or len(target) < prediction_length:
                continue
            contexts.append(values[:cut])
            targets.append(target)
            kept.append(i)
        target_array = np.asarray(targets, dtype=float).reshape(len(kept), prediction_length)
        windows.append(Window(k, contexts, target_array, np.asarray(kept, dtype=np.int64),
                              len(series) - len(kept)))
    return windows
