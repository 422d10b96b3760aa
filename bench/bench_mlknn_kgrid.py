"""Benchmark: the native ML-kNN k-grid evaluator against looping scikit-multilearn's MLkNN.

Part 1 (issue 2 "Performance"): a synthetic fold shaped like the Yahoo sets (n_train 4000,
n_test 1000, d 600, L 25, about 93 % zeros, values in [0, 1], identity ranking). It times
:func:`pipeline.evaluation.mlknn.evaluate_grid` over the full k-grid 10..300 (30 points) and
scikit-multilearn 0.2.0's ``MLkNN`` fitted and asked to ``predict`` once per k on the first k
features (the peer does less work than ours: no posteriors, no metrics). The peer counts a training
point as its own neighbour, so its decisions differ from Zhang & Zhou's by design; the disagreement
rate of the hard predictions is reported too. Peak memory of our evaluation is measured with
``tracemalloc`` in a separate run (NumPy reports its allocations to it; the compiled kernel's
scratch is allocated by NumPy too). The first-use cost of the compiled kernel (Numba) is measured
in fresh interpreters: with an empty on-disk cache (compilation) and with the cache filled.

Part 2: one fold of each of the 15 real datasets (deterministic 70/30 split with
``default_rng(0)``, min-max scaling fitted on the training part, identity ranking), full k-grid.

Usage::

    python3 bench/bench_mlknn_kgrid.py [--peer-k-step 10] [--skip-peer] [--skip-real]
                                       [--skip-compile] [--data-root DIR]

``--peer-k-step 50`` times the peer on every 5th k only and extrapolates (stated in the output).
Our evaluator runs ``--repeats`` times (default 3) and the best time is used; the peer's loop runs
once (its 30 fits take minutes). On a shared machine both vary with the load; every run is printed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from pipeline.evaluation.grids import k_grid
from pipeline.evaluation.mlknn import MLkNN, evaluate_grid

REPO = Path(__file__).resolve().parents[1]


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


def time_ours(fold, ks):
    X_tr, Y_tr, X_te, Y_te = fold
    ranking = np.arange(1, X_tr.shape[1] + 1)
    start = time.perf_counter()
    result = evaluate_grid(X_tr, Y_tr, X_te, Y_te, ranking, ks)
    return time.perf_counter() - start, result


def peak_memory_ours(fold, ks) -> float:
    X_tr, Y_tr, X_te, Y_te = fold
    tracemalloc.start()
    evaluate_grid(X_tr, Y_tr, X_te, Y_te, np.arange(1, X_tr.shape[1] + 1), ks)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


FIRST_USE = (
    "import time; start = time.perf_counter(); import numpy as np; "
    "from pipeline.evaluation.neighbours import prefix_neighbours; "
    "prefix_neighbours(np.eye(3), np.eye(3), [3], num=1, exclude_self=True); "
    "print(time.perf_counter() - start)"
)


def first_use_seconds() -> tuple[float, float]:
    """Seconds from import to the first result of the compiled kernel in a fresh interpreter:
    with an empty Numba cache directory (compiles and fills it), then with that cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        runs = [float(subprocess.run([sys.executable, "-c", FIRST_USE], env=env, check=True,
                                     capture_output=True, text=True).stdout) for _ in range(2)]
    return runs[0], runs[1]


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-k-step", type=int, default=10,
                        help="time the peer on every k that is a multiple of this (default: all)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of our evaluator on the Yahoo-like fold; the best is used")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-peer", action="store_true")
    parser.add_argument("--skip-compile", action="store_true",
                        help="do not measure the kernel's first-use (compile / cache load) time")
    parser.add_argument("--data-root", type=Path,
                        default=Path(os.environ.get("MLFS_SHARED_DATA", REPO.parent / "shared" / "data"))
                        / "mlc")
    args = parser.parse_args(argv)

    if not args.skip_compile:
        cold, warm = first_use_seconds()
        print(f"compiled kernel, first use in a fresh interpreter: {cold:.2f} s with an empty "
              f"Numba cache (compiles), {warm:.2f} s with the on-disk cache")
    fold = yahoo_like_fold()
    ks = k_grid(fold[0].shape[1])
    zeros = float(np.mean(fold[0] == 0))
    print(f"Yahoo-like fold: n_train={fold[0].shape[0]} n_test={fold[2].shape[0]} "
          f"d={fold[0].shape[1]} L={fold[1].shape[1]} zeros={zeros:.1%}; k-grid {ks[0]}..{ks[-1]} "
          f"({len(ks)} points); cpu_count={os.cpu_count()}")
    runs = [time_ours(fold, ks) for _ in range(args.repeats)]
    ours_s, result = min(runs, key=lambda run: run[0])
    print(f"ours: evaluate_grid, full k-grid (7 metrics): {ours_s:.2f} s (best of {args.repeats}: "
          f"{', '.join(f'{run[0]:.2f}' for run in runs)} s)")
    print(f"ours: peak traced memory {peak_memory_ours(fold, ks):.0f} MiB")
    print(f"ours: micro_f1 at k=10/150/300: {result['micro_f1'][0]:.4f} "
          f"{result['micro_f1'][14]:.4f} {result['micro_f1'][-1]:.4f}")
    if not args.skip_peer:
        ks_peer = [k for k in ks if k % args.peer_k_step == 0]
        per_k, disagree = time_peer(fold, ks_peer)
        measured = sum(per_k.values())
        peer_s = measured * len(ks) / len(ks_peer)
        note = ("measured on all k" if len(ks_peer) == len(ks) else
                f"measured on {len(ks_peer)} of {len(ks)} k values, extrapolated")
        print(f"peer: scikit-multilearn MLkNN fit+predict per k: {peer_s:.1f} s ({note}; "
              f"{measured:.1f} s measured)")
        print(f"peer: prediction disagreement with Zhang's rule (self excluded): "
              f"mean {np.mean(list(disagree.values())):.4%} of cells, "
              f"max {max(disagree.values()):.4%} (k={max(disagree, key=disagree.get)})")
        print(f"ratio peer/ours: {peer_s / ours_s:.1f}x")
    if not args.skip_real:
        from pipeline.data.registry import REAL_DATASETS

        print(f"\n{'dataset':<14}{'n_train':>8}{'n_test':>8}{'d':>6}{'L':>5}{'#k':>5}{'seconds':>10}")
        for name in REAL_DATASETS:
            Xtr, Ytr, Xte, Yte = real_fold(name, args.data_root)
            grid = k_grid(Xtr.shape[1])
            start = time.perf_counter()
            evaluate_grid(Xtr, Ytr, Xte, Yte, np.arange(1, Xtr.shape[1] + 1), grid)
            seconds = time.perf_counter() - start
            print(f"{name:<14}{Xtr.shape[0]:>8}{Xte.shape[0]:>8}{Xtr.shape[1]:>6}"
                  f"{Ytr.shape[1]:>5}{len(grid):>5}{seconds:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
