"""Benchmark of the oct2py bridge (OctaveEngine / OctaveEvaluator) and of the Octave ML-kNN.

Measures, in one run on this machine:

1. Octave start-up (a cold ``OctaveSession.start()``: process, path set-up);
2. the per-call overhead of the bridge (a trivial function through ``mlfs_engine_call``), against a
   direct ``oct2py.feval`` of the same function (the peer);
3. the transfer time of a 4000 x 1000 float64 fold (X_train 4000 x 1000 + Y_train 4000 x 25);
4. the bridge overhead as a share of a full Yahoo-sized fold evaluation (Arts, 4000 train / 1000
   test rows, the 30-point k-grid 10..300): wall time of the bridge call (what
   ``OctaveEvaluator.evaluate`` does) minus the time ``MLKNN_eval_kgrid`` spends inside Octave in that
   same call (goal: <= 5 %);
5. ``MLKNN_eval_kgrid`` in Octave against the native evaluator on that fold (ratio), with the check
   that both give the same curves.

Run: ``python3 bench/bench_octave_bridge.py [--data ../shared/data/mlc] [--quick]``
(``--quick`` uses 1000 / 250 rows for item 4-5, for a fast smoke run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from pipeline.data.registry import load_dataset
from pipeline.engines.octave import OctaveSession, curves_from_engine, evaluation_inputs
from pipeline.evaluation.grids import k_grid
from pipeline.evaluation.mlknn import evaluate_grid
from pipeline.methods.anchors import rank_variance

METRICS = ("micro_f1", "macro_f1", "hamming_loss", "micro_pr_auc", "macro_pr_auc", "avg_precision",
           "one_error")


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def bench_startup() -> tuple[float, OctaveSession]:
    session = OctaveSession(timeout=3600)
    seconds, _ = timed(session.start)
    return seconds, session


def bench_call_overhead(session: OctaveSession, repeats: int = 40) -> tuple[float, float]:
    """Median seconds of a trivial call through the bridge wrapper and through raw oct2py."""
    octave = session.start()
    bridge = [timed(session.call, "plus", 1.0, 2.0, nout=1)[0] for _ in range(repeats)]
    raw = [timed(octave.feval, "plus", 1.0, 2.0, verbose=False)[0] for _ in range(repeats)]
    return statistics.median(bridge), statistics.median(raw)


def bench_transfer(session: OctaveSession, repeats: int = 5) -> float:
    """Median seconds to send a 4000 x 1000 fold (to isequal, which returns at once), minus a tiny call."""
    rng = np.random.default_rng(0)
    X = rng.random((4000, 1000))
    Y = (rng.random((4000, 25)) > 0.9).astype(np.float64)
    big = [timed(session.call, "isequal", X, Y, nout=1)[0] for _ in range(repeats)]
    small = [timed(session.call, "isequal", X[:2, :2], Y[:2, :2], nout=1)[0] for _ in range(repeats)]
    return statistics.median(big) - statistics.median(small)


def yahoo_fold(data_dir: Path, n_train: int, n_test: int):
    data = load_dataset("Arts", data_dir)
    rows = np.random.default_rng(0).permutation(data.n_samples)[:n_train + n_test]
    return data.X[rows[:n_train]], data.Y[rows[:n_train]], data.X[rows[n_train:]], data.Y[rows[n_train:]]


def bench_fold(session: OctaveSession, fold, ks) -> dict:
    """Wall time of OctaveEvaluator.evaluate-equivalent call vs the time spent inside Octave.

    The call goes through the same bridge (inputs restricted to the ranked prefix, MAT-file
    exchange, result conversion); ``mlfs_timed_call`` measures the computation inside the same call,
    so the difference is the bridge overhead of that very call.
    """
    X_train, Y_train, X_test, Y_test = fold
    ranking, _ = rank_variance(X_train, Y_train, {})
    start = time.perf_counter()
    inputs = evaluation_inputs(X_train, Y_train, X_test, Y_test, ranking, ks)
    inside, result = session.call("mlfs_timed_call", "MLKNN_eval_kgrid", *inputs, 10.0, 1.0, nout=2)
    octave_curves = curves_from_engine(result)
    total = time.perf_counter() - start
    native_seconds, native_curves = timed(evaluate_grid, X_train, Y_train, X_test, Y_test, ranking, ks,
                                          num=10, smooth=1.0)
    worst = max(float(np.nanmax(np.abs(np.asarray(native_curves[k], float) - np.asarray(octave_curves[k], float))))
                for k in METRICS)
    return {"total": total, "inside": float(inside), "native": native_seconds, "max_abs_diff": worst}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("MLFS_SHARED_DATA", "../shared/data")) / "mlc")
    parser.add_argument("--quick", action="store_true", help="1000/250 rows instead of 4000/1000")
    args = parser.parse_args()

    startup, session = bench_startup()
    print(f"Octave start-up (cold, path set-up included): {startup:.2f} s")
    try:
        bridge, raw = bench_call_overhead(session)
        print(f"per-call overhead: bridge {bridge * 1e3:.1f} ms, raw oct2py.feval {raw * 1e3:.1f} ms "
              f"(ratio {bridge / raw:.2f})")
        transfer = bench_transfer(session)
        print(f"transfer of a 4000 x 1000 fold (+ 4000 x 25 labels, 32.8 MB): {transfer:.3f} s "
              f"({32.8 / transfer:.0f} MB/s)")
        n_train, n_test = (1000, 250) if args.quick else (4000, 1000)
        fold = yahoo_fold(args.data, n_train, n_test)
        ks = k_grid(fold[0].shape[1], 10, 300, 10)
        result = bench_fold(session, fold, ks)
        overhead = result["total"] - result["inside"]
        print(f"Arts fold {n_train} x {fold[0].shape[1]} train / {n_test} test, {len(ks)}-point k-grid:")
        print(f"  bridge call wall {result['total']:.2f} s, inside Octave {result['inside']:.2f} s, "
              f"bridge overhead {overhead:.3f} s = {100 * overhead / result['total']:.2f} % (goal <= 5 %)")
        print(f"  native evaluate_grid {result['native']:.2f} s; Octave/native time ratio "
              f"{result['inside'] / result['native']:.2f}; max |metric difference| {result['max_abs_diff']:.1e}")
    finally:
        session.close()


if __name__ == "__main__":
    main()
