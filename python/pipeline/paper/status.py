"""``paper status``: what a run of the suite would do, and why, without doing anything."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from ..data.folds import fold_path
from ..runner.freshness import read_json
from ..runner.run import plan_task
from .run import PaperPaths, run_settings
from .suite import Suite
from .tables import tables_status


@dataclass(frozen=True)
class TaskStatus:
    """One task's state: ``done``, ``missing``, ``stale`` or ``failed``, with the reason."""

    key: str
    state: str
    reason: str = ""


def suite_status(suite: Suite, paths: PaperPaths) -> tuple[list[TaskStatus], dict[str, str]]:
    """Every task's state, and each grid's tables state (``up to date``, ``stale`` or ``missing``)."""
    settings = run_settings(suite, paths)
    failed = _last_failures(paths)
    states = []
    for task in suite.tasks():
        if not fold_path(paths.folds, task.dataset, task.fold).is_file():
            states.append(TaskStatus(task.key, "missing", "no fold file yet"))
            continue
        plan = plan_task(task, settings)
        if task.method in settings.external and not plan.files.ranking.is_file():
            states.append(TaskStatus(task.key, "missing", "no ranking file (external ranking)"))
        elif not plan.grid_reasons:
            states.append(TaskStatus(task.key, "done"))
        elif task.key in failed:
            states.append(TaskStatus(task.key, "failed", failed[task.key]))
        elif plan.reason in ("no ranking yet", "no metrics yet"):
            states.append(TaskStatus(task.key, "missing", plan.reason))
        else:
            states.append(TaskStatus(task.key, "stale", plan.reason))
    tables = {grid.mode: tables_status(suite, paths.results, paths.root, grid) for grid in suite.grids}
    return states, tables


def format_status(states: list[TaskStatus], tables: dict[str, str]) -> str:
    """Counts per state, then one line per task that is not done, then the tables' state."""
    counts = Counter(s.state for s in states)
    lines = [", ".join(f"{counts.get(state, 0)} {state}" for state in ("done", "missing", "stale", "failed"))
             + f" of {len(states)} tasks"]
    lines += [f"{s.state:8} {s.key}: {s.reason}" for s in states if s.state != "done"]
    lines += [f"tables {mode}: {state}" for mode, state in tables.items()]
    return "\n".join(lines)


def _last_failures(paths: PaperPaths) -> dict[str, str]:
    report = read_json(paths.results / "failures.json") or {}
    entries = report.get("failed") if isinstance(report.get("failed"), list) else []
    return {str(e.get("task")): json.dumps(e.get("message", ""))[1:-1] for e in entries if isinstance(e, dict)}
