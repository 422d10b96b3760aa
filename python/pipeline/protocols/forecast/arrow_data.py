"""Arrow IPC datasets (``datasets.save_to_disk`` layout): reading within limits, and writing.

Two column layouts are read:

* Chronos / fev: ``id`` or ``item_id``, a ``timestamp`` list column, and numeric list columns;
  every numeric list column except ``timestamp`` is a target (or only ``target=...``), each row of
  it one univariate series. The frequency comes from the schema metadata ``freq`` or is inferred
  from the timestamps.
* GIFT-Eval: ``item_id``, ``start`` (a timestamp), ``freq`` (a string column) and ``target``, a
  list of numbers or, for multivariate data, a list of lists: each inner list (variate) becomes a
  series named ``<item_id>_dim<k>``, as GluonTS ``MultivariateToUnivariate`` does.

Record batches are read one at a time and their list values counted against
``Limits.max_points`` before anything is converted; targets must be numeric and hold at least one
finite value.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import pandas as pd

from ...errors import DataError
from ...fileio import atomic_write_bytes
from ...names import validate_name
from .limits import DEFAULT_LIMITS, Limits
from .series import SeriesDataset, infer_freq, require_numbers

TIMESTAMP_COLUMN = "timestamp"


def _is_list(arrow_type) -> bool:
    import pyarrow as pa

    return pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)


def _list_depth(arrow_type) -> tuple[int, object]:
    """(nesting depth, leaf type) of a possibly nested list type."""
    depth = 0
    while _is_list(arrow_type):
        depth, arrow_type = depth + 1, arrow_type.value_type
    return depth, arrow_type


def _count_list_values(array) -> int:
    """Leaf values of a (nested) list array, counted on zero-copy views."""
    while _is_list(array.type):
        array = array.flatten()
    return len(array)


def _record_batches(path: Path) -> Iterator:
    """Record batches of an Arrow IPC file, file format first, then stream format."""
    import pyarrow as pa

    # Mapped by path, not read through pipeline.fileio's bounded reader: pyarrow maps only a path,
    # and reading an open Python file would copy every batch into memory before the limits count its
    # values. The paths are those data.data_files keeps (regular files only) or the files a download
    # just wrote (download.store_fetched).
    with pa.memory_map(str(path)) as source:
        try:
            reader = pa.ipc.open_file(source)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        except pa.ArrowInvalid:
            source.seek(0)
            batches = iter(pa.ipc.open_stream(source))
        yield from batches


def read_table(files: Sequence[Path], limits: Limits = DEFAULT_LIMITS):
    """Concatenate the record batches of ``files``; list values are counted before conversion."""
    import pyarrow as pa

    batches, spent = [], 0
    for path in files:
        try:
            for batch in _record_batches(path):
                spent += sum(_count_list_values(column) for column in batch.columns if _is_list(column.type))
                limits.check("max_points", spent, file=path, field="list values")
                batches.append(batch)
        except (pa.ArrowInvalid, OSError) as exc:
            raise DataError(f"not a readable Arrow IPC file: {exc}", file=path) from exc
    if not batches:
        raise DataError("Arrow files hold no record batch", file=files[0] if files else None)
    try:
        return pa.Table.from_batches(batches)
    except pa.ArrowInvalid as exc:
        raise DataError(f"Arrow files of one dataset have different schemas: {exc}", file=files[0]) from exc


def target_columns(table, target: str | Sequence[str] | None, folder: Path) -> list[str]:
    """Names of the numeric list columns to read as series (those of ``target`` when given)."""
    import pyarrow as pa

    lists = [col for col in table.column_names if col != TIMESTAMP_COLUMN and _is_list(table.schema.field(col).type)]
    chosen = lists if target is None else [target] if isinstance(target, str) else list(target)
    absent = [col for col in chosen if col not in lists]
    if absent:
        raise DataError("target column not found", file=folder, field=absent[0], expected=lists)
    if not chosen:
        raise DataError("no sequence-valued target column", file=folder,
                        expected="at least one list column besides 'timestamp'", found=table.column_names)
    for col in chosen:
        depth, leaf = _list_depth(table.schema.field(col).type)
        if depth > 2 or not (pa.types.is_integer(leaf) or pa.types.is_floating(leaf) or pa.types.is_decimal(leaf)):
            raise DataError("target column is not a list of numbers", file=folder, field=col,
                            expected="list<float|int> or list<list<float|int>> (multivariate)",
                            found=str(table.schema.field(col).type))
    return chosen


def _offsets(array) -> np.ndarray:
    """Offsets of a list array relative to its first element (slices of larger arrays included)."""
    offsets = np.asarray(array.offsets, dtype=np.int64)
    return offsets - offsets[0]


def split_numeric_column(column, folder: Path, name: str) -> tuple[list[np.ndarray], np.ndarray, np.ndarray | None]:
    """(series, row of each series, variate of each series or None) of one numeric list column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = column.combine_chunks()
    rows = np.arange(len(array))
    variates = None
    if _is_list(array.type.value_type):  # multivariate (GIFT-Eval): one series per inner list
        per_row = np.diff(_offsets(array))
        rows, variates = np.repeat(rows, per_row), np.concatenate([np.arange(n) for n in per_row] or [[]])
        array = array.flatten()
    offsets = _offsets(array)
    flat = require_numbers(pc.cast(array.flatten(), pa.float64()).to_numpy(zero_copy_only=False), folder, name)
    return [flat[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)], rows, variates


def _row_ids(table) -> list[str]:
    for candidate in ("id", "item_id"):
        if candidate in table.column_names:
            return [str(v) for v in table.column(candidate).to_pylist()]
    return [str(i) for i in range(table.num_rows)]


def _series_ids(ids: list[str], rows: np.ndarray, variates: np.ndarray | None, column: str, several: bool) -> list[str]:
    names = [ids[r] for r in rows] if variates is None else [f"{ids[r]}_dim{v}" for r, v in zip(rows, variates)]
    return [f"{n}/{column}" for n in names] if several else names


def _frequency(table, folder: Path) -> str | None:
    """Schema metadata ``freq``, else a single-valued ``freq`` column, else inferred from timestamps."""
    metadata = table.schema.metadata or {}
    if metadata.get(b"freq"):
        return metadata[b"freq"].decode()
    if "freq" in table.column_names:
        values = sorted({str(v) for v in table.column("freq").unique().to_pylist()})
        if len(values) != 1:
            raise DataError("the 'freq' column must hold one frequency", file=folder, field="freq", found=values)
        return values[0]
    if TIMESTAMP_COLUMN not in table.column_names:
        return None
    import pyarrow.compute as pc

    stamps = table.column(TIMESTAMP_COLUMN).combine_chunks()
    longest = int(np.argmax(pc.list_value_length(stamps).fill_null(0).to_numpy()))
    row = stamps[longest].values.to_numpy(zero_copy_only=False)[:400].astype("datetime64[ns]")
    return infer_freq(pd.DatetimeIndex(row)) if len(row) >= 3 else None


def _row_timestamps(table, with_timestamps: bool) -> tuple[list[pd.Timestamp | None], list[np.ndarray] | None]:
    """First timestamp of each row and, on request, views of all its timestamps (``datetime64[ns]``).

    Taken from the ``timestamp`` list column, else (starts only) from a ``start`` column.
    """
    if TIMESTAMP_COLUMN in table.column_names:
        stamps = table.column(TIMESTAMP_COLUMN).combine_chunks()
        offsets = _offsets(stamps)
        flat = stamps.flatten().to_numpy(zero_copy_only=False)
        starts = [pd.Timestamp(flat[offsets[i]]) if offsets[i + 1] > offsets[i] else None
                  for i in range(len(offsets) - 1)]
        if not with_timestamps:
            return starts, None
        flat = flat.astype("datetime64[ns]")
        return starts, [flat[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
    if "start" in table.column_names:
        return list(pd.to_datetime(table.column("start").to_numpy(zero_copy_only=False))), None
    return [None] * table.num_rows, None


def read_arrow_dataset(files: Sequence[Path], name: str, target: str | Sequence[str] | None = None, *,
                       limits: Limits = DEFAULT_LIMITS, with_timestamps: bool = False) -> SeriesDataset:
    """Read Arrow IPC ``files`` (file or stream format) of one dataset into a :class:`SeriesDataset`."""
    if not files:
        raise DataError("no Arrow files", expected="data-*.arrow", found=name)
    folder = Path(files[0]).parent
    table = read_table(files, limits)
    columns = target_columns(table, target, folder)
    ids = _row_ids(table)
    starts, stamps = _row_timestamps(table, with_timestamps)
    series, item_ids, rows_of_series, column_of_series = [], [], [], []
    for column in columns:
        values, rows, variates = split_numeric_column(table.column(column), folder, column)
        limits.check("max_series", len(series) + len(values), file=folder, field=column)
        series.extend(values)
        rows_of_series.extend(rows)
        column_of_series.extend([column] * len(values))
        item_ids.extend(_series_ids(ids, rows, variates, column, len(columns) > 1))
    if with_timestamps and stamps is None:
        raise DataError("a date cutoff needs a 'timestamp' list column", file=folder,
                        expected="timestamp: list<timestamp>", found=table.column_names)
    return SeriesDataset(name, series, item_ids, _frequency(table, folder), [starts[r] for r in rows_of_series],
                         [stamps[r] for r in rows_of_series] if with_timestamps else None, column_of_series)


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
    return atomic_write_bytes(Path(root) / dataset.name / "data-00000-of-00001.arrow", table_to_ipc_stream(table))


def table_to_ipc_stream(table) -> bytes:
    """``table`` serialised in the Arrow IPC stream format (the ``save_to_disk`` format)."""
    import pyarrow as pa

    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()
