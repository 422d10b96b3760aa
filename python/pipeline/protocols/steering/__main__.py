"""Command line: ``python -m pipeline.protocols.steering COMMAND``.

Commands: split, train, evaluate, make-synthetic, analyze, demo, calibrate, models (``docs/steering.md``).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Sequence

from ...cli import check_option_bounds, run_main
from ...errors import ConfigError, DataError
from ...fileio import atomic_write_json
from ...limits import DEFAULT_PROTOCOL_MAX_BYTES, DEFAULT_PROTOCOL_MAX_ELEMENTS, SEED_RANGE, format_memory_size
from ...names import validate_name
from ...validation import option_range
from ..devices import DEVICE_CHOICES, resolve_device
from ..load_limits import LoadLimits
from ..user_files import output_file, output_folder
from .analysis import (TRAINING_SEEDS, AnalysisSettings, analyze_runs, default_comparisons, find_variant,
                       missing_run_warnings, parse_comparison, run_models, seeds_present)
from .calibration import calibration_experiment
from .data import make_driving_sequences
from .experiment import TrainingPlan, evaluate_runs, run_demo, train_runs
from .models import MODEL_SPECS, build_model, count_parameters
from .samples import data_sha256, read_samples, write_pickle_layout
from .split import load_or_create_split, load_split, split_path
from .tables import write_outputs


def _add_stats_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--permutations", type=int, default=10000, help="sign-flip permutations B (default: 10000)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="cluster bootstrap resamples (default: 1000)")
    parser.add_argument("--effect-bootstrap", type=int, default=5000,
                        help="bootstrap resamples for the CI of d and g (default: 5000)")
    parser.add_argument("--stats-seed", type=int, default=42,
                        help="seed of the permutations and resamples (default: 42)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level of each test (default: 0.05)")
    parser.add_argument("--eps", type=float, default=0.05,
                        help="accuracy tolerance: a sample is accurate when |error| <= eps (default: 0.05)")


def _add_training_options(parser: argparse.ArgumentParser, epochs: int, train_stride: int) -> None:
    parser.add_argument("--epochs", type=int, default=epochs, help=f"training epochs (default: {epochs})")
    parser.add_argument("--batch-size", type=int, default=256, help="training batch size (default: 256)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default: 0.001)")
    parser.add_argument("--train-stride", type=int, default=train_stride,
                        help=f"keep every k-th training window, for speed (default: {train_stride})")
    parser.add_argument("--latency-calls", type=int, default=1000,
                        help="timed single-sample CPU calls per run for the p95 latency (default: 1000)")
    parser.add_argument("--format", choices=("csv", "parquet"), default="csv",
                        help="prediction file format (default: csv)")


def _add_sample_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=None,
                        help="which features_{NAME}.pkl of a pickle-layout folder to read "
                             "(default: the only one in the folder)")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_PROTOCOL_MAX_BYTES,
                        help="largest data a pickle or .npz file may hold or declare (default: "
                             f"{format_memory_size(DEFAULT_PROTOCOL_MAX_BYTES)})")
    parser.add_argument("--max-elements", type=int, default=DEFAULT_PROTOCOL_MAX_ELEMENTS,
                        help="largest number of objects a pickled value may expand to, e.g. the ids of "
                             f"a list (default: {DEFAULT_PROTOCOL_MAX_ELEMENTS:,}; the full variant's ~12.6 M ids "
                             "as a list need more)")


def _settings(args: argparse.Namespace, allow_missing: bool = False) -> AnalysisSettings:
    """The statistics settings; AnalysisSettings names a bad value by its field (``n_permutations``
    for ``--permutations``, ``n_bootstrap_ci`` for ``--bootstrap``, ``n_bootstrap_effect`` for
    ``--effect-bootstrap``)."""
    return AnalysisSettings(eps=args.eps, n_bootstrap_effect=args.effect_bootstrap,
                            n_bootstrap_ci=args.bootstrap, n_permutations=args.permutations,
                            alpha=args.alpha, seed=args.stats_seed, allow_missing=allow_missing)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.protocols.steering",
                                     description="Sequence-level model comparison (steering torque).")
    sub = parser.add_subparsers(dest="command", required=True)

    split = sub.add_parser("split", help="make (or re-validate) the persisted sequence split")
    split.add_argument("--samples", required=True, type=Path,
                       help="sample data: a folder in the pickle layout (features_/targets_/sequence_ids_{name}.pkl), "
                            "an .npz, or a CSV/Parquet table with a sequence_id column (required)")
    split.add_argument("--out", required=True, type=Path, help="folder for split_{seed}.json (required)")
    split.add_argument("--split-seed", type=int, default=0,
                       help="seed of the sequence permutation, independent of the training seeds (default: 0)")
    _add_sample_options(split)

    train = sub.add_parser("train", help="train models x seeds on a persisted split, resumably")
    train.add_argument("--data", required=True, type=Path,
                       help="sample data: a pickle-layout folder, an .npz, or a CSV/Parquet table with "
                            "sequence_id, target and five feature columns (required)")
    train.add_argument("--split", required=True, type=Path, help="split_{seed}.json made by `split` (required)")
    train.add_argument("--out", required=True, type=Path,
                       help="results folder; runs go to OUT/{variant}/{model}/seed_{seed}/ (required)")
    train.add_argument("--variant", default=None,
                       help="variant folder name (default: the data set's name, e.g. paper for features_paper.pkl)")
    train.add_argument("--models", nargs="+", default=list(MODEL_SPECS),
                       help="models to train (default: M1 M2 M3 M4 M5 M6 M7 M8)")
    train.add_argument("--seeds", type=int, nargs="+", default=list(TRAINING_SEEDS),
                       help="training seeds (default: 42 94 123 7 2024)")
    _add_training_options(train, epochs=10, train_stride=1)
    train.add_argument("--device", default="cpu",
                       help=f"{DEVICE_CHOICES}; CUDA falls back to CPU with a warning when unavailable "
                            "(default: cpu)")
    train.add_argument("--threads", type=int, default=None,
                       help="torch CPU threads for training (default: PyTorch's choice)")
    train.add_argument("--eps", type=float, default=0.05,
                       help="accuracy tolerance of the run metrics: |error| <= eps (default: 0.05)")
    train.add_argument("--no-progress", action="store_true", help="hide the progress bar (default: off)")
    _add_sample_options(train)

    evaluate = sub.add_parser("evaluate", help="predict the test set again from the runs' checkpoints (on CPU)")
    evaluate.add_argument("--data", required=True, type=Path,
                          help="the sample data the runs were trained on (required)")
    evaluate.add_argument("--split", required=True, type=Path, help="the split they were trained on (required)")
    evaluate.add_argument("--results", required=True, type=Path,
                          help="results folder holding {variant}/{model}/seed_{seed}/ (required)")
    evaluate.add_argument("--variant", default=None, help="variant folder (default: the data set's name)")
    evaluate.add_argument("--models", nargs="+", default=None,
                          help="models to evaluate (default: every model with run folders)")
    evaluate.add_argument("--seeds", type=int, nargs="+", default=None,
                          help="training seeds (default: the seeds with run folders of these models)")
    evaluate.add_argument("--latency-calls", type=int, default=1000,
                          help="timed single-sample CPU calls per run for the p95 latency (default: 1000)")
    evaluate.add_argument("--format", choices=("csv", "parquet"), default="csv",
                          help="prediction file format (default: csv)")
    evaluate.add_argument("--eps", type=float, default=0.05,
                          help="accuracy tolerance of the run metrics: |error| <= eps (default: 0.05)")
    _add_sample_options(evaluate)

    synthetic = sub.add_parser("make-synthetic",
                               help="write synthetic driving-like sequences in the pickle layout")
    synthetic.add_argument("--out", required=True, type=Path, help="folder for the three .pkl files (required)")
    synthetic.add_argument("--name", default="synthetic",
                           help="data set name in features_{NAME}.pkl (default: synthetic)")
    synthetic.add_argument("--sequences", type=int, default=300, help="number of sequences (default: 300)")
    synthetic.add_argument("--length", type=int, default=600,
                           help="mean samples per sequence, at 10 Hz, varying by +-20%% (default: 600)")
    synthetic.add_argument("--data-seed", type=int, default=0, help="seed of the generator (default: 0)")

    analyze = sub.add_parser("analyze", help="statistics and tables from prediction files")
    analyze.add_argument("--results", required=True, type=Path,
                         help="results folder holding {variant}/{model}/seed_{seed}/ (required)")
    analyze.add_argument("--variant", default=None,
                         help="variant folder to analyse (default: the only one in RESULTS)")
    analyze.add_argument("--seeds", type=int, nargs="+", default=None,
                         help="training seeds (default: the seeds with run folders of the compared models)")
    analyze.add_argument("--comparisons", nargs="+", default=None,
                         help="pairs A:B (default: the family of ten in docs/steering.md among the models "
                              "present, or every pair of them if none)")
    analyze.add_argument("--out", type=Path, default=None,
                         help="output folder (default: RESULTS/bootstrap)")
    analyze.add_argument("--allow-missing", action="store_true",
                         help="skip (with a warning, counted in the JSON) a seed whose prediction file "
                              "is missing, and pair only the sequences both models have (default: off)")
    _add_stats_options(analyze)

    demo = sub.add_parser("demo", help="end to end on synthetic driving-like sequences")
    demo.add_argument("--out", required=True, type=Path, help="output folder; results go to OUT/results (required)")
    demo.add_argument("--sequences", type=int, default=100, help="number of sequences (default: 100)")
    demo.add_argument("--length", type=int, default=150, help="mean samples per sequence (default: 150)")
    demo.add_argument("--data-seed", type=int, default=0, help="seed of the generator (default: 0)")
    demo.add_argument("--split-seed", type=int, default=0, help="seed of the sequence split (default: 0)")
    demo.add_argument("--models", nargs="+", default=["M1", "M2", "M3", "M4"],
                      help="models to train (default: M1 M2 M3 M4)")
    demo.add_argument("--seeds", type=int, nargs="+", default=[42, 94, 123],
                      help="training seeds (default: 42 94 123)")
    _add_training_options(demo, epochs=2, train_stride=4)
    demo.add_argument("--threads", type=int, default=1, help="torch CPU threads for training (default: 1)")
    _add_stats_options(demo)

    calibrate = sub.add_parser("calibrate", help="null experiment with AR(1) errors")
    calibrate.add_argument("--phi", type=float, nargs="+", default=[0.0, 0.9, 0.95],
                           help="AR(1) coefficients of the errors, each in (-1, 1) (default: 0.0 0.9 0.95)")
    calibrate.add_argument("--sequences", type=int, default=40, help="sequences per repeat (default: 40)")
    calibrate.add_argument("--length", type=int, default=150, help="samples per sequence (default: 150)")
    calibrate.add_argument("--repeats", type=int, default=300, help="null data sets per phi (default: 300)")
    calibrate.add_argument("--permutations", type=int, default=999, help="sign-flip permutations (default: 999)")
    calibrate.add_argument("--seed", type=int, default=0, help="seed of the experiment (default: 0)")
    calibrate.add_argument("--out", type=Path, default=None, help="JSON output file (default: none, print only)")

    sub.add_parser("models", help="print the model zoo with parameter counts")
    return parser


def _limits(args: argparse.Namespace) -> LoadLimits:
    return LoadLimits(max_bytes=args.max_bytes, max_elements=args.max_elements)


def _read_sequence_ids(args: argparse.Namespace):
    """The per-sample sequence ids, of samples checked in full in every layout (a table too): a split
    of samples that ``train`` would refuse (NaN, inf, a wrong width) is refused here already."""
    return read_samples(args.samples, args.name, _limits(args)).samples.sequence_ids


def _cmd_split(args) -> int:
    output_folder(args.out, "--out")
    split = load_or_create_split(args.out, _read_sequence_ids(args), args.split_seed)
    counts = ", ".join(f"{name} {len(split.ids(name))}" for name in ("train", "val", "test"))
    print(f"{split_path(args.out, args.split_seed)}: {counts} sequences, sha256 {split.sha256}")
    return 0


def _set_threads(threads: int | None) -> None:
    if threads is None:
        return
    if threads < 1:
        raise ConfigError("must be a positive integer", field="--threads", found=threads)
    import torch

    torch.set_num_threads(threads)


def _training_plan(args, seeds) -> TrainingPlan:
    return TrainingPlan(model_ids=args.models, seeds=seeds, epochs=args.epochs, batch_size=args.batch_size,
                        learning_rate=args.lr, train_stride=args.train_stride, latency_calls=args.latency_calls,
                        eps=args.eps, fmt=args.format)


def _device(requested: str) -> str:
    """The device training will use, a CUDA fallback reported as one warning line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        device = resolve_device(requested)
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    return device


def _cmd_train(args) -> int:
    output_folder(args.out, "--out")
    _set_threads(args.threads)
    plan = _training_plan(args, args.seeds)
    device = _device(args.device)
    loaded = read_samples(args.data, args.name, _limits(args))
    variant = validate_name(args.variant or loaded.name, "--variant")
    split = load_split(args.split, loaded.samples.sequence_ids)
    data_hash = data_sha256(loaded.samples)
    n_sequences = len(set(loaded.samples.sequence_ids.tolist()))
    print(f"read {args.data}: {len(loaded.samples.targets)} samples in {n_sequences} sequences, sha256 {data_hash}; "
          f"split sha256 {split.sha256}; variant {variant}; device {device}", file=sys.stderr)
    log = train_runs(loaded.samples, split, args.out, variant, plan, data_hash=data_hash, device=device,
                     progress=lambda m: print(m, file=sys.stderr), show_bar=False if args.no_progress else None)
    for path in log.prediction_files:
        print(path)
    return 0


def _cmd_evaluate(args) -> int:
    loaded = read_samples(args.data, args.name, _limits(args))
    variant = validate_name(args.variant or loaded.name, "--variant")
    split = load_split(args.split, loaded.samples.sequence_ids)
    variant_dir = args.results / variant
    models = args.models or (run_models(variant_dir) if variant_dir.is_dir() else [])
    seeds = args.seeds or seeds_present(args.results, variant, models)
    if not models or not seeds:
        raise DataError("no runs to evaluate", file=variant_dir, expected="{model}/seed_{seed}/ folders")
    plan = TrainingPlan(model_ids=models, seeds=seeds, latency_calls=args.latency_calls, eps=args.eps,
                        fmt=args.format)
    log = evaluate_runs(loaded.samples, split, args.results, variant, plan, max_bytes=args.max_bytes,
                        progress=lambda m: print(m, file=sys.stderr))
    for path in log.prediction_files:
        print(path)
    return 0


def _cmd_make_synthetic(args) -> int:
    output_folder(args.out, "--out")
    for path in write_pickle_layout(make_driving_sequences(args.sequences, args.length, seed=args.data_seed),
                                    args.out, args.name):
        print(path)
    return 0


def _cmd_analyze(args) -> int:
    variant = validate_name(args.variant, "variant") if args.variant else find_variant(args.results)
    out = output_folder(args.out or args.results / "bootstrap", "--out")
    if args.comparisons:
        comparisons = [parse_comparison(c) for c in args.comparisons]
    else:
        comparisons = default_comparisons(run_models(args.results / variant) if (args.results / variant).is_dir()
                                          else list(MODEL_SPECS))
    models = sorted({m for pair in comparisons for m in pair})
    seeds = args.seeds or seeds_present(args.results, variant, models) or list(TRAINING_SEEDS)
    results = analyze_runs(args.results, variant, seeds, comparisons, _settings(args, args.allow_missing))
    for warning in missing_run_warnings(results):
        print(f"warning: {warning}", file=sys.stderr)
    for path in write_outputs(results, out):
        print(path)
    return 0


def _cmd_demo(args) -> int:
    output_folder(args.out, "--out")
    _set_threads(args.threads)
    log = run_demo(args.out, n_sequences=args.sequences, length=args.length,
                   data_seed=args.data_seed, split_seed=args.split_seed, plan=_training_plan(args, args.seeds),
                   settings=_settings(args), progress=lambda m: print(m, file=sys.stderr))
    for path in [log.split_file, *log.output_files]:
        print(path)
    return 0


def _cmd_calibrate(args) -> int:
    output_file(args.out, "--out", "is a folder; give a JSON file name", expected=None)
    rows = [calibration_experiment(phi, n_sequences=args.sequences, length=args.length,
                                   n_repeats=args.repeats, n_permutations=args.permutations,
                                   seed=args.seed) for phi in args.phi]
    print("phi    FPR sample-level  FPR sequence-level")
    for row in rows:
        print(f"{row['phi']:<6} {row['fpr_sample_level']:<17.3f} {row['fpr_sequence_level']:.3f}")
    if args.out is not None:
        atomic_write_json(args.out, {"rows": rows})
    return 0


def _cmd_models(args) -> int:
    print("model  parameters  stated  architecture")
    for model_id, spec in MODEL_SPECS.items():
        n_params = count_parameters(build_model(model_id, 0))
        print(f"{model_id:<6} {n_params:>10,}  {spec.stated:>6}  {spec.description}")
    return 0


#: Ranges of the counts and seeds given on the command line, checked before anything is read or
#: allocated (resample counts bounded so that no run allocates without limit); the study's own
#: settings (alpha, eps, phi) are checked where they are defined (checks.py).
OPTION_BOUNDS = {"--permutations": option_range(1, 1_000_000), "--bootstrap": option_range(1, 1_000_000),
                 "--effect-bootstrap": option_range(1, 1_000_000), "--stats-seed": SEED_RANGE,
                 "--split-seed": SEED_RANGE, "--seeds": SEED_RANGE, "--sequences": option_range(1, 1_000_000),
                 "--length": option_range(1, 1_000_000), "--data-seed": SEED_RANGE,
                 "--epochs": option_range(1, 10_000),
                 "--train-stride": option_range(1, 1_000_000), "--latency-calls": option_range(1, 1_000_000),
                 "--threads": option_range(1, 1024), "--repeats": option_range(1, 100_000), "--seed": SEED_RANGE,
                 "--batch-size": option_range(1, 1_000_000), "--max-bytes": option_range(1, 2**62),
                 "--max-elements": option_range(1, 2**62)}

_COMMANDS = {"split": _cmd_split, "train": _cmd_train, "evaluate": _cmd_evaluate,
             "make-synthetic": _cmd_make_synthetic, "analyze": _cmd_analyze, "demo": _cmd_demo, "calibrate": _cmd_calibrate, "models": _cmd_models}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    check_option_bounds(args, OPTION_BOUNDS)
    return _COMMANDS[args.command](args)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
