"""The shared command line of ``pipeline.kgrid``, ``pipeline.pgrid`` and ``pipeline.evaluate``."""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import re
from numbers import Real
from pathlib import Path
from typing import Sequence

from .cli import add_code_options, check_option_bounds, use_matlab_dir
from .data.folds import discover_datasets, list_fold_indices
from .definitions import RUN_OPTION_DEFAULTS
from .documents import CONFIG_LIMITS, read_document
from .engines import ENGINES, EVALUATORS
from .errors import ConfigError
from .limits import (CLAIM_STALE_AFTER, DEFAULT_MAX_TASKS, FOLD_COUNT, JOB_COUNT, MAX_PARAMS_FILE_BYTES, RUN_OPTION_RANGES, TASK_COUNT,
                     TASK_TIMEOUT)
from .methods import available_methods, get_method
from .names import validate_name
from .results.layout import task_files, variant_folder
from .runner.claims import DEFAULT_STALE_AFTER
from .runner.executors import EXECUTORS, execute
from .runner.orchestration import run_recorded
from .runner.plugins import activate_plugins, check_runnable, engine_options, plugin_paths
from .runner.run import RunSettings
from .runner.reference import reference_tasks
from .runner.tasks import GridSpec, Task, canonical_params

#: Ranges of the numeric options, the same as the suite keys' (checked after the lower bounds of
#: _check_arguments, whose messages say "positive"); the p-grid's are GridSpec's.
OPTION_BOUNDS = {"--mlknn-k": RUN_OPTION_RANGES["mlknn_k"], "--mlknn-smooth": RUN_OPTION_RANGES["mlknn_smooth"],
                 **{f"--k-{part}": RUN_OPTION_RANGES[f"k_{part}"] for part in ("min", "max", "step")},
                 "--folds": FOLD_COUNT, "--jobs": JOB_COUNT, "--max-tasks": TASK_COUNT, "--task-timeout": TASK_TIMEOUT,
                 "--claim-stale-after": CLAIM_STALE_AFTER}
#: A Dask scheduler address: protocol://host[:port] (tcp, tls, ucx, ws, wss, inproc).
SCHEDULER_ADDRESS = re.compile(r"(tcp|tls|ucx|ws|wss|inproc)://[A-Za-z0-9._\-\[\]:]{1,253}(:[0-9]{1,5})?")
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
    parser.add_argument("--task-timeout", type=float, default=3600.0,
                        help="seconds an Octave/MATLAB call may take before it is stopped")
    parser.add_argument("--max-tasks", type=int, default=DEFAULT_MAX_TASKS,
                        help="refuse a run of more tasks (methods x sweep combinations x datasets x folds)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def use_code_options(args: argparse.Namespace, engine: str, timeout: float) -> tuple[tuple[str, ...], dict]:
    """Apply ``--matlab-dir`` (for this process and its workers) and load the ``--plugins`` folders
    for ``engine``; return the folders and the engine options of the run."""
    use_matlab_dir(args)
    plugins = plugin_paths(args.plugins)
    options = engine_options(timeout, plugins)
    activate_plugins(plugins, engine, options)
    return plugins, options


def main(argv: Sequence[str] | None, *, prog: str, mode: str | None, rank: bool) -> int:
    args = build_parser(prog, mode, rank).parse_args(argv)
    _check_arguments(args)
    engine = getattr(args, "engine", "python")
    plugins, options = use_code_options(args, engine, args.task_timeout)
    if rank:
        check_runnable([validate_name(m, "method") for m in args.methods], engine)
    grid = _grid_from_args(args, mode or args.grid)
    if not args.data_dir.is_dir():
        raise ConfigError("data directory not found", file=args.data_dir)
    datasets = [validate_name(d, "dataset") for d in (args.datasets or discover_datasets(args.data_dir))]
    if not datasets:
        raise ConfigError("no dataset folder with fold0.mat found", file=args.data_dir)
    overrides = _load_params(args.params, args.max_tasks) if rank else {}
    tasks = _make_tasks(args, datasets, overrides, rank)
    settings = RunSettings(
        data_dir=str(args.data_dir), results_dir=str(args.results_dir), grids=(grid,),
        engine=engine, evaluator=args.evaluator, mlknn_k=args.mlknn_k,
        mlknn_smooth=args.mlknn_smooth, skip_existing=args.skip_existing, overwrite=args.overwrite,
        rank=rank, claim_stale_after=args.claim_stale_after, engine_options=options, plugins=plugins)
    arguments = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}

    def run_tasks(executor, settings, stop, on_outcome):
        return execute(executor, tasks, progress=not args.no_progress, stop=stop, on_outcome=on_outcome)

    return run_recorded(settings, arguments, run_tasks, executor=args.executor, jobs=args.jobs,
                        scheduler=args.scheduler, n_tasks=len(tasks))


class _DefaultsFormatter(argparse.HelpFormatter):
    """Adds "(default: ...)" to options that have a meaningful default and do not state one."""

    def _get_help_string(self, action):
        help_text = action.help or ""
        if "default" in help_text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return help_text
        return f"{help_text} (default: %(default)s)".strip()


def _grid_from_args(args, mode: str) -> GridSpec:
    """The run's grid; a refused grid value is reported under its option's name (``--p-min``)."""
    try:
        if mode == "kgrid":
            return GridSpec("kgrid", k_min=args.k_min, k_max=args.k_max, k_step=args.k_step)
        return GridSpec("pgrid", p_min=args.p_min, p_max=args.p_max, p_step=args.p_step, p_target=args.p_target)
    except ConfigError as exc:
        option = "--" + exc.field.replace("_", "-") if exc.field else None
        raise ConfigError(exc.message, field=option, expected=exc.expected, found=exc.found) from None


def _check_arguments(args: argparse.Namespace) -> None:
    """ConfigError for a numeric option out of its range, a malformed scheduler address or a name
    listed twice."""
    positive_counts = {"--mlknn-k": args.mlknn_k, "--jobs": args.jobs, "--max-tasks": args.max_tasks,
                       "--folds": 1 if args.folds is None else args.folds,
                       **{f"--k-{part}": getattr(args, f"k_{part}", 1) for part in ("min", "max", "step")}}
    for option, value in positive_counts.items():
        if value < 1:
            raise ConfigError("must be a positive integer", field=option, found=value)
    positive_reals = {"--mlknn-smooth": args.mlknn_smooth, "--task-timeout": args.task_timeout,
                      "--claim-stale-after": args.claim_stale_after}
    for option, value in positive_reals.items():
        if not (math.isfinite(value) and value > 0):
            raise ConfigError("must be a finite number > 0", field=option, found=value)
    check_option_bounds(args, OPTION_BOUNDS)
    if args.scheduler is not None and not SCHEDULER_ADDRESS.fullmatch(args.scheduler):
        raise ConfigError("not a scheduler address", field="--scheduler", expected="tcp://HOST:PORT",
                          found=repr(args.scheduler))
    for option, names in (("--methods", args.methods), ("--datasets", args.datasets or [])):
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ConfigError("listed twice (it would run twice)", field=option, found=repeated[0])


def _load_params(path: Path | None, max_tasks: int) -> dict[str, dict]:
    """Read ``{METHOD: {param: value}}`` from JSON or YAML (safe loader only) and check it.

    Every value, and every value of a swept list, is checked against the method's defaults
    (:meth:`~pipeline.methods.base.MethodSpec.resolve_params`); a list may not repeat a value, and
    a sweep of more than ``max_tasks`` combinations is refused before it is expanded.
    """
    if path is None:
        return {}
    data = read_document(path, "parameter file", limits=PARAMS_LIMITS)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError("parameter file must map method names to parameter objects", file=path,
                          expected='{"DAGFS": {"alpha": 0.2}}')
    for method, params in data.items():
        try:
            _check_sweep(method, params, max_tasks, path)
            parameter_variants(method, params, max_tasks)
        except ConfigError as exc:
            raise exc if exc.file else ConfigError(exc.message, file=path, field=_in_method(method, exc.field),
                                                   expected=exc.expected, found=exc.found) from None
    return data


def _in_method(method: str, field: str | None) -> str:
    return f"{method}.{field}" if field and not field.startswith("--") else (field or method)


def _check_sweep(method: str, overrides: dict, max_tasks: int, path: Path) -> None:
    """Check one method's parameters and sweep lists without expanding their product."""
    spec = get_method(validate_name(method, "method"))
    _check_combinations(method, overrides, max_tasks)
    for name, value in overrides.items():
        values = value if isinstance(value, list) else [value]
        if not values:
            raise ConfigError(f"empty value list in the parameter sweep of {method}", file=path,
                              field=name)
        seen = set()
        for item in values:
            spec.resolve_params({name: item})
            key = _sweep_key(item)
            if key in seen:
                raise ConfigError(f"value listed twice in the parameter sweep of {method} (it would "
                                  "run twice)", file=path, field=name, found=repr(item))
            seen.add(key)


def _make_tasks(args, datasets: list[str], overrides: dict[str, dict], rank: bool) -> list[Task]:
    """Every (dataset, method variant, fold) task, then (when ranking) the all-features reference of every
    (dataset, fold); ConfigError beyond ``--max-tasks`` (which counts the methods' tasks)."""
    methods = [validate_name(m, "method") for m in args.methods]
    if rank:
        for method in methods:
            get_method(method)
    else:
        for method in methods:
            if not (args.results_dir / method).is_dir():
                raise ConfigError("method folder not found", file=args.results_dir / method)
    variants = {method: parameter_variants(method, overrides.get(method, {}), args.max_tasks)
                for method in methods}
    folds = {dataset: _fold_indices(args.data_dir, dataset, args.folds) for dataset in datasets}
    total = sum(map(len, variants.values())) * sum(map(len, folds.values()))
    if total > args.max_tasks:
        raise ConfigError(f"the run has {total} tasks", field="--max-tasks",
                          expected=f"at most {args.max_tasks} (raise --max-tasks to run them)")
    tasks = []
    for dataset in datasets:
        for method in methods:
            for label, params in variants[method]:
                tasks.extend(Task(method, dataset, fold, canonical_params(params), label)
                             for fold in folds[dataset] if rank or _has_ranking(args, label, dataset, fold))
    if not tasks:
        raise ConfigError("no ranking to score for these methods", file=args.results_dir,
                          expected="<METHOD>/<DATASET>_fold<i>_ranking.csv")
    return tasks + reference_tasks(folds) if rank else tasks


def _has_ranking(args, method: str, dataset: str, fold: int) -> bool:
    """Evaluate's default: score only what has a ranking, unless --datasets named the datasets."""
    return args.datasets is not None or task_files(args.results_dir, method, dataset, fold).ranking.is_file()


def parameter_variants(method: str, overrides: dict, max_variants: int = DEFAULT_MAX_TASKS
                       ) -> list[tuple[str, dict]]:
    """Expand list-valued parameters into their Cartesian product.

    Returns ``(results folder, parameters)`` pairs. Without lists there is one variant stored under
    the method's own name; with lists each combination gets its own folder
    ``METHOD__name_value__name_value`` (swept names in sorted order), e.g. ``LRMFS__alpha_0.1``.
    More than ``max_variants`` combinations raise ConfigError before any is built.
    """
    swept = sorted(name for name, value in overrides.items() if isinstance(value, list))
    if not swept:
        return [(method, dict(overrides))]
    if any(len(overrides[name]) == 0 for name in swept):
        raise ConfigError(f"empty value list in the parameter sweep of {method}", field=swept[0])
    _check_combinations(method, overrides, max_variants)
    variants = []
    for combination in itertools.product(*(overrides[name] for name in swept)):
        params = {**overrides, **dict(zip(swept, combination))}
        label = variant_folder(method, zip(swept, combination))
        variants.append((validate_name(label, "parameter-sweep folder"), params))
    _check_distinct_folders(method, variants)
    return variants


def _check_distinct_folders(method: str, variants: list[tuple[str, dict]]) -> None:
    """ConfigError if two combinations would share a results folder (also on a file system that
    ignores case): the second would silently overwrite or reuse the first one's results."""
    seen: dict[str, dict] = {}
    for label, params in variants:
        other = seen.setdefault(label.lower(), params)
        if other is not params:
            raise ConfigError(f"two combinations of the parameter sweep of {method} map to the same results "
                              "folder", field=label, expected="values that differ in their written form",
                              found=f"{other} and {params}")


def _check_combinations(method: str, overrides: dict, limit: int) -> None:
    """ConfigError if the swept lists of ``overrides`` have more than ``limit`` combinations."""
    combinations = math.prod(len(v) for v in overrides.values() if isinstance(v, list))
    if combinations > limit:
        raise ConfigError(f"the parameter sweep of {method} has {combinations} combinations",
                          field="--max-tasks", expected=f"at most {limit} (raise --max-tasks to run them)")


def _sweep_key(value) -> object:
    """What makes two swept values the same run: numbers by value (1 == 1.0), others by type and text."""
    if isinstance(value, Real) and not isinstance(value, bool):
        return float(value)
    return type(value).__name__, repr(value)


def _fold_indices(data_dir: Path, dataset: str, n_folds: int | None) -> list[int]:
    present = list_fold_indices(data_dir, dataset)
    if not present:
        raise ConfigError("no fold files", file=data_dir / dataset, expected="fold0.mat, fold1.mat, ...")
    if n_folds is None:
        return present
    missing = sorted(set(range(n_folds)) - set(present))
    if missing:
        raise ConfigError("fold files missing", file=data_dir / dataset,
                          expected=f"fold0..fold{n_folds - 1}", found=f"no fold{missing[0]}.mat")
    return list(range(n_folds))
