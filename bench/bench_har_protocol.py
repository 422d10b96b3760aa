"""Time the HAR protocol pieces on this machine (not part of the test suite).

0. Reading a RealWorld-sized dataset ``.npz`` (27,138 windows, float32) and 1,024-d float32
   embeddings ``.npy`` with the bounded, header-checking readers vs plain ``np.load`` (the peer).
1. Embedding BasicMotions: MiniRocket vs summary statistics (the peer), and a cache hit vs a
   recompute of MiniRocket.
2. Metrics 3-5 at protocol settings (100 epochs, batch 512) on a VTT-ConIoT-sized synthetic set
   (2,058 windows, 16 classes, 384-d, or (120, 72) sequences for GRU / Transformer_ft), per
   classifier, against the linear probe as the peer.

    python3 bench/bench_har_protocol.py [--quick] [--repeats 3] [--classifiers linear svm_rbf gru transformer_ft]
    python3 bench/bench_har_protocol.py --loading-only

Every timing runs ``--repeats`` times (default 3) and goes with its spread to bench/results.json.
"""

from __future__ import annotations

import argparse
import sys
import tempfile

import numpy as np
import torch

from pipeline.cli import run_main
from pipeline.protocols.har import (EmbeddingCache, EvaluationConfig, HarDataset, MiniRocketEmbedder,
                                    SummaryStatisticsEmbedder, TrainingConfig, evaluate_model,
                                    load_basic_motions)
from pipeline.protocols.har.files import read_npy, read_npz
from record import BenchRun, measure


class FixedEmbeddings:
    """Stand-in provider returning a precomputed array (as a real model's .npy would)."""

    def __init__(self, name, array):
        self.name, self.array = name, array

    def embed(self, windows):
        return self.array


def bench_loading(run: BenchRun, repeats: int) -> None:
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

        for name, checked, plain in (
                (f"the dataset .npz ({n:,} windows × 120 × 6, float32)", lambda: read_npz(dataset), plain_npz),
                (f"the embeddings .npy ({n:,} × 1,024, float32)", lambda: read_npy(embeddings),
                 lambda: np.load(embeddings, allow_pickle=False))):
            plain_s, _ = measure(plain, repeats=repeats, warm_up=True)
            checked_s, _ = measure(checked, repeats=repeats, warm_up=True)
            run.figure(f"read {name} with the bounded, header-checking reader", checked_s.scaled(1e3), "ms",
                       peers={"np.load": plain_s.scaled(1e3)})


def bench_embedding(run: BenchRun, repeats: int) -> None:
    data = load_basic_motions()
    windows = f"BasicMotions ({len(data.windows)} windows)"
    rocket, _ = measure(lambda: MiniRocketEmbedder().embed(data.windows), repeats=repeats, warm_up=True)
    stats, _ = measure(lambda: SummaryStatisticsEmbedder().embed(data.windows), repeats=repeats, warm_up=True)
    run.figure(f"MiniRocket embedding of {windows}", rocket.scaled(1e3), "ms",
               peers={"summary statistics embedder": stats.scaled(1e3)})
    misses, hits = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as root:
            cache = EmbeddingCache(root)
            for samples in (misses, hits):
                seconds, _ = measure(cache.window_embeddings, "rocket", data,
                                     lambda: MiniRocketEmbedder().embed(data.windows), repeats=1)
                samples.append(seconds.value * 1e3)
    run.figure(f"MiniRocket embedding cache hit, {windows}", hits, "ms",
               peers={"cache miss (embed and store)": misses})


def _synthetic(n=2058, n_classes=16, seed=0):
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % n_classes
    windows = rng.standard_normal((n, 120, 6))
    names = tuple(f"activity_{k:02d}" for k in range(n_classes))
    return HarDataset(name="synthetic", windows=windows, labels=labels, activity_names=names), rng


def bench_classifiers(run: BenchRun, repeats: int, epochs: int, kinds: list[str]) -> None:
    data, rng = _synthetic()
    centres = rng.standard_normal((16, 384))
    pooled = centres[data.labels] + 2.0 * rng.standard_normal((data.n_windows, 384))
    sequences = (centres[data.labels, :72][:, None, :] + 2.0 * rng.standard_normal((data.n_windows, 120, 72)))
    inputs = {"linear": pooled, "svm_rbf": pooled, "gru": sequences, "transformer_ft": sequences}
    times = {}
    for kind in ["linear"] + [k for k in kinds if k != "linear"]:
        config = EvaluationConfig(classifier=kind, training=TrainingConfig(epochs=epochs))
        times[kind], result = measure(evaluate_model, data, kind, FixedEmbeddings(kind, inputs[kind]), config,
                                      repeats=repeats, warm_up=kind == "linear")  # the first warms torch up
        print(f"{kind}: " + ", ".join(f"{key} {result['metrics'][key]['accuracy']:.1f}%"
                                      for key in ("supervised_1pct", "supervised_10pct", "linear_probe")))
    workload = (f"{data.n_windows:,} windows, 16 classes, {epochs} epochs, batch 512, "
                "384-d embeddings or 120 × 72 sequences, one torch thread")
    linear = times.pop("linear")
    run.figure(f"metrics 3-5, linear classifier: {workload}", linear, "s")
    for kind, seconds in times.items():
        run.figure(f"metrics 3-5, {kind} classifier, same data", seconds, "s", peers={"linear classifier": linear})


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 epochs instead of 100")
    parser.add_argument("--repeats", type=int, default=3, help="runs of every timing (default 3)")
    parser.add_argument("--classifiers", nargs="+", default=["linear", "svm_rbf", "gru", "transformer_ft"],
                        choices=["linear", "svm_rbf", "gru", "transformer_ft"])
    parser.add_argument("--loading-only", action="store_true", help="only time the file readers")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    with BenchRun(__file__) as run:
        bench_loading(run, args.repeats)
        if not args.loading_only:
            bench_embedding(run, args.repeats)
            bench_classifiers(run, args.repeats, 10 if args.quick else 100, args.classifiers)


if __name__ == "__main__":
    sys.exit(run_main(main))
