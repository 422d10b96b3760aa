"""Worker processes are capped by the tasks and the usable cores: ``--jobs 100000`` on a one-task
run starts one worker and ends (before the cap, about 1,500 workers started and the run never
ended). Real runs of the k-grid front door."""

from __future__ import annotations

import subprocess

import pytest

from pipeline.limits import MAX_JOBS, usable_cores
from runner_helpers import kgrid_command, make_fold_dir


@pytest.mark.parametrize("executor", ["process"])
def test_far_more_jobs_than_tasks_or_cores_finish_a_one_task_run(tmp_path, executor):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    proc = subprocess.run(kgrid_command(folds, tmp_path / "r", "--engine", "python", "--methods", "VARIANCE",
                                        "--executor", executor, "--jobs", str(MAX_JOBS)),
                          capture_output=True, text=True, timeout=300)  # a hang guard, not a speed check
    assert proc.returncode == 0, proc.stderr
    tasks = 2  # VARIANCE and the fold's all-features reference
    assert (f"note: --jobs {MAX_JOBS} is more than the {usable_cores()} usable cores; starting "
            f"{min(tasks, usable_cores())} worker process(es) for {tasks} task(s)") in proc.stderr
    assert (tmp_path / "r" / "VARIANCE" / "toy_fold0_kgrid_metrics.json").is_file()
