"""The whole declared paper (paper/suite.yaml) as one command, against the step-by-step commands.

Measures, on this machine and in the same run:

1. ``python -m pipeline.paper run paper/suite.yaml`` from nothing (fold export, every ranking once,
   both grids from one ML-kNN pass, tables and figures of both grids), with the suite's engine;
2. the same experiment through the step-by-step commands a user had to type before the suite
   existed: ``export_splits``, ``kgrid``, ``pgrid`` into the same results folder (rankings reused,
   a second ML-kNN pass), and ``tables`` for each grid, with the same engine, executor and jobs;
3. optionally (``--python-engine``) the suite once more with ``--engine python``;
4. a second ``paper run`` that finds everything fresh (the cost of a resume that has nothing to do).

Prints wall seconds per step and the ratio step-by-step / suite, and records the figures in
bench/results.json; the figures' names state the datasets and folds they ran on. The full paper
(17 datasets x 5 folds) takes tens of minutes here, so ``make bench`` runs a subset
(``--datasets emotions yeast scene medical --folds 2``), recorded as the entry ``bench_paper_subset``
so that it does not replace the full paper's figures; run the full paper with no option:

    python bench/bench_paper.py [--datasets emotions yeast] [--folds 2] [--repeats 1] [--python-engine]
                                [--skip-steps]

Each repeat starts from empty folders (``--repeats``, default 3; give ``--repeats 1`` for the full
paper).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from pipeline.cli import run_main  # noqa: E402
from pipeline.experiment.model import load_suite  # noqa: E402
from pipeline.paper.tables import report_options  # noqa: E402
from pipeline.report.options import DEFAULTS, option_name  # noqa: E402
from record import PARTIAL_RUNS, BenchRun  # noqa: E402

SUITE = REPO / "paper" / "suite.yaml"


def tables_command_line(options) -> list[str]:
    """The options of ``python -m pipeline.tables`` that say what ``options`` say (defaults left out)."""
    words = []
    for name, value in vars(options).items():
        if value is None or value == DEFAULTS.get(name):
            continue
        if isinstance(value, bool):  # a flag on, or the --no- form of a flag that is on by default
            words.append(option_name(name) if value else option_name(f"no_{name}"))
        else:
            words += [option_name(name), *map(str, value if isinstance(value, list) else [value])]
    return words


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def suite_command(root: Path, restrict: list[str], *extra: str) -> list[str]:
    return [sys.executable, "-m", "pipeline.paper", "run", str(SUITE), "--root", str(root), "--no-progress",
            *restrict, *extra]


def step_by_step(suite, root: Path, datasets: list[str], folds: int) -> dict[str, float]:
    """The commands of the README before the suite existed, for the same experiment."""
    data, results = root / suite.folds_dir, root / suite.results_dir
    methods = [entry.name for entry in suite.methods]
    common = ["--methods", *methods, "--datasets", *datasets, "--folds", str(folds), "--data-dir", str(data),
              "--results-dir", str(results), "--engine", suite.engine, "--executor", suite.executor,
              "--jobs", str(suite.jobs), "--no-progress"]
    kgrid, pgrid = (next(g for g in suite.grids if g.mode == mode) for mode in ("kgrid", "pgrid"))
    seconds = {
        "export_splits": timed([sys.executable, "-m", "pipeline.export_splits", "--datasets", *datasets,
                                "--split-mode", suite.folds.mode, "--folds", str(suite.folds.n_folds),
                                "--seed", str(suite.folds.seed), "--output-dir", str(data), "--no-progress"]),
        "kgrid": timed([sys.executable, "-m", "pipeline.kgrid", *common, "--k-min", str(kgrid.k_min),
                        "--k-max", str(kgrid.k_max), "--k-step", str(kgrid.k_step)]),
        "pgrid": timed([sys.executable, "-m", "pipeline.pgrid", *common, "--p-min", str(pgrid.p_min),
                        "--p-max", str(pgrid.p_max), "--p-step", str(pgrid.p_step),
                        "--p-target", str(pgrid.p_target)]),
    }
    seconds["tables"] = sum(timed([sys.executable, "-m", "pipeline.tables",
                                   *tables_command_line(report_options(suite, results, root, grid))]) for grid in suite.grids)
    return seconds


def workload(suite, restricted: bool) -> str:
    """The experiment a figure times: the full paper, or the subset the options chose."""
    shape = f"{len(suite.fold_indices)} folds × {len(suite.methods)} methods, both grids, tables and figures"
    if restricted:
        return f"{', '.join(suite.datasets)} × {shape}"
    return f"full paper ({len(suite.datasets)} datasets × {shape})"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=None, help="a subset of the suite's datasets")
    parser.add_argument("--folds", type=int, default=None, help="the first N folds")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each command from empty folders (default 3)")
    parser.add_argument("--python-engine", action="store_true", help="also time the suite with --engine python")
    parser.add_argument("--skip-steps", action="store_true", help="do not time the step-by-step commands")
    args = parser.parse_args(argv)
    suite = load_suite(SUITE).restricted(datasets=args.datasets, folds=args.folds)
    datasets, folds = list(suite.datasets), len(suite.fold_indices)
    restrict = (["--datasets", *datasets] if args.datasets else []) + (["--folds", str(folds)] if args.folds else [])
    runs: dict[str, list[float]] = {}
    # a subset keeps its own entry, so `make bench` does not replace the full paper's figures
    with BenchRun(__file__, entry=PARTIAL_RUNS["bench_paper"][0] if restrict else None) as run:
        for repeat in range(args.repeats):
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                timings = {"suite": timed(suite_command(root / "suite", restrict)),
                           "suite, second run": timed(suite_command(root / "suite", restrict))}
                if args.python_engine:
                    timings["suite --engine python"] = timed(suite_command(root / "python", restrict,
                                                                           "--engine", "python"))
                if not args.skip_steps:
                    steps = step_by_step(suite, root / "steps", datasets, folds)
                    timings.update({f"step: {name}": seconds for name, seconds in steps.items()})
                    timings["step-by-step total"] = sum(steps.values())
            for name, seconds in timings.items():
                runs.setdefault(name, []).append(seconds)
                print(f"  repeat {repeat + 1}: {name:40s} {seconds:8.1f} s", flush=True)
        peers = {} if args.skip_steps else {
            "the step-by-step commands (export_splits, kgrid, pgrid, tables per grid)": runs["step-by-step total"]}
        experiment = workload(suite, bool(args.datasets or args.folds))
        run.figure(f"pipeline.paper run paper/suite.yaml from nothing, engine {suite.engine}, {suite.executor} × "
                   f"{suite.jobs}: {experiment}", runs["suite"], "s", peers=peers)
        run.figure(f"second pipeline.paper run, everything fresh, nothing to do: {experiment}",
                   runs["suite, second run"], "s")
        if args.python_engine:
            run.figure(f"pipeline.paper run with --engine python from nothing: {experiment}",
                       runs["suite --engine python"], "s", peers={f"engine {suite.engine}": runs["suite"]})


if __name__ == "__main__":
    sys.exit(run_main(main))
