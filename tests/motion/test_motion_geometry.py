"""Joint recovery from HumanML3D 263-d features: round trips on known joints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from pipeline.errors import DataError
from pipeline.protocols.motion import FeatureDenormalizer, recover_from_ric
from pipeline.protocols.motion.geometry import quaternion_inverse, quaternion_rotate


def _yaw_quaternion(theta):
    q = np.zeros(np.shape(theta) + (4,))
    q[..., 0], q[..., 2] = np.cos(theta), np.sin(theta)
    return q


def encode(joints: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """Test-side encoder: features (T, 263) whose decoding must give ``joints`` (T, 22, 3).

    ``heading`` (T,) is the root yaw parameter θ_t (quaternion (cos θ, 0, sin θ, 0)); heading[0]
    must be 0. Rotation by scipy, independent of the module's quaternion code.
    """
    n_frames = joints.shape[0]
    rotate = [Rotation.from_quat([0, np.sin(t), 0, np.cos(t)]) for t in heading]  # scalar-last
    root = joints[:, 0]
    features = np.zeros((n_frames, 263))
    features[:-1, 0] = np.diff(heading)
    for t in range(n_frames - 1):
        step = rotate[t + 1].apply(root[t + 1] - root[t])
        features[t, 1:3] = step[[0, 2]]
    features[:, 3] = root[:, 1]
    for t in range(n_frames):
        relative = joints[t, 1:] - root[t] * np.array([1.0, 0.0, 1.0])
        features[t, 4:67] = rotate[t].apply(relative).reshape(-1)
    return features


def test_quaternion_rotation_matches_scipy():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(50, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    v = rng.normal(size=(50, 3))
    expected = Rotation.from_quat(q[:, [1, 2, 3, 0]]).apply(v)
    np.testing.assert_allclose(quaternion_rotate(q, v), expected, atol=1e-12)
    np.testing.assert_allclose(quaternion_rotate(quaternion_inverse(q), expected), v, atol=1e-12)


def test_constant_features_with_zero_velocity_reproduce_ric_offsets():
    rng = np.random.default_rng(2)
    frame = np.zeros(263)
    frame[3] = 0.93
    frame[4:67] = rng.normal(size=63)
    frame[67:] = rng.normal(size=196)  # rotations, velocities, contacts do not move joints
    joints = recover_from_ric(np.tile(frame, (7, 1)))
    assert joints.shape == (7, 22, 3)
    np.testing.assert_allclose(joints[:, 0], np.tile([0.0, 0.93, 0.0], (7, 1)), atol=1e-12)
    np.testing.assert_allclose(joints[:, 1:], np.tile(frame[4:67].reshape(21, 3), (7, 1, 1)),
                               atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_frames=st.integers(2, 30))
def test_round_trip_with_turning_and_walking_root(seed, n_frames):
    rng = np.random.default_rng(seed)
    heading = np.concatenate([[0.0], np.cumsum(rng.uniform(-0.3, 0.3, n_frames - 1))])
    root = np.cumsum(rng.normal(0, 0.05, (n_frames, 3)), axis=0)
    root -= root[0]  # the features start the root at the origin of the x-z plane
    root[:, 1] = 0.9 + rng.normal(0, 0.02, n_frames)
    body = rng.normal(0, 0.4, (n_frames, 21, 3)) + root[:, None]
    joints = np.concatenate([root[:, None], body], axis=1)
    np.testing.assert_allclose(recover_from_ric(encode(joints, heading)), joints, atol=1e-9)


def test_batched_recovery_equals_per_motion_recovery():
    rng = np.random.default_rng(3)
    batch = rng.normal(0, 0.1, (4, 9, 263))
    stacked = recover_from_ric(batch)
    for features, joints in zip(batch, stacked):
        np.testing.assert_allclose(recover_from_ric(features), joints, atol=1e-12)


def test_denormalizer_applies_mean_and_std_and_rejects_bad_files(tmp_path):
    mean, std = np.arange(263.0), np.full(263, 2.0)
    np.save(tmp_path / "mean.npy", mean)
    np.save(tmp_path / "std.npy", std)
    denorm = FeatureDenormalizer(tmp_path / "mean.npy", tmp_path / "std.npy")
    np.testing.assert_allclose(denorm.transform(np.ones((1, 2, 263))), np.broadcast_to(mean + 2, (1, 2, 263)))
    np.save(tmp_path / "short.npy", np.ones(10))
    with pytest.raises(DataError, match="263 finite numbers"):
        FeatureDenormalizer(tmp_path / "short.npy", tmp_path / "std.npy")
    with pytest.raises(DataError, match="not found"):
        FeatureDenormalizer(tmp_path / "missing.npy", tmp_path / "std.npy")
    with pytest.raises(DataError, match="both"):
        FeatureDenormalizer(tmp_path / "mean.npy", None)
