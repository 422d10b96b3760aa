"""The bad-input corpus through the k-grid front door: exit code 2, one precise line, no result file.

Conventions that are *not* errors (documented in docs/evaluation.md): a label column with no positive in a
fold is scored (ML-kNN's smoothed conditionals stay finite; macro-F1 counts that label as 0), and a
fold with fewer features than ``--k-min`` is evaluated at k = d.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.io
from hypothesis import HealthCheck, given, settings, strategies as st

from pipeline import kgrid
from pipeline.cli import run_main

GOOD = None


def _good_fold(rng, n_train=30, n_test=12, d=14, n_labels=3):
    X = rng.random((n_train + n_test, d))
    Y = (rng.random((n_train + n_test, n_labels)) > 0.6).astype(np.int8)
    return {"X_train": X[:n_train], "Y_train": Y[:n_train], "X_test": X[n_train:], "Y_test": Y[n_train:]}


def _run(folds, results, capsys, *extra):
    code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(folds), "--results-dir", str(results), *extra])
    return code, capsys.readouterr().err


def _corrupt(name, fold):
    fold = dict(fold)
    if name == "missing key":
        del fold["Y_test"]
    elif name == "misnamed key":
        fold["Xtrain"] = fold.pop("X_train")
    elif name == "row mismatch":
        fold["Y_train"] = fold["Y_train"][:-1]
    elif name == "nan feature":
        fold["X_train"] = fold["X_train"].copy()
        fold["X_train"][2, 3] = np.nan
    elif name == "inf feature":
        fold["X_test"] = fold["X_test"].copy()
        fold["X_test"][0, 0] = np.inf
    elif name == "labels 2":
        fold["Y_test"] = fold["Y_test"] * 2
    elif name == "labels -1/+1":
        fold["Y_train"] = fold["Y_train"] * 2 - 1
    elif name == "text variable":
        fold["X_train"] = "not numbers"
    return fold


@pytest.mark.parametrize("name,field,words", [
    ("missing key", "Y_test", "missing variable"), ("misnamed key", "X_train", "missing variable"),
    ("row mismatch", "Y_train", "row count"), ("nan feature", "X_train", "non-finite"),
    ("inf feature", "X_test", "non-finite"), ("labels 2", "Y_test", "0 or 1"),
    ("labels -1/+1", "Y_train", "0 or 1"), ("text variable", "X_train", "numeric")])
def test_malformed_fold_corpus(tmp_path, capsys, name, field, words):
    folds = tmp_path / "folds"
    (folds / "bad").mkdir(parents=True)
    scipy.io.savemat(folds / "bad" / "fold0.mat", _corrupt(name, _good_fold(np.random.default_rng(0))))
    code, err = _run(folds, tmp_path / "res", capsys)
    assert code == 2
    assert "bad/fold0.mat" in err and f"'{field}'" in err and words in err
    assert "Traceback" not in err
    assert not list((tmp_path / "res").rglob("*_ranking.csv"))
    assert not list((tmp_path / "res").rglob("*_metrics.json"))
    assert json.loads((tmp_path / "res" / "failures.json").read_text())["failed"][0]["error_type"] == "DataError"


@pytest.mark.parametrize("payload", [b"", b"\x00" * 300, b"MATLAB 5.0 MAT-file" + b"\x01" * 200, b"<html>404</html>"])
def test_truncated_or_non_mat_files(tmp_path, capsys, payload):
    folds = tmp_path / "folds"
    (folds / "bad").mkdir(parents=True)
    (folds / "bad" / "fold0.mat").write_bytes(payload)
    code, err = _run(folds, tmp_path / "res", capsys)
    assert code == 2 and "not a readable MATLAB .mat file" in err


def test_label_without_positives_and_small_d_are_scored(tmp_path, capsys):
    fold = _good_fold(np.random.default_rng(1), d=6)
    fold["Y_train"][:, 1] = 0
    fold["Y_test"][:, 1] = 0
    (tmp_path / "folds" / "edge").mkdir(parents=True)
    scipy.io.savemat(tmp_path / "folds" / "edge" / "fold0.mat", fold)
    code, err = _run(tmp_path / "folds", tmp_path / "res", capsys)
    assert code == 0, err
    record = json.loads((tmp_path / "res" / "VARIANCE" / "edge_fold0_kgrid_metrics.json").read_text())
    assert record["k_values"] == [6]
    assert all(np.isfinite(record[key][0]) for key in ("micro_f1", "macro_f1", "hamming_loss"))


_ARRAY_KEYS = st.sampled_from(["X_train", "Y_train", "X_test", "Y_test"])
_VALUES = st.sampled_from([np.nan, np.inf, -1.0, 2.0, 0.5, 1e308])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), key=_ARRAY_KEYS, value=_VALUES, drop_rows=st.integers(0, 2),
       transpose=st.booleans(), drop_key=st.booleans())
def test_random_malformed_folds_never_crash(tmp_path_factory, capsys, seed, key, value, drop_rows, transpose, drop_key):
    rng = np.random.default_rng(seed)
    fold = {k: v.astype(np.float64) for k, v in _good_fold(rng).items()}
    target = fold[key]
    target[rng.integers(target.shape[0]), rng.integers(target.shape[1])] = value
    if drop_rows:
        fold[key] = target[:-drop_rows]
    if transpose:
        fold[key] = fold[key].T
    if drop_key:
        del fold[key]
    root = tmp_path_factory.mktemp("fuzz")
    (root / "folds" / "x").mkdir(parents=True)
    scipy.io.savemat(root / "folds" / "x" / "fold0.mat", fold)
    code, err = _run(root / "folds", root / "res", capsys)
    assert code in (0, 2)
    assert "Traceback" not in err
    if code == 2:
        assert "x/fold0.mat" in err
        assert not list((root / "res").rglob("*_metrics.json"))
