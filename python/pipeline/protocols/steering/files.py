"""Bounded reading of the steering study's input tables (CSV, Parquet) and JSON files.

A table file is opened by the bounded reader (:func:`..user_files.open_input_file`) and parsed from
the open file; before parsing, it must be a non-empty regular file of at most ``MLFS_STEERING_MAX_BYTES``
bytes (default 2 GiB); a Parquet file's footer must declare at most that many uncompressed bytes
and at most ``MLFS_STEERING_MAX_ROWS`` rows (default 30 million), and a CSV file is parsed in
chunks that stop at the same row limit. So memory stays proportional to the real data, and a
damaged or hostile file ends in one DataError. JSON files (splits, run metrics) are limited to
64 MiB.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Callable, Mapping

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import DataError
from ...limits import (DEFAULT_STEERING_MAX_ROWS, DEFAULT_STEERING_MAX_TABLE_BYTES, STEERING_MAX_JSON_BYTES,
                       STEERING_MAX_ROWS_VARIABLE, STEERING_MAX_TABLE_BYTES_VARIABLE, env_limit)
from ..user_files import open_input_file, read_json_bounded

CSV_CHUNK_ROWS = 1_000_000  # rows parsed at once: memory stays near the data read so far


def read_json_file(path: str | Path) -> object:
    """Parse a UTF-8 JSON file of at most 64 MiB."""
    return read_json_bounded(path, STEERING_MAX_JSON_BYTES)


def read_table(path: str | Path, kind: str, columns: Callable[[str], bool] | None = None,
               dtype: Mapping[str, object] | None = None) -> pd.DataFrame:
    """A CSV or (by suffix) Parquet table within the byte and row limits.

    Parameters
    ----------
    path : the file.
    kind : what the file should hold, for messages.
    columns : keep only the columns for which this returns True (default: all).
    dtype : CSV column types, e.g. ``{"sequence_id": str}``.
    """
    path = Path(path)
    max_bytes = env_limit(STEERING_MAX_TABLE_BYTES_VARIABLE, DEFAULT_STEERING_MAX_TABLE_BYTES)
    max_rows = env_limit(STEERING_MAX_ROWS_VARIABLE, DEFAULT_STEERING_MAX_ROWS)
    with open_input_file(path, kind, max_bytes, STEERING_MAX_TABLE_BYTES_VARIABLE) as handle:
        try:
            if path.suffix == ".parquet":
                return _read_parquet(handle, path, columns, max_bytes, max_rows)
            return _read_csv(handle, path, columns, dtype, max_rows)
        except DataError:
            raise
        except (OSError, ValueError, pd.errors.ParserError, pa.ArrowException) as exc:
            raise DataError(f"unreadable table ({type(exc).__name__}: {exc})", file=path, expected=kind) from exc


def _too_many_rows(path: Path, found: str, max_rows: int) -> DataError:
    return DataError(f"table has more rows than the limit (set {STEERING_MAX_ROWS_VARIABLE} to allow more)", file=path,
                     expected=f"<= {max_rows} rows", found=found)


def _read_csv(handle: BinaryIO, path: Path, columns, dtype, max_rows: int) -> pd.DataFrame:
    chunks, n_rows = [], 0
    with pd.read_csv(handle, usecols=columns, dtype=dtype, chunksize=CSV_CHUNK_ROWS) as reader:
        for chunk in reader:
            n_rows += len(chunk)
            if n_rows > max_rows:
                raise _too_many_rows(path, f"over {max_rows} rows (reading stopped)", max_rows)
            chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else pd.concat(chunks, ignore_index=True)


def _read_parquet(handle: BinaryIO, path: Path, columns, max_bytes: int, max_rows: int) -> pd.DataFrame:
    metadata = pq.read_metadata(handle)
    if metadata.num_rows > max_rows:
        raise _too_many_rows(path, f"{metadata.num_rows} rows declared", max_rows)
    declared = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
    if declared > max_bytes:
        raise DataError("Parquet data is larger than the limit once decompressed (set "
                        f"{STEERING_MAX_TABLE_BYTES_VARIABLE} to allow more)", file=path,
                        expected=f"<= {max_bytes} bytes", found=f"{declared} bytes")
    names = metadata.schema.to_arrow_schema().names
    handle.seek(0)
    return pd.read_parquet(handle, columns=[n for n in names if columns is None or columns(n)])
