"""Joint positions from HumanML3D 263-d features (layout in docs/motion.md).

Feature layout per frame: ``[0]`` root angular velocity about y, ``[1:3]`` root x/z velocity in the
root frame, ``[3]`` root height, ``[4:67]`` root-relative, facing-normalised positions of joints
1..21, then rotations, local velocities and foot contacts (not needed for positions).
Quaternions are ``(w, x, y, z)``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from ...errors import DataError
from ..load_limits import LoadLimits
from .loading import FEATURE_DIM, MotionDataWarning
from ..npyfile import load_npy_array

N_JOINTS = 22
STATISTIC_LIMITS = LoadLimits(max_bytes=2 ** 20)  # a 263-number vector is about 2 KB


def quaternion_inverse(q: np.ndarray) -> np.ndarray:
    """Inverse of unit quaternions ``q`` (..., 4): the conjugate ``(w, -x, -y, -z)``."""
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def quaternion_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v`` (..., 3) by unit quaternions ``q`` (..., 4): v + 2(w·u×v + u×(u×v))."""
    w, u = q[..., :1], q[..., 1:]
    uv = np.cross(u, v)
    return v + 2.0 * (w * uv + np.cross(u, uv))


def recover_root(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Root heading quaternions (..., T, 4) and root positions (..., T, 3) from features (..., T, 263)."""
    heading = np.zeros(features.shape[:-1])
    heading[..., 1:] = np.cumsum(features[..., :-1, 0], axis=-1)
    rotation = np.zeros(features.shape[:-1] + (4,))
    rotation[..., 0] = np.cos(heading)
    rotation[..., 2] = np.sin(heading)
    velocity = np.zeros(features.shape[:-1] + (3,))
    velocity[..., 1:, 0] = features[..., :-1, 1]
    velocity[..., 1:, 2] = features[..., :-1, 2]
    root = np.cumsum(quaternion_rotate(quaternion_inverse(rotation), velocity), axis=-2)
    root[..., 1] = features[..., 3]
    return rotation, root


def recover_from_ric(features: np.ndarray, n_joints: int = N_JOINTS) -> np.ndarray:
    """Joint positions (..., T, n_joints, 3) in metres, y up, from features (..., T, 263).

    The root comes from integrating the root velocities; joints 1..n_joints-1 are the "ric"
    offsets rotated back by the root heading and shifted by the root's x/z.
    """
    rotation, root = recover_root(features)
    offsets = features[..., 4:4 + (n_joints - 1) * 3]
    offsets = offsets.reshape(features.shape[:-1] + (n_joints - 1, 3))
    inverse = np.broadcast_to(quaternion_inverse(rotation)[..., None, :], offsets.shape[:-1] + (4,))
    joints = quaternion_rotate(inverse, offsets)
    joints[..., 0] += root[..., None, 0]
    joints[..., 2] += root[..., None, 2]
    return np.concatenate([root[..., None, :], joints], axis=-2)


class FeatureDenormalizer:
    """Undo z-scoring of 263-d features: ``x = x_norm · std + mean`` (files given by path).

    Without files the features are taken as already de-normalised, with a warning because metric
    scales (mm, m/s) are meaningless on normalised data.
    """

    def __init__(self, mean_path: str | Path | None = None, std_path: str | Path | None = None):
        if (mean_path is None) != (std_path is None):
            raise DataError("give both --mean and --std, or neither")
        self.mean_path, self.std_path = mean_path, std_path
        self.mean = None if mean_path is None else _load_statistic(mean_path)
        self.std = None if std_path is None else _load_statistic(std_path)
        if self.std is not None and not (self.std > 0).all():  # a zero collapses its feature onto the mean
            first = int(np.flatnonzero(~(self.std > 0))[0])
            raise DataError("the std of a feature is not positive", file=std_path, field=f"entry {first}",
                            expected="263 positive numbers", found=float(self.std[first]))

    def transform(self, features: np.ndarray) -> np.ndarray:
        """De-normalised copy of ``features`` (..., 263)."""
        if self.mean is None:
            warnings.warn("no --mean/--std given: features are assumed de-normalised; if they are "
                          "z-scored, metric scales in mm are meaningless", MotionDataWarning,
                          stacklevel=2)
            return features
        return features * self.std + self.mean


def _load_statistic(path: str | Path) -> np.ndarray:
    path = Path(path)
    if not path.is_file():
        raise DataError("normalisation file not found: expected a .npy with 263 numbers", file=path)
    values = load_npy_array(path, STATISTIC_LIMITS)
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if values.shape != (FEATURE_DIM,) or not np.isfinite(values).all():
        raise DataError("bad normalisation vector", file=path, expected=f"{FEATURE_DIM} finite numbers",
                        found=values.shape)
    return values


def motion_to_joints(motion: np.ndarray, denormalizer: FeatureDenormalizer | None = None) -> np.ndarray:
    """Joint positions (N, T, J, 3) from canonical features (N, T, 263) or joints (N, T, J, 3)."""
    if motion.ndim == 4:
        return motion
    features = motion if denormalizer is None else denormalizer.transform(motion)
    return recover_from_ric(features)
