"""Command line: ``python -m pipeline.protocols.motion --external_results_file FILE [...]``.

Loads a result file safely, recovers joints, computes every metric, prints the console block and
writes the metrics JSON atomically.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import numpy as np

from ...errors import ConfigError
from ...fileio import atomic_write_json
from ...report.tables import format_number
from ..devices import DEVICE_CHOICES, check_device, resolve_device
from ..user_files import output_apart, output_file
from . import beats, features
from .evaluate import EvalSettings, MotionEvaluator, MotionSet
from .geometry import FeatureDenormalizer, motion_to_joints
from ..load_limits import LoadLimits, add_limit_arguments, limits_from_arguments
from .loading import MotionResults, load_motion_results
from .sources import FrameWindow, audio_from_folder, reference_from_file


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.protocols.motion",
                                     description="AIST++ motion-generation metrics.")
    parser.add_argument("--external_results_file", required=True, type=Path,
                        help=".npy dict, .pkl (CLoSD) or .npz with motion (N, T, 263) and lengths")
    parser.add_argument("--gt_file", type=Path,
                        help="ground truth for results without gt_motion (CLoSD .pkl): a .npy/.npz/.pkl "
                             "whose gt_motion, or else motion, holds at least N motions of the same "
                             "layout; the first N are used (default: the results' own gt_motion)")
    parser.add_argument("--audio_dir", type=Path,
                        help="folder of N .wav files, the music of motion i being the i-th in name "
                             "order, for results without audio_waveforms (default: the results' own)")
    parser.add_argument("--context_len", type=int, default=0,
                        help="leading frames of every motion (the prefix of prefix-mode generation) "
                             "left out of every metric; the audio is cut at the same instant (default "
                             "%(default)s; the original script's 20 reaches only its data loader)")
    parser.add_argument("--pred_len", type=int, default=0,
                        help="frames evaluated after the context, 0 = all (default %(default)s; the "
                             "original script's 40 is overridden there by the full window)")
    parser.add_argument("--fixed_len", type=int, default=60,
                        help="--gt_file motions are cut to max(T, fixed_len) frames, as the original "
                             "sizes the ground-truth windows it draws (default %(default)s)")
    parser.add_argument("--eval_gt", action="store_true",
                        help="evaluate the ground truth (gt_motion or --gt_file) instead of motion")
    parser.add_argument("--device", default="cpu",
                        help=f"torch device of the learned evaluator: {DEVICE_CHOICES} (the original's "
                             "--device 0 is cuda:0; the CPU when CUDA is absent; the other metrics use "
                             "NumPy; default %(default)s)")
    parser.add_argument("--seed", type=int, default=10,
                        help="seed of the sampled Diversity (default %(default)s)")
    parser.add_argument("--fps", type=float, default=60.0, help="motion frame rate (default %(default)s)")
    parser.add_argument("--beat_sigma", type=float, default=beats.DEFAULT_BEAT_SIGMA,
                        help="beat tolerance σ in seconds (default %(default)s; Bailando/FACT use 0.05)")
    parser.add_argument("--smooth_kinematic", action="store_true",
                        help="Savitzky-Golay smoothing of the speed (closd variant)")
    parser.add_argument("--kinematic", choices=beats.KINEMATIC_VARIANTS, default="closd",
                        help="kinematic-beat variant: closd (the original script), bailando or fact "
                             "(default %(default)s)")
    parser.add_argument("--skating-fps", "--skating_fps", dest="skating_fps", type=float,
                        default=20.0, help="rate turning foot steps into speeds for SkatingRatio "
                                           "(default %(default)s, as the original hard-codes)")
    parser.add_argument("--diversity_times", type=int, default=300,
                        help="random pairs of the sampled learned Diversity (default %(default)s)")
    parser.add_argument("--max-frames", "--max_frames", dest="max_frames", type=int,
                        default=features.BAILANDO_MAX_FRAMES,
                        help="frames used by kinetic/geometric features, 0 = all (default %(default)s, "
                             "as Bailando)")
    parser.add_argument("--feature-convention", "--feature_convention", dest="feature_convention",
                        choices=tuple(features.CONVENTIONS), default="corrected",
                        help="kinetic/geometric feature formulas: corrected, or bailando to "
                             "reproduce the code behind published FID_k/FID_g tables (default %(default)s)")
    parser.add_argument("--mean", type=Path, help="263-d mean (.npy) to de-normalise features "
                                                  "(default: features taken as de-normalised)")
    parser.add_argument("--std", type=Path, help="263-d std (.npy) to de-normalise features "
                                                 "(default: features taken as de-normalised)")
    parser.add_argument("--evaluator-ckpt", "--evaluator_ckpt", dest="evaluator_ckpt", type=Path,
                        help="HumanML3D T2M evaluator checkpoint (finest.tar) for learned FID "
                             "(default: none; FID and Diversity are null)")
    parser.add_argument("--evaluator-mean", dest="evaluator_mean", type=Path,
                        help="the evaluator's 263-d mean (.npy), required with --evaluator-ckpt "
                             "(default: none)")
    parser.add_argument("--evaluator-std", dest="evaluator_std", type=Path,
                        help="the evaluator's 263-d std (.npy), required with --evaluator-ckpt "
                             "(default: none)")
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


def _with_sources(results: MotionResults, args: argparse.Namespace,
                  limits: LoadLimits) -> tuple[MotionResults, np.ndarray | None, np.ndarray | None]:
    """The results with ``--audio_dir``'s music, and the reference motions and their lengths
    (the file's ``gt_motion`` or ``--gt_file``'s; None without either)."""
    for option, own in (("--gt_file", results.gt_motion is not None),
                        ("--audio_dir", any(clip is not None for clip in results.audio))):
        if getattr(args, option[2:]) is not None and own:
            raise ConfigError(f"the results file has its own {'gt_motion' if option == '--gt_file' else 'audio'}; "
                              f"drop {option} or the file's copy", field=option,
                              found=str(args.external_results_file))
    if args.audio_dir is not None:
        results = replace(results, audio=audio_from_folder(args.audio_dir, len(results.lengths), limits))
    if args.gt_file is not None:
        return results, *reference_from_file(args.gt_file, results, args.fixed_len, limits)
    return results, results.gt_motion, None if results.gt_motion is None else results.lengths


def _motion_sets(results: MotionResults, reference: np.ndarray | None, reference_lengths,
                 eval_gt: bool, denormalizer: FeatureDenormalizer, window: FrameWindow,
                 fps: float) -> tuple[MotionSet, MotionSet | None]:
    """The evaluated set and the reference (ground-truth) set, as joints, cut to ``window``."""
    reference_set = None
    if reference is not None:
        reference_set = MotionSet(*window.cut(motion_to_joints(reference, denormalizer),
                                              reference_lengths, "ground-truth motions"))
    if eval_gt and reference_set is None:
        warnings.warn("--eval_gt: the file has no gt_motion and no --gt_file was given; "
                      "evaluating 'motion' instead", UserWarning, stacklevel=2)
    audio = window.cut_audio(results.audio, fps)
    if eval_gt and reference_set is not None:
        evaluated = reference_set
    else:
        evaluated = MotionSet(*window.cut(motion_to_joints(results.motion, denormalizer),
                                          results.lengths, "motions"))
    return replace(evaluated, audio=audio), reference_set


def _learned_embeddings(args: argparse.Namespace, results: MotionResults, reference, reference_lengths,
                        denormalizer: FeatureDenormalizer | None, window: FrameWindow, device: str):
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
    embedder = T2MEmbedder(args.evaluator_ckpt, stats.mean, stats.std, device=device)

    def embed(motion, lengths, what):
        return embedder.transform(*window.cut(denormalizer.transform(motion), lengths, what))

    embedded = None if reference is None else embed(reference, reference_lengths, "ground-truth motions")
    if args.eval_gt and embedded is not None:
        return embedded, embedded
    return embed(results.motion, results.lengths, "motions"), embedded


def _fmt(value) -> str:
    """4 decimals (``0.0000``, never ``-0.0000``), ``null`` for None."""
    return format_number(value, 4, "null")


def _excluded(metrics: dict, suffix: str) -> str:
    excluded = metrics["excluded_dims"][suffix]
    return f" ({len(excluded)} constant dims excluded)" if excluded else ""


def console_block(metrics: dict, label: str) -> str:
    """The console summary, one metric per line (4 decimals; null when not computed)."""
    beat = metrics["BeatAlign"]
    lines = [
        "=== AIST++ external eval ===",
        f"Evaluated: {label} ({metrics['num_samples']} samples)",
        f"Device: {_device_text(metrics['settings'])}",
        f"FID: {_fmt(metrics['FID'])}",
        f"Diversity: {_fmt(metrics['Diversity'])}",
        f"FID_k: {_fmt(metrics['FID_k'])}{_excluded(metrics, 'k')}",
        f"FID_g: {_fmt(metrics['FID_g'])}{_excluded(metrics, 'g')}",
        f"Div_k: {_fmt(metrics['Div_k'])}",
        f"Div_g: {_fmt(metrics['Div_g'])}",
        f"BeatAlign: {_fmt(beat['mean'])} (recall {_fmt(beat['recall'])}, f1 {_fmt(beat['f1'])}; "
        f"{beat['n_with_audio']} with audio, sigma {beat['sigma']} s, {beat['variant']})",
        f"SkatingRatio: {_fmt(metrics['SkatingRatio'])}",
        f"FootSliding(mm): {_fmt(metrics['FootSliding_mm'])}",
        f"FootSlidingTotal(mm/motion): {_fmt(metrics['FootSliding_total_mm'])}",
        f"Penetration(mm): {_fmt(metrics['Penetration_mm'])}",
        f"Floating(mm): {_fmt(metrics['Floating_mm'])}",
        f"PFC: {_fmt(metrics['PFC'])}",
    ]
    lines += [f"  {key} is null: {why}" for key, why in metrics["null_reasons"].items()]
    return "\n".join(lines)


def _device_text(settings: dict) -> str:
    """The device the learned evaluator ran on, and why when it is not the one asked for."""
    used, requested = settings["device"], settings["device_requested"]
    if settings["evaluator_ckpt"] is None:
        return "cpu (no --evaluator-ckpt: every metric runs in NumPy)"
    return used if used == check_device(requested) else \
        f"{used} (--device {requested} requested, CUDA is not available)"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = _settings(args)
    limits = limits_from_arguments(args)
    window = FrameWindow(args.context_len, args.pred_len, args.fixed_len)
    output_file(args.out, "--out")
    output_apart(args.out, "--out", {option: getattr(args, option.lstrip("-").replace("-", "_"))
                                     for option in ("--external_results_file", "--gt_file", "--mean", "--std",
                                                    "--evaluator-ckpt", "--evaluator-mean", "--evaluator-std")})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        device = resolve_device(args.device) if args.evaluator_ckpt is not None else check_device(args.device) and "cpu"
        results = load_motion_results(args.external_results_file, limits)
        results, reference, reference_lengths = _with_sources(results, args, limits)
        denormalizer = FeatureDenormalizer(args.mean, args.std) if results.kind == "features" else None
        evaluated, reference_set = _motion_sets(results, reference, reference_lengths, args.eval_gt,
                                                denormalizer, window, args.fps)
        embeddings = _learned_embeddings(args, results, reference, reference_lengths, denormalizer,
                                         window, device)
        metrics = MotionEvaluator(settings).evaluate(evaluated, reference_set, embeddings)
    notes = sorted({str(w.message) for w in caught})
    label = "ground truth" if args.eval_gt and reference_set is not None else "generated"
    suffix = "_gt_metrics.json" if label == "ground truth" else "_metrics.json"
    out = args.out or args.external_results_file.with_name(args.external_results_file.stem + suffix)
    metrics["settings"].update(input_file=str(args.external_results_file), evaluated=label,
                               device=device, device_requested=str(args.device),
                               input_kind=results.kind,
                               gt_file=None if args.gt_file is None else str(args.gt_file),
                               audio_dir=None if args.audio_dir is None else str(args.audio_dir),
                               context_len=window.context_len, pred_len=window.pred_len,
                               fixed_len=window.fixed_len,
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

