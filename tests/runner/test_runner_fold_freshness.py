"""Results name the data they were computed from (docs/results-schema.md): a ranking the SHA-256 of
the fold's training part, a metrics file the SHA-256 of the fold file. A fold whose content changed
makes them stale, with the reason, on a real dataset's fold; so does a result file edited by hand.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from pipeline import kgrid
from pipeline.cli import run_main
from pipeline.data.folds import load_fold, save_fold, sha256_file
from pipeline.fileio import dumps_json
from pipeline.runner.inner import training_sha256

METHODS = ["VARIANCE", "LABELCORR"]


@pytest.fixture
def folds(real_folds, tmp_path):
    """A copy of a real hold-out fold of emotions that a test may change."""
    copy = tmp_path / "folds"
    shutil.copytree(real_folds("emotions"), copy)
    return copy


def _kgrid(folds, results, capsys, *extra) -> str:
    code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", *METHODS, "--k-min", "10",
                                 "--k-max", "30", "--data-dir", str(folds), "--results-dir", str(results), *extra])
    err = capsys.readouterr().err
    assert code == 0, err
    return err


def _rewrite(path, change) -> None:
    """Save the fold with ``change(fold)`` -> (X_train, Y_train, X_test, Y_test)."""
    save_fold(path, *change(load_fold(path)))


def test_every_result_of_a_changed_fold_is_recomputed_with_its_reason(folds, tmp_path, capsys):
    results, fold_file = tmp_path / "res", folds / "emotions" / "fold0.mat"
    _kgrid(folds, results, capsys)
    fold = load_fold(fold_file)
    for method in METHODS:
        record = json.loads((results / method / "emotions_fold0_ranking.json").read_text())
        assert record["training_sha256"] == training_sha256(fold.X_train, fold.Y_train)
        metrics = json.loads((results / method / "emotions_fold0_kgrid_metrics.json").read_text())
        assert metrics["provenance"]["fold_sha256"] == sha256_file(fold_file)
    assert "0 done, 3 skipped" in _kgrid(folds, results, capsys, "--skip-existing")

    # the test part cut from 119 to 30 rows: the rankings stay (same training part), every score is redone
    rankings = {m: (results / m / "emotions_fold0_ranking.csv").stat().st_mtime_ns for m in METHODS}
    _rewrite(fold_file, lambda f: (f.X_train, f.Y_train, f.X_test[:30], f.Y_test[:30]))
    err = _kgrid(folds, results, capsys, "--skip-existing")
    assert "3 done, 0 skipped" in err and "recomputed 3 stale task(s): the fold file changed" in err
    assert rankings == {m: (results / m / "emotions_fold0_ranking.csv").stat().st_mtime_ns for m in METHODS}
    for method in [*METHODS, "_reference"]:
        name = "emotions_fold0_all_features.json" if method == "_reference" else "emotions_fold0_kgrid_metrics.json"
        assert json.loads((results / method / name).read_text())["n_test"] == 30

    # the training columns rescaled and permuted: every ranking is computed again
    order = np.random.default_rng(0).permutation(load_fold(fold_file).n_features)
    _rewrite(fold_file, lambda f: (0.5 * f.X_train[:, order], f.Y_train, f.X_test[:, order], f.Y_test))
    err = _kgrid(folds, results, capsys, "--skip-existing")
    assert "recomputed 2 stale task(s): the fold's training part changed" in err
    assert "recomputed 1 stale task(s): the fold file changed" in err  # the all-features reference
    assert "3 done, 0 skipped" in err
    fold = load_fold(fold_file)
    for method in METHODS:
        record = json.loads((results / method / "emotions_fold0_ranking.json").read_text())
        assert record["training_sha256"] == training_sha256(fold.X_train, fold.Y_train)
    assert "0 done, 3 skipped" in _kgrid(folds, results, capsys, "--skip-existing")


def test_a_ranking_that_does_not_name_its_training_part_is_stale(folds, tmp_path, capsys):
    """Records written before the hashes were recorded: nothing says which data they come from."""
    results = tmp_path / "res"
    _kgrid(folds, results, capsys)
    path = results / "VARIANCE" / "emotions_fold0_ranking.json"
    record = json.loads(path.read_text())
    del record["training_sha256"]
    path.write_text(json.dumps(record))
    metrics = results / "LABELCORR" / "emotions_fold0_kgrid_metrics.json"
    record = json.loads(metrics.read_text())
    del record["provenance"]["fold_sha256"]
    metrics.write_text(json.dumps(record))
    err = _kgrid(folds, results, capsys, "--skip-existing")
    assert "2 done, 1 skipped" in err
    assert "recomputed 2 stale task(s): made before fold hashes were recorded" in err


def test_result_files_edited_by_hand_are_recomputed(folds, tmp_path, capsys):
    results = tmp_path / "res"
    _kgrid(folds, results, capsys)
    ranking = results / "VARIANCE" / "emotions_fold0_ranking.csv"
    computed = ranking.read_bytes()
    ranking.write_bytes(b"".join(reversed(computed.splitlines(keepends=True))))   # a valid permutation still
    metrics = results / "LABELCORR" / "emotions_fold0_kgrid_metrics.json"
    record = json.loads(metrics.read_text())
    record["micro_f1"][0] = 0.99                       # written as the writer would, digest kept
    metrics.write_text(dumps_json(record))
    reference = results / "_reference" / "emotions_fold0_all_features.json"
    scored = json.loads(reference.read_text())
    reference.write_text(dumps_json({**scored, "metrics": {**scored["metrics"], "micro_f1": 0.99}}))
    err = _kgrid(folds, results, capsys, "--skip-existing")
    assert "3 done, 0 skipped" in err
    assert "recomputed 1 stale task(s): the ranking file differs from the one its record describes" in err
    assert "recomputed 2 stale task(s): the metrics file differs from its digest (edited after it was written)" in err
    assert ranking.read_bytes() == computed
    assert json.loads(metrics.read_text())["micro_f1"][0] != 0.99
    assert json.loads(reference.read_text())["metrics"] == scored["metrics"]
    assert "0 done, 3 skipped" in _kgrid(folds, results, capsys, "--skip-existing")
