"""The forecasting protocol's in-memory dataset (:class:`SeriesDataset`) and the checks every reader
applies to what it loads (:func:`infer_freq`, :func:`require_numbers`); the readers are
:mod:`.data` (where a dataset lives, long-format CSV) and :mod:`.arrow_data` (Arrow IPC).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import DataError


@dataclass
class SeriesDataset:
    """A set of univariate series of one frequency.

    ``series[i]`` is a 1-D float array (NaN = missing), ``item_ids[i]`` its name, ``freq`` a pandas
    frequency string or None when the data carry no timestamps, ``start[i]`` its first timestamp.
    ``timestamps[i]`` (``datetime64[ns]``, same length as ``series[i]``) is loaded only on request,
    for tasks whose cutoff is a date; ``columns[i]`` names the target column the series comes from.
    """

    name: str
    series: list[np.ndarray]
    item_ids: list[str]
    freq: str | None = None
    start: list[pd.Timestamp | None] = field(default_factory=list)
    timestamps: list[np.ndarray] | None = None
    columns: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.series)


def infer_freq(index: pd.DatetimeIndex) -> str | None:
    """``pd.infer_freq`` as a string on every pandas version (pandas 3 moves towards offsets)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infer_freq.*")
        freq = pd.infer_freq(index)
    return getattr(freq, "freqstr", freq)


def require_numbers(flat: np.ndarray, file: Path, column: str) -> np.ndarray:
    """Return ``flat`` unless it holds no finite value at all (a target nothing can be scored on)."""
    if not np.isfinite(flat).any():
        raise DataError("target column holds no finite number", file=file, field=column,
                        expected="numeric values (missing ones as null/empty)",
                        found=f"{flat.size} values, none finite")
    return flat
