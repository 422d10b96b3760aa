"""The all-features reference (docs/results-schema.md): one runner task per (dataset, fold), written once,
kept when fresh, redone when stale, and never taken for a method's folder."""

from __future__ import annotations

import json

import numpy as np
import pytest

from runner_helpers import result_contents
from pipeline import kgrid, pgrid, tables
from pipeline.aggregate import read_all_features
from pipeline.cli import run_main
from pipeline.data.folds import load_fold
from pipeline.errors import ConfigError
from pipeline.evaluation.metrics import METRICS, compute_all
from pipeline.evaluation.mlknn import MLkNN
from pipeline.fileio import atomic_write_json, dumps_json
from pipeline.results.digest import DIGEST_FIELD, with_digest
from pipeline.results.layout import REFERENCE_FOLDER
from pipeline.results.schema import read_all_features_file
from pipeline.runner.fingerprint import evaluator_fingerprint
from pipeline.runner.reference import reference_staleness
from pipeline.runner.tasks import Task

BASE = ["--engine", "python", "--no-progress", "--methods", "VARIANCE"]
KEYS = {"schema", "dataset", "fold", "n_features", "n_train", "n_test", "n_labels", "mlknn", "metrics",
        "time_eval_seconds", "provenance", "content_sha256"}


def _run(main, fold_dir, results, *extra):
    return run_main(main, [*BASE, "--data-dir", str(fold_dir), "--results-dir", str(results), *extra])


def test_reference_is_mlknn_on_every_feature_written_once_and_kept(fold_dir, tmp_path, capsys):
    results = tmp_path / "res"
    assert _run(kgrid.main, fold_dir, results) == 0
    assert "4 done, 0 skipped" in capsys.readouterr().err        # 2 folds x (VARIANCE + reference)
    for fold in (0, 1):
        path = results / "_reference" / f"toy_fold{fold}_all_features.json"
        raw = path.read_text()
        record = json.loads(raw)
        assert raw == dumps_json(record) and set(record) == KEYS
        assert record["schema"] == "all_features/1" and (record["dataset"], record["fold"]) == ("toy", fold)
        assert (record["n_features"], record["n_train"], record["n_test"], record["n_labels"]) == (25, 60, 30, 4)
        assert record["mlknn"] == {"num": 10, "smooth": 1.0} and set(record["metrics"]) == set(METRICS)
        provenance = record["provenance"]
        assert provenance["evaluator"] == "native" and provenance["code"]["evaluator"] == evaluator_fingerprint("native")
        assert len(provenance["fold_sha256"]) == 64 and provenance["ranking_sha256"] is None
        # an independent path: MLkNN fitted on all columns, then the metrics
        data = load_fold(fold_dir / "toy" / f"fold{fold}.mat")
        outputs = MLkNN().fit(data.X_train, data.Y_train).predict_proba(data.X_test)
        expected = compute_all(data.Y_test, outputs >= 0.5, outputs)
        assert record["metrics"] == {k: None if np.isnan(v) else v for k, v in expected.items()}
    first = result_contents(results)
    stamp = path.stat().st_mtime_ns
    assert _run(pgrid.main, fold_dir, results, "--skip-existing") == 0  # the other grid reuses it
    assert "2 done, 2 skipped" in capsys.readouterr().err
    assert path.stat().st_mtime_ns == stamp
    assert _run(kgrid.main, fold_dir, results, "--overwrite") == 0
    assert "4 done" in capsys.readouterr().err
    assert all(result_contents(results)[key] == value for key, value in first.items())


def rewrite(path, record: dict) -> None:
    """Write ``record`` as the writer would (with the digest of its content)."""
    atomic_write_json(path, with_digest({key: value for key, value in record.items() if key != DIGEST_FIELD}))


def test_reference_is_redone_when_stale_and_resumed_when_missing(fold_dir, tmp_path, capsys):
    results = tmp_path / "res"
    assert _run(kgrid.main, fold_dir, results) == 0
    capsys.readouterr()
    path = results / "_reference" / "toy_fold0_all_features.json"
    good = path.read_bytes()
    record = json.loads(good)
    record["provenance"]["code"]["evaluator"]["files"][0][1] = "0" * 64  # made by other evaluator code
    rewrite(path, record)
    (results / "_reference" / "toy_fold1_all_features.json").unlink()   # e.g. a run killed before it
    assert _run(kgrid.main, fold_dir, results, "--skip-existing") == 0
    err = capsys.readouterr().err
    assert "2 done, 2 skipped" in err
    logs = "".join(p.read_text() for p in (results / "runs").glob("*.log"))
    assert "_reference/toy/fold0 (evaluator code changed (" in logs
    assert "_reference/toy/fold1 (no metrics yet)" in logs
    assert json.loads(path.read_bytes())["metrics"] == json.loads(good)["metrics"]


def test_reference_staleness_reasons(fold_dir, tmp_path):
    results = tmp_path / "res"
    assert _run(kgrid.main, fold_dir, results) == 0
    path = results / "_reference" / "toy_fold0_all_features.json"
    fold_file, code = fold_dir / "toy" / "fold0.mat", evaluator_fingerprint("native")
    mlknn = {"num": 10, "smooth": 1.0}

    def reason(**settings):
        return reference_staleness(path, fold_file, settings.get("mlknn", mlknn), settings.get("evaluator", "native"),
                                   code, overwrite=settings.get("overwrite", False))

    assert reason() is None
    table = read_all_features(results, ["toy"], {"toy": [0]})
    written = json.loads(path.read_text())
    rewrite(path, {**written, "mlknn": {"k": 10, "smooth": 1.0}})  # as written before "num" was shared
    assert reason() is None and read_all_features_file(path).mlknn == mlknn
    assert read_all_features(results, ["toy"], {"toy": [0]}).equals(table)
    assert reason(evaluator="octave") == "scored by the native evaluator, this run uses octave"
    with pytest.raises(ConfigError, match="other settings"):
        reason(mlknn={"num": 5, "smooth": 1.0})
    assert reason(mlknn={"num": 5, "smooth": 1.0}, overwrite=True) == "other settings (--overwrite)"
    record = json.loads(path.read_text())
    atomic_write_json(path, {**record, "metrics": {**record["metrics"], "micro_f1": 0.5}})   # edited by hand
    assert reason() == "the metrics file differs from its digest (edited after it was written)"
    del record["metrics"]["coverage"]
    rewrite(path, record)
    assert reason() == "made before the evaluator computed coverage"
    path.write_text(path.read_text()[:50])
    assert reason() == "the reference file is partial or unreadable"


def test_reference_folder_is_no_method(fold_dir, tmp_path, capsys):
    results = tmp_path / "res"
    assert _run(kgrid.main, fold_dir, results, "--methods", "VARIANCE", "RANDOM") == 0
    out = tmp_path / "tables"
    # without --methods the tables list the method folders: _reference is not one of them
    argv = ["--results-dir", str(results), "--ref-method", "VARIANCE", "--out-dir", str(out), "--no-figures"]
    assert run_main(tables.main, argv) == 0
    assert json.loads((out / "stats_kgrid.json").read_text())["metrics"]["coverage"]["methods"] == ["RANDOM", "VARIANCE"]
    with pytest.raises(ConfigError, match="invalid method"):
        Task(REFERENCE_FOLDER, "toy", 0, label="x")
    with pytest.raises(ConfigError, match="invalid method"):
        Task("_other", "toy", 0)
