"""Foot and ground contact metrics on joint positions (N, T, 22, 3), metres, y up (spec §3.6).

Reference: CLoSD ``humanml/utils/metrics.py`` (GMD/PhysDiff-derived) and EDGE's PFC.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import uniform_filter1d

FEET = (10, 11)                  # left / right toe joints
PFC_FEET = ((7, 10), (8, 11))    # (ankle, toe) per side
CONTACT_HEIGHT = 0.05            # m, skating contact threshold
SKATING_SPEED = 0.5              # m/s
GROUND_TOLERANCE = 0.005         # m, for penetration / floating / sliding
SKATING_FPS = 20.0               # HumanML3D rate hard-coded by the reference


def _valid_frames(lengths: np.ndarray, n_frames: int) -> np.ndarray:
    return np.arange(n_frames)[None, :] < lengths[:, None]


def skating_ratio(joints: np.ndarray, fps: float = SKATING_FPS) -> np.ndarray:
    """Fraction of frame steps (over the padded length T) in which a planted toe slides, per motion (N,).

    A toe skates at step t when it is below 5 cm at t and t+1 and both its horizontal speed and
    that speed's 5-frame box average exceed 0.5 m/s. ``fps`` is the rate used to turn steps into
    speeds (the reference uses 20 even for 60-fps data; pass the true rate to correct that).
    """
    feet = joints[:, :, FEET]
    speed = np.linalg.norm(np.diff(feet[..., [0, 2]], axis=1), axis=-1) * fps
    smoothed = uniform_filter1d(speed, size=5, axis=1, mode="constant", origin=0)
    low = feet[..., 1] < CONTACT_HEIGHT
    contact = low[:, :-1] & low[:, 1:]
    skating = contact & (speed > SKATING_SPEED) & (smoothed > SKATING_SPEED)
    return np.any(skating, axis=-1).sum(axis=1) / (joints.shape[1] - 1.0)


def lowest_height(joints: np.ndarray) -> np.ndarray:
    """Height (N, T) of the lowest joint in every frame."""
    return joints[..., 1].min(axis=-1)


def penetration_mm(joints: np.ndarray, lengths: np.ndarray) -> float:
    """Mean depth (mm) of the lowest joint below −5 mm, pooled over all valid frames of all motions."""
    depth = np.maximum(0.0, -(lowest_height(joints) + GROUND_TOLERANCE)) * 1000.0
    return float(depth[_valid_frames(lengths, joints.shape[1])].mean())


def floating_mm(joints: np.ndarray, lengths: np.ndarray) -> float:
    """Mean height (mm) of the lowest joint above +5 mm, pooled over all valid frames."""
    height = np.maximum(0.0, lowest_height(joints) - GROUND_TOLERANCE) * 1000.0
    return float(height[_valid_frames(lengths, joints.shape[1])].mean())


def foot_sliding_mm(joints: np.ndarray, lengths: np.ndarray) -> float:
    """Mean horizontal slide (mm per frame step) of the lowest joint while it stays on the ground.

    For each step t -> t+1 (t < length − 1) take j* = the lowest joint at t; the step counts its
    x/z displacement if j* is at most 5 mm high at both t and t+1, else 0. Pooled over all steps.
    """
    lowest = np.argmin(joints[:, :-1, :, 1], axis=-1)[..., None, None]   # j* at t, (N, T-1, 1, 1)
    track = np.take_along_axis(joints[:, :-1], lowest, axis=2)[:, :, 0]  # j* at t
    follow = np.take_along_axis(joints[:, 1:], lowest, axis=2)[:, :, 0]  # the same joint at t+1
    grounded = (track[..., 1] <= GROUND_TOLERANCE) & (follow[..., 1] <= GROUND_TOLERANCE)
    slide = np.linalg.norm(follow[..., [0, 2]] - track[..., [0, 2]], axis=-1) * grounded * 1000.0
    return float(slide[_valid_frames(lengths - 1, joints.shape[1] - 1)].mean())


def physical_foot_contact(joints: np.ndarray, lengths: np.ndarray) -> float:
    """EDGE's PFC × 10,000: mean over motions of mean_t(min-left · min-right foot speed · |a_root|/max).

    The root acceleration's up component is clamped at 0 and its norm scaled by its per-motion
    maximum, so the frame time cancels. Foot speed is the horizontal step into the next frame,
    minimised over each side's (ankle, toe) pair.
    """
    scores = []
    for motion, length in zip(joints, lengths):
        motion = motion[:length]
        accel = np.diff(motion[:, 0], n=2, axis=0)
        accel[:, 1] = np.maximum(accel[:, 1], 0.0)
        accel = np.linalg.norm(accel, axis=-1)
        peak = accel.max(initial=0.0)
        scale = accel / peak if peak > 0 else np.zeros_like(accel)
        step = np.linalg.norm(np.diff(motion[1:, :, [0, 2]], axis=0), axis=-1)
        left = step[:, PFC_FEET[0]].min(axis=1)
        right = step[:, PFC_FEET[1]].min(axis=1)
        scores.append(np.mean(left * right * scale) if scale.size else 0.0)
    return float(np.mean(scores) * 10_000)
