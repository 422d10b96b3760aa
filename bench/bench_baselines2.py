"""Benchmark of the Baselines II (LSMFS, LRDG, RFSFS) on a Yahoo-sized fold, Octave vs NumPy.

    python3 bench/bench_baselines2.py [--dataset Science] [--rows 4000] [--threads 1]

The fold is the first ``--rows`` training rows of fold 0 of a stratified 5-fold split of a real
Yahoo dataset (its full d), min-max scaled. For each method (defaults, harness-drawn start) it
prints the ranking time in NumPy and in Octave (the method's own timer, without the bridge), the
ratio Octave / NumPy, the NumPy peak of traced allocations (tracemalloc), the Octave process's peak
resident memory above its baseline (VmHWM, reset before each call), and whether the top 50 agree
(LRDG: the top-20 % overlap, its full run being engine-specific). A method that stops with the
divergence guard is reported as such.

Peer for LRDG's centring: ``--iterations`` iterations of the update as coded (dense n×n
H = I - 11'/n, HXS and X'HXS through H, (VV')V) against the port's rank-one form
(HXS = XS - 1μ'S, X'HV = X'V - μ1'V, cached centred Gram matrix, V(V'V)), in NumPy, same start:
time per iteration, traced peak, and the largest relative difference of S after those iterations.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

import numpy as np

from bench_baselines1 import print_blas, training_fold


def octave_status_kib(oc, key: str) -> float:
    status = oc.eval("fileread('/proc/self/status')", nout=1)
    return next(float(line.split()[1]) for line in status.splitlines() if line.startswith(key + ":"))


def reset_octave_peak(oc) -> float:
    oc.eval("fid = fopen('/proc/self/clear_refs', 'w'); fprintf(fid, '5'); fclose(fid);", nout=0)
    return octave_status_kib(oc, "VmRSS")


def traced(function, *args):
    """(result or the PipelineError raised, seconds, traced peak MiB) of function(*args): a timed
    run, then a second run under tracemalloc (which slows NumPy down) for the peak."""
    from pipeline.errors import PipelineError

    def attempt():
        try:
            return function(*args)
        except PipelineError as exc:
            return exc

    start = time.perf_counter()
    result = attempt()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    attempt()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, peak


def lrdg_iterations(X, Y, S, V, iterations: int, as_coded: bool):
    """LRDG's updates (α = β = γ = 1) with the dense H as coded, or in the port's rank-one form."""
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


def compare_engines(engine, oc, X, Y) -> None:
    from pipeline.errors import PipelineError
    from pipeline.methods import get_method

    n, d = X.shape
    print(f"{'method':8s} {'numpy s':>9s} {'octave s':>9s} {'oct/np':>7s} {'np peak MiB':>12s} "
          f"{'oct peak MiB':>13s} {'iters':>6s} agreement")
    for method in ("LSMFS", "LRDG", "RFSFS"):
        method_spec = get_method(method)
        params = method_spec.resolve_params({})
        init = method_spec.initial_matrices(n, d, Y.shape[1], params)
        result, py_seconds, py_peak = traced(method_spec.python, X, Y, params, init)
        baseline = reset_octave_peak(oc)
        try:
            oc_ranking, oc_info = engine.rank(method_spec, X, Y, params, init, context=f"{method}/bench")
        except PipelineError as exc:
            print(f"{method:8s} stopped by the divergence guard in both engines?\n  numpy:  {result}\n  octave: {exc}")
            continue
        oc_peak = (octave_status_kib(oc, "VmHWM") - baseline) / 1024
        oc_seconds = float(oc_info["seconds"])
        py_ranking, py_info = result
        oc_ranking = np.asarray(oc_ranking, dtype=np.int64).reshape(-1)
        if method == "LRDG":
            k = round(0.2 * d)
            agreement = f"top-20% overlap {len(set(oc_ranking[:k]) & set(py_ranking[:k].tolist())) / k:.2f}"
        else:
            agreement = f"top-50 identical {np.array_equal(oc_ranking[:50], py_ranking[:50])}"
        print(f"{method:8s} {py_seconds:9.2f} {oc_seconds:9.2f} {oc_seconds / py_seconds:7.2f} {py_peak:12.1f} "
              f"{oc_peak:13.1f} {py_info['iterations']:6d} {agreement}")
        sys.stdout.flush()


def compare_centring(X, Y, iterations: int) -> None:
    from pipeline.methods import lrdg
    from pipeline.methods.starts import UniformStream

    n, d = X.shape
    init = lrdg.make_init(n, d, Y.shape[1], UniformStream(0), {})
    (S_coded, coded_seconds), _, coded_peak = traced(lrdg_iterations, X, Y, init["S0"], init["V0"], iterations, True)
    (S_port, port_seconds), _, port_peak = traced(lrdg_iterations, X, Y, init["S0"], init["V0"], iterations, False)
    difference = np.max(np.abs(S_coded - S_port)) / np.max(np.abs(S_coded))
    print(f"LRDG centring, {iterations} iterations: as coded (dense H) {coded_seconds:.2f} s/iteration, peak "
          f"{coded_peak:.0f} MiB; rank-one form {port_seconds:.3f} s/iteration, peak {port_peak:.0f} MiB; "
          f"speed-up {coded_seconds / port_seconds:.1f}x; max relative difference of S {difference:.1e}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="Science")
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads on both sides")
    parser.add_argument("--iterations", type=int, default=2, help="LRDG iterations of the centring peer")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    from threadpoolctl import threadpool_limits

    from pipeline.engines.octave import OctaveEngine

    X, Y = training_fold(args.dataset, args.rows)
    n, d = X.shape
    print(f"{args.dataset}: n = {n}, d = {d}, L = {Y.shape[1]}, zeros {100 * np.mean(X == 0):.1f} %, "
          f"BLAS threads {args.threads}; a dense n×n float64 matrix takes {n * n * 8 / 2**20:.0f} MiB")
    engine = OctaveEngine(timeout=7200)
    oc = engine.session.start()
    print_blas(engine.session)
    with threadpool_limits(limits=args.threads):
        compare_engines(engine, oc, X, Y)
        compare_centring(X, Y, args.iterations)
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
