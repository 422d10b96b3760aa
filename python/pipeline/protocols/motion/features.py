"""Hand-crafted motion features for FID_k / FID_g and Div_k / Div_g.

Both extractors take a padded batch of joint positions ``(N, T, J, 3)`` (metres, y up, SMPL joint
order; J = 22 or 24 for the geometric features) plus valid lengths ``(N,)`` and use only the valid
frames of each motion, vectorised over the batch. A :class:`FeatureConvention` selects between the
corrected formulas (default) and the exact code behind published Bailando/EDGE tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError

# Protocol semantics, not an input limit (longer motions are truncated, not refused): Bailando's
# evaluation keeps the first 1200 frames (20 s at 60 fps) before extracting features; the name says whose.
BAILANDO_MAX_FRAMES = 1200


def _distance(a, b) -> float:
    return float(np.linalg.norm(np.subtract(a, b)))


@dataclass(frozen=True)
class FeatureConvention:
    """How the hand-crafted features are computed.

    Attributes
    ----------
    name : str
        ``"corrected"`` or ``"bailando"``.
    bailando_acceleration : bool
        Use the acceleration of Bailando's feature code, ``((p[t+1] − p[t])/Δ − (p[t] −
        p[t−1]/Δ))/Δ`` (an operator-precedence slip), instead of the second difference
        ``(p[t+1] − 2 p[t] + p[t−1])/Δ²``.
    humerus, shoulder_width, hip_width : float
        Body constants (m) scaling the geometric thresholds: distances between rest-pose points
        hard-coded in Bailando's ``utils/features/manual.py`` (corrected) or ``manual_new.py``
        (bailando, the module its ``metrics_new.py`` imports).
    """

    name: str
    bailando_acceleration: bool
    humerus: float
    shoulder_width: float
    hip_width: float


# the rest-pose points (m) of the two Bailando feature modules, for (humerus, shoulder, hip)
_MANUAL_POINTS = {
    "shoulder": (0.00121265, 0.37817603, 0.03681623),
    "elbow": (0.19911349, 0.23680794, -0.01807022),
    "other_shoulder": (-0.45181984, 0.2225595, -0.04357424),
    "hip": (0.05640767, -0.32306919, 0.01091971),
    "other_hip": (-0.10574003, -0.7149903, 0.01019822),
}
_MANUAL_NEW_POINTS = {
    "shoulder": (1.99113488e-01, 2.36807942e-01, -1.80702247e-02),
    "elbow": (4.54445392e-01, 2.21158922e-01, -4.10167128e-02),
    "other_shoulder": (-1.91692337e-01, 2.36928746e-01, -1.23055102e-02),
    "hip": (5.64076714e-02, -3.23069185e-01, 1.09197125e-02),
    "other_hip": (-6.24834076e-02, -3.31302464e-01, 1.50412619e-02),
}


def _convention(name: str, bailando_acceleration: bool, points: dict) -> FeatureConvention:
    return FeatureConvention(name, bailando_acceleration,
                             humerus=_distance(points["shoulder"], points["elbow"]),
                             shoulder_width=_distance(points["shoulder"], points["other_shoulder"]),
                             hip_width=_distance(points["hip"], points["other_hip"]))


CONVENTIONS = {
    "corrected": _convention("corrected", False, _MANUAL_POINTS),
    "bailando": _convention("bailando", True, _MANUAL_NEW_POINTS),
}


def feature_convention(name: str) -> FeatureConvention:
    """The :class:`FeatureConvention` called ``name`` (``"corrected"`` or ``"bailando"``)."""
    try:
        return CONVENTIONS[name]
    except KeyError:
        raise ConfigError("unknown feature convention", field="feature_convention",
                          expected=tuple(CONVENTIONS), found=name) from None


def prepare_joints(joints: np.ndarray, lengths: np.ndarray,
                   max_frames: int | None = BAILANDO_MAX_FRAMES) -> tuple[np.ndarray, np.ndarray]:
    """Truncate to ``max_frames`` and subtract each motion's first-frame root from every joint."""
    if max_frames is not None:
        joints, lengths = joints[:, :max_frames], np.minimum(lengths, max_frames)
    return joints - joints[:, :1, :1, :], lengths


def _window_mean(values: np.ndarray, valid: np.ndarray, half_width: int) -> np.ndarray:
    """Mean of ``values`` (N, T, ...) over the valid frames in ``[t - w, t + w]`` (0 if none)."""
    masked = values * valid[(...,) + (None,) * (values.ndim - 2)]
    total, count = np.zeros_like(masked), np.zeros(valid.shape)
    n_frames = values.shape[1]
    for shift in range(-half_width, half_width + 1):
        lo, hi = max(0, -shift), min(n_frames, n_frames - shift)
        total[:, lo:hi] += masked[:, lo + shift:hi + shift]
        count[:, lo:hi] += valid[:, lo + shift:hi + shift]
    return total / np.maximum(count, 1)[(...,) + (None,) * (values.ndim - 2)]


def kinetic_features(joints: np.ndarray, lengths: np.ndarray, fps: float = 60.0,
                     window: int = 2, convention: str = "corrected") -> np.ndarray:
    """Kinetic features ``(N, 3J)``: per joint ``[KE_h, KE_v, EE]`` (AIST++/Bailando FID_k).

    With frame time Δ = 1/fps, displacement d_m = p_m − p_{m−1} (valid for 1 <= m <= L−1) and
    acceleration a_m = (d_{m+1} − d_m)/Δ² (valid for 1 <= m <= L−2):
    v̄_i = mean of valid d over m in [i−w, i+w] / Δ; ā_i = mean of valid a over the same window;
    KE_h = mean_{i=1..L−1} (v̄_x² + v̄_z²), KE_v = mean v̄_y², EE = mean ‖ā_i‖.
    The ``"bailando"`` convention uses a_m = (d_{m+1} + p_{m−1})/Δ² − p_m/Δ instead, which is
    what its code computes (see :class:`FeatureConvention`).

    Parameters
    ----------
    joints : ndarray (N, T, J, 3)
    lengths : ndarray of int (N,), each in [2, T]
    """
    n_motions, n_frames = joints.shape[:2]
    frame = np.arange(n_frames)[None, :]
    last = lengths[:, None] - 1
    step_valid = (frame >= 1) & (frame <= last)
    accel_valid = (frame >= 1) & (frame <= last - 1)
    steps = np.zeros_like(joints)
    steps[:, 1:] = joints[:, 1:] - joints[:, :-1]
    dt = 1.0 / fps
    accel = np.zeros_like(joints)
    if feature_convention(convention).bailando_acceleration:
        accel[:, 1:-1] = (steps[:, 2:] + joints[:, :-2]) / dt ** 2 - joints[:, 1:-1] / dt
    else:
        accel[:, 1:-1] = (steps[:, 2:] - steps[:, 1:-1]) / dt ** 2
    velocity = _window_mean(steps, step_valid, window) / dt
    acceleration = _window_mean(accel, accel_valid, window)
    weight = step_valid[:, :, None] / (lengths[:, None, None] - 1.0)
    horizontal = np.sum((velocity[..., 0] ** 2 + velocity[..., 2] ** 2) * weight, axis=1)
    vertical = np.sum(velocity[..., 1] ** 2 * weight, axis=1)
    expenditure = np.sum(np.linalg.norm(acceleration, axis=-1) * weight, axis=1)
    return np.stack([horizontal, vertical, expenditure], axis=-1).reshape(n_motions, -1)


# ---- geometric ("manual", Müller-style) relations ---------------------------------------------

FRAME_TIME = 1.0 / 120.0    # Δ₀: fixed in the reference code, independent of the data's fps

JOINT_INDEX = {
    "root": 0, "lhip": 1, "rhip": 2, "belly": 3, "lknee": 4, "rknee": 5, "spine": 6, "lankle": 7,
    "rankle": 8, "chest": 9, "ltoes": 10, "rtoes": 11, "neck": 12, "linshoulder": 13,
    "rinshoulder": 14, "head": 15, "lshoulder": 16, "rshoulder": 17, "lelbow": 18, "relbow": 19,
    "lwrist": 20, "rwrist": 21,
}
# (kind, points, limit, unit) in the reference's order: the threshold is limit × the convention's
# body constant named by unit; angles take a (low, high) range in degrees
GEOMETRIC_RELATIONS = (
    ("nmove", ("neck", "rhip", "lhip", "rwrist"), 1.8, "humerus"),
    ("nmove", ("neck", "lhip", "rhip", "lwrist"), 1.8, "humerus"),
    ("nplane", ("chest", "neck", "neck", "rwrist"), 0.2, "humerus"),
    ("nplane", ("chest", "neck", "neck", "lwrist"), 0.2, "humerus"),
    ("move", ("belly", "chest", "chest", "rwrist"), 1.8, "humerus"),
    ("move", ("belly", "chest", "chest", "lwrist"), 1.8, "humerus"),
    ("angle", ("relbow", "rshoulder", "relbow", "rwrist"), (0, 110), "degrees"),
    ("angle", ("lelbow", "lshoulder", "lelbow", "lwrist"), (0, 110), "degrees"),
    ("nplane", ("lshoulder", "rshoulder", "lwrist", "rwrist"), 2.5, "shoulder_width"),
    ("move", ("lwrist", "rwrist", "rwrist", "lwrist"), 1.4, "humerus"),
    ("move", ("rwrist", "root", "lwrist", "root"), 1.4, "humerus"),
    ("move", ("lwrist", "root", "rwrist", "root"), 1.4, "humerus"),
    ("fast", ("rwrist",), 2.5, "humerus"),
    ("fast", ("lwrist",), 2.5, "humerus"),
    ("plane", ("root", "lhip", "ltoes", "rankle"), 0.38, "humerus"),
    ("plane", ("root", "rhip", "rtoes", "lankle"), 0.38, "humerus"),
    ("nplane", ("zero", "y_unit", "y_min", "rankle"), 1.2, "humerus"),
    ("nplane", ("zero", "y_unit", "y_min", "lankle"), 1.2, "humerus"),
    ("nplane", ("lhip", "rhip", "lankle", "rankle"), 2.1, "hip_width"),
    ("angle", ("rknee", "rhip", "rknee", "rankle"), (0, 110), "degrees"),
    ("angle", ("lknee", "lhip", "lknee", "lankle"), (0, 110), "degrees"),
    ("fast", ("rankle",), 2.5, "humerus"),
    ("fast", ("lankle",), 2.5, "humerus"),
    ("angle", ("neck", "root", "rshoulder", "relbow"), (25, 180), "degrees"),
    ("angle", ("neck", "root", "lshoulder", "lelbow"), (25, 180), "degrees"),
    ("angle", ("neck", "root", "rhip", "rknee"), (50, 180), "degrees"),
    ("angle", ("neck", "root", "lhip", "lknee"), (50, 180), "degrees"),
    ("plane", ("rankle", "neck", "lankle", "root"), 0.5, "humerus"),
    ("angle", ("neck", "root", "zero", "y_unit"), (70, 110), "degrees"),
    ("nplane", ("zero", "minus_y_unit", "y_min", "rwrist"), -1.2, "humerus"),
    ("nplane", ("zero", "minus_y_unit", "y_min", "lwrist"), -1.2, "humerus"),
    ("fast", ("root",), 2.3, "humerus"),
)


def relation_threshold(limit, unit: str, convention: FeatureConvention):
    """The threshold of one relation: ``limit`` × the body constant ``unit``, or an angle range."""
    return limit if unit == "degrees" else limit * getattr(convention, unit)


class _Frames:
    """Named points of consecutive frame pairs: ``now`` = frames 1..T−1, ``before`` = 0..T−2."""

    def __init__(self, joints: np.ndarray):
        self.now, self.before = joints[:, 1:], joints[:, :-1]

    def point(self, name: str, previous: bool = False) -> np.ndarray:
        pose = self.before if previous else self.now
        if name in JOINT_INDEX:
            return pose[:, :, JOINT_INDEX[name]]
        point = np.zeros(pose.shape[:2] + (3,))
        if name == "y_unit":
            point[..., 1] = 1.0
        elif name == "minus_y_unit":
            point[..., 1] = -1.0
        elif name == "y_min":
            point[..., 1] = pose[..., 1].min(axis=-1)
        return point


def _unit_projection(vector: np.ndarray, direction: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(vector * direction, axis=-1) / np.linalg.norm(direction, axis=-1)


def _relation(frames: _Frames, kind: str, names: tuple, limit) -> np.ndarray:
    """Boolean (N, T−1) for one relation of :data:`GEOMETRIC_RELATIONS`."""
    p = [frames.point(name) for name in names]
    if kind == "plane":
        a, b, c, point = p
        return _unit_projection(point - a, np.cross(c - a, b - a)) > limit
    if kind == "nplane":
        n1, n2, a, point = p
        return _unit_projection(point - a, n2 - n1) > limit
    if kind == "angle":
        u, v = p[1] - p[0], p[3] - p[2]
        with np.errstate(invalid="ignore", divide="ignore"):
            cosine = np.sum(u * v, -1) / (np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1))
        degrees = np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))
        return (limit[0] < degrees) & (degrees < limit[1])
    if kind == "fast":
        moved = p[0] - frames.point(names[0], previous=True)
        return np.linalg.norm(moved, axis=-1) / FRAME_TIME > limit
    # move / nmove: motion of a point relative to j1 between the two frames
    j1, j2, j3, j4 = p
    moving = names[2] if kind == "move" else names[3]
    anchor_before = frames.point(names[0], previous=True)
    velocity = (frames.point(moving) - j1) - (frames.point(moving, previous=True) - anchor_before)
    direction = j2 - j1 if kind == "move" else np.cross(j3 - j1, j2 - j1)
    return _unit_projection(velocity, direction) / FRAME_TIME > limit


def geometric_features(joints: np.ndarray, lengths: np.ndarray,
                       convention: str = "corrected") -> np.ndarray:
    """Geometric features ``(N, 32)`` in [0, 1]: the fraction of frames t = 1..L−1 where each
    relation of :data:`GEOMETRIC_RELATIONS` holds (Bailando FID_g).

    Parameters
    ----------
    joints : ndarray (N, T, J, 3), metres, y up, J = 22 or 24 (SMPL order; ``y_min`` is the
        lowest of all J joints)
    lengths : ndarray of int (N,), each in [2, T]
    convention : ``"corrected"`` or ``"bailando"`` (body constants, see :class:`FeatureConvention`)
    """
    constants = feature_convention(convention)
    frames = _Frames(joints)
    valid = np.arange(1, joints.shape[1])[None, :] <= (lengths[:, None] - 1)
    weight = valid / (lengths[:, None] - 1.0)
    return np.stack([np.sum(_relation(frames, kind, names,
                                      relation_threshold(limit, unit, constants)) * weight, axis=1)
                     for kind, names, limit, unit in GEOMETRIC_RELATIONS], axis=-1)
