"""A deterministic synthetic multi-label dataset with planted relevant features (the demo).

Features are small counts (Binomial(10, p_j), like term frequencies), so the demo folds compress to
a few tens of kB. Each label is driven by a few of ``n_relevant`` planted features:

    score_il = sum_j W_jl * z_ij + noise * e_il,     y_il = 1  iff  score_il >= q_l

where z are the standardised relevant features, W is a sparse random matrix with
``features_per_label`` non-zeros of size 1..2 and random sign per label, e ~ N(0, 1), and q_l is the
score quantile that gives label l its prevalence (drawn in [0.2, 0.4]). The other features are
pure noise with the same marginal distribution, so a good feature selector ranks the planted ones
first, while a variance filter cannot tell them apart by their spread.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from .dataset import Dataset

#: The demo set's shape (n, d, L), which the registry lists as ``demo``.
DEMO_SHAPE = (400, 120, 6)
_TRIALS = 10  # Binomial trials per feature value


def make_demo_dataset(seed: int = 0, *, n_samples: int = DEMO_SHAPE[0],
                      n_features: int = DEMO_SHAPE[1], n_labels: int = DEMO_SHAPE[2],
                      n_relevant: int = 10, features_per_label: int = 3,
                      noise: float = 0.5) -> tuple[Dataset, np.ndarray]:
    """Generate the demo dataset.

    Parameters
    ----------
    seed : int
        Seed of the ``numpy.random.default_rng`` stream; the same seed gives identical arrays.
    n_samples, n_features, n_labels : int
        Shape (n, d, L); the defaults are the registry's ``demo`` shape (400, 120, 6).
    n_relevant : int
        Number of planted relevant features (placed at random columns).
    features_per_label : int
        Relevant features that drive each label.
    noise : float
        Standard deviation of the Gaussian noise added to each label score.

    Returns
    -------
    dataset : Dataset
        Named ``"demo"`` when the default shape is used, X (n, d) float64 of integers 0..10,
        Y (n, L) uint8.
    relevant_features : ndarray of int, sorted
        0-based column indices of the planted features.
    """
    _check_arguments(n_samples, n_features, n_labels, n_relevant, features_per_label, noise)
    rng = np.random.default_rng(seed)
    success = rng.uniform(0.1, 0.5, size=n_features)
    X = rng.binomial(_TRIALS, success, size=(n_samples, n_features)).astype(np.float64)
    relevant = np.sort(rng.choice(n_features, size=n_relevant, replace=False))
    Z = X[:, relevant]
    Z = (Z - Z.mean(axis=0)) / np.where(Z.std(axis=0) > 0, Z.std(axis=0), 1.0)
    W = np.zeros((n_relevant, n_labels))
    for label in range(n_labels):
        rows = rng.choice(n_relevant, size=features_per_label, replace=False)
        signs = rng.choice([-1.0, 1.0], size=features_per_label)
        W[rows, label] = rng.uniform(1.0, 2.0, size=features_per_label) * signs
    scores = Z @ W + noise * rng.standard_normal((n_samples, n_labels))
    prevalence = rng.uniform(0.2, 0.4, size=n_labels)
    thresholds = np.array([np.quantile(scores[:, l], 1.0 - prevalence[l]) for l in range(n_labels)])
    Y = (scores >= thresholds).astype(np.uint8)
    default_shape = (n_samples, n_features, n_labels) == DEMO_SHAPE
    dataset = Dataset(
        name="demo" if default_shape else f"synthetic_{n_samples}x{n_features}x{n_labels}",
        X=X, Y=Y, label_names=tuple(f"label{j + 1}" for j in range(n_labels)),
        provenance={"format": "synthetic",
                    "generator": "pipeline.data.synthetic.make_demo_dataset",
                    "seed": int(seed), "noise": float(noise),
                    "relevant_features_1based": (relevant + 1).tolist()})
    return dataset, relevant


def _check_arguments(n_samples, n_features, n_labels, n_relevant, features_per_label, noise) -> None:
    if min(n_samples, n_features, n_labels, n_relevant, features_per_label) < 1:
        raise ConfigError("synthetic shape arguments must be positive integers")
    if n_relevant > n_features or features_per_label > n_relevant:
        raise ConfigError("need features_per_label <= n_relevant <= n_features",
                          found=(features_per_label, n_relevant, n_features))
    if noise < 0:
        raise ConfigError("noise must be non-negative", found=noise)
