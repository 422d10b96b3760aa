"""CLI: ``python -m pipeline.protocols.forecast {run_benchmark,compare_models,download_eval_datasets}``.

User errors (missing data or weights, bad arguments) print one line and exit with code 2;
``run_benchmark`` exits 1 when a benchmark fails under ``--on-missing error`` and
``--dry-run`` exits 1 when something is unavailable.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Sequence

from pipeline.cli import run_main
from pipeline.errors import PipelineError
from pipeline.fileio import atomic_write_text

from .aggregate import MISSING_POLICIES
from .benchmarks import ADAPTERS, load_benchmark
from .data import dataset_location
from .download import convert_staged_tasks, download_datasets, fetch_from_hub, mirror_fetcher
from .metrics import DEFAULT_QUANTILES
from .models import ModelFactory, detect_model_type
from .outputs import (compare_tables, experiment_dir, format_table, run_config, write_experiment)
from .runner import run_benchmark

PROG = "python -m pipeline.protocols.forecast"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Time-series forecasting benchmark (local data only).")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run_benchmark", help="evaluate one model on benchmark suites")
    run.add_argument("--model-path", required=True,
                     help="local Chronos checkpoint directory, or seasonal_naive | seasonal_naive_point | auto_ets")
    run.add_argument("--benchmarks", nargs="+", default=["lite"],
                     help=f"NAME or NAME=TASK_FILE; names: {', '.join(ADAPTERS)}")
    run.add_argument("--datasets-root", required=True, help="folder holding <name>/data-*.arrow")
    run.add_argument("--dry-run", action="store_true", help="only check that the model and data are available")
    run.add_argument("--output-dir", default="results/experiments")
    run.add_argument("--experiment-name")
    run.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    run.add_argument("--torch-dtype", default="float32", choices=["float32", "bfloat16"])
    run.add_argument("--batch-size", type=int, default=32)
    run.add_argument("--compare-with", nargs="*", default=[], help="earlier experiment directories")
    run.add_argument("--on-missing", default="error", choices=MISSING_POLICIES)
    run.add_argument("--no-progress", action="store_true")

    compare = commands.add_parser("compare_models", help="merge experiment directories into one table")
    compare.add_argument("--results-dirs", nargs="+", required=True)
    compare.add_argument("--model-names", nargs="+", required=True)
    compare.add_argument("--format", default="markdown", choices=["markdown", "csv", "latex"])
    compare.add_argument("--metrics", nargs="+", default=["MASE", "WQL"])
    compare.add_argument("--output", help="write here instead of standard output")

    download = commands.add_parser("download_eval_datasets", help="fetch datasets into the local Arrow layout")
    download.add_argument("--benchmarks", nargs="+", default=["lite"])
    download.add_argument("--datasets", nargs="*", help="restrict to these dataset names")
    download.add_argument("--output-dir", required=True, help="the datasets root to fill")
    source = download.add_mutually_exclusive_group()
    source.add_argument("--source-dir", help="local mirror with <name>/*.parquet instead of the Hub")
    source.add_argument("--staged-dir", help="convert the staged raw M4 hourly / exchange_rate / NN5 files")
    download.add_argument("--overwrite", action="store_true")
    return parser


def _folder_size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def dry_run(model_path: str, benchmarks, root: Path) -> int:
    """Print the availability of the model and of every dataset; 0 when all are present."""
    ok = True
    try:
        kind = detect_model_type(model_path)
        size = f", {_folder_size(Path(model_path)) / 1e6:.2f} MB" if Path(model_path).is_dir() else ""
        print(f"model {model_path}: available ({kind}{size})")
    except PipelineError as exc:
        ok = False
        print(f"model {model_path}: MISSING ({exc})")
    for bench in benchmarks:
        for task in bench.tasks:
            location = dataset_location(root, task.name)
            if location is None:
                ok = False
                print(f"{bench.name}/{task.label}: MISSING under {root / task.name}")
            else:
                print(f"{bench.name}/{task.label}: {location} ({_folder_size(location) / 1e6:.2f} MB)")
    print("all available" if ok else "some inputs are missing")
    return 0 if ok else 1


def cmd_run(args, argv: Sequence[str]) -> int:
    benchmarks = [load_benchmark(spec) for spec in args.benchmarks]
    root = Path(args.datasets_root)
    if args.dry_run:
        return dry_run(args.model_path, benchmarks, root)
    if args.batch_size < 1:
        raise PipelineError("batch size must be >= 1", field="--batch-size", found=args.batch_size)
    folder = experiment_dir(args.output_dir, args.experiment_name)
    factory = ModelFactory(args.model_path, device=args.device, torch_dtype=args.torch_dtype,
                           batch_size=args.batch_size)
    started = time.perf_counter()
    runs = [run_benchmark(factory, bench, root, on_missing=args.on_missing, progress=not args.no_progress)
            for bench in benchmarks]
    total = time.perf_counter() - started
    command = f"{PROG} {shlex.join(argv)}"
    config = run_config(factory.describe(), [b.name for b in benchmarks],
                        {b.name: b.baseline_model for b in benchmarks}, str(root), DEFAULT_QUANTILES,
                        args.on_missing, command)
    write_experiment(folder, config, runs, total, command)
    if args.compare_with:
        names = [factory.model_name, *(Path(d).name for d in args.compare_with)]
        comparison = format_table(compare_tables([folder, *args.compare_with], names), "markdown")
        atomic_write_text(folder / "comparison.md", comparison)
        write_experiment(folder, config, runs, total, command, comparison)
    print(f"results written to {folder}")
    failed = [run.name for run in runs if not run.passed]
    for name in failed:
        print(f"benchmark {name} FAILED: {next(r for r in runs if r.name == name).summary.get('error')}",
              file=sys.stderr)
    return 1 if failed else 0


def cmd_compare(args) -> int:
    text = format_table(compare_tables(args.results_dirs, args.model_names, args.metrics), args.format)
    if args.output:
        atomic_write_text(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_download(args) -> int:
    tasks = [task for spec in args.benchmarks for task in load_benchmark(spec).tasks]
    if args.datasets:
        unknown = sorted(set(args.datasets) - {t.name for t in tasks})
        if unknown:
            raise PipelineError("datasets not in the chosen benchmarks", field="--datasets", found=unknown)
        tasks = [t for t in tasks if t.name in set(args.datasets)]
    root = Path(args.output_dir)
    if args.staged_dir:
        convert_staged_tasks(tasks, args.staged_dir, root)
        return 0
    fetch = mirror_fetcher(args.source_dir) if args.source_dir else fetch_from_hub
    download_datasets(tasks, root, fetch=fetch, overwrite=args.overwrite)
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
