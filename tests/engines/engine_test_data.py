"""Helpers of the engine tests: the Octave test methods folder and real folds."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.data.registry import load_dataset
from pipeline.data.scaling import scale_fold

FIXTURES = Path(__file__).resolve().parents[1] / "matlab" / "fixtures"


def real_fold(mlc_dir: Path, name: str, n_train: int, n_test: int, seed: int = 0):
    """A fold of a real dataset: a seeded row subsample, min-max scaled on the training part.

    Subsampling keeps each set's character (the Yahoo and medical folds stay ~93-99% zeros, with
    the tie-heavy distances that make the neighbour rule matter).
    """
    data = load_dataset(name, mlc_dir)
    rows = np.random.default_rng(seed).permutation(data.n_samples)[:n_train + n_test]
    X_train, X_test = scale_fold(data.X[rows[:n_train]], data.X[rows[n_train:]], "minmax")
    return X_train, data.Y[rows[:n_train]], X_test, data.Y[rows[n_train:]]
