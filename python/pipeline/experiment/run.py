"""Run an experiment: its tasks in phases (tuning candidates and untuned tasks, then the tuned
methods' final tasks), through the one orchestration (:func:`~pipeline.runner.orchestration.run_recorded`)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..data.folds import fold_path, fold_training_rows
from ..errors import DataError
from ..runner.executors import RunResult, execute
from ..runner.lifecycle import RunStop, TaskBudget
from ..runner.orchestration import RESUME_WITH_OPTION, AfterTasks, run_recorded
from ..runner.plugins import engine_options
from ..runner.run import RunSettings, check_evaluable
from .model import Experiment
from .tuning import tuned_tasks


def run_settings(experiment: Experiment, folds_dir: Path, results_dir: Path) -> RunSettings:
    """The runner settings an experiment stands for; the run's log and start time are added by
    :func:`~pipeline.runner.orchestration.run_recorded`."""
    return RunSettings(data_dir=str(folds_dir), results_dir=str(results_dir), grids=experiment.grids,
                       engine=experiment.engine, evaluator=experiment.evaluator, mlknn_k=experiment.mlknn_k,
                       mlknn_smooth=experiment.mlknn_smooth, skip_existing=experiment.skip_existing,
                       overwrite=experiment.overwrite, rank=not experiment.score_only,
                       claim_stale_after=experiment.claim_stale_after,
                       engine_options=engine_options(experiment.task_timeout, experiment.plugins),
                       plugins=experiment.plugins, external=experiment.external_methods, tuning=experiment.tuning,
                       budget=TaskBudget(seconds=experiment.task_timeout, memory=experiment.task_memory))


def run_experiment(experiment: Experiment, *, folds_dir: Path, results_dir: Path, arguments: dict,
                   record: dict | None = None,
                   after_tasks: Callable[[RunResult, RunStop], AfterTasks] | None = None,
                   resume: str = RESUME_WITH_OPTION) -> int:
    """Run every task of ``experiment`` (located: :meth:`~.model.Experiment.located`; fold files in
    ``folds_dir``, results to ``results_dir``), then
    ``after_tasks`` if given; the run's record holds ``arguments`` and ``record``; ``resume``: how the
    user resumes a stopped run (said when it stops). Returns the exit code
    (0 ok, 1 a task or step failed, 2 bad input or storage fault, 128 + n when stopped by signal n)."""

    check_neighbours_fit(experiment, folds_dir)

    def run_phases(executor, settings, stop, on_outcome):
        return _execute_phases(experiment, executor, settings, experiment.progress, stop, on_outcome)

    return run_recorded(run_settings(experiment, folds_dir, results_dir), arguments, run_phases,
                        executor=experiment.executor, jobs=experiment.jobs, scheduler=experiment.scheduler,
                        cluster=experiment.cluster,
                        n_tasks=len(experiment.candidate_tasks()) + len(experiment.tasks()), record=record,
                        after_tasks=after_tasks, resume=resume)


def check_neighbours_fit(experiment: Experiment, folds_dir: Path) -> None:
    """ConfigError, before any task, for a fold with no more training instances than ML-kNN has
    neighbours: every task of it would fail the same way. Read from the fold files' headers; a fold
    file that cannot be read is left to its tasks, which each report what is wrong with it."""
    for dataset in experiment.datasets:
        for fold in experiment.folds_of(dataset):
            path = fold_path(folds_dir, dataset, fold)
            try:
                n_train = fold_training_rows(path)
            except DataError:
                continue
            check_evaluable(n_train, experiment.mlknn_k, path)


def _execute_phases(experiment: Experiment, executor, settings: RunSettings, progress: bool, stop,
                    on_outcome) -> RunResult:
    """Tuning candidates and untuned tasks, then (selection) the tuned methods' final tasks."""
    first = experiment.candidate_tasks() + [task for task in experiment.tasks() if task.stage != "tuned"]
    result = execute(executor, first, progress=progress, stop=stop, on_outcome=on_outcome)
    if stop.requested:
        return result
    finals, _waiting = tuned_tasks(experiment, settings)  # waiting: a candidate failed, reported above
    if not finals:
        return result
    final = execute(executor, finals, progress=progress, stop=stop, on_outcome=on_outcome)
    return RunResult(result.outcomes + final.outcomes, final.stop_reason, final.stop_signal)
