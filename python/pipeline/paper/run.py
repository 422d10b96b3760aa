"""``paper run``: the whole declared experiment, resumable, redoing exactly what is missing or stale.

Steps: fold files (exported if missing, checked if present) -> every task (one ranking per method,
dataset, fold and parameters, scored on all grids from one ML-kNN pass; fresh results kept) ->
seed averages -> tables, statistics, figures and the report of each grid (if their inputs changed).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..data.folds import sha256_file
from ..errors import ConfigError
from ..runner.executors import RunResult, execute
from ..runner.orchestration import AfterTasks, run_recorded
from ..runner.plugins import engine_options
from ..runner.run import RunSettings
from .folds import export_folds
from .parameters import make_parameter_report, parameter_report_dir
from .seeds import average_seeds
from .suite import Suite
from .tables import make_tables
from .tuning import check_inner_sizes, tuned_tasks


@dataclass(frozen=True)
class PaperPaths:
    """Where a suite's run reads and writes, below its root folder."""

    root: Path
    folds: Path
    results: Path

    @classmethod
    def of(cls, suite: Suite, root: Path) -> "PaperPaths":
        """The suite's folders under ``root``; ConfigError for any written folder (the declared ones
        and the method, dataset and table folders the run makes in them) that a symbolic link takes
        outside ``root``: the schema keeps the names relative, this keeps what they resolve to inside."""
        out_dir = suite.tables["out_dir"]
        written = {"folds.dir": suite.folds_dir, "run.results_dir": suite.results_dir, "tables.out_dir": out_dir}
        written.update({f"datasets ({name})": f"{suite.folds_dir}/{name}" for name in suite.datasets})
        written.update({f"methods ({m.name})": f"{suite.results_dir}/{m.name}" for m in suite.methods})
        written.update({f"tables.out_dir ({sub})": f"{out_dir}/{sub}"
                        for sub in (*(grid.mode for grid in suite.grids), "parameters")})
        for field, relative in written.items():
            _check_inside(root, relative, field)
        return cls(root=root, folds=root / suite.folds_dir, results=root / suite.results_dir)


def _check_inside(root: Path, relative: str, field: str) -> None:
    """ConfigError (naming the field, the path and where it resolves) unless ``root / relative``,
    with every symbolic link on the way followed, stays inside ``root`` (itself resolved)."""
    real_root = os.path.realpath(root)
    path = root / relative
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        raise ConfigError(f"a symbolic link takes this written path outside --root: it resolves to {real}",
                          file=path, field=field, expected=f"a path that resolves under {real_root}")


def run_settings(suite: Suite, paths: PaperPaths) -> RunSettings:
    """The runner settings a suite stands for (always resuming: fresh results are kept); the run's log
    and start time are added by :func:`~pipeline.runner.orchestration.run_recorded`."""
    return RunSettings(data_dir=str(paths.folds), results_dir=str(paths.results), grids=suite.grids,
                       engine=suite.engine, evaluator=suite.evaluator, mlknn_k=suite.mlknn_k,
                       mlknn_smooth=suite.mlknn_smooth, skip_existing=True, overwrite=False, rank=True,
                       engine_options=engine_options(suite.task_timeout, suite.plugins),
                       plugins=suite.plugins, external=suite.external_methods, tuning=suite.tuning)


def run_paper(suite: Suite, suite_file: Path, paths: PaperPaths, *, to_export: list[str], raw_root: Path,
              progress: bool, arguments: dict) -> int:
    """Run the suite, first exporting the folds of ``to_export`` (:func:`~.folds.check_folds`);
    return the exit code (0 ok, 1 a task or step failed, 2 bad input or storage fault, 128 + n
    when stopped by signal n)."""
    say = _printer()
    export_folds(suite, to_export, paths.folds, raw_root, report=say)
    check_inner_sizes(suite, paths.folds)

    def run_phases(executor, settings, stop, on_outcome):
        return _execute_phases(suite, executor, settings, progress, stop, on_outcome)

    def after_tasks(result: RunResult, stop) -> AfterTasks:
        if stop.requested:
            return AfterTasks({"tables": "not made"})
        if any(o.status == "failed" for o in result.outcomes):
            return AfterTasks({"tables": "not made"}, "tables not made: some tasks failed (see failures.json); "
                                                      "rerun the same command to resume")
        return AfterTasks(_after_tasks(suite, paths, say))

    return run_recorded(run_settings(suite, paths), arguments, run_phases, executor=suite.executor,
                        jobs=suite.jobs, n_tasks=len(suite.candidate_tasks()) + len(suite.tasks()),
                        record={"suite_file": str(suite_file), "suite_sha256": sha256_file(suite_file)},
                        after_tasks=after_tasks)


def _execute_phases(suite: Suite, executor, settings: RunSettings, progress: bool, stop, on_outcome) -> RunResult:
    """Tuning candidates and untuned tasks, then (selection) the tuned methods' final tasks."""
    first = suite.candidate_tasks() + [task for task in suite.tasks() if task.stage != "tuned"]
    result = execute(executor, first, progress=progress, stop=stop, on_outcome=on_outcome)
    if stop.requested:
        return result
    finals, _waiting = tuned_tasks(suite, settings)  # waiting: a candidate failed, reported above
    if not finals:
        return result
    final = execute(executor, finals, progress=progress, stop=stop, on_outcome=on_outcome)
    return RunResult(result.outcomes + final.outcomes, final.stop_reason, final.stop_signal)


def _after_tasks(suite: Suite, paths: PaperPaths, say) -> dict:
    """Seed averages, then each grid's tables (when every average could be made)."""
    averages = _average_all_seeds(suite, paths)
    if averages.get("missing"):
        say("tables not made: a seed's results are missing; rerun the same command to resume")
        return {"seed_averages": averages, "tables": "not made"}
    parameters = make_parameter_report(suite, paths.results, paths.root)  # first: each grid's main.tex inputs it
    say(f"parameter report: {parameters} -> {parameter_report_dir(suite, paths.root)}")
    tables = {grid.mode: make_tables(suite, paths.results, paths.root, grid) for grid in suite.grids}
    for mode, state in tables.items():
        say(f"{mode} tables: {state} -> {paths.root / suite.tables['out_dir'] / mode}")
    return {"seed_averages": averages, "tables": {**tables, "parameters": parameters}}


def _average_all_seeds(suite: Suite, paths: PaperPaths) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in suite.methods:
        if not entry.seeds:
            continue
        for dataset in suite.datasets:
            for fold in suite.fold_indices:
                for grid in suite.grids:
                    state = average_seeds(paths.results, entry, dataset, fold, grid.mode)
                    counts[state] = counts.get(state, 0) + 1
    return counts


def _printer():
    def say(line: str) -> None:
        print(line, file=sys.stderr)
    return say

