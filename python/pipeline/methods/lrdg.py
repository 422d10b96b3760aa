"""LRDG: latent representation learning and dynamic graph constraints.

Zhang, Huo, Tang, *Multi-label feature selection via latent representation learning and dynamic
graph constraints*, Pattern Recognition 151 (2024) 110411. Follows the authors' code ``LRDG.m`` of
``yunbao520/LRDG`` (docs/methods/LRDG.md, with the line numbers). With X (n, d), Y (n, m), the centring
H = I - 11'/n, heat-kernel k-NN graphs (weights exp(-|a-b|²/2), self included, A = max(A, A'),
P = diag(A1)) A_X = graph(X, 5), (P_Y, A_Y) = graph(Y, 5) over the samples, and ``max_iter`` (50)
iterations with no convergence test:

1. (P_V, A_V) = graph(V', 3)   (the dynamic label graph over the m columns of the current V)
2. V ← V ⊙ [HXS + αY + 2βA_X V + γA_Y V] ⊘ [HV + αV + 2β(VV')V + γP_Y V]
3. S ← S ⊙ [X'HV + γ S A_V] ⊘ [X'HXS + γ S P_V]
4. J = (|H(V - XS)|² + α|Y - V|² + β|A_X - VV'|² + γ(tr(S L_V S') + tr(V' L_Y V))) / (mn)

The score is the squared row norm of S, the one the code sorts (the harness orders it).

**Full-run rankings are engine-specific.** The centred factors can be negative, so V and S change
sign and J is not monotone, and the iteration is numerically chaotic: a relative perturbation of
1e-16 (a different BLAS summation order) grows to O(1) within about 10 iterations.
Octave and NumPy therefore agree to ~1e-11 after one iteration and ~1e-9 after two (tested at 1e-10
and 1e-8 on six real folds), while their 50-iteration rankings are only reported (overlap of the
top 20 %: 0.19–0.85), never asserted equal; LRDG results are engine-specific.

Deviations from the public code (rounding-level only, see docs/methods/LRDG.md):
the n×n matrix H is never formed — its rank-one form gives HXS = XS - 1(μ'S) with μ the column
means of X, X'HV = X'V - μ(1'V), X'HXS = (X_c'X_c)S with the centred Gram matrix cached (d ≤ n;
else X'(HXS)), HV = V - 1(1'V)/n — which replaces the code's O(n²d) per iteration and its n×n
memory by O(ndm + d²m) and O(nd + d²); (VV')V is evaluated as V(V'V) (O(nm²) instead of O(n²m));
the sample graphs are sparse; neighbour ranks use squared distances snapped to 1e-10 of the
largest squared row norm, so exact duplicates (whose expanded distances carry BLAS-dependent
rounding noise) tie exactly and go to the lower index in every engine; the starts S0, V0 come from
the harness (the demo's order: S0 then V0); the bias b, which nothing uses, is not computed; a
divergence guard stops a run whose iterates become non-finite or exceed ``divergence_limit``.
Labels are {0,1} (the demo's data may hold ±1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError, DataError
from ._common import gram_operand, sparse_if_mostly_zero
from ._divergence import check_iterates, check_limit
from .base import MethodSpec
from .starts import UniformStream

if TYPE_CHECKING:
    import scipy.sparse as sp

SAMPLE_NEIGHBOURS = 5
LABEL_NEIGHBOURS = 3
#: Squared distances closer than this fraction of the largest squared row norm tie (lower index first).
DISTANCE_RESOLUTION = 1e-10
#: Distance entries held at once, 8 MiB of float64 (memory only; the graph does not depend on it).
BLOCK_ENTRIES = 2 ** 20


def make_init(n: int, d: int, n_labels: int, stream: UniformStream, params: dict) -> dict:
    """Initial S0 (d, m) then V0 (n, m) ~ U(0,1), the demo's order (``W = rand(d,m); V = rand(n,m)``)."""
    return {"S0": stream.matrix(d, n_labels), "V0": stream.matrix(n, n_labels)}


def heat_knn_graph(F: np.ndarray, k: int) -> sp.csr_matrix:
    """Heat-kernel k-NN affinity of the rows of F (N, p) -> sparse (N, N); twin ``mlfs_knn_heat_graph.m``.

    Squared distances (-2a·b + |a|²) + |b|² (absolute value), formed in place in blocks of
    ``BLOCK_ENTRIES`` (memory only); each row keeps its k+1 nearest rows
    (itself normally first) with weight exp(-dist/2), ranked by the snapped distance with ties to
    the lower index; then A = max(A, A'), with sorted column indices.
    """
    import scipy.sparse as sp  # imported here, not with the module: see _common.py

    F = np.asarray(F, dtype=np.float64)
    N = F.shape[0]
    if N < k + 1:
        raise DataError("the k-NN graph needs at least k+1 points", expected=f">= {k + 1} rows", found=N)
    norms = np.sum(F * F, axis=1)
    grid = DISTANCE_RESOLUTION * float(norms.max()) if N else 0.0
    products = gram_operand(F)  # a sparse F F' beats BLAS only when very sparse, as X'X
    rows, cols, weights = [], [], []
    block_rows = max(1, BLOCK_ENTRIES // max(N, 1))
    for start in range(0, N, block_rows):
        block = slice(start, min(start + block_rows, N))
        dist = products[block] @ products.T
        dist = dist.toarray() if sp.issparse(dist) else dist
        dist *= -2.0
        dist += norms[block, None]
        dist += norms[None, :]
        np.abs(dist, out=dist)
        key = dist / grid if grid > 0 else np.zeros_like(dist)
        key += 0.5
        np.floor(key, out=key)
        row, col = smallest_in_rows(key, k + 1)
        rows.append(row + start)
        cols.append(col)
        weights.append(np.exp(-dist[row, col] / 2.0))
    A = sp.csr_matrix((np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))), shape=(N, N))
    A = A.maximum(A.T).tocsr()
    A.sort_indices()
    return A


def smallest_in_rows(key: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) indices of the ``count`` smallest entries of each row of ``key`` (R, N) by
    (value, column index), NaN after every number: the first ``count`` of a stable ascending sort.

    A partial selection, O(N) per row instead of a sort's O(N log N): the count-th smallest value
    of the row (NaN if fewer numbers), every entry below it, and the entries equal to it (or NaN
    when it is NaN) in column order.
    """
    threshold = np.partition(key, count - 1, axis=1)[:, count - 1].copy()[:, None]
    short = np.isnan(threshold)
    below = (key < threshold) | (short & ~np.isnan(key))
    tied = (key == threshold) | (short & np.isnan(key))
    wanted = count - below.sum(axis=1, keepdims=True)
    return np.nonzero(below | (tied & (np.cumsum(tied, axis=1, dtype=np.int32) <= wanted)))


def centred_product(X: np.ndarray, mean: np.ndarray, S: np.ndarray) -> np.ndarray:
    """H X S = X S - 1 (μ'S), μ the column means of X: the rank-one form, no n×n H."""
    return X @ S - (mean @ S)[None, :]


def centred_gram(X: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """X_c'X_c (d, d), X_c = X - 1μ': one operand twice, so a symmetric rank-k product."""
    centred = X - mean
    return centred.T @ centred


def objective(HXS, Y, V, S, graph_V, affinity_norm2, p_Y, A_V, p_V, params) -> float:
    """The code's J (divided by m·n), computed without any n×n dense matrix:
    |A_X - VV'|² = |A_X|² - 2 tr(V'A_X V) + |V'V|², tr(V'L_Y V) = Σ p_Y V² - tr(V'A_Y V), where
    ``graph_V`` = (A_X V, A_Y V, V'V) from :func:`graph_products`."""
    n, m = Y.shape
    alpha, beta, gamma = (float(params[k]) for k in ("alpha", "beta", "gamma"))
    A_X_V, A_Y_V, gram = graph_V
    residual = (V - V.mean(axis=0)) - HXS
    affinity = affinity_norm2 - 2.0 * float(np.sum(V * A_X_V)) + float(np.sum(gram * gram))
    label_smooth = float(np.sum((S * p_V[None, :]) * S) - np.sum((S @ A_V) * S))
    sample_smooth = float(np.sum(p_Y[:, None] * V * V) - np.sum(V * A_Y_V))
    total = (np.sum(residual ** 2) + alpha * np.sum((Y - V) ** 2) + beta * affinity
             + gamma * (label_smooth + sample_smooth))
    return float(total) / (m * n)


def graph_products(A_X, A_Y, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A_X V, A_Y V, V'V) of the current V: computed once, used by the objective and the next V-step."""
    return A_X @ V, A_Y @ V, V.T @ V


def lrdg(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, np.ndarray, dict]:
    """Run LRDG on validated X (n, d), Y (n, m); return S (d, m), V (n, m) and info.

    One product with X per iteration: HXS is computed after each S-step and reused by the
    objective and the next V-step; X'HXS is (X_c'X_c) S with the cached Gram matrix (d <= n), else
    X'(HXS).
    """
    n, d = X.shape
    alpha, beta, gamma = (float(params[k]) for k in ("alpha", "beta", "gamma"))
    limit = check_limit("LRDG", params["divergence_limit"])
    A_X = heat_knn_graph(X, SAMPLE_NEIGHBOURS)
    A_Y = heat_knn_graph(Y, SAMPLE_NEIGHBOURS)
    p_Y = np.asarray(A_Y.sum(axis=1)).reshape(-1)
    affinity_norm2 = float(A_X.multiply(A_X).sum())
    mean = X.mean(axis=0)
    gram_X = centred_gram(X, mean) if d <= n else None
    X = sparse_if_mostly_zero(X)
    S = np.array(init["S0"], dtype=np.float64)
    V = np.array(init["V0"], dtype=np.float64)
    HXS = centred_product(X, mean, S)
    A_X_V, A_Y_V, gram_V = graph_products(A_X, A_Y, V)
    trace = []
    for iteration in range(1, int(params["max_iter"]) + 1):
        A_V = heat_knn_graph(V.T, LABEL_NEIGHBOURS).toarray()
        p_V = A_V.sum(axis=1)
        numerator = HXS + alpha * Y + 2.0 * beta * A_X_V + gamma * A_Y_V
        denominator = (V - V.mean(axis=0)) + alpha * V + 2.0 * beta * (V @ gram_V) + gamma * (p_Y[:, None] * V)
        V = V * (numerator / denominator)
        XtHV = X.T @ V - np.outer(mean, V.sum(axis=0))
        gram_S = gram_X @ S if gram_X is not None else X.T @ HXS
        S = S * ((XtHV + gamma * (S @ A_V)) / (gram_S + gamma * (S * p_V[None, :])))
        check_iterates("LRDG", iteration, limit, V=V, S=S)
        HXS = centred_product(X, mean, S)
        A_X_V, A_Y_V, gram_V = graph_products(A_X, A_Y, V)
        trace.append(objective(HXS, Y, V, S, (A_X_V, A_Y_V, gram_V), affinity_norm2, p_Y, A_V, p_V, params))
    return S, V, {"iterations": len(trace), "objective": trace}


def _check(params: dict, init: dict, n: int, d: int, n_labels: int) -> None:
    for key in ("alpha", "beta", "gamma"):
        if not float(params[key]) >= 0:
            raise ConfigError("LRDG parameter must be >= 0", field=key, found=params[key])
    if int(params["max_iter"]) < 1:
        raise ConfigError("LRDG needs at least one iteration", field="max_iter", found=params["max_iter"])
    if n < SAMPLE_NEIGHBOURS + 1 or n_labels < LABEL_NEIGHBOURS + 1:
        raise DataError("LRDG needs at least 6 training rows and 4 labels (its k-NN graphs)",
                        field="X_train/Y_train", found=f"n = {n}, m = {n_labels}")
    for key, shape in {"S0": (d, n_labels), "V0": (n, n_labels)}.items():
        if key not in init or np.shape(init[key]) != shape:
            raise ConfigError("LRDG initial matrix missing or of the wrong shape", field=f"init.{key}",
                              expected=shape, found=np.shape(init[key]) if key in init else "missing")


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`).

    ``init`` holds S0 (d, m) and V0 (n, m). Returns the (d,) scores and info: iterations, objective
    trace, the final S and V.

    Raises
    ------
    EngineError
        When the iterates diverge (non-finite or above ``divergence_limit``), naming the iteration.
    """
    n, d = X.shape
    _check(params, init, n, d, Y.shape[1])
    S, V, info = lrdg(X, Y, params, init)
    info.update(S=S.tolist(), V=V.tolist())
    return np.sum(S * S, axis=1), info


SPEC = MethodSpec.shipped("LRDG", scores=feature_scores, matlab_function="LRDG",
                          make_init=make_init, nonnegative_features=True,
                          summary="latent representation + dynamic label graph (Zhang et al. 2024)")
