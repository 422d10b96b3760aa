"""Beat alignment between music and dance.

Music beats come from ``librosa.beat.beat_track``; kinematic (dance) beats are local minima of the
joint speed, in one of three published variants. Scores use a Gaussian tolerance σ (seconds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import gaussian_filter1d
from scipy.signal import argrelextrema, savgol_filter

from ...errors import ConfigError
from .loading import Audio

KINEMATIC_VARIANTS = ("closd", "bailando", "fact")
SAVGOL_WINDOW, SAVGOL_ORDER = 15, 2
DEFAULT_BEAT_SIGMA = 0.08  # s, the original script's default (Bailando/FACT use 3 frames = 0.05)

ONSET_CHUNK = 32  # clips per batched onset-strength call (bounds the spectrogram memory)


def music_beat_times(waveform: np.ndarray, sample_rate: int) -> np.ndarray:
    """Beat times (s) of one clip from ``librosa.beat.beat_track`` with its defaults (hop 512)."""
    return music_beat_times_batch([Audio(np.asarray(waveform), int(sample_rate))])[0]


def music_beat_times_batch(clips: list) -> list:
    """Beat times (s) for each :class:`Audio` in ``clips`` (None stays None).

    Same result as ``librosa.beat.beat_track(y=clip, sr=sr)`` per clip: that call is the median-
    aggregated onset strength followed by the beat tracker, so clips of equal length and rate share
    one batched onset-strength computation (about 6x less CPU than one call per clip).
    """
    import librosa  # heavy import, needed only when audio is present

    beats = [None] * len(clips)
    groups: dict[tuple[int, int], list[int]] = {}
    for index, clip in enumerate(clips):
        if clip is not None:
            groups.setdefault((clip.sample_rate, clip.waveform.size), []).append(index)
    for (rate, _), members in groups.items():
        for start in range(0, len(members), ONSET_CHUNK):
            chunk = members[start:start + ONSET_CHUNK]
            stacked = np.stack([clips[i].waveform for i in chunk]).astype(np.float32)
            envelopes = librosa.onset.onset_strength(y=stacked, sr=rate, aggregate=np.median)
            for i, envelope in zip(chunk, envelopes):
                _, frames = librosa.beat.beat_track(onset_envelope=envelope, sr=rate)
                beats[i] = librosa.frames_to_time(frames, sr=rate)
    return beats


def compile_beat_tracking() -> None:
    """Have librosa compile the Numba kernels of beat tracking and cache them in its installation:
    about 45 s of CPU on the first call after an install, seconds afterwards. ``make setup`` runs it
    once, so that no evaluation (and no test) pays it."""
    noise = np.random.default_rng(0).standard_normal(3 * 22050).astype(np.float32)  # beats found: every kernel runs
    music_beat_times(noise, 22050)


def joint_speed(joints: np.ndarray, fps: float, variant: str) -> np.ndarray:
    """Speed signal (L−1,) of one motion's joints (L, J, 3) as the variant defines it."""
    step = np.linalg.norm(np.diff(joints, axis=0), axis=-1)
    if variant == "closd":
        return step.mean(axis=1) * fps
    if variant == "bailando":
        return step.mean(axis=1)
    if variant == "fact":
        return step.sum(axis=1)
    raise ConfigError("unknown kinematic beat variant", field="kinematic",
                      expected=KINEMATIC_VARIANTS, found=variant)


def kinematic_beat_times(joints: np.ndarray, fps: float = 60.0, variant: str = "closd",
                         smooth: bool = False) -> np.ndarray:
    """Dance beat times (s): local minima of the joint speed of one motion (L, J, 3).

    * closd: mean joint speed in m/s, minima of order 2; ``smooth`` applies Savitzky–Golay
      (window 15, order 2, only when >= 15 samples) and uses order 6;
    * bailando: mean per-frame displacement, Gaussian-smoothed (σ = 5 frames), order 1;
    * fact: summed per-frame displacement, order 10.
    """
    speed = joint_speed(joints, fps, variant)
    order = 2
    if variant == "closd" and smooth and speed.size >= SAVGOL_WINDOW:
        speed, order = savgol_filter(speed, SAVGOL_WINDOW, SAVGOL_ORDER), 6
    elif variant == "bailando":
        speed, order = gaussian_filter1d(speed, 5), 1
    elif variant == "fact":
        order = 10
    return argrelextrema(speed, np.less, order=order)[0] / fps


@dataclass(frozen=True)
class BeatScores:
    """Per-motion beat alignment: precision over dance beats, recall over music beats, F1."""

    precision: float
    recall: float
    f1: float


def nearest_gaps(times: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Distance from each of ``times`` to its nearest target (non-empty), in O((n + m) log m)
    memory-light steps instead of an n × m table."""
    targets = np.sort(targets)
    after = np.clip(np.searchsorted(targets, times), 0, targets.size - 1)
    before = np.clip(after - 1, 0, targets.size - 1)
    return np.minimum(np.abs(times - targets[before]), np.abs(times - targets[after]))


def _nearest_match(times: np.ndarray, targets: np.ndarray, sigma: float) -> float:
    """Mean over ``times`` of exp(−min_target (t − target)² / 2σ²)."""
    gaps = nearest_gaps(times, targets)
    return float(np.mean(np.exp(-gaps ** 2 / (2.0 * sigma ** 2))))


def beat_alignment(dance_times: np.ndarray, music_times: np.ndarray,
                   sigma: float = DEFAULT_BEAT_SIGMA) -> BeatScores:
    """Score dance beats against music beats (seconds); all zero when either set is empty."""
    if sigma <= 0:
        raise ConfigError("beat sigma must be positive", field="beat_sigma", found=sigma)
    dance_times, music_times = np.asarray(dance_times, float), np.asarray(music_times, float)
    if dance_times.size == 0 or music_times.size == 0:
        return BeatScores(0.0, 0.0, 0.0)
    precision = _nearest_match(dance_times, music_times, sigma)
    recall = _nearest_match(music_times, dance_times, sigma)
    total = precision + recall
    return BeatScores(precision, recall, 2 * precision * recall / total if total > 0 else 0.0)
