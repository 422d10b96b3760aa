"""AIST++ motion-generation metrics (docs/motion.md): safe loading, joint recovery, FID_k/FID_g,
diversity, beat alignment and foot/ground metrics. CLI: ``python -m pipeline.protocols.motion``."""

from .beats import BeatScores, beat_alignment, kinematic_beat_times, music_beat_times
from .distribution import (constant_dimensions, frechet_distance, normalize_to_reference,
                           pairwise_diversity, sampled_diversity)
from .evaluate import EvalSettings, MotionEvaluator, MotionSet
from .features import (CONVENTIONS, FeatureConvention, geometric_features, kinetic_features,
                       prepare_joints)
from .geometry import FeatureDenormalizer, motion_to_joints, recover_from_ric
from .ground import (floating_mm, foot_sliding_per_step_mm, foot_sliding_total_mm, penetration_mm,
                     physical_foot_contact, skating_ratio)
from .limits import LoadLimits
from .loading import MotionDataWarning, MotionResults, load_motion_results, save_npz
from .unpickler import RestrictedUnpickler, restricted_loads

__all__ = [
    "BeatScores", "beat_alignment", "kinematic_beat_times", "music_beat_times",
    "constant_dimensions", "frechet_distance", "normalize_to_reference", "pairwise_diversity",
    "sampled_diversity",
    "EvalSettings", "MotionEvaluator", "MotionSet",
    "CONVENTIONS", "FeatureConvention", "geometric_features", "kinetic_features", "prepare_joints",
    "FeatureDenormalizer", "motion_to_joints", "recover_from_ric",
    "floating_mm", "foot_sliding_per_step_mm", "foot_sliding_total_mm", "penetration_mm",
    "physical_foot_contact", "skating_ratio",
    "LoadLimits", "MotionDataWarning", "MotionResults", "load_motion_results", "save_npz",
    "RestrictedUnpickler", "restricted_loads",
]
