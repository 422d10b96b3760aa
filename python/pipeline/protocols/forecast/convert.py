"""Converters from the staged raw files (M4 hourly, exchange_rate, NN5 daily) to the Arrow layout.

Each reader returns a :class:`~.data.SeriesDataset` named as in the Chronos benchmark
(``m4_hourly``, ``exchange_rate``, ``nn5``); :func:`convert_staged` writes all three with
:func:`~.arrow_data.write_arrow_dataset`. The raw M4 and exchange_rate files carry no timestamps, so a
fixed synthetic start is used (it only matters for frequency inference: hourly and business-daily).
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd

from ...errors import DataError
from ..user_files import open_input_file
from .arrow_data import write_arrow_dataset
from .series import SeriesDataset

M4_SYNTHETIC_START = pd.Timestamp("2000-01-01 00:00")
EXCHANGE_RATE_START = pd.Timestamp("1990-01-01")  # a Monday; the data are business-daily 1990-2016


def _open_staged(path: Path, what: str) -> BinaryIO:
    """The staged raw file ``path`` opened by the bounded reader (the caller closes it)."""
    if not path.exists():
        raise DataError(f"staged {what} file is missing", file=path, expected="the raw file from the data README")
    return open_input_file(path, f"the staged {what} file")


def read_m4_hourly(folder: str | Path) -> SeriesDataset:
    """Concatenate ``Hourly-train.csv`` and ``Hourly-test.csv`` per series (414 series, last 48 = test)."""
    folder = Path(folder)
    with _open_staged(folder / "Hourly-train.csv", "M4 hourly train") as handle:
        train = pd.read_csv(handle, index_col=0)
    with _open_staged(folder / "Hourly-test.csv", "M4 hourly test") as handle:
        test = pd.read_csv(handle, index_col=0)
    if not train.index.equals(test.index):
        raise DataError("train and test series IDs differ", file=folder / "Hourly-test.csv",
                        expected=f"{len(train)} IDs in the train order", found=f"{len(test)} IDs")
    train_values, test_values = train.to_numpy(dtype=float), test.to_numpy(dtype=float)
    series = [np.concatenate([row[~np.isnan(row)], tail]) for row, tail in zip(train_values, test_values)]
    return SeriesDataset("m4_hourly", series, [str(i) for i in train.index], "h",
                         [M4_SYNTHETIC_START] * len(series))


def read_exchange_rate(folder: str | Path) -> SeriesDataset:
    """Read ``exchange_rate.txt.gz`` (7588 x 8, no header): one series per currency column."""
    with _open_staged(Path(folder) / "exchange_rate.txt.gz", "exchange_rate") as raw, \
            gzip.open(raw, "rt") as handle:
        values = np.loadtxt(handle, delimiter=",", ndmin=2)
    return SeriesDataset("exchange_rate", [values[:, j].copy() for j in range(values.shape[1])],
                         [str(j) for j in range(values.shape[1])], "B",
                         [EXCHANGE_RATE_START] * values.shape[1])


def read_nn5_daily(folder: str | Path) -> SeriesDataset:
    """Read ``nn5_daily_from_xls.csv`` (date column + 111 series, empty = missing, kept as NaN)."""
    with _open_staged(Path(folder) / "nn5_daily_from_xls.csv", "NN5 daily") as handle:
        frame = pd.read_csv(handle, parse_dates=["date"])
    start = frame["date"].iloc[0]
    columns = [c for c in frame.columns if c != "date"]
    return SeriesDataset("nn5", [frame[c].to_numpy(dtype=float) for c in columns], columns,
                         "D", [start] * len(columns))


STAGED_READERS = {"m4_hourly": ("m4_hourly", read_m4_hourly),
                  "exchange_rate": ("exchange_rate", read_exchange_rate),
                  "nn5": ("nn5_daily", read_nn5_daily)}


def convert_staged(staged_root: str | Path, output_root: str | Path,
                   names: list[str] | None = None) -> list[Path]:
    """Convert the staged raw data under ``staged_root`` into ``<output_root>/<name>/data-*.arrow``."""
    written = []
    for name in names or list(STAGED_READERS):
        if name not in STAGED_READERS:
            raise DataError(f"no converter for dataset '{name}'", expected=sorted(STAGED_READERS), found=name)
        subfolder, reader = STAGED_READERS[name]
        written.append(write_arrow_dataset(reader(Path(staged_root) / subfolder), output_root))
    return written
