"""The window-level 80/10/10 split and the label-rate subsampling.

Both use one legacy ``RandomState(3431)``: the split shuffles first, then the same generator draws
the 1 % and the 10 % subsamples, so every model sees exactly the same windows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError

SEED = 3431
TRAINING_RATE = 0.8
VALI_RATE = 0.1
STRATEGIES = ("proportional", "equal")


@dataclass(frozen=True)
class WindowSplit:
    """Indices of the train, validation and test windows (disjoint, covering ``0..N-1``)."""

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray


def split_windows(n_windows: int, seed: int = SEED) -> tuple[WindowSplit, np.random.RandomState]:
    """Shuffle ``0..N-1`` with ``RandomState(seed)`` and cut it 80/10/10.

    Returns the split and the generator, which the subsampling must keep using.
    """
    rng = np.random.RandomState(seed)
    order = np.arange(n_windows)
    rng.shuffle(order)
    n_train = int(n_windows * TRAINING_RATE)
    n_val = int(n_windows * VALI_RATE)
    split = WindowSplit(train=order[:n_train], val=order[n_train:n_train + n_val], test=order[n_train + n_val:])
    return split, rng


def _per_class_counts(counts: np.ndarray, rate: float, strategy: str) -> np.ndarray:
    """How many windows to keep from each class (``counts`` in ascending class order)."""
    if strategy == "proportional":
        wanted = np.maximum(1, np.floor(rate * counts).astype(np.int64))
    elif strategy == "equal":
        n_total = max(1, int(counts.sum() * rate))
        wanted = np.full(len(counts), max(1, n_total // len(counts)), dtype=np.int64)
    else:
        raise ConfigError("unknown subsample strategy", field="strategy", expected=list(STRATEGIES),
                          found=strategy)
    return np.minimum(counts, wanted)


def balanced_subsample(train_x: np.ndarray, train_y: np.ndarray, rate: float, rng: np.random.RandomState,
                       strategy: str = "proportional") -> tuple[np.ndarray, np.ndarray]:
    """Keep a fraction ``rate`` of the training windows, at least one of every class.

    Parameters
    ----------
    train_x : ndarray, shape (n, ...)
    train_y : ndarray of int, shape (n,)
    rate : float in (0, 1]
    rng : RandomState
        Consumed in a fixed order: one shuffle per class (ascending), then one of the result.
    strategy : {"proportional", "equal"}
        ``proportional``: ``k_c = min(n_c, max(1, floor(rate * n_c)))`` (project default).
        ``equal``: the upstream script's rule, ``min(n_c, max(1, max(1, int(n * rate)) // C))``.

    Returns
    -------
    x, y : the selected rows of ``train_x`` and ``train_y``, in shuffled order.
    """
    if not 0 < rate <= 1:
        raise ConfigError("label rate must be in (0, 1]", field="rate", expected="0 < rate <= 1", found=rate)
    train_y = np.asarray(train_y)
    classes, counts = np.unique(train_y, return_counts=True)
    keep = _per_class_counts(counts, rate, strategy)
    chosen = []
    for cls, k in zip(classes, keep):
        members = np.flatnonzero(train_y == cls)
        rng.shuffle(members)
        chosen.append(members[:k])
    selected = np.concatenate(chosen)
    rng.shuffle(selected)
    return train_x[selected], train_y[selected]
