"""Kinetic and geometric features (spec §3.3)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.protocols.motion import geometric_features, kinetic_features, prepare_joints
from pipeline.protocols.motion.features import GEOMETRIC_RELATIONS, JOINT_INDEX


def kinetic_by_loops(positions: np.ndarray, fps: float, w: int = 2) -> np.ndarray:
    """Literal transcription of the spec's sums for one motion (T, J, 3)."""
    n_frames, n_joints = positions.shape[:2]
    dt = 1.0 / fps
    out = []
    for j in range(n_joints):
        p = positions[:, j]
        ke_h = ke_v = ee = 0.0
        for i in range(1, n_frames):
            vel = [p[i + k] - p[i + k - 1] for k in range(-w, w + 1) if i + k - 1 >= 0 and i + k < n_frames]
            acc = [(p[i + k + 1] - p[i + k]) - (p[i + k] - p[i + k - 1])
                   for k in range(-w, w + 1) if i + k - 1 >= 0 and i + k + 1 < n_frames]
            v = np.mean(vel, axis=0) / dt
            a = np.mean(acc, axis=0) / dt ** 2 if acc else np.zeros(3)
            ke_h += v[0] ** 2 + v[2] ** 2
            ke_v += v[1] ** 2
            ee += np.linalg.norm(a)
        out += [ke_h / (n_frames - 1), ke_v / (n_frames - 1), ee / (n_frames - 1)]
    return np.array(out)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 1000), lengths=st.lists(st.integers(2, 12), min_size=1, max_size=4))
def test_kinetic_features_match_the_formula_on_valid_frames(seed, lengths):
    rng = np.random.default_rng(seed)
    joints = rng.normal(size=(len(lengths), 12, 3, 3))
    lengths = np.array(lengths)
    got = kinetic_features(joints, lengths, fps=60.0)
    assert got.shape == (len(lengths), 9)
    for motion, length, row in zip(joints, lengths, got):
        np.testing.assert_allclose(row, kinetic_by_loops(motion[:length], 60.0), rtol=1e-10)


def test_kinetic_energy_of_uniform_motion_is_its_squared_speed():
    t = np.arange(30)[:, None, None]
    joints = np.concatenate([t * [0.01, 0.0, 0.0], t * [0.0, 0.02, 0.0]], axis=1)[None]  # 2 joints
    features = kinetic_features(joints, np.array([30]), fps=60.0).reshape(2, 3)
    np.testing.assert_allclose(features[0], [0.6 ** 2, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(features[1], [0.0, 1.2 ** 2, 0.0], atol=1e-9)


def test_prepare_joints_centres_on_first_root_and_truncates():
    joints = np.random.default_rng(0).normal(size=(2, 50, 22, 3))
    centred, lengths = prepare_joints(joints, np.array([50, 20]), max_frames=30)
    assert centred.shape == (2, 30, 22, 3) and lengths.tolist() == [30, 20]
    np.testing.assert_allclose(centred[:, 0, 0], 0.0)
    np.testing.assert_allclose(centred[1, 5, 7], joints[1, 5, 7] - joints[1, 0, 0])


def _rest_pose() -> np.ndarray:
    """A standing T-pose-ish skeleton (22, 3), metres, y up, facing +z."""
    pose = np.zeros((22, 3))
    coords = {"root": (0, 0.9, 0), "lhip": (0.1, 0.85, 0), "rhip": (-0.1, 0.85, 0),
              "belly": (0, 1.0, 0), "lknee": (0.1, 0.5, 0), "rknee": (-0.1, 0.5, 0),
              "spine": (0, 1.15, 0), "lankle": (0.1, 0.08, 0), "rankle": (-0.1, 0.08, 0),
              "chest": (0, 1.3, 0), "ltoes": (0.1, 0.0, 0.12), "rtoes": (-0.1, 0.0, 0.12),
              "neck": (0, 1.5, 0), "linshoulder": (0.08, 1.45, 0), "rinshoulder": (-0.08, 1.45, 0),
              "head": (0, 1.65, 0), "lshoulder": (0.2, 1.45, 0), "rshoulder": (-0.2, 1.45, 0),
              "lelbow": (0.45, 1.45, 0), "relbow": (-0.45, 1.45, 0), "lwrist": (0.7, 1.45, 0),
              "rwrist": (-0.7, 1.45, 0)}
    for name, xyz in coords.items():
        pose[JOINT_INDEX[name]] = xyz
    return pose


def test_static_pose_has_no_motion_relations_and_32_fractions():
    joints = np.tile(_rest_pose(), (1, 40, 1, 1))
    features = geometric_features(joints, np.array([40]))[0]
    assert features.shape == (32,)
    assert np.all((features >= 0) & (features <= 1))
    moving = [i for i, (kind, _, _) in enumerate(GEOMETRIC_RELATIONS) if kind in ("fast", "move", "nmove")]
    assert len(moving) == 12
    np.testing.assert_array_equal(features[moving], 0.0)
    # straight arms (180°) are outside (0, 110); an upright trunk is not horizontal (70°–110° to y)
    assert features[6] == 0 and features[7] == 0 and features[28] == 0
    lying = np.tile(_rest_pose()[:, [1, 0, 2]], (1, 3, 1, 1))  # swap x and y: trunk horizontal
    assert geometric_features(lying, np.array([3]))[0, 28] == 1
    # both feet are on the floor: ankles are not 1.2 humerus above the lowest point
    assert features[16] == 0 and features[17] == 0


def test_fast_root_counts_only_valid_frames():
    rest = _rest_pose()
    joints = np.tile(rest, (2, 21, 1, 1))
    joints[:, :, :, 0] += np.arange(21)[None, :, None] * 0.001  # 0.12 m/s at Δ₀ = 1/120: slow
    joints[1, :, :, 0] = rest[:, 0] + np.arange(21)[:, None] * 0.1  # 12 m/s: fast
    joints[1, 11:, :, 0] = joints[1, 10, :, 0]  # stops after frame 10
    features = geometric_features(joints, np.array([21, 11]))
    assert features[0, 31] == 0.0
    np.testing.assert_allclose(features[1, 31], 1.0)  # every valid step (1..10) moved fast
    full = geometric_features(joints, np.array([21, 21]))
    np.testing.assert_allclose(full[1, 31], 10 / 20)
