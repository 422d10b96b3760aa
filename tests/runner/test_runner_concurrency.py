"""Concurrent runs on one results folder (real processes): a task another run holds is waited
for, then counted done elsewhere or computed if that run gave up; without --skip-existing a result
another run completed meanwhile is not recomputed; with --skip-existing every task is computed
exactly once; light runs started together never break each other; a corrupt claim
never blocks. The guarantees are written in docs/reliability.md."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from runner_helpers import kgrid_command, make_fold_dir, result_contents, running_claims, summary_counts, wait_until
from pipeline import kgrid
from pipeline.cli import run_main

ARGS = ["--engine", "python", "--methods", "VARIANCE", "LABELCORR", "DAGFS"]
# Holds the claim of VARIANCE/toy/fold0 in a separate process; after "go" on stdin either gives the
# task up or computes it (through the runner's task body, as a run holding the claim would).
HOLDER = """
import sys
from pipeline.results.layout import claim_path
from pipeline.runner.claims import TaskClaim
from pipeline.runner.run import RunSettings, Workbench, _run
from pipeline.runner.tasks import GridSpec, Task
folds, results, finish, method, fold = sys.argv[1:6]
task = Task(method, "toy", int(fold))
settings = RunSettings(data_dir=folds, results_dir=results, grids=(GridSpec(),))
with TaskClaim(claim_path(results, task.folder, task.dataset, task.fold)) as claim:
    assert claim.acquired
    print("held", flush=True)
    sys.stdin.readline()
    if finish == "computes":
        _run(task, settings, Workbench(settings))
"""


@pytest.fixture(scope="module")
def folds(tmp_path_factory) -> Path:
    return make_fold_dir(tmp_path_factory.mktemp("folds"), n_folds=4)


@pytest.fixture(scope="module")
def reference(folds, tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("reference")
    assert run_main(kgrid.main, [*ARGS, "--no-progress", "--data-dir", str(folds), "--results-dir", str(results)]) == 0
    return result_contents(results)


def _hold(folds: Path, results: Path, finish: str, method: str = "VARIANCE", fold: int = 0) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folds), str(results), finish, method, str(fold)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


@pytest.mark.parametrize("finish,extra,expected", [
    ("gives up", [], {"done": 16, "done elsewhere": 0}),  # 4 folds x (3 methods + the all-features reference)
    pytest.param("computes", [], {"done": 15, "done elsewhere": 1}, marks=pytest.mark.slow),  # ~8 s each: make test
    pytest.param("computes", ["--skip-existing"], {"done": 15, "done elsewhere": 1}, marks=pytest.mark.slow),
])
def test_task_held_by_another_run_is_waited_for(folds, reference, tmp_path, finish, extra, expected):
    results = tmp_path / "res"
    holder = _hold(folds, results, finish)
    run = subprocess.Popen(kgrid_command(folds, results, *ARGS, *extra), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    waiting = run.stderr.readline()  # the run reaches the held task, then waits for it
    assert "waiting for 1 task(s) that another run is computing" in waiting
    holder.communicate("go\n", timeout=120)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert summary_counts(err) == {"skipped": 0, "failed": 0, "interrupted": 0, **expected}
    assert result_contents(results) == reference


def _compute_elsewhere(folds: Path, results: Path, fold: int) -> None:
    """Another run computes DAGFS/toy/fold<fold> to the end (claim taken and released)."""
    holder = _hold(folds, results, "computes", "DAGFS", fold)
    holder.communicate("go\n", timeout=120)
    assert holder.returncode == 0


@pytest.mark.slow  # two runs racing on held claims (~16 s); the other claim tests stay in the fast lane
def test_without_skip_existing_a_result_finished_elsewhere_meanwhile_is_not_recomputed(tmp_path):
    folds = make_fold_dir(tmp_path / "folds", n_folds=6, n_train=400, n_test=100, d=100)
    reference = tmp_path / "reference"
    assert run_main(kgrid.main, ["--engine", "python", "--methods", "DAGFS", "--no-progress",
                                 "--data-dir", str(folds), "--results-dir", str(reference)]) == 0
    results = tmp_path / "res"
    _compute_elsewhere(folds, results, 1)  # finished before the run starts: recomputed
    before = (results / "DAGFS" / "toy_fold1_kgrid_metrics.json").stat().st_mtime_ns
    run = subprocess.Popen(kgrid_command(folds, results, "--engine", "python", "--methods", "DAGFS"),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: running_claims(results), "a task started", run)
    os.kill(run.pid, signal.SIGSTOP)  # while the run is paused, another one completes its last task
    try:
        _compute_elsewhere(folds, results, 5)
    finally:
        os.kill(run.pid, signal.SIGCONT)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert "waiting for" not in err  # the task was complete when the run reached it, not held
    assert summary_counts(err) == {"done": 11, "skipped": 0, "done elsewhere": 1, "failed": 0, "interrupted": 0}
    assert (results / "DAGFS" / "toy_fold1_kgrid_metrics.json").stat().st_mtime_ns > before
    assert result_contents(results) == result_contents(reference)


def _run_together(folds: Path, results: Path, count: int, *extra: str) -> list[subprocess.CompletedProcess]:
    runs = [subprocess.Popen(kgrid_command(folds, results, *ARGS, *extra), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True) for _ in range(count)]
    return [subprocess.CompletedProcess(run.args, run.wait(timeout=600), None, run.stderr.read()) for run in runs]


@pytest.mark.slow  # three runs at once (~6 s); the held-claim test that gives up stays in the fast lane
def test_concurrent_runs_with_skip_existing_compute_each_task_once(folds, reference, tmp_path):
    results = tmp_path / "res"
    runs = _run_together(folds, results, 2, "--skip-existing")
    assert [run.returncode for run in runs] == [0, 0], [run.stderr for run in runs]
    counts = [summary_counts(run.stderr) for run in runs]
    assert sum(c["done"] for c in counts) == 16
    assert all(c["done"] + c["done elsewhere"] + c["skipped"] == 16 for c in counts)
    assert result_contents(results) == reference


@pytest.mark.slow  # several runs at once (~10 s)
def test_light_runs_started_together_never_break_each_other(folds, reference, tmp_path):
    results = tmp_path / "res"
    runs = _run_together(folds, results, 4)
    assert [run.returncode for run in runs] == [0] * 4, [run.stderr for run in runs]
    assert not any("Traceback" in run.stderr for run in runs)
    assert result_contents(results) == reference
    assert not [p for p in results.rglob("*") if p.name.endswith((".tmp", ".claim"))]


def test_empty_claim_left_by_a_crash_does_not_block(folds, tmp_path, capsys):
    results = tmp_path / "res"
    (results / "VARIANCE").mkdir(parents=True)
    (results / "VARIANCE" / ".toy_fold0.claim").write_text("")
    assert run_main(kgrid.main, [*ARGS, "--no-progress", "--data-dir", str(folds), "--results-dir", str(results)]) == 0
    assert summary_counts(capsys.readouterr().err)["done"] == 16
    assert json.loads((results / "VARIANCE" / "toy_fold0_kgrid_metrics.json").read_text())["fold"] == 0
