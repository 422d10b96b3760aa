"""The shared command line of ``pipeline.kgrid``, ``pipeline.pgrid`` and ``pipeline.evaluate``."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Sequence

import yaml

from .data.folds import discover_datasets, list_fold_indices
from .engines import ENGINES, EVALUATORS
from .errors import ConfigError, StorageError
from .methods import available_methods, get_method
from .names import validate_name
from .runner.executors import EXECUTORS, RunResult, execute, make_executor
from .runner.lifecycle import RunStop
from .runner.manifest import now_iso, remove_partial_reports, write_failures, write_manifest
from .runner.run import RunSettings
from .runner.store import ensure_results_root
from .runner.tasks import GridSpec, Task, canonical_params

_USER_ERRORS = {"ConfigError", "DataError", "RankingError", "StorageError"}
STATUSES = ("done", "skipped", "done_elsewhere", "failed", "interrupted")


def build_parser(prog: str, mode: str | None, rank: bool) -> argparse.ArgumentParser:
    """Arguments common to the three front doors; ``mode=None`` adds ``--grid``."""
    what = "rank features on each training fold and score" if rank else "score existing rankings"
    grid_text = {"kgrid": "over k = k-min..k-max (step k-step, clipped to d)",
                 "pgrid": "over p = p-min..p-max of the d features (tables use p-target)",
                 None: "over the k-grid or the p-grid (--grid)"}[mode]
    parser = argparse.ArgumentParser(
        prog=prog,
        description=f"For every (method, dataset, fold): {what} them with ML-kNN on the test part "
                    f"{grid_text}. Results go to RESULTS_DIR/<METHOD>/<DATASET>_fold<i>_*; see "
                    "docs/results-schema.md. Exit codes: 0 ok, 1 a task failed (see failures.json), "
                    "2 bad input or an unusable results folder, 130 interrupted (Ctrl-C; 143 for SIGTERM).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    if rank:
        parser.add_argument("--methods", nargs="+", required=True,
                            help=f"methods to run, among {available_methods()}")
        parser.add_argument("--engine", choices=ENGINES, default="octave",
                            help="where baselines run; Python-only methods (DAGFS, RANDOM) always run in Python")
        parser.add_argument("--params", type=Path, default=None,
                            help="JSON/YAML file {METHOD: {param: value}} overriding defaults; a list of "
                                 "values sweeps that parameter (one result folder per combination)")
    else:
        parser.add_argument("--methods", nargs="+", required=True,
                            help="method folders under --results-dir holding *_ranking.csv files")
    parser.add_argument("--evaluator", choices=EVALUATORS, default="native", help="where ML-kNN runs")
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="dataset folders under --data-dir (default: every folder with fold0.mat)")
    parser.add_argument("--folds", type=int, default=None,
                        help="use folds 0..N-1 (default: every fold file present)")
    parser.add_argument("--data-dir", type=Path, default=Path("data/paper_matlab_minmax"))
    default_results = {"kgrid": "results/bench_paper_kgrid", "pgrid": "results/bench_paper_pgrid",
                       None: "results/bench_paper_kgrid"}[mode]
    parser.add_argument("--results-dir", type=Path, default=Path(default_results))
    parser.add_argument("--mlknn-k", type=int, default=10, help="ML-kNN neighbours (Num)")
    parser.add_argument("--mlknn-smooth", type=float, default=1.0, help="ML-kNN Laplace smoothing")
    if mode is None:
        parser.add_argument("--grid", choices=("kgrid", "pgrid"), default="kgrid")
    if mode in ("kgrid", None):
        parser.add_argument("--k-min", type=int, default=10)
        parser.add_argument("--k-max", type=int, default=300)
        parser.add_argument("--k-step", type=int, default=10)
    if mode in ("pgrid", None):
        parser.add_argument("--p-min", type=float, default=0.05)
        parser.add_argument("--p-max", type=float, default=0.5)
        parser.add_argument("--p-step", type=float, default=0.05)
        parser.add_argument("--p-target", type=float, default=0.2)
    reuse = parser.add_mutually_exclusive_group()
    reuse.add_argument("--skip-existing", action="store_true",
                       help="keep tasks whose complete, valid result file already exists")
    reuse.add_argument("--overwrite", action="store_true", help="recompute rankings and metrics")
    parser.add_argument("--executor", choices=EXECUTORS, default="serial")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (process and dask executors)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a running Dask scheduler (tcp://HOST:PORT) to use instead of a LocalCluster")
    parser.add_argument("--claim-stale-after", type=float, default=6 * 3600.0,
                        help="seconds after which another host's task claim counts as abandoned")
    parser.add_argument("--task-timeout", type=float, default=3600.0,
                        help="seconds an Octave/MATLAB call may take before it is stopped")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None, *, prog: str, mode: str | None, rank: bool) -> int:
    args = build_parser(prog, mode, rank).parse_args(argv)
    grid = _grid_from_args(args, mode or args.grid)
    if not args.data_dir.is_dir():
        raise ConfigError("data directory not found", file=args.data_dir)
    datasets = [validate_name(d, "dataset") for d in (args.datasets or discover_datasets(args.data_dir))]
    if not datasets:
        raise ConfigError("no dataset folder with fold0.mat found", file=args.data_dir)
    overrides = _load_params(args.params) if rank else {}
    tasks = _make_tasks(args, datasets, overrides, rank)
    root = ensure_results_root(args.results_dir)
    settings = RunSettings(
        data_dir=str(args.data_dir), results_dir=str(root), grid=grid,
        engine=getattr(args, "engine", "python"), evaluator=args.evaluator, mlknn_k=args.mlknn_k,
        mlknn_smooth=args.mlknn_smooth, skip_existing=args.skip_existing, overwrite=args.overwrite,
        rank=rank, claim_stale_after=args.claim_stale_after, engine_options={"timeout": args.task_timeout},
        run_started=time.time())
    remove_partial_reports(root, args.claim_stale_after)
    started = now_iso()
    arguments = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    with RunStop() as stop:  # a signal, even while workers start or close, ends with reports and 128 + n
        with make_executor(args.executor, settings, args.jobs, args.scheduler) as executor:
            write_manifest(root, arguments, started, None)
            result = execute(executor, tasks, progress=not args.no_progress, stop=stop)
        code = _finish(root, arguments, started, result)
    return 128 + stop.signum if stop.signum is not None else code


def _finish(root: Path, arguments: dict, started: str, result: RunResult) -> int:
    """Report the run on the terminal, then in config.json and failures.json; return the exit code."""
    summary = {status: sum(o.status == status for o in result.outcomes) for status in STATUSES}
    code = _report(result, summary, root)
    try:
        write_manifest(root, arguments, started, now_iso(), summary)
        details = write_failures(root, result.outcomes)
    except StorageError as exc:  # e.g. the disk filled up: the outcome was reported above all the same
        print(f"error: {exc}", file=sys.stderr)
        return max(code, 2)
    if details is not None:
        print(f"details: {details}", file=sys.stderr)
    return code


def _grid_from_args(args, mode: str) -> GridSpec:
    if mode == "kgrid":
        return GridSpec("kgrid", k_min=args.k_min, k_max=args.k_max, k_step=args.k_step)
    return GridSpec("pgrid", p_min=args.p_min, p_max=args.p_max, p_step=args.p_step, p_target=args.p_target)


def _load_params(path: Path | None) -> dict[str, dict]:
    """Read ``{METHOD: {param: value}}`` from JSON or YAML (safe loader only)."""
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read parameter file: {exc.strerror}", file=path) from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot parse parameter file: {exc}".splitlines()[0], file=path) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError("parameter file must map method names to parameter objects", file=path,
                          expected='{"DAGFS": {"alpha": 0.2}}')
    for method, params in data.items():
        for _, variant in parameter_variants(method, params):
            get_method(method).resolve_params(variant)
    return data


def _make_tasks(args, datasets: list[str], overrides: dict[str, dict], rank: bool) -> list[Task]:
    methods = [validate_name(m, "method") for m in args.methods]
    if rank:
        for method in methods:
            get_method(method)
    else:
        for method in methods:
            if not (args.results_dir / method).is_dir():
                raise ConfigError("method folder not found", file=args.results_dir / method)
    variants = {method: parameter_variants(method, overrides.get(method, {})) for method in methods}
    tasks = []
    for dataset in datasets:
        folds = _fold_indices(args.data_dir, dataset, args.folds)
        for method in methods:
            for label, params in variants[method]:
                tasks.extend(Task(method, dataset, fold, canonical_params(params), label) for fold in folds)
    return tasks


def parameter_variants(method: str, overrides: dict) -> list[tuple[str, dict]]:
    """Expand list-valued parameters into their Cartesian product.

    Returns ``(results folder, parameters)`` pairs. Without lists there is one variant stored under
    the method's own name; with lists each combination gets its own folder
    ``METHOD__name_value__name_value`` (swept names in sorted order), e.g. ``LRMFS__alpha_0.1``.
    """
    swept = sorted(name for name, value in overrides.items() if isinstance(value, list))
    if not swept:
        return [(method, dict(overrides))]
    if any(len(overrides[name]) == 0 for name in swept):
        raise ConfigError(f"empty value list in the parameter sweep of {method}", field=swept[0])
    variants = []
    for combination in itertools.product(*(overrides[name] for name in swept)):
        params = {**overrides, **dict(zip(swept, combination))}
        label = "__".join([method, *(f"{name}_{value}" for name, value in zip(swept, combination))])
        variants.append((validate_name(label, "parameter-sweep folder"), params))
    return variants


def _fold_indices(data_dir: Path, dataset: str, n_folds: int | None) -> list[int]:
    present = list_fold_indices(data_dir, dataset)
    if not present:
        raise ConfigError("no fold files", file=data_dir / dataset, expected="fold0.mat, fold1.mat, ...")
    if n_folds is None:
        return present
    if n_folds < 1:
        raise ConfigError(f"--folds must be >= 1, got {n_folds}")
    missing = sorted(set(range(n_folds)) - set(present))
    if missing:
        raise ConfigError("fold files missing", file=data_dir / dataset,
                          expected=f"fold0..fold{n_folds - 1}", found=f"no fold{missing[0]}.mat")
    return list(range(n_folds))


def _report(result: RunResult, summary: dict, root: Path) -> int:
    """Print the summary, the failures and why the run stopped; return the exit code.

    2 when the run stopped early (a storage fault) or every failure is a user error; 1 when a task
    failed otherwise; 0 when all went well. (A signal makes it 128 + its number, see ``main``.)
    """
    print(", ".join(f"{summary[s]} {s.replace('_', ' ')}" for s in STATUSES) + f" -> {root}", file=sys.stderr)
    failed = [o for o in result.outcomes if o.status == "failed"]
    for outcome in failed[:10]:
        print(f"FAILED {outcome.task.key}: {outcome.message}", file=sys.stderr)
    if result.stop_reason:
        advice = "resume" if result.stop_signal is not None else "fix it, then resume"
        print(f"{result.stop_reason}; {advice} with --skip-existing", file=sys.stderr)
        return 2
    if not failed:
        return 0
    return 2 if all(o.error_type in _USER_ERRORS for o in failed) else 1
