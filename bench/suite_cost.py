"""What a suite's run cost per method, read from the records its tasks wrote, and how long the whole
suite takes on one to four workers.

A task's seconds are those its records hold: the ranking (the method call and the engine's overhead,
``time_rank_seconds`` + ``time_rank_overhead_seconds``) and the one ML-kNN pass that scores both grids
(``time_eval_seconds``). A task stopped at its budget costs the seconds its out-of-budget record says
it used: it held a worker that long. The script prints, per method, the tasks ended (done or out of
budget), their total and their largest seconds, and the share of the suite; then the suite's wall time
on W workers, found by handing the tasks out in the run's order to whichever worker is free first
(what the process executor does); then every task out of budget, by method, with the datasets.
The records hold wall times: a run that shared the machine with other work recorded longer ones,
so give the figures of a run that had the machine to itself. Tasks not done yet are counted and
named in the output, never guessed.

    python bench/suite_cost.py paper/suite_families.yaml --root ROOT [--folds N]

``make bench`` does not run this script (its name does not start with ``bench_``): it reads a run of
``pipeline.paper run`` that takes hours, which docs/performance.md cites with its date.
"""

from __future__ import annotations

import argparse
import heapq
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from pipeline.experiment.model import load_suite  # noqa: E402
from pipeline.paper.run import PaperPaths  # noqa: E402
from pipeline.results.budget import read_budget_record  # noqa: E402
from pipeline.results.layout import REFERENCE_FOLDER, all_features_path, task_files  # noqa: E402
from pipeline.results.staleness import read_json  # noqa: E402

WORKERS = (1, 2, 3, 4)


def task_seconds(results: Path, task) -> float | None:
    """The recorded seconds of one done task, or None when its records are missing."""
    if task.method == REFERENCE_FOLDER:
        return _seconds(all_features_path(results, task.dataset, task.fold), ("time_eval_seconds",))
    files = task_files(results, task.folder, task.dataset, task.fold)
    ranking = _seconds(files.ranking_record, ("time_rank_seconds", "time_rank_overhead_seconds"))
    evaluation = _seconds(files.kgrid, ("time_eval_seconds",)) or _seconds(files.pgrid, ("time_eval_seconds",))
    return None if ranking is None or evaluation is None else ranking + evaluation


def stopped_at_budget(results: Path, task) -> tuple[str, float] | None:
    """The budget (``memory`` or ``time``) a task ran out of and the seconds it used, or None."""
    if task.method == REFERENCE_FOLDER:
        return None
    record = read_budget_record(results, task.folder, task.dataset, task.fold)
    return None if record is None else (record["budget"], float(record["seconds"]))


def _seconds(path: Path, keys: tuple[str, ...]) -> float | None:
    record = read_json(path)  # the results' own bounded reader; None when absent or unreadable
    if record is None:
        return None
    values = [record.get(key) for key in keys]
    return sum(values) if all(isinstance(v, (int, float)) for v in values) else None


def makespan(seconds: list[float], workers: int) -> float:
    """Wall time of ``seconds`` handed out in order to the first free of ``workers``."""
    free_at = [0.0] * workers
    for duration in seconds:
        heapq.heapreplace(free_at, free_at[0] + duration)
    return max(free_at)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, help="the suite file the run used")
    parser.add_argument("--root", type=Path, default=Path("."), help="the run's --root (default: here)")
    parser.add_argument("--folds", type=int, default=None, help="the run's --folds, if it gave one")
    args = parser.parse_args(argv)
    suite = load_suite(args.suite)
    results = PaperPaths.of(suite, args.root).results
    tasks = [t for t in suite.tasks() if args.folds is None or t.fold < args.folds]
    done, missing, per_method, stopped = [], [], defaultdict(list), defaultdict(list)
    for task in tasks:
        seconds, budget = task_seconds(results, task), stopped_at_budget(results, task)
        if seconds is None and budget is not None:
            seconds = budget[1]
            stopped[task.method].append(f"{task.dataset} ({budget[0]}, {seconds:.0f} s)")
        if seconds is None:
            missing.append(task.key)
            continue
        done.append(seconds)
        per_method[task.method].append(seconds)
    total = sum(done)
    print(f"{len(done)} of {len(tasks)} tasks ended ({sum(map(len, stopped.values()))} of them out of budget), "
          f"{total / 3600:.2f} task-hours recorded")
    print(f"{'method':<12}{'tasks':>6}{'hours':>8}{'largest s':>11}{'share':>7}")
    for method, values in sorted(per_method.items(), key=lambda item: -sum(item[1])):
        print(f"{method:<12}{len(values):>6}{sum(values) / 3600:>8.2f}{max(values):>11.1f}"
              f"{sum(values) / total:>7.1%}")
    for workers in WORKERS:
        print(f"the ended tasks on {workers} worker(s): {makespan(done, workers) / 3600:.2f} h of wall time")
    for method, where in stopped.items():
        print(f"out of budget: {method} on {', '.join(where)}")
    if missing:
        print(f"not done ({len(missing)}), e.g. {', '.join(missing[:5])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
