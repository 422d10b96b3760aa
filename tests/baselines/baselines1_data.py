"""Data for the Baselines I tests: the planted-feature recipe and real training folds
(docs/methods/README.md, "Tests")."""

from __future__ import annotations

import numpy as np

from pipeline.data.registry import load_dataset
from pipeline.data.scaling import scale_fold
from pipeline.data.splits import stratified_splits

PLANTED = {1, 2, 3, 4, 5}
#: The settings under which the recipe's planted features 1-5 are each method's top 5.
RECIPE_SETTINGS = {"LRMFS": {"alpha": 0.1, "beta": 1.0, "gamma": 1.0, "lambda": 1.0},
                   "SCNMF": {"lambda1": 1e-3, "lambda2": 1.0},
                   "GRRO": {"alpha": 100.0, "beta": 0.1, "num_bins": 2},
                   "SRFS": {"alpha": 0.1, "beta": 0.1, "gamma": 0.1, "max_iter": 30}}


def recipe(seed: int, n: int = 200, d: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """The planted-feature recipe: label l = 1[x_a + x_b + 0.1 N(0,1) > median], pairs
    (1,2), (2,3), (3,4), (4,5), (5,1) (1-based), all other features noise; X min-max scaled."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    Y = np.zeros((n, 5))
    for label, (a, b) in enumerate([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]):
        z = X[:, a] + X[:, b] + 0.1 * rng.standard_normal(n)
        Y[:, label] = z > np.median(z)
    return X, Y


def real_training_fold(mlc_dir, name: str, n_rows: int, n_features: int, seed: int = 0):
    """The training part of fold 0 of a seeded stratified 5-fold split of a real dataset, with a
    seeded subsample of its rows and columns, min-max scaled on those rows.

    Columns are drawn at random, so sparse sets (Yahoo, medical) keep their mostly-zero columns,
    duplicated columns and constant (all-zero) columns.
    """
    data = load_dataset(name, mlc_dir)
    split = stratified_splits(data.Y, mode="kfold", n_folds=5, seed=seed)[0]
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.permutation(split.train)[:n_rows])
    columns = np.sort(rng.permutation(data.n_features)[:n_features])
    X = data.X[np.ix_(rows, columns)]
    X_train, _ = scale_fold(X, X[:1], "minmax")
    return X_train, data.Y[rows].astype(np.float64)
