"""MGFS: multi-label graph-based feature selection via PageRank centrality (Hashemi, Dowlatshahi,
Nezamabadi-pour, Expert Systems with Applications 2020).

Follows the authors' code (``amin1373/MGFS-...-via-PageRank-centrality``, ``MGFS.m``;
docs/methods/MGFS.md, with the line numbers). Closed form up to PageRank's power iteration,
deterministic:

1. C (d, L): correlation distance 1 - Pearson r between each feature and each label, 0 where r
   is undefined (a constant feature or label), as ``pdist2(X', Y', 'correlation')`` with NaN
   set to 0.
2. E (d, d): Euclidean distances between the rows of C; features i ≠ j are joined by an edge of
   weight E_ij when E_ij > 0.
3. Score: the PageRank of each feature in that weighted graph, computed as MATLAB's
   ``centrality(G, 'pagerank', 'Importance', w)`` does (power iteration from the uniform vector,
   follow probability, stop when no entry moves more than the tolerance, at most ``max_iter``
   iterations; the defaults are MATLAB's).

The authors' script lists every edge in both directions, so MATLAB's graph holds each twice and
sums the two weights; scaling all weights by 2 leaves PageRank unchanged.
"""

from __future__ import annotations

import numpy as np

from ._common import column_distances
from .base import MethodSpec


def correlation_distance(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """1 - Pearson correlation (d, L) between the columns of X (n, d) and of Y (n, L); 0 where a
    column is constant. Twin: ``correlation_distance`` in ``MGFS.m``."""
    def unit_centred(columns):
        centred = columns - columns.mean(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return centred / np.sqrt(np.sum(centred * centred, axis=0))

    distance = 1.0 - unit_centred(X).T @ unit_centred(Y)
    return np.where(np.isfinite(distance), distance, 0.0)


def pagerank(weights: np.ndarray, follow: float, tolerance: float, max_iter: int) -> tuple[np.ndarray, int, bool]:
    """PageRank of a symmetric non-negative weight matrix (d, d) -> (ranks, iterations, converged).

    r ← follow · W (r / w) + follow / d · Σ_sinks r + (1 - follow) / d from r = 1/d, w the weighted
    degrees (1 for a node without edges, a sink); stops when max |r_new - r| <= tolerance.
    Twin: ``pagerank`` in ``MGFS.m``.
    """
    d = weights.shape[0]
    degrees = weights.sum(axis=0)
    sinks = degrees == 0
    degrees[sinks] = 1.0
    ranks = np.full(d, 1.0 / d)
    for iteration in range(1, max_iter + 1):
        previous = ranks
        ranks = follow * (weights @ (previous / degrees)) + follow / d * previous[sinks].sum() + (1 - follow) / d
        if np.max(np.abs(previous - ranks)) <= tolerance:
            return ranks, iteration, True
    return ranks, max_iter, False


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`); deterministic.

    info: ``pagerank_iterations`` and ``pagerank_converged``: when the iterations run out, MATLAB
    keeps the last iterate with a warning; this keeps it and says so in ``pagerank_converged``.
    """
    distances = column_distances(correlation_distance(X, Y).T)   # exact zeros: no edge, as MGFS.m
    ranks, iterations, converged = pagerank(distances, float(params["follow_probability"]),
                                            float(params["tolerance"]), int(params["max_iter"]))
    return ranks, {"pagerank_iterations": iterations, "pagerank_converged": converged}


SPEC = MethodSpec.shipped("MGFS", scores=feature_scores, matlab_function="MGFS",
                          nonnegative_features=True,
                          summary="PageRank of the feature graph of label-correlation profiles (Hashemi et al. 2020)")
