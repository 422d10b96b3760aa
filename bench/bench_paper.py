"""The whole declared paper (paper/suite.yaml) as one command, against the step-by-step commands.

Measures, on this machine and in the same run:

1. ``python -m pipeline.paper run paper/suite.yaml`` from nothing (fold export, every ranking once,
   both grids from one ML-kNN pass, tables and figures of both grids), with the suite's engine;
2. the same experiment through the step-by-step commands a user had to type before the suite
   existed: ``export_splits``, ``kgrid``, ``pgrid`` into the same results folder (rankings reused,
   a second ML-kNN pass), and ``tables`` for each grid, with the same engine, executor and jobs;
3. optionally (``--python-engine``) the suite once more with ``--engine python``;
4. a second ``paper run`` that finds everything fresh (the cost of a resume that has nothing to do).

Prints wall seconds per step and the ratio step-by-step / suite, with the machine's load before and
after. A subset runs with ``--datasets`` / ``--folds`` (the full paper takes minutes to tens of
minutes here):

    python bench/bench_paper.py [--datasets emotions yeast] [--folds 2] [--python-engine] [--skip-steps]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from pipeline.paper.suite import load_suite  # noqa: E402

SUITE = REPO / "paper" / "suite.yaml"


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=cwd, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def suite_command(root: Path, restrict: list[str], *extra: str) -> list[str]:
    return [sys.executable, "-m", "pipeline.paper", "run", str(SUITE), "--root", str(root), "--no-progress",
            *restrict, *extra]


def step_by_step(suite, root: Path, datasets: list[str], folds: int) -> dict[str, float]:
    """The commands of the README before the suite existed, for the same experiment."""
    data, results, tables = root / suite.folds_dir, root / suite.results_dir, root / suite.tables["out_dir"]
    methods = [entry.name for entry in suite.methods]
    common = ["--methods", *methods, "--datasets", *datasets, "--folds", str(folds), "--data-dir", str(data),
              "--results-dir", str(results), "--engine", suite.engine, "--executor", suite.executor,
              "--jobs", str(suite.jobs), "--no-progress"]
    kgrid, pgrid = (next(g for g in suite.grids if g.mode == mode) for mode in ("kgrid", "pgrid"))
    seconds = {
        "export_splits": timed([sys.executable, "-m", "pipeline.export_splits", "--datasets", *datasets,
                                "--split-mode", suite.folds.mode, "--folds", str(suite.folds.n_folds),
                                "--seed", str(suite.folds.seed), "--output-dir", str(data), "--no-progress"], REPO),
        "kgrid": timed([sys.executable, "-m", "pipeline.kgrid", *common, "--k-min", str(kgrid.k_min),
                        "--k-max", str(kgrid.k_max), "--k-step", str(kgrid.k_step)], REPO),
        "pgrid": timed([sys.executable, "-m", "pipeline.pgrid", *common, "--p-min", str(pgrid.p_min),
                        "--p-max", str(pgrid.p_max), "--p-step", str(pgrid.p_step),
                        "--p-target", str(pgrid.p_target)], REPO),
    }
    tables_seconds = 0.0
    for mode in ("kgrid", "pgrid"):
        tables_seconds += timed([sys.executable, "-m", "pipeline.tables", "--results-dir", str(results),
                                 "--methods", *methods, "--datasets", *datasets, "--ref-method",
                                 suite.tables["ref_method"], "--out-dir", str(tables / mode), "--grid", mode,
                                 "--folds", str(folds)], REPO)
    seconds["tables"] = tables_seconds
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=None, help="a subset of the suite's datasets")
    parser.add_argument("--folds", type=int, default=None, help="the first N folds")
    parser.add_argument("--python-engine", action="store_true", help="also time the suite with --engine python")
    parser.add_argument("--skip-steps", action="store_true", help="do not time the step-by-step commands")
    args = parser.parse_args()
    suite = load_suite(SUITE).restricted(datasets=args.datasets, folds=args.folds)
    datasets, folds = list(suite.datasets), len(suite.fold_indices)
    restrict = (["--datasets", *datasets] if args.datasets else []) + (["--folds", str(folds)] if args.folds else [])
    print(f"paper bench: {len(datasets)} datasets x {folds} folds x {len(suite.methods)} methods, engine "
          f"{suite.engine}, {suite.executor} x {suite.jobs}; cores {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        runs = {"suite": timed(suite_command(Path(tmp) / "suite", restrict), REPO)}
        runs["suite, second run (nothing to do)"] = timed(suite_command(Path(tmp) / "suite", restrict), REPO)
        if args.python_engine:
            runs["suite --engine python"] = timed(suite_command(Path(tmp) / "python", restrict, "--engine",
                                                                "python"), REPO)
        steps = {} if args.skip_steps else step_by_step(suite, Path(tmp) / "steps", datasets, folds)
    for name, seconds in {**runs, **{f"step: {k}": v for k, v in steps.items()}}.items():
        print(f"  {name:40s} {seconds:8.1f} s")
    if steps:
        total = sum(steps.values())
        print(f"  {'step-by-step total':40s} {total:8.1f} s   ratio step-by-step / suite: {total / runs['suite']:.2f}")
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
