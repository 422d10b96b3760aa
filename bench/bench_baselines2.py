"""Benchmark of the Baselines II (LSMFS, LRDG, RFSFS) on a Yahoo-sized fold, NumPy vs Octave.

    python bench/bench_baselines2.py [--dataset Science] [--rows 4000] [--threads 1] [--repeats 3]
                                     [--iterations 2]

The fold is the first ``--rows`` training rows of fold 0 of a stratified 5-fold split of a real
Yahoo dataset (its full d), min-max scaled. For each method (defaults, harness-drawn start) it
records, as bench/bench_baselines1.py does, the ranking time in NumPy against Octave's (the method's own
timer) and the NumPy traced peak against the Octave process's peak resident memory, and prints
whether the rankings agree (LRDG: the top-20 % overlap, its full run being engine-specific). A
method that stops with the divergence guard is reported and not recorded.

Peer for LRDG's centring: ``--iterations`` iterations of the update as coded (dense n×n
H = I - 11'/n, HXS and X'HXS through H, (VV')V) against the port's rank-one form
(HXS = XS - 1μ'S, X'HV = X'V - μ1'V, cached centred Gram matrix, V(V'V)), in NumPy, same start:
time per iteration (``--repeats`` runs), traced peak (one more run), and the largest relative
difference of S after those iterations (printed).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from bench_baselines1 import fold_workload, limit_blas_threads, parser_for, print_fold, record_method, training_fold
from pipeline.cli import run_main
from record import BenchRun, Measurement, traced_peak_mib

METHODS = ("LSMFS", "LRDG", "RFSFS")


def lrdg_iterations(X, Y, S, V, iterations: int, as_coded: bool) -> tuple[np.ndarray, float]:
    """S after LRDG's updates (α = β = γ = 1) with the dense H as coded, or in the port's rank-one
    form, and the seconds per iteration (graph set-up excluded)."""
    from pipeline.methods.lrdg import centred_product, heat_knn_graph

    n = X.shape[0]
    A_X, A_Y = heat_knn_graph(X, 5), heat_knn_graph(Y, 5)
    p_Y = np.asarray(A_Y.sum(axis=1)).reshape(-1)
    start = time.perf_counter()
    if as_coded:
        H = np.eye(n) - np.ones((n, n)) / n
    else:
        mean = X.mean(axis=0)
        gram_X = (X - mean).T @ (X - mean)
        HXS = centred_product(X, mean, S)
    for _ in range(iterations):
        A_V = heat_knn_graph(V.T, 3).toarray()
        p_V = A_V.sum(axis=1)
        if as_coded:
            numerator = H @ X @ S + Y + 2 * (A_X @ V) + A_Y @ V
            V = V * numerator / (H @ V + V + 2 * ((V @ V.T) @ V) + p_Y[:, None] * V)
            S = S * (X.T @ H @ V + S @ A_V) / (X.T @ H @ X @ S + S * p_V[None, :])
        else:
            numerator = HXS + Y + 2 * (A_X @ V) + A_Y @ V
            V = V * numerator / ((V - V.mean(axis=0)) + V + 2 * (V @ (V.T @ V)) + p_Y[:, None] * V)
            S = S * (X.T @ V - np.outer(mean, V.sum(axis=0)) + S @ A_V) / (gram_X @ S + S * p_V[None, :])
            HXS = centred_product(X, mean, S)
    return S, (time.perf_counter() - start) / iterations


def record_centring(run: BenchRun, X, Y, workload: str, iterations: int, repeats: int) -> None:
    """LRDG's rank-one centring against the dense H as coded: time per iteration and traced peak."""
    from pipeline.methods import lrdg
    from pipeline.methods.starts import UniformStream

    n, d = X.shape
    init = lrdg.make_init(n, d, Y.shape[1], UniformStream(0), {})
    seconds, last_S = {}, {}
    for as_coded in (True, False):
        runs = [lrdg_iterations(X, Y, init["S0"], init["V0"], iterations, as_coded) for _ in range(repeats)]
        last_S[as_coded], seconds[as_coded] = runs[-1][0], Measurement(tuple(s for _, s in runs))
    peaks = {as_coded: traced_peak_mib(lrdg_iterations, X, Y, init["S0"], init["V0"], iterations, as_coded)
             for as_coded in (True, False)}
    difference = np.max(np.abs(last_S[True] - last_S[False])) / np.max(np.abs(last_S[True]))
    dense = "as coded (dense n×n H = I − 11'/n)"
    run.figure(f"LRDG centring in the rank-one form, one iteration in NumPy, {workload}", seconds[False], "s",
               peers={dense: seconds[True]})
    run.figure(f"LRDG centring in the rank-one form, traced peak of {iterations} iterations, {workload}",
               peaks[False], "MiB", peers={dense: peaks[True]})
    print(f"  LRDG centring: largest relative difference of S after {iterations} iterations {difference:.1e}")


def main(argv=None) -> None:
    parser = parser_for(__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2, help="LRDG iterations of the centring peer (default 2)")
    args = parser.parse_args(argv)
    X, Y = training_fold(args.dataset, args.rows)
    workload = fold_workload(args.dataset, X, Y, args.threads)
    with limit_blas_threads(args.threads), BenchRun(__file__) as run:
        print_fold(args.dataset, X, Y, args.threads)
        for method in METHODS:
            record_method(run, method, {}, X, Y, workload, args.repeats)
        record_centring(run, X, Y, workload, args.iterations, args.repeats)

if __name__ == "__main__":
    sys.exit(run_main(main))
