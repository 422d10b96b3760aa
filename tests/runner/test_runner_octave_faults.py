"""Faults with real GNU Octave and real signals: one Octave per worker and no scratch folder left,
Ctrl-C during an Octave call and a killed driver taking its Octave processes along (serial, process
and Dask executors), a killed Octave
failing one task, two Octave runs sharing one results folder, and resumed runs ending with the
uninterrupted files. Also the Dask executor
against the serial one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from runner_helpers import (alive, descendants, kgrid_command, make_fold_dir, record_calls, result_contents,
                            running_claims, scratch_dirs_of, summary_counts, survivors, wait_until)
from pipeline import kgrid
from pipeline.cli import run_main
from pipeline.engines.octave import OctaveSession
from pipeline.fileio import remove_abandoned_scratch_dirs
from pipeline.runner.executors import run_all
from pipeline.runner.run import RunSettings
from pipeline.runner.tasks import GridSpec, Task

pytestmark = pytest.mark.octave

OCTAVE_ARGS = ["--engine", "octave", "--evaluator", "octave", "--methods", "VARIANCE", "LABELCORR"]
FIXTURES = Path(__file__).resolve().parents[1] / "matlab" / "fixtures"
# Registers HANG, a method calling MLFS_TEST_HANG, which never returns (only a signal ends it), in
# every Python process of a run: as sitecustomize, also in the Dask workers, which are not forks.
HANG_SITE = f"""
import pipeline.methods as methods
from pipeline.methods.base import MethodSpec
methods._REGISTRY["HANG"] = MethodSpec(name="HANG", matlab_function="MLFS_TEST_HANG", plugin_dir={str(FIXTURES)!r})
"""


@pytest.fixture(scope="module")
def octave_folds(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("octave_folds")
    make_fold_dir(root, dataset="alpha", n_folds=3, n_train=500, n_test=150, d=70, seed=1)
    make_fold_dir(root, dataset="beta", n_folds=3, n_train=500, n_test=150, d=70, seed=2)
    return root


@pytest.fixture(scope="module")
def octave_reference(octave_folds, tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("octave_reference")
    assert run_main(kgrid.main, [*OCTAVE_ARGS, "--no-progress", "--data-dir", str(octave_folds),
                                 "--results-dir", str(results)]) == 0
    return result_contents(results)


def _octaves(pid: int) -> list[psutil.Process]:
    """The Octave sessions (interactive processes, not oct2py's version checks) below ``pid``."""
    found = []
    for process in descendants(pid):
        try:
            if process.name().startswith("octave") and "--interactive" in process.cmdline():
                found.append(process)
        except psutil.NoSuchProcess:
            continue
    return found


def _start_hanging_run(folds: Path, results: Path, *extra: str) -> subprocess.Popen:
    site = results.parent / "hang_site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(HANG_SITE)
    python_path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    command = kgrid_command(folds, results, "--engine", "octave", "--methods", "HANG", *extra)
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=results.parent,
                            env={**os.environ, "OCTAVE_PATH": str(FIXTURES), "PYTHONPATH": python_path},
                            start_new_session=True)


def test_one_octave_process_serves_every_task_of_a_worker(octave_folds, tmp_path, monkeypatch):
    settings = RunSettings(data_dir=str(octave_folds), results_dir=str(tmp_path), grids=(GridSpec(),),
                           engine="octave", evaluator="octave", engine_options={"timeout": 600.0})
    octave_pids = record_calls(monkeypatch, OctaveSession, "start", tmp_path / "starts.txt",
                               note=lambda session: session.pid)
    tasks = [Task(m, d, f) for m in ("VARIANCE", "LABELCORR") for d in ("alpha", "beta") for f in (0, 1)]
    outcomes = run_all(tasks, settings, progress=False)
    assert [o.status for o in outcomes] == ["done"] * 8
    (pid,) = {int(pid) for pid in octave_pids()}  # every call of every task in the (serial) worker
    assert alive([pid]) == []  # the workbench stops Octave when the run ends


def test_process_pool_with_octave_matches_serial_with_one_octave_per_worker(octave_folds, octave_reference,
                                                                            tmp_path):
    results = tmp_path / "pool"
    proc = subprocess.Popen(kgrid_command(octave_folds, results, *OCTAVE_ARGS, "--executor", "process",
                                          "--jobs", "2"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    sightings, octaves_per_worker = Counter(), []
    while proc.poll() is None:  # watch the whole run
        try:
            driver = psutil.Process(proc.pid)
            driver_command, children = driver.cmdline(), driver.children()
        except psutil.NoSuchProcess:
            break
        for child in children:
            try:
                # A forked worker keeps the driver's command line; the driver's other children
                # (git for the run record, the octave-cli that reports the BLAS) do not, once
                # they have exec'd.
                if child.cmdline() != driver_command:
                    continue
            except psutil.NoSuchProcess:
                continue
            sightings[child.pid] += 1
            octaves_per_worker.append(len(_octaves(child.pid)))
        time.sleep(0.1)
    proc.wait()
    assert proc.returncode == 0, proc.stderr.read()
    # A worker lives the whole run; a child caught between its fork and its exec is seen once.
    workers = {pid for pid, seen in sightings.items() if seen > 1}
    assert len(workers) == 2 and max(octaves_per_worker) == 1, sightings
    assert scratch_dirs_of(sorted(workers)) == []  # no exchange folder left on /dev/shm
    assert result_contents(results) == octave_reference


def test_two_octave_runs_on_one_folder_compute_each_task_once(octave_folds, octave_reference, tmp_path):
    results = tmp_path / "shared"
    runs = [subprocess.Popen(kgrid_command(octave_folds, results, *OCTAVE_ARGS, "--skip-existing"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errs = [run.communicate(timeout=600)[1] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], errs
    assert not any("Traceback" in err for err in errs)
    counts = [summary_counts(err) for err in errs]
    # (2 methods + the all-features reference) x 2 datasets x 3 folds, each computed once
    assert sum(c["done"] for c in counts) == 18
    assert all(c["done"] + c["done elsewhere"] + c["skipped"] == 18 for c in counts)
    assert result_contents(results) == octave_reference
    assert len(list((results / "runs").glob("*.json"))) == 2


@pytest.mark.parametrize("executor", ["serial", "process", "dask"])
def test_ctrl_c_during_an_octave_call_stops_the_run(octave_folds, tmp_path, executor):
    results = tmp_path / "res"
    proc = _start_hanging_run(octave_folds, results, "--executor", executor, "--jobs", "2")
    wanted = 1 if executor == "serial" else 2
    wait_until(lambda: len(_octaves(proc.pid)) >= wanted and len(running_claims(results)) >= wanted,
               "Octave running the hanging method", proc)
    time.sleep(1.0)  # well inside the call
    tree = descendants(proc.pid)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Error" not in err
    assert "interrupted by SIGINT" in err
    assert survivors(tree) == []
    assert scratch_dirs_of([proc.pid, *(p.pid for p in tree)]) == []
    assert not list(results.glob("*/.*.claim"))
    assert summary_counts(err)["interrupted"] == 12  # 6 HANG tasks + 6 all-features references


@pytest.mark.parametrize("executor", ["serial", "process", "dask"])
def test_killed_driver_takes_its_octave_processes_along(octave_folds, tmp_path, executor):
    results = tmp_path / "res"
    proc = _start_hanging_run(octave_folds, results, "--executor", executor, "--jobs", "2")
    wanted = 1 if executor == "serial" else 2
    wait_until(lambda: len(_octaves(proc.pid)) >= wanted, "Octave started", proc)
    tree = descendants(proc.pid)
    proc.kill()
    proc.wait()
    assert survivors(tree) == []  # Octave dies with the process that started it, however it dies
    assert not (tmp_path / "octave-workspace").exists()  # and leaves no workspace dump behind
    if executor == "process":  # workers unwound on the parent-death signal
        assert scratch_dirs_of([p.pid for p in tree]) == []
    else:  # a killed driver (or a Dask worker dying first) cannot remove its folder: the next sweep does.
        # Another test worker's Octave start may have swept it already, so what is left may be nothing.
        left = scratch_dirs_of([p.pid for p in tree])
        assert set(left) <= set(remove_abandoned_scratch_dirs())
        assert scratch_dirs_of([p.pid for p in tree]) == []


def test_driver_killed_during_octave_run_then_resumed(octave_folds, octave_reference, tmp_path):
    results = tmp_path / "killed"
    proc = subprocess.Popen(kgrid_command(octave_folds, results, *OCTAVE_ARGS), stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    wait_until(lambda: list(results.rglob("*_metrics.json")), "a first result", proc)
    proc.kill()
    proc.wait()
    for path in results.rglob("*_metrics.json"):
        json.loads(path.read_text())
    resumed = subprocess.run(kgrid_command(octave_folds, results, *OCTAVE_ARGS, "--skip-existing"),
                             capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert result_contents(results) == octave_reference


def test_octave_killed_from_outside_fails_one_task_then_resume_completes(octave_folds, octave_reference, tmp_path):
    results = tmp_path / "octave_killed"
    proc = subprocess.Popen(kgrid_command(octave_folds, results, *OCTAVE_ARGS), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    # Once a first task is done, Octave is up: killing it fails the running task or the next one.
    (victim,) = wait_until(lambda: list(results.rglob("*_metrics.json")) and _octaves(proc.pid),
                           "a first task done", proc)
    victim.kill()
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 1, err
    (failure,) = json.loads((results / "failures.json").read_text())["failed"]
    assert failure["error_type"] == "EngineError" and "crashed in Octave" in failure["message"]
    assert summary_counts(err) == {"done": 17, "skipped": 0, "done elsewhere": 0, "failed": 1, "interrupted": 0}  # 12 + 6 references
    resumed = subprocess.run(kgrid_command(octave_folds, results, *OCTAVE_ARGS, "--skip-existing"),
                             capture_output=True, text=True)
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
    assert not (tmp_path / "r" / "runs").exists()
