"""Command line of the HAR protocol: ``evaluate`` one model on one dataset, ``run-all`` every model on every
dataset, ``table`` the results.

    python -m pipeline.protocols.har evaluate --model moment --dataset data.npz --embeddings moment.npy
    python -m pipeline.protocols.har evaluate --model demo --dataset basicmotions --embedder summary_stats
    python -m pipeline.protocols.har run-all --datasets-dir datasets --embeddings-dir embeddings
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
from .classifiers import CLASSIFIER_KINDS, TrainingConfig, input_kind
from .data import HarDataset, load_basic_motions, load_npz_dataset
from .evaluate import (DEFAULT_OUTPUT_DIR, EvaluationConfig, default_classifier, evaluate_model, evaluation_path,
                       sequence_needed, write_evaluation)
from .providers import (JointProvider, MiniRocketEmbedder, PrecomputedEmbeddings, PrecomputedTextAligned,
                        ProjectedSensorEmbedder, RawSequenceEmbedder, SentenceLabelEncoder,
                        SummaryStatisticsEmbedder)
from .splits import STRATEGIES
from .table import write_tables
from .vocabulary import load_label_vocabulary

BUILTIN_DATASETS = {"basicmotions": load_basic_motions}
# the shipped label table a built-in dataset is scored with when --label-table is not given
BUILTIN_LABEL_TABLES = {"basicmotions": "basicmotions"}
EMBEDDERS = {"summary_stats": SummaryStatisticsEmbedder, "minirocket": MiniRocketEmbedder,
             "raw_sequence": RawSequenceEmbedder}
SEQUENCE_EMBEDDERS = ("raw_sequence",)
LABEL_EMBEDDINGS_FILE = "labels.npz"


def _protocol_options(parser: argparse.ArgumentParser) -> None:
    """The training and output options ``evaluate`` and ``run-all`` share."""
    parser.add_argument("--epochs", type=int, default=100,
                        help="training epochs of the neural classifiers (default %(default)s, the protocol's "
                             "value; smaller for tests)")
    parser.add_argument("--batch-size", type=int, default=512,
                        help="training batch size (default %(default)s, the protocol's value)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default %(default)s)")
    parser.add_argument("--strategy", choices=STRATEGIES, default="proportional",
                        help="label-rate subsampling rule (default %(default)s)")
    parser.add_argument("--label-table",
                        help="label table of the open-set metric: a JSON file or the name of a table "
                             "shipped with the package (docs/har.md) (default: basicmotions for the built-in "
                             "basicmotions dataset, else the project's label_groups.json)")
    parser.add_argument("--coarse-groups", action="store_true", help="use the table's coarse groups (groups_simple)")
    parser.add_argument("--output-dir", default=str(DEFAULT_OUTPUT_DIR),
                        help="where the evaluation JSON goes (default %(default)s)")
    parser.add_argument("--cache-dir", help="embedding cache folder (default: no cache)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's own)")


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
    source.add_argument("--embedder", choices=sorted(EMBEDDERS),
                        help="a built-in non-text embedder (raw_sequence for the sequence classifiers)")
    run.add_argument("--label-embeddings", help="with --embeddings: .npz with 'texts' and 'embeddings' "
                                                "(makes the model text-aligned; default: none)")
    run.add_argument("--text-encoder", choices=["minilm"], help="with --embedder: project the sensor embedding "
                     "to 384-d and embed labels with all-MiniLM-L6-v2 (plumbing demo of the zero-shot path; "
                     "default: none)")
    run.add_argument("--classifier", choices=CLASSIFIER_KINDS,
                     help="metric 3-4 classifier (default: the baseline's own, linear for unknown models)")
    _protocol_options(run)

    run_all = commands.add_parser("run-all", help="every model on every dataset, then the combined table")
    run_all.add_argument("--datasets-dir", required=True,
                         help="folder of DATASET.npz files (the test sets)")
    run_all.add_argument("--embeddings-dir", required=True,
                         help="folder with one sub-folder per model: MODEL/DATASET.npy, and MODEL/labels.npz "
                              "for a text-aligned model")
    run_all.add_argument("--skip-existing", action="store_true",
                         help="keep an evaluation JSON already in --output-dir (resume an interrupted run)")
    _protocol_options(run_all)

    table = commands.add_parser("table", help="combine *_evaluation.json into Markdown/CSV/LaTeX tables")
    table.add_argument("--input-dir", default=str(DEFAULT_OUTPUT_DIR),
                       help="folder of *_evaluation.json files (default %(default)s)")
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


def _prepare(args: argparse.Namespace) -> None:
    """Check the output folders and apply ``--threads`` before any work."""
    output_folder(args.output_dir, "--output-dir")
    output_folder(args.cache_dir, "--cache-dir")
    if args.threads is not None:
        if args.threads < 1:
            raise ConfigError("must be a positive integer", field="--threads", found=args.threads)
        import torch

        torch.set_num_threads(args.threads)


def _config(args: argparse.Namespace, model: str, classifier: str | None = None) -> EvaluationConfig:
    return EvaluationConfig(classifier=classifier or default_classifier(model),
                            training=TrainingConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr),
                            strategy=args.strategy, coarse_groups=args.coarse_groups)


def _vocabulary(args: argparse.Namespace, dataset: str):
    return load_label_vocabulary(args.label_table or BUILTIN_LABEL_TABLES.get(dataset), args.coarse_groups)


def _evaluate(args: argparse.Namespace) -> int:
    _prepare(args)
    config = _config(args, args.model, args.classifier)
    if args.embedder and args.embedder not in SEQUENCE_EMBEDDERS and input_kind(config.classifier) != "pooled":
        raise sequence_needed(config.classifier, f"--embedder {args.embedder} (pooled (N, D) vectors)")
    provider = _provider(args)
    vocabulary = _vocabulary(args, args.dataset)
    result = evaluate_model(_dataset(args), args.model, provider, config, EmbeddingCache(args.cache_dir), vocabulary)
    print(write_evaluation(result, args.output_dir))
    return 0


def _run_all(args: argparse.Namespace) -> int:
    """Every ``MODEL/DATASET.npy`` of the embeddings folder on its dataset, then the combined table."""
    _prepare(args)
    datasets = sorted(Path(args.datasets_dir).glob("*.npz")) if Path(args.datasets_dir).is_dir() else []
    models = sorted(p for p in Path(args.embeddings_dir).iterdir() if p.is_dir()) \
        if Path(args.embeddings_dir).is_dir() else []
    if not datasets or not models:
        raise ConfigError("need a folder of DATASET.npz files and a folder of MODEL/ sub-folders",
                          field="--datasets-dir" if not datasets else "--embeddings-dir",
                          found=args.datasets_dir if not datasets else args.embeddings_dir)
    pairs = [(model, data) for model in models for data in datasets]
    for index, (model, data) in enumerate(pairs, 1):
        head = f"[{index}/{len(pairs)}] {model.name} on {data.stem}:"
        embeddings = model / f"{data.stem}.npy"
        if not embeddings.is_file():
            print(f"{head} skipped (no {embeddings})")
            continue
        if args.skip_existing and evaluation_path(args.output_dir, data.stem, model.name).is_file():
            print(f"{head} kept {evaluation_path(args.output_dir, data.stem, model.name)}")
            continue
        labels = model / LABEL_EMBEDDINGS_FILE
        provider = PrecomputedTextAligned(model.name, embeddings, labels) if labels.is_file() \
            else PrecomputedEmbeddings(model.name, embeddings)
        result = evaluate_model(load_npz_dataset(data), model.name, provider, _config(args, model.name),
                                EmbeddingCache(args.cache_dir), _vocabulary(args, data.stem))
        print(f"{head} {write_evaluation(result, args.output_dir)}")
    return _print_tables(args.output_dir, args.output_dir)


def _table(args: argparse.Namespace) -> int:
    if not Path(args.input_dir).is_dir():
        raise ConfigError("is not a folder of *_evaluation.json files", field="--input-dir", found=args.input_dir)
    output_folder(args.output_dir, "--output-dir")
    return _print_tables(args.input_dir, args.output_dir)


def _print_tables(input_dir, output_dir) -> int:
    paths, warnings = write_tables(input_dir, output_dir)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for path in paths:
        print(path)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    commands = {"evaluate": _evaluate, "run-all": _run_all, "table": _table}
    return commands[args.command](args)
