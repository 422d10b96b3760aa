"""SRFS: sparse-supplementation regularised multi-label feature selection.

Li, Wang, Yang, Gao, Ding, Li, *Fusion-enhanced multi-label feature selection with sparse
supplementation*, Information Fusion 117 (2025). No authors' code was found; this follows the
third-party notebook ``SRFS.ipynb`` of ``FarajiMohammad/MLFS-SRFS`` (docs/methods/SRFS.md, with the
line numbers): the paper's objective, minimised by the standard multiplicative update,

    min_{W>=0} |XW - Y|_F² + α tr(W L_Y W') + β |W|_2,1 + γ (|WW'|_1 - |W|_F²)

with S the cosine similarity of the label columns (0 for an all-zero column), A_S = diag(S1),
L_Y = A_S - S. Each of ``max_iter`` iterations (no convergence test unless ``tol`` > 0):

    D = diag(1 / (2|w_j| + ε))
    W ← W ⊙ (X'Y + αWS + γW) ⊘ max(X'XW + αWA_S + βDW + γ 1(1'W), ε)

with ε = 2⁻²³ (float32 machine epsilon, as the notebook) and float64 arithmetic. The score is the
row l2 norm of W, the one the notebook sorts (the harness orders it). ``tol`` > 0 stops when the
relative objective change is at most ``tol``.

Deviations from the notebook: float64 instead of float32; the objective trace uses the correct
objective above (the notebook's monitor uses W'W and 1 - S); the ranking is a stable descending
order (the notebook reads an ascending argsort backwards, which reverses ties); 1(1'W) is a
broadcast of the column sums, not a product with a d×d all-ones matrix; W0 comes from the harness.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ._common import GramProducts, label_cosine_similarity, nonnegative_start
from .base import MethodSpec
from .starts import UniformStream

EPSILON = 2.0 ** -23
#: The notebook's commented-out grid, for each of α, β, γ.
GRID = {key: [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0] for key in ("alpha", "beta", "gamma")}


def make_init(n: int, d: int, n_labels: int, stream: UniformStream, params: dict) -> dict:
    """Initial W0 (d, L) ~ U(0,1)."""
    return {"W0": stream.matrix(d, n_labels)}


def penalties(W, S, A_S, alpha, beta, gamma) -> float:
    """α tr(W L_Y W') + β |W|_2,1 + γ (|WW'|_1 - |W|_F²) for W >= 0 (no d×d temporary)."""
    column_sums = W.sum(axis=0)
    return float(alpha * np.sum((W @ (A_S - S)) * W) + beta * np.sum(np.sqrt(np.sum(W * W, axis=1)))
                 + gamma * (np.sum(column_sums * column_sums) - np.sum(W * W)))


def objective(X, Y, W, S, A_S, alpha, beta, gamma) -> float:
    """The SRFS objective (module docstring) at W (d, L) >= 0, with the fit term computed directly."""
    residual = X @ W - Y
    return float(np.sum(residual * residual)) + penalties(W, S, A_S, alpha, beta, gamma)


def srfs(X: np.ndarray, Y: np.ndarray, params: dict, W0: np.ndarray) -> tuple[np.ndarray, dict]:
    """Run the multiplicative updates; return W (d, L) and info (iterations, objective trace).

    X'XW is computed once per iteration and shared by the update and the objective: from the
    cached X'X when d <= n (the fit term is then |XW-Y|² = <W, X'XW> - 2<W, X'Y> + |Y|²), else as
    X'(XW) with no d×d memory.
    """
    alpha, beta, gamma = (float(params[k]) for k in ("alpha", "beta", "gamma"))
    S = label_cosine_similarity(Y)
    A_S = np.diag(S.sum(axis=1))
    XtY = X.T @ Y
    products = GramProducts(X, Y, XtY)
    W = np.array(W0, dtype=np.float64)
    gram_w, _ = products(W)
    trace = []
    for _ in range(int(params["max_iter"])):
        D = 1.0 / (2.0 * np.sqrt(np.sum(W * W, axis=1)) + EPSILON)
        numerator = XtY + alpha * (W @ S) + gamma * W
        denominator = gram_w + alpha * (W @ A_S) + beta * (D[:, None] * W) + gamma * W.sum(axis=0)[None, :]
        W = W * numerator / np.maximum(denominator, EPSILON)
        gram_w, fit = products(W)
        trace.append(fit + penalties(W, S, A_S, alpha, beta, gamma))
        if params["tol"] > 0 and len(trace) > 1 and abs(trace[-2] - trace[-1]) <= params["tol"] * abs(trace[-2]):
            break
    return W, {"iterations": len(trace), "objective": trace}


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`).

    ``init['W0']`` (d, L) is the start. Returns the (d,) scores and info: iterations, objective trace.
    """
    for key in ("alpha", "beta", "gamma", "tol"):
        if not float(params[key]) >= 0:
            raise ConfigError("SRFS parameter must be >= 0", field=key, found=params[key])
    if int(params["max_iter"]) < 1:
        raise ConfigError("SRFS needs at least one iteration", field="max_iter", found=params["max_iter"])
    W, info = srfs(X, Y, params, nonnegative_start(init, "W0", (X.shape[1], Y.shape[1]), "SRFS"))
    return np.sqrt(np.sum(W * W, axis=1)), info


SPEC = MethodSpec.shipped("SRFS", scores=feature_scores, matlab_function="SRFS",
                          make_init=make_init, nonnegative_features=True,
                          summary="sparse supplementation, multiplicative updates (Li et al. 2025)")
