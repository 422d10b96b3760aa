"""Per-task budgets (``--task-memory``, ``--task-timeout``; docs/reliability.md, "Per-task budgets").

A task that allocates beyond its memory budget (a real allocation in a real worker: Python, and
Octave) or runs beyond its time budget ends *out of budget*, with what it used, recorded beside its
files; the other tasks finish, the exit code is 0 (a result, not a failure), a resumed run does
not run it again under a budget no larger, and the tables mark its cells with a footnote naming
the budget (plug-ins written by the tests, the runner's small planted folds).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys

import pytest

from pipeline.errors import ConfigError
from pipeline.limits import parse_memory_size
from pipeline.results.budget import read_budget_record
from runner_helpers import kgrid_command, make_fold_dir, python_plugin, summary_counts

#: 256 MiB: far above what VARIANCE, ML-kNN on the small folds and a method's isolated child add to
#: a worker, far below the 1 GiB the hogs allocate.
BUDGET = "256MiB"
HOG_BODY = "import numpy as np\nbig = np.ones(2**30 // 8)\nbig[::4096] = 2.0"
OCTAVE_HOG = """function [ranking, info] = OHOG(X_train, Y_train, params, init)
  if nargin == 0
    ranking = struct();
    return
  end
  big = ones(2^27, 1);
  big(1:4096:end) = 2;
  scores = var(X_train, 0, 1)';
  ranking = mlfs_rank_scores(scores, 'OHOG');
  info = struct('scores', scores);
end
"""


def _kgrid(folds, results, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(kgrid_command(folds, results, "--k-max", "20", *extra), capture_output=True, text=True,
                          timeout=300)


def _out_of_budget_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("OUT OF BUDGET")]


@pytest.fixture(scope="module")
def memory_run(tmp_path_factory):
    """HOG (allocates 1 GiB) and VARIANCE on one fold, serial, under a 256 MiB memory budget."""
    root = tmp_path_factory.mktemp("memory")
    folds = make_fold_dir(root / "folds", n_folds=1)
    plugin = python_plugin(root / "hog", "HOG", HOG_BODY)
    results = root / "res"
    proc = _kgrid(folds, results, "--engine", "python", "--methods", "HOG", "VARIANCE", "--plugins", str(plugin),
                  "--task-memory", BUDGET)
    return folds, plugin, results, proc


def test_a_python_task_over_its_memory_budget_ends_out_of_budget_and_the_run_finishes(memory_run):
    _, _, results, proc = memory_run
    assert proc.returncode == 0, proc.stderr
    assert summary_counts(proc.stderr) == {"done": 2, "skipped": 0, "done elsewhere": 0, "out of budget": 1,
                                           "failed": 0, "interrupted": 0}
    (line,) = _out_of_budget_lines(proc.stderr)
    assert line.startswith("OUT OF BUDGET (memory) HOG/toy/fold0: out of its memory budget of 256 MiB per process "
                           "after "), line
    assert "MemoryError: Unable to allocate 1.00 GiB" in line
    record = read_budget_record(results, "HOG", "toy", 0)
    assert (record["budget"], record["limit"]) == ("memory", 256 * 2**20)
    assert 0 < record["peak_memory_bytes"] < 1 << 30  # what it held when the allocation was refused
    assert (results / "VARIANCE" / "toy_fold0_kgrid_metrics.json").is_file()
    assert not (results / "failures.json").exists()
    (run_record,) = [json.loads(p.read_text()) for p in (results / "runs").glob("*.json")]
    assert run_record["summary"]["out_of_budget_by"] == {"memory": 1, "time": 0}


def test_a_resumed_run_does_not_retry_it_under_the_same_budget_but_does_under_a_larger_one(memory_run, tmp_path):
    folds, plugin, results, _ = memory_run
    again = _kgrid(folds, results, "--engine", "python", "--methods", "HOG", "VARIANCE", "--plugins", str(plugin),
                   "--task-memory", BUDGET, "--skip-existing")
    assert again.returncode == 0, again.stderr
    assert summary_counts(again.stderr)["out of budget"] == 1 and summary_counts(again.stderr)["done"] == 0
    (line,) = _out_of_budget_lines(again.stderr)
    assert "not run again under a budget no larger: raise --task-memory" in line
    copy = tmp_path / "res"
    subprocess.run(["cp", "-r", str(results), str(copy)], check=True)
    larger = _kgrid(folds, copy, "--engine", "python", "--methods", "HOG", "--plugins", str(plugin),
                    "--task-memory", "4GiB", "--skip-existing")
    assert larger.returncode == 0, larger.stderr
    assert summary_counts(larger.stderr)["done"] == 1 and not _out_of_budget_lines(larger.stderr)
    assert read_budget_record(copy, "HOG", "toy", 0) is None  # finished: its record is gone


def test_the_tables_mark_the_out_of_budget_cell_and_name_the_budget(memory_run, tmp_path):
    folds, _, results, _ = memory_run
    out = tmp_path / "tables"
    proc = subprocess.run([sys.executable, "-m", "pipeline.tables", "--results-dir", str(results), "--out-dir", str(out),
                           "--methods", "HOG", "VARIANCE", "--ref-method", "VARIANCE", "--no-figures",
                           "--folds-dir", str(folds)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = (out / "report.md").read_text()
    (row,) = [line for line in report.split("### Micro-F1")[1].split("###")[0].splitlines() if line.startswith("| toy |")]
    assert row.split("|")[3].strip() == "-- §"  # after All features, HOG: no value, the mark
    assert "§ no value: the method did not finish within its budget on a fold of that dataset (memory budget of " \
           "256 MiB per process on 1 fold(s))" in report
    assert "(left out: toy)" in report
    latex = (out / "table_microf1.tex").read_text()
    assert r"& --\,\S &" in latex and r"\,\S\,no value: the method did not finish" in latex


@pytest.mark.octave
def test_an_octave_task_over_its_memory_budget_ends_out_of_budget(tmp_path):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    plugin = tmp_path / "ohog"
    plugin.mkdir()
    (plugin / "OHOG.m").write_text(OCTAVE_HOG)
    results = tmp_path / "res"
    proc = _kgrid(folds, results, "--engine", "octave", "--methods", "VARIANCE", "OHOG", "--plugins", str(plugin),
                  "--task-memory", BUDGET)
    assert proc.returncode == 0, proc.stderr
    assert summary_counts(proc.stderr)["done"] == 2, proc.stderr
    (line,) = _out_of_budget_lines(proc.stderr)
    assert line.startswith("OUT OF BUDGET (memory) OHOG/toy/fold0: out of its memory budget of 256 MiB"), line
    assert "out of memory or dimension too large for Octave's index type" in line
    assert read_budget_record(results, "OHOG", "toy", 0)["budget"] == "memory"


#: One Octave builtin of about 17 s here (2 cores, OpenBLAS, one thread): Octave acts on the hang-up
#: of its terminal only between two statements, so it would run on well after its worker was killed.
OCTAVE_LONG_BUILTIN = """function [ranking, info] = OSLOW(X_train, Y_train, params, init)
  if nargin == 0
    ranking = struct();
    return
  end
  eig(rand(3000));
  ranking = 1:size(X_train, 2);
  info = struct();
end
"""


@pytest.mark.octave
def test_an_octave_task_over_its_time_budget_leaves_no_octave_running(tmp_path):
    """The driver used to kill the worker's process group only; Octave, in a session of its own,
    computed on (in a run of the large suite, one ran more than 6 minutes past its task, until it was
    killed by hand)."""
    import os
    import time

    import psutil

    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    plugin = tmp_path / "oslow"
    plugin.mkdir()
    (plugin / "OSLOW.m").write_text(OCTAVE_LONG_BUILTIN)
    mark = f"mlfs-budget-test-{os.getpid()}-{time.monotonic_ns()}"
    proc = subprocess.run(kgrid_command(folds, tmp_path / "res", "--k-max", "20", "--engine", "octave", "--methods",
                                        "OSLOW", "VARIANCE", "--plugins", str(plugin), "--task-timeout", "3"),
                          capture_output=True, text=True, timeout=300, env={**os.environ, "MLFS_TEST_MARK": mark})
    assert proc.returncode == 0, proc.stderr
    (line,) = _out_of_budget_lines(proc.stderr)
    assert line.startswith("OUT OF BUDGET (time) OSLOW/toy/fold0: out of its time budget of 3 s after "), line

    def left_running() -> list[str]:
        found = []
        for process in psutil.process_iter(["name", "status"]):
            with contextlib.suppress(psutil.Error):
                if process.info["status"] != psutil.STATUS_ZOMBIE and process.environ().get("MLFS_TEST_MARK") == mark:
                    found.append(f"{process.pid} {process.info['name']}")
        return found

    deadline = time.monotonic() + 2.0  # a killed process is reaped by init within moments
    while left_running() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left_running() == []


@pytest.mark.slow  # a LocalCluster and its workers start: ~20 s on a shared machine; the pool's time
# budget itself is covered in the fast lane (test_runner_task_failures)
def test_the_time_budget_covers_the_whole_task_on_dask(tmp_path):
    """On Dask it used to cover Octave calls only: a Python method looping forever was never stopped."""
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    plugin = python_plugin(tmp_path / "loop", "LOOP", "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n"
                                                      "    pass")
    results = tmp_path / "res"
    proc = _kgrid(folds, results, "--engine", "python", "--methods", "LOOP", "VARIANCE", "--plugins", str(plugin),
                  "--task-timeout", "8", "--executor", "dask", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    assert summary_counts(proc.stderr)["done"] == 2, proc.stderr
    (line,) = _out_of_budget_lines(proc.stderr)
    assert line.startswith("OUT OF BUDGET (time) LOOP/toy/fold0: out of its time budget of 8 s after "), line
    assert read_budget_record(results, "LOOP", "toy", 0)["limit"] == 8


@pytest.mark.parametrize("text, size", [("8GiB", 8 * 2**30), ("512 MiB", 512 * 2**20), ("1.5GB", 1_500_000_000),
                                        ("1048576", 2**20), (4096, 4096)])
def test_memory_sizes_are_read_in_binary_and_decimal_units(text, size):
    assert parse_memory_size(text) == size


@pytest.mark.parametrize("text", ["8 gigs", "GiB", "-1GiB", "1.5", True, 2.5])
def test_a_memory_size_without_a_known_unit_is_refused(text):
    with pytest.raises(ValueError, match="memory size|whole number of bytes"):
        parse_memory_size(text)


def test_the_command_line_refuses_a_bad_or_tiny_memory_budget(tmp_path):
    from pipeline import kgrid

    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    for value, said in (("8 gigs", "a memory size such as 8GiB"), ("1KiB", "out of range")):
        with pytest.raises(ConfigError, match=said) as caught:
            kgrid.main(["--engine", "python", "--methods", "VARIANCE", "--data-dir", str(folds), "--results-dir",
                        str(tmp_path / "res"), "--task-memory", value, "--no-progress"])
        assert caught.value.field == "--task-memory"


@pytest.mark.slow  # two commands of the paper's front door: ~10 s of CPU; the run's side is in the fast lane above
def test_a_suite_budget_reaches_the_run_the_status_and_the_tables(memory_run, tmp_path):
    """``run: {task_memory: ...}`` in a suite: the task ends out of budget, the tables are made with
    its mark, and ``paper status`` lists it as out of budget, not as remaining work."""
    folds, plugin, _, _ = memory_run
    (tmp_path / "suite.yaml").write_text(f"""
name: budget
plugins: [{plugin}]
folds: {{mode: files, dir: {folds}}}
methods: {{HOG: {{}}, VARIANCE: {{}}}}
engine: python
grids: {{kgrid: {{k_min: 5, k_max: 20, k_step: 5}}}}
run: {{executor: serial, task_memory: {BUDGET}, task_timeout: 600}}
tables: {{ref_method: VARIANCE, figures: false}}
""")

    def paper(command: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pipeline.paper", command, str(tmp_path / "suite.yaml"), "--root",
                               str(tmp_path / "root")], capture_output=True, text=True, timeout=300)

    run = paper("run")
    assert run.returncode == 0, run.stderr
    assert "kgrid tables: made" in run.stderr and len(_out_of_budget_lines(run.stderr)) == 1
    assert "-- §" in (tmp_path / "root" / "paper" / "tables" / "kgrid" / "report.md").read_text()
    status = paper("status")
    assert status.returncode == 0, status.stderr
    assert "2 done, 0 missing, 0 stale, 1 out-of-budget, 0 failed of 3 tasks" in status.stdout
    assert "remaining: nothing" in status.stdout
    assert "out-of-budget HOG/toy/fold0: out of its memory budget of 256 MiB per process" in status.stdout


def test_paper_status_counts_out_of_budget_tasks_apart_from_remaining_work():
    from pipeline.paper.status import OUT_OF_BUDGET, TaskStatus, format_status

    text = format_status([TaskStatus("VARIANCE/toy/fold0", "done"), TaskStatus("HOG/toy/fold0", OUT_OF_BUDGET, "why")],
                         {"kgrid": "up to date"})
    assert text.splitlines() == ["1 done, 0 missing, 0 stale, 1 out-of-budget, 0 failed of 2 tasks",
                                 "remaining: nothing", "out-of-budget HOG/toy/fold0: why", "tables kgrid: up to date"]
    usual = format_status([TaskStatus("VARIANCE/toy/fold0", "done")], {})
    assert usual.splitlines()[0] == "1 done, 0 missing, 0 stale, 0 failed of 1 tasks"  # the line scripts read


def test_the_tidy_table_and_a_merge_carry_the_out_of_budget_task(memory_run, tmp_path):
    from pipeline.results.merge import merge_folders
    from pipeline.results.tidy import tidy_table

    results = memory_run[2]
    stopped = tidy_table(results).query("outcome == 'out_of_budget'")
    assert list(stopped.method) == ["HOG"] and stopped.value.isna().all()
    assert stopped.message.iloc[0].startswith("memory budget of 256 MiB per process: out of its memory budget")
    merge_folders([results], tmp_path / "merged")
    assert read_budget_record(tmp_path / "merged", "HOG", "toy", 0) == read_budget_record(results, "HOG", "toy", 0)
