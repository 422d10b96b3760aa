"""Every task failure is recorded: an exception that is not a user error, raised anywhere inside a
task (here a real MemoryError in ML-kNN, made by an address-space limit), fails that task into
failures.json and the run goes on; the run's record is closed whatever ends the run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pipeline import kgrid
from pipeline.cli import run_main
from pipeline.data.folds import save_fold

_UNDER_LIMIT = textwrap.dedent("""
    import resource, sys
    from pipeline import kgrid
    from pipeline.cli import run_main
    with open("/proc/self/statm") as handle:
        used = int(handle.read().split()[0]) * resource.getpagesize()
    limit = used + 1_000_000_000  # room for ML-kNN's compiler and for narrow, not for wide
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.exit(run_main(kgrid.main, sys.argv[1:]))
""")


@pytest.fixture(scope="module")
def memory_folds(tmp_path_factory):
    """Two datasets scored with 50 neighbours on k = 1..d: ML-kNN's neighbour table takes 8 bytes x
    training rows x neighbours x k values, 48 KB for ``narrow`` (60 rows, d = 2) and 1.2 GB for
    ``wide`` (300 rows, d = 10,000)."""
    root = tmp_path_factory.mktemp("folds")
    rng = np.random.default_rng(0)
    for name, n, d in (("narrow", 60, 2), ("wide", 300, 10_000)):
        X, Y = rng.random((n + 10, d)), (rng.random((n + 10, 2)) > 0.5).astype(np.int8)
        save_fold(root / name / "fold0.mat", X[:n], Y[:n], X[n:], Y[n:])
    return root


@pytest.mark.slow  # ~7 s of large arrays; the other task-failure tests stay in the fast lane
def test_a_memory_error_in_the_evaluator_fails_only_its_task(memory_folds, tmp_path):
    """In the driver (serial executor), where it used to abort the run; a pool worker that dies
    of it is already reported as a crash of its task."""
    results = tmp_path / "r"
    proc = subprocess.run([sys.executable, "-c", _UNDER_LIMIT, "--engine", "python", "--methods", "VARIANCE",
                           "--no-progress", "--data-dir", str(memory_folds), "--results-dir", str(results),
                           "--mlknn-k", "50", "--k-min", "1", "--k-max", "10000", "--k-step", "1",
                           ], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "FAILED VARIANCE/wide/fold0: out of memory in this task: MemoryError: Unable to allocate" in proc.stderr
    (failure,) = json.loads((results / "failures.json").read_text())["failed"]
    assert (failure["task"], failure["error_type"]) == ("VARIANCE/wide/fold0", "MemoryError")
    assert (results / "VARIANCE" / "narrow_fold0_kgrid_metrics.json").is_file()
    (record,) = [json.loads(path.read_text()) for path in (results / "runs").glob("*.json")]
    assert record["finished"] is not None
    # done: VARIANCE on narrow and the all-features reference of both folds (ML-kNN on every feature,
    # no grid of 10,000 points); failed: VARIANCE on wide alone
    assert (record["summary"]["done"], record["summary"]["failed"]) == (3, 1)


def test_the_run_record_is_closed_when_the_driver_fails(memory_folds, tmp_path, monkeypatch, capsys):
    """No real input makes the driver itself raise (every task failure is caught in the task),
    so the driver's loop is replaced by one that raises, to show the record is still closed."""
    def broken_execute(*args, **kwargs):
        raise RuntimeError("driver bug")

    monkeypatch.setattr("pipeline.experiment.run.execute", broken_execute)
    with pytest.raises(RuntimeError, match="driver bug"):
        run_main(kgrid.main, ["--engine", "python", "--methods", "VARIANCE", "--no-progress", "--data-dir",
                              str(memory_folds), "--results-dir", str(tmp_path / "r"), "--datasets", "narrow"])
    (record,) = [json.loads(path.read_text()) for path in (tmp_path / "r" / "runs").glob("*.json")]
    assert record["finished"] is not None and record["summary"] == {"aborted": "RuntimeError: driver bug"}
