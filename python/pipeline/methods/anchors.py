"""Sanity-anchor methods: rankings any real method should beat (or at least match).

- ``RANDOM``: features ranked by U(0,1) scores from a seeded stream — the floor.
- ``VARIANCE``: unsupervised variance filter — population variance of each training column.
- ``LABELCORR``: supervised filter — mean over labels of |Pearson correlation(feature, label)|,
  0 where the feature or the label column is constant.

VARIANCE and LABELCORR have MATLAB/Octave twins in ``matlab/baselines/`` with the same formulas.
"""

from __future__ import annotations

import numpy as np

from .base import MethodSpec
from .starts import UniformStream


def random_scores(X, Y, params: dict) -> np.ndarray:
    """U(0,1) scores, one per feature, from ``UniformStream(params['seed'])`` -> (d,)."""
    return UniformStream(params["seed"]).matrix(np.shape(X)[1], 1).ravel()


def variance_scores(X, Y=None, params: dict | None = None) -> np.ndarray:
    """Population variance (ddof 0) of each column of ``X`` (n, d) -> (d,) (unsupervised: ``Y`` unused)."""
    X = np.asarray(X, dtype=np.float64)
    return ((X - X.mean(axis=0)) ** 2).mean(axis=0)


def label_correlation_scores(X, Y, params: dict | None = None) -> np.ndarray:
    """Mean over labels of |corr(x_j, y_l)| -> (d,); constant columns contribute 0."""
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    Yc = Y - Y.mean(axis=0)
    x_norm = np.sqrt((Xc ** 2).sum(axis=0))
    y_norm = np.sqrt((Yc ** 2).sum(axis=0))
    denom = np.outer(x_norm, y_norm)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.where(denom > 0, (Xc.T @ Yc) / denom, 0.0)
    return np.abs(corr).mean(axis=1)


RANDOM = MethodSpec.shipped("RANDOM", scores=random_scores, summary="seeded random permutation (floor; Python only)")
VARIANCE = MethodSpec(name="VARIANCE", defaults={}, scores=variance_scores, matlab_function="VARIANCE",
                      summary="unsupervised variance filter")
LABELCORR = MethodSpec(name="LABELCORR", defaults={}, scores=label_correlation_scores,
                       matlab_function="LABELCORR", summary="mean |Pearson correlation| with the labels")
