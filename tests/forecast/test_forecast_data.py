"""Local-first data: Arrow IPC (file, stream, GIFT-Eval layout), long CSV, converters, downloads,
and hostile inputs reproduced with crafted files (symbolic links, text targets, size limits)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from forecast_layouts import chronos_table, gift_eval_table, stamps, write_ipc

from pipeline.errors import ConfigError, DataError
from pipeline.protocols.forecast.arrow_data import write_arrow_dataset
from pipeline.protocols.forecast.benchmarks import TaskSpec
from pipeline.protocols.forecast.convert import read_exchange_rate, read_m4_hourly, read_nn5_daily
from pipeline.protocols.forecast.data import (DatasetNotAvailableError, SeriesDataset, dataset_location, load_dataset,
                                              read_long_csv, write_long_csv)
from pipeline.protocols.forecast.download import download_datasets, mirror_fetcher
from pipeline.protocols.forecast.limits import Limits


def _chronos_style_table() -> pa.Table:
    """Two rows, two target columns, hourly timestamps, one null value (like the Chronos datasets)."""
    return pa.table({
        "id": ["a", "b"],
        "timestamp": pa.array([stamps("2020-01-01", n, "h") for n in (5, 4)], type=pa.list_(pa.timestamp("ms"))),
        "target": pa.array([[1.0, 2.0, None, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0]], type=pa.list_(pa.float32())),
        "OT": pa.array([[0.1] * 5, [0.2] * 4], type=pa.list_(pa.float64())),
    })


@pytest.mark.parametrize("fmt", ["file", "stream"])
def test_arrow_ipc_every_sequence_column_is_a_series(tmp_path, fmt):
    write_ipc(tmp_path / "toy", _chronos_style_table(), fmt)
    dataset = load_dataset(tmp_path, "toy")
    assert dataset.item_ids == ["a/target", "b/target", "a/OT", "b/OT"]
    assert dataset.columns == ["target", "target", "OT", "OT"]
    assert dataset.freq == "h" and dataset.start[1] == pd.Timestamp("2020-01-01")
    np.testing.assert_array_equal(dataset.series[0], [1, 2, np.nan, 4, 5])
    np.testing.assert_allclose(dataset.series[3], [0.2] * 4)
    assert len(load_dataset(tmp_path, "toy", target="target")) == 2
    assert load_dataset(tmp_path, "toy", target=("OT", "target")).columns == ["OT", "OT", "target", "target"]
    with pytest.raises(DataError, match="target column not found"):
        load_dataset(tmp_path, "toy", target="nope")
    timed = load_dataset(tmp_path, "toy", with_timestamps=True)
    assert timed.timestamps[1][-1] == np.datetime64("2020-01-01T03:00", "ns")


def test_gift_eval_layout_univariate_and_multivariate(tmp_path):
    write_ipc(tmp_path / "uni" / "H", gift_eval_table([np.arange(6.0), np.arange(8.0)], "H"))
    uni = load_dataset(tmp_path, "uni/H", target="target")
    assert uni.freq == "H" and uni.item_ids == ["item_0", "item_1"] and [len(s) for s in uni.series] == [6, 8]
    assert uni.start[0] == pd.Timestamp("2020-01-01")
    variates = [np.vstack([np.arange(5.0), 10 + np.arange(5.0), 20 + np.arange(5.0)]) for _ in range(2)]
    write_ipc(tmp_path / "multi", gift_eval_table(variates, "15T"))
    multi = load_dataset(tmp_path, "multi", target="target")
    # each variate is a series named as GluonTS MultivariateToUnivariate names it
    assert multi.item_ids == ["item_0_dim0", "item_0_dim1", "item_0_dim2", "item_1_dim0", "item_1_dim1", "item_1_dim2"]
    np.testing.assert_array_equal(multi.series[4], 10 + np.arange(5.0))
    assert multi.freq == "15T"


def test_missing_dataset_is_a_clear_error_never_a_download(tmp_path):
    with pytest.raises(DatasetNotAvailableError, match="never downloaded") as info:
        load_dataset(tmp_path, "m4_hourly")
    assert isinstance(info.value, FileNotFoundError)
    assert str(tmp_path / "m4_hourly") in str(info.value)
    with pytest.raises(Exception, match="invalid dataset name"):
        load_dataset(tmp_path, "../etc")


def test_a_symlink_leading_outside_the_root_is_refused(tmp_path):
    outside = tmp_path / "outside"
    write_ipc(outside / "secret", _chronos_style_table())
    root = tmp_path / "root"
    root.mkdir()
    (root / "linked").symlink_to(outside / "secret", target_is_directory=True)
    with pytest.raises(DataError, match="outside the datasets root"):
        dataset_location(root, "linked")
    (root / "mixed").mkdir()
    (root / "mixed" / "data-00000-of-00001.arrow").symlink_to(outside / "secret" / "data-00000-of-00001.arrow")
    with pytest.raises(DataError, match="outside the datasets root"):
        load_dataset(root, "mixed")
    (root / "leak.csv").symlink_to(tmp_path / "elsewhere.csv")
    (tmp_path / "elsewhere.csv").write_text("item_id,timestamp,target\na,2020-01-01,1\n")
    with pytest.raises(DataError, match="outside the datasets root"):
        load_dataset(root, "leak")
    # a link that stays inside the root is fine
    write_ipc(root / "real", _chronos_style_table())
    (root / "alias").symlink_to(root / "real", target_is_directory=True)
    assert len(load_dataset(root, "alias")) == 4


@pytest.mark.parametrize("column, found", [
    (pa.array([["1.5", "x"], ["2", "3"]], type=pa.list_(pa.string())), "list<item: string>"),
    (pa.array([[None, None], [None]], type=pa.list_(pa.null())), "list<item: null>"),
])
def test_a_non_numeric_target_column_is_refused(tmp_path, column, found):
    write_ipc(tmp_path / "text", pa.table({"id": ["a", "b"], "target": column}))
    with pytest.raises(DataError, match="not a list of numbers") as info:
        load_dataset(tmp_path, "text")
    assert found in str(info.value)


def test_a_numeric_target_without_any_finite_value_is_refused(tmp_path):
    nulls = pa.array([[None, None]], type=pa.list_(pa.float64()))
    write_ipc(tmp_path / "empty", pa.table({"id": ["a"], "target": nulls}))
    with pytest.raises(DataError, match="no finite number"):
        load_dataset(tmp_path, "empty")


def test_an_all_text_csv_target_is_refused_with_its_line(tmp_path):
    (tmp_path / "words.csv").write_text(
        "item_id,timestamp,target\na,2020-01-01,\na,2020-01-02,high\na,2020-01-03,low\n")
    with pytest.raises(DataError, match="non-numeric target values") as info:
        load_dataset(tmp_path, "words")
    assert "2 such cells, first 'high' on line 3" in str(info.value)


def test_arrow_values_beyond_max_points_stop_the_read(tmp_path):
    table = chronos_table({"target": [np.arange(400.0)] * 5})
    folder = tmp_path / "big"
    folder.mkdir()
    with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink, \
            pa.ipc.new_stream(sink, table.schema) as writer:
        for row in range(5):  # five record batches of 800 list values (target + timestamp) each
            writer.write_table(table.slice(row, 1))
    assert len(load_dataset(tmp_path, "big", limits=Limits(max_points=4000))) == 5
    with pytest.raises(ConfigError, match="max_points=3000") as info:
        load_dataset(tmp_path, "big", limits=Limits(max_points=3000))
    assert "raise it with --max-points" in str(info.value) and "found 3200" in str(info.value)


def test_csv_lines_beyond_max_points_stop_before_parsing(tmp_path):
    lines = "\n".join(f"a,2020-01-{d:02d},{d}" for d in range(1, 29))
    (tmp_path / "long.csv").write_text("item_id,timestamp,target\n" + lines + "\n")
    with pytest.raises(ConfigError, match="max_points=20"):
        load_dataset(tmp_path, "long", limits=Limits(max_points=20))


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


def test_download_from_a_local_mirror_converts_parquet_and_copies_arrow(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "toy").mkdir(parents=True)
    table = _chronos_style_table()
    pq.write_table(table.slice(0, 1), mirror / "toy" / "train-00000-of-00002.parquet")
    pq.write_table(table.slice(1, 1), mirror / "toy" / "train-00001-of-00002.parquet")
    write_ipc(mirror / "solar" / "H", gift_eval_table([np.arange(6.0)], "H"))  # GIFT-Eval storage: Arrow
    root = tmp_path / "root"
    messages = []
    tasks = [TaskSpec("toy", 2, -2), TaskSpec("toy", 2, -2), TaskSpec("solar/H", 2, -2)]
    written = download_datasets(tasks, root, fetch=mirror_fetcher(mirror), log=messages.append)
    assert [p.relative_to(root).as_posix() for p in written] == ["toy/data-00000-of-00001.arrow",
                                                                 "solar/H/data-00000-of-00001.arrow"]
    assert len(load_dataset(root, "toy", target="target")) == 2
    assert load_dataset(root, "solar/H", target="target").freq == "H"
    assert download_datasets(tasks, root, fetch=mirror_fetcher(mirror), log=messages.append) == []
    assert messages[-1] == "solar/H: already present, kept"
    with pytest.raises(DataError, match="no Arrow or parquet files"):
        download_datasets([TaskSpec("absent", 2, -2)], root, fetch=mirror_fetcher(mirror))


def test_download_never_writes_through_a_link_that_leaves_the_root(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "toy").mkdir(parents=True)
    pq.write_table(_chronos_style_table(), mirror / "toy" / "train.parquet")
    (tmp_path / "victim").mkdir()
    root = tmp_path / "root"
    root.mkdir()
    (root / "toy").symlink_to(tmp_path / "victim", target_is_directory=True)
    with pytest.raises(DataError, match="outside the datasets root"):
        download_datasets([TaskSpec("toy", 2, -2)], root, fetch=mirror_fetcher(mirror))
    assert not any((tmp_path / "victim").iterdir())
