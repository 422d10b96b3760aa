"""Time the HAR protocol pieces on this machine (not part of the test suite).

0. Reading a RealWorld-sized dataset ``.npz`` (27,138 windows, float32) and 1,024-d float32
   embeddings ``.npy`` with the bounded, header-checking readers vs plain ``np.load`` (the peer).
1. Embedding BasicMotions: MiniRocket vs summary statistics (the peer), and a cache hit vs a
   recompute of MiniRocket.
2. Metrics 3-5 at protocol settings (100 epochs, batch 512) on a VTT-ConIoT-sized synthetic set
   (2,058 windows, 16 classes, 384-d, or (120, 72) sequences for GRU / Transformer_ft), per
   classifier, against the linear probe as the peer.

    python3 bench/bench_har_protocol.py [--quick] [--classifiers linear svm_rbf gru transformer_ft]
    python3 bench/bench_har_protocol.py --loading-only
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch

from pipeline.protocols.har import (EmbeddingCache, EvaluationConfig, HarDataset, MiniRocketEmbedder,
                                    SummaryStatisticsEmbedder, TrainingConfig, evaluate_model,
                                    load_basic_motions)
from pipeline.protocols.har.files import read_npy, read_npz


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


class FixedEmbeddings:
    """Stand-in provider returning a precomputed array (as a real model's .npy would)."""

    def __init__(self, name, array):
        self.name, self.array = name, array

    def embed(self, windows):
        return self.array


def _best_of(fn, repeats=3):
    return min(_timed(fn)[0] for _ in range(repeats))


def bench_loading() -> None:
    rng = np.random.default_rng(0)
    n = 27_138
    with tempfile.TemporaryDirectory() as root:
        dataset, embeddings = f"{root}/realworld.npz", f"{root}/emb.npy"
        np.savez(dataset, windows=rng.standard_normal((n, 120, 6), dtype=np.float32),
                 labels=np.arange(n) % 8, activity_names=np.array([f"a{k}" for k in range(8)]))
        np.save(embeddings, rng.standard_normal((n, 1024), dtype=np.float32))

        def plain_npz():
            with np.load(dataset, allow_pickle=False) as archive:
                return {key: archive[key] for key in archive.files}

        for name, checked, plain in (("dataset .npz (78 MB)", lambda: read_npz(dataset), plain_npz),
                                     ("embeddings .npy (111 MB)", lambda: read_npy(embeddings),
                                      lambda: np.load(embeddings, allow_pickle=False))):
            t_plain, t_checked = _best_of(plain), _best_of(checked)
            print(f"read {name}: np.load {t_plain * 1e3:.1f} ms, bounded reader {t_checked * 1e3:.1f} ms "
                  f"(ratio {t_checked / t_plain:.2f}x)")


def bench_embedding() -> None:
    data = load_basic_motions()
    _timed(lambda: MiniRocketEmbedder().embed(data.windows))          # numba JIT warm-up
    t_stats, _ = _timed(lambda: SummaryStatisticsEmbedder().embed(data.windows))
    t_rocket, _ = _timed(lambda: MiniRocketEmbedder().embed(data.windows))
    with tempfile.TemporaryDirectory() as root:
        cache = EmbeddingCache(root)
        t_miss, _ = _timed(lambda: cache.window_embeddings("rocket", data, lambda: MiniRocketEmbedder().embed(data.windows)))
        t_hit, _ = _timed(lambda: cache.window_embeddings("rocket", data, lambda: MiniRocketEmbedder().embed(data.windows)))
    print(f"embed BasicMotions (80 windows): summary stats {t_stats * 1e3:.2f} ms, MiniRocket {t_rocket * 1e3:.1f} ms "
          f"(ratio {t_rocket / t_stats:.0f}x)")
    print(f"MiniRocket cache: miss {t_miss * 1e3:.1f} ms, hit {t_hit * 1e3:.2f} ms (speed-up {t_miss / t_hit:.0f}x)")


def _synthetic(n=2058, n_classes=16, seed=0):
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % n_classes
    windows = rng.standard_normal((n, 120, 6))
    names = tuple(f"activity_{k:02d}" for k in range(n_classes))
    return HarDataset(name="synthetic", windows=windows, labels=labels, activity_names=names), rng


def bench_classifiers(epochs: int, kinds: list[str]) -> None:
    data, rng = _synthetic()
    centres = rng.standard_normal((16, 384))
    pooled = centres[data.labels] + 2.0 * rng.standard_normal((data.n_windows, 384))
    sequences = (centres[data.labels, :72][:, None, :] + 2.0 * rng.standard_normal((data.n_windows, 120, 72)))
    inputs = {"linear": pooled, "svm_rbf": pooled, "gru": sequences, "transformer_ft": sequences}
    runs = [(kind, inputs[kind]) for kind in ["linear"] + [k for k in kinds if k != "linear"]]
    times = {}
    for kind, array in runs:
        config = EvaluationConfig(classifier=kind, training=TrainingConfig(epochs=epochs))
        seconds, result = _timed(lambda: evaluate_model(data, kind, FixedEmbeddings(kind, array), config))
        times[kind] = seconds
        accs = ", ".join(f"{key} {result['metrics'][key]['accuracy']:.1f}%"
                         for key in ("supervised_1pct", "supervised_10pct", "linear_probe"))
        print(f"{kind:15s} metrics 3-5 in {seconds:7.1f} s ({seconds / times['linear']:.1f}x linear)  [{accs}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 epochs instead of 100")
    parser.add_argument("--classifiers", nargs="+", default=["linear", "svm_rbf", "gru", "transformer_ft"],
                        choices=["linear", "svm_rbf", "gru", "transformer_ft"])
    parser.add_argument("--loading-only", action="store_true", help="only time the file readers")
    args = parser.parse_args()
    torch.set_num_threads(1)
    bench_loading()
    if args.loading_only:
        return
    bench_embedding()
    bench_classifiers(10 if args.quick else 100, args.classifiers)


if __name__ == "__main__":
    main()
