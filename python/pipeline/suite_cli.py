"""The shared command line of ``pipeline.kgrid``, ``pipeline.pgrid`` and ``pipeline.evaluate``."""

from __future__ import annotations

import argparse
import sys
import dataclasses
from pathlib import Path
from typing import Sequence

from .cli import add_code_options, use_matlab_dir
from .definitions import RUN_OPTION_DEFAULTS
from .documents import CONFIG_LIMITS, read_document
from .engines import ENGINES, EVALUATORS
from .errors import ConfigError
from .limits import DEFAULT_MAX_TASKS, DEFAULT_TASK_MEMORY, DEFAULT_TASK_TIMEOUT, MAX_PARAMS_FILE_BYTES
from .methods import available_methods
from .names import distinct_names, validate_name
from .runner.claims import DEFAULT_STALE_AFTER
from .runner.executors import EXECUTORS
from .runner.plugins import check_runnable

PARAMS_LIMITS = dataclasses.replace(CONFIG_LIMITS, max_bytes=MAX_PARAMS_FILE_BYTES)


REFERENCE_HELP = (" Once per (dataset, fold) it also scores ML-kNN on every feature, the all-features "
                  "reference, into RESULTS_DIR/_reference/<DATASET>_fold<i>_all_features.json.")


def build_parser(prog: str, mode: str | None, rank: bool) -> argparse.ArgumentParser:
    """Arguments common to the three front doors; ``mode=None`` adds ``--grid``."""
    what = ("rank the features on the training part and score the ranking" if rank
            else "score the existing ranking (RESULTS_DIR/<METHOD>/<DATASET>_fold<i>_ranking.csv)")
    grid_text = {"kgrid": "over k = k-min..k-max (step k-step, clipped to d)",
                 "pgrid": "over p = p-min..p-max of the d features (tables use p-target)",
                 None: "over the k-grid or the p-grid (--grid)"}[mode]
    parser = argparse.ArgumentParser(
        prog=prog,
        description=f"For every (method, dataset, fold): {what} with ML-kNN on the test part "
                    f"{grid_text}. Results go to RESULTS_DIR/<METHOD>/<DATASET>_fold<i>_*; see "
                    f"docs/results-schema.md.{REFERENCE_HELP if rank else ''} Each run adds a record and a log to RESULTS_DIR/runs/. "
                    "Exit codes: 0 ok, 1 a task failed (see failures.json), 2 bad input or an unusable results "
                    "folder, 130 interrupted (Ctrl-C; 143 for SIGTERM); see docs/reliability.md.",
        formatter_class=_DefaultsFormatter)
    if rank:
        parser.add_argument("--methods", nargs="+", required=True,
                            help=f"methods to run, among {available_methods()} and the --plugins methods")
        parser.add_argument("--engine", choices=ENGINES, default="octave",
                            help="where baselines run; Python-only methods (DAGFS, RANDOM) always run in Python")
        parser.add_argument("--params", type=Path, default=None,
                            help="JSON/YAML file {METHOD: {param: value}} overriding defaults; a list of "
                                 "values sweeps that parameter (one result folder per combination)")
    else:
        parser.add_argument("--methods", nargs="+", required=True,
                            help="method folders under --results-dir holding <DATASET>_fold<i>_ranking.csv files")
    add_code_options(parser)
    parser.add_argument("--evaluator", choices=EVALUATORS, default="native", help="where ML-kNN runs")
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="dataset folders under --data-dir (default: every folder with fold0.mat" +
                             (")" if rank else " for which the method has a ranking; a dataset named here must "
                                               "have a ranking for every fold used, else that task fails)"))
    parser.add_argument("--folds", type=int, default=None,
                        help="use folds 0..N-1 (default: every fold file present" +
                             (")" if rank else "; without --datasets, only those for which the method has a "
                                               "ranking)"))
    parser.add_argument("--data-dir", type=Path, default=Path("data/paper_matlab_minmax"),
                        help="folder of <DATASET>/fold<i>.mat files (python -m pipeline.export_splits)")
    default_results = {"kgrid": "results/bench_paper_kgrid", "pgrid": "results/bench_paper_pgrid",
                       None: "results/bench_paper_kgrid"}[mode]
    parser.add_argument("--results-dir", type=Path, default=Path(default_results),
                        help="where <METHOD>/<DATASET>_fold<i>_* and runs/ go")
    parser.add_argument("--mlknn-k", type=int, default=RUN_OPTION_DEFAULTS["mlknn_k"], help="ML-kNN neighbours (Num)")
    parser.add_argument("--mlknn-smooth", type=float, default=RUN_OPTION_DEFAULTS["mlknn_smooth"],
                        help="ML-kNN Laplace smoothing")
    if mode is None:
        parser.add_argument("--grid", choices=("kgrid", "pgrid"), default="kgrid", help="which grid to score")
    if mode in ("kgrid", None):
        parser.add_argument("--k-min", type=int, default=RUN_OPTION_DEFAULTS["k_min"],
                            help="smallest k (a fold with d < k-min uses k = d)")
        parser.add_argument("--k-max", type=int, default=RUN_OPTION_DEFAULTS["k_max"], help="largest k (clipped to d)")
        parser.add_argument("--k-step", type=int, default=RUN_OPTION_DEFAULTS["k_step"], help="step of the k-grid")
    if mode in ("pgrid", None):
        parser.add_argument("--p-min", type=float, default=RUN_OPTION_DEFAULTS["p_min"],
                            help="smallest share of the d features, in (0, 1]")
        parser.add_argument("--p-max", type=float, default=RUN_OPTION_DEFAULTS["p_max"],
                            help="largest share of the d features, in [p-min, 1]")
        parser.add_argument("--p-step", type=float, default=RUN_OPTION_DEFAULTS["p_step"],
                            help="step of the p-grid, in (0, 1]")
        parser.add_argument("--p-target", type=float, default=RUN_OPTION_DEFAULTS["p_target"],
                            help="operating point recorded as <metric>_at_p_target (and used by the tables), "
                                 "in (0, 1]")
    reuse = parser.add_mutually_exclusive_group()
    reuse.add_argument("--skip-existing", action="store_true",
                       help="keep results that are complete and fresh (same settings, made by the current code); "
                            "recompute the stale ones and say why")
    reuse.add_argument("--overwrite", action="store_true",
                       help=("recompute rankings and metrics" if rank else
                             "recompute the metrics (the rankings are the given ones, never recomputed)")
                       + " (also over results made with other settings)")
    parser.add_argument("--executor", choices=EXECUTORS, default="serial",
                        help="serial, local worker processes, or Dask (see --scheduler)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (process and dask executors)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a running Dask scheduler (tcp://HOST:PORT) to use instead of a LocalCluster")
    parser.add_argument("--claim-stale-after", type=float, default=DEFAULT_STALE_AFTER,
                        help="seconds after which another host's task claim counts as abandoned")
    parser.add_argument("--task-timeout", type=float, default=DEFAULT_TASK_TIMEOUT,
                        help="seconds a whole task may take (ranking, ML-kNN, files) before its worker process "
                             "and everything it started are killed and the task ends out of budget (time)")
    parser.add_argument("--task-memory", default=DEFAULT_TASK_MEMORY, metavar="SIZE",
                        help="memory each process of a task (its worker, its Octave) may add to its address space, "
                             "e.g. 8GiB or 512MiB: an allocation beyond it ends the task out of budget (memory) "
                             "(default: no limit)")
    parser.add_argument("--max-tasks", type=int, default=DEFAULT_MAX_TASKS,
                        help="refuse a run of more tasks (methods x sweep combinations x datasets x folds)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None, *, prog: str, mode: str | None, rank: bool) -> int:
    """Parse the options, build the experiment they describe (validated as a suite file is) and run it."""
    args = build_parser(prog, mode, rank).parse_args(argv)
    # before the experiment's mapping of methods would merge a second mention into the first
    distinct_names(args.methods, "--methods", "method")
    use_matlab_dir(args)
    # The experiment model imports pydantic and the runner: imported once the arguments are parsed,
    # so --help and a usage error answer at once.
    from .experiment.model import experiment_from_options
    from .experiment.run import run_experiment
    from .experiment.tuning import check_task_count

    overrides = _read_params(args.params, args.methods) if rank else {}
    data = _experiment_options(args, mode or args.grid, rank, overrides)
    try:
        experiment = experiment_from_options(data, args.plugins).restricted(methods=args.methods)
    except ConfigError as exc:
        raise _as_option_error(exc, args.params) from None
    if rank:
        check_runnable([entry.name for entry in experiment.methods], experiment.engine)
    _generate_missing_demo_folds(args)
    experiment = experiment.located(args.data_dir, args.results_dir)
    check_task_count(experiment, experiment.max_tasks)
    arguments = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    return run_experiment(experiment, folds_dir=args.data_dir, results_dir=args.results_dir, arguments=arguments)


def _generate_missing_demo_folds(args: argparse.Namespace) -> None:
    """The demo's folds are generated, not downloaded: where ``--datasets demo`` asks for them and
    ``--data-dir`` has none (an installed package run in an empty folder), they are exported there
    first, byte for byte the checkout's copy."""
    from .data.folds import fold_path

    if "demo" not in (args.datasets or []) or fold_path(args.data_dir, "demo", 0).is_file():
        return
    from .data.export import DEMO_FOLDS, export_dataset
    from .data.registry import load_dataset

    written = export_dataset(load_dataset("demo"), args.data_dir, DEMO_FOLDS)
    print(f"demo: generated its {len(written)} folds in {Path(args.data_dir) / 'demo'}", file=sys.stderr)


def _experiment_options(args: argparse.Namespace, mode: str, rank: bool, overrides: dict[str, dict]) -> dict:
    """The options as an experiment's keys (schema: :mod:`pipeline.experiment.schema`)."""
    grid = {"kgrid": ("k_min", "k_max", "k_step"), "pgrid": ("p_min", "p_max", "p_step", "p_target")}[mode]
    methods = {name: _method_options(overrides.get(name, {}), rank) for name in args.methods}
    return {
        "name": "run", "folds": {"mode": "files", "dir": str(args.data_dir),
                                 **({"count": args.folds} if args.folds is not None else {})},
        # each name checked here first, for the name check's message rather than the schema's length bound
        **({"datasets": [validate_name(d, "dataset") for d in args.datasets]} if args.datasets is not None else {}),
        "methods": methods, "engine": getattr(args, "engine", "python"), "evaluator": args.evaluator,
        "score_only": not rank, "mlknn": {"k": args.mlknn_k, "smooth": args.mlknn_smooth},
        "grids": {mode: {key: getattr(args, key) for key in grid}},
        "run": {"results_dir": str(args.results_dir), "executor": args.executor, "jobs": args.jobs,
                "task_timeout": args.task_timeout, "task_memory": args.task_memory, "skip_existing": args.skip_existing, "overwrite": args.overwrite,
                "scheduler": args.scheduler, "claim_stale_after": args.claim_stale_after,
                "max_tasks": args.max_tasks, "progress": not args.no_progress},
        "tables": None,
    }


def _method_options(overrides: dict, rank: bool) -> dict:
    """One method's keys: its fixed parameters and its swept lists (``--params``), or given rankings."""
    if not rank:
        return {"external": True}
    return {"params": {k: v for k, v in overrides.items() if not isinstance(v, list)},
            "sweep": {k: v for k, v in overrides.items() if isinstance(v, list)}}


#: The option of each experiment key the command line sets under another name.
_OPTION_OF_KEY = {"mlknn.k": "--mlknn-k", "mlknn.smooth": "--mlknn-smooth", "folds.count": "--folds",
                  "folds.dir": "--data-dir", "run.results_dir": "--results-dir", "datasets": "--datasets",
                  "methods": "--methods"}


def _as_option_error(exc: ConfigError, params_file: Path | None) -> ConfigError:
    """``exc`` with its experiment key named as the user wrote it: the option (``mlknn.k`` ->
    ``--mlknn-k``, ``grids.pgrid.p_min`` -> ``--p-min``, a method of ``methods`` -> ``--methods``),
    or a method's parameter in the parameter file (``methods.SRFS.sweep.alpha`` -> ``SRFS.alpha`` of
    that file)."""
    parts = exc.field.split(".") if exc.field else []
    if parts[:1] == ["methods"] and parts[2:3] in (["params"], ["sweep"]):
        return ConfigError(exc.message, file=params_file, field=".".join([parts[1], *parts[3:]]),
                           expected=exc.expected, found=exc.found)
    key = ".".join(parts[:2]) if parts[:1] in (["mlknn"], ["folds"], ["run"]) else ".".join(parts[:1])
    option = _OPTION_OF_KEY.get(key) or (f"--{parts[-1].replace('_', '-')}" if parts[:1] in (["grids"], ["run"])
                                         else f"--{key}" if key else None)
    return ConfigError(exc.message, file=exc.file, field=option, expected=exc.expected, found=exc.found)


class _DefaultsFormatter(argparse.HelpFormatter):
    """Adds "(default: ...)" to options that have a meaningful default and do not state one."""

    def _get_help_string(self, action):
        help_text = action.help or ""
        if "default" in help_text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return help_text
        return f"{help_text} (default: %(default)s)".strip()


def _read_params(path: Path | None, methods: list[str]) -> dict[str, dict]:
    """``{METHOD: {param: value}}`` from a JSON or YAML file (safe loader only); a list of values sweeps
    that parameter. Every method it names must be one of ``methods`` (a parameter of a method not
    run, or of a misspelt one, would be silently ignored); the values are checked by the experiment model."""
    if path is None:
        return {}
    data = read_document(path, "parameter file", limits=PARAMS_LIMITS)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError("parameter file must map method names to parameter objects", file=path,
                          expected='{"DAGFS": {"alpha": 0.2}}')
    for name in data:
        if name not in methods:
            raise ConfigError("parameters of a method this run does not run (they would be ignored)", file=path,
                              field=str(name), expected=f"one of --methods {methods}")
    return data
