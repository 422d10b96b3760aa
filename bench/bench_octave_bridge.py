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

Each measurement is repeated (start-up and the fold evaluation ``--repeats`` times, default 3;
trivial calls 40 times, transfers 5 times) and recorded with its spread in bench/results.json.

Run: ``python3 bench/bench_octave_bridge.py [--data ../shared/data/mlc] [--repeats 3] [--quick]``
(``--quick`` uses 1000 / 250 rows for items 4-5, for a fast smoke run).
"""

from __future__ import annotations

import argparse
import sys
import statistics
import time
from pathlib import Path

import numpy as np

from pipeline.cli import run_main
from pipeline.data.registry import load_dataset
from pipeline.engines.octave import OctaveSession, curves_from_engine, evaluation_inputs
from pipeline.evaluation.grids import k_grid
from pipeline.evaluation.mlknn import evaluate_grid
from pipeline.methods import get_method
from record import BenchRun, Measurement, shared_data

METRICS = ("micro_f1", "macro_f1", "hamming_loss", "micro_pr_auc", "macro_pr_auc", "avg_precision",
           "one_error")


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def bench_startup(repeats: int) -> Measurement:
    """Seconds of a cold ``OctaveSession.start()``, each time a new Octave process."""
    samples = []
    for _ in range(repeats):
        session = OctaveSession(timeout=3600)
        try:
            samples.append(timed(session.start)[0])
        finally:
            session.close()
    return Measurement(tuple(samples))


def bench_call_overhead(session: OctaveSession, repeats: int = 40) -> tuple[Measurement, Measurement]:
    """Seconds of a trivial call through the bridge wrapper and through raw oct2py, per call."""
    octave = session.start()
    bridge = [timed(session.call, "plus", 1.0, 2.0, nout=1)[0] for _ in range(repeats)]
    raw = [timed(octave.feval, "plus", 1.0, 2.0, verbose=False)[0] for _ in range(repeats)]
    return Measurement(tuple(bridge)), Measurement(tuple(raw))


def bench_transfer(session: OctaveSession, repeats: int = 5) -> Measurement:
    """Seconds to send a 4000 x 1000 fold (to isequal, which returns at once), each run less the
    median of the same call on a 2 x 2 corner."""
    rng = np.random.default_rng(0)
    X = rng.random((4000, 1000))
    Y = (rng.random((4000, 25)) > 0.9).astype(np.float64)
    big = [timed(session.call, "isequal", X, Y, nout=1)[0] for _ in range(repeats)]
    small = statistics.median(timed(session.call, "isequal", X[:2, :2], Y[:2, :2], nout=1)[0]
                              for _ in range(repeats))
    return Measurement(tuple(seconds - small for seconds in big))


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
    ranking, _ = get_method("VARIANCE").run(X_train, Y_train, {})
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


def record_fold(run: BenchRun, session: OctaveSession, fold, repeats: int) -> None:
    """Items 4 and 5: ``repeats`` bridge calls of the Octave evaluator and native evaluations."""
    ks = k_grid(fold[0].shape[1], 10, 300, 10)
    corner = [part[:50] for part in fold]
    evaluate_grid(*corner, np.arange(1, fold[0].shape[1] + 1), ks[:1])  # loads the compiled kernel, untimed
    runs = [bench_fold(session, fold, ks) for _ in range(repeats)]
    print(f"max |metric difference| Octave vs native: {max(r['max_abs_diff'] for r in runs):.1e}")
    column = {key: Measurement(tuple(r[key] for r in runs)) for key in ("inside", "native")}
    overhead = Measurement(tuple(r["total"] - r["inside"] for r in runs))
    where = (f"Arts fold {fold[0].shape[0]} × {fold[0].shape[1]} train / {fold[2].shape[0]} test, "
             f"{len(ks)}-point k-grid")
    run.figure(f"native evaluate_grid, {where}", column["native"], "s",
               peers={"Octave MLKNN_eval_kgrid, time inside Octave": column["inside"]})
    run.figure("bridge overhead of that Octave evaluation (call wall time − time inside Octave)", overhead, "s")
    run.figure("bridge overhead share of the Octave evaluation (goal ≤ 5 %)",
               Measurement(tuple(100 * (r["total"] - r["inside"]) / r["total"] for r in runs)), "%")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=shared_data("mlc"))
    parser.add_argument("--repeats", type=int, default=3, help="start-ups and fold evaluations (default 3)")
    parser.add_argument("--quick", action="store_true", help="1000/250 rows instead of 4000/1000")
    args = parser.parse_args(argv)
    n_train, n_test = (1000, 250) if args.quick else (4000, 1000)
    fold = yahoo_fold(args.data, n_train, n_test)
    with BenchRun(__file__) as run:
        run.figure("Octave start-up: cold OctaveSession.start() (process, path set-up)",
                   bench_startup(args.repeats), "s")
        session = OctaveSession(timeout=3600)
        try:
            bridge, raw = bench_call_overhead(session)
            run.figure("per-call overhead of the bridge (trivial function through mlfs_engine_call)",
                       bridge.scaled(1e3), "ms", peers={"raw oct2py.feval of the same function": raw.scaled(1e3)})
            run.figure("transfer of a 4000 × 1000 fold + 4000 × 25 labels (32.8 MB) into Octave",
                       bench_transfer(session), "s")
            record_fold(run, session, fold, args.repeats)
        finally:
            session.close()


if __name__ == "__main__":
    sys.exit(run_main(main))
