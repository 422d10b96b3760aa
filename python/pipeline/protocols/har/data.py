"""The HAR data contract: windows ``(N, 120, 6)``, one label per window, activity names, a name.

Channels are accelerometer x, y, z then gyroscope x, y, z at 20 Hz (``docs/har.md``, "Inputs").
Local class index ``k`` is ``activity_names[k]`` with ``activity_names`` sorted, so every model and
every file agrees on what class 3 means.
"""

from __future__ import annotations

import difflib

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ...data.folds import max_feature_magnitude
from ...errors import DataError
from ...names import validate_name
from .files import read_npz

WINDOW_LENGTH = 120
N_CHANNELS = 6
SAMPLING_RATE_HZ = 20


@dataclass(frozen=True, eq=False)
class HarDataset:
    """A validated HAR evaluation dataset.

    Attributes
    ----------
    name : str
        Safe dataset name (used in output file names).
    windows : ndarray of float64, shape (N, 120, 6)
        Sensor windows, finite values only.
    labels : ndarray of int64, shape (N,)
        Local class index of each window, ``0 <= labels < len(activity_names)``.
    activity_names : tuple of str, length C
        Sorted, unique activity names; every one occurs in at least two windows.
    step_labels : ndarray of int64, shape (N, 120), optional
        Per-time-step class indices (LiMU-BERT layout), used by the GRU sub-window classifier.
        When absent every step carries its window's label.
    source : str
        Where the data came from, for error messages.
    """

    name: str
    windows: np.ndarray
    labels: np.ndarray
    activity_names: tuple[str, ...]
    step_labels: np.ndarray | None = None
    source: str = field(default="<memory>")

    def __post_init__(self) -> None:
        validate_name(self.name, "dataset")
        object.__setattr__(self, "windows", _check_windows(self.windows, self.source))
        object.__setattr__(self, "activity_names", _check_activity_names(self.activity_names, self.source))
        object.__setattr__(self, "labels", _check_labels(self.labels, len(self.windows),
                                                         self.activity_names, self.source))
        if self.step_labels is not None:
            object.__setattr__(self, "step_labels", _check_step_labels(
                self.step_labels, len(self.windows), len(self.activity_names), self.source))

    @property
    def n_windows(self) -> int:
        return int(self.windows.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.activity_names)

    def per_step_labels(self) -> np.ndarray:
        """Return per-step class indices ``(N, 120)`` (the window label repeated when not given)."""
        if self.step_labels is not None:
            return self.step_labels
        return np.repeat(self.labels[:, None], WINDOW_LENGTH, axis=1)

    def content_hash(self) -> str:
        """SHA-256 of windows, labels and activity names: the embedding-cache key of this data."""
        digest = hashlib.sha256()
        digest.update(repr((self.windows.shape, self.activity_names)).encode())
        digest.update(np.ascontiguousarray(self.windows, dtype="<f8").tobytes())
        digest.update(np.ascontiguousarray(self.labels, dtype="<i8").tobytes())
        return digest.hexdigest()


def _check_windows(windows: object, source: str) -> np.ndarray:
    array = np.asarray(windows)
    expected = f"(N, {WINDOW_LENGTH}, {N_CHANNELS})"
    if array.ndim != 3 or array.shape[1:] != (WINDOW_LENGTH, N_CHANNELS) or array.shape[0] == 0:
        raise DataError("windows have the wrong shape (channels: acc x,y,z then gyro x,y,z)",
                        file=source, field="windows", expected=expected, found=array.shape)
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise DataError("windows must be real numbers", file=source, field="windows",
                        expected="float", found=array.dtype)
    array = array.astype(np.float64)
    bad = ~np.isfinite(array).all(axis=(1, 2))
    if bad.any():
        raise DataError("windows contain NaN or infinite values", file=source, field="windows",
                        expected="finite values", found=f"{int(bad.sum())} bad windows, first at index "
                                                        f"{int(np.flatnonzero(bad)[0])}")
    limit = max_feature_magnitude(WINDOW_LENGTH * N_CHANNELS)
    if np.abs(array).max() > limit:  # the embedders' distances and products over a window would overflow
        raise DataError("window values too large", file=source, field="windows",
                        expected=f"|x| <= {limit:.6g} = sqrt(realmax / (8 D)) for D = {WINDOW_LENGTH * N_CHANNELS}",
                        found=f"{float(np.abs(array).max())!r}")
    return array


def _check_activity_names(names: Sequence[str], source: str) -> tuple[str, ...]:
    names = tuple(str(n) for n in names)
    if not names or list(names) != sorted(set(names)):
        raise DataError("activity names must be unique and sorted (class k = sorted(names)[k])",
                        file=source, field="activity_names", expected="sorted unique names",
                        found=list(names))
    return names


def _check_labels(labels: object, n_windows: int, names: tuple[str, ...], source: str) -> np.ndarray:
    array = np.asarray(labels)
    if array.shape != (n_windows,):
        raise DataError("one label per window is required", file=source, field="labels",
                        expected=(n_windows,), found=array.shape)
    if not np.issubdtype(array.dtype, np.integer):
        raise DataError("labels must be integer class indices", file=source, field="labels",
                        expected="integers", found=array.dtype)
    outside = (array < 0) | (array >= len(names))
    if outside.any():
        raise DataError("labels are not in the activity-name table", file=source, field="labels",
                        expected=f"0..{len(names) - 1}", found=sorted(set(array[outside].tolist()))[:5])
    counts = np.bincount(array, minlength=len(names))
    thin = [names[k] for k in np.flatnonzero(counts < 2)]
    if thin:
        raise DataError("every activity needs at least 2 windows to appear in a split",
                        file=source, field="labels", expected=">= 2 windows per activity",
                        found={name: int(counts[names.index(name)]) for name in thin})
    return array.astype(np.int64)


def _check_step_labels(step_labels: object, n_windows: int, n_classes: int, source: str) -> np.ndarray:
    array = np.asarray(step_labels)
    if array.shape != (n_windows, WINDOW_LENGTH) or not np.issubdtype(array.dtype, np.integer):
        raise DataError("step labels must be integer class indices per time step", file=source,
                        field="step_labels", expected=f"int ({n_windows}, {WINDOW_LENGTH})",
                        found=f"{array.dtype} {array.shape}")
    if ((array < 0) | (array >= n_classes)).any():
        raise DataError("step labels are not in the activity-name table", file=source,
                        field="step_labels", expected=f"0..{n_classes - 1}")
    return array.astype(np.int64)


def window_labels_from_steps(step_labels: np.ndarray, n_classes: int, label_index: int = 0,
                             source: str = "<memory>") -> tuple[np.ndarray, np.ndarray]:
    """Majority-vote window labels from LiMU-BERT per-step labels.

    The activity column minus its dataset-wide minimum is the class index of each step; a
    window's label is the most frequent class among its 120 steps, ties going to the smallest.

    Parameters
    ----------
    step_labels : ndarray of int, shape (N, 120, L)
        Per-step labels; the activity is column ``label_index``.
    n_classes : int
        Number of activity names; shifted step labels must lie in ``0..n_classes-1``.

    Returns
    -------
    window_labels : ndarray of int64, shape (N,)
    steps : ndarray of int64, shape (N, 120)
        The activity column with the dataset minimum subtracted.
    """
    array = np.asarray(step_labels)
    if (array.ndim != 3 or array.shape[0] == 0 or array.shape[1] != WINDOW_LENGTH
            or not 0 <= label_index < array.shape[2] or not np.issubdtype(array.dtype, np.integer)):
        raise DataError("per-step labels must be integers (N, 120, L) with the activity in column label_index",
                        file=source, field="labels", expected=f"int (N >= 1, {WINDOW_LENGTH}, L > {label_index})",
                        found=f"{array.dtype} {array.shape}")
    steps = array[:, :, label_index].astype(np.int64)
    steps -= steps.min()
    if steps.max() >= n_classes:
        raise DataError("per-step labels span more classes than there are activity names", file=source,
                        field="labels", expected=f"at most {n_classes} distinct consecutive values",
                        found=f"values 0..{int(steps.max())} after subtracting the minimum")
    row_offsets = np.arange(len(steps))[:, None] * n_classes
    counts = np.bincount((steps + row_offsets).ravel(), minlength=len(steps) * n_classes)
    return counts.reshape(len(steps), n_classes).argmax(axis=1), steps


def dataset_from_names(name: str, windows: np.ndarray, label_names: Sequence[str],
                       activity_names: Sequence[str] | None = None, source: str = "<memory>") -> HarDataset:
    """Build a :class:`HarDataset` from one activity name per window.

    ``activity_names`` defaults to the sorted distinct names; a window label that is not in the
    given table is an error.
    """
    label_names = [str(n) for n in label_names]
    table = sorted(set(label_names)) if activity_names is None else [str(n) for n in activity_names]
    index = {n: k for k, n in enumerate(table)}
    unknown = sorted(set(label_names) - set(index))
    if unknown:
        raise DataError("labels are not in the activity-name table", file=source, field="labels",
                        expected=table, found=unknown[:5])
    labels = np.array([index[n] for n in label_names], dtype=np.int64)
    return HarDataset(name=name, windows=windows, labels=labels, activity_names=tuple(table), source=source)


#: The arrays of a dataset archive (:func:`load_npz_dataset`).
DATASET_ARRAYS = ("windows", "labels", "activity_names", "step_labels", "label_index")


def load_npz_dataset(path: str | Path, name: str | None = None) -> HarDataset:
    """Read a dataset from ``.npz`` with bounded sizes; object arrays (pickles) are refused.

    Arrays: ``windows`` (N, 120, 6); ``labels`` either (N,) class indices or LiMU-BERT per-step
    labels (N, 120, L) with the activity in column ``label_index`` (integer scalar, default 0);
    ``activity_names`` (C,) strings; optional ``step_labels`` (N, 120).
    """
    path = Path(path)
    arrays = read_npz(path)
    unknown = sorted(set(arrays) - set(DATASET_ARRAYS))
    if unknown:  # a misspelt step_labels or label_index would be ignored silently
        near = difflib.get_close_matches(unknown[0], DATASET_ARRAYS, n=1, cutoff=0.6)
        raise DataError("dataset archive holds an array this reader does not read", file=path, field=unknown[0],
                        expected=f"{near[0]!r}?" if near else f"arrays among {', '.join(DATASET_ARRAYS)}")
    missing = {"windows", "labels", "activity_names"} - set(arrays)
    if missing:
        raise DataError("dataset archive lacks arrays", file=path, expected="windows, labels, activity_names",
                        found=sorted(arrays))
    names = arrays["activity_names"]
    if names.ndim != 1 or names.dtype.kind != "U":
        raise DataError("activity names must be a 1-D string array", file=path, field="activity_names",
                        expected="(C,) str", found=f"{names.dtype} {names.shape}")
    labels, step_labels = arrays["labels"], arrays.get("step_labels")
    if labels.ndim == 3:  # LiMU-BERT layout (N, 120, L): majority vote per window
        labels, step_labels = window_labels_from_steps(labels, len(names), _label_index(arrays, path), str(path))
    return HarDataset(name=name or path.stem, windows=arrays["windows"], labels=labels,
                      activity_names=tuple(names.tolist()), step_labels=step_labels, source=str(path))


def _label_index(arrays: dict[str, np.ndarray], path: Path) -> int:
    """The optional ``label_index`` scalar: which column of 3-D labels holds the activity."""
    value = arrays.get("label_index", np.array(0))
    if value.ndim != 0 or not np.issubdtype(value.dtype, np.integer):
        raise DataError("label_index must be an integer scalar", file=path, field="label_index",
                        found=f"{value.dtype} {value.shape}")
    return int(value)


def to_har_windows(series: np.ndarray, source_rate_hz: float) -> np.ndarray:
    """Resample ``(n, T, 6)`` series to 20 Hz and keep the first 120 steps (6 s).

    Polyphase resampling (``scipy.signal.resample_poly``) keeps the signal band-limited; a series
    shorter than 6 s after resampling is an error rather than being padded with invented data.
    """
    from fractions import Fraction

    from scipy.signal import resample_poly

    ratio = Fraction(SAMPLING_RATE_HZ / source_rate_hz).limit_denominator(1000)
    resampled = resample_poly(np.asarray(series, dtype=np.float64), ratio.numerator, ratio.denominator, axis=1)
    if resampled.shape[1] < WINDOW_LENGTH:
        raise DataError("series too short for a 6 s window at 20 Hz", field="windows",
                        expected=f">= {WINDOW_LENGTH} steps after resampling", found=resampled.shape[1])
    return resampled[:, :WINDOW_LENGTH, :]


BASIC_MOTIONS_RATE_HZ = 10


def load_basic_motions() -> HarDataset:
    """BasicMotions (UEA) from the aeon wheel, all 80 cases, as ``(80, 120, 6)`` at 20 Hz.

    The original series are 100 steps at 10 Hz (10 s); they are upsampled to 20 Hz and the first
    6 s kept. Channels are smartwatch accelerometer x, y, z then gyroscope x, y, z.
    """
    from aeon.datasets import load_basic_motions as aeon_load

    series, names = aeon_load()
    windows = to_har_windows(np.transpose(series, (0, 2, 1)), BASIC_MOTIONS_RATE_HZ)
    return dataset_from_names("basicmotions", windows, [str(n).lower() for n in names],
                              source="aeon:BasicMotions")
