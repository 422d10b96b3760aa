"""Fixtures of the Baselines I tests (LRMFS, GRRO, SRFS, SCNMF).

One real GNU Octave process for the whole session; BLAS limited to one thread on both sides (the
test machine has two cores shared with other jobs, where threaded BLAS spins badly); real training
folds made with the data layer; the spec's synthetic recipe (§5).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from pipeline.data.registry import load_dataset
from pipeline.data.scaling import scale_fold
from pipeline.data.splits import stratified_splits
from pipeline.engines.octave import OctaveEngine

PLANTED = {1, 2, 3, 4, 5}
#: The synthetic-recipe settings of the spec (§5).
RECIPE_SETTINGS = {"LRMFS": {"alpha": 0.1, "beta": 1.0, "gamma": 1.0, "lambda": 1.0},
                   "SCNMF": {"lambda1": 1e-3, "lambda2": 1.0},
                   "GRRO": {"alpha": 100.0, "beta": 0.1, "num_bins": 2},
                   "SRFS": {"alpha": 0.1, "beta": 0.1, "gamma": 0.1, "max_iter": 30}}


@pytest.fixture(scope="session", autouse=True)
def single_thread_blas():
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session")
def octave_engine():
    """A started OctaveEngine (matlab/ on the path), single-threaded BLAS, shared by the session."""
    saved = {key: os.environ.get(key) for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    os.environ.update({key: "1" for key in saved})
    engine = OctaveEngine(timeout=600)
    try:
        engine.session.start()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    yield engine
    engine.close()


def recipe(seed: int, n: int = 200, d: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """The spec's synthetic recipe (§5): label l = 1[x_a + x_b + 0.1 N(0,1) > median], pairs
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
