"""Foot / ground metrics on bodies placed at known heights."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.protocols.motion import (floating_mm, foot_sliding_per_step_mm, foot_sliding_total_mm,
                                       penetration_mm, physical_foot_contact, skating_ratio)


def standing_body(n_frames=40, lift=0.0, slide_per_frame=0.0):
    """Joints (1, T, 22, 3): feet (7, 8, 10, 11) at y = lift, the rest above; the body moves in x."""
    joints = np.zeros((n_frames, 22, 3))
    joints[:, :, 1] = np.linspace(0.3, 1.7, 22) + lift
    joints[:, [7, 8, 10, 11], 1] = lift
    joints[:, :, 0] = np.arange(22) * 0.05 + np.arange(n_frames)[:, None] * slide_per_frame
    return joints[None]


def test_sliding_body_skates_and_static_body_does_not():
    sliding = standing_body(slide_per_frame=0.05)
    assert skating_ratio(sliding, fps=20.0)[0] == pytest.approx(1.0)
    assert skating_ratio(standing_body(), fps=20.0)[0] == 0.0
    # at the true 60 fps the same slide is 3 m/s: still skating; at 5 fps 0.25 m/s is not
    assert skating_ratio(sliding, fps=60.0)[0] == pytest.approx(1.0)
    assert skating_ratio(sliding, fps=5.0)[0] == 0.0
    assert penetration_mm(sliding, np.array([40])) == 0.0
    assert floating_mm(sliding, np.array([40])) == 0.0
    # the original script clamps lengths to T − 1: a 40-frame motion counts 38 steps of 50 mm
    assert foot_sliding_total_mm(sliding, np.array([40])) == pytest.approx(38 * 50.0)
    assert foot_sliding_per_step_mm(sliding, np.array([40])) == pytest.approx(50.0)


def test_skating_ratio_divides_by_the_padded_length():
    joints = standing_body(n_frames=21, slide_per_frame=0.05)
    joints[0, 11:, :, 1] += 0.2  # lifted after frame 10: steps 0..9 in contact
    assert skating_ratio(joints, fps=20.0)[0] == pytest.approx(10 / 20)


def test_lifted_and_sunk_bodies():
    lengths = np.array([40])
    assert floating_mm(standing_body(lift=0.1), lengths) == pytest.approx(95.0)
    assert penetration_mm(standing_body(lift=0.1), lengths) == 0.0
    assert penetration_mm(standing_body(lift=-0.02), lengths) == pytest.approx(15.0)
    assert floating_mm(standing_body(lift=-0.02), lengths) == 0.0
    # within the ±5 mm tolerance nothing counts
    assert penetration_mm(standing_body(lift=-0.004), lengths) == 0.0


def test_pooling_uses_only_valid_frames():
    joints = np.concatenate([standing_body(lift=0.1), standing_body(lift=0.1)])
    joints[1, 10:, :, 1] += 5.0  # padding frames far above the floor must not count
    assert floating_mm(joints, np.array([40, 10])) == pytest.approx(95.0)
    sliding = standing_body(slide_per_frame=0.05)
    sliding[0, 20:, :, 0] += 7.0  # a jump in the padding
    assert foot_sliding_total_mm(sliding, np.array([20])) == pytest.approx(19 * 50.0)
    assert foot_sliding_per_step_mm(sliding, np.array([20])) == pytest.approx(50.0)


def test_sliding_counts_only_steps_where_the_lowest_joint_stays_down():
    joints = standing_body(n_frames=11, slide_per_frame=0.01)
    joints[0, 5:, :, 1] += 0.1  # the body leaves the floor at frame 5
    # steps 0..3 slide 10 mm each; steps 4..8 are airborne; step 9 is cut by the T − 1 clamp
    assert foot_sliding_total_mm(joints, np.array([11])) == pytest.approx(40.0)
    assert foot_sliding_per_step_mm(joints, np.array([11])) == pytest.approx(40.0 / 9)


def test_total_sliding_is_the_mean_over_motions_of_each_motions_sum():
    joints = np.concatenate([standing_body(n_frames=21, slide_per_frame=0.01),
                             standing_body(n_frames=21, slide_per_frame=0.03)])
    lengths = np.array([21, 11])  # 19 and 10 counted steps
    assert foot_sliding_total_mm(joints, lengths) == pytest.approx((19 * 10 + 10 * 30) / 2)
    assert foot_sliding_per_step_mm(joints, lengths) == pytest.approx((19 * 10 + 10 * 30) / 29)


def test_foot_sliding_equals_the_original_loop():
    """Against a transcription of the original per-step loop (lowest joint at t, both heights
    within 5 mm), run on lengths clamped to T − 1 as the original script does."""
    rng = np.random.default_rng(0)
    joints = standing_body(n_frames=30, slide_per_frame=0.004).repeat(4, axis=0)
    joints[..., 1] += rng.uniform(-0.006, 0.004, joints.shape[:3])
    joints[..., [0, 2]] += rng.normal(0, 0.002, joints.shape[:3] + (2,))
    lengths = np.array([30, 29, 12, 2])
    slides = []
    for motion, length in zip(joints, np.minimum(lengths, 29)):
        for t in range(length - 1):
            j = np.argmin(motion[t, :, 1])
            grounded = motion[t, j, 1] <= 0.005 and motion[t + 1, j, 1] <= 0.005
            slides.append(np.linalg.norm(motion[t + 1, j, [0, 2]] - motion[t, j, [0, 2]]) * 1000
                          if grounded else 0.0)
    assert foot_sliding_per_step_mm(joints, lengths) == pytest.approx(np.mean(slides), rel=1e-12)
    assert 0 < np.mean(slides) < 10


def test_pfc_is_zero_for_static_feet_and_positive_for_sliding_feet_under_acceleration():
    static = standing_body()
    assert physical_foot_contact(static, np.array([40])) == 0.0
    joints = standing_body()
    t = np.arange(40)
    joints[0, :, :, 0] += (0.001 * t ** 2)[:, None]  # accelerating root and feet
    expected = np.mean((0.001 * (2 * t[1:-1] + 1)) ** 2) * 10_000  # both sides slide, |a|/max = 1
    assert physical_foot_contact(joints, np.array([40])) == pytest.approx(expected)
