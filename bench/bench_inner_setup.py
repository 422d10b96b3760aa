"""What candidates gain from sharing the evaluator's set-up of an inner split (docs/tuning.md).

The candidates of one outer fold are scored with ML-kNN on the same inner validation parts. The
native evaluator checks and converts each part and computes ML-kNN's label priors once
(``prepare_fold``), then scores every candidate's ranking on it (``evaluate_prepared``); the
previous way made that set-up again for every candidate (``evaluate_grid``). On hold-out repeat 0
of each dataset (min-max scaled), one inner stratified hold-out of 25 % as ``tuning:`` makes it,
six random candidate rankings, the paper's union of k- and p-grid, this script measures both ways
in alternation (so the machine's load falls on both alike), and the set-up alone.

    python bench/bench_inner_setup.py [--repeats 7] [--datasets emotions yeast scene medical]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bench_methods_paper import holdout_fold, union_grid
from pipeline.cli import run_main
from pipeline.evaluation.mlknn import evaluate_grid, evaluate_prepared, prepare_fold
from pipeline.runner.inner import TuningSpec, make_inner_splits
from pipeline.runner.tasks import GridSpec
from record import BenchRun, Measurement

CANDIDATES = 6
INNER = TuningSpec(mode="holdout", count=1, seed=0, test_size=0.25, scaler="minmax", clip_test=False,
                   metric="micro_f1", grid=GridSpec("pgrid"))


def inner_parts(datasets: list[str]) -> list[tuple]:
    """(inner validation arrays, k values, candidate rankings) per dataset."""
    parts = []
    for name in datasets:
        fold = holdout_fold(name, seed=42, test_size=0.33)
        (split,) = make_inner_splits(fold.X_train, fold.Y_train, INNER)
        d = fold.X_train.shape[1]
        rng = np.random.default_rng(0)
        arrays = (split.X_train, split.Y_train, split.X_validation, split.Y_validation)
        parts.append((arrays, union_grid(d), [rng.permutation(d) + 1 for _ in range(CANDIDATES)]))
    return parts


def shared_setup(parts) -> None:
    for arrays, k_values, rankings in parts:
        prepared = prepare_fold(*arrays)
        for ranking in rankings:
            evaluate_prepared(prepared, ranking, k_values)


def setup_per_candidate(parts) -> None:
    for arrays, k_values, rankings in parts:
        for ranking in rankings:
            evaluate_grid(*arrays, ranking, k_values)


def setup_only(parts) -> None:
    for arrays, _, _ in parts:
        prepare_fold(*arrays)


def timed(function, parts) -> float:
    start = time.perf_counter()
    function(parts)
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7, help="alternating rounds of both ways (default 7)")
    parser.add_argument("--datasets", nargs="+", default=["emotions", "yeast", "scene", "medical"])
    args = parser.parse_args(argv)
    parts = inner_parts(args.datasets)
    shared_setup(parts)  # compiles the neighbour kernels before anything is timed
    seconds = {shared_setup: [], setup_per_candidate: [], setup_only: []}
    for _ in range(args.repeats):
        for function in seconds:
            seconds[function].append(timed(function, parts))
    where = f"one inner validation part of each of {', '.join(args.datasets)}"
    with BenchRun(__file__) as run:
        run.figure(f"ML-kNN scoring of {CANDIDATES} candidates on {where}, the set-up made once and shared",
                   Measurement(tuple(seconds[shared_setup])), "s",
                   peers={"the set-up made again for every candidate (previous way)":
                          Measurement(tuple(seconds[setup_per_candidate]))})
        run.figure(f"the set-up alone (checks, label conversion, label priors), once for {where}",
                   Measurement(tuple(seconds[setup_only])), "s")


if __name__ == "__main__":
    sys.exit(run_main(main))
