"""Per-frame, per-joint re-implementations of Bailando's feature code, used as test references.

They follow the structure of Bailando's ``utils/features/kinetic.py``, ``manual.py``,
``manual_new.py`` and ``utils.py`` (the fairmotion-derived functions): one Python loop per joint
and frame, a sliding window of ±2 frames, Δ = 1/60 s for the kinetic features and Δ₀ = 1/120 s for
the geometric ones, the result stored as float32. ``bug=True`` reproduces the acceleration of
``calc_average_acceleration`` exactly as Bailando's code computes it, ``v1 = p[t] − p[t−1]/Δ``.
The body constants are computed here from the rest-pose points of the two Bailando modules,
independently of the package's copy.
"""

from __future__ import annotations

import numpy as np

NAMES = ["root", "lhip", "rhip", "belly", "lknee", "rknee", "spine", "lankle", "rankle", "chest",
         "ltoes", "rtoes", "neck", "linshoulder", "rinshoulder", "head", "lshoulder", "rshoulder",
         "lelbow", "relbow", "lwrist", "rwrist", "lhand", "rhand"]

# (humerus: shoulder-elbow, shoulder width: shoulder-shoulder, hip width: hip-hip) point pairs
MANUAL_POINTS = (([0.00121265, 0.37817603, 0.03681623], [0.19911349, 0.23680794, -0.01807022]),
                 ([0.00121265, 0.37817603, 0.03681623], [-0.45181984, 0.2225595, -0.04357424]),
                 ([0.05640767, -0.32306919, 0.01091971], [-0.10574003, -0.7149903, 0.01019822]))
MANUAL_NEW_POINTS = (
    ([1.99113488e-01, 2.36807942e-01, -1.80702247e-02],
     [4.54445392e-01, 2.21158922e-01, -4.10167128e-02]),
    ([1.99113488e-01, 2.36807942e-01, -1.80702247e-02],
     [-1.91692337e-01, 2.36928746e-01, -1.23055102e-02]),
    ([5.64076714e-02, -3.23069185e-01, 1.09197125e-02],
     [-6.24834076e-02, -3.31302464e-01, 1.50412619e-02]))


def body_constants(points) -> tuple[float, float, float]:
    return tuple(float(np.linalg.norm(np.array(a) - np.array(b))) for a, b in points)


# ---- kinetic (utils/features/kinetic.py + utils.py) -------------------------------------------

def _window_velocity(p, i, joint, window, dt):
    total, count = np.zeros(3), 0
    for j in range(-window, window + 1):
        if i + j - 1 < 0 or i + j >= len(p):
            continue
        total += p[i + j][joint] - p[i + j - 1][joint]
        count += 1
    return total / (count * dt)


def _window_acceleration(p, i, joint, window, dt, bug):
    total, count = np.zeros(3), 0
    for j in range(-window, window + 1):
        if i + j - 1 < 0 or i + j + 1 >= len(p):
            continue
        v2 = (p[i + j + 1][joint] - p[i + j][joint]) / dt
        v1 = p[i + j][joint] - p[i + j - 1][joint] / dt if bug else (
            p[i + j][joint] - p[i + j - 1][joint]) / dt
        total += (v2 - v1) / dt
        count += 1
    return np.linalg.norm(total / count) if count else 0.0


def kinetic_features(positions: np.ndarray, dt: float = 1 / 60, bug: bool = False,
                     window: int = 2, as_float32: bool = True) -> np.ndarray:
    """Kinetic features (3J,) of one motion (T, J, 3), y up: [KE_h, KE_v, EE] per joint."""
    out = []
    for joint in range(positions.shape[1]):
        ke_h = ke_v = ee = 0.0
        for i in range(1, len(positions)):
            v = _window_velocity(positions, i, joint, window, dt)
            ke_h += np.linalg.norm([v[0], v[2]]) ** 2
            ke_v += np.linalg.norm([v[1]]) ** 2
            ee += _window_acceleration(positions, i, joint, window, dt, bug)
        out += [value / (len(positions) - 1.0) for value in (ke_h, ke_v, ee)]
    return np.array(out, dtype=np.float32 if as_float32 else np.float64)


# ---- geometric (utils/features/manual.py, manual_new.py + utils.py) ---------------------------

class _Pose:
    """Named points of frame ``t`` and ``t − 1`` of a motion (T, J, 3)."""

    def __init__(self, positions, t):
        self.positions, self.t = positions, t

    def now(self, name):
        fixed = {"y_unit": [0, 1, 0], "minus_y_unit": [0, -1, 0], "zero": [0, 0, 0]}
        if name in fixed:
            return np.array(fixed[name], dtype=float)
        if name == "y_min":
            return np.array([0, min(y for _, y, _ in self.positions[self.t]), 0])
        return self.positions[self.t][NAMES.index(name)]

    def before(self, name):
        return self.positions[self.t - 1][NAMES.index(name)]


def _plane(a, b, c, p, threshold):
    normal = np.cross(c - a, b - a)
    return np.dot(normal, p - a) / np.linalg.norm(normal) > threshold


def _normal_plane(n1, n2, a, p, threshold):
    normal = n2 - n1
    return np.dot(normal, p - a) / np.linalg.norm(normal) > threshold


def _angle(j1, j2, k1, k2, bounds):
    j, k = j2 - j1, k2 - k1
    with np.errstate(invalid="ignore", divide="ignore"):
        angle = np.degrees(np.arccos(np.dot(j, k) / (np.linalg.norm(j) * np.linalg.norm(k))))
    return bool(bounds[0] < angle < bounds[1])


def _moves(j1, j1_prev, direction, p, p_prev, threshold, dt0=1 / 120):
    velocity = p - j1 - (p_prev - j1_prev)
    return np.dot(velocity, direction) / np.linalg.norm(direction) / dt0 > threshold


def _frame_features(pose: _Pose, hl, sw, hw) -> list:
    n, b = pose.now, pose.before

    def move(j1, j2, j3, j4, threshold):  # f_move: the moving point is j3; j4 is never used
        return _moves(n(j1), b(j1), n(j2) - n(j1), n(j3), b(j3), threshold)

    def nmove(j1, j2, j3, j4, threshold):  # f_nmove: moving point j4, plane normal (j3−j1)×(j2−j1)
        return _moves(n(j1), b(j1), np.cross(n(j3) - n(j1), n(j2) - n(j1)), n(j4), b(j4),
                      threshold)

    def fast(j, threshold):
        return np.linalg.norm(n(j) - b(j)) / (1 / 120) > threshold

    def plane(a, b_, c, p, threshold):
        return _plane(n(a), n(b_), n(c), n(p), threshold)

    def nplane(n1, n2, a, p, threshold):
        return _normal_plane(n(n1), n(n2), n(a), n(p), threshold)

    def angle(j1, j2, k1, k2, bounds):
        return _angle(n(j1), n(j2), n(k1), n(k2), bounds)

    return [
        nmove("neck", "rhip", "lhip", "rwrist", 1.8 * hl),
        nmove("neck", "lhip", "rhip", "lwrist", 1.8 * hl),
        nplane("chest", "neck", "neck", "rwrist", 0.2 * hl),
        nplane("chest", "neck", "neck", "lwrist", 0.2 * hl),
        move("belly", "chest", "chest", "rwrist", 1.8 * hl),
        move("belly", "chest", "chest", "lwrist", 1.8 * hl),
        angle("relbow", "rshoulder", "relbow", "rwrist", [0, 110]),
        angle("lelbow", "lshoulder", "lelbow", "lwrist", [0, 110]),
        nplane("lshoulder", "rshoulder", "lwrist", "rwrist", 2.5 * sw),
        move("lwrist", "rwrist", "rwrist", "lwrist", 1.4 * hl),
        move("rwrist", "root", "lwrist", "root", 1.4 * hl),
        move("lwrist", "root", "rwrist", "root", 1.4 * hl),
        fast("rwrist", 2.5 * hl),
        fast("lwrist", 2.5 * hl),
        plane("root", "lhip", "ltoes", "rankle", 0.38 * hl),
        plane("root", "rhip", "rtoes", "lankle", 0.38 * hl),
        nplane("zero", "y_unit", "y_min", "rankle", 1.2 * hl),
        nplane("zero", "y_unit", "y_min", "lankle", 1.2 * hl),
        nplane("lhip", "rhip", "lankle", "rankle", 2.1 * hw),
        angle("rknee", "rhip", "rknee", "rankle", [0, 110]),
        angle("lknee", "lhip", "lknee", "lankle", [0, 110]),
        fast("rankle", 2.5 * hl),
        fast("lankle", 2.5 * hl),
        angle("neck", "root", "rshoulder", "relbow", [25, 180]),
        angle("neck", "root", "lshoulder", "lelbow", [25, 180]),
        angle("neck", "root", "rhip", "rknee", [50, 180]),
        angle("neck", "root", "lhip", "lknee", [50, 180]),
        plane("rankle", "neck", "lankle", "root", 0.5 * hl),
        angle("neck", "root", "zero", "y_unit", [70, 110]),
        nplane("zero", "minus_y_unit", "y_min", "rwrist", -1.2 * hl),
        nplane("zero", "minus_y_unit", "y_min", "lwrist", -1.2 * hl),
        fast("root", 2.3 * hl),
    ]


def manual_features(positions: np.ndarray, points=MANUAL_POINTS) -> np.ndarray:
    """Geometric features (32,) of one motion (T, J, 3), J = 22 or 24, as float32 frame means."""
    hl, sw, hw = body_constants(points)
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = [_frame_features(_Pose(positions, t), hl, sw, hw)
                for t in range(1, positions.shape[0])]
    return np.array(rows, dtype=np.float32).mean(axis=0)
