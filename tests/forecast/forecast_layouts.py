"""Small datasets written in the on-disk layouts the forecasting module reads (test helpers).

* Chronos / fev layout: ``id``, a ``timestamp`` list column and numeric list columns;
* GIFT-Eval layout (``datasets.save_to_disk`` of ``gift_eval``): ``item_id``, ``start``, ``freq``
  and ``target`` (a list, or a list of lists for multivariate data), plus covariates.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa


def write_ipc(folder: Path, table: pa.Table, fmt: str = "stream", name: str = "data-00000-of-00001.arrow") -> Path:
    """Write ``table`` as an Arrow IPC file (``fmt="file"``) or stream (``save_to_disk``'s format)."""
    folder.mkdir(parents=True, exist_ok=True)
    open_writer = pa.ipc.new_file if fmt == "file" else pa.ipc.new_stream
    with pa.OSFile(str(folder / name), "wb") as sink, open_writer(sink, table.schema) as writer:
        writer.write_table(table)
    return folder / name


def stamps(start: str, periods: int, freq: str) -> np.ndarray:
    return pd.date_range(start, periods=periods, freq=freq).to_numpy().astype("datetime64[ms]")


def chronos_table(columns: dict[str, list], start: str = "2020-01-01", freq: str = "D") -> pa.Table:
    """``id, timestamp`` plus one list column per entry of ``columns`` (row i of each has one length)."""
    first = next(iter(columns.values()))
    return pa.table({"id": [f"s{i}" for i in range(len(first))],
                     "timestamp": pa.array([stamps(start, len(row), freq) for row in first],
                                           type=pa.list_(pa.timestamp("ms"))),
                     **{name: pa.array([np.asarray(row, dtype=float) for row in rows])
                        for name, rows in columns.items()}})


def gift_eval_table(targets: list, freq: str, start: str = "2020-01-01") -> pa.Table:
    """GIFT-Eval rows; a target entry is a 1-D array (univariate) or a 2-D array (variates x time)."""
    multivariate = np.asarray(targets[0]).ndim == 2
    value_type = pa.list_(pa.list_(pa.float32())) if multivariate else pa.list_(pa.float32())
    lengths = [np.asarray(t).shape[-1] for t in targets]
    return pa.table({
        "item_id": [f"item_{i}" for i in range(len(targets))],
        "start": pa.array([np.datetime64(start, "s")] * len(targets), type=pa.timestamp("s")),
        "freq": [freq] * len(targets),
        "target": pa.array([np.asarray(t, dtype=np.float32).tolist() for t in targets], type=value_type),
        # a covariate list column that must not become a series
        "past_feat_dynamic_real": pa.array([np.zeros(n, dtype=np.float32).tolist() for n in lengths],
                                           type=pa.list_(pa.float32())),
    })
