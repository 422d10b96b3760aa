"""Local-first forecasting datasets: where a dataset lives under the root, and long-format CSV.

A dataset ``NAME`` under a root directory is read from, in order:

1. ``<root>/<NAME>/*.arrow`` -- Arrow IPC files (:mod:`.arrow_data`): the Chronos and fev layout
   (list columns, ``timestamp``) or the GIFT-Eval layout (``item_id, start, freq, target``);
2. ``<root>/<NAME>.csv`` or ``<root>/<NAME>/*.csv`` -- long format with columns
   ``item_id, timestamp, target``.

Nothing is ever downloaded here: a missing dataset raises :class:`DatasetNotAvailableError`.
Every file read must lie under the root once symbolic links are resolved.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Sequence

import numpy as np
import pandas as pd

from ...errors import DataError
from ...fileio import atomic_write_text
from ...names import validate_name
from ..user_files import open_input_file
from .arrow_data import read_arrow_dataset
from .limits import DEFAULT_LIMITS, Limits
from .series import SeriesDataset, infer_freq, require_numbers

LONG_COLUMNS = ("item_id", "timestamp", "target")


class DatasetNotAvailableError(DataError, FileNotFoundError):
    """A dataset is not present under the local datasets root (it is never downloaded)."""


def validate_dataset_name(name: str) -> str:
    """Accept ``name`` or nested ``group/name`` (GIFT-Eval layout) made of safe path components."""
    if not isinstance(name, str) or not name:
        raise DataError("dataset name must be a non-empty string", found=name)
    for part in name.split("/"):
        validate_name(part, "dataset")
    return name


def inside_root(root: str | Path, path: Path) -> Path:
    """Return ``path`` if it resolves to a location under ``root``, else raise DataError."""
    resolved, base = path.resolve(), Path(root).resolve()
    if not resolved.is_relative_to(base):
        raise DataError("path leads outside the datasets root (symbolic link)", file=path,
                        expected=f"a location under {base}", found=str(resolved))
    return path


def data_files(root: str | Path, folder: Path, pattern: str) -> list[Path]:
    """Files of ``folder`` matching ``pattern``, sorted, each checked to lie under ``root``."""
    return [inside_root(root, path) for path in sorted(folder.glob(pattern)) if path.is_file()]


def dataset_location(root: str | Path, name: str) -> Path | None:
    """Return the Arrow/CSV directory or the CSV file holding ``name`` under ``root``, or None."""
    validate_dataset_name(name)
    root = Path(root)
    folder = root / name
    if folder.is_dir():
        inside_root(root, folder)
        if data_files(root, folder, "*.arrow") or data_files(root, folder, "*.csv"):
            return folder
    csv = root / f"{name}.csv"
    if csv.is_file():
        return inside_root(root, csv)
    return None


def require_dataset(root: str | Path, name: str) -> Path:
    """Like :func:`dataset_location` but raise a precise error when the data are missing."""
    location = dataset_location(root, name)
    if location is None:
        raise DatasetNotAvailableError(
            f"dataset '{name}' is not available locally (it is never downloaded automatically); "
            "run 'python -m pipeline.protocols.forecast download_eval_datasets' or convert it",
            file=Path(root) / name, expected=f"{name}/data-*.arrow or {name}.csv (long format)",
            found="nothing")
    return location


def load_dataset(root: str | Path, name: str, target: str | Sequence[str] | None = None, *,
                 limits: Limits = DEFAULT_LIMITS, with_timestamps: bool = False) -> SeriesDataset:
    """Load dataset ``name`` from the local root (Arrow first, then long-format CSV).

    ``target`` restricts an Arrow dataset to one or several sequence columns (default: every
    one); ``with_timestamps`` also loads each series' timestamps (needed for date cutoffs).
    """
    location = require_dataset(root, name)
    arrow_files = data_files(root, location, "*.arrow") if location.is_dir() else []
    if arrow_files:
        return read_arrow_dataset(arrow_files, name, target, limits=limits, with_timestamps=with_timestamps)
    csv = location if location.is_file() else data_files(root, location, "*.csv")[0]
    if target not in (None, "target", ("target",)):
        raise DataError("a long-format CSV has the single target column 'target'", file=csv, field=str(target))
    return read_long_csv(csv, name, limits=limits, with_timestamps=with_timestamps)


# ---------------------------------------------------------------- long-format CSV
def count_lines(handle: BinaryIO, chunk: int = 2**20) -> int:
    """Number of newline characters from the position of the open file ``handle`` to its end, read in
    1 MiB chunks (bounded memory)."""
    lines = 0
    while block := handle.read(chunk):
        lines += block.count(b"\n")
    return lines


def _numeric_targets(values: pd.Series, path: Path, column: str) -> np.ndarray:
    """The target column as floats; a non-empty cell that is not a number is an error."""
    numbers = pd.to_numeric(values, errors="coerce")
    text = values.astype("string").str.strip()
    bad = numbers.isna() & values.notna() & (text != "")
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError("non-numeric target values", file=path, field=column,
                        expected="numbers (an empty cell is a missing value)",
                        found=f"{int(bad.sum())} such cells, first {values.iloc[first]!r} on line {first + 2}")
    return require_numbers(numbers.to_numpy(dtype=float), path, column)


def read_long_csv(path: str | Path, name: str, *, id_column: str = "item_id", timestamp_column: str = "timestamp",
                  target_column: str = "target", limits: Limits = DEFAULT_LIMITS,
                  with_timestamps: bool = False) -> SeriesDataset:
    """Read a long-format CSV (one row per item and time step) into a :class:`SeriesDataset`.

    The line count is checked against ``limits.max_points`` before the file is parsed. Rows are
    sorted by timestamp within each item; empty targets are missing values (NaN).
    """
    path = Path(path)
    with open_input_file(path, "a long-format CSV") as handle:
        limits.check("max_points", count_lines(handle), file=path, field="lines")
        handle.seek(0)
        frame = pd.read_csv(handle)
    missing = [c for c in (id_column, timestamp_column, target_column) if c not in frame.columns]
    if missing:
        raise DataError("long-format CSV lacks required columns", file=path, field=missing[0],
                        expected=list(LONG_COLUMNS), found=list(frame.columns))
    frame[target_column] = _numeric_targets(frame[target_column], path, target_column)
    try:
        frame[timestamp_column] = pd.to_datetime(frame[timestamp_column])
    except (ValueError, TypeError) as exc:
        raise DataError(f"unreadable timestamps: {exc}", file=path, field=timestamp_column) from exc
    frame = frame.sort_values([id_column, timestamp_column], kind="stable")
    groups = list(frame.groupby(id_column, sort=True))
    limits.check("max_series", len(groups), file=path, field=id_column)
    stamps = [pd.DatetimeIndex(group[timestamp_column]) for _, group in groups]
    longest = max(stamps, key=len, default=pd.DatetimeIndex([]))
    return SeriesDataset(name, [group[target_column].to_numpy(dtype=float) for _, group in groups],
                         [str(item) for item, _ in groups], infer_freq(longest) if len(longest) >= 3 else None,
                         [s[0] for s in stamps],
                         [s.to_numpy(dtype="datetime64[ns]") for s in stamps] if with_timestamps else None,
                         [target_column] * len(groups))


def write_long_csv(dataset: SeriesDataset, path: str | Path) -> Path:
    """Write ``dataset`` in long format (``item_id,timestamp,target``) atomically."""
    frames = [pd.DataFrame({"item_id": item, "timestamp": pd.date_range(start, periods=len(v), freq=dataset.freq),
                            "target": v})
              for item, start, v in zip(dataset.item_ids, dataset.start, dataset.series)]
    text = pd.concat(frames).to_csv(index=False, float_format="%.17g")
    return atomic_write_text(path, text)
