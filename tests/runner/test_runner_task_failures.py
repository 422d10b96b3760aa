"""Every task failure is recorded: an exception that is not a user error, raised anywhere inside a
task (here a real MemoryError in ML-kNN, made by an address-space limit), fails that task into
failures.json and the run goes on; the run's record is closed whatever ends the run.

Every task is a process the run controls: a method that ends its worker process (``os._exit``, a
signal), raises KeyboardInterrupt itself, or leaves processes and threads behind fails its own task,
exit 1; one that runs over ``--task-timeout`` (looping, ignoring SIGTERM) ends out of budget
(test_runner_budgets.py for the rest); nothing it started outlives the run (plug-ins written by the tests, real processes and signals).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pipeline import kgrid
from pipeline.cli import run_main
from pipeline.data.folds import save_fold
from runner_helpers import (PAIR_IN_MAKE_TEST, alive, kgrid_command, make_fold_dir, python_plugin, result_contents,
                            summary_counts, wait_until)

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


def _run_plugin(tmp_path, plugin, *extra: str) -> subprocess.CompletedProcess:
    """kgrid of the plug-in's method (the folder's name) and VARIANCE on one small fold."""
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    return subprocess.run(kgrid_command(folds, tmp_path / "res", "--engine", "python", "--k-max", "20",
                                        "--methods", plugin.name.upper(), "VARIANCE", "--plugins", str(plugin), *extra),
                          capture_output=True, text=True, timeout=120)


def _pids(path) -> list[int]:
    return [int(pid) for pid in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize("executor, death, said", [
    ("serial", "os._exit(0)", "DIES/toy/fold0: DIES (dies.py) ended its process (exit code 0) instead of returning"),
    pytest.param("process", "os._exit(0)",
                 "DIES/toy/fold0: DIES (dies.py) ended its process (exit code 0) instead of returning",
                 marks=PAIR_IN_MAKE_TEST),
    ("serial", "os.kill(os.getppid(), signal.SIGKILL)", "crashed (killed by SIGKILL) while running this task"),
])
def test_a_method_that_ends_its_process_or_its_worker_fails_that_task_with_exit_1(tmp_path, executor, death, said):
    """``os._exit(0)`` in a method used to end a serial run with exit 0 and no summary. A plug-in's
    code runs in a child process of the task's worker; one that kills the worker itself fails the
    task as a crashed worker, and a fresh worker runs the rest."""
    proc = _run_plugin(tmp_path, python_plugin(tmp_path / "dies", "DIES", death), "--executor", executor,
                       "--jobs", "2")
    assert proc.returncode == 1, proc.stderr
    assert summary_counts(proc.stderr) == {"done": 2, "skipped": 0, "done elsewhere": 0, "failed": 1,
                                           "interrupted": 0}  # VARIANCE and the reference are done
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("FAILED")]
    assert line.startswith("FAILED DIES/toy/fold0: ") and said in line, proc.stderr
    assert not list((tmp_path / "res").glob("*/.*.claim"))


def test_keyboard_interrupt_raised_by_a_method_is_its_task_failure_not_ctrl_c(tmp_path):
    """It used to read as Ctrl-C: exit 130 and every later task interrupted."""
    proc = _run_plugin(tmp_path, python_plugin(tmp_path / "raiser", "RAISER", "raise KeyboardInterrupt"))
    assert proc.returncode == 1, proc.stderr
    assert summary_counts(proc.stderr)["done"] == 2 and "interrupted by" not in proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("FAILED")]
    assert line.startswith("FAILED RAISER/toy/fold0: ") and "RAISER raised KeyboardInterrupt itself" in line


@pytest.mark.parametrize("executor", [pytest.param("serial", marks=PAIR_IN_MAKE_TEST), "process"])
def test_a_task_over_its_time_budget_is_ended_with_all_it_started(tmp_path, executor):
    """A method that starts ``sleep 300`` and a forked child, ignores SIGINT and SIGTERM and loops
    forever: ``--task-timeout`` used to cover Octave calls only, so the run never ended."""
    pids = tmp_path / "pids.txt"
    plugin = python_plugin(tmp_path / "hog", "HOG", f"""
        child = subprocess.Popen(["sleep", "300"])
        forked = os.fork()
        if forked == 0:
            time.sleep(300)
            os._exit(0)
        with open({str(pids)!r}, "w") as handle:
            handle.write(f"{{child.pid}} {{forked}} {{os.getpid()}}")
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while True:
            pass
    """)
    proc = _run_plugin(tmp_path, plugin, "--task-timeout", "3", "--executor", executor, "--jobs", "2")
    assert proc.returncode == 0, proc.stderr  # out of budget is a result, not a failure
    assert summary_counts(proc.stderr)["done"] == 2, proc.stderr  # the run carried on with a fresh worker
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("OUT OF BUDGET")]
    assert line.startswith("OUT OF BUDGET (time) HOG/toy/fold0: out of its time budget of 3 s after "), line
    assert "its worker process " in line and "resident" in line  # what it used: seconds and peak memory
    record = json.loads((tmp_path / "res" / "HOG" / "toy_fold0_out_of_budget.json").read_text())
    assert (record["budget"], record["limit"]) == ("time", 3) and record["seconds"] >= 3
    assert not (tmp_path / "res" / "failures.json").exists()
    assert len(_pids(pids)) == 3 and alive(_pids(pids)) == []
    assert not list((tmp_path / "res").glob("*/.*.claim"))


def test_what_a_method_leaves_running_ends_with_the_run(tmp_path):
    """Children (``sleep 300``, one in a session of its own as oct2py starts Octave, a fork) and
    non-daemon threads, started at import (in the driver, which loads the plug-in to know its method)
    and while ranking, used to outlive the run or keep it from exiting after its summary."""
    pids = tmp_path / "pids.txt"
    plugin = python_plugin(tmp_path / "litter", "LITTER", f"""
        child = subprocess.Popen(["sleep", "300"])
        own_session = subprocess.Popen(["sleep", "300"], start_new_session=True)
        forked = os.fork()
        if forked == 0:
            time.sleep(300)
            os._exit(0)
        threading.Thread(target=time.sleep, args=(300,)).start()
        with open({str(pids)!r}, "a") as handle:
            handle.write(f" {{child.pid}} {{own_session.pid}} {{forked}}")
    """, at_import="threading.Thread(target=time.sleep, args=(300,)).start()")
    proc = _run_plugin(tmp_path, plugin)
    assert proc.returncode == 0, proc.stderr
    assert summary_counts(proc.stderr)["done"] == 3
    assert len(_pids(pids)) == 3 and alive(_pids(pids)) == []


def test_a_dead_workers_programs_in_sessions_of_their_own_end_with_it(tmp_path):
    """A program in a session of its own (as oct2py starts Octave) is outside its worker's process
    group: when the worker died, it used to run on (its parent then init)."""
    pids = tmp_path / "pids.txt"
    plugin = python_plugin(tmp_path / "orphan", "ORPHAN", f"""
        own_session = subprocess.Popen(["sleep", "300"], start_new_session=True)
        with open({str(pids)!r}, "w") as handle:
            handle.write(str(own_session.pid))
        os.kill(os.getppid(), signal.SIGKILL)  # the plug-in's code runs in a child of the worker
        time.sleep(300)
    """)
    proc = _run_plugin(tmp_path, plugin)
    assert proc.returncode == 1, proc.stderr
    assert "ORPHAN/toy/fold0: worker process" in proc.stderr and "crashed (killed by SIGKILL)" in proc.stderr
    assert summary_counts(proc.stderr)["done"] == 2  # VARIANCE and the reference, on a fresh worker
    assert len(_pids(pids)) == 1 and alive(_pids(pids)) == []


def test_sigterm_before_the_run_starts_exits_143(tmp_path):
    """SIGTERM while the command still loads its plug-ins used to kill it (exit -15); Ctrl-C gave 130."""
    loading = tmp_path / "loading"
    plugin = python_plugin(tmp_path / "slow", "SLOWLOAD", "", at_import=f"""
        open({str(loading)!r}, "w").close()
        time.sleep(60)
    """)
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    proc = subprocess.Popen(kgrid_command(folds, tmp_path / "res", "--engine", "python", "--methods", "SLOWLOAD",
                                          "--plugins", str(plugin), "--executor", "process", "--jobs", "2"),
                            stderr=subprocess.PIPE, text=True)
    wait_until(loading.exists, "the plug-in is imported", proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err


PATCHER = '''
import numpy as np
import pipeline.engines.python as python_engine
from pipeline.methods.base import MethodSpec

_evaluate = python_engine.NativeEvaluator.evaluate


def perfect(self, *args, **kwargs):  # every metric of every method becomes 1.0
    curves = _evaluate(self, *args, **kwargs)
    return {key: [1.0] * len(value) if key != "k_values" and isinstance(value, list) else value
            for key, value in curves.items()}


python_engine.NativeEvaluator.evaluate = perfect
np.outer = lambda a, b, out=None: np.ones((np.size(a), np.size(b)))  # LABELCORR's correlations, unnormalised


def scores(X, Y, params):
    return X.std(axis=0)


PATCHER = MethodSpec(name="PATCHER", scores=scores)
'''


def test_a_plugin_patching_the_evaluator_and_numpy_at_import_changes_no_other_result(tmp_path):
    """The module patches ML-kNN's evaluator (every metric 1.0) and ``numpy`` as it is imported:
    loaded in the run's own processes, it turned VARIANCE's micro-F1 0.066 into 1.000 under an
    unchanged fingerprint. Plug-in code now runs only in child processes of its own, so the shipped
    methods' rankings and metrics, and the all-features reference, are identical with and without
    the folder loaded (and its method run first in the same worker)."""
    folder = tmp_path / "patcher"
    folder.mkdir()
    (folder / "patcher.py").write_text(PATCHER)
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    for name, extra in (("alone", []), ("with", ["PATCHER", "--plugins", str(folder)])):
        proc = subprocess.run(kgrid_command(folds, tmp_path / name, "--engine", "python", "--k-max", "20",
                                            "--methods", *extra[:1], "VARIANCE", "LABELCORR", *extra[1:]),
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
    for method in ("VARIANCE", "LABELCORR", "_reference"):
        alone = result_contents(tmp_path / "alone" / method)
        assert alone and result_contents(tmp_path / "with" / method) == alone, method
    metrics = json.loads((tmp_path / "with" / "VARIANCE" / "toy_fold0_kgrid_metrics.json").read_text())
    assert max(metrics["micro_f1"]) < 0.9  # the real scores, not the patched 1.0
