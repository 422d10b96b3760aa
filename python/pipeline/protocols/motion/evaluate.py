"""One evaluation run: every AIST++ metric of a motion set against a reference set."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np

from . import beats, distribution, features, ground
from .loading import MotionDataWarning

LEARNED_FID_REASON = ("learned-embedding FID needs the HumanML3D T2M evaluator checkpoint "
                      "(--evaluator-ckpt); none was given")
SKELETON_JOINTS = (22, 24)  # SMPL body order for the first 22 joints (24: with hands)
SKELETON_REASON = "{} need the SMPL skeleton (22 or 24 joints)"
FEATURE_SETS = {"k": "kinetic", "g": "geometric"}


@dataclass(frozen=True)
class EvalSettings:
    """Every knob of a run; recorded verbatim in the output JSON."""

    fps: float = 60.0
    seed: int = 10
    beat_sigma: float = beats.DEFAULT_BEAT_SIGMA
    kinematic: str = "closd"
    smooth_kinematic: bool = False
    skating_fps: float = ground.SKATING_FPS
    diversity_times: int = 300
    max_frames: int | None = features.BAILANDO_MAX_FRAMES
    feature_convention: str = "corrected"

    def __post_init__(self):
        features.feature_convention(self.feature_convention)  # ConfigError when unknown


@dataclass
class MotionSet:
    """Joint positions (N, T, J, 3), valid lengths (N,) and optional paired audio (N entries)."""

    joints: np.ndarray
    lengths: np.ndarray
    audio: list | None = None

    @property
    def has_skeleton(self) -> bool:
        """True when the joints are the SMPL skeleton the geometric and foot metrics index."""
        return self.joints.shape[2] in SKELETON_JOINTS


class MotionEvaluator:
    """Compute the AIST++ metric block of ``generated`` against ``reference``.

    ``reference`` (ground truth) anchors FID and the z-scoring of kinetic/geometric features;
    without it those metrics are null with a reason. Learned-embedding FID/Diversity are null
    unless learned embeddings are supplied (generated, reference or None).
    """

    def __init__(self, settings: EvalSettings = EvalSettings()):
        self.settings = settings

    def evaluate(self, generated: MotionSet, reference: MotionSet | None = None,
                 embeddings: tuple[np.ndarray, np.ndarray | None] | None = None) -> dict:
        """Return the metrics dict (see docs/motion.md, "Outputs"), with ``null_reasons``."""
        self.reasons: dict[str, str] = {}
        metrics = {"num_samples": int(generated.joints.shape[0])}
        metrics.update(self._learned(embeddings))
        metrics.update(self._handcrafted(generated, reference))
        metrics["BeatAlign"] = self._beat_alignment(generated)
        metrics.update(self._ground(generated))
        metrics["settings"] = {**asdict(self.settings),
                               "feature_constants": self.feature_constants()}
        metrics["null_reasons"] = dict(sorted(self.reasons.items()))
        return metrics

    def feature_constants(self) -> dict:
        """The body constants (m) and acceleration formula of the feature convention in use."""
        convention = features.feature_convention(self.settings.feature_convention)
        return {"humerus": convention.humerus, "shoulder_width": convention.shoulder_width,
                "hip_width": convention.hip_width,
                "acceleration": ("((p[t+1]-p[t])/dt - (p[t]-p[t-1]/dt))/dt, as Bailando's code"
                                 if convention.bailando_acceleration
                                 else "(p[t+1]-2p[t]+p[t-1])/dt^2")}

    def _learned(self, embeddings) -> dict:
        if embeddings is None:
            self.reasons["FID"] = self.reasons["Diversity"] = LEARNED_FID_REASON
            return {"FID": None, "Diversity": None}
        generated, reference = embeddings
        out = {"Diversity": distribution.sampled_diversity(
            generated, self.settings.diversity_times, self.settings.seed), "FID": None}
        if reference is None:
            self.reasons["FID"] = "no ground-truth motions to embed as reference (gt_motion)"
        else:
            out["FID"] = self._defined("FID", distribution.frechet_distance, generated, reference)
        return out

    def _defined(self, metric: str, compute, *arguments) -> float | None:
        """``compute(*arguments)``, or None with the reason when the metric does not exist on these sets."""
        try:
            return compute(*arguments)
        except distribution.FidUndefined as exc:
            self.reasons[metric] = exc.message
            return None

    def feature_sets(self, motions: MotionSet) -> dict[str, np.ndarray | None]:
        """Kinetic (N, 3J) and geometric (N, 32) features (geometric: None without the skeleton)."""
        s = self.settings
        joints, lengths = features.prepare_joints(motions.joints, motions.lengths, s.max_frames)
        kinetic = features.kinetic_features(joints, lengths, fps=s.fps,
                                            convention=s.feature_convention)
        geometric = (features.geometric_features(joints, lengths, s.feature_convention)
                     if motions.has_skeleton else None)
        return {"k": kinetic, "g": geometric}

    def _handcrafted(self, generated: MotionSet, reference: MotionSet | None) -> dict:
        out = {"excluded_dims": {}}
        gen_sets = self.feature_sets(generated)
        ref_sets = self.feature_sets(reference) if reference is not None else {"k": None, "g": None}
        for suffix in FEATURE_SETS:
            fid, div = f"FID_{suffix}", f"Div_{suffix}"
            out[fid] = out[div] = out["excluded_dims"][suffix] = None
            gen, ref = gen_sets[suffix], ref_sets[suffix]
            if gen is None:
                self.reasons[fid] = self.reasons[div] = SKELETON_REASON.format("geometric features")
            elif ref is None:
                self.reasons[fid] = self.reasons[div] = \
                    "no ground-truth motions to serve as reference (gt_motion)"
            else:
                out[fid], out[div], out["excluded_dims"][suffix] = self._fid_and_diversity(
                    suffix, gen, ref)
        return out

    def _fid_and_diversity(self, suffix: str, gen: np.ndarray, ref: np.ndarray):
        """FID and pairwise diversity after z-scoring, over the dimensions the reference varies on.

        Returns (FID or None, Div or None, excluded dimension indices).
        """
        constant = distribution.constant_dimensions(ref)
        excluded = np.flatnonzero(constant).tolist()
        name = FEATURE_SETS[suffix]
        if excluded and not constant.all():
            warnings.warn(f"FID_{suffix}/Div_{suffix}: {len(excluded)} of {ref.shape[1]} {name} "
                          f"dimensions are constant in the ground truth and were excluded "
                          f"(indices {excluded})", MotionDataWarning, stacklevel=3)
        if constant.all():
            self.reasons[f"FID_{suffix}"] = self.reasons[f"Div_{suffix}"] = \
                f"every {name} dimension is constant in the ground truth"
            return None, None, excluded
        gen_norm, ref_norm = distribution.normalize_to_reference(gen[:, ~constant],
                                                                 ref[:, ~constant])
        return (self._defined(f"FID_{suffix}", distribution.frechet_distance, gen_norm, ref_norm),
                distribution.pairwise_diversity(gen_norm), excluded)

    def _beat_alignment(self, motions: MotionSet) -> dict:
        s = self.settings
        clips = motions.audio or [None] * len(motions.lengths)
        music = beats.music_beat_times_batch(clips)
        scores = [score_motion_beats(joints[:length], times, s)
                  for joints, length, times in zip(motions.joints, motions.lengths, music)
                  if times is not None]
        block = {"sigma": s.beat_sigma, "variant": s.kinematic, "smooth": s.smooth_kinematic,
                 "n_with_audio": len(scores)}
        if not scores:
            self.reasons["BeatAlign"] = "no motion has paired audio (audio_waveforms)"
            return {**block, "precision": None, "recall": None, "f1": None, "mean": None, "std": None}
        table = np.array([[b.precision, b.recall, b.f1] for b in scores])
        precision, recall, f1 = table.mean(axis=0)
        return {**block, "precision": precision, "recall": recall, "f1": f1,
                "mean": precision, "std": float(table[:, 0].std())}

    def _ground(self, motions: MotionSet) -> dict:
        keys = ("SkatingRatio", "FootSliding_mm", "FootSliding_total_mm", "Penetration_mm",
                "Floating_mm", "PFC")
        if not motions.has_skeleton:
            for key in keys:
                self.reasons[key] = SKELETON_REASON.format("foot metrics")
            return dict.fromkeys(keys)
        joints, lengths = motions.joints, motions.lengths
        return {
            "SkatingRatio": float(ground.skating_ratio(joints, self.settings.skating_fps).mean()),
            "FootSliding_mm": ground.foot_sliding_per_step_mm(joints, lengths),
            "FootSliding_total_mm": ground.foot_sliding_total_mm(joints, lengths),
            "Penetration_mm": ground.penetration_mm(joints, lengths),
            "Floating_mm": ground.floating_mm(joints, lengths),
            "PFC": ground.physical_foot_contact(joints, lengths),
        }


def score_motion_beats(joints: np.ndarray, music_times: np.ndarray,
                       settings: EvalSettings) -> beats.BeatScores:
    """Beat alignment of one motion (L, J, 3) with its music beats (s), using those in [0, L/fps)."""
    duration = joints.shape[0] / settings.fps
    music = music_times[(music_times >= 0) & (music_times < duration)]
    dance = beats.kinematic_beat_times(joints, settings.fps, settings.kinematic,
                                       settings.smooth_kinematic)
    return beats.beat_alignment(dance, music, settings.beat_sigma)
