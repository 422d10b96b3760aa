"""``paper run``: the whole declared experiment, resumable, redoing exactly what is missing or stale.

Steps: fold files (exported if missing, checked if present) -> every task (one ranking per method,
dataset, fold and parameters, scored on all grids from one ML-kNN pass; fresh results kept) ->
seed averages -> tables, statistics, figures and the report of each grid (if their inputs changed).
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

from ..runner.executors import run_all
from ..runner.history import RunHistory
from ..runner.manifest import write_failures
from ..runner.run import RunSettings
from ..suite_cli import describe_outcome, report_outcomes, summarise_outcomes
from .folds import ensure_folds
from .seeds import average_seeds
from .suite import Suite
from .tables import make_tables


@dataclass(frozen=True)
class PaperPaths:
    """Where a suite's run reads and writes, below its root folder."""

    root: Path
    folds: Path
    results: Path

    @classmethod
    def of(cls, suite: Suite, root: Path) -> "PaperPaths":
        return cls(root=root, folds=root / suite.folds_dir, results=root / suite.results_dir)


def run_settings(suite: Suite, paths: PaperPaths, *, log_file: str | None = None) -> RunSettings:
    """The runner settings a suite stands for (always resuming: fresh results are kept)."""
    return RunSettings(data_dir=str(paths.folds), results_dir=str(paths.results), grids=suite.grids,
                       engine=suite.engine, evaluator=suite.evaluator, mlknn_k=suite.mlknn_k,
                       mlknn_smooth=suite.mlknn_smooth, skip_existing=True, overwrite=False, rank=True,
                       engine_options={"timeout": suite.task_timeout}, log_file=log_file)


def run_paper(suite: Suite, suite_file: Path, paths: PaperPaths, *, raw_root: Path, progress: bool,
              arguments: dict) -> int:
    """Run the suite; return the exit code (0 ok, 1 a task or step failed)."""
    say = _printer()
    ensure_folds(suite, paths.folds, raw_root, report=say)
    paths.results.mkdir(parents=True, exist_ok=True)
    history = RunHistory(paths.results, arguments)
    settings = run_settings(suite, paths, log_file=str(history.log_path))
    history.start(suite_file=str(suite_file), suite_sha256=hashlib.sha256(suite_file.read_bytes()).hexdigest())
    outcomes = run_all(suite.tasks(), settings, suite.executor, suite.jobs, progress=progress,
                       on_outcome=lambda o: history.log(describe_outcome(o)))
    averages = _average_all_seeds(suite, paths)
    summary = {**summarise_outcomes(outcomes), "seed_averages": averages}
    write_failures(paths.results, outcomes)
    code = report_outcomes(outcomes, summary, paths.results)
    if code == 0 and not averages.get("missing"):
        summary["tables"] = {grid.mode: make_tables(suite, paths.results, paths.root, grid) for grid in suite.grids}
        for mode, state in summary["tables"].items():
            say(f"{mode} tables: {state} -> {paths.root / suite.tables['out_dir'] / mode}")
    else:
        say("tables not made: some tasks failed (see failures.json); rerun the same command to resume")
        code = code or 1
    history.finish(summary)
    return code


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

