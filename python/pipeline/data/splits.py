"""Seeded, iteratively stratified train/test splits (scikit-multilearn 0.2.0).

Two modes, as in the reference exporter:

* ``holdout`` (repeated holdout; the paper's protocol). Repeat f uses seed ``seed + f``: rows are
  shuffled with ``numpy.random.RandomState(seed + f).permutation(n)``, then split by
  ``IterativeStratification(n_splits=2, order=2, sample_distribution_per_fold=[test_size,
  1 - test_size])``; its first fold is the test set. Test sets of different repeats may overlap.
* ``kfold``: one shuffle with ``RandomState(seed)``, then ``IterativeStratification(n_splits=k,
  order=1)`` with equal shares; fold i's test set is the i-th fold, its training set the rest.

scikit-multilearn breaks ties with NumPy's **global** RNG and ignores its ``random_state``; we seed
the global RNG with the same seed as the shuffle for the duration of the call and then restore the
caller's state, so splits are reproducible and the caller's RNG is untouched.

Indices are positions in the dataset's row order. Within each set they follow the shuffled order
(ascending shuffled position), which is the row order the fold file stores.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..errors import ConfigError
from ..limits import MAX_FOLDS, MAX_SEED

SPLIT_MODES = ("kfold", "holdout")


@dataclass(frozen=True, eq=False)
class Split:
    """Row indices (into the full dataset) of one fold, in the order the fold file stores them.

    train : ndarray of int64, shape (n_train,); test : ndarray of int64, shape (n_test,);
    seed : the seed used for its shuffle and tie-breaking.
    """

    train: np.ndarray
    test: np.ndarray
    seed: int


@contextmanager
def seeded_global_numpy_rng(seed: int) -> Iterator[None]:
    """Seed ``numpy.random``'s global state inside the block; restore the previous state after."""
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(saved)


def stratified_splits(Y: np.ndarray, *, mode: str, n_folds: int, seed: int,
                      test_size: float | None = None) -> list[Split]:
    """Compute the folds of ``Y``.

    Parameters
    ----------
    Y : ndarray of shape (n, L), {0,1}
    mode : {"kfold", "holdout"}
    n_folds : int
        Number of folds (kfold, >= 2) or of holdout repeats (>= 1).
    seed : int
        Base seed (0 <= seed; holdout repeat f uses seed + f).
    test_size : float in (0, 1)
        Holdout test fraction; required for holdout, ignored for kfold.

    Returns
    -------
    list of Split, one per fold.
    """
    Y = np.asarray(Y)
    check_split_settings(mode, n_folds, seed, test_size)
    if Y.ndim != 2 or Y.shape[0] < max(2, n_folds if mode == "kfold" else 2):
        raise ConfigError("labels must be an (n, L) matrix with at least 2 rows and a row per fold",
                          field="Y", found=Y.shape)
    if mode == "kfold":
        return _kfold(Y, n_folds, seed)
    return [_holdout(Y, test_size, seed + f) for f in range(n_folds)]


def _kfold(Y: np.ndarray, n_folds: int, seed: int) -> list[Split]:
    perm = np.random.RandomState(seed).permutation(Y.shape[0])
    stratifier = _iterative_stratification(n_splits=n_folds, order=1,
                                           sample_distribution_per_fold=[1.0 / n_folds] * n_folds)
    with seeded_global_numpy_rng(seed):
        parts = list(stratifier.split(np.zeros((Y.shape[0], 1)), Y[perm]))
    return [Split(train=perm[train].astype(np.int64), test=perm[test].astype(np.int64), seed=seed)
            for train, test in parts]


def _iterative_stratification(**settings):
    """scikit-multilearn's ``IterativeStratification(**settings)``.

    Imported here, not with the module: it imports scikit-learn (about 2 s), which every command
    that only needs this module's constants (``MAX_FOLDS``) would otherwise pay at start.
    """
    from skmultilearn.model_selection import IterativeStratification

    return IterativeStratification(**settings)


def _holdout(Y: np.ndarray, test_size: float, seed: int) -> Split:
    perm = np.random.RandomState(seed).permutation(Y.shape[0])
    stratifier = _iterative_stratification(n_splits=2, order=2,
                                           sample_distribution_per_fold=[test_size, 1.0 - test_size])
    with seeded_global_numpy_rng(seed):
        train, test = next(stratifier.split(np.zeros((Y.shape[0], 1)), Y[perm]))
    return Split(train=perm[train].astype(np.int64), test=perm[test].astype(np.int64), seed=seed)


def check_split_settings(mode: str, n_folds: int, seed: int, test_size: float | None) -> None:
    """Raise ConfigError for an unknown mode, too few folds, a bad seed or holdout fraction."""
    if mode not in SPLIT_MODES:
        raise ConfigError("unknown split mode", field="split_mode", expected=SPLIT_MODES, found=mode)
    minimum = 2 if mode == "kfold" else 1
    if not minimum <= int(n_folds) <= MAX_FOLDS:
        raise ConfigError(f"invalid number of folds for {mode}", field="folds",
                          expected=f"{minimum}..{MAX_FOLDS}", found=n_folds)
    if int(seed) < 0 or int(seed) + int(n_folds) > MAX_SEED:
        raise ConfigError("seed out of range", field="seed", expected="0 <= seed < 2**32 - folds",
                          found=seed)
    if mode == "holdout" and (test_size is None or not 0.0 < float(test_size) < 1.0):
        raise ConfigError("holdout needs a test fraction in (0, 1)", field="test_size",
                          found=test_size)
