"""Foot and ground contact metrics on joint positions (N, T, J, 3), metres, y up, SMPL order.

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


def _slides_mm(joints: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Horizontal slide (mm) of the grounded lowest joint per frame step, 0 outside ``lengths``.

    For each step t -> t+1 take j* = the lowest joint at t; the step counts its x/z displacement
    if j* is at most 5 mm high at both t and t+1, else 0. As the original script does, lengths
    are first clamped to T − 1, so a full-length motion's last step is not counted.
    """
    lowest = np.argmin(joints[:, :-1, :, 1], axis=-1)[..., None, None]   # j* at t, (N, T-1, 1, 1)
    track = np.take_along_axis(joints[:, :-1], lowest, axis=2)[:, :, 0]  # j* at t
    follow = np.take_along_axis(joints[:, 1:], lowest, axis=2)[:, :, 0]  # the same joint at t+1
    grounded = (track[..., 1] <= GROUND_TOLERANCE) & (follow[..., 1] <= GROUND_TOLERANCE)
    slide = np.linalg.norm(follow[..., [0, 2]] - track[..., [0, 2]], axis=-1) * grounded * 1000.0
    return slide * _valid_frames(_counted_steps(lengths, joints.shape[1]), joints.shape[1] - 1)


def _counted_steps(lengths: np.ndarray, n_frames: int) -> np.ndarray:
    """Frame steps per motion that foot sliding counts: lengths clamped to T − 1, minus one."""
    return np.minimum(lengths, n_frames - 1) - 1


def foot_sliding_total_mm(joints: np.ndarray, lengths: np.ndarray) -> float:
    """Total slide (mm) of the grounded lowest joint per motion, mean over motions (see
    :func:`_slides_mm` for the steps counted); the "total foot sliding distance" of the original's
    README, printed as ``FootSlidingTotal(mm/motion)``."""
    return float(_slides_mm(joints, lengths).sum(axis=1).mean())


def foot_sliding_per_step_mm(joints: np.ndarray, lengths: np.ndarray) -> float:
    """Mean slide (mm per frame step) pooled over all counted steps of all motions: the number the
    original script computes and prints as ``FootSliding(mm)``."""
    steps = int(_counted_steps(lengths, joints.shape[1]).sum())
    return float(_slides_mm(joints, lengths).sum() / max(steps, 1))


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
