"""Benchmark of the Baselines I (LRMFS, GRRO, SRFS, SCNMF) on a Yahoo-sized fold, Octave vs NumPy.

    python3 bench/bench_baselines1.py [--dataset Science] [--rows 4000] [--threads 1]

The fold is the training part of fold 0 of a stratified 5-fold split of a real Yahoo dataset
(n ≈ 4000, its full d), min-max scaled. For each method (LRMFS in its fast and faithful modes)
it prints the ranking time in NumPy and in Octave (the method's own timer, without the bridge),
the ratio Octave / NumPy, the NumPy peak of traced allocations (tracemalloc) and the Octave
process's peak resident memory above its resident size at start-up (a fresh Octave per method;
VmHWM - VmRSS, so the copies of the inputs the bridge loads are included), and checks that the
two rankings agree (top 50, all features, Spearman ρ of the positions). Defaults: each method's
DEFAULTS (docs/methods/). The header names the BLAS each engine runs on.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parents[1]


def training_fold(name: str, rows: int, seed: int = 0):
    from pipeline.data.registry import load_dataset
    from pipeline.data.scaling import scale_fold
    from pipeline.data.splits import stratified_splits

    env = os.environ.get("MLFS_SHARED_DATA")
    mlc = Path(env) / "mlc" if env else REPO.parent / "shared" / "data" / "mlc"
    data = load_dataset(name, mlc)
    split = stratified_splits(data.Y, mode="kfold", n_folds=5, seed=seed)[0]
    train = np.sort(split.train)[:rows]
    X_train, _ = scale_fold(data.X[train], data.X[train[:1]], "minmax")
    return X_train, data.Y[train].astype(np.float64)


def octave_memory_kib(oc, field: str) -> float:
    """VmRSS / VmHWM of the Octave process, in KiB, from /proc/self/status (Linux)."""
    status = oc.eval("fileread('/proc/self/status')", nout=1)
    return next(float(line.split()[1]) for line in status.splitlines() if line.startswith(field + ":"))


def numpy_blas() -> str:
    """The BLAS libraries NumPy runs on, with their versions (threadpoolctl)."""
    from threadpoolctl import threadpool_info

    return ", ".join(dict.fromkeys(f"{i['internal_api']} {i.get('version')}" for i in threadpool_info()
                                   if i["user_api"] == "blas"))


def print_blas(session) -> None:
    """One line: the BLAS NumPy and the Octave of ``session`` run on."""
    from pipeline.engines.octave import linear_algebra_libraries

    print(f"NumPy BLAS: {numpy_blas()}; Octave BLAS: {linear_algebra_libraries(session)['blas']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="Science")
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads on both sides")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    from threadpoolctl import threadpool_limits

    from pipeline.engines.octave import OctaveEngine, OctaveSession
    from pipeline.methods import get_method

    X, Y = training_fold(args.dataset, args.rows)
    n, d = X.shape
    print(f"{args.dataset}: n = {n}, d = {d}, L = {Y.shape[1]}, zeros {100 * np.mean(X == 0):.1f} %, "
          f"BLAS threads {args.threads}; a dense n×n float64 matrix would take {n * n * 8 / 2**20:.0f} MiB")
    session = OctaveSession(timeout=600)
    print_blas(session)
    session.close()
    runs = [("LRMFS", {}), ("LRMFS", {"mode": "faithful"}), ("GRRO", {}), ("SRFS", {}), ("SCNMF", {})]
    print(f"{'method':16s} {'numpy s':>9s} {'octave s':>9s} {'oct/np':>7s} {'np peak MiB':>12s} "
          f"{'oct peak MiB':>13s} {'iters':>6s} top50  all   Spearman")
    with threadpool_limits(limits=args.threads):
        for method, overrides in runs:
            method_spec = get_method(method)
            params = method_spec.resolve_params(overrides)
            init = method_spec.initial_matrices(n, d, Y.shape[1], params)
            tracemalloc.start()
            start = time.perf_counter()
            py_ranking, py_info = method_spec.python(X, Y, params, init)
            py_seconds = time.perf_counter() - start
            py_peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            engine = OctaveEngine(timeout=7200)
            oc = engine.session.start()
            baseline = octave_memory_kib(oc, "VmRSS")
            oc_ranking, oc_info = engine.rank(method_spec, X, Y, params, init, context=method)
            oc_peak = (octave_memory_kib(oc, "VmHWM") - baseline) / 1024
            engine.close()
            oc_seconds = float(oc_info["seconds"])
            label = method + ("/" + overrides["mode"] if overrides else "")
            oc_ranking = np.asarray(oc_ranking, dtype=np.int64)
            same = np.array_equal(oc_ranking[:50], py_ranking[:50])
            rho = spearmanr(np.argsort(oc_ranking), np.argsort(py_ranking))[0]
            print(f"{label:16s} {py_seconds:9.2f} {oc_seconds:9.2f} {oc_seconds / py_seconds:7.2f} "
                  f"{py_peak:12.1f} {oc_peak:13.1f} {str(py_info.get('iterations', '-')):>6s} {str(same):5s} "
                  f"{str(np.array_equal(oc_ranking, py_ranking)):5s} {rho:.6f}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
