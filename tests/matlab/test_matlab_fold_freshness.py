"""``run_suite`` checks the same fold hashes as the Python front door (docs/results-schema.md): a
ranking record names the fold's training part, a metrics file the fold file; a changed fold makes
them stale, on a real dataset's fold. So does a result file edited by hand, and the Python front
door finds the files run_suite wrote fresh (the same fields, the same definitions)."""

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

pytestmark = pytest.mark.octave

METHODS = ["VARIANCE", "LABELCORR"]


def run_suite(octave, folds, results, *options) -> dict:
    (summary,) = octave.call("run_suite", str(results), str(folds), ["emotions"], METHODS, "folds", 1.0,
                             "k_min", 10.0, "k_max", 30.0, "verbose", False, *options, nout=1)
    assert int(summary["failed"]) == 0
    return {"done": int(summary["done"]), "skipped": int(summary["skipped"])}


def modified_times(results, suffix) -> dict:
    return {m: (results / m / f"emotions_fold0_{suffix}").stat().st_mtime_ns for m in METHODS}


def test_run_suite_recomputes_what_a_changed_fold_invalidates(octave, real_folds, tmp_path):
    folds, results = tmp_path / "folds", tmp_path / "results"
    shutil.copytree(real_folds("emotions"), folds)
    fold_file = folds / "emotions" / "fold0.mat"
    assert run_suite(octave, folds, results) == {"done": 2, "skipped": 0}
    fold = load_fold(fold_file)
    for method in METHODS:   # the same values the Python front door records and checks
        record = json.loads((results / method / "emotions_fold0_ranking.json").read_text())
        assert record["training_sha256"] == training_sha256(fold.X_train, fold.Y_train)
        metrics = json.loads((results / method / "emotions_fold0_kgrid_metrics.json").read_text())
        assert metrics["provenance"]["fold_sha256"] == sha256_file(fold_file)
    assert run_suite(octave, folds, results, "skip_existing", True) == {"done": 0, "skipped": 2}

    # the test part cut to 30 rows: the rankings are reused, the metrics scored again
    rankings = modified_times(results, "ranking.csv")
    save_fold(fold_file, fold.X_train, fold.Y_train, fold.X_test[:30], fold.Y_test[:30])
    assert run_suite(octave, folds, results, "skip_existing", True) == {"done": 2, "skipped": 0}
    assert modified_times(results, "ranking.csv") == rankings
    assert all(json.loads((results / m / "emotions_fold0_kgrid_metrics.json").read_text())["n_test"] == 30
               for m in METHODS)

    # the training columns rescaled and permuted: the rankings are computed again
    order = np.random.default_rng(0).permutation(fold.n_features)
    save_fold(fold_file, 0.5 * fold.X_train[:, order], fold.Y_train, fold.X_test[:30, order], fold.Y_test[:30])
    assert run_suite(octave, folds, results, "skip_existing", True) == {"done": 2, "skipped": 0}
    assert all(modified_times(results, "ranking.csv")[m] > rankings[m] for m in METHODS)

    # a ranking record from before the hashes were recorded is not trusted
    path = results / "VARIANCE" / "emotions_fold0_ranking.json"
    record = json.loads(path.read_text())
    del record["training_sha256"]
    path.write_text(json.dumps(record))
    assert run_suite(octave, folds, results, "skip_existing", True) == {"done": 1, "skipped": 1}


def test_run_suite_recomputes_files_edited_by_hand_and_python_keeps_its_files(octave, real_folds, tmp_path, capsys):
    folds, results = real_folds("emotions"), tmp_path / "results"
    assert run_suite(octave, folds, results) == {"done": 2, "skipped": 0}
    ranking = results / "VARIANCE" / "emotions_fold0_ranking.csv"
    computed = ranking.read_bytes()
    ranking.write_bytes(b"".join(reversed(computed.splitlines(keepends=True))))
    metrics = results / "LABELCORR" / "emotions_fold0_kgrid_metrics.json"
    record = json.loads(metrics.read_text())
    record["micro_f1"][0] = 0.99
    metrics.write_text(dumps_json(record))
    assert run_suite(octave, folds, results, "skip_existing", True) == {"done": 2, "skipped": 0}
    assert ranking.read_bytes() == computed
    assert json.loads(metrics.read_text())["micro_f1"][0] != 0.99
    # the Python front door checks the same records: every method task is fresh (its own reference is new)
    assert run_main(kgrid.main, ["--engine", "octave", "--evaluator", "octave", "--no-progress", "--methods",
                                 *METHODS, "--k-min", "10", "--k-max", "30", "--data-dir", str(folds),
                                 "--results-dir", str(results), "--skip-existing"]) == 0
    assert "1 done, 2 skipped" in capsys.readouterr().err
