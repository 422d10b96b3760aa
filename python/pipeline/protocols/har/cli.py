"""Command line of the HAR protocol: ``evaluate`` one model on one dataset, ``table`` the results.

    python -m pipeline.protocols.har evaluate --model moment --dataset data.npz --embeddings moment.npy
    python -m pipeline.protocols.har evaluate --model demo --dataset basicmotions --embedder summary_stats
    python -m pipeline.protocols.har table --input-dir test_output/baseline_evaluation
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from ...errors import ConfigError
from ..user_files import output_folder
from .cache import EmbeddingCache
from .classifiers import CLASSIFIER_KINDS, TrainingConfig
from .data import HarDataset, load_basic_motions, load_npz_dataset
from .evaluate import DEFAULT_OUTPUT_DIR, EvaluationConfig, default_classifier, evaluate_model, write_evaluation
from .providers import (JointProvider, MiniRocketEmbedder, PrecomputedEmbeddings, PrecomputedTextAligned,
                        ProjectedSensorEmbedder, RawSequenceEmbedder, SentenceLabelEncoder,
                        SummaryStatisticsEmbedder)
from .splits import STRATEGIES
from .table import write_tables
from .vocabulary import load_label_vocabulary

BUILTIN_DATASETS = {"basicmotions": load_basic_motions}
EMBEDDERS = {"summary_stats": SummaryStatisticsEmbedder, "minirocket": MiniRocketEmbedder,
             "raw_sequence": RawSequenceEmbedder}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.protocols.har", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("evaluate", help="run the five metrics for one model on one dataset")
    run.add_argument("--model", required=True, help="model name (tsfm, lanhar, limu-bert, moment, crosshar, ...)")
    run.add_argument("--dataset", required=True,
                     help="'basicmotions' (shipped with aeon) or an .npz with windows, labels, activity_names")
    run.add_argument("--dataset-name", help="name for an .npz dataset (default: file stem)")
    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--embeddings", help="precomputed window embeddings, .npy (N, D) or (N, T, D)")
    source.add_argument("--embedder", choices=sorted(EMBEDDERS), help="a built-in non-text embedder")
    run.add_argument("--label-embeddings", help="with --embeddings: .npz with 'texts' and 'embeddings' "
                                                "(makes the model text-aligned)")
    run.add_argument("--text-encoder", choices=["minilm"], help="with --embedder: project the sensor embedding "
                     "to 384-d and embed labels with all-MiniLM-L6-v2 (plumbing demo of the zero-shot path)")
    run.add_argument("--classifier", choices=CLASSIFIER_KINDS,
                     help="metric 3-4 classifier (default: the baseline's own, linear for unknown models)")
    run.add_argument("--epochs", type=int, default=100, help="training epochs (protocol: 100; smaller for tests)")
    run.add_argument("--batch-size", type=int, default=512)
    run.add_argument("--lr", type=float, default=1e-3)
    run.add_argument("--strategy", choices=STRATEGIES, default="proportional", help="label-rate subsampling rule")
    run.add_argument("--label-table", help="JSON with training_labels and synonym groups for the open-set metric "
                                           "(default: the project's label_groups.json)")
    run.add_argument("--coarse-groups", action="store_true", help="use the table's coarse groups (groups_simple)")
    run.add_argument("--output-dir", default=str(DEFAULT_OUTPUT_DIR), help="where the evaluation JSON goes")
    run.add_argument("--cache-dir", help="embedding cache folder (default: no cache)")
    run.add_argument("--threads", type=int, default=None, help="torch CPU threads")

    table = commands.add_parser("table", help="combine *_evaluation.json into Markdown/CSV/LaTeX tables")
    table.add_argument("--input-dir", default=str(DEFAULT_OUTPUT_DIR))
    table.add_argument("--output-dir", help="where the tables go (default: the input folder)")
    return parser


def _dataset(args: argparse.Namespace) -> HarDataset:
    if args.dataset in BUILTIN_DATASETS:
        return BUILTIN_DATASETS[args.dataset]()
    return load_npz_dataset(args.dataset, args.dataset_name)


def _provider(args: argparse.Namespace):
    if args.embeddings:
        if args.text_encoder:
            raise ConfigError("--text-encoder goes with --embedder", field="--text-encoder")
        if args.label_embeddings:
            return PrecomputedTextAligned(args.model, args.embeddings, args.label_embeddings)
        return PrecomputedEmbeddings(args.model, args.embeddings)
    if args.label_embeddings:
        raise ConfigError("--label-embeddings goes with --embeddings", field="--label-embeddings")
    embedder = EMBEDDERS[args.embedder]()
    if args.text_encoder:
        encoder = SentenceLabelEncoder()
        return JointProvider(args.model, ProjectedSensorEmbedder(embedder, encoder.width), encoder)
    return embedder


def _evaluate(args: argparse.Namespace) -> int:
    output_folder(args.output_dir, "--output-dir")
    output_folder(args.cache_dir, "--cache-dir")
    if args.threads is not None:
        if args.threads < 1:
            raise ConfigError("must be a positive integer", field="--threads", found=args.threads)
        import torch

        torch.set_num_threads(args.threads)
    config = EvaluationConfig(classifier=args.classifier or default_classifier(args.model),
                              training=TrainingConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr),
                              strategy=args.strategy, coarse_groups=args.coarse_groups)
    provider = _provider(args)
    vocabulary = load_label_vocabulary(args.label_table, args.coarse_groups)
    result = evaluate_model(_dataset(args), args.model, provider, config, EmbeddingCache(args.cache_dir), vocabulary)
    print(write_evaluation(result, args.output_dir))
    return 0


def _table(args: argparse.Namespace) -> int:
    if not Path(args.input_dir).is_dir():
        raise ConfigError("is not a folder of *_evaluation.json files", field="--input-dir", found=args.input_dir)
    output_folder(args.output_dir, "--output-dir")
    paths, warnings = write_tables(args.input_dir, args.output_dir)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for path in paths:
        print(path)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return _evaluate(args) if args.command == "evaluate" else _table(args)
