"""Benchmark of the Baselines I (LRMFS, GRRO, SRFS, SCNMF) on a Yahoo-sized fold, NumPy vs Octave.

    python bench/bench_baselines1.py [--dataset Science] [--rows 4000] [--threads 1] [--repeats 3]

The fold is the first ``--rows`` training rows of fold 0 of a stratified 5-fold split of a real
Yahoo dataset (its full d), min-max scaled. For each method (LRMFS in its fast and faithful modes;
defaults of docs/methods/, harness-drawn start) it records, in bench/results.json:

- the ranking time in NumPy (wall, ``--repeats`` runs) against Octave's (the method's own timer,
  without the bridge, ``--repeats`` calls);
- the NumPy peak of traced allocations (tracemalloc, one more run, which tracing slows down)
  against the peak resident memory of a fresh Octave process per method above its resident size
  before the first call (VmHWM after resetting it, so the copies of the inputs the bridge loads
  are included).

It prints whether the two rankings agree (top 50, all features, Spearman ρ of the positions) and
the BLAS each engine runs on. A method stopped by its divergence guard is reported and not recorded.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from pipeline.cli import run_main
from pipeline.errors import PipelineError
from record import BenchRun, Measurement, measure, shared_data, traced_peak_mib

#: (method, parameter overrides) in the order they are measured.
RUNS = (("LRMFS", {}), ("LRMFS", {"mode": "faithful"}), ("GRRO", {}), ("SRFS", {}), ("SCNMF", {}))


def training_fold(name: str, rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """X (rows, d) min-max scaled and Y (rows, L) float64: the first training rows of fold 0."""
    from pipeline.data.registry import load_dataset
    from pipeline.data.scaling import scale_fold
    from pipeline.data.splits import stratified_splits

    data = load_dataset(name, shared_data("mlc"))
    split = stratified_splits(data.Y, mode="kfold", n_folds=5, seed=seed)[0]
    train = np.sort(split.train)[:rows]
    X_train, _ = scale_fold(data.X[train], data.X[train[:1]], "minmax")
    return X_train, data.Y[train].astype(np.float64)


def fold_workload(dataset: str, X: np.ndarray, Y: np.ndarray, threads: int) -> str:
    """``"Science training fold (n 4000, d 743, L 40, 1 BLAS thread)"``: the workload in figure names."""
    n, d = X.shape
    return f"{dataset} training fold (n {n}, d {d}, L {Y.shape[1]}, {threads} BLAS thread{'s' * (threads != 1)})"


def octave_status_kib(oc, field: str) -> float:
    """A /proc/self/status field of the Octave process (VmRSS, VmHWM), in KiB (Linux)."""
    status = oc.eval("fileread('/proc/self/status')", nout=1)
    return next(float(line.split()[1]) for line in status.splitlines() if line.startswith(field + ":"))


def reset_octave_peak(oc) -> float:
    """Reset the Octave process's peak resident size (VmHWM) to its current one; return that, in KiB."""
    oc.eval("fid = fopen('/proc/self/clear_refs', 'w'); fprintf(fid, '5'); fclose(fid);", nout=0)
    return octave_status_kib(oc, "VmRSS")


def octave_runs(method_spec, X, Y, params, init, repeats: int) -> tuple[np.ndarray, Measurement, float]:
    """The Octave ranking, ``repeats`` times of the method's own timer (s), and the first call's peak
    resident memory above the size before it (MiB), in an Octave process of the method's own (the heap
    an earlier method left behind would hide allocations)."""
    from pipeline.engines.octave import OctaveEngine

    engine = OctaveEngine(timeout=7200)
    try:
        oc = engine.session.start()
        baseline = reset_octave_peak(oc)
        seconds, ranking = [], None
        for repeat in range(repeats):
            ranking, info = engine.rank(method_spec, X, Y, params, init, context=f"{method_spec.name}/bench")
            seconds.append(float(info["seconds"]))
            if repeat == 0:
                peak = (octave_status_kib(oc, "VmHWM") - baseline) / 1024
    finally:
        engine.close()
    return np.asarray(ranking, dtype=np.int64).reshape(-1), Measurement(tuple(seconds)), peak


def agreement(method: str, octave_ranking: np.ndarray, numpy_ranking: np.ndarray) -> str:
    """How far the two engines' rankings agree (LRDG: top-20 % overlap, its full run being engine-specific)."""
    from scipy.stats import spearmanr

    if method == "LRDG":
        top = max(1, round(0.2 * numpy_ranking.size))
        return f"top-20% overlap {len(set(octave_ranking[:top].tolist()) & set(numpy_ranking[:top].tolist())) / top:.2f}"
    rho = spearmanr(np.argsort(octave_ranking), np.argsort(numpy_ranking))[0]
    return (f"top 50 identical {np.array_equal(octave_ranking[:50], numpy_ranking[:50])}, "
            f"all identical {np.array_equal(octave_ranking, numpy_ranking)}, Spearman ρ {rho:.6f}")


def record_method(run: BenchRun, method: str, overrides: dict, X, Y, workload: str, repeats: int) -> None:
    """Time and peak memory of one method in both engines on (X, Y): two figures, Octave as the peer."""
    from pipeline.methods import get_method

    method_spec = get_method(method)
    params = method_spec.resolve_params(overrides)
    init = method_spec.initial_matrices(X.shape[0], X.shape[1], Y.shape[1], params)
    label = "/".join([method, *overrides.values()])
    try:
        numpy_seconds, (numpy_ranking, info) = measure(method_spec.run, X, Y, params, init, repeats=repeats)
        numpy_peak = traced_peak_mib(method_spec.run, X, Y, params, init)
        octave_ranking, octave_seconds, octave_peak = octave_runs(method_spec, X, Y, params, init, repeats)
    except PipelineError as exc:
        print(f"{label}: not recorded, stopped: {exc}", flush=True)
        return
    run.figure(f"{label} ranking in NumPy, {workload}", numpy_seconds, "s",
               peers={"Octave (the method's own timer, without the bridge)": octave_seconds})
    run.figure(f"{label} peak memory in NumPy (traced allocations), {workload}", numpy_peak, "MiB",
               peers={"Octave process (peak resident above its size before the call)": octave_peak})
    print(f"  {label}: {info.get('iterations', '-')} iterations; {agreement(method, octave_ranking, numpy_ranking)}",
          flush=True)


def numpy_blas() -> str:
    """The BLAS libraries NumPy runs on, with their versions (threadpoolctl)."""
    from threadpoolctl import threadpool_info

    return ", ".join(dict.fromkeys(f"{i['internal_api']} {i.get('version')}" for i in threadpool_info()
                                   if i["user_api"] == "blas"))


def print_fold(dataset: str, X: np.ndarray, Y: np.ndarray, threads: int) -> None:
    """The fold's shape and sparsity, and the BLAS NumPy and Octave run on."""
    from pipeline.engines.octave import OctaveSession, linear_algebra_libraries

    n = X.shape[0]
    print(f"{fold_workload(dataset, X, Y, threads)}: zeros {100 * np.mean(X == 0):.1f} %; a dense n×n float64 "
          f"matrix takes {n * n * 8 / 2**20:.0f} MiB")
    session = OctaveSession(timeout=600)
    try:
        print(f"NumPy BLAS: {numpy_blas()}; Octave BLAS: {linear_algebra_libraries(session)['blas']}", flush=True)
    finally:
        session.close()


def parser_for(description: str) -> argparse.ArgumentParser:
    """The options both Baselines benches take."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--dataset", default="Science")
    parser.add_argument("--rows", type=int, default=4000, help="training rows (default 4000)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads on both sides (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per engine and method (default 3)")
    return parser


def limit_blas_threads(threads: int):
    """Limit NumPy's BLAS (returned context) and, through the environment, the Octave started later."""
    from threadpoolctl import threadpool_limits

    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    return threadpool_limits(limits=threads)


def main(argv=None) -> None:
    args = parser_for(__doc__.splitlines()[0]).parse_args(argv)
    X, Y = training_fold(args.dataset, args.rows)
    workload = fold_workload(args.dataset, X, Y, args.threads)
    with limit_blas_threads(args.threads), BenchRun(__file__) as run:
        print_fold(args.dataset, X, Y, args.threads)
        for method, overrides in RUNS:
            record_method(run, method, overrides, X, Y, workload, args.repeats)

if __name__ == "__main__":
    sys.exit(run_main(main))
