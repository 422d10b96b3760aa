"""The paper as one declared, resumable command, end to end on real data.

A small suite (two datasets, two folds, three methods one of which with two seeds; both grids;
tables) runs on a private copy of the code, so the test can edit one method's source and check
that exactly that method's tasks become stale, are redone, and nothing else is. A run stopped
with Ctrl-C exits 130 without tables and the same command finishes exactly what was left.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from pipeline.cli import run_main
from pipeline.paper.__main__ import main

REPO = Path(__file__).resolve().parents[2]

SUITE = """
name: small
datasets: [emotions, yeast]
folds: {mode: holdout, count: 2, seed: 42, test_size: reference}
methods:
  DAGFS: {}
  LRMFS: {}
  SRFS: {seeds: [0, 1]}
engine: octave
grids:
  kgrid: {k_min: 10, k_max: 60, k_step: 10}
  pgrid: {p_target: 0.2}
run: {executor: process, jobs: 2}
tables: {ref_method: DAGFS, figures: false}
"""

pytestmark = pytest.mark.octave


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, shared_data):
    """A copy of the code (python/, matlab/) and a suite file; returns (folder, environment)."""
    home = tmp_path_factory.mktemp("paper")
    for part in ("python", "matlab"):
        # numba's compiled-function caches come along (they are checked against the sources' time
        # stamps, which copytree keeps): without them each worker of the run compiles ML-kNN again
        shutil.copytree(REPO / part, home / "code" / part, ignore=shutil.ignore_patterns("*.pyc"))
    (home / "suite.yaml").write_text(SUITE)
    env = {**os.environ, "PYTHONPATH": str(home / "code" / "python"), "MLFS_SHARED_DATA": str(shared_data)}
    return home, env


def paper(workspace, *args) -> subprocess.CompletedProcess:
    home, env = workspace
    return subprocess.run([sys.executable, "-m", "pipeline.paper", *args, str(home / "suite.yaml"), "--root",
                           str(home / "root")] + (["--no-progress"] if args[0] == "run" else []),
                          capture_output=True, text=True, env=env, cwd=home, timeout=900)


def test_run_resume_and_code_staleness(workspace):
    home, _ = workspace
    results = home / "root" / "results" / "small"
    first = paper(workspace, "run")
    assert first.returncode == 0, first.stderr
    assert "20 done, 0 skipped" in first.stderr      # 16 method tasks + the all-features reference of 4 folds
    reference = json.loads((results / "_reference" / "yeast_fold1_all_features.json").read_text())
    assert reference["n_features"] == 103 and reference["mlknn"] == {"num": 10, "smooth": 1.0}
    for mode in ("kgrid", "pgrid"):
        assert "kgrid tables: made" in first.stderr and f"{mode} tables: made" in first.stderr
        assert (home / "root" / "paper" / "tables" / mode / "report.md").is_file()
        datasets = (home / "root" / "paper" / "tables" / mode / "table_datasets.tex").read_text()
        assert "emotions & music & 593 & 72 & 6 & " in datasets and "yeast & biology (genes) & 2417 & 103 & 14 & " in datasets
        assert "\\input{table_datasets.tex}" in (home / "root" / "paper" / "tables" / mode / "main.tex").read_text()
        scores = (home / "root" / "paper" / "tables" / mode / "table_microf1.tex").read_text()
        assert "All features" in scores  # the reference column, from the _reference files of this run
    # one ranking per task scored on both grids, the union of their k values in one pass
    record = json.loads((results / "LRMFS" / "yeast_fold1_pgrid_metrics.json").read_text())
    assert record["k_values"] == [5, 10, 15, 21, 26, 31, 36, 41, 46, 52]
    ranking_record = json.loads((results / "LRMFS" / "yeast_fold1_ranking.json").read_text())
    assert ranking_record["code"]["sha256"] == record["provenance"]["code"]["method"]["sha256"]
    (run_record,) = [json.loads(p.read_text()) for p in (results / "runs").glob("*.json")]
    assert run_record["versions"]["octave"]["blas"] == ranking_record["versions"]["blas"]  # the BLAS is recorded
    averaged = json.loads((results / "SRFS" / "emotions_fold0_kgrid_metrics.json").read_text())
    assert averaged["seeds"] == [0, 1] and len(averaged["micro_f1_seed_std"]) == 6

    second = paper(workspace, "run")
    assert second.returncode == 0, second.stderr
    assert "0 done, 20 skipped" in second.stderr and "kgrid tables: up to date" in second.stderr
    assert "pgrid tables: up to date" in second.stderr

    source = home / "code" / "matlab" / "baselines" / "SRFS.m"
    # code: a local function (a comment would change no fingerprint)
    source.write_text(source.read_text() + "\nfunction edited_marker()\nend\n")
    status = paper(workspace, "status")
    assert status.returncode == 0, status.stderr
    stale = [line for line in status.stdout.splitlines() if line.startswith("stale")]
    assert len(stale) == 8 and all("SRFS__seed_" in line and "method code changed (baselines/SRFS.m)" in line
                                   for line in stale)
    assert "12 done, 0 missing, 8 stale, 0 failed of 20 tasks" in status.stdout

    third = paper(workspace, "run")
    assert third.returncode == 0, third.stderr
    assert "8 done, 12 skipped" in third.stderr
    assert "recomputed 8 stale task(s): method code changed (baselines/SRFS.m)" in third.stderr
    records = sorted((results / "runs").glob("*.json"))
    assert len(records) == 3 and json.loads(records[-1].read_text())["summary"]["done"] == 8


INTERRUPTED_SUITE = """
name: stopped
datasets: [yeast, scene]
folds: {mode: holdout, count: 3, seed: 42, test_size: reference}
methods: {DAGFS: {}, LSMFS: {}, GRRO: {}}
engine: python
grids: {kgrid: {k_min: 10, k_max: 60, k_step: 10}}
run: {executor: process, jobs: 2}
tables: {ref_method: DAGFS, figures: false}
"""


def test_ctrl_c_stops_the_paper_and_the_same_command_resumes_it(tmp_path, shared_data):
    suite = tmp_path / "suite.yaml"
    suite.write_text(INTERRUPTED_SUITE)
    command = [sys.executable, "-m", "pipeline.paper", "run", str(suite), "--root", str(tmp_path), "--no-progress"]
    env = {**os.environ, "MLFS_SHARED_DATA": str(shared_data)}
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    results = tmp_path / "results" / "stopped"
    deadline = time.monotonic() + 600
    while not list(results.glob("*/.*.claim")) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert run.poll() is None, "the run ended before any task started"
    workers = psutil.Process(run.pid).children(recursive=True)
    for _ in range(3):  # an impatient user
        run.send_signal(signal.SIGINT)
        time.sleep(0.05)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 130, err
    assert "Traceback" not in err and "interrupted by SIGINT" in err
    # every option given, as given (a run of one fold, with --folds 1, is resumed with --folds 1)
    assert f"resume with the same command (python -m pipeline.paper run {suite} --root {tmp_path} --no-progress)" \
        in err, err
    assert "--skip-existing" not in err  # which this command refuses
    assert not (tmp_path / "paper" / "tables").exists()  # no tables from a partial run
    _, alive = psutil.wait_procs(workers, timeout=60)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    stopped = [json.loads(p.read_text()) for p in (results / "runs").glob("*.json")]
    assert stopped[0]["summary"]["interrupted"] > 0

    resumed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    done = int(resumed.stderr.split(" done, ")[0].split()[-1])
    assert done == stopped[0]["summary"]["interrupted"]  # exactly the unfinished tasks
    assert "kgrid tables: made" in resumed.stderr


@pytest.mark.parametrize("content, fragment", [
    (b"name: x\n\xff\n", "cannot read suite file: not UTF-8 text"),
    (b"name: [x\n", "cannot parse suite file"),
    (b"#" * (2 << 20), "suite file too large (expected at most"),
])
@pytest.mark.parametrize("command", ["run", "status"])
def test_unreadable_suite_files_are_one_line_errors(tmp_path, capsys, content, fragment, command):
    suite = tmp_path / "suite.yaml"
    suite.write_bytes(content)
    assert run_main(main, [command, str(suite), "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and fragment in err, err


DEMO_SUITE = """
name: demo
datasets: [demo]
folds: {mode: holdout, count: 2, seed: 1, test_size: 0.2}
methods: {VARIANCE: {}}
engine: python
grids: {kgrid: {k_min: 5, k_max: 10, k_step: 5}}
tables: {ref_method: VARIANCE, figures: false}
"""


@pytest.mark.parametrize("command", ["status", "run"])
def test_fold_files_of_other_settings_or_an_unknown_dataset_are_refused_by_status_as_by_run(tmp_path, capsys,
                                                                                          command):
    suite = tmp_path / "suite.yaml"
    suite.write_text(DEMO_SUITE)
    assert run_main(main, ["run", str(suite), "--root", str(tmp_path), "--no-progress"]) == 0
    capsys.readouterr()
    suite.write_text(DEMO_SUITE.replace("seed: 1", "seed: 2"))  # the exported folds' sidecars say seed 1
    assert run_main(main, [command, str(suite), "--root", str(tmp_path)] + ["--no-progress"] * (command == "run")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fold0.json: fold file was made with other settings" in err, err
    suite.write_text(DEMO_SUITE.replace("[demo]", "[mine]"))  # neither fold files nor a registered dataset
    assert run_main(main, [command, str(suite), "--root", str(tmp_path)] + ["--no-progress"] * (command == "run")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a registered dataset that could be exported" in err and "mine" in err, err


def test_status_counts_a_task_the_last_run_stopped_before_the_end_as_missing_not_failed(tmp_path, capsys):
    suite = tmp_path / "suite.yaml"
    suite.write_text(DEMO_SUITE)
    assert run_main(main, ["run", str(suite), "--root", str(tmp_path), "--no-progress"]) == 0
    results = tmp_path / "results" / "demo"
    for made in (results / "VARIANCE").glob("demo_fold*"):  # neither task has results now
        made.unlink()
    (results / "failures.json").write_text(json.dumps({"failed": [  # as the runner writes it after a Ctrl-C
        {"task": "VARIANCE/demo/fold0", "status": "interrupted", "message": "did not finish: the run was interrupted"},
        {"task": "VARIANCE/demo/fold1", "status": "failed", "message": "ValueError: broken"}]}))
    capsys.readouterr()
    assert run_main(main, ["status", str(suite), "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "2 done, 1 missing, 0 stale, 1 failed of 4 tasks" in out, out
    assert "missing  VARIANCE/demo/fold0" in out and "failed   VARIANCE/demo/fold1: ValueError: broken" in out, out
