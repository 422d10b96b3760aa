"""Command line: ``python -m pipeline.protocols.steering {split,analyze,demo,calibrate,models}``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from ...cli import run_main
from ...errors import ConfigError, DataError
from ...fileio import atomic_write_json
from ...names import validate_name
from ..user_files import output_file, output_folder
from .analysis import (COMPARISONS, TRAINING_SEEDS, AnalysisSettings, analyze_runs, missing_run_warnings,
                       parse_comparison)
from .calibration import calibration_experiment
from .experiment import TrainingPlan, run_demo
from .files import read_table
from .models import MODEL_SPECS, build_model, count_parameters
from .split import load_or_create_split
from .tables import write_outputs


def _add_stats_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--permutations", type=int, default=10000,
                        help="sign-flip permutations B of the paired test (default %(default)s)")
    parser.add_argument("--bootstrap", type=int, default=1000,
                        help="cluster (sequence) bootstrap resamples of the CIs (default %(default)s)")
    parser.add_argument("--effect-bootstrap", type=int, default=5000,
                        help="bootstrap resamples for the CI of d and g (default %(default)s)")
    parser.add_argument("--stats-seed", type=int, default=42,
                        help="seed of the permutations and bootstraps (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="family-wise error rate of the Holm-corrected tests and 1 - CI level "
                             "(default %(default)s)")
    parser.add_argument("--eps", type=float, default=0.05,
                        help="accuracy tolerance: a sample is accurate when |err| <= eps (default %(default)s)")


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
                       help="CSV or Parquet with a sequence_id column, one row per sample")
    split.add_argument("--out", required=True, type=Path, help="folder for split_{seed}.json")
    split.add_argument("--split-seed", type=int, default=0,
                       help="seed of the sequence-level split, part of its file name (default %(default)s)")

    analyze = sub.add_parser("analyze", help="statistics and tables from prediction files")
    analyze.add_argument("--results", required=True, type=Path,
                         help="results folder holding {variant}/{model}/seed_{seed}/")
    analyze.add_argument("--variant", default="paper",
                         help="data variant, the sub-folder of --results (default %(default)s)")
    analyze.add_argument("--seeds", type=int, nargs="+", default=list(TRAINING_SEEDS),
                         help="training seeds averaged over (default: %(default)s)")
    analyze.add_argument("--comparisons", nargs="+", default=None,
                         help="pairs A:B (default: the family of ten in docs/steering.md)")
    analyze.add_argument("--out", type=Path, default=None,
                         help="output folder (default RESULTS/bootstrap)")
    analyze.add_argument("--allow-missing", action="store_true",
                         help="skip (with a warning, counted in the JSON) a seed whose prediction file "
                              "is missing, and pair only the sequences both models have")
    _add_stats_options(analyze)

    demo = sub.add_parser("demo", help="end to end on synthetic driving-like sequences")
    demo.add_argument("--out", required=True, type=Path, help="folder for the data, split, results and tables")
    demo.add_argument("--sequences", type=int, default=100,
                      help="synthetic sequences generated (default %(default)s)")
    demo.add_argument("--length", type=int, default=150, help="mean samples per sequence (default %(default)s)")
    demo.add_argument("--data-seed", type=int, default=0, help="seed of the synthetic data (default %(default)s)")
    demo.add_argument("--split-seed", type=int, default=0,
                      help="seed of the sequence-level split (default %(default)s)")
    demo.add_argument("--models", nargs="+", default=["M1", "M2", "M3", "M4"],
                      help="models trained, from the zoo of the models command (default: %(default)s)")
    demo.add_argument("--seeds", type=int, nargs="+", default=[42, 94, 123],
                      help="training seeds, one run per model and seed (default: %(default)s)")
    demo.add_argument("--epochs", type=int, default=2, help="training epochs (default %(default)s)")
    demo.add_argument("--train-stride", type=int, default=4,
                      help="keep every k-th training window, for speed (default %(default)s)")
    demo.add_argument("--latency-calls", type=int, default=1000,
                      help="single-sample CPU calls timed per model for its latency (default %(default)s)")
    demo.add_argument("--format", choices=("csv", "parquet"), default="csv",
                      help="file format of the data and predictions (default %(default)s)")
    demo.add_argument("--threads", type=int, default=1,
                      help="torch CPU threads for training (default %(default)s)")
    _add_stats_options(demo)

    calibrate = sub.add_parser("calibrate", help="null experiment with AR(1) errors")
    calibrate.add_argument("--phi", type=float, nargs="+", default=[0.0, 0.9, 0.95],
                           help="AR(1) coefficients of the errors, each in (-1, 1) (default: %(default)s)")
    calibrate.add_argument("--sequences", type=int, default=40,
                           help="sequences per simulated data set (default %(default)s)")
    calibrate.add_argument("--length", type=int, default=150, help="samples per sequence (default %(default)s)")
    calibrate.add_argument("--repeats", type=int, default=300,
                           help="simulated data sets per phi (default %(default)s)")
    calibrate.add_argument("--permutations", type=int, default=999,
                           help="sign-flip permutations per test (default %(default)s)")
    calibrate.add_argument("--seed", type=int, default=0, help="seed of the simulation (default %(default)s)")
    calibrate.add_argument("--out", type=Path, default=None,
                           help="JSON output file (default: print only)")

    sub.add_parser("models", help="print the model zoo with parameter counts")
    return parser


def _read_sequence_ids(path: Path):
    frame = read_table(path, "a sample table with a sequence_id column", columns=lambda c: c == "sequence_id",
                       dtype={"sequence_id": str})
    if "sequence_id" not in frame.columns or frame["sequence_id"].isna().any():
        raise DataError("needs a complete sequence_id column", file=path, field="sequence_id")
    return frame["sequence_id"].astype(str).to_numpy()


def _cmd_split(args) -> int:
    output_folder(args.out, "--out")
    split = load_or_create_split(args.out, _read_sequence_ids(args.samples), args.split_seed)
    counts = ", ".join(f"{name} {len(split.ids(name))}" for name in ("train", "val", "test"))
    print(f"{args.out / f'split_{args.split_seed}.json'}: {counts} sequences, sha256 {split.sha256}")
    return 0


def _cmd_analyze(args) -> int:
    validate_name(args.variant, "variant")
    out = output_folder(args.out or args.results / "bootstrap", "--out")
    comparisons = [parse_comparison(c) for c in args.comparisons] if args.comparisons else COMPARISONS
    results = analyze_runs(args.results, args.variant, args.seeds, comparisons,
                           _settings(args, args.allow_missing))
    for warning in missing_run_warnings(results):
        print(f"warning: {warning}", file=sys.stderr)
    for path in write_outputs(results, out):
        print(path)
    return 0


def _cmd_demo(args) -> int:
    output_folder(args.out, "--out")
    if args.threads < 1:
        raise ConfigError("must be a positive integer", field="--threads", found=args.threads)
    import torch

    torch.set_num_threads(args.threads)
    plan = TrainingPlan(model_ids=args.models, seeds=args.seeds, epochs=args.epochs,
                        train_stride=args.train_stride, latency_calls=args.latency_calls,
                        eps=args.eps, fmt=args.format)
    log = run_demo(args.out, n_sequences=args.sequences, length=args.length,
                   data_seed=args.data_seed, split_seed=args.split_seed, plan=plan,
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


_COMMANDS = {"split": _cmd_split, "analyze": _cmd_analyze, "demo": _cmd_demo,
             "calibrate": _cmd_calibrate, "models": _cmd_models}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return _COMMANDS[args.command](args)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
