"""AIST++ motion-generation metrics (spec §3): safe loading, joint recovery, FID_k/FID_g,
diversity, beat alignment and foot/ground metrics. CLI: ``python -m pipeline.protocols.motion``."""

from .beats import BeatScores, beat_alignment, kinematic_beat_times, music_beat_times
from .distribution import frechet_distance, normalize_to_reference, pairwise_diversity, sampled_diversity
from .evaluate import EvalSettings, MotionEvaluator, MotionSet
from .features import geometric_features, kinetic_features, prepare_joints
from .geometry import FeatureDenormalizer, motion_to_joints, recover_from_ric
from .ground import (floating_mm, foot_sliding_mm, penetration_mm, physical_foot_contact,
                     skating_ratio)
from .loading import (MotionDataWarning, MotionResults, RestrictedUnpickler, load_motion_results,
                      restricted_loads, save_npz)

__all__ = [
    "BeatScores", "beat_alignment", "kinematic_beat_times", "music_beat_times",
    "frechet_distance", "normalize_to_reference", "pairwise_diversity", "sampled_diversity",
    "EvalSettings", "MotionEvaluator", "MotionSet",
    "geometric_features", "kinetic_features", "prepare_joints",
    "FeatureDenormalizer", "motion_to_joints", "recover_from_ric",
    "floating_mm", "foot_sliding_mm", "penetration_mm", "physical_foot_contact", "skating_ratio",
    "MotionDataWarning", "MotionResults", "RestrictedUnpickler", "load_motion_results",
    "restricted_loads", "save_npz",
]
