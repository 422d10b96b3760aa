"""Local-first forecasting datasets: Arrow IPC (the Chronos layout) and long-format CSV.

A dataset ``NAME`` under a root directory is read from, in order:

1. ``<root>/<NAME>/*.arrow`` -- Arrow IPC files as written by ``datasets.save_to_disk``
   (stream format) or by :func:`write_arrow_dataset`; every list-valued column except
   ``timestamp`` becomes its own univariate series (spec §4.3);
2. ``<root>/<NAME>.csv`` or ``<root>/<NAME>/*.csv`` -- long format with columns
   ``item_id, timestamp, target``.

Nothing is ever downloaded here: a missing dataset raises :class:`DatasetNotAvailableError`.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.errors import DataError
from pipeline.fileio import atomic_write_bytes, atomic_write_text
from pipeline.names import validate_name

LONG_COLUMNS = ("item_id", "timestamp", "target")
TIMESTAMP_COLUMN = "timestamp"


class DatasetNotAvailableError(DataError, FileNotFoundError):
    """A dataset is not present under the local datasets root (it is never downloaded)."""


@dataclass
class SeriesDataset:
    """A set of univariate series of one frequency.

    ``series[i]`` is a 1-D float array (NaN = missing), ``item_ids[i]`` its name, ``freq`` a pandas
    frequency string or None when the data carry no timestamps.
    """

    name: str
    series: list[np.ndarray]
    item_ids: list[str]
    freq: str | None = None
    start: list[pd.Timestamp | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.series)


def validate_dataset_name(name: str) -> str:
    """Accept ``name`` or nested ``group/name`` (GIFT-Eval layout) made of safe path components."""
    if not isinstance(name, str) or not name:
        raise DataError("dataset name must be a non-empty string", found=name)
    for part in name.split("/"):
        validate_name(part, "dataset")
    return name


def dataset_location(root: str | Path, name: str) -> Path | None:
    """Return the Arrow directory or CSV file holding ``name`` under ``root``, or None."""
    validate_dataset_name(name)
    root = Path(root)
    folder = root / name
    if folder.is_dir() and (any(folder.glob("*.arrow")) or any(folder.glob("*.csv"))):
        return folder
    if (root / f"{name}.csv").is_file():
        return root / f"{name}.csv"
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


def load_dataset(root: str | Path, name: str, target: str | None = None) -> SeriesDataset:
    """Load dataset ``name`` from the local root (Arrow first, then long-format CSV).

    ``target`` restricts an Arrow dataset to one sequence column (default: every one).
    """
    location = require_dataset(root, name)
    if location.is_dir() and any(location.glob("*.arrow")):
        return read_arrow_dataset(location, name, target)
    csv = location if location.is_file() else sorted(location.glob("*.csv"))[0]
    return read_long_csv(csv, name)


# ---------------------------------------------------------------- Arrow IPC
def _read_ipc_table(path: Path):
    import pyarrow as pa

    try:
        with pa.memory_map(str(path)) as source:
            try:
                return pa.ipc.open_file(source).read_all()
            except pa.ArrowInvalid:
                source.seek(0)
                return pa.ipc.open_stream(source).read_all()
    except pa.ArrowInvalid as exc:
        raise DataError(f"not an Arrow IPC file: {exc}", file=path) from exc


def read_arrow_dataset(folder: str | Path, name: str, target: str | None = None) -> SeriesDataset:
    """Read ``folder/*.arrow`` (IPC file or stream format) into a :class:`SeriesDataset`."""
    import pyarrow as pa

    folder = Path(folder)
    files = sorted(folder.glob("*.arrow"))
    if not files:
        raise DatasetNotAvailableError("no Arrow files", file=folder, expected="data-*.arrow")
    table = pa.concat_tables([_read_ipc_table(path) for path in files])
    value_columns = [col for col in table.column_names
                     if col != TIMESTAMP_COLUMN and _is_list(table.schema.field(col).type)]
    if target is not None:
        if target not in value_columns:
            raise DataError("target column not found", file=folder, field=target, expected=value_columns)
        value_columns = [target]
    if not value_columns:
        raise DataError("no sequence-valued target column", file=folder,
                        expected="at least one list column besides 'timestamp'",
                        found=table.column_names)
    ids = _row_ids(table)
    series, item_ids = [], []
    for column in value_columns:
        values = _split_list_column(table.column(column))
        series.extend(values)
        item_ids.extend(ids if len(value_columns) == 1 else [f"{i}/{column}" for i in ids])
    timestamps = (_split_timestamps(table.column(TIMESTAMP_COLUMN))
                  if TIMESTAMP_COLUMN in table.column_names else None)
    freq = _metadata_freq(table.schema) or (_infer_freq(timestamps) if timestamps else None)
    starts = [ts[0] if len(ts) else None for ts in timestamps] * len(value_columns) if timestamps else []
    return SeriesDataset(name, series, item_ids, freq, starts)


def _is_list(arrow_type) -> bool:
    import pyarrow as pa

    return pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)


def _row_ids(table) -> list[str]:
    for candidate in ("id", "item_id"):
        if candidate in table.column_names:
            return [str(v) for v in table.column(candidate).to_pylist()]
    return [str(i) for i in range(table.num_rows)]


def _split_list_column(column) -> list[np.ndarray]:
    array = column.combine_chunks()
    offsets = np.asarray(array.offsets)
    flat = array.values.to_numpy(zero_copy_only=False).astype(float, copy=False)
    if array.values.null_count:
        flat = np.where(np.asarray(array.values.is_null()), np.nan, flat)
    return [flat[offsets[i]:offsets[i + 1]].copy() for i in range(len(offsets) - 1)]


def _split_timestamps(column) -> list[np.ndarray]:
    array = column.combine_chunks()
    offsets = np.asarray(array.offsets)
    flat = array.values.to_numpy(zero_copy_only=False).astype("datetime64[ns]")
    return [flat[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]


def _metadata_freq(schema) -> str | None:
    metadata = schema.metadata or {}
    value = metadata.get(b"freq")
    return value.decode() if value else None


def _infer_freq(timestamps: list[np.ndarray]) -> str | None:
    longest = max(timestamps, key=len)
    if len(longest) < 3:
        return None
    return infer_freq(pd.DatetimeIndex(longest[: min(len(longest), 400)]))


def infer_freq(index: pd.DatetimeIndex) -> str | None:
    """``pd.infer_freq`` as a string on every pandas version (pandas 3 moves towards offsets)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infer_freq.*")
        freq = pd.infer_freq(index)
    return getattr(freq, "freqstr", freq)


def write_arrow_dataset(dataset: SeriesDataset, root: str | Path) -> Path:
    """Write ``dataset`` as ``<root>/<name>/data-00000-of-00001.arrow`` (IPC stream, atomically).

    Columns: ``id`` (string), ``timestamp`` (list of timestamps, when starts and freq are known),
    ``target`` (list of float64, NaN kept as NaN). The frequency is also stored in the schema
    metadata under ``freq``.
    """
    import pyarrow as pa

    validate_name(dataset.name, "dataset")
    columns = {"id": pa.array(dataset.item_ids, type=pa.string())}
    if dataset.freq and dataset.start and all(s is not None for s in dataset.start):
        columns[TIMESTAMP_COLUMN] = pa.array(
            # pyarrow does not rescale nested datetime64[ns] arrays: convert to ms first
            [pd.date_range(start, periods=len(values), freq=dataset.freq).to_numpy().astype("datetime64[ms]")
             for start, values in zip(dataset.start, dataset.series)],
            type=pa.list_(pa.timestamp("ms")))
    columns["target"] = pa.array([np.asarray(v, dtype=float) for v in dataset.series],
                                 type=pa.list_(pa.float64()))
    table = pa.table(columns)
    if dataset.freq:
        table = table.replace_schema_metadata({"freq": dataset.freq})
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return atomic_write_bytes(Path(root) / dataset.name / "data-00000-of-00001.arrow", sink.getvalue())


# ---------------------------------------------------------------- long-format CSV
def read_long_csv(path: str | Path, name: str, *, id_column: str = "item_id",
                  timestamp_column: str = "timestamp", target_column: str = "target") -> SeriesDataset:
    """Read a long-format CSV (one row per item and time step) into a :class:`SeriesDataset`.

    Rows are sorted by timestamp within each item; empty targets are missing values (NaN).
    """
    path = Path(path)
    frame = pd.read_csv(path)
    missing = [c for c in (id_column, timestamp_column, target_column) if c not in frame.columns]
    if missing:
        raise DataError("long-format CSV lacks required columns", file=path, field=missing[0],
                        expected=list(LONG_COLUMNS), found=list(frame.columns))
    frame[timestamp_column] = pd.to_datetime(frame[timestamp_column])
    frame = frame.sort_values([id_column, timestamp_column], kind="stable")
    series, ids, starts, freq = [], [], [], None
    for item, group in frame.groupby(id_column, sort=True):
        series.append(pd.to_numeric(group[target_column], errors="coerce").to_numpy(dtype=float))
        ids.append(str(item))
        starts.append(group[timestamp_column].iloc[0])
        if freq is None and len(group) >= 3:
            freq = infer_freq(pd.DatetimeIndex(group[timestamp_column]))
    return SeriesDataset(name, series, ids, freq, starts)


def write_long_csv(dataset: SeriesDataset, path: str | Path) -> Path:
    """Write ``dataset`` in long format (``item_id,timestamp,target``) atomically."""
    frames = [pd.DataFrame({"item_id": item, "timestamp": pd.date_range(start, periods=len(v), freq=dataset.freq),
                            "target": v})
              for item, start, v in zip(dataset.item_ids, dataset.start, dataset.series)]
    text = pd.concat(frames).to_csv(index=False, float_format="%.17g")
    return atomic_write_text(path, text)
