"""GRRO: global relevance and redundancy optimisation (Zhang, Lin, Jiang, Li, Tang, Tan, IJCAI 2020).

Follows the authors' example script (copy in ``QUST-AIBBDRC/ML-locMLFE``,
``Dimension_reduction/GRRO.m``; docs/methods/GRRO.md, with the line numbers). Closed form,
deterministic:

1. Discretise every feature into ``num_bins`` equal-frequency bins on the training fold
   (thresholds s[round(k n / num_bins)] of the sorted column, MATLAB rounding, duplicates removed;
   code = 1 + #thresholds below the value).
2. FL (d, L): mutual information (bits) between each discretised feature and each label;
   FF (d, d): mutual information between discretised features, diagonal set to 1;
   LL (L, L): cosine distance of the label columns, 0 for an all-zero column.
3. Solve the Sylvester equation (I + α FF) W + W (β LL) = FL.
4. Score each feature by the signed row sum of W, the score the script sorts (the harness orders it).

The MI matrices come from co-occurrence counts computed with matrix products (one n×d by n×d
product for two bins) instead of the script's d² scalar ``mi`` calls; the counts are exact
integers, so the values are the plug-in estimates the script computes.

Deviations from the public code: none in the model. The equality-constraint row the script
builds and never uses is not reproduced; the data loading and label conversion are the harness's.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError, DataError
from ._common import label_cosine_distance
from .base import MethodSpec

#: The project's suggested sweep (the paper's grid was not available): α, β over 10^-3..10^3.
GRID = {"alpha": [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3], "beta": [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3]}


def discretize_equal_frequency(X: np.ndarray, num_bins: int) -> np.ndarray:
    """Equal-frequency codes 1..num_bins of each column of X (n, d) -> int (n, d).

    Thresholds are ``sort(x)[round(k n / num_bins)]`` (1-based, halves rounded away from zero as
    MATLAB does) for k = 1..num_bins, duplicates removed; a value's code is 1 plus the number of
    distinct thresholds strictly below it. Twin: ``mlfs_discretize_efi.m``.
    """
    n = X.shape[0]
    positions = np.floor(np.arange(1, num_bins + 1) * n / num_bins + 0.5).astype(np.int64)
    thresholds = np.sort(X, axis=0)[positions - 1, :]
    distinct = np.ones_like(thresholds, dtype=bool)
    distinct[1:] = thresholds[1:] != thresholds[:-1]
    codes = np.ones(X.shape, dtype=np.int64)
    for k in range(num_bins):
        codes += distinct[k] & (X > thresholds[k])
    return codes


def _indicators(codes: np.ndarray, states) -> list[np.ndarray]:
    return [(codes == s).astype(np.float64) for s in states]


def joint_counts(A: list[np.ndarray], B: list[np.ndarray]) -> list[list[np.ndarray]]:
    """Contingency counts N[a][b] (p, q) between the states of p and q discrete columns.

    ``A`` and ``B`` are lists of (n, p) / (n, q) state indicators. Only the products of all but
    the last state of each side are computed; the last row and column follow from the marginals.
    """
    a_last, b_last = len(A) - 1, len(B) - 1
    counts = [[None] * len(B) for _ in A]
    for a in range(a_last):
        for b in range(b_last):
            counts[a][b] = A[a].T @ B[b]
    a_totals = [x.sum(axis=0)[:, None] for x in A]
    b_totals = [x.sum(axis=0)[None, :] for x in B]
    for a in range(a_last):
        counts[a][b_last] = a_totals[a] - sum(counts[a][b] for b in range(b_last))
    for b in range(len(B)):
        counts[a_last][b] = b_totals[b] - sum(counts[a][b] for a in range(a_last))
    return counts


def mutual_information(A: list[np.ndarray], B: list[np.ndarray]) -> np.ndarray:
    """Plug-in mutual information in bits between state-indicator sets A (n, p) and B (n, q).

    Returns (p, q); terms with a zero joint count are 0 (0 log 0 = 0). Twin:
    ``mlfs_mutual_information.m`` (same counts, same term order).
    """
    n = float(A[0].shape[0])
    counts = joint_counts(A, B)
    a_totals = [x.sum(axis=0)[:, None] for x in A]
    b_totals = [x.sum(axis=0)[None, :] for x in B]
    mi = np.zeros(counts[0][0].shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(len(A)):
            for b in range(len(B)):
                joint = counts[a][b]
                term = (joint / n) * np.log2((joint * n) / (a_totals[a] * b_totals[b]))
                mi += np.where(joint > 0, term, 0.0)
    return mi


def grro_statistics(X: np.ndarray, Y: np.ndarray, num_bins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FL (d, L), FF (d, d) with unit diagonal, LL (L, L) of a validated training fold."""
    features = _indicators(discretize_equal_frequency(X, num_bins), range(1, num_bins + 1))
    labels = _indicators(Y, (0, 1))
    FL = mutual_information(features, labels)
    FF = mutual_information(features, features)
    np.fill_diagonal(FF, 1.0)
    return FL, FF, label_cosine_distance(Y)


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`); deterministic.

    Returns the (d,) scores and info: ``sylvester_residual`` = |(I+αFF)W + βW LL - FL|_F / |FL|_F.
    """
    from scipy.linalg import solve_sylvester  # imported here, not with the module: see _common.py

    alpha, beta, num_bins = float(params["alpha"]), float(params["beta"]), params["num_bins"]
    if not (float(num_bins).is_integer() and num_bins >= 2):
        raise ConfigError("GRRO needs an integer number of bins >= 2", field="num_bins", found=num_bins)
    num_bins = int(num_bins)
    if X.shape[0] < num_bins:
        raise DataError("GRRO needs at least one training row per bin", field="X_train",
                        expected=f">= {num_bins} rows", found=X.shape[0])
    FL, FF, LL = grro_statistics(X, Y, num_bins)
    A = np.eye(X.shape[1]) + alpha * FF
    W = solve_sylvester(A, beta * LL, FL)
    residual = np.linalg.norm(A @ W + beta * (W @ LL) - FL) / max(np.linalg.norm(FL), np.finfo(float).tiny)
    return W.sum(axis=1), {"sylvester_residual": float(residual)}


SPEC = MethodSpec.shipped("GRRO", scores=feature_scores, matlab_function="GRRO",
                          nonnegative_features=True,
                          summary="MI relevance/redundancy, Sylvester closed form (Zhang et al. 2020)")
