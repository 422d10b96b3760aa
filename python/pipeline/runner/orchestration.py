"""One orchestration for every front door: run the tasks, summarise them, write the run record.

``pipeline.kgrid``, ``pgrid``, ``evaluate`` and ``pipeline.paper run`` differ in what they run (one
list of tasks, or the tuning phases one after the other) and in what follows the tasks (the paper's
seed averages and tables); :func:`run_recorded` does the rest, the same way for all of them: the
results folder, the run's record and log in ``RESULTS_DIR/runs/``, the executor, stop signals (exit
code 128 + n), the summary on the terminal and ``failures.json``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from ..errors import StorageError
from ..results.layout import failures_path
from .executors import RunResult, make_executor
from .history import RunHistory
from ..results.budget import BUDGET_KINDS
from .lifecycle import RunStop
from .manifest import remove_partial_reports, write_failures
from .run import Outcome, RunSettings
from .store import ensure_results_root

#: How a run of the task command lines (kgrid, pgrid, evaluate) resumes; a suite run says its own command.
RESUME_WITH_OPTION = "--skip-existing"
_USER_ERRORS = {"ConfigError", "DataError", "RankingError", "StorageError"}
STATUSES = ("done", "skipped", "done_elsewhere", "out_of_budget", "failed", "interrupted")

#: What a front door runs on the entered executor: ``(executor, settings, stop, on_outcome) -> RunResult``;
#: it passes ``stop`` and ``on_outcome`` (which logs each outcome) on to
#: :func:`~pipeline.runner.executors.execute`.
Phases = Callable[[object, RunSettings, RunStop, Callable[[Outcome], None]], RunResult]


@dataclass(frozen=True)
class AfterTasks:
    """What a front door did once its tasks ended: fields added to the run's summary, and a line said
    after the summary."""

    summary: dict = field(default_factory=dict)
    closing: str | None = None


def run_recorded(settings: RunSettings, arguments: dict, phases: Phases, *, executor: str, jobs: int,
                 n_tasks: int, scheduler: str | None = None, cluster: dict | None = None, record: dict | None = None,
                 after_tasks: Callable[[RunResult, RunStop], AfterTasks] | None = None,
                 resume: str = RESUME_WITH_OPTION) -> int:
    """Run ``phases`` on the ``executor`` (``jobs`` workers, capped by ``n_tasks``) and record the run.

    The results folder (``settings.results_dir``) is made, partial reports of dead runs are removed,
    the run's record (``arguments`` and ``record`` fields) and log are opened, the tasks run with
    ``settings`` (given the log and the start time), then ``after_tasks`` (if any) and
    :func:`finish_run`. Returns the exit code; 128 + n when signal n stopped the run. ``resume``:
    how the user resumes a stopped run (the hint says "resume with <resume>").
    """
    root = ensure_results_root(Path(settings.results_dir))
    remove_partial_reports(root, settings.claim_stale_after)
    history = RunHistory(root, arguments)
    settings = replace(settings, log_file=str(history.log_path), run_started=time.time())
    with RunStop(ends_process=True) as stop, history.closed_on_error():  # a signal, even while workers
        # start or close, ends with reports and 128 + n
        with make_executor(executor, settings, jobs, scheduler, n_tasks, cluster) as pool:
            history.start(settings, **(record or {}))
            result = phases(pool, settings, stop, lambda o: history.log(describe_outcome(o)))
        after = after_tasks(result, stop) if after_tasks is not None else AfterTasks()
        code = finish_run(history, root, result, resume=resume, **after.summary)
        if after.closing:
            print(after.closing, file=sys.stderr)
    return 128 + stop.signum if stop.signum is not None else code


def finish_run(history: RunHistory, root: Path, result: RunResult, *, resume: str = RESUME_WITH_OPTION,
               **extra) -> int:
    """Write the run's record (with ``extra`` summary fields) and failures.json, then report on the
    terminal; return the exit code.

    A report that cannot be written (e.g. the disk is full) is said after the summary, exit code 2.
    """
    summary = {**summarise_outcomes(result.outcomes), **extra}
    problems = [problem for problem in (_attempt(history.finish, summary),
                                        _attempt(write_failures, root, result.outcomes)) if problem is not None]
    code = report_outcomes(result.outcomes, summary, root, result.stop_reason, result.stop_signal, resume=resume)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return max(code, 2) if problems else code


def _attempt(write, *args) -> StorageError | None:
    try:
        write(*args)
    except StorageError as exc:
        return exc
    return None


def _is_stale_reason(reason: str) -> bool:
    return reason not in ("no ranking yet", "no metrics yet", "recomputed (no --skip-existing)", "--overwrite")


def _warn_degenerate(outcomes) -> None:
    """Say which tasks selected mostly training-constant features (their metrics are meaningless there)."""
    _warn_tasks([(o, f"{o.degenerate_points} points") for o in outcomes if o.degenerate_points],
                "selected mostly features that are constant on the training part at some grid points",
                "see n_constant_selected and degenerate in their metrics files")


def _warn_numerical(outcomes) -> None:
    """Say which tasks' methods warned numerically while ranking (their ranking records list the messages)."""
    _warn_tasks([(o, str(o.warnings)) for o in outcomes if o.warnings],
                "warned numerically while ranking", "see warnings in their ranking records")


def _warn_tasks(flagged: list, what: str, where: str) -> None:
    """One warning line naming the first five ``flagged`` (outcome, detail) tasks and where to look."""
    if not flagged:
        return
    listed = ", ".join(f"{outcome.task.key} ({detail})" for outcome, detail in flagged[:5])
    more = f" and {len(flagged) - 5} more" if len(flagged) > 5 else ""
    print(f"warning: {len(flagged)} task(s) {what}: {listed}{more}; {where}", file=sys.stderr)


def summarise_outcomes(outcomes) -> dict:
    """Counts per status, per reason of the tasks that were computed, the tasks with degenerate
    selections, and the tasks whose ranking's method call warned numerically (with their warnings)."""
    summary = {status: sum(o.status == status for o in outcomes) for status in STATUSES}
    reasons: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.status == "done" and outcome.reason:
            reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
    summary["computed_because"] = dict(sorted(reasons.items(), key=lambda item: -item[1]))
    summary["degenerate_tasks"] = sum(o.degenerate_points > 0 for o in outcomes)
    if summary["out_of_budget"]:
        summary["out_of_budget_by"] = {kind: sum(o.status == "out_of_budget" and o.budget == kind for o in outcomes)
                                       for kind in BUDGET_KINDS}
    summary["warned_tasks"] = sum(o.warnings > 0 for o in outcomes)
    summary["numerical_warnings"] = sum(o.warnings for o in outcomes)
    return summary


def describe_outcome(outcome) -> str:
    """One log line for a task: status, key, why it ran or what went wrong, seconds."""
    detail = outcome.message or outcome.reason
    return f"{outcome.status} {outcome.task.key}" + (f" ({detail})" if detail else "") + f" {outcome.seconds:.2f}s"


def report_outcomes(outcomes, summary: dict, root: Path, stop_reason: str | None = None,
                    stop_signal: int | None = None, *, resume: str = RESUME_WITH_OPTION) -> int:
    """Print the run summary (counts, stale recomputations, degenerate selections, numerical warnings,
    tasks out of budget, failures, why the run stopped early); return the exit code.

    2 when tasks were interrupted (the run stopped early) or every failure is a user error; 1 when
    a task failed otherwise; 0 when every task finished or ran out of its budget (a result, recorded
    beside its task's files, not a failure). (:func:`run_recorded` makes a signal 128 + its number.)
    """
    shown = [s for s in STATUSES if s != "out_of_budget" or summary[s]]  # the usual line unless a task ran out
    print(", ".join(f"{summary[s]} {s.replace('_', ' ')}" for s in shown) + f" -> {root}", file=sys.stderr)
    stale = {reason: n for reason, n in summary["computed_because"].items() if _is_stale_reason(reason)}
    for reason, count in stale.items():
        print(f"recomputed {count} stale task(s): {reason}", file=sys.stderr)
    _warn_degenerate(outcomes)
    _warn_numerical(outcomes)
    for outcome in [o for o in outcomes if o.status == "out_of_budget"][:10]:
        print(f"OUT OF BUDGET ({outcome.budget}) {outcome.task.key}: {outcome.message}", file=sys.stderr)
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed[:10]:
        print(f"FAILED {outcome.task.key}: {outcome.message}", file=sys.stderr)
    if summary["interrupted"]:
        advice = "fix it, then resume" if stop_reason and stop_signal is None else "resume"
        print(f"{stop_reason or 'the run stopped early'}; {advice} with {resume}", file=sys.stderr)
    if not failed and not summary["interrupted"]:
        return 0
    if failures_path(root).is_file():
        print(f"details: {failures_path(root)}", file=sys.stderr)
    if summary["interrupted"]:
        return 2
    return 2 if all(o.error_type in _USER_ERRORS for o in failed) else 1
