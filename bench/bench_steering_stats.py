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

Run: ``python3 bench/bench_steering_stats.py [--loop-pairs 4] [--reading-only]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.protocols.steering.files import read_table
from pipeline.protocols.steering.predictions import (pair_predictions, predictions_frame, read_predictions,
                                                     write_predictions)
from pipeline.protocols.steering.stats import paired_bootstrap_delta
from pipeline.stats.paired import paired_effect_size, sign_flip_test
from pipeline.stats.resampling import cluster_resample_counts, resampled_group_means

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


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def bench_reading() -> None:
    rng = np.random.default_rng(0)
    ids = np.repeat([f"seq{i:04d}" for i in range(N_SEQUENCES)], 600)
    truth = np.tanh(rng.normal(0, 0.5, ids.size))
    with tempfile.TemporaryDirectory() as root:
        paths = [Path(root) / f"M{k}_predictions.csv" for k in (1, 2)]
        for path, noise in zip(paths, (0.10, 0.12)):
            write_predictions(predictions_frame(np.arange(ids.size), ids, truth,
                                                truth + rng.normal(0, noise, ids.size)), path)
        t_plain = min(timed(pd.read_csv, paths[0], dtype={"sequence_id": str})[1] for _ in range(5))
        t_bounded = min(timed(read_table, paths[0], "predictions", dtype={"sequence_id": str})[1] for _ in range(5))
        t_validated = min(timed(read_predictions, paths[0])[1] for _ in range(5))
        paired = pair_predictions(read_predictions(paths[0]), read_predictions(paths[1]))
        delta, t_delta = timed(paired_bootstrap_delta, paired, n_bootstrap=N_BOOTSTRAP, seed=42)
    print(f"read a {ids.size:,}-row prediction CSV: pd.read_csv {t_plain:.2f} s, bounded chunked reader "
          f"{t_bounded:.2f} s (ratio {t_bounded / t_plain:.2f}x); with all validation {t_validated:.2f} s")
    r2 = delta["pooled"]["r2"]
    print(f"paired Δ bootstrap (MAE, RMSE, accuracy, R²; {N_BOOTSTRAP} resamples of {N_SEQUENCES} sequences): "
          f"{t_delta:.2f} s; ΔR² pooled {r2['estimate']:.4f} [{r2['ci_low']:.4f}, {r2['ci_high']:.4f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loop-pairs", type=int, default=4,
                        help="comparisons timed with the Python loop (then extrapolated)")
    parser.add_argument("--reading-only", action="store_true", help="only the file reading and Δ bootstrap part")
    args = parser.parse_args()
    bench_reading()
    if args.reading_only:
        return
    diffs = workload()
    n_comparisons = diffs.shape[1]
    print(f"workload: {N_SEQUENCES} sequences x {N_PAIRS} pairs x {N_SEEDS} seeds = "
          f"{n_comparisons} comparisons; B = {N_PERMUTATIONS} permutations, "
          f"{N_BOOTSTRAP} bootstrap resamples")

    batched, t_batched = timed(sign_flip_test, diffs, n_permutations=N_PERMUTATIONS, seed=42)
    _, t_separate = timed(lambda: [sign_flip_test(diffs[:, k], n_permutations=N_PERMUTATIONS,
                                                  seed=42) for k in range(n_comparisons)])
    rng = np.random.default_rng(1)
    _, t_loop = timed(lambda: [loop_permutation_p(diffs[:, k], N_PERMUTATIONS, rng)
                               for k in range(args.loop_pairs)])
    t_loop_all = t_loop / args.loop_pairs * n_comparisons

    def vector_bootstrap():
        counts = cluster_resample_counts(N_SEQUENCES, N_BOOTSTRAP, seed=42)
        replicates = resampled_group_means(diffs, counts)          # (B, 140), one matmul
        return np.percentile(replicates, [2.5, 97.5], axis=0)

    _, t_boot = timed(vector_bootstrap)
    _, t_boot_loop = timed(lambda: [loop_bootstrap(diffs[:, k], N_BOOTSTRAP, rng)
                                    for k in range(args.loop_pairs)])
    t_boot_loop_all = t_boot_loop / args.loop_pairs * n_comparisons
    _, t_effect = timed(lambda: [paired_effect_size(diffs[:, k], n_bootstrap=1000, seed=42)
                                 for k in range(n_comparisons)])

    loop_note = f"(timed on {args.loop_pairs} comparisons, extrapolated x{n_comparisons / args.loop_pairs:g})"
    print(f"permutation, all comparisons in one call : {t_batched:8.2f} s")
    print(f"permutation, one call per comparison     : {t_separate:8.2f} s")
    print(f"permutation, Python loop per permutation : {t_loop_all:8.2f} s {loop_note}")
    print(f"  speed-up (one call) vs loop            : {t_loop_all / t_batched:8.1f} x")
    print(f"  speed-up (per comparison) vs loop      : {t_loop_all / t_separate:8.1f} x")
    print(f"cluster bootstrap, vectorised            : {t_boot:8.2f} s")
    print(f"cluster bootstrap, Python loop           : {t_boot_loop_all:8.2f} s {loop_note}")
    print(f"  speed-up vs loop                       : {t_boot_loop_all / t_boot:8.1f} x")
    print(f"Hedges' g + BCa CI (scipy, 1000 resamples), {n_comparisons} comparisons: {t_effect:.2f} s")
    print(f"smallest p over the comparisons: {min(r.p_value for r in batched):.2e}")


if __name__ == "__main__":
    main()
