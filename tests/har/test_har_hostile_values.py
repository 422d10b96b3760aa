"""Embeddings and windows whose numbers the classifiers cannot use are refused with one line (no
dimensions, non-finite, so large that distances or dot products overflow), and names that start
like a spreadsheet formula land in results_table.csv as text. Real files, the real command line."""

from __future__ import annotations

import csv
import sys

import numpy as np
import pytest

from pipeline.cli import run_main
from pipeline.fileio import atomic_write_json, csv_cell
from pipeline.protocols.har.cli import main


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A small .npz dataset: 40 windows of 120 x 6, two activities."""
    path = tmp_path_factory.mktemp("har") / "tiny.npz"
    rng = np.random.default_rng(0)
    np.savez(path, windows=rng.normal(size=(40, 120, 6)), labels=np.arange(40) % 2,
             activity_names=np.array(["sitting", "walking"]))
    return path


def _evaluate(dataset, embeddings, tmp_path, capsys) -> tuple[int, str]:
    path = tmp_path / "embeddings.npy"
    np.save(path, embeddings)
    code = run_main(main, ["evaluate", "--model", "x", "--dataset", str(dataset), "--embeddings", str(path),
                           "--epochs", "1", "--output-dir", str(tmp_path / "out")])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("embeddings, shown", [
    (np.zeros((40, 0)), "embeddings without values (expected at least one dimension per vector; found shape (40, 0))"),
    (np.zeros((40, 3, 0)), "embeddings without values"),
    (np.full((40, 4), 1e300), "value too large: distances and dot products over a vector could overflow "
                              "(expected |x| <= 2.37019e+153 = sqrt(realmax / (8 D)) for D = 4; found 1e+300)"),
    (np.full((40, 4), -np.inf), "embeddings contain NaN or infinite values"),
    (np.ones((40, 4)) * 1j, "embeddings must be a float array"),
])
def test_unusable_embeddings_are_refused_with_one_line(dataset, tmp_path, capsys, embeddings, shown):
    code, err = _evaluate(dataset, embeddings, tmp_path, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and shown in err, err
    assert err.startswith(f"error: {tmp_path / 'embeddings.npy'}"), err   # the file a user can fix
    assert "embeddings of model x" in err or shown == "embeddings must be a float array", err  # read, then checked
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_windows_near_realmax_are_refused(tmp_path, capsys):
    path = tmp_path / "huge.npz"
    windows = np.zeros((40, 120, 6))
    windows[3, 7, 2] = sys.float_info.max / 2
    np.savez(path, windows=windows, labels=np.arange(40) % 2, activity_names=np.array(["a", "b"]))
    code, err = _evaluate(path, np.ones((40, 4)), tmp_path, capsys)
    assert code == 2 and "field 'windows': window values too large" in err and "Traceback" not in err


def test_formula_names_are_text_in_the_csv_table(tmp_path, capsys):
    entry = {"applicable": True, "accuracy": 50.0, "f1_macro": 40.0, "f1_weighted": 45.0, "n_samples": 10,
             "n_train_samples": 2, "n_classes": 2}
    atomic_write_json(tmp_path / "in" / "a_b_evaluation.json",
                      {"schema_version": 1, "dataset": '=HYPERLINK("http://x","y")', "model": "@SUM(1)",
                       "metrics": {"linear_probe": entry}})
    assert run_main(main, ["table", "--input-dir", str(tmp_path / "in"), "--output-dir", str(tmp_path / "t")]) == 0
    rows = list(csv.reader((tmp_path / "t" / "results_table.csv").open()))
    cells = [cell for row in rows for cell in row]
    assert "'=HYPERLINK(\"http://x\",\"y\")" in cells and "'@SUM(1)" in cells
    assert not any(cell.startswith(("=", "@", "+")) for cell in cells)


@pytest.mark.parametrize("value, safe", [
    ("=1+1", "'=1+1"), ("+A1", "'+A1"), ("-A1", "'-A1"), ("@x", "'@x"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-0.25", "-0.25"), ("+3", "+3"), ("a=b", "a=b"), (-1.5, -1.5), ("", ""),
])
def test_csv_cell(value, safe):
    assert csv_cell(value) == safe
