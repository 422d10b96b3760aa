"""``paper run``: the whole declared experiment, resumable, redoing exactly what is missing or stale.

Steps: fold files (exported if missing, checked if present) -> every task (one ranking per method,
dataset, fold and parameters, scored on all grids from one ML-kNN pass; fresh results kept) ->
seed averages -> tables, statistics, figures and the report of each grid (if their inputs changed).
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..data.folds import sha256_file
from ..errors import ConfigError
from ..experiment.model import Experiment
from ..experiment.run import run_experiment
from ..experiment.tuning import check_inner_sizes
from ..runner.executors import RunResult
from ..runner.orchestration import AfterTasks
from .folds import export_folds
from .seeds import average_seeds


@dataclass(frozen=True)
class PaperPaths:
    """Where a suite's run reads and writes, below its root folder."""

    root: Path
    folds: Path
    results: Path
    #: ``folds.dir`` is an absolute path outside ``root``: its folds are read there, never written
    folds_read_only: bool = False

    @classmethod
    def of(cls, suite: Experiment, root: Path) -> "PaperPaths":
        """The suite's folders under ``root``; ConfigError for any written folder (the declared ones
        and the method, dataset and table folders the run makes in them) that a symbolic link takes
        outside ``root``: the schema keeps the names relative, this keeps what they resolve to inside.
        An absolute ``folds.dir`` outside ``root`` is read only (:meth:`check_folds_written`)."""
        folds_read_only = _outside(root, suite.folds_dir)
        written = {"run.results_dir": suite.results_dir}
        if not folds_read_only:
            written["folds.dir"] = suite.folds_dir
            written.update({f"datasets ({name})": f"{suite.folds_dir}/{name}" for name in suite.datasets})
        written.update({f"methods ({m.name})": f"{suite.results_dir}/{m.name}" for m in suite.methods})
        if suite.tables is not None:
            out_dir = suite.tables["out_dir"]
            written["tables.out_dir"] = out_dir
            written.update({f"tables.out_dir ({sub})": f"{out_dir}/{sub}"
                            for sub in (*(grid.mode for grid in suite.grids), "parameters")})
        for field, relative in written.items():
            _check_inside(root, relative, field)
        return cls(root=root, folds=root / suite.folds_dir, results=root / suite.results_dir,
                   folds_read_only=folds_read_only)

    def check_folds_written(self, to_export: list[str]) -> None:
        """ConfigError, with the way out, when folds would be exported into a ``folds.dir`` outside
        ``--root`` (a run writes under its root only; existing, complete folds are read anywhere)."""
        if to_export and self.folds_read_only:
            raise ConfigError("the folds of this dataset are missing or incomplete, and a run writes only under "
                              "--root: export them there first (python -m pipeline.export_splits), or give "
                              "folds.dir relative to --root to have the run export them",
                              file=self.folds / to_export[0], field="folds.dir",
                              expected=f"every fold file present in {self.folds}")


def _outside(root: Path, folds_dir: str) -> bool:
    """Whether ``folds_dir`` is an absolute path that does not resolve under ``root``."""
    if not Path(folds_dir).is_absolute():
        return False
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(folds_dir)]) != real_root


def _check_inside(root: Path, relative: str, field: str) -> None:
    """ConfigError (naming the field, the path and where it resolves) unless ``root / relative``,
    with every symbolic link on the way followed, stays inside ``root`` (itself resolved)."""
    real_root = os.path.realpath(root)
    path = root / relative
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        raise ConfigError(f"a symbolic link takes this written path outside --root: it resolves to {real}",
                          file=path, field=field, expected=f"a path that resolves under {real_root}")


def run_paper(suite: Experiment, suite_file: Path, paths: PaperPaths, *, to_export: list[str], raw_root: Path | None,
              arguments: dict, argv: Sequence[str], tables: bool = True) -> int:
    """Run the suite, first exporting the folds of ``to_export`` (:func:`~.folds.check_folds`), then
    (when the suite declares tables) its seed averages and tables; return the exit code (0 ok, 1 a task
    or step failed, 2 bad input or storage fault, 128 + n when stopped by signal n). ``tables=False``
    computes the tasks only (an element of a job array: the tables are made once, after the array).
    ``argv``: the command's arguments, for the command that resumes a stopped run."""
    say = _printer()
    export_folds(suite, to_export, paths.folds, raw_root, report=say)
    check_inner_sizes(suite, paths.folds)

    def after_tasks(result: RunResult, stop) -> AfterTasks:
        if stop.requested:
            return AfterTasks({"tables": "not made"})
        if any(o.status == "failed" for o in result.outcomes):
            return AfterTasks({"tables": "not made"}, "tables not made: some tasks failed (see failures.json); "
                                                      "rerun the same command to resume")
        return AfterTasks(_after_tasks(suite, paths, say))

    return run_experiment(suite, folds_dir=paths.folds, results_dir=paths.results, arguments=arguments,
                          after_tasks=None if suite.tables is None or not tables else after_tasks,
                          record={"suite_file": str(suite_file), "suite_sha256": sha256_file(suite_file)},
                          resume=resume_command(argv))


def resume_command(argv: Sequence[str]) -> str:
    """What resumes a stopped suite run: the same command with every option it was given (``--folds 1``
    resumes the one fold, not all of them), which redoes only what is missing or stale."""
    return (f"the same command ({shlex.join(['python', '-m', 'pipeline.paper', *argv])}), which redoes only "
            "what is missing or stale")


def _after_tasks(suite: Experiment, paths: PaperPaths, say) -> dict:
    """Seed averages, then each grid's tables (when every average could be made)."""
    # paper.tables imports the report's stack (SciPy's statistics, matplotlib: about 2 s of CPU) only
    # when tables are stale: not for a job-array element, a refused suite or tables up to date.
    from .tables import make_parameter_report, make_tables, parameter_report_dir

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


def _average_all_seeds(suite: Experiment, paths: PaperPaths) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in suite.methods:
        if not entry.seeds:
            continue
        for dataset in suite.datasets:
            for fold in suite.folds_of(dataset):
                for grid in suite.grids:
                    state = average_seeds(paths.results, entry, dataset, fold, grid.mode)
                    counts[state] = counts.get(state, 0) + 1
    return counts


def _printer():
    def say(line: str) -> None:
        print(line, file=sys.stderr)
    return say

