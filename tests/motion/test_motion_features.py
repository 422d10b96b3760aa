"""Kinetic and geometric features against per-frame re-implementations of Bailando's code."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bailando_reference import (MANUAL_NEW_POINTS, MANUAL_POINTS, body_constants,
                                kinetic_features as reference_kinetic, manual_features)
from pipeline.errors import ConfigError
from pipeline.protocols.motion import (CONVENTIONS, geometric_features, kinetic_features,
                                       prepare_joints)
from pipeline.protocols.motion.features import GEOMETRIC_RELATIONS, JOINT_INDEX


def rest_pose(n_joints: int = 22) -> np.ndarray:
    """A standing T-pose-ish SMPL skeleton (J, 3), metres, y up, facing +z (J = 22 or 24)."""
    coords = {"root": (0, 0.9, 0), "lhip": (0.1, 0.85, 0), "rhip": (-0.1, 0.85, 0),
              "belly": (0, 1.0, 0), "lknee": (0.1, 0.5, 0), "rknee": (-0.1, 0.5, 0),
              "spine": (0, 1.15, 0), "lankle": (0.1, 0.08, 0), "rankle": (-0.1, 0.08, 0),
              "chest": (0, 1.3, 0), "ltoes": (0.1, 0.0, 0.12), "rtoes": (-0.1, 0.0, 0.12),
              "neck": (0, 1.5, 0), "linshoulder": (0.08, 1.45, 0), "rinshoulder": (-0.08, 1.45, 0),
              "head": (0, 1.65, 0), "lshoulder": (0.2, 1.45, 0), "rshoulder": (-0.2, 1.45, 0),
              "lelbow": (0.45, 1.45, 0), "relbow": (-0.45, 1.45, 0), "lwrist": (0.7, 1.45, 0),
              "rwrist": (-0.7, 1.45, 0)}
    pose = np.zeros((n_joints, 3))
    for name, xyz in coords.items():
        pose[JOINT_INDEX[name]] = xyz
    if n_joints == 24:
        pose[22], pose[23] = (0.8, 1.45, 0), (-0.8, 1.45, 0)  # hands beyond the wrists
    return pose


def dancing(seed: int, n_motions: int = 6, n_frames: int = 40, n_joints: int = 24) -> np.ndarray:
    """Seeded random motions (N, T, J, 3): the rest pose plus joint random walks of varied speed,
    a drifting root and a random heading, so every relation is exercised both ways."""
    rng = np.random.default_rng(seed)
    motions = []
    for scale in rng.uniform(0.002, 0.03, n_motions):
        walk = np.cumsum(rng.normal(0, scale, (n_frames, n_joints, 3)), axis=0)
        drift = np.cumsum(rng.normal(0, scale, (n_frames, 1, 3)), axis=0) * [1, 0.2, 1]
        angle = rng.uniform(0, 2 * np.pi)
        turn = np.array([[np.cos(angle), 0, np.sin(angle)], [0, 1, 0],
                         [-np.sin(angle), 0, np.cos(angle)]])
        motions.append((rest_pose(n_joints) + walk + drift) @ turn.T)
    return np.stack(motions)


def test_body_constants_are_bailandos():
    for name, points in (("corrected", MANUAL_POINTS), ("bailando", MANUAL_NEW_POINTS)):
        convention = CONVENTIONS[name]
        assert (convention.humerus, convention.shoulder_width, convention.hip_width) == \
            pytest.approx(body_constants(points), rel=1e-15)
    # the rounded values quoted in papers and issue threads
    assert CONVENTIONS["corrected"].humerus == pytest.approx(0.249323, abs=5e-7)
    assert CONVENTIONS["bailando"].humerus == pytest.approx(0.256838, abs=5e-7)
    assert CONVENTIONS["bailando"].hip_width == pytest.approx(0.119247, abs=5e-7)


@pytest.mark.parametrize("convention, bug", [("corrected", False), ("bailando", True)])
def test_kinetic_features_equal_bailandos_code(convention, bug):
    joints, lengths = prepare_joints(dancing(1), np.array([40, 33, 3, 40, 17, 25]))
    got = kinetic_features(joints, lengths, fps=60.0, convention=convention)
    assert got.shape == (6, 72)
    for motion, length, row in zip(joints, lengths, got):
        exact = reference_kinetic(motion[:length], bug=bug, as_float32=False)
        np.testing.assert_allclose(row, exact, rtol=1e-10)
        # Bailando stores float32: equal to its files to float32 precision
        stored = reference_kinetic(motion[:length], bug=bug)
        np.testing.assert_allclose(row.astype(np.float32), stored, rtol=2e-7)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 1000), lengths=st.lists(st.integers(2, 12), min_size=1, max_size=4))
def test_kinetic_features_match_the_loops_on_any_valid_lengths(seed, lengths):
    rng = np.random.default_rng(seed)
    joints = rng.normal(size=(len(lengths), 12, 3, 3))
    got = kinetic_features(joints, np.array(lengths), fps=30.0)
    for motion, length, row in zip(joints, lengths, got):
        np.testing.assert_allclose(row, reference_kinetic(motion[:length], dt=1 / 30,
                                                          as_float32=False), rtol=1e-10)


def test_bailando_acceleration_of_a_still_joint_is_proportional_to_its_position():
    # ((p − p)/Δ − (p − p/Δ))/Δ = p (1/Δ² − 1/Δ) in every window: EE = 3540 |p| at 60 fps
    joints = np.zeros((1, 10, 2, 3))
    joints[:, :, 1] = [0.3, 0.4, 0.0]  # still, 0.5 m from the (still) root
    corrected = kinetic_features(joints, np.array([10])).reshape(2, 3)
    bailando = kinetic_features(joints, np.array([10]), convention="bailando").reshape(2, 3)
    np.testing.assert_allclose(corrected, 0.0)
    np.testing.assert_allclose(bailando[:, :2], 0.0)
    assert bailando[1, 2] == pytest.approx(0.5 * (3600 - 60))
    assert bailando[0, 2] == 0.0


def test_kinetic_energy_of_uniform_motion_is_its_squared_speed():
    t = np.arange(30)[:, None, None]
    joints = np.concatenate([t * [0.01, 0.0, 0.0], t * [0.0, 0.02, 0.0]], axis=1)[None]  # 2 joints
    features = kinetic_features(joints, np.array([30]), fps=60.0).reshape(2, 3)
    np.testing.assert_allclose(features[0], [0.6 ** 2, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(features[1], [0.0, 1.2 ** 2, 0.0], atol=1e-9)


@pytest.mark.parametrize("n_joints", [22, 24])
@pytest.mark.parametrize("convention, points", [("corrected", MANUAL_POINTS),
                                                ("bailando", MANUAL_NEW_POINTS)])
def test_geometric_features_equal_bailandos_code(n_joints, convention, points):
    lengths = np.array([40, 31, 2, 40, 12, 26])
    joints, lengths = prepare_joints(dancing(2, n_joints=n_joints), lengths)
    got = geometric_features(joints, lengths, convention)
    assert got.shape == (6, 32)
    for motion, length, row in zip(joints, lengths, got):
        np.testing.assert_allclose(row, manual_features(motion[:length], points), rtol=1e-6)
    assert 0.05 < got.mean() < 0.95 and np.ptp(got, axis=0).max() > 0.5  # relations vary


def test_conventions_differ_where_they_should():
    joints, lengths = prepare_joints(dancing(3), np.full(6, 40))
    kinetic = [kinetic_features(joints, lengths, convention=c) for c in CONVENTIONS]
    np.testing.assert_array_equal(kinetic[0].reshape(6, 24, 3)[..., :2],
                                  kinetic[1].reshape(6, 24, 3)[..., :2])  # energies agree
    # the slip adds ~|p|/Δ² to the acceleration: energy expenditure grows several-fold
    assert np.all(kinetic[1].reshape(6, 24, 3)[..., 2] > 5 * kinetic[0].reshape(6, 24, 3)[..., 2])
    with pytest.raises(ConfigError, match="feature convention"):
        kinetic_features(joints, lengths, convention="edge")


def test_prepare_joints_centres_on_first_root_and_truncates():
    joints = np.random.default_rng(0).normal(size=(2, 50, 22, 3))
    centred, lengths = prepare_joints(joints, np.array([50, 20]), max_frames=30)
    assert centred.shape == (2, 30, 22, 3) and lengths.tolist() == [30, 20]
    np.testing.assert_allclose(centred[:, 0, 0], 0.0)
    np.testing.assert_allclose(centred[1, 5, 7], joints[1, 5, 7] - joints[1, 0, 0])


def test_static_pose_has_no_motion_relations_and_32_fractions():
    joints = np.tile(rest_pose(), (1, 40, 1, 1))
    features = geometric_features(joints, np.array([40]))[0]
    assert features.shape == (32,)
    assert np.all((features >= 0) & (features <= 1))
    moving = [i for i, (kind, *_) in enumerate(GEOMETRIC_RELATIONS)
              if kind in ("fast", "move", "nmove")]
    assert len(moving) == 12
    np.testing.assert_array_equal(features[moving], 0.0)
    # straight arms (180°) are outside (0, 110); an upright trunk is not horizontal (70°–110° to y)
    assert features[6] == 0 and features[7] == 0 and features[28] == 0
    lying = np.tile(rest_pose()[:, [1, 0, 2]], (1, 3, 1, 1))  # swap x and y: trunk horizontal
    assert geometric_features(lying, np.array([3]))[0, 28] == 1
    # both feet are on the floor: ankles are not 1.2 humerus above the lowest point
    assert features[16] == 0 and features[17] == 0


def test_fast_root_counts_only_valid_frames():
    rest = rest_pose()
    joints = np.tile(rest, (2, 21, 1, 1))
    joints[:, :, :, 0] += np.arange(21)[None, :, None] * 0.001  # 0.12 m/s at Δ₀ = 1/120: slow
    joints[1, :, :, 0] = rest[:, 0] + np.arange(21)[:, None] * 0.1  # 12 m/s: fast
    joints[1, 11:, :, 0] = joints[1, 10, :, 0]  # stops after frame 10
    features = geometric_features(joints, np.array([21, 11]))
    assert features[0, 31] == 0.0
    np.testing.assert_allclose(features[1, 31], 1.0)  # every valid step (1..10) moved fast
    full = geometric_features(joints, np.array([21, 21]))
    np.testing.assert_allclose(full[1, 31], 10 / 20)
