"""``python -m pipeline.paper``: the whole paper as one declared, resumable experiment.

    python -m pipeline.paper run paper/suite.yaml            # folds, rankings, both grids, tables
    python -m pipeline.paper status paper/suite.yaml         # done / missing / stale (why) / failed
    python -m pipeline.paper sbatch paper/suite.yaml --array 20 --walltime 4:00:00 [--submit]   # a SLURM job array

See docs/paper.md for the suite file and what a rerun redoes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from ..cli import add_code_options, check_option_bounds, exit_process, run_main, use_matlab_dir
from ..engines import ENGINES
from ..errors import ConfigError
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
    for name, text in (("run", "run what is missing or stale"), ("status", "list what a run would do, and why"),
                       ("sbatch", "write (and with --submit, submit) a SLURM job array whose elements run the "
                                  "suite's tasks, and a job that makes the tables once the array has ended "
                                  "(docs/cluster.md)")):
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
        if name in ("run", "sbatch"):
            sub.add_argument("--data-root", type=Path, default=None,
                             help="raw dataset files, or <DATASET>/train.npz and test.npz, for fold export "
                                  "(default: $MLFS_SHARED_DATA/mlc or ../shared/data/mlc; mlc-large for the "
                                  "larger sets)")
        if name == "sbatch":
            _add_sbatch_options(sub)
        if name == "run":
            sub.add_argument("--no-tables", action="store_true",
                             help="compute the tasks only (a job-array element: the tables are made once, after)")
            sub.add_argument("--jobs", type=int, default=None, help="override the suite's worker count")
            sub.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def _add_sbatch_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--array", type=int, required=True, metavar="N", help="number of array elements (1..10000)")
    sub.add_argument("--walltime", required=True, help="each job's --time (MM, HH:MM:SS or D-HH:MM:SS)")
    sub.add_argument("--grace", type=int, default=120, metavar="SECONDS",
                     help="SIGTERM this long before the walltime: an element stops cleanly (default: 120)")
    sub.add_argument("--cpus-per-task", type=int, default=1, help="CPUs and workers per element (default: 1)")
    sub.add_argument("--partition", default=None, help="the SLURM partition (default: the cluster's)")
    sub.add_argument("--mem", default=None, help="memory per element, as sbatch takes it (e.g. 8G)")
    sub.add_argument("--sbatch-option", action="append", default=[], metavar="OPTION",
                     help="another sbatch option for every job, e.g. --sbatch-option=--account=proj (repeatable)")
    sub.add_argument("--out", type=Path, default=None,
                     help="the script to write (default: ROOT/slurm/<suite name>.sbatch; logs beside it)")
    sub.add_argument("--submit", action="store_true", help="submit the array and the tables job with sbatch")
    sub.add_argument("--wait", action="store_true", help="with --submit: wait until both jobs have ended")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    # The suite's schema, the run and the tables import pydantic, SciPy, matplotlib and the rest:
    # imported once the arguments are parsed, so --help and a usage error answer at once.
    from ..experiment.model import load_suite
    from ..experiment.tuning import check_inner_sizes, check_task_count
    from .folds import check_folds
    from .run import PaperPaths, run_paper

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
        from .status import format_status, suite_status  # the tables' state: the report's stack (SciPy, matplotlib)

        print(format_status(*suite_status(suite, paths)))
        return 0
    if args.command == "sbatch":
        return _sbatch(args, suite, paths, to_export)
    arguments = {key: (str(value) if isinstance(value, Path) else value) for key, value in vars(args).items()}
    return run_paper(suite, args.suite, paths, to_export=to_export, raw_root=args.data_root,
                     arguments=arguments, argv=argv, tables=not args.no_tables)


def _forwarded_options(args: argparse.Namespace) -> tuple[str, ...]:
    """The options of ``paper sbatch`` that restrict or locate the run, for every job's ``paper run``
    (paths made absolute: a job starts in the folder it was submitted from)."""
    options: list[str] = []
    for name in ("datasets", "methods"):
        if getattr(args, name):
            options += [f"--{name}", *getattr(args, name)]
    for name in ("folds", "engine", "max_tasks"):
        if getattr(args, name) is not None:
            options += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    if args.plugins:
        options += ["--plugins", *(str(Path(folder).resolve()) for folder in args.plugins)]
    if args.matlab_dir is not None:
        options += ["--matlab-dir", str(args.matlab_dir.resolve())]
    return tuple(options)


def _sbatch(args: argparse.Namespace, suite, paths, to_export: list[str]) -> int:
    """Export the missing folds here (not in every element at once), then write the job array."""
    from .cluster import JobArray, submit, write_job_array
    from .folds import export_folds

    check_option_bounds(args, {"--cpus-per-task": JOB_COUNT})
    array = JobArray(suite_file=args.suite, root=args.root, elements=args.array, walltime=args.walltime,
                     grace=args.grace, cpus_per_task=args.cpus_per_task, partition=args.partition, memory=args.mem,
                     sbatch_options=tuple(args.sbatch_option), run_options=_forwarded_options(args))
    if args.wait and not args.submit:
        raise ConfigError("--wait needs --submit", field="--wait")
    export_folds(suite, to_export, paths.folds, args.data_root)
    script = args.out or args.root / "slurm" / f"{suite.name}.sbatch"
    log_dir = write_job_array(array, script)
    print(f"wrote {script} ({args.array} elements); logs go to {log_dir}")
    if not args.submit:
        print(f"submit it with: sbatch {script}; then, once the array has ended, make the tables with: "
              f"{array.run_command()}")
        return 0
    return submit(array, script, log_dir, args.wait)


if __name__ == "__main__":
    exit_process(run_main(main))
