"""``paper status``: what a run of the suite would do, and why, without doing anything."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from ..data.folds import fold_path
from ..results.layout import failures_path
from ..results.schema import read_ranking_record
from ..results.staleness import read_json
from ..runner.freshness import NO_METRICS, NO_RANKING
from ..runner.run import earlier_out_of_budget, plan_task
from ..runner.store import ResultStore
from ..experiment.model import Experiment
from ..experiment.run import run_settings
from ..experiment.tuning import tuned_tasks
from ..runner.tuning import NO_CANDIDATE, plan_candidate
from .run import PaperPaths
from .tables import tables_status


OUT_OF_BUDGET = "out-of-budget"


@dataclass(frozen=True)
class TaskStatus:
    """One task's state: ``done``, ``missing``, ``stale``, ``out-of-budget`` (stopped at a budget no
    smaller than the suite's: not run again, marked in the tables) or ``failed``, with the reason; ``candidate``
    for a tuning candidate (counted apart from the tasks that make the tables)."""

    key: str
    state: str
    reason: str = ""
    candidate: bool = False
    warnings: int = 0


def suite_status(suite: Experiment, paths: PaperPaths) -> tuple[list[TaskStatus], dict[str, str]]:
    """Every task's state, and each grid's tables state (``up to date``, ``stale`` or ``missing``).

    A done task's state says how many numerical warnings its ranking's method call gave
    (``warnings``, from its ranking record: :mod:`pipeline.method_warnings`)."""
    settings = run_settings(suite, paths.folds, paths.results)
    failed = _last_failures(paths)
    folds_ready = all(fold_path(paths.folds, dataset, fold).is_file()
                      for dataset in suite.datasets for fold in suite.folds_of(dataset))
    ready, waiting = tuned_tasks(suite, settings, record=False) if folds_ready else ([], [])
    states = [_candidate_status(task, settings, paths, failed) for task in suite.candidate_tasks()]
    for task in [t for t in suite.tasks() if t.stage != "tuned"] + ready:
        states.append(_task_status(task, settings, paths, failed))
    states += [_waiting_status(task, paths) for task in waiting]
    if not folds_ready:
        states += [TaskStatus(task.key, "missing", "no fold file yet") for task in suite.tasks() if task.stage]
    pending = sum(s.state != "done" for s in states if not s.candidate)
    tables = {grid.mode: tables_status(suite, paths.results, paths.root, grid, pending)
              for grid in (suite.grids if suite.tables is not None else ())}
    return states, tables


def _task_status(task, settings, paths: PaperPaths, failed: dict) -> TaskStatus:
    if not fold_path(paths.folds, task.dataset, task.fold).is_file():
        return TaskStatus(task.key, "missing", "no fold file yet")
    plan = plan_task(task, settings)
    if task.method in settings.external and not plan.files.ranking.is_file():
        return TaskStatus(task.key, "missing", "no ranking file (external ranking)")
    if not plan.grid_reasons:
        warned = 0 if plan.files is None else _ranking_warnings(plan.files.ranking_record)  # None: the reference
        return TaskStatus(task.key, "done", warnings=warned)
    stopped = earlier_out_of_budget(task, settings)
    if stopped is not None:
        return TaskStatus(task.key, OUT_OF_BUDGET, stopped.message)
    if task.key in failed:
        return TaskStatus(task.key, "failed", failed[task.key])
    if plan.reason in (NO_RANKING, NO_METRICS):
        return TaskStatus(task.key, "missing", plan.reason)
    return TaskStatus(task.key, "stale", plan.reason)


def _ranking_warnings(path) -> int:
    """The numerical warnings a (fresh, so readable) ranking record counts; 0 when it predates them."""
    if not path.is_file():  # an external ranking has none
        return 0
    warned = read_ranking_record(path).warnings
    return 0 if warned is None else warned.count


def _waiting_status(task, paths: PaperPaths) -> TaskStatus:
    """A tuned method's final task before its candidates are all scored: stale if it has results."""
    files = ResultStore(paths.results).files(task.folder, task.dataset, task.fold)
    if files.ranking_record.is_file():
        return TaskStatus(task.key, "stale", "its tuning candidates are not up to date")
    return TaskStatus(task.key, "missing", "waits for its tuning candidates")


def _candidate_status(task, settings, paths: PaperPaths, failed: dict) -> TaskStatus:
    if not fold_path(paths.folds, task.dataset, task.fold).is_file():
        return TaskStatus(task.key, "missing", "no fold file yet", candidate=True)
    reason = plan_candidate(task, settings).reason
    if reason is None:
        return TaskStatus(task.key, "done", candidate=True)
    if task.key in failed:
        return TaskStatus(task.key, "failed", failed[task.key], candidate=True)
    return TaskStatus(task.key, "missing" if reason == NO_CANDIDATE else "stale", reason, candidate=True)


def format_status(states: list[TaskStatus], tables: dict[str, str]) -> str:
    """Counts per state (tasks, then tuning candidates if any), one line per task that is not done,
    then the tables' state."""
    tasks = [s for s in states if not s.candidate]
    candidates = [s for s in states if s.candidate]
    lines = [_counts(tasks, "tasks")] + ([_counts(candidates, "tuning candidates")] if candidates else [])
    remaining = (sum(s.state not in ("done", OUT_OF_BUDGET) for s in tasks),
                 sum(s.state not in ("done", OUT_OF_BUDGET) for s in candidates))
    lines.append(f"remaining: {remaining[0]} task(s)" + (f" and {remaining[1]} tuning candidate(s)" if candidates else "")
                 if any(remaining) else "remaining: nothing")
    lines += [f"{s.state:8} {s.key}: {s.reason}" for s in states if s.state != "done"]
    warned = [s for s in tasks if s.warnings]
    if warned:
        lines.append(f"numerical warnings: {sum(s.warnings for s in warned)} in {len(warned)} done task(s) "
                     f"(their ranking records list them): " + ", ".join(f"{s.key} ({s.warnings})" for s in warned[:5])
                     + (f" and {len(warned) - 5} more" if len(warned) > 5 else ""))
    lines += [f"tables {mode}: {state}" for mode, state in tables.items()]
    return "\n".join(lines)


def _counts(states: list[TaskStatus], what: str) -> str:
    counts = Counter(s.state for s in states)
    shown = [state for state in ("done", "missing", "stale", OUT_OF_BUDGET, "failed")
             if state != OUT_OF_BUDGET or counts[state]]  # the usual line unless a task ran out of budget
    return (", ".join(f"{counts.get(state, 0)} {state}" for state in shown)
            + f" of {len(states)} {what}")


def _last_failures(paths: PaperPaths) -> dict[str, str]:
    """The tasks the last run reports as failed, with the reason. A task it stopped before the end
    (``interrupted``) did not fail: it stays missing, and resuming the run does it."""
    report = read_json(failures_path(paths.results)) or {}
    entries = report.get("failed") if isinstance(report.get("failed"), list) else []
    return {str(e.get("task")): json.dumps(e.get("message", ""))[1:-1] for e in entries
            if isinstance(e, dict) and e.get("status") != "interrupted"}
