"""Windowed per-sample dataset over driving sequences, and a synthetic driving-like generator.

Samples are rows of a table ordered by sequence and, inside a sequence, by time. The model input
for sample ``i`` is the window of the ``window`` samples of the same sequence that end at ``i``;
the first samples of a sequence, which lack history, repeat the sequence's first row on the left.
So every sample (also of a sequence shorter than the window) gets exactly one prediction and no
window ever mixes two sequences. Features stored as ready-made windows ``(N, window, C)`` are used
as they are.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch.utils.data import Dataset, Subset

from ...errors import DataError
from .checks import positive_int
from .models import WINDOW_LENGTH
from .split import SPLIT_NAMES, SequenceSplit, validate_split

FEATURE_NAMES = ("speed", "curvature", "lateral_accel", "yaw_rate", "steering_angle")


@dataclasses.dataclass(frozen=True)
class DrivingSamples:
    """Per-sample arrays: ``features (N, C)`` float32 (or ready-made windows ``(N, window, C)``),
    ``targets (N,)`` float32, ``sequence_ids (N,)`` str."""

    features: np.ndarray
    targets: np.ndarray
    sequence_ids: np.ndarray


def sequence_starts(sequence_ids: np.ndarray) -> np.ndarray:
    """For each sample the position of its sequence's first sample; each sequence must be contiguous."""
    ids = np.asarray(sequence_ids).astype(str)
    boundary = np.r_[True, ids[1:] != ids[:-1]]
    block_ids = ids[boundary]
    if len(set(block_ids.tolist())) != block_ids.size:
        raise DataError("samples of a sequence must be contiguous (ordered by sequence, then time)",
                        field="sequence_id", found="a sequence id that reappears after another one")
    first = np.flatnonzero(boundary)
    return first[np.cumsum(boundary) - 1]


class SequenceWindowDataset(Dataset):
    """A PyTorch dataset of ``(X, y)`` or ``(X, y, seq_id)`` per sample.

    ``X`` is a float32 tensor ``(window, C)``, ``y`` a float32 scalar tensor and ``seq_id`` the
    sequence id string. The plain dataset yields pairs, so existing ``for X, y in loader`` loops
    keep working; :meth:`with_sequence_ids` returns a view yielding triples (a DataLoader collates
    the ids into a list of strings).
    """

    def __init__(self, samples: DrivingSamples, window: int = WINDOW_LENGTH,
                 return_sequence_id: bool = False):
        features = np.asarray(samples.features, dtype=np.float32)
        targets = np.asarray(samples.targets, dtype=np.float32)
        if features.ndim not in (2, 3) or targets.shape != (features.shape[0],) or \
                len(samples.sequence_ids) != features.shape[0]:
            raise DataError("features (N, C) or (N, window, C), targets (N,) and sequence_ids (N,) must align",
                            found=f"{features.shape}, {targets.shape}, {len(samples.sequence_ids)}")
        if features.ndim == 3 and features.shape[1] != window:
            raise DataError("ready-made windows have the wrong length", field="features",
                            expected=f"(N, {window}, C)", found=str(features.shape))
        self.samples = samples
        self.window = window
        self.return_sequence_id = return_sequence_id
        self._features = torch.from_numpy(features)
        self._targets = torch.from_numpy(targets)
        self._sequence_ids = np.asarray(samples.sequence_ids).astype(str)
        self._starts = sequence_starts(self._sequence_ids)
        self._offsets = np.arange(-window + 1, 1)

    def __len__(self) -> int:
        return self._targets.shape[0]

    def window_indices(self, indices: np.ndarray) -> np.ndarray:
        """Row positions ``(k, window)`` forming the windows of samples ``indices`` ``(k,)``."""
        indices = np.asarray(indices, dtype=np.int64)
        return np.maximum(indices[:, None] + self._offsets, self._starts[indices][:, None])

    def windows(self, indices: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """Batched ``X (k, window, C)`` and ``y (k,)`` for samples ``indices``: one gather, no loop.

        Ready-made windows (features ``(N, window, C)``) are taken as they are.
        """
        targets = self._targets[torch.as_tensor(np.asarray(indices))]
        if self._features.ndim == 3:
            return self._features[torch.as_tensor(np.asarray(indices))], targets
        return self._features[torch.from_numpy(self.window_indices(indices))], targets

    def __getitem__(self, index: int):
        x, y = self.windows(np.array([index]))
        if self.return_sequence_id:
            return x[0], y[0], str(self._sequence_ids[index])
        return x[0], y[0]

    def with_sequence_ids(self) -> "SequenceWindowDataset":
        """The same samples, yielding ``(X, y, seq_id)``."""
        return SequenceWindowDataset(self.samples, self.window, return_sequence_id=True)

    @property
    def sequence_ids(self) -> np.ndarray:
        return self._sequence_ids


def split_subsets(dataset: SequenceWindowDataset, split: SequenceSplit) -> dict[str, Subset]:
    """``{"train", "val", "test"}`` -> ``torch.utils.data.Subset`` after validating the split."""
    indices = validate_split(split, dataset.sequence_ids)
    return {name: Subset(dataset, indices[name].tolist()) for name in SPLIT_NAMES}


def _ar1(rng: np.random.Generator, length: int, phi: float, scale: float) -> np.ndarray:
    """A stationary AR(1) path of ``length`` steps with innovation std ``scale``."""
    noise = rng.normal(0.0, scale, length)
    path = np.empty(length)
    path[0] = noise[0] / np.sqrt(1 - phi ** 2)
    for t in range(1, length):
        path[t] = phi * path[t - 1] + noise[t]
    return path


def _one_sequence(rng: np.random.Generator, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Features ``(length, 5)`` and torque ``(length,)`` of one 10 Hz drive."""
    speed = np.clip(rng.uniform(8, 30) + np.cumsum(_ar1(rng, length, 0.95, 0.05)), 2, 40)
    curvature = _ar1(rng, length, 0.98, 4e-4)                       # 1/m, gentle curves
    lateral_accel = speed ** 2 * curvature
    yaw_rate = speed * curvature
    steering_angle = 2.7 * curvature * 15 + _ar1(rng, length, 0.9, 0.002)
    driver_bias = rng.normal(0, 0.1)                                # per-drive habit: sequences differ
    steer_rate = np.r_[0.0, np.diff(steering_angle)] * 10
    torque = np.tanh(0.5 * lateral_accel + 0.8 * steer_rate + driver_bias
                     + rng.normal(0, 0.03, length))
    features = np.column_stack([speed / 20, curvature * 500, lateral_accel, yaw_rate * 5,
                                steering_angle * 10])
    return features.astype(np.float32), np.clip(torque, -1, 1).astype(np.float32)


def make_driving_sequences(n_sequences: int, length: int = 600, seed: int = 0,
                           length_jitter: float = 0.2) -> DrivingSamples:
    """Synthetic 10 Hz driving-like sequences with a smooth, autocorrelated torque in [-1, 1].

    Speed, road curvature and steering noise are AR(1) processes; lateral acceleration and yaw
    rate follow from them; the torque responds to lateral acceleration and steering rate plus a
    per-sequence driver bias. Lengths vary uniformly by ``±length_jitter``. Ids are ``seq0000``...
    """
    positive_int(n_sequences, "n_sequences")
    positive_int(length, "length")
    rng = np.random.default_rng(seed)
    lengths = np.maximum(1, np.round(length * rng.uniform(1 - length_jitter, 1 + length_jitter,
                                                          n_sequences))).astype(int)
    parts = [_one_sequence(rng, int(n)) for n in lengths]
    width = len(str(n_sequences - 1))
    ids = np.repeat([f"seq{i:0{max(4, width)}d}" for i in range(n_sequences)], lengths)
    return DrivingSamples(features=np.concatenate([p[0] for p in parts]),
                          targets=np.concatenate([p[1] for p in parts]), sequence_ids=ids)


