"""Command line: ``python -m pipeline.protocols.motion --external_results_file FILE [...]``.

Loads a result file safely, recovers joints, computes every metric, prints the console block and
writes the metrics JSON atomically.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path
from typing import Sequence

from ...errors import ConfigError
from ...fileio import atomic_write_json
from ..user_files import output_file
from . import beats, features
from .evaluate import EvalSettings, MotionEvaluator, MotionSet
from .geometry import FeatureDenormalizer, motion_to_joints
from ..load_limits import add_limit_arguments, limits_from_arguments
from .loading import MotionResults, load_motion_results


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.protocols.motion",
                                     description="AIST++ motion-generation metrics.")
    parser.add_argument("--external_results_file", required=True, type=Path,
                        help=".npy dict, .pkl (CLoSD) or .npz with motion (N, T, 263) and lengths")
    parser.add_argument("--eval_gt", action="store_true",
                        help="evaluate gt_motion instead of motion (.npy/.npz only)")
    parser.add_argument("--device", default="cpu", help="torch device of the learned evaluator (the other metrics use NumPy)")
    parser.add_argument("--seed", type=int, default=10, help="seed of the sampled Diversity")
    parser.add_argument("--fps", type=float, default=60.0, help="motion frame rate")
    parser.add_argument("--beat_sigma", type=float, default=beats.DEFAULT_BEAT_SIGMA,
                        help="beat tolerance σ (s); Bailando/FACT use 0.05")
    parser.add_argument("--smooth_kinematic", action="store_true",
                        help="Savitzky-Golay smoothing of the speed (closd variant)")
    parser.add_argument("--kinematic", choices=beats.KINEMATIC_VARIANTS, default="closd")
    parser.add_argument("--skating-fps", "--skating_fps", dest="skating_fps", type=float,
                        default=20.0, help="rate used for skating speeds (reference: 20)")
    parser.add_argument("--diversity_times", type=int, default=300)
    parser.add_argument("--max-frames", "--max_frames", dest="max_frames", type=int, default=1200,
                        help="frames used by kinetic/geometric features (Bailando: 1200; 0 = all)")
    parser.add_argument("--feature-convention", "--feature_convention", dest="feature_convention",
                        choices=tuple(features.CONVENTIONS), default="corrected",
                        help="kinetic/geometric feature formulas: corrected, or bailando to "
                             "reproduce the code behind published FID_k/FID_g tables")
    parser.add_argument("--mean", type=Path, help="263-d mean (.npy) to de-normalise features")
    parser.add_argument("--std", type=Path, help="263-d std (.npy) to de-normalise features")
    parser.add_argument("--evaluator-ckpt", "--evaluator_ckpt", dest="evaluator_ckpt", type=Path,
                        help="HumanML3D T2M evaluator checkpoint (finest.tar) for learned FID")
    parser.add_argument("--evaluator-mean", dest="evaluator_mean", type=Path,
                        help="the evaluator's 263-d mean (.npy), required with --evaluator-ckpt")
    parser.add_argument("--evaluator-std", dest="evaluator_std", type=Path,
                        help="the evaluator's 263-d std (.npy), required with --evaluator-ckpt")
    parser.add_argument("--out", type=Path,
                        help="metrics JSON (default: <input>_metrics.json or <input>_gt_metrics.json)")
    add_limit_arguments(parser)
    return parser


def _settings(args: argparse.Namespace) -> EvalSettings:
    for name in ("fps", "beat_sigma", "skating_fps"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0):
            raise ConfigError("must be a positive finite number", field=f"--{name}", found=value)
    for name, low in (("seed", 0), ("diversity_times", 1), ("max_frames", 0)):
        if getattr(args, name) < low:
            raise ConfigError(f"must be >= {low}", field=f"--{name}", found=getattr(args, name))
    return EvalSettings(fps=args.fps, seed=args.seed, beat_sigma=args.beat_sigma,
                        kinematic=args.kinematic, smooth_kinematic=args.smooth_kinematic,
                        skating_fps=args.skating_fps, diversity_times=args.diversity_times,
                        max_frames=args.max_frames or None,
                        feature_convention=args.feature_convention)


def _motion_sets(results: MotionResults, eval_gt: bool,
                 denormalizer: FeatureDenormalizer) -> tuple[MotionSet, MotionSet | None]:
    """The evaluated set and the reference (ground-truth) set, as joints."""
    reference = None
    if results.gt_motion is not None:
        reference = MotionSet(motion_to_joints(results.gt_motion, denormalizer), results.lengths)
    if eval_gt and reference is None:
        warnings.warn("--eval_gt: the file has no gt_motion; evaluating 'motion' instead",
                      UserWarning, stacklevel=2)
    evaluated = (reference.joints if eval_gt and reference is not None
                 else motion_to_joints(results.motion, denormalizer))
    return MotionSet(evaluated, results.lengths, results.audio), reference


def _learned_embeddings(args: argparse.Namespace, results: MotionResults,
                        denormalizer: FeatureDenormalizer | None):
    """(generated, reference or None) T2M embeddings, or None without --evaluator-ckpt."""
    if args.evaluator_ckpt is None:
        return None
    if args.evaluator_mean is None or args.evaluator_std is None:
        raise ConfigError("--evaluator-ckpt needs --evaluator-mean and --evaluator-std "
                          "(the evaluator's own normalisation)", field="--evaluator-ckpt")
    if results.kind != "features":
        raise ConfigError("learned-embedding FID needs 263-d features, not joint positions",
                          field="--evaluator-ckpt")
    from .evaluator import T2MEmbedder

    stats = FeatureDenormalizer(args.evaluator_mean, args.evaluator_std)
    embedder = T2MEmbedder(args.evaluator_ckpt, stats.mean, stats.std, device=args.device)

    def embed(motion):
        return embedder.transform(denormalizer.transform(motion), results.lengths)

    reference = None if results.gt_motion is None else embed(results.gt_motion)
    if args.eval_gt and reference is not None:
        return reference, reference
    return embed(results.motion), reference


def _fmt(value) -> str:
    return "null" if value is None else f"{value:.4f}"


def _excluded(metrics: dict, suffix: str) -> str:
    excluded = metrics["excluded_dims"][suffix]
    return f" ({len(excluded)} constant dims excluded)" if excluded else ""


def console_block(metrics: dict, label: str) -> str:
    """The console summary, one metric per line (4 decimals; null when not computed)."""
    beat = metrics["BeatAlign"]
    lines = [
        "=== AIST++ external eval ===",
        f"Evaluated: {label} ({metrics['num_samples']} samples)",
        f"FID: {_fmt(metrics['FID'])}",
        f"Diversity: {_fmt(metrics['Diversity'])}",
        f"FID_k: {_fmt(metrics['FID_k'])}{_excluded(metrics, 'k')}",
        f"FID_g: {_fmt(metrics['FID_g'])}{_excluded(metrics, 'g')}",
        f"Div_k: {_fmt(metrics['Div_k'])}",
        f"Div_g: {_fmt(metrics['Div_g'])}",
        f"BeatAlign: {_fmt(beat['mean'])} (recall {_fmt(beat['recall'])}, f1 {_fmt(beat['f1'])}; "
        f"{beat['n_with_audio']} with audio, sigma {beat['sigma']} s, {beat['variant']})",
        f"SkatingRatio: {_fmt(metrics['SkatingRatio'])}",
        f"FootSliding(mm): {_fmt(metrics['FootSliding_mm'])} (total per motion)",
        f"FootSliding(mm/step): {_fmt(metrics['FootSliding_mm_per_step'])}",
        f"Penetration(mm): {_fmt(metrics['Penetration_mm'])}",
        f"Floating(mm): {_fmt(metrics['Floating_mm'])}",
        f"PFC: {_fmt(metrics['PFC'])}",
    ]
    lines += [f"  {key} is null: {why}" for key, why in metrics["null_reasons"].items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = _settings(args)
    limits = limits_from_arguments(args)
    output_file(args.out, "--out")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = load_motion_results(args.external_results_file, limits)
        denormalizer = FeatureDenormalizer(args.mean, args.std) if results.kind == "features" else None
        evaluated, reference = _motion_sets(results, args.eval_gt, denormalizer)
        embeddings = _learned_embeddings(args, results, denormalizer)
        metrics = MotionEvaluator(settings).evaluate(evaluated, reference, embeddings)
    notes = sorted({str(w.message) for w in caught})
    label = "ground truth" if args.eval_gt and reference is not None else "generated"
    suffix = "_gt_metrics.json" if label == "ground truth" else "_metrics.json"
    out = args.out or args.external_results_file.with_name(args.external_results_file.stem + suffix)
    metrics["settings"].update(input_file=str(args.external_results_file), evaluated=label,
                               device=args.device, input_kind=results.kind,
                               evaluator_ckpt=None if args.evaluator_ckpt is None
                               else str(args.evaluator_ckpt),
                               mean=None if args.mean is None else str(args.mean),
                               std=None if args.std is None else str(args.std))
    metrics["warnings"] = notes
    atomic_write_json(out, metrics)
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)
    print(console_block(metrics, label))
    print(f"metrics written to {out}")
    return 0

