"""Benchmark: sequence-level permutation tests and cluster bootstrap, vectorised vs a Python loop.

Workload of the steering study at full size: 500 test sequences x 28 model pairs (all pairs of
M1-M8) x 5 training seeds = 140 paired comparisons; 10,000 sign-flip permutations and 1,000
cluster-bootstrap resamples each. The vectorised code draws the sign vectors / resample counts as
matrices and reduces them with one matrix product; the peer is the straightforward loop with one
Python iteration per permutation or resample. The loop is timed on a subset of the comparisons
and extrapolated linearly (its cost is exactly proportional to the number of comparisons).

Run: ``python3 bench/bench_steering_stats.py [--loop-pairs 4]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loop-pairs", type=int, default=4,
                        help="comparisons timed with the Python loop (then extrapolated)")
    args = parser.parse_args()
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
