"""MFS-MCDM: multi-label feature selection as multi-criteria decision making (Hashemi, Dowlatshahi,
Nezamabadi-pour, Knowledge-Based Systems 2020).

Follows the authors' code (``amin1373/MFS-MCDM-...-2020``, ``MFS-MCDM.m`` and ``Topsis.m``;
docs/methods/MFS_MCDM.md, with the line numbers). Closed form, deterministic:

1. Ridge regression of the labels on the features: D (d, L) solves (XᵀX + λ I) D = XᵀY.
2. TOPSIS over the features (alternatives) with the labels as criteria, on D as it stands: the
   ideal point is each column's maximum, the anti-ideal its minimum; a feature's score is its
   relative closeness s⁻ / (s⁺ + s⁻), s⁺ and s⁻ its Euclidean distances to the ideal and to the
   anti-ideal.

The authors' ``Topsis.m`` builds the entropy-weighted matrix and then overwrites it with the
unweighted one (its "Redundancy" factor is all ones), so the label weights never reach the score;
the project computes the score the code computes (the page says so).
"""

from __future__ import annotations

import numpy as np

from ._common import solve_symmetric
from .base import MethodSpec


def ridge_coefficients(X: np.ndarray, Y: np.ndarray, lam: float) -> np.ndarray:
    """D (d, L) solving (XᵀX + λ I) D = XᵀY, positive definite for λ > 0 (solved by Cholesky).

    The authors' code multiplies by ``pinv`` of the same matrix: the same solution, to rounding,
    at a fraction of the cost of an SVD. Twin: ``MFS_MCDM.m``.
    """
    gram = X.T @ X
    gram[np.diag_indices_from(gram)] += lam
    return solve_symmetric(gram, X.T @ Y)


def topsis_closeness(decision: np.ndarray) -> np.ndarray:
    """Relative closeness (d,) of each row of ``decision`` (d, L) to the column-wise ideal (twin:
    ``topsis_closeness`` in ``MFS_MCDM.m``).

    s⁺ = |row - column maxima|, s⁻ = |row - column minima| (Euclidean); closeness s⁻ / (s⁺ + s⁻).
    s⁺ + s⁻ = 0 happens only when every column is constant, i.e. all rows are equal: every
    closeness is then 0 (the authors' code gets NaN for all, which its sort leaves in index
    order, as the project's ranking rule orders equal scores).
    """
    to_ideal = np.sqrt(np.sum((decision - decision.max(axis=0)) ** 2, axis=1))
    to_anti_ideal = np.sqrt(np.sum((decision - decision.min(axis=0)) ** 2, axis=1))
    spread = to_ideal + to_anti_ideal
    return np.divide(to_anti_ideal, spread, out=np.zeros_like(spread), where=spread > 0)


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict) -> np.ndarray:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`); deterministic."""
    return topsis_closeness(ridge_coefficients(X, Y, float(params["lambda"])))


SPEC = MethodSpec.shipped("MFS_MCDM", scores=feature_scores, matlab_function="MFS_MCDM",
                          nonnegative_features=True,
                          summary="ridge coefficients ranked by TOPSIS closeness (Hashemi et al. 2020)")
