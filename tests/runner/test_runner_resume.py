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

ARGS = ["--engine", "python", "--no-progress", "--methods", "DAGFS", "VARIANCE", "LABELCORR"]


def _command(folds: Path, results: Path, *extra) -> list[str]:
    return [sys.executable, "-m", "pipeline.kgrid", *ARGS, "--data-dir", str(folds),
            "--results-dir", str(results), *extra]


def _all_final_files_complete(results: Path) -> None:
    for path in results.rglob("*_metrics.json"):
        json.loads(path.read_text())  # never a truncated JSON under a final name
    for path in results.rglob("*_ranking.csv"):
        assert path.read_text().endswith("\n")


@pytest.mark.parametrize("delay", [0.8, 1.6, 2.4])
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


def test_live_claim_blocks_a_second_run(tmp_path, capsys):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    results = tmp_path / "res"
    claim = results / "VARIANCE" / ".toy_fold0.claim"
    claim.parent.mkdir(parents=True)
    claim.write_text(json.dumps({"host": os.uname().nodename, "pid": os.getpid(), "started": time.time()}))
    code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(folds), "--results-dir", str(results)])
    assert code == 1
    assert "being computed by pid" in capsys.readouterr().err
    assert not (results / "VARIANCE" / "toy_fold0_kgrid_metrics.json").exists()
    claim.unlink()
    assert run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(folds), "--results-dir", str(results)]) == 0


def test_report_temporaries_of_a_killed_run_are_removed(tmp_path):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    results = tmp_path / "res"
    results.mkdir()
    (results / ".failures.json.def.tmp").write_text("{")
    assert run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(folds), "--results-dir", str(results)]) == 0
    assert not list(results.glob("*.tmp"))
