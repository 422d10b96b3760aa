"""The k-grid / p-grid / evaluate front doors end to end on small real fold files (Python engine)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from runner_helpers import make_fold_dir, result_contents
from pipeline import evaluate, kgrid, pgrid
from pipeline.cli import run_main
from pipeline.evaluation.metrics import METRICS

BASE = ["--engine", "python", "--no-progress"]


def _kgrid(fold_dir, results, *extra):
    return run_main(kgrid.main, [*BASE, "--data-dir", str(fold_dir), "--results-dir", str(results),
                                 "--methods", "DAGFS", "VARIANCE", "RANDOM", *extra])


def test_kgrid_writes_schema_files(fold_dir, tmp_path):
    results = tmp_path / "res"
    assert _kgrid(fold_dir, results) == 0
    for method in ("DAGFS", "VARIANCE", "RANDOM"):
        for fold in (0, 1):
            ranking = (results / method / f"toy_fold{fold}_ranking.csv").read_text().split()
            assert sorted(map(int, ranking)) == list(range(1, 26))
            float((results / method / f"toy_fold{fold}_time.txt").read_text())
            record = json.loads((results / method / f"toy_fold{fold}_kgrid_metrics.json").read_text())
            assert record["grid_mode"] == "kgrid" and record["k_values"] == [10, 20]
            assert record["method"] == method and record["dataset"] == "toy" and record["fold"] == fold
            assert record["mlknn"] == {"num": 10, "smooth": 1.0}
            assert (record["n_features"], record["n_labels"], record["n_train"], record["n_test"]) == (25, 4, 60, 30)
            for key in METRICS:
                assert len(record[key]) == 2
                assert record[f"{key}_mean"] == pytest.approx(np.mean(record[key]))
            assert 0 <= min(record["hamming_loss"]) and max(record["micro_f1"]) <= 1
            assert len(record["provenance"]["fold_sha256"]) == 64
    (record_path,) = (results / "runs").glob("*.json")
    manifest = json.loads(record_path.read_text())
    assert manifest["finished"] and manifest["summary"] == {
        "done": 8, "skipped": 0, "done_elsewhere": 0, "out_of_budget": 0, "failed": 0, "interrupted": 0,  # 2 folds:
        # 3 methods + reference
        "computed_because": {"no ranking yet": 6, "no metrics yet": 2}, "degenerate_tasks": 0,
        "warned_tasks": 0, "numerical_warnings": 0}
    assert manifest["versions"]["numpy"] == np.__version__ and manifest["git"]["commit"]
    log = (results / "runs" / manifest["log"]).read_text()
    assert log.count(" done ") == 8 and "DAGFS/toy/fold0 (no ranking yet)" in log
    assert json.loads((results / "DAGFS" / "toy_fold0_kgrid_metrics.json").read_text())["params"]["alpha"] == 0.1


def test_skip_existing_keeps_files_and_overwrite_recomputes(fold_dir, tmp_path, capsys):
    results = tmp_path / "res"
    assert _kgrid(fold_dir, results) == 0
    first = result_contents(results)
    metrics = results / "DAGFS" / "toy_fold0_kgrid_metrics.json"
    stamp = metrics.stat().st_mtime_ns
    assert _kgrid(fold_dir, results, "--skip-existing") == 0
    assert "0 done, 8 skipped" in capsys.readouterr().err
    assert metrics.stat().st_mtime_ns == stamp
    metrics.write_text(metrics.read_text()[:100])  # a truncated file is not complete: recomputed
    assert _kgrid(fold_dir, results, "--skip-existing") == 0
    assert "1 done, 7 skipped" in capsys.readouterr().err
    assert _kgrid(fold_dir, results, "--overwrite") == 0
    assert "8 done" in capsys.readouterr().err
    assert result_contents(results) == first


def test_other_settings_are_not_silently_mixed(fold_dir, tmp_path, capsys):
    results = tmp_path / "res"
    assert _kgrid(fold_dir, results) == 0
    assert _kgrid(fold_dir, results, "--skip-existing", "--mlknn-k", "5") == 2
    assert "other settings" in capsys.readouterr().err


def test_pgrid_records_p_target(fold_dir, tmp_path):
    results = tmp_path / "res"
    code = run_main(pgrid.main, [*BASE, "--data-dir", str(fold_dir), "--results-dir", str(results),
                                 "--methods", "VARIANCE", "--folds", "1"])
    assert code == 0
    record = json.loads((results / "VARIANCE" / "toy_fold0_pgrid_metrics.json").read_text())
    assert record["p_values"][2] == 0.15000000000000002
    assert record["k_values"] == [1, 2, 4, 5, 6, 8, 9, 10, 11, 12]  # round-half-even of p·25
    assert record["p_target_used"] == 0.2
    assert record["micro_f1_at_p_target"] == record["micro_f1"][3]


def test_evaluate_scores_external_rankings(fold_dir, tmp_path, capsys):
    results = tmp_path / "res"
    assert _kgrid(fold_dir, results) == 0
    external = tmp_path / "ext"
    (external / "MINE").mkdir(parents=True)
    for fold in (0, 1):
        (external / "MINE" / f"toy_fold{fold}_ranking.csv").write_text(
            (results / "VARIANCE" / f"toy_fold{fold}_ranking.csv").read_text())
    assert run_main(evaluate.main, ["--no-progress", "--data-dir", str(fold_dir), "--results-dir",
                                    str(external), "--methods", "MINE"]) == 0
    ours = json.loads((results / "VARIANCE" / "toy_fold1_kgrid_metrics.json").read_text())
    theirs = json.loads((external / "MINE" / "toy_fold1_kgrid_metrics.json").read_text())
    assert all(ours[key] == theirs[key] for key in METRICS)
    (external / "MINE" / "toy_fold0_ranking.csv").write_text("".join(f"{i}\n" for i in range(25)))
    assert run_main(evaluate.main, ["--no-progress", "--data-dir", str(fold_dir), "--results-dir",
                                    str(external), "--methods", "MINE", "--overwrite"]) == 2
    assert "0-based" in capsys.readouterr().err
    failures = json.loads((external / "failures.json").read_text())["failed"]
    assert [f["task"] for f in failures] == ["MINE/toy/fold0"]


@pytest.mark.parametrize("args,message", [
    (["--methods", "NOPE"], "unknown method 'NOPE'"),
    (["--methods", "DAGFS", "--datasets", "../etc"], "invalid dataset name"),
    (["--methods", "../x"], "invalid method name"),
    (["--methods", "DAGFS", "--folds", "7"], "fold files missing"),
    (["--methods", "DAGFS", "--k-min", "0"], "field '--k-min': out of range (expected a number in [1, 1000000]"),
])
def test_user_errors_exit_2_with_one_line(fold_dir, tmp_path, capsys, args, message):
    """In this process, through the entry point ``python -m pipeline.kgrid`` calls (a real process
    refusing its input: tests/shared/test_hostile_documents.py, test_hostile_cases_as_real_processes)."""
    code = run_main(kgrid.main, [*BASE, "--data-dir", str(fold_dir), "--results-dir", str(tmp_path / "res"), *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and err.startswith("error: ") and err.count("\n") == 1, err
    assert not list((tmp_path / "res").rglob("*.csv"))


def test_bad_fold_and_too_small_fold_leave_no_result(tmp_path, capsys):
    folds = make_fold_dir(tmp_path / "folds", dataset="small", n_folds=1, n_train=8, n_test=5)
    (folds / "broken").mkdir()
    (folds / "broken" / "fold0.mat").write_bytes(b"MATLAB 5.0 MAT-file, truncated")
    results = tmp_path / "res"
    code = run_main(kgrid.main, [*BASE, "--data-dir", str(folds), "--results-dir", str(results),
                                 "--methods", "VARIANCE"])
    assert code == 2  # the fold ML-kNN cannot score is refused before any task, in one line
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "small/fold0.mat, field 'X_train'" in err and "n_train > 10" in err
    assert not results.exists()
    code = run_main(kgrid.main, [*BASE, "--data-dir", str(folds), "--results-dir", str(results),
                                 "--methods", "VARIANCE", "--datasets", "broken"])
    assert code == 2  # an unreadable fold fails its own tasks
    assert "broken/fold0.mat" in capsys.readouterr().err
    assert not list(results.rglob("*.csv")) and not list(results.rglob("*_metrics.json"))


def test_process_executor_matches_serial(fold_dir, tmp_path):
    assert _kgrid(fold_dir, tmp_path / "serial") == 0
    assert _kgrid(fold_dir, tmp_path / "pool", "--executor", "process", "--jobs", "2") == 0
    assert result_contents(tmp_path / "serial") == result_contents(tmp_path / "pool")


def test_help_explains(capsys):
    with pytest.raises(SystemExit) as info:
        kgrid.main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "--skip-existing" in text and "Exit codes" in text and "--engine" in text


def test_params_file_overrides_and_sweeps(fold_dir, tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("DAGFS:\n  alpha: [0.05, 0.2]\n  max_iter: 5\nRANDOM:\n  seed: 3\n")
    results = tmp_path / "res"
    code = run_main(kgrid.main, [*BASE, "--data-dir", str(fold_dir), "--results-dir", str(results),
                                 "--methods", "DAGFS", "RANDOM", "--folds", "1", "--params", str(params)])
    assert code == 0
    assert sorted(p.name for p in results.iterdir() if p.is_dir() and p.name != "runs") == [
        "DAGFS__alpha_0.05", "DAGFS__alpha_0.2", "RANDOM", "_reference"]
    record = json.loads((results / "DAGFS__alpha_0.2" / "toy_fold0_kgrid_metrics.json").read_text())
    assert record["params"]["alpha"] == 0.2 and record["params"]["max_iter"] == 5
    assert record["method"] == "DAGFS__alpha_0.2"
    assert json.loads((results / "RANDOM" / "toy_fold0_kgrid_metrics.json").read_text())["params"] == {"seed": 3}


@pytest.mark.parametrize("text,message", [
    ('{"DAGFS": {"alpah": 1}}', "unknown parameter"),
    ('{"NOPE": {}}', "field 'NOPE': parameters of a method this run does not run"),
    ('[1, 2]', "must map method names"),
    ('{"DAGFS": {"alpha": []}}', "empty value list"),
    ('{"DAGFS": ', "cannot parse"),
])
def test_bad_params_files(fold_dir, tmp_path, capsys, text, message):
    params = tmp_path / "p.json"
    params.write_text(text)
    code = run_main(kgrid.main, [*BASE, "--data-dir", str(fold_dir), "--results-dir", str(tmp_path / "r"),
                                 "--methods", "DAGFS", "--params", str(params)])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_evaluate_defaults_to_what_has_rankings(tmp_path, capsys):
    """Without --datasets, only (dataset, fold) pairs with a ranking are scored; nothing fails."""
    folds = make_fold_dir(tmp_path / "folds", dataset="toy", n_folds=2)
    make_fold_dir(folds, dataset="other", n_folds=2, seed=1)
    external = tmp_path / "external"
    (external / "MINE").mkdir(parents=True)
    (external / "MINE" / "toy_fold1_ranking.csv").write_text("".join(f"{i}\n" for i in range(25, 0, -1)))
    assert run_main(evaluate.main, ["--no-progress", "--data-dir", str(folds), "--results-dir", str(external),
                                    "--methods", "MINE"]) == 0
    assert "1 done, 0 skipped, 0 done elsewhere, 0 failed" in capsys.readouterr().err
    assert sorted(p.name for p in (external / "MINE").glob("*_metrics.json")) == ["toy_fold1_kgrid_metrics.json"]
    assert run_main(evaluate.main, ["--no-progress", "--data-dir", str(folds), "--results-dir", str(external),
                                    "--methods", "MINE", "--datasets", "other"]) == 2  # named: a missing ranking fails
    (empty := tmp_path / "empty" / "NONE").mkdir(parents=True)
    assert run_main(evaluate.main, ["--no-progress", "--data-dir", str(folds), "--results-dir", str(empty.parent),
                                    "--methods", "NONE"]) == 2
    assert "no ranking to score" in capsys.readouterr().err


def test_pgrid_into_the_kgrid_folder_reuses_its_rankings(fold_dir, tmp_path, capsys):
    """The README's step-by-step use: the p-grid scores the k-grid's rankings, it does not recompute them."""
    results = tmp_path / "res"
    assert _kgrid(fold_dir, results, "--skip-existing") == 0
    made = {path: path.read_bytes() for path in results.glob("*/*") if not path.name.endswith("_metrics.json")}
    stamps = {path: path.stat().st_mtime_ns for path in made}
    capsys.readouterr()
    assert run_main(pgrid.main, [*BASE, "--data-dir", str(fold_dir), "--results-dir", str(results), "--skip-existing",
                                 "--methods", "DAGFS", "VARIANCE", "RANDOM"]) == 0
    assert "6 done, 2 skipped" in capsys.readouterr().err  # the all-features reference is kept
    assert {path: path.read_bytes() for path in made} == made  # rankings, scores, records and times untouched
    assert {path: path.stat().st_mtime_ns for path in made} == stamps
    assert len(list(results.glob("*/toy_fold*_pgrid_metrics.json"))) == 6
    log = sorted((results / "runs").glob("*.log"))[-1]  # the p-grid run's
    assert "no metrics yet" in log.read_text() and "no ranking yet" not in log.read_text()
