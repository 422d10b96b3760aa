"""MIFS: multi-label informed feature selection (Jian, Li, Shu, Liu, IJCAI 2016).

Follows the MLC_toolbox implementation (``KKimura360/MLC_toolbox``, ``function/FSDR/MIFS/``;
docs/methods/MIFS.md, with the line numbers). MIFS decomposes the labels Y (n, L) into k latent
labels V (n, k) with a basis B (k, L), regresses V on X (n, d) with an l2,1 penalty on W (d, k),
and keeps V smooth on the heat-kernel k-NN graph of the instances (Laplacian Lx):

    min ‖XW − V‖²_F + α‖Y − VB‖²_F + β tr(VᵀLxV) + γ‖W‖₂,₁

with k = round(``latent_fraction`` · L). From the random starts W, V, B, each of at most
``max_iter`` iterations takes one gradient step of size ``step`` in V, then B, then W (D the
reweighting of ‖W‖₂,₁ from the previous W, starting at 1):

    V ← V − step ((V − XW) + α(VB − Y)Bᵀ + βLxV)
    B ← B − step Vᵀ(VB − Y)
    W ← W − step (Xᵀ(XW − V) + γ D W),     D = diag(0.5 / √(‖w_j‖² + eps))

and stops after the first iteration whose objective moved by less than ``tol``, absolutely or
relatively (``objective_settled``). The graph is the toolbox's ``constructW`` (k-NN,
heat kernel), which is LRDG's unit-width graph (``lrdg.heat_knn_graph``) of X / ``kernel_width``
without its diagonal: each instance
links its ``neighbours`` + 1 nearest instances by squared Euclidean distance |a|² + |b|² − 2a·b
with weight exp(−dist / (2 ``kernel_width``²)); the graph is made symmetric by the larger weight.
The score is Σ_l W_jl², the one the toolbox sorts; the harness orders it.

Deviations from the toolbox code (docs/methods/MIFS.md): the toolbox's ``maxIt`` = 500 runs at
most 499 iterations (``while t < maxIt``), so ``max_iter`` counts iterations and defaults to 499;
the starts come from the harness (``make_init``) instead of unseeded ``rand`` (same order);
neighbours are ordered by the distance snapped to 10⁻¹⁰ of the largest squared row norm (ties to
the lower index), so that rows at equal distances (the very sparse rows of the text sets), whose
expanded distances carry BLAS-dependent rounding noise, get the same neighbours in both engines;
the toolbox orders by the raw distances, and sets negative ones to 0 where the graph takes their
absolute value (rounding-level values either way).
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError, DataError
from ._common import MATLAB_EPS
from .base import MethodSpec
from .lrdg import heat_knn_graph
from .rfs import objective_settled
from .starts import UniformStream

#: The project's suggested sweep of α, β, γ over 10^-3..10^3 (the toolbox ships no grid).
GRID = {key: [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3] for key in ("alpha", "beta", "gamma")}


def latent_count(n_labels: int, latent_fraction: float) -> int:
    """k = round(latent_fraction · L), halves rounded up as MATLAB's ``round`` does for positives."""
    return int(np.floor(latent_fraction * n_labels + 0.5))


def make_init(n: int, d: int, n_labels: int, stream: UniformStream, params: dict) -> dict:
    """Initial W0 (d, k), V0 (n, k) and B0 (k, L) ~ U(0,1), in this order (the toolbox's)."""
    k = latent_count(n_labels, float(params["latent_fraction"]))
    if k < 1:
        raise ConfigError("MIFS needs at least one latent label: round(latent_fraction * L) is 0",
                          field="latent_fraction", expected=f">= {0.5 / n_labels:.3g} for L = {n_labels}",
                          found=params["latent_fraction"])
    return {"W0": stream.matrix(d, k), "V0": stream.matrix(n, k), "B0": stream.matrix(k, n_labels)}


def instance_graph(X: np.ndarray, neighbours: int, kernel_width: float):
    """The toolbox's ``constructW`` graph of the rows of X (module docstring) -> sparse (n, n)."""
    n = X.shape[0]
    if n <= neighbours:
        raise DataError("MIFS's instance graph needs more training rows than neighbours", field="X_train",
                        expected=f"at least {neighbours + 1} rows", found=n)
    # exp(-|a/w - b/w|² / 2) = exp(-|a - b|² / (2w²)): LRDG's unit-width graph of X / w, whose
    # neighbour order does not depend on the scale
    graph = heat_knn_graph(X / kernel_width, neighbours)
    graph.setdiag(0.0)
    graph.eliminate_zeros()
    return graph


def _check_init(init: dict, n: int, d: int, n_labels: int, k: int) -> None:
    shapes = {"W0": (d, k), "V0": (n, k), "B0": (k, n_labels)}
    for key, shape in shapes.items():
        if key not in init or np.shape(init[key]) != shape:
            raise ConfigError("MIFS initial matrix missing or of the wrong shape", field=f"init.{key}",
                              expected=shape, found=np.shape(init[key]) if key in init else "missing")


def mifs(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Run MIFS on a validated float64 fold X (n, d), Y (n, L); return W (d, k) and the info dict
    (latent labels, iterations, objective trace)."""
    import scipy.sparse as sp

    alpha, beta, gamma, step = (float(params[key]) for key in ("alpha", "beta", "gamma", "step"))
    graph = instance_graph(X, int(params["neighbours"]), float(params["kernel_width"]))
    laplacian = sp.diags(np.asarray(graph.sum(axis=0)).ravel()) - graph
    W = np.array(init["W0"], dtype=np.float64)
    V = np.array(init["V0"], dtype=np.float64)
    B = np.array(init["B0"], dtype=np.float64)
    row_weights = np.ones(X.shape[1])
    objective = []
    for _ in range(int(params["max_iter"])):
        XW = X @ W
        V = V - step * ((V - XW) + alpha * (V @ B - Y) @ B.T + beta * (laplacian @ V))
        B = B - step * (V.T @ (V @ B - Y))
        W = W - step * (X.T @ (XW - V) + gamma * row_weights[:, None] * W)
        row_squares = np.sum(W * W, axis=1)
        row_weights = 0.5 / np.sqrt(row_squares + MATLAB_EPS)
        fit = X @ W - V
        label_fit = Y - V @ B
        objective.append(float(np.sum(fit * fit) + alpha * np.sum(label_fit * label_fit)
                               + beta * np.sum(V * (laplacian @ V)) + gamma * np.sum(np.sqrt(row_squares))))
        if len(objective) > 1 and objective_settled(objective[-2], objective[-1], float(params["tol"])):
            break
    return W, {"latent_labels": W.shape[1], "iterations": len(objective), "objective": objective}


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`).

    ``init`` holds W0 (d, k), V0 (n, k) and B0 (k, L). Returns Σ_l W_jl² and the info.
    """
    n, d = X.shape
    k = latent_count(Y.shape[1], float(params["latent_fraction"]))
    _check_init(init, n, d, Y.shape[1], k)
    W, info = mifs(X, Y, params, init)
    return np.sum(W * W, axis=1), info


SPEC = MethodSpec.shipped("MIFS", scores=feature_scores, matlab_function="MIFS", make_init=make_init,
                          nonnegative_features=True,
                          summary="latent labels, graph-smoothed, l2,1 regression (Jian et al. 2016)")
