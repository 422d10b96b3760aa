"""Prediction files: validation of bad input, pairing by key, per-sequence and pooled metrics."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import r2_score

from pipeline.errors import DataError
from pipeline.protocols.steering.predictions import (aggregate_per_sequence, pair_predictions,
                                                     pooled_metrics, predictions_frame,
                                                     predictions_path, read_predictions,
                                                     write_predictions)


def _frame(seed=0, n_seq=4, length=25, noise=0.1):
    """Predictions of one model (``seed``) for the same samples every model sees."""
    ids = np.repeat([f"seq{i}" for i in range(n_seq)], length)
    truth = np.tanh(np.random.default_rng(99).normal(size=ids.size))
    noise = np.random.default_rng(seed).normal(0, noise, ids.size)
    return predictions_frame(np.arange(ids.size), ids, truth, truth + noise)


def _write(tmp_path, frame, name):
    return write_predictions(frame, tmp_path / name)


def test_write_read_round_trip_csv_and_parquet(tmp_path):
    frame = _frame()
    for suffix in ("csv", "parquet"):
        back = read_predictions(_write(tmp_path, frame, f"m.{suffix}"))
        pd.testing.assert_frame_equal(back, frame, check_like=False)
        assert back.attrs["source"].endswith(f"m.{suffix}")


def test_results_layout():
    path = predictions_path("results", "paper", "M3", 42)
    assert path.as_posix() == "results/paper/M3/seed_42/M3_predictions.csv"
    with pytest.raises(Exception, match="invalid model name"):
        predictions_path("results", "paper", "../M3", 42)


@pytest.mark.parametrize("mutate,message", [
    (lambda f: f.drop(columns=["y_pred"]), "missing columns"),
    (lambda f: f.assign(y_pred=f["y_pred"].where(f.index != 7)), "missing/NaN"),
    (lambda f: f.assign(sequence_id="only"), "too few sequences"),
    (lambda f: pd.concat([f, f.iloc[:1]]), "duplicated"),
    (lambda f: f.assign(abs_error=f["abs_error"] + 0.1), "abs_error differs"),
    (lambda f: f.assign(y_pred=f["y_pred"].where(f.index != 7, np.inf)), r"field 'y_pred': 1 infinite or too large "
     r"values \(first at data row 8\) \(expected finite values, \|x\| <= .*; found inf\)"),
    (lambda f: f.assign(y_true=1e300, y_pred=1e300, abs_error=0.0), "field 'y_true': 100 infinite or too large"),
])
def test_bad_prediction_files_name_the_file_and_problem(tmp_path, mutate, message):
    path = tmp_path / "bad_predictions.csv"
    mutate(_frame()).to_csv(path, index=False)
    with pytest.raises(DataError, match=message) as info:
        read_predictions(path)
    assert str(path) in str(info.value)


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="missing"):
        read_predictions(tmp_path / "nope.csv")


def test_pairing_uses_keys_not_row_positions(tmp_path):
    a, b = _frame(seed=1), _frame(seed=2)
    shuffled = b.sample(frac=1.0, random_state=0)
    paired = pair_predictions(read_predictions(_write(tmp_path, a, "a.csv")),
                              read_predictions(_write(tmp_path, b, "b.csv")))
    paired_shuffled = pair_predictions(read_predictions(_write(tmp_path, a, "a.csv")),
                                       read_predictions(_write(tmp_path, shuffled, "s.csv")))
    pd.testing.assert_frame_equal(paired, paired_shuffled)
    np.testing.assert_allclose(paired["error_b"], b["y_pred"] - b["y_true"])


def test_sequences_in_only_one_file_raise_unless_allowed(tmp_path):
    a = read_predictions(_write(tmp_path, _frame(seed=1), "a.csv"))
    b_frame = _frame(seed=2)
    b = read_predictions(_write(tmp_path, b_frame[b_frame["sequence_id"] != "seq3"], "b.csv"))
    with pytest.raises(DataError, match="only in this file") as info:
        pair_predictions(a, b)
    assert "a.csv" in str(info.value) and "seq3" in str(info.value)
    assert set(pair_predictions(a, b, allow_missing=True)["sequence_id"]) == {"seq0", "seq1", "seq2"}


def test_mismatched_samples_between_models_raise(tmp_path):
    a = read_predictions(_write(tmp_path, _frame(seed=1), "a.csv"))
    reindexed = _frame(seed=2).assign(sample_idx=lambda f: f["sample_idx"] + 1000)
    with pytest.raises(DataError, match="no partner"):
        pair_predictions(a, read_predictions(_write(tmp_path, reindexed, "b.csv")))
    reordered = _frame(seed=2)
    reordered["y_true"] = reordered["y_true"].to_numpy()[::-1]
    reordered["abs_error"] = (reordered["y_true"] - reordered["y_pred"]).abs()
    with pytest.raises(DataError, match="y_true differs"):
        pair_predictions(a, read_predictions(_write(tmp_path, reordered, "c.csv")))


def test_per_sequence_and_pooled_metrics():
    y_true = np.array([0.0, 0.0, 0.1, 0.2, 0.5, 0.5, 0.5])
    y_pred = np.array([0.05, -0.05, 0.3, 0.2, 0.5, 0.4, 0.6])
    frame = predictions_frame(np.arange(7), ["a"] * 4 + ["b"] * 3, y_true, y_pred)
    table = aggregate_per_sequence(frame).set_index("sequence_id")
    err_a = y_pred[:4] - y_true[:4]
    assert table.loc["a", "n_samples"] == 4
    assert table.loc["a", "mae"] == pytest.approx(np.mean(np.abs(err_a)))
    assert table.loc["a", "rmse"] == pytest.approx(np.sqrt(np.mean(err_a ** 2)))
    assert table.loc["a", "accuracy"] == pytest.approx(75.0)        # |e| = 0.05 counts (inclusive)
    assert table.loc["a", "r2"] == pytest.approx(r2_score(y_true[:4], y_pred[:4]))
    assert np.isnan(table.loc["b", "r2"])                            # constant targets
    pooled = pooled_metrics(frame)
    assert pooled["r2"] == pytest.approx(r2_score(y_true, y_pred))
    assert pooled["accuracy"] == pytest.approx(100 * 4 / 7)
    assert pooled["rmse"] == pytest.approx(np.sqrt(np.mean((y_pred - y_true) ** 2)))
