"""Local-first data: Arrow IPC (file and stream), long CSV, converters, missing-data errors, downloads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.errors import DataError
from pipeline.protocols.forecast.benchmarks import TaskSpec
from pipeline.protocols.forecast.convert import read_exchange_rate, read_m4_hourly, read_nn5_daily
from pipeline.protocols.forecast.data import (DatasetNotAvailableError, SeriesDataset, load_dataset,
                                              read_long_csv, write_arrow_dataset, write_long_csv)
from pipeline.protocols.forecast.download import download_datasets, mirror_fetcher


def _chronos_style_table() -> pa.Table:
    """Two rows, two target columns, hourly timestamps, one null value (like the Chronos datasets)."""
    stamps = [pd.date_range("2020-01-01", periods=n, freq="h").to_numpy().astype("datetime64[ms]")
              for n in (5, 4)]
    return pa.table({
        "id": ["a", "b"],
        "timestamp": pa.array(stamps, type=pa.list_(pa.timestamp("ms"))),
        "target": pa.array([[1.0, 2.0, None, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0]], type=pa.list_(pa.float32())),
        "OT": pa.array([[0.1] * 5, [0.2] * 4], type=pa.list_(pa.float64())),
    })


@pytest.mark.parametrize("writer", ["file", "stream"])
def test_arrow_ipc_every_sequence_column_is_a_series(tmp_path, writer):
    table = _chronos_style_table()
    folder = tmp_path / "toy"
    folder.mkdir()
    open_writer = pa.ipc.new_file if writer == "file" else pa.ipc.new_stream
    with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink, open_writer(sink, table.schema) as w:
        w.write_table(table)
    dataset = load_dataset(tmp_path, "toy")
    assert dataset.item_ids == ["a/target", "b/target", "a/OT", "b/OT"]
    assert dataset.freq == "h"
    np.testing.assert_array_equal(dataset.series[0], [1, 2, np.nan, 4, 5])
    np.testing.assert_allclose(dataset.series[3], [0.2] * 4)
    only_target = load_dataset(tmp_path, "toy", target="target")
    assert len(only_target) == 2
    with pytest.raises(DataError, match="target column"):
        load_dataset(tmp_path, "toy", target="nope")


def test_missing_dataset_is_a_clear_error_never_a_download(tmp_path):
    with pytest.raises(DatasetNotAvailableError, match="never downloaded") as info:
        load_dataset(tmp_path, "m4_hourly")
    assert isinstance(info.value, FileNotFoundError)
    assert str(tmp_path / "m4_hourly") in str(info.value)
    with pytest.raises(Exception, match="invalid dataset name"):
        load_dataset(tmp_path, "../etc")


def test_long_csv_and_arrow_round_trip(tmp_path):
    dataset = SeriesDataset("toy", [np.array([1.0, np.nan, 3.0]), np.array([4.0, 5.0, 6.0, 7.0])],
                            ["x", "y"], "D", [pd.Timestamp("2021-01-01"), pd.Timestamp("2021-02-01")])
    write_long_csv(dataset, tmp_path / "csvroot" / "toy.csv")
    from_csv = load_dataset(tmp_path / "csvroot", "toy")
    write_arrow_dataset(dataset, tmp_path / "arrowroot")
    from_arrow = load_dataset(tmp_path / "arrowroot", "toy")
    for loaded in (from_csv, from_arrow):
        assert loaded.item_ids == ["x", "y"] and loaded.freq == "D"
        for got, expected in zip(loaded.series, dataset.series):
            np.testing.assert_array_equal(got, expected)
    frame = pd.DataFrame({"id": ["x"], "time": ["2021-01-01"], "value": [1.0]})
    frame.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(DataError, match="required columns"):
        read_long_csv(tmp_path / "bad.csv", "bad")


def test_converters_read_the_staged_files(forecast_dir):
    m4 = read_m4_hourly(forecast_dir / "m4_hourly")
    assert len(m4) == 414 and m4.item_ids[0] == "H1"
    assert sorted({len(s) for s in m4.series}) == [748, 1008]
    assert sum(len(s) - 48 for s in m4.series) == 353_500
    fx = read_exchange_rate(forecast_dir / "exchange_rate")
    assert len(fx) == 8 and {len(s) for s in fx.series} == {7588} and fx.freq == "B"
    assert fx.series[5].min() == pytest.approx(0.0063, abs=5e-5)
    nn5 = read_nn5_daily(forecast_dir / "nn5_daily")
    assert len(nn5) == 111 and {len(s) for s in nn5.series} == {791}
    assert sum(int(np.isnan(s).sum()) for s in nn5.series) == 1677
    assert sum(int(np.isnan(s[-56:]).sum()) for s in nn5.series) == 4
    assert nn5.start[0] == pd.Timestamp("1996-03-18")


def test_converted_arrow_keeps_values_and_frequency(arrow_root, forecast_dir):
    nn5 = load_dataset(arrow_root, "nn5")
    raw = read_nn5_daily(forecast_dir / "nn5_daily")
    assert nn5.freq == "D" and nn5.item_ids == raw.item_ids
    for got, expected in zip(nn5.series, raw.series):
        np.testing.assert_array_equal(got, expected)
    assert load_dataset(arrow_root, "m4_hourly").freq == "h"
    assert load_dataset(arrow_root, "exchange_rate").freq == "B"


def test_download_from_a_local_mirror_converts_parquet(tmp_path):
    mirror = tmp_path / "mirror" / "toy"
    mirror.mkdir(parents=True)
    table = _chronos_style_table()
    pq.write_table(table.slice(0, 1), mirror / "train-00000-of-00002.parquet")
    pq.write_table(table.slice(1, 1), mirror / "train-00001-of-00002.parquet")
    root = tmp_path / "root"
    messages = []
    tasks = [TaskSpec("toy", 2, -2), TaskSpec("toy", 2, -2)]
    written = download_datasets(tasks, root, fetch=mirror_fetcher(tmp_path / "mirror"), log=messages.append)
    assert len(written) == 1 and written[0].name == "data-00000-of-00001.arrow"
    assert len(load_dataset(root, "toy", target="target")) == 2
    assert download_datasets(tasks, root, fetch=mirror_fetcher(tmp_path / "mirror"), log=messages.append) == []
    assert messages[-1] == "toy: already present, kept"
    with pytest.raises(DataError, match="no parquet files"):
        download_datasets([TaskSpec("absent", 2, -2)], root, fetch=mirror_fetcher(tmp_path / "mirror"))
