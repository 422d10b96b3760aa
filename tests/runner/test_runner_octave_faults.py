"""Faults with real GNU Octave and real process kills: one Octave per worker, a killed driver or a
killed Octave process never corrupts results, and a resumed run ends with the uninterrupted files.
Also the Dask executor against the serial one."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from runner_helpers import make_fold_dir, result_contents
from pipeline import kgrid
from pipeline.cli import run_main
from pipeline.engines.octave import shared_session
from pipeline.runner.executors import iter_outcomes
from pipeline.runner.run import RunSettings
from pipeline.runner.tasks import GridSpec, Task

pytestmark = pytest.mark.octave

OCTAVE_ARGS = ["--engine", "octave", "--evaluator", "octave", "--no-progress", "--methods", "VARIANCE", "LABELCORR"]


@pytest.fixture(scope="module")
def octave_folds(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("octave_folds")
    make_fold_dir(root, dataset="alpha", n_folds=3, n_train=500, n_test=150, d=70, seed=1)
    make_fold_dir(root, dataset="beta", n_folds=3, n_train=500, n_test=150, d=70, seed=2)
    return root


@pytest.fixture(scope="module")
def octave_reference(octave_folds, tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("octave_reference")
    assert run_main(kgrid.main, [*OCTAVE_ARGS, "--data-dir", str(octave_folds), "--results-dir", str(results)]) == 0
    return result_contents(results)


def _command(folds: Path, results: Path, *extra) -> list[str]:
    return [sys.executable, "-m", "pipeline.kgrid", *OCTAVE_ARGS, "--data-dir", str(folds),
            "--results-dir", str(results), *extra]


def _octave_children(pid: int) -> list[psutil.Process]:
    found = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if "octave" in child.name():
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def test_one_octave_process_serves_every_task_of_a_worker(octave_folds, tmp_path):
    settings = RunSettings(data_dir=str(octave_folds), results_dir=str(tmp_path), grids=(GridSpec(),),
                           engine="octave", evaluator="octave", engine_options={"timeout": 600.0})
    session = shared_session(600.0)
    session.close()  # another test may have left this process's shared session running
    before = session.starts
    tasks = [Task(m, d, f) for m in ("VARIANCE", "LABELCORR") for d in ("alpha", "beta") for f in (0, 1)]
    outcomes = list(iter_outcomes(tasks, settings))
    assert [o.status for o in outcomes] == ["done"] * 8
    assert session.starts - before == 1
    assert not session.running  # the workbench stops Octave when the run ends


def test_process_pool_with_octave_matches_serial(octave_folds, octave_reference, tmp_path):
    proc = subprocess.run(_command(octave_folds, tmp_path / "pool", "--executor", "process", "--jobs", "2"),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert result_contents(tmp_path / "pool") == octave_reference


def test_driver_killed_during_octave_run_then_resumed(octave_folds, octave_reference, tmp_path):
    results = tmp_path / "killed"
    proc = subprocess.Popen(_command(octave_folds, results), stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(4.0)
    for child in psutil.Process(proc.pid).children(recursive=True):
        try:
            child.kill()  # Octave dies with its driver, as on a real SIGKILL of the process group
        except psutil.NoSuchProcess:
            pass
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for path in results.rglob("*_metrics.json"):
        json.loads(path.read_text())
    resumed = subprocess.run(_command(octave_folds, results, "--skip-existing"), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert result_contents(results) == octave_reference


def test_octave_killed_from_outside_fails_one_task_then_resume_completes(octave_folds, octave_reference, tmp_path):
    results = tmp_path / "octave_killed"
    proc = subprocess.Popen(_command(octave_folds, results), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and time.monotonic() < deadline and proc.poll() is None:
        octaves = _octave_children(proc.pid)
        if octaves:
            time.sleep(1.5)  # let it start a task
            victim = octaves[0]
            try:
                victim.kill()
            except psutil.NoSuchProcess:
                victim = None  # it ended on its own (between tasks): pick the next one
        time.sleep(0.1)
    assert victim is not None, "Octave never started"
    _, err = proc.communicate(timeout=600)
    assert proc.returncode in (0, 1), err
    if proc.returncode == 1:
        failed = json.loads((results / "failures.json").read_text())["failed"]
        assert all(f["error_type"] == "EngineError" and "Octave" in f["message"] for f in failed)
    resumed = subprocess.run(_command(octave_folds, results, "--skip-existing"), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert result_contents(results) == octave_reference
    assert not (results / "failures.json").exists()


def test_dask_executor_matches_serial(tmp_path):
    folds = make_fold_dir(tmp_path / "folds", n_folds=2)
    args = ["--engine", "python", "--no-progress", "--methods", "DAGFS", "VARIANCE", "--data-dir", str(folds)]
    assert run_main(kgrid.main, [*args, "--results-dir", str(tmp_path / "serial")]) == 0
    assert run_main(kgrid.main, [*args, "--results-dir", str(tmp_path / "dask"), "--executor", "dask",
                                 "--jobs", "2"]) == 0
    assert result_contents(tmp_path / "serial") == result_contents(tmp_path / "dask")


def test_scheduler_needs_dask_executor(tmp_path, capsys):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE", "--data-dir",
                                 str(folds), "--results-dir", str(tmp_path / "r"), "--scheduler", "tcp://127.0.0.1:1"])
    assert code == 2 and "--scheduler needs --executor dask" in capsys.readouterr().err
