"""CLI: ``python -m pipeline.protocols.forecast {run_benchmark,compare_models,download_eval_datasets}``.

User errors (missing data or weights, bad arguments, limits exceeded, no network) print one line
and exit with code 2; ``run_benchmark`` exits 1 when a benchmark fails under ``--on-missing error``
and ``--dry-run`` exits 1 when something is unavailable.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from ...cli import run_main
from ...errors import ConfigError, PipelineError
from ...fileio import atomic_write_text
from ..devices import DEVICE_CHOICES
from .aggregate import MISSING_POLICIES
from .benchmarks import ADAPTERS, CONFIG_ALIASES, Benchmark, config_path, load_benchmark, parse_task_list, read_yaml
from .compare import compare_tables, format_comparison, leaderboard_table
from .data import data_files, dataset_location
from .download import convert_staged_tasks, download_datasets, fetch_from_hub, mirror_fetcher, plan_lines
from .environment import dry_run_lines, environment
from .limits import DEFAULT_LIMITS, Limits
from .metrics import DEFAULT_QUANTILES, NUMERIC_METRICS
from .models import BUILTIN_MODELS, ModelFactory, detect_model_type
from .outputs import experiment_dir, run_config, write_benchmark, write_config, write_experiment
from .reference import reference_names
from .runner import BenchmarkRun, require_datasets, run_benchmark

PROG = "python -m pipeline.protocols.forecast"
RULE = "=" * 72


def _limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-windows", type=int, default=DEFAULT_LIMITS.max_windows,
                        help="most evaluation windows per task (default %(default)s)")
    parser.add_argument("--max-points", type=int, default=DEFAULT_LIMITS.max_points,
                        help="most target values per dataset (default %(default)s)")


def _limits(args) -> Limits:
    return Limits(max_windows=args.max_windows, max_points=args.max_points)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Time-series forecasting benchmark (local data only).")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run_benchmark", help="evaluate one model on benchmark suites")
    run.add_argument("--model-path", required=True,
                     help="local Chronos checkpoint directory, or seasonal_naive | seasonal_naive_point | auto_ets")
    run.add_argument("--benchmarks", nargs="+", required=True,
                     help=f"NAME or NAME=TASK_FILE; names: {', '.join(ADAPTERS)}")
    run.add_argument("--datasets-root", required=True, help="folder holding <name>/data-*.arrow")
    run.add_argument("--dry-run", action="store_true", help="only check that the model and data are available")
    run.add_argument("--output-dir", default="results/experiments/",
                     help="folder of the experiment folders (default %(default)s)")
    run.add_argument("--experiment-name", help="the experiment folder's name, which must be new "
                                               "(default: exp_YYYYMMDD_HHMMSS, UTC)")
    run.add_argument("--device", default="cuda",
                     help=f"{DEVICE_CHOICES} (default %(default)s; the CPU when CUDA is absent)")
    run.add_argument("--torch-dtype", default="float32", choices=["float32", "bfloat16"],
                     help="weights' precision of a Chronos model (default %(default)s)")
    run.add_argument("--batch-size", type=int, default=32,
                     help="series per forward call of a Chronos model (default %(default)s)")
    run.add_argument("--compare-with", nargs="*", default=[],
                     help="earlier experiment directories or published results "
                          f"({', '.join(reference_names())}) put beside this run in comparison.md "
                          "(default: none)")
    run.add_argument("--on-missing", default="error", choices=MISSING_POLICIES,
                     help="a missing or failed task: error stops, drop leaves it out of the summary, "
                          "impute scores it as the baseline (default %(default)s)")
    run.add_argument("--no-progress", action="store_true", help="print only the final summary")
    _limit_options(run)

    compare = commands.add_parser("compare_models", help="merge experiment directories into one table")
    compare.add_argument("--results-dirs", nargs="+", required=True,
                         help="experiment directories or published result names")
    compare.add_argument("--model-names", nargs="+", required=True,
                         help="one column name per results directory, in the same order")
    compare.add_argument("--format", default="markdown", choices=["markdown", "csv", "latex"],
                         help="output format; markdown and latex end with the leaderboard and its "
                              "CIs, csv writes it to OUTPUT_leaderboard.csv (default %(default)s)")
    compare.add_argument("--metrics", nargs="+", default=["MASE", "WQL"], choices=NUMERIC_METRICS,
                         help="metrics compared (default: %(default)s)")
    compare.add_argument("--baseline",
                         help="the model the leaderboard's skill scores are relative to "
                              "(default: the first of --model-names)")
    compare.add_argument("--output", help="write here instead of standard output (default: standard output)")

    download = commands.add_parser("download_eval_datasets", help="fetch datasets into the local Arrow layout")
    which = download.add_mutually_exclusive_group(required=True)
    which.add_argument("--config", nargs="+",
                       help="task lists: YAML files, shipped names such as lite, or the original "
                            f"framework's config names ({', '.join(sorted(CONFIG_ALIASES))})")
    which.add_argument("--benchmarks", nargs="+", help=f"NAME or NAME=TASK_FILE; names: {', '.join(ADAPTERS)}")
    download.add_argument("--datasets", nargs="*", help="restrict to these dataset names (default: all)")
    download.add_argument("--output-dir", required=True, help="the datasets root to fill")
    source = download.add_mutually_exclusive_group()
    source.add_argument("--source-dir", help="local mirror with <name>/*.parquet or *.arrow "
                                             "(default: the Hugging Face Hub)")
    source.add_argument("--staged-dir", help="convert the staged raw M4 hourly / exchange_rate / NN5 "
                                             "files (default: none)")
    download.add_argument("--overwrite", action="store_true", help="replace datasets already present")
    download.add_argument("--dry-run", action="store_true", help="list what would be downloaded, download nothing")
    _limit_options(download)
    return parser


# ---------------------------------------------------------------- run_benchmark --dry-run
def _size_line(location: Path, root: Path) -> str:
    files = [location] if location.is_file() else data_files(root, location, "*.arrow") or \
        data_files(root, location, "*.csv")
    return f"[FOUND] {len(files)} data file(s), {sum(f.stat().st_size for f in files) / 1e6:.1f} MB"


def _model_lines(model_path: str) -> tuple[bool, list[str]]:
    try:
        kind = detect_model_type(model_path)
    except PipelineError as exc:
        return False, [f"Model path: {model_path} [NOT FOUND] ({exc})"]
    if not Path(model_path).is_dir():
        return True, [f"Model path: {model_path} [BUILT-IN] ({kind}, no weights)"]
    configs = sorted(p.name for p in Path(model_path).glob("config*.json"))
    size = sum(f.stat().st_size for f in Path(model_path).rglob("*") if f.is_file()) / 1e6
    return True, [f"Model path: {model_path} [EXISTS] ({kind}, {size:.1f} MB)", f"  Config files: {configs}"]


def dry_run(model_path: str, benchmarks: Sequence[Benchmark], root: Path, out: Callable[[str], None] = print) -> int:
    """Print the availability of the model and every dataset, and the environment; 0 when all present."""
    ok, lines = _model_lines(model_path)
    missing = 0
    for bench in benchmarks:
        lines += ["", f"--- Benchmark: {bench.name} ---"]
        for name in dict.fromkeys(task.name for task in bench.tasks):
            location = dataset_location(root, name)
            missing += location is None
            found = _size_line(location, root) if location else f"[NOT FOUND] checked: {root / name}"
            lines.append(f"  {name}: {found}")
    lines += ["", "--- Environment ---", *(f"  {line}" for line in dry_run_lines(environment()))]
    verdict = "all inputs available" if ok and not missing else \
        f"{missing} dataset(s) missing" + ("" if ok else ", model unavailable")
    for line in [RULE, "  DRY RUN — Checking data and model availability", RULE, "",
                 *(f"  {line}" if line else "" for line in lines), "",
                 f"  Dry run complete. No evaluation was performed ({verdict}).", RULE]:
        out(line)
    return 0 if ok and not missing else 1


# ---------------------------------------------------------------- run_benchmark
def _summary_lines(run: BenchmarkRun) -> list[str]:
    """``  lite completed in 0.7s`` and the summary's scalars, as the original framework logs them."""
    lines = ["", f"  {run.name} completed in {run.seconds:.1f}s"]
    for key, value in sorted(run.summary.items()):
        if isinstance(value, float):
            lines.append(f"    {key}: {value:.4f}")
        elif isinstance(value, (int, str)) and not isinstance(value, bool):
            lines.append(f"    {key}: {value}")
    return lines


def _distinct(names: Sequence[str]) -> list[str]:
    """``names`` with repeats suffixed ``#2``, ``#3``... (comparison columns must be distinct)."""
    seen: dict[str, int] = {}
    result = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return result


def _device_text(factory: ModelFactory, args) -> str:
    """The device the run uses, and why when it is not the one asked for."""
    if factory.model_type in BUILTIN_MODELS:
        return "cpu (built-in model in NumPy" + ("" if args.device == "cpu" else f"; --device {args.device} not used") + ")"
    used = f"{factory.device} ({args.torch_dtype})"
    return used if factory.device == factory.options["device"] else \
        f"{used}; --device {args.device} requested, CUDA is not available"


def rerun_command(argv: Sequence[str]) -> str:
    """The command line without ``--experiment-name`` (or an abbreviation of it), so that it runs
    again as printed, into a new timestamped folder beside the first."""
    kept, skip = [], False
    for token in argv:
        option = token.partition("=")[0]
        if skip:
            skip = False
        elif len(option) >= 3 and "--experiment-name".startswith(option):
            skip = "=" not in token
        else:
            kept.append(token)
    return f"{PROG} {shlex.join(kept)}"


def cmd_run(args, argv: Sequence[str]) -> int:
    limits = _limits(args)
    benchmarks = [load_benchmark(benchmark_name, limits) for benchmark_name in args.benchmarks]
    root = Path(args.datasets_root)
    if args.dry_run:
        return dry_run(args.model_path, benchmarks, root)
    if args.batch_size < 1:
        raise ConfigError("batch size must be >= 1", field="--batch-size", found=args.batch_size)
    factory = ModelFactory(args.model_path, device=args.device, torch_dtype=args.torch_dtype,
                           batch_size=args.batch_size)
    if args.on_missing == "error":
        require_datasets(benchmarks, root)
    folder = experiment_dir(args.output_dir, args.experiment_name)
    log = (lambda line: None) if args.no_progress else print
    for line in [RULE, "  Forecasting Benchmark Evaluation", RULE, f"  Experiment : {folder.name}",
                 f"  Model      : {args.model_path}", f"  Benchmarks : {', '.join(b.name for b in benchmarks)}",
                 f"  Device     : {_device_text(factory, args)}", f"  Batch size : {args.batch_size}",
                 f"  Data root  : {root}", f"  Output     : {folder}", RULE]:
        log(line)
    started, runs = time.perf_counter(), []
    for index, bench in enumerate(benchmarks, 1):
        for line in ["", RULE, f"  [{index}/{len(benchmarks)}] BENCHMARK: {bench.name}", RULE]:
            log(line)
        run = run_benchmark(factory, bench, root, on_missing=args.on_missing, log=log, limits=limits)
        csv, summary = write_benchmark(folder, run)
        for line in ["", f"Results saved: {csv}", f"Summary saved: {summary}", *_summary_lines(run)]:
            log(line)
        runs.append(run)
    total = time.perf_counter() - started
    command = f"{PROG} {shlex.join(argv)}"
    config = run_config(factory.describe(), benchmarks, str(root), DEFAULT_QUANTILES, args.on_missing, command)
    write_config(folder, config)
    compared = None
    if args.compare_with:
        names = _distinct([factory.model_name, *(Path(s).name for s in args.compare_with)])
        compared = comparison([folder, *args.compare_with], names, ("MASE", "WQL"), "markdown")[0]
        atomic_write_text(folder / "comparison.md", compared)
    report = write_experiment(folder, config, runs, total, rerun_command(argv), compared)
    failed = [run for run in runs if not run.passed]
    for line in ["", RULE, "  EVALUATION COMPLETE",
                 f"  Benchmarks : {len(runs) - len(failed)} passed, {len(failed)} failed",
                 f"  Total time : {total:.1f}s", f"  Results    : {folder}", f"  Report     : {report}", RULE]:
        print(line)
    for run in failed:
        print(f"benchmark {run.name} FAILED: {run.summary.get('error')}", file=sys.stderr)
    return 1 if failed else 0


# ---------------------------------------------------------------- compare_models
def comparison(sources: Sequence, names: Sequence[str], metrics: Sequence[str], fmt: str,
               baseline: str | None = None) -> tuple[str, pd.DataFrame]:
    """The comparison in ``fmt`` and its leaderboard (skill scores and win rates with CIs)."""
    frame = compare_tables(sources, names, metrics)
    baseline = baseline or names[0]
    board = leaderboard_table(frame, names, metrics, baseline)
    return format_comparison(frame, board, fmt, baseline), board


def cmd_compare(args) -> int:
    text, board = comparison(args.results_dirs, args.model_names, args.metrics, args.format, args.baseline)
    if args.output:
        atomic_write_text(args.output, text)
        if args.format == "csv":
            board_file = Path(args.output).with_name(f"{Path(args.output).stem}_leaderboard.csv")
            atomic_write_text(board_file, board.to_csv(index=False, float_format="%.10g"))
            print(f"leaderboard with 95 % CIs written to {board_file}", file=sys.stderr)
    else:
        sys.stdout.write(text)
        if args.format == "csv":
            print("note: the leaderboard with its CIs goes to OUTPUT_leaderboard.csv with --output, "
                  "or use --format markdown", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- download_eval_datasets
def cmd_download(args) -> int:
    limits = _limits(args)
    if args.config:
        paths = [config_path(value) for value in args.config]
        tasks = [task for path in paths for task in parse_task_list(read_yaml(path, limits), path, limits=limits)]
    else:
        tasks = [task for benchmark_name in args.benchmarks for task in load_benchmark(benchmark_name, limits).tasks]
    if args.datasets:
        unknown = sorted(set(args.datasets) - {t.name for t in tasks})
        if unknown:
            raise ConfigError("datasets not in the chosen task lists", field="--datasets", found=unknown)
        tasks = [t for t in tasks if t.name in set(args.datasets)]
    root = Path(args.output_dir)
    if args.dry_run:
        plan = plan_lines(tasks, root)
        header = f"DRY RUN — {len(plan)} unique dataset(s) to download into {root}:"
        for line in [header, *(f"  {line}" for line in plan)]:
            print(line)
        return 0
    if args.staged_dir:
        convert_staged_tasks(tasks, args.staged_dir, root)
        return 0
    fetch = mirror_fetcher(args.source_dir) if args.source_dir else fetch_from_hub
    download_datasets(tasks, root, fetch=fetch, overwrite=args.overwrite, limits=limits)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    if args.command == "run_benchmark":
        return cmd_run(args, argv)
    if args.command == "compare_models":
        return cmd_compare(args)
    return cmd_download(args)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
