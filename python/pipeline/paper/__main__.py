"""``python -m pipeline.paper``: the whole paper as one declared, resumable experiment.

    python -m pipeline.paper run paper/suite.yaml            # folds, rankings, both grids, tables
    python -m pipeline.paper status paper/suite.yaml         # done / missing / stale (why) / failed

See docs/paper.md for the suite file and what a rerun redoes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from ..cli import add_code_options, check_option_bounds, exit_process, run_main, use_matlab_dir
from ..engines import ENGINES
from ..limits import DEFAULT_MAX_TASKS, FOLD_COUNT, JOB_COUNT, TASK_COUNT
from ..runner.plugins import check_runnable


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.paper",
        description="Run or inspect a declared experiment (a suite file such as paper/suite.yaml): fold "
                    "export, one ranking per method/dataset/fold/parameters scored on every grid, seed "
                    "averages, tables, statistics, figures and reports. A rerun redoes exactly what is "
                    "missing or stale (changed code, settings or inputs) and says why. Exit codes: 0 ok, "
                    "1 a task failed (see RESULTS/failures.json), 2 bad input.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("run", "run what is missing or stale"), ("status", "list what a run would do, and why")):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("suite", type=Path, help="the suite file (YAML), e.g. paper/suite.yaml")
        sub.add_argument("--root", type=Path, default=Path("."),
                         help="folder the suite's folds, results and tables go under (default: the working "
                              "directory)")
        sub.add_argument("--datasets", nargs="+", default=None, help="only these of the suite's datasets")
        sub.add_argument("--methods", nargs="+", default=None, help="only these of the suite's methods")
        sub.add_argument("--folds", type=int, default=None, help="only the first N of the suite's folds")
        sub.add_argument("--engine", choices=ENGINES, default=None, help="override the suite's engine")
        sub.add_argument("--max-tasks", type=int, default=None,
                         help="refuse a suite of more tasks, tuning candidates included (default: the suite's "
                              f"run.max_tasks, else {DEFAULT_MAX_TASKS})")
        add_code_options(sub)
        if name == "run":
            sub.add_argument("--jobs", type=int, default=None, help="override the suite's worker count")
            sub.add_argument("--data-root", type=Path, default=None,
                             help="raw dataset files, or <DATASET>/train.npz and test.npz, for fold export "
                                  "(default: $MLFS_SHARED_DATA/mlc or ../shared/data/mlc; mlc-large for the "
                                  "larger sets)")
            sub.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # The suite's schema, the run and the tables import pydantic, SciPy, matplotlib and the rest:
    # imported once the arguments are parsed, so --help and a usage error answer at once.
    from ..experiment.model import load_suite
    from ..experiment.tuning import check_inner_sizes, check_task_count
    from .folds import check_folds
    from .run import PaperPaths, run_paper
    from .status import format_status, suite_status

    check_option_bounds(args, {"--folds": FOLD_COUNT, "--jobs": JOB_COUNT, "--max-tasks": TASK_COUNT})
    use_matlab_dir(args)
    suite = load_suite(args.suite, plugins=args.plugins, engine=args.engine).restricted(
        datasets=args.datasets, methods=args.methods, folds=args.folds, engine=args.engine,
        jobs=getattr(args, "jobs", None), max_tasks=args.max_tasks,
        progress=False if getattr(args, "no_progress", False) else None)
    check_runnable([m.name for m in suite.methods if not m.external], suite.engine)
    paths = PaperPaths.of(suite, args.root)
    suite = suite.located(paths.folds, paths.results)
    check_task_count(suite, suite.max_tasks)
    to_export = check_folds(suite, paths.folds)
    paths.check_folds_written(to_export)
    check_inner_sizes(suite, paths.folds)  # the folds already exported; run checks the ones it exports
    if args.command == "status":
        print(format_status(*suite_status(suite, paths)))
        return 0
    arguments = {key: (str(value) if isinstance(value, Path) else value) for key, value in vars(args).items()}
    return run_paper(suite, args.suite, paths, to_export=to_export, raw_root=args.data_root,
                     arguments=arguments)


if __name__ == "__main__":
    exit_process(run_main(main))
