"""The shared command line of ``pipeline.kgrid``, ``pipeline.pgrid`` and ``pipeline.evaluate``."""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import re
import sys
import time
from numbers import Real
from pathlib import Path
from typing import Sequence

from .cli import Bounds, add_code_options, check_option_bounds, use_matlab_dir
from .data.folds import discover_datasets, list_fold_indices
from .data.splits import MAX_FOLDS
from .documents import CONFIG_LIMITS, read_document
from .engines import ENGINES, EVALUATORS
from .errors import ConfigError, StorageError
from .limits import MAX_CLAIM_STALE_AFTER, MAX_MLKNN_K, MAX_MLKNN_SMOOTH, MAX_TASK_TIMEOUT, MAX_TASKS_LIMIT
from .methods import available_methods, get_method
from .names import validate_name
from .runner.claims import DEFAULT_STALE_AFTER
from .runner.executors import EXECUTORS, RunResult, execute, make_executor
from .runner.history import RunHistory
from .runner.lifecycle import RunStop
from .runner.manifest import remove_partial_reports, write_failures
from .runner.plugins import activate_plugins, check_runnable, engine_options, plugin_paths
from .runner.run import RunSettings
from .runner.store import ensure_results_root
from .runner.reference import reference_tasks
from .runner.tasks import GridSpec, Task, canonical_params

_USER_ERRORS = {"ConfigError", "DataError", "RankingError", "StorageError"}
STATUSES = ("done", "skipped", "done_elsewhere", "failed", "interrupted")
#: Default of ``--max-tasks``: several full paper suites (17 datasets x 5 folds x 11 methods = 935
#: tasks), while a mistyped sweep of a million combinations is refused before it is expanded.
DEFAULT_MAX_TASKS = 10_000
#: Largest parameter file read (a JSON/YAML of method parameters is a few hundred bytes).
MAX_PARAMS_FILE_BYTES = 1 << 20
#: Upper bounds of the numeric options (lower bounds: _check_arguments).
OPTION_BOUNDS = {"--mlknn-k": Bounds(1, MAX_MLKNN_K), "--mlknn-smooth": Bounds(0, MAX_MLKNN_SMOOTH, low_open=True),
                 "--folds": Bounds(1, MAX_FOLDS), "--max-tasks": Bounds(1, MAX_TASKS_LIMIT),
                 "--task-timeout": Bounds(0, MAX_TASK_TIMEOUT, low_open=True),
                 "--claim-stale-after": Bounds(0, MAX_CLAIM_STALE_AFTER, low_open=True)}
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
    parser.add_argument("--mlknn-k", type=int, default=10, help="ML-kNN neighbours (Num)")
    parser.add_argument("--mlknn-smooth", type=float, default=1.0, help="ML-kNN Laplace smoothing")
    if mode is None:
        parser.add_argument("--grid", choices=("kgrid", "pgrid"), default="kgrid", help="which grid to score")
    if mode in ("kgrid", None):
        parser.add_argument("--k-min", type=int, default=10, help="smallest k (a fold with d < k-min uses k = d)")
        parser.add_argument("--k-max", type=int, default=300, help="largest k (clipped to d)")
        parser.add_argument("--k-step", type=int, default=10, help="step of the k-grid")
    if mode in ("pgrid", None):
        parser.add_argument("--p-min", type=float, default=0.05,
                            help="smallest share of the d features, in (0, 1]")
        parser.add_argument("--p-max", type=float, default=0.5,
                            help="largest share of the d features, in [p-min, 1]")
        parser.add_argument("--p-step", type=float, default=0.05, help="step of the p-grid, in (0, 1]")
        parser.add_argument("--p-target", type=float, default=0.2,
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
    root = ensure_results_root(args.results_dir)
    arguments = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    history = RunHistory(root, arguments)
    settings = RunSettings(
        data_dir=str(args.data_dir), results_dir=str(root), grids=(grid,),
        engine=engine, evaluator=args.evaluator, mlknn_k=args.mlknn_k,
        mlknn_smooth=args.mlknn_smooth, skip_existing=args.skip_existing, overwrite=args.overwrite,
        rank=rank, claim_stale_after=args.claim_stale_after, engine_options=options,
        log_file=str(history.log_path), run_started=time.time(), plugins=plugins)
    remove_partial_reports(root, args.claim_stale_after)
    with RunStop(ends_process=True) as stop, history.closed_on_error():  # a signal, even while workers
        # start or close, ends with reports and 128 + n
        with make_executor(args.executor, settings, args.jobs, args.scheduler, len(tasks)) as executor:
            history.start(settings)
            result = execute(executor, tasks, progress=not args.no_progress, stop=stop,
                             on_outcome=lambda o: history.log(describe_outcome(o)))
        code = finish_run(history, root, result)
    return 128 + stop.signum if stop.signum is not None else code


def finish_run(history: RunHistory, root: Path, result: RunResult, **extra) -> int:
    """Write the run's record (with ``extra`` summary fields) and failures.json, then report on the
    terminal; return the exit code.

    A report that cannot be written (e.g. the disk is full) is said after the summary, exit code 2.
    """
    summary = {**summarise_outcomes(result.outcomes), **extra}
    problems = [problem for problem in (_attempt(history.finish, summary),
                                        _attempt(write_failures, root, result.outcomes)) if problem is not None]
    code = report_outcomes(result.outcomes, summary, root, result.stop_reason, result.stop_signal)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return max(code, 2) if problems else code


def _attempt(write, *args) -> StorageError | None:
    try:
        write(*args)
    except StorageError as exc:
        return exc
    return None


class _DefaultsFormatter(argparse.HelpFormatter):
    """Adds "(default: ...)" to options that have a meaningful default and do not state one."""

    def _get_help_string(self, action):
        help_text = action.help or ""
        if "default" in help_text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return help_text
        return f"{help_text} (default: %(default)s)".strip()


def _is_stale_reason(reason: str) -> bool:
    return reason not in ("no ranking yet", "no metrics yet", "recomputed (no --skip-existing)", "--overwrite")


def _warn_degenerate(outcomes) -> None:
    """Say which tasks selected mostly training-constant features (their metrics are meaningless there)."""
    flagged = [o for o in outcomes if o.degenerate_points]
    if not flagged:
        return
    listed = ", ".join(f"{o.task.key} ({o.degenerate_points} points)" for o in flagged[:5])
    more = f" and {len(flagged) - 5} more" if len(flagged) > 5 else ""
    print(f"warning: {len(flagged)} task(s) selected mostly features that are constant on the training part "
          f"at some grid points: {listed}{more}; see n_constant_selected and degenerate in their metrics files",
          file=sys.stderr)


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
                       "--folds": 1 if args.folds is None else args.folds}
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
    return args.datasets is not None or (args.results_dir / method / f"{dataset}_fold{fold}_ranking.csv").is_file()


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
        label = "__".join([method, *(f"{name}_{value}" for name, value in zip(swept, combination))])
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


def summarise_outcomes(outcomes) -> dict:
    """Counts per status, and per reason of the tasks that were computed."""
    summary = {status: sum(o.status == status for o in outcomes) for status in STATUSES}
    reasons: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.status == "done" and outcome.reason:
            reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
    summary["computed_because"] = dict(sorted(reasons.items(), key=lambda item: -item[1]))
    summary["degenerate_tasks"] = sum(o.degenerate_points > 0 for o in outcomes)
    return summary


def describe_outcome(outcome) -> str:
    """One log line for a task: status, key, why it ran or what went wrong, seconds."""
    detail = outcome.message or outcome.reason
    return f"{outcome.status} {outcome.task.key}" + (f" ({detail})" if detail else "") + f" {outcome.seconds:.2f}s"


def report_outcomes(outcomes, summary: dict, root: Path, stop_reason: str | None = None,
                    stop_signal: int | None = None) -> int:
    """Print the run summary (counts, stale recomputations, degenerate selections, failures, why the
    run stopped early); return the exit code.

    2 when tasks were interrupted (the run stopped early) or every failure is a user error; 1 when
    a task failed otherwise; 0 when all went well. (``main`` makes a signal 128 + its number.)
    """
    print(", ".join(f"{summary[s]} {s.replace('_', ' ')}" for s in STATUSES) + f" -> {root}", file=sys.stderr)
    stale = {reason: n for reason, n in summary["computed_because"].items() if _is_stale_reason(reason)}
    for reason, count in stale.items():
        print(f"recomputed {count} stale task(s): {reason}", file=sys.stderr)
    _warn_degenerate(outcomes)
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed[:10]:
        print(f"FAILED {outcome.task.key}: {outcome.message}", file=sys.stderr)
    if summary["interrupted"]:
        advice = "fix it, then resume" if stop_reason and stop_signal is None else "resume"
        print(f"{stop_reason or 'the run stopped early'}; {advice} with --skip-existing", file=sys.stderr)
    if not failed and not summary["interrupted"]:
        return 0
    if (root / "failures.json").is_file():
        print(f"details: {root / 'failures.json'}", file=sys.stderr)
    if summary["interrupted"]:
        return 2
    return 2 if all(o.error_type in _USER_ERRORS for o in failed) else 1
