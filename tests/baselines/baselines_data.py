"""Data and helpers of the baseline tests (LRMFS, GRRO, SRFS, SCNMF, LSMFS, LRDG, RFSFS): the two
planted-feature recipes, real training folds and both engines from one start
(docs/methods/README.md, "Tests")."""

from __future__ import annotations

import numpy as np

from pipeline.data.registry import load_dataset
from pipeline.data.scaling import scale_fold
from pipeline.data.splits import stratified_splits
from pipeline.methods import get_method
from pipeline.rankings import validate_ranking

PLANTED = {1, 2, 3, 4, 5}
#: The settings under which the recipe's planted features 1-5 are each method's top 5.
RECIPE_SETTINGS = {"LRMFS": {"alpha": 0.1, "beta": 1.0, "gamma": 1.0, "lambda": 1.0},
                   "SCNMF": {"lambda1": 1e-3, "lambda2": 1.0},
                   "GRRO": {"alpha": 100.0, "beta": 0.1, "num_bins": 2},
                   "SRFS": {"alpha": 0.1, "beta": 0.1, "gamma": 0.1, "max_iter": 30}}
#: (training rows, features) kept per real dataset: small enough for the test budget, with the
#: sparse sets keeping their all-zero, duplicated and rare columns.
REAL_SIZES = {"emotions": (300, 72), "yeast": (400, 103), "scene": (400, 150), "medical": (333, 200),
              "Arts": (500, 200), "Science": (500, 200)}


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


def planted(seed: int, n: int = 200, d: int = 60, n_labels: int = 5):
    """Random data whose label l is 1[x_l + x_{l+1} + noise > median] (features 1..L+1 informative;
    unlike ``recipe``, any number of labels and no wrap-around pair)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    Y = np.zeros((n, n_labels))
    for label in range(n_labels):
        z = X[:, label] + X[:, label + 1] + 0.1 * rng.standard_normal(n)
        Y[:, label] = z > np.median(z)
    return X, Y


def training_fold(mlc_dir, name: str, n_rows: int, n_features: int, seed: int = 0):
    """Training part of fold 0 of a seeded stratified 5-fold split (data layer), with seeded row and
    column subsamples, min-max scaled on the kept rows -> (X (n, d), Y (n, L) float64).

    Columns are drawn at random, so sparse sets (Yahoo, medical) keep their mostly-zero columns,
    duplicated columns and constant (all-zero) columns.
    """
    data = load_dataset(name, mlc_dir)
    train = stratified_splits(data.Y, mode="kfold", n_folds=5, seed=seed)[0].train
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(train, size=min(n_rows, len(train)), replace=False))
    columns = np.sort(rng.choice(data.n_features, size=min(n_features, data.n_features), replace=False))
    X, _ = scale_fold(data.X[np.ix_(rows, columns)], data.X[rows[:1]][:, columns], "minmax")
    return X, data.Y[rows].astype(np.float64)


def start(method: str, X, Y, overrides=None):
    """(resolved params, harness-drawn init) for ``method`` on (X, Y)."""
    method_spec = get_method(method)
    params = method_spec.resolve_params(overrides)
    return params, method_spec.initial_matrices(X.shape[0], X.shape[1], Y.shape[1], params)


def both_engines(octave_engine, method: str, X, Y, overrides=None):
    """Run ``method`` from the same start in Octave and NumPy -> (octave (ranking, info), python (...))."""
    method_spec = get_method(method)
    params, init = start(method, X, Y, overrides)
    octave_ranking, octave_info = octave_engine.rank(method_spec, X, Y, params, init, context=f"{method}/test")
    python_ranking, python_info = method_spec.run(X, Y, params, init)
    d = X.shape[1]
    return ((validate_ranking(octave_ranking, d), octave_info), (validate_ranking(python_ranking, d), python_info))


def top_overlap(first, second, share: float = 0.2) -> float:
    """Share of common features among the top ``share`` of two rankings."""
    k = max(1, int(round(share * len(first))))
    return len(set(first[:k].tolist()) & set(second[:k].tolist())) / k
