"""Damaged, empty, oversized and hostile input files of the steering CLI: one `error:` line, exit 2."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pipeline.cli import run_main
from pipeline.errors import DataError
from pipeline.limits import STEERING_MAX_ROWS_VARIABLE as MAX_ROWS_ENV
from pipeline.limits import STEERING_MAX_TABLE_BYTES_VARIABLE as MAX_BYTES_ENV
from pipeline.protocols.steering.__main__ import main
from pipeline.protocols.steering.files import read_table
from pipeline.protocols.steering.predictions import predictions_frame, read_predictions
from pipeline.protocols.steering.split import SplitError, load_split, make_sequence_split, save_split


def _frame(n_seq=4, length=5):
    ids = np.repeat([f"s{i}" for i in range(n_seq)], length)
    y = np.linspace(-1, 1, ids.size)
    return predictions_frame(np.arange(ids.size), ids, y, y + 0.1)


def _cli_error(args, capsys) -> str:
    assert run_main(main, args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def _analyze_m1_m3(results, capsys) -> str:
    """Write valid M1 and M3 predictions for seed 42 unless a file is already there, then analyze."""
    for model in ("M1", "M3"):
        path = results / "paper" / model / "seed_42" / f"{model}_predictions.csv"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _frame().to_csv(path, index=False)
    return _cli_error(["analyze", "--results", str(results), "--variant", "paper", "--seeds", "42",
                       "--comparisons", "M1:M3", "--out", str(results / "out"), "--permutations", "10",
                       "--bootstrap", "10", "--effect-bootstrap", "10"], capsys)


def test_zero_byte_prediction_file_in_analyze(tmp_path, capsys):
    empty = tmp_path / "paper" / "M3" / "seed_42" / "M3_predictions.csv"
    empty.parent.mkdir(parents=True)
    empty.write_bytes(b"")
    err = _analyze_m1_m3(tmp_path, capsys)
    assert str(empty) in err and "empty file (0 bytes)" in err


def test_zero_byte_and_headerless_sample_tables_in_split(tmp_path, capsys):
    (tmp_path / "empty.csv").write_bytes(b"")
    err = _cli_error(["split", "--samples", str(tmp_path / "empty.csv"), "--out", str(tmp_path / "o")], capsys)
    assert "empty file (0 bytes)" in err
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    err = _cli_error(["split", "--samples", str(tmp_path / "other.csv"), "--out", str(tmp_path / "o")], capsys)
    assert "sequence_id" in err


def test_csv_over_the_byte_and_row_limits(tmp_path, monkeypatch):
    path = tmp_path / "p.csv"
    _frame().to_csv(path, index=False)
    monkeypatch.setenv(MAX_BYTES_ENV, str(path.stat().st_size - 1))
    with pytest.raises(DataError, match=f"larger than the limit \\(set {MAX_BYTES_ENV}"):
        read_predictions(path)
    monkeypatch.delenv(MAX_BYTES_ENV)
    monkeypatch.setenv(MAX_ROWS_ENV, "19")
    with pytest.raises(DataError, match="more rows than the limit") as info:
        read_predictions(path)
    assert "<= 19 rows" in str(info.value)
    monkeypatch.setenv(MAX_ROWS_ENV, "20")
    assert len(read_predictions(path)) == 20


def test_parquet_footer_is_checked_before_decoding(tmp_path, monkeypatch):
    path = tmp_path / "p.parquet"
    frame = _frame(n_seq=50, length=200)
    frame.to_parquet(path, compression="zstd")
    monkeypatch.setenv(MAX_ROWS_ENV, "9999")
    with pytest.raises(DataError, match="more rows than the limit") as info:
        read_predictions(path)
    assert "10000 rows" in str(info.value)
    monkeypatch.delenv(MAX_ROWS_ENV)
    # compressed it is small, declared uncompressed it is larger than the byte limit
    monkeypatch.setenv(MAX_BYTES_ENV, str(path.stat().st_size + 100))
    with pytest.raises(DataError, match="larger than the limit once decompressed"):
        read_predictions(path)


def test_garbage_parquet_and_binary_csv_are_data_errors(tmp_path):
    (tmp_path / "g.parquet").write_bytes(b"PAR1" + bytes(range(256)) * 4 + b"PAR1")
    with pytest.raises(DataError, match="unreadable table"):
        read_predictions(tmp_path / "g.parquet")
    (tmp_path / "g.csv").write_bytes(b"\xff\xfe\x00\x01" * 50)
    with pytest.raises(DataError):
        read_predictions(tmp_path / "g.csv")


@pytest.mark.parametrize("content, fragment", [
    ("", "empty file"),
    ("DEEP", "nested too deeply"),
    ('{"split_seed": 0}', "not a sequence split file"),
    ("[1, 2]", "not a sequence split file"),
], ids=["empty", "deep", "keys", "list"])
def test_damaged_split_files(tmp_path, content, fragment):
    path = tmp_path / "split_0.json"
    path.write_text("[" * 100_000 + "]" * 100_000 if content == "DEEP" else content)
    with pytest.raises(SplitError, match=fragment) as info:
        load_split(path)
    assert str(path) in str(info.value)


def test_split_ids_must_be_strings(tmp_path):
    path = save_split(make_sequence_split(np.array([f"s{i}" for i in range(10)])), tmp_path)
    document = json.loads(path.read_text())
    document["test_seq_ids"] = [7]
    path.write_text(json.dumps(document))
    with pytest.raises(SplitError, match="test_seq_ids must be a list of strings"):
        load_split(path)


def test_run_metrics_json_must_be_an_object(tmp_path, capsys):
    metrics = tmp_path / "paper" / "M1" / "seed_42" / "M1_metrics.json"
    metrics.parent.mkdir(parents=True)
    metrics.write_text("[1, 2, 3]")
    err = _analyze_m1_m3(tmp_path, capsys)
    assert str(metrics) in err and "JSON object" in err


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300), st.sampled_from(["csv", "parquet", "csv_header"]))
def test_arbitrary_bytes_give_data_errors_only(tmp_path, data, kind):
    path = tmp_path / f"fuzz.{kind[:3] if kind.startswith('csv') else kind}"
    if kind == "csv_header":      # a valid header followed by garbage rows
        data = b"sample_idx,sequence_id,y_true,y_pred,abs_error\n" + data
    path.write_bytes(data)
    try:
        read_predictions(path)
    except DataError:
        pass


def test_read_table_keeps_only_the_asked_columns(tmp_path):
    path = tmp_path / "samples.parquet"
    pd.DataFrame({"sequence_id": ["a", "b"], "x": [1.0, 2.0]}).to_parquet(path)
    assert list(read_table(path, "samples", columns=lambda c: c == "sequence_id").columns) == ["sequence_id"]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_split_refuses_non_finite_samples_in_a_table_as_in_the_pickle_layout(tmp_path, capsys, bad):
    """Once a CSV table's samples were not read by ``split`` (only its sequence ids): a split of samples
    that ``train`` refuses was written. Both layouts now give the same refusal."""
    ids = np.repeat(["a", "b", "c"], 4)
    features = np.ones((ids.size, 5), dtype=np.float32)
    features[5, 2] = bad
    targets = np.linspace(-1, 1, ids.size).astype(np.float32)
    frame = pd.DataFrame(features, columns=[f"f{i}" for i in range(5)])
    frame.insert(0, "target", targets)
    frame.insert(0, "sequence_id", ids)
    frame.to_csv(tmp_path / "samples.csv", index=False)
    (tmp_path / "pkl").mkdir()
    for part, array in (("features", features), ("targets", targets), ("sequence_ids", ids)):
        (tmp_path / "pkl" / f"{part}_paper.pkl").write_bytes(pickle.dumps(array, protocol=5))
    for samples in (tmp_path / "samples.csv", tmp_path / "pkl"):
        err = _cli_error(["split", "--samples", str(samples), "--out", str(tmp_path / "out")], capsys)
        assert "field 'features': 1 sample(s) with NaN or infinite values (found first at sample 5)" in err, err
    assert not (tmp_path / "out").exists()
