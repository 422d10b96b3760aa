"""Beat alignment: click tracks synthesised with librosa, motions with planted beats."""

from __future__ import annotations

import librosa
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import ConfigError
from pipeline.protocols.motion import beat_alignment, kinematic_beat_times, music_beat_times
from pipeline.protocols.motion.beats import music_beat_times_batch, nearest_gaps
from pipeline.protocols.motion.evaluate import EvalSettings, score_motion_beats
from pipeline.protocols.motion.loading import Audio

FPS = 60
SAMPLE_RATE = 60 * 512  # one librosa frame per motion frame
N_FRAMES = 300           # 5 s
CLICK_FRAMES = np.arange(15, N_FRAMES, 30)  # 120 bpm


@pytest.fixture(scope="module")
def click_track() -> Audio:
    samples = int(N_FRAMES / FPS * SAMPLE_RATE)
    return Audio(librosa.clicks(times=CLICK_FRAMES / FPS, sr=SAMPLE_RATE, length=samples), SAMPLE_RATE)


def dancing_body(beat_frames: np.ndarray, n_frames: int = N_FRAMES) -> np.ndarray:
    """Joints (T, 22, 3) translating with a speed whose strict local minima are ``beat_frames``.

    Step t (frame t → t+1) has length 1.2 − cos(2π (t − b)/30) around the beats (maxima of 2.2
    half-way between them) and ramps monotonically away from 2.2 outside, so the only strict
    minima of the speed (index t → time t / fps) are the beats.
    """
    t = np.arange(n_frames - 1)
    lo, hi = beat_frames.min() - 15, beat_frames.max() + 15
    steps = 2.2 + 0.01 * np.where(t < lo, lo - t, t - hi + 1)
    around = (t >= lo) & (t < hi)
    steps[around] = 1.2 - np.cos(2 * np.pi * (t[around] - beat_frames[0]) / 30)
    x = np.concatenate([[0.0], np.cumsum(steps * 0.01)])
    joints = np.zeros((n_frames, 22, 3))
    joints[:, :, 0] = x[:, None]
    joints[:, :, 1] = np.linspace(0, 1.7, 22)
    return joints


def test_music_beats_of_a_click_track_fall_on_the_clicks(click_track):
    beats = music_beat_times(click_track.waveform, click_track.sample_rate)
    assert len(beats) >= len(CLICK_FRAMES) - 2
    # librosa's onset envelope lags a click by at most one frame (1/60 s)
    gaps = np.min(np.abs(beats[:, None] - CLICK_FRAMES[None, :] / FPS), axis=1)
    assert gaps.max() <= 1 / FPS + 1e-9


def test_kinematic_beats_are_the_planted_speed_minima():
    planted = CLICK_FRAMES[1:-1]
    np.testing.assert_allclose(kinematic_beat_times(dancing_body(planted), FPS, "closd"), planted / FPS)
    np.testing.assert_allclose(kinematic_beat_times(dancing_body(planted), FPS, "fact"), planted / FPS)
    smoothed = kinematic_beat_times(dancing_body(planted), FPS, "closd", smooth=True)
    np.testing.assert_allclose(smoothed, planted / FPS, atol=1 / FPS)
    bailando = kinematic_beat_times(dancing_body(planted), FPS, "bailando")
    assert np.all(np.min(np.abs(bailando[:, None] - planted / FPS), axis=1) <= 2 / FPS)


def test_motion_on_the_click_beats_scores_about_one_and_shifted_motion_less(click_track):
    settings = EvalSettings(beat_sigma=0.05)
    music = music_beat_times(click_track.waveform, click_track.sample_rate)
    on_beat = score_motion_beats(dancing_body(CLICK_FRAMES[1:-1]), music, settings)
    shifted = score_motion_beats(dancing_body(CLICK_FRAMES[1:-1] + 9), music, settings)
    # exact placement up to librosa's one-frame lag: exp(−(1/60)² / (2·0.05²)) = 0.946
    assert on_beat.precision >= 0.94
    assert on_beat.f1 >= 0.85
    assert shifted.precision < 0.1 and shifted.recall < 0.1


def test_batched_music_beats_equal_one_beat_track_call_per_clip(click_track):
    rng = np.random.default_rng(0)
    noisy = [Audio(click_track.waveform + rng.normal(0, 0.05, click_track.waveform.size), SAMPLE_RATE)
             for _ in range(3)]
    shorter = Audio(click_track.waveform[: SAMPLE_RATE * 3], SAMPLE_RATE)
    clips = [noisy[0], None, shorter, noisy[1], noisy[2]]
    batched = music_beat_times_batch(clips)
    assert batched[1] is None
    for clip, times in zip(clips, batched):
        if clip is not None:
            _, frames = librosa.beat.beat_track(y=clip.waveform.astype(np.float32), sr=clip.sample_rate)
            np.testing.assert_allclose(times, librosa.frames_to_time(frames, sr=clip.sample_rate))


def test_scores_with_known_answers():
    assert beat_alignment(np.array([1.0, 2.0]), np.array([1.0, 2.0])).f1 == pytest.approx(1.0)
    scores = beat_alignment(np.array([1.0]), np.array([1.0, 1.1]), sigma=0.1)
    assert scores.precision == pytest.approx(1.0)
    assert scores.recall == pytest.approx((1 + np.exp(-0.5)) / 2)
    assert scores.f1 == pytest.approx(2 * scores.precision * scores.recall / (scores.precision + scores.recall))
    assert beat_alignment(np.array([]), np.array([1.0])) == beat_alignment(np.array([1.0]), np.array([]))
    assert beat_alignment(np.array([]), np.array([1.0])).f1 == 0.0
    with pytest.raises(ConfigError, match="positive"):
        beat_alignment(np.array([1.0]), np.array([1.0]), sigma=0.0)
    with pytest.raises(ConfigError, match="variant"):
        kinematic_beat_times(np.zeros((10, 22, 3)), FPS, "edge")


times = st.lists(st.floats(-100, 100), min_size=1, max_size=30).map(np.array)


@settings(max_examples=100, deadline=None)
@given(points=times, targets=times)
def test_nearest_gaps_equal_the_brute_force_minimum(points, targets):
    expected = np.min(np.abs(points[:, None] - targets[None, :]), axis=1)
    np.testing.assert_array_equal(nearest_gaps(points, targets), expected)
