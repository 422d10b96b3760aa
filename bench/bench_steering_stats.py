"""Benchmark: sequence-level permutation tests and cluster bootstrap, vectorised vs a Python loop.

Workload of the steering study at full size: 500 test sequences x 28 model pairs (all pairs of
M1-M8) x 5 training seeds = 140 paired comparisons; 10,000 sign-flip permutations and 1,000
cluster-bootstrap resamples each. The vectorised code draws the sign vectors / resample counts as
matrices and reduces them with one matrix product; the peer is the straightforward loop with one
Python iteration per permutation or resample. The loop is timed on a subset of the comparisons
and extrapolated linearly (its cost is exactly proportional to the number of comparisons).

A second part times reading one prediction file of the full variant's size (300,000 test samples
in 500 sequences) with the bounded, chunked reader against plain ``pd.read_csv`` (the peer), and
the paired cluster bootstrap of Δ for MAE, RMSE, accuracy and R² on it.

Every timing is repeated ``--repeats`` times (default 3) and recorded with its spread in
bench/results.json.

Run: ``python3 bench/bench_steering_stats.py [--repeats 3] [--loop-pairs 4] [--reading-only]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.cli import run_main
from pipeline.protocols.steering.files import read_table
from pipeline.protocols.steering.predictions import (pair_predictions, predictions_frame, read_predictions,
                                                     write_predictions)
from pipeline.protocols.steering.stats import paired_bootstrap_delta
from pipeline.stats.paired import paired_effect_size, sign_flip_test
from pipeline.stats.resampling import cluster_resample_counts, resampled_group_means
from record import BenchRun, measure

N_SEQUENCES, N_PAIRS, N_SEEDS = 500, 28, 5
N_PERMUTATIONS, N_BOOTSTRAP = 10_000, 1_000


def workload(seed: int = 0) -> np.ndarray:
    """Per-sequence RMSE differences ``(500, 140)``: small true effects plus sequence noise."""
    rng = np.random.default_rng(seed)
    effects = rng.normal(0.0, 0.01, N_PAIRS * N_SEEDS)
    return effects + rng.normal(0.0, 0.05, (N_SEQUENCES, N_PAIRS * N_SEEDS))


def loop_permutation_p(diffs: np.ndarray, n_permutations: int, rng: np.random.Generator) -> float:
    """The peer: one Python iteration per sign vector."""
    observed = abs(diffs.mean())
    tol = 1e-12 * max(1.0, observed)
    hits = 0
    for _ in range(n_permutations):
        signs = rng.choice((-1.0, 1.0), size=diffs.size)
        if abs(np.mean(signs * diffs)) >= observed - tol:
            hits += 1
    return (1 + hits) / (n_permutations + 1)


def loop_bootstrap(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The peer: one Python iteration per resample of whole sequences."""
    return np.array([diffs[rng.integers(0, diffs.size, diffs.size)].mean()
                     for _ in range(n_resamples)])


def bench_reading(run: BenchRun, repeats: int) -> None:
    rng = np.random.default_rng(0)
    ids = np.repeat([f"seq{i:04d}" for i in range(N_SEQUENCES)], 600)
    truth = np.tanh(rng.normal(0, 0.5, ids.size))
    with tempfile.TemporaryDirectory() as root:
        paths = [Path(root) / f"M{k}_predictions.csv" for k in (1, 2)]
        for path, noise in zip(paths, (0.10, 0.12)):
            write_predictions(predictions_frame(np.arange(ids.size), ids, truth,
                                                truth + rng.normal(0, noise, ids.size)), path)
        plain, _ = measure(pd.read_csv, paths[0], dtype={"sequence_id": str}, repeats=repeats)
        bounded, _ = measure(read_table, paths[0], "predictions", dtype={"sequence_id": str}, repeats=repeats)
        validated, _ = measure(read_predictions, paths[0], repeats=repeats)
        paired = pair_predictions(read_predictions(paths[0]), read_predictions(paths[1]))
        t_delta, delta = measure(paired_bootstrap_delta, paired, n_bootstrap=N_BOOTSTRAP, seed=42, repeats=repeats)
    run.figure(f"read a {ids.size:,}-row prediction CSV, bounded chunked reader", bounded, "s",
               peers={"pd.read_csv": plain})
    run.figure("the same file with all validation (read_predictions)", validated, "s")
    run.figure(f"paired Δ bootstrap (MAE, RMSE, accuracy, R²), {N_BOOTSTRAP:,} resamples of {N_SEQUENCES} "
               "sequences", t_delta, "s")
    r2 = delta["pooled"]["r2"]
    print(f"ΔR² pooled {r2['estimate']:.4f} [{r2['ci_low']:.4f}, {r2['ci_high']:.4f}]")


def vector_bootstrap(diffs: np.ndarray) -> np.ndarray:
    """Percentile intervals of every comparison from one matrix product of resample counts."""
    counts = cluster_resample_counts(N_SEQUENCES, N_BOOTSTRAP, seed=42)
    replicates = resampled_group_means(diffs, counts)          # (B, 140), one matmul
    return np.percentile(replicates, [2.5, 97.5], axis=0)


def bench_tests(run: BenchRun, repeats: int, loop_pairs: int) -> None:
    diffs = workload()
    n_comparisons = diffs.shape[1]
    rng = np.random.default_rng(1)
    scale = n_comparisons / loop_pairs
    loop_note = f"timed on {loop_pairs} of the {n_comparisons} comparisons, × {scale:g}"
    batched, results = measure(sign_flip_test, diffs, n_permutations=N_PERMUTATIONS, seed=42, repeats=repeats)
    separate, _ = measure(lambda: [sign_flip_test(diffs[:, k], n_permutations=N_PERMUTATIONS, seed=42)
                                   for k in range(n_comparisons)], repeats=repeats)
    loop, _ = measure(lambda: [loop_permutation_p(diffs[:, k], N_PERMUTATIONS, rng) for k in range(loop_pairs)],
                      repeats=repeats)
    run.figure(f"sign-flip permutation tests, {N_SEQUENCES} sequences × {N_PAIRS} model pairs × {N_SEEDS} seeds "
               f"= {n_comparisons} comparisons, {N_PERMUTATIONS:,} permutations, one call", batched, "s",
               peers={"one call per comparison": separate,
                      f"Python loop per permutation ({loop_note})": loop.scaled(scale)})
    boot, _ = measure(vector_bootstrap, diffs, repeats=repeats)
    boot_loop, _ = measure(lambda: [loop_bootstrap(diffs[:, k], N_BOOTSTRAP, rng) for k in range(loop_pairs)],
                           repeats=repeats)
    run.figure(f"cluster bootstrap of the {n_comparisons} comparisons, {N_BOOTSTRAP:,} whole-sequence resamples, "
               "vectorised", boot, "s", peers={f"Python loop per resample ({loop_note})": boot_loop.scaled(scale)})
    effect, _ = measure(lambda: [paired_effect_size(diffs[:, k], n_bootstrap=1000, seed=42)
                                 for k in range(n_comparisons)], repeats=repeats)
    run.figure(f"Hedges' g + BCa CI (SciPy, 1,000 resamples), {n_comparisons} comparisons", effect, "s")
    print(f"smallest p over the comparisons: {min(r.p_value for r in results):.2e}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of every timing (default 3)")
    parser.add_argument("--loop-pairs", type=int, default=4,
                        help="comparisons timed with the Python loop (then extrapolated)")
    parser.add_argument("--reading-only", action="store_true", help="only the file reading and Δ bootstrap part")
    args = parser.parse_args(argv)
    with BenchRun(__file__) as run:
        bench_reading(run, args.repeats)
        if not args.reading_only:
            bench_tests(run, args.repeats, args.loop_pairs)


if __name__ == "__main__":
    sys.exit(run_main(main))
