"""``python -m pipeline.results export`` and ``merge`` on real runs (issue 36, item 2).

The export's values are compared with every value of every metrics and reference file exactly
(Parquet read by pandas and by DuckDB, CSV read back with round-trip parsing); a merge of two runs
made separately gives the files of one run made with both; a task with other results in two
folders is a conflict that is reported and never overwritten unless asked.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from pipeline import report_api
from pipeline.cli import run_main
from pipeline.evaluation.metrics import METRICS
from pipeline.kgrid import main as kgrid_main
from pipeline.pgrid import main as pgrid_main
from pipeline.results.__main__ import main as results_main
from runner_helpers import make_fold_dir, python_plugin, result_contents

GRID_OPTIONS = ["--no-progress", "--k-max", "20", "--engine", "python"]


def _run(folds: Path, results: Path, methods: list[str], *extra: str) -> None:
    common = ["--data-dir", str(folds), "--results-dir", str(results), "--methods", *methods, *extra]
    kgrid_main([*common, *GRID_OPTIONS])
    pgrid_main([*common, "--no-progress", "--engine", "python"])


def _results_cli(*args: str) -> subprocess.CompletedProcess:
    """The command run in this process (as ``python -m pipeline.results`` runs it): exit code and output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run_main(results_main, [str(arg) for arg in args])
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Folds, one run of VARIANCE+LABELCORR, the same two methods run apart, and a run with a failing plug-in."""
    root = tmp_path_factory.mktemp("export_merge")
    folds = make_fold_dir(root / "folds", n_folds=2)
    both, variance, labelcorr = root / "both", root / "variance", root / "labelcorr"
    _run(folds, both, ["VARIANCE", "LABELCORR"])
    _run(folds, variance, ["VARIANCE"])
    _run(folds, labelcorr, ["LABELCORR"])
    failing = root / "failing"
    plugins = root / "plugins"
    python_plugin(plugins, "BROKEN", "raise RuntimeError('no ranking for ' + str(X.shape))")
    code = kgrid_main(["--data-dir", str(folds), "--results-dir", str(failing), "--methods", "VARIANCE", "BROKEN",
                       "--plugins", str(plugins), *GRID_OPTIONS])
    assert code != 0 and (failing / "failures.json").is_file()
    return {"folds": folds, "both": both, "variance": variance, "labelcorr": labelcorr, "failing": failing}


def _json_values(results: Path) -> dict[tuple, float | None]:
    """(variant, dataset, fold, grid, point, metric) -> value, read from the JSON files directly."""
    values = {}
    for path in results.glob("*/*_metrics.json"):
        record = json.loads(path.read_text())
        axis = record["k_values"] if record["grid_mode"] == "kgrid" else record["p_values"]
        for metric in METRICS:
            for point, value in zip(axis, record[metric]):
                values[(path.parent.name, record["dataset"], record["fold"], record["grid_mode"], float(point), metric)] = value
    for path in results.glob("_reference/*_all_features.json"):
        record = json.loads(path.read_text())
        for metric, value in record["metrics"].items():
            values[("_reference", record["dataset"], record["fold"], "all_features", None, metric)] = value
    return values


def _table_values(frame: pd.DataFrame) -> dict[tuple, float | None]:
    values = {}
    for row in frame.itertuples(index=False):
        point = None if pd.isna(row.point) else float(row.point)
        value = None if pd.isna(row.value) else float(row.value)
        values[(row.variant, row.dataset, int(row.fold), row.grid, point, row.metric)] = value
    return values


def test_parquet_and_csv_hold_exactly_the_values_of_the_json_files(runs, tmp_path):
    parquet, csv = tmp_path / "all.parquet", tmp_path / "all.csv"
    for target in (parquet, csv):
        done = _results_cli("export", runs["both"], "--to", target)
        assert done.returncode == 0, done.stderr
    expected = _json_values(runs["both"])
    from_parquet = pd.read_parquet(parquet)
    assert _table_values(from_parquet) == expected  # exact: no tolerance
    from_csv = pd.read_csv(csv, float_precision="round_trip", keep_default_na=False, na_values=[""])
    assert _table_values(from_csv) == expected
    assert {"method", "dataset", "fold", "grid", "point", "k", "metric", "value", "params", "engine",
            "method_code_sha256", "time_rank_seconds", "outcome"} <= set(from_parquet.columns)
    kgrid = from_parquet[from_parquet.grid == "kgrid"]
    assert (kgrid.k == kgrid.point).all()  # on the k-grid the point is the number of features
    pgrid = from_parquet[from_parquet.grid == "pgrid"]
    assert ((pgrid.point > 0) & (pgrid.point <= 0.5)).all() and (pgrid.k >= 1).all()
    # DuckDB reads both files as they are, with the same values
    sql = "SELECT count(*), sum(value), count(value) FROM '{}'"
    assert duckdb.sql(sql.format(parquet)).fetchall()[0] == duckdb.sql(sql.format(csv)).fetchall()[0]
    assert duckdb.sql(sql.format(parquet)).fetchall()[0][0] == len(expected)


def test_failed_tasks_are_rows_with_their_outcome_and_message(runs, tmp_path):
    target = tmp_path / "failing.csv"
    assert _results_cli("export", runs["failing"], "--to", target).returncode == 0
    table = pd.read_csv(target, keep_default_na=False, na_values=[""])
    failed = table[table.outcome == "failed"]
    assert sorted(failed.fold) == [0, 1] and set(failed.method) == {"BROKEN"}
    assert failed.value.isna().all() and failed.metric.isna().all()
    assert failed.message.str.contains("no ranking for").all()
    assert set(table[table.outcome != "failed"].method) == {"VARIANCE", "_reference"}


def test_export_refusals_name_the_problem(runs, tmp_path):
    command = [sys.executable, "-m", "pipeline.results", "export", str(runs["both"]), "--to", str(tmp_path / "t.xlsx")]
    unknown = subprocess.run(command, capture_output=True, text=True)  # the command itself, once
    assert unknown.returncode == 2 and ".parquet or .csv" in unknown.stderr
    missing = _results_cli("export", tmp_path / "nowhere", "--to", tmp_path / "t.csv")
    assert missing.returncode == 2 and "results folder not found" in missing.stderr
    assert not (tmp_path / "t.csv").exists()


def test_merging_two_runs_gives_the_files_of_one_run_with_both(runs, tmp_path):
    merged = tmp_path / "merged"
    done = _results_cli("merge", runs["variance"], runs["labelcorr"], "--into", merged)
    assert done.returncode == 0, done.stderr
    assert result_contents(merged) == result_contents(runs["both"])
    assert len(list((merged / "runs").glob("*.json"))) == 4  # each run's record travels with its results
    again = _results_cli("merge", runs["labelcorr"], "--into", merged)
    assert again.returncode == 0 and "0 task(s) copied" in again.stdout
    assert result_contents(merged) == result_contents(runs["both"])


def _with_other_variance(runs, tmp_path) -> Path:
    """A copy of the VARIANCE run whose fold-0 ranking and metrics are those of LABELCORR (other results)."""
    other = tmp_path / "other"
    shutil.copytree(runs["variance"], other)
    for suffix in ("_ranking.csv", "_scores.csv", "_kgrid_metrics.json", "_pgrid_metrics.json", "_ranking.json"):
        source = runs["labelcorr"] / "LABELCORR" / f"toy_fold0{suffix}"
        text = source.read_text().replace('"method": "LABELCORR"', '"method": "VARIANCE"')
        (other / "VARIANCE" / f"toy_fold0{suffix}").write_text(text)
    return other


def test_a_task_with_other_results_is_a_conflict_never_overwritten(runs, tmp_path):
    target = tmp_path / "target"
    shutil.copytree(runs["variance"], target)
    before = result_contents(target)
    other = _with_other_variance(runs, tmp_path)
    refused = _results_cli("merge", other, "--into", target)
    assert refused.returncode == 1
    assert "conflict VARIANCE/toy/fold0" in refused.stderr and "another ranking" in refused.stderr
    assert "nothing copied" in refused.stdout and result_contents(target) == before

    both = _results_cli("merge", other, "--into", target, "--on-conflict", "keep-both")
    assert both.returncode == 0, both.stderr
    assert {path: value for path, value in result_contents(target).items() if "__merged_1" not in path} == before
    tables = report_api.load_results(target, allow_incomplete=True)  # the kept copy is a method of the tables
    kept = tables[tables.method == "VARIANCE__merged_1"].drop(columns="method").reset_index(drop=True)
    theirs = report_api.load_results(other).query("fold == 0").drop(columns="method").reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, theirs, check_exact=True)


def test_keep_newest_keeps_the_task_written_last(runs, tmp_path):
    target = tmp_path / "target"
    shutil.copytree(runs["variance"], target)
    other = _with_other_variance(runs, tmp_path)  # written now: newer than the target's copy
    done = _results_cli("merge", other, "--into", target, "--on-conflict", "keep-newest")
    assert done.returncode == 0 and "1 replaced" in done.stdout
    assert result_contents(target) == result_contents(other)
    older = _results_cli("merge", runs["variance"], "--into", target, "--on-conflict", "keep-newest")
    assert older.returncode == 0 and "0 replaced" in older.stdout
    assert result_contents(target) == result_contents(other)


def test_results_of_other_settings_or_other_folds_are_refused(runs, tmp_path):
    other_settings = tmp_path / "k5"
    kgrid_main(["--data-dir", str(runs["folds"]), "--results-dir", str(other_settings), "--methods", "RANDOM",
                "--mlknn-k", "5", *GRID_OPTIONS])
    refused = _results_cli("merge", other_settings, "--into", tmp_path / "new", "--on-conflict", "keep-both")
    assert refused.returncode == 0  # a new folder takes any one run
    mixed = _results_cli("merge", runs["variance"], "--into", tmp_path / "new")
    assert mixed.returncode == 2 and "another settings (grid and ML-kNN)" in mixed.stderr
    other_folds = make_fold_dir(tmp_path / "folds2", n_folds=2, seed=1)
    moved = tmp_path / "other_folds"
    kgrid_main(["--data-dir", str(other_folds), "--results-dir", str(moved), "--methods", "RANDOM", *GRID_OPTIONS])
    clash = _results_cli("merge", moved, "--into", runs["variance"])
    assert clash.returncode == 2 and "another fold file" in clash.stderr
    assert not (runs["variance"] / "RANDOM").exists()
