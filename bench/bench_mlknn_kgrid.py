"""Benchmark: the native ML-kNN k-grid evaluator against looping scikit-multilearn's MLkNN.

Part 1: a synthetic fold shaped like the Yahoo sets (n_train 4000,
n_test 1000, d 600, L 25, about 93 % zeros, values in [0, 1], identity ranking). It times
:func:`pipeline.evaluation.mlknn.evaluate_grid` over the full k-grid 10..300 (30 points) and
scikit-multilearn 0.2.0's ``MLkNN`` fitted and asked to ``predict`` once per k on the first k
features (the peer does less work than ours: no posteriors, no metrics). The peer counts a training
point as its own neighbour, so its decisions differ from Zhang & Zhou's by design; the disagreement
rate of the hard predictions is reported too. Peak memory of our evaluation is measured with
``tracemalloc`` in a separate run (NumPy reports its allocations to it; the compiled kernel's
scratch is allocated by NumPy too). The first-use cost of the compiled kernel (Numba) is measured
in fresh interpreters: with an empty on-disk cache (compilation) and with the cache filled.

Part 2: one fold of each registered real dataset (deterministic 70/30 split with
``default_rng(0)``, min-max scaling fitted on the training part, identity ranking), full k-grid.

Usage::

    python3 bench/bench_mlknn_kgrid.py [--repeats 3] [--peer-k-step 10] [--skip-peer] [--skip-real]
                                       [--skip-compile] [--data-root DIR]

``--peer-k-step 50`` times the peer on every 5th k only and extrapolates (stated in the figure's
peer name). Our evaluator, the first-use timings and each real fold run ``--repeats`` times
(default 3); the peer's loop runs once (its 30 fits take minutes). The figures (median, range,
runs) go to bench/results.json.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline.cli import run_main
from pipeline.evaluation.grids import k_grid
from pipeline.evaluation.mlknn import MLkNN, evaluate_grid
from record import BenchRun, Measurement, measure, shared_data, traced_peak_mib



def yahoo_like_fold(seed: int = 0, n_train: int = 4000, n_test: int = 1000, d: int = 600,
                    n_labels: int = 25, topic_size: int = 30):
    """Sparse non-negative features (~92 % zeros, values in [0, 1]), about 1.6 labels per
    instance; each label switches on half of its own block of ``topic_size`` features, so the
    labels are learnable (as on the Yahoo sets, where ML-kNN reaches micro-F1 around 0.3-0.6)."""
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    Y = rng.random((n, n_labels)) < 0.6 / n_labels
    Y[np.arange(n), rng.integers(0, n_labels, n)] = True
    topics = np.zeros((n_labels, d), dtype=bool)
    for label, block in enumerate(np.array_split(rng.permutation(d), n_labels)):
        topics[label, block[:topic_size]] = True
    in_topic = (Y.astype(float) @ topics.astype(float)) > 0
    mask = rng.random((n, d)) < np.where(in_topic, 0.5, 0.045)
    X = rng.random((n, d)) * mask
    return X[:n_train], Y[:n_train].astype(np.int8), X[n_train:], Y[n_train:].astype(np.int8)


def patched_skmultilearn_mlknn():
    """scikit-multilearn 0.2.0's MLkNN, with NearestNeighbors called with n_neighbors=k.

    The 0.2.0 release calls ``NearestNeighbors(self.k)``, which current scikit-learn rejects
    (keyword-only argument). The patch is local to this benchmark.
    """
    import skmultilearn.adapt.mlknn as skml
    from sklearn.neighbors import NearestNeighbors

    skml.NearestNeighbors = lambda k: NearestNeighbors(n_neighbors=k)
    return skml.MLkNN


def evaluate_identity(fold, ks):
    """Our evaluator on the fold, features in their given order (identity ranking)."""
    X_tr, Y_tr, X_te, Y_te = fold
    return evaluate_grid(X_tr, Y_tr, X_te, Y_te, np.arange(1, X_tr.shape[1] + 1), ks)


FIRST_USE = (
    "import time; start = time.perf_counter(); import numpy as np; "
    "from pipeline.evaluation.neighbours import prefix_neighbours; "
    "prefix_neighbours(np.eye(3), np.eye(3), [3], num=1, exclude_self=True); "
    "print(time.perf_counter() - start)"
)


def first_use_seconds(repeats: int) -> tuple[Measurement, Measurement]:
    """Seconds from import to the first result of the compiled kernel in a fresh interpreter:
    with an empty Numba cache directory (compiles and fills it), then with that cache; each
    repeat starts from a new empty cache."""
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            for runs in (cold, warm):
                runs.append(float(subprocess.run([sys.executable, "-c", FIRST_USE], env=env, check=True,
                                                 capture_output=True, text=True).stdout))
    return Measurement(tuple(cold)), Measurement(tuple(warm))


def time_peer(fold, ks_peer):
    """Seconds per k of the peer, and the share of (instance, label) cells where its hard
    predictions differ from ours (same k)."""
    X_tr, Y_tr, X_te, Y_te = fold
    Peer = patched_skmultilearn_mlknn()
    per_k, disagreements = {}, {}
    for k in ks_peer:
        start = time.perf_counter()
        peer = Peer(k=10, s=1.0).fit(X_tr[:, :k], Y_tr)
        predicted = peer.predict(X_te[:, :k]).toarray()
        per_k[k] = time.perf_counter() - start
        ours = MLkNN(num=10, smooth=1.0).fit(X_tr[:, :k], Y_tr).predict(X_te[:, :k])
        disagreements[k] = float(np.mean(predicted != ours))
    return per_k, disagreements


def real_fold(name: str, data_root: Path):
    from pipeline.data.registry import load_dataset

    data = load_dataset(name, data_root)
    order = np.random.default_rng(0).permutation(data.n_samples)
    cut = int(round(0.7 * data.n_samples))
    tr, te = order[:cut], order[cut:]
    lo, hi = data.X[tr].min(axis=0), data.X[tr].max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (data.X[tr] - lo) / span, data.Y[tr], (data.X[te] - lo) / span, data.Y[te]


def bench_yahoo_like(run: BenchRun, repeats: int, peer_k_step: int | None) -> None:
    """Our evaluator on the Yahoo-shaped fold, its memory, and (unless None) the peer's loop."""
    fold = yahoo_like_fold()
    ks = k_grid(fold[0].shape[1])
    shape = (f"Yahoo-shaped fold (n_train {fold[0].shape[0]}, n_test {fold[2].shape[0]}, d {fold[0].shape[1]}, "
             f"L {fold[1].shape[1]}, {np.mean(fold[0] == 0):.0%} zeros)")
    evaluate_identity(tuple(part[:50] for part in fold), ks[:1])  # loads the compiled kernel, untimed
    ours, result = measure(evaluate_identity, fold, ks, repeats=repeats)
    print(f"ours: micro_f1 at k=10/150/300: {result['micro_f1'][0]:.4f} "
          f"{result['micro_f1'][14]:.4f} {result['micro_f1'][-1]:.4f}")
    peers = {}
    if peer_k_step is not None:
        ks_peer = [k for k in ks if k % peer_k_step == 0]
        per_k, disagree = time_peer(fold, ks_peer)
        how = "" if len(ks_peer) == len(ks) else f", timed on {len(ks_peer)} of them and extrapolated"
        name = f"scikit-multilearn 0.2.0 MLkNN fit + predict looped over the {len(ks)} k{how}"
        peers[name] = sum(per_k.values()) * len(ks) / len(ks_peer)
        print(f"peer: prediction disagreement with Zhang's rule (self excluded): "
              f"mean {np.mean(list(disagree.values())):.4%} of cells, "
              f"max {max(disagree.values()):.4%} (k={max(disagree, key=disagree.get)})")
    run.figure(f"evaluate_grid, full {len(ks)}-point k-grid (7 metrics), {shape}", ours, "s", peers=peers)
    run.figure("same evaluation, peak traced memory (tracemalloc)", traced_peak_mib(evaluate_identity, fold, ks),
               "MiB")


def bench_real(run: BenchRun, repeats: int, data_root: Path) -> None:
    from pipeline.data.registry import REAL_DATASETS

    for name in REAL_DATASETS:
        fold = real_fold(name, data_root)
        grid = k_grid(fold[0].shape[1])
        seconds, _ = measure(evaluate_identity, fold, grid, repeats=repeats)
        run.figure(f"full k-grid ({len(grid)} k), one 70/30 fold of {name} (n_train {fold[0].shape[0]}, "
                   f"n_test {fold[2].shape[0]}, d {fold[0].shape[1]}, L {fold[1].shape[1]})", seconds, "s")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of our evaluator, of the first-use timings and of each real fold")
    parser.add_argument("--peer-k-step", type=int, default=10,
                        help="time the peer on every k that is a multiple of this (default: all)")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-peer", action="store_true")
    parser.add_argument("--skip-compile", action="store_true",
                        help="do not measure the kernel's first-use (compile / cache load) time")
    parser.add_argument("--data-root", type=Path, default=shared_data("mlc"))
    args = parser.parse_args(argv)
    with BenchRun(__file__) as run:
        if not args.skip_compile:
            cold, warm = first_use_seconds(args.repeats)
            run.figure("compiled kernel, first use in a fresh interpreter, empty Numba cache (compiles)", cold, "s")
            run.figure("compiled kernel, first use in a fresh interpreter, on-disk Numba cache", warm, "s")
        bench_yahoo_like(run, args.repeats, None if args.skip_peer else args.peer_k_step)
        if not args.skip_real:
            bench_real(run, args.repeats, args.data_root)


if __name__ == "__main__":
    sys.exit(run_main(main))
