"""Crash safety: a run killed at a random moment and resumed with --skip-existing ends with exactly
the files of an uninterrupted run, and never shows a partial file under a final name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runner_helpers import make_fold_dir, result_contents
from pipeline import kgrid
from pipeline.cli import run_main
from pipeline.fileio import Writer

ARGS = ["--engine", "python", "--no-progress", "--methods", "DAGFS", "VARIANCE", "LABELCORR"]


def _command(folds: Path, results: Path, *extra) -> list[str]:
    return [sys.executable, "-m", "pipeline.kgrid", *ARGS, "--data-dir", str(folds),
            "--results-dir", str(results), *extra]


def _all_final_files_complete(results: Path) -> None:
    for path in results.rglob("*_metrics.json"):
        json.loads(path.read_text())  # never a truncated JSON under a final name
    for path in results.rglob("*_ranking.csv"):
        assert path.read_text().endswith("\n")


@pytest.mark.parametrize("delay", [0.8, pytest.param(1.6, marks=pytest.mark.slow),  # later kills: make test
                                   pytest.param(2.4, marks=pytest.mark.slow)])
def test_sigkill_then_resume_equals_uninterrupted(tmp_path, delay):
    folds = make_fold_dir(tmp_path / "folds", n_folds=4, n_train=200, n_test=80, d=60)
    reference = tmp_path / "reference"
    assert run_main(kgrid.main, [*ARGS, "--data-dir", str(folds), "--results-dir", str(reference)]) == 0

    results = tmp_path / "killed"
    proc = subprocess.Popen(_command(folds, results), stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _all_final_files_complete(results)

    resumed = subprocess.run(_command(folds, results, "--skip-existing"), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert result_contents(results) == result_contents(reference)
    assert not [p for p in results.rglob("*") if p.name.endswith(".tmp") or p.name.endswith(".claim")]


def test_killed_worker_process_task_is_redone(tmp_path):
    """SIGKILL of the whole process group (driver and pool workers) mid-run, then resume."""
    folds = make_fold_dir(tmp_path / "folds", n_folds=4, n_train=200, n_test=80, d=60)
    reference = tmp_path / "reference"
    assert run_main(kgrid.main, [*ARGS, "--data-dir", str(folds), "--results-dir", str(reference)]) == 0
    results = tmp_path / "killed"
    proc = subprocess.Popen(_command(folds, results, "--executor", "process", "--jobs", "2"),
                            stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(2.0)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _all_final_files_complete(results)
    resumed = subprocess.run(_command(folds, results, "--skip-existing"), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert result_contents(results) == result_contents(reference)


def test_report_temporaries_of_dead_writers_are_removed_and_live_ones_kept(tmp_path):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    results = tmp_path / "res"
    results.mkdir()
    dead = Writer.parse(subprocess.run([sys.executable, "-c", "from pipeline.fileio import Writer; "
                                        "print(Writer.current())"], capture_output=True, text=True).stdout.strip())
    abandoned = results / f".failures.json.{dead}.abc.tmp"
    live = results / f".failures.json.{Writer.current()}.ghi.tmp"  # another run's, about to be renamed
    for path in (abandoned, live):
        path.write_text("{")
    assert run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(folds), "--results-dir", str(results)]) == 0
    assert not abandoned.exists()
    assert live.read_text() == "{"
