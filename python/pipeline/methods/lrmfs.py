"""LRMFS: multi-label feature selection via label relaxation (Fan, Liu, Liu, ASOC 175, 2025).

Follows the authors' public code (``LRMFS.m`` of ``HQUF/LRMFS``; docs/methods/LRMFS.md, with the
line numbers): iteratively reweighted least squares for an l2,1-loss regression onto ε-dragged
("relaxed") labels F = Y + B⊙S, with a ridge term α, an l2,1 row penalty λ and a "structured
subspace" Q that is the solution of a homogeneous Sylvester equation. With X (n, d), Y (n, L) and at most ``max_iter`` iterations while |Δobj| > ``tol``:

1. F = Y + B⊙S                       (B = +1 where Y = 1, -1 elsewhere)
2. A = Q'W                            (enters the objective only)
3. C = X' Dz X + αI + λD,  W = (C - αQQ')⁻¹ X' Dz F
4. Q solves U1 Q + Q U2 = 0 with U1 = 2β L_X - α(P + P'), U2 = 2γ L_Y,
   P = (I - αC)⁻¹ C⁻¹X'DzF F'DzX C⁻¹   (L_X: binary 20-NN feature graph, L_Y: complete label graph)
5. S = max(B⊙(XW - Y), 0)
6. V = XW - F;  Dz = diag(0.5 / (|v_i| + eps)),  D = diag(0.5 / (|w_j| + eps))
7. obj = tr(V'DzV) + α|W - QA|² + β tr(Q'L_X Q) + γ tr(Q L_Y Q') + λ tr(W'DW)

The score is the squared row norm of W, the one the code sorts; the harness orders it (``rank_scores``).

Modes. Step 4 is homogeneous, so whenever the Sylvester operator is non-singular its solution is
exactly Q = 0: β, γ, L_X and L_Y never change the ranking (tested in both modes). ``mode="faithful"``
runs step 4 literally and raises ConfigError if the operator is singular (a non-unique Q);
``mode="fast"`` (the default) sets Q = 0 from the first Q-step on and skips step 4 and the graphs,
saving two d×d inverses and a Sylvester solve per iteration. Both give the same W, hence the same
ranking and objective trace (tested).

Deviations from the public code (docs/methods/LRMFS.md): Dz is kept as a length-n vector, not a
dense n×n matrix, and X'DzX is formed as Xs'Xs with Xs = sqrt(Dz) X (a symmetric rank-k product:
half the flops, exactly symmetric); linear systems are solved instead of forming explicit inverses; the random starts W, Q, S come from the harness (``make_init``) instead
of unseeded ``rand`` (the code's random F is overwritten before use and is not drawn); the paper's
learned graphs and active subspace are not in the public code, and the benchmark follows the code.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError, DataError
from ._common import (MATLAB_EPS, gram_matrix, gram_operand, knn_binary_laplacian, solve_symmetric,
                      sparse_if_mostly_zero)
from .base import MethodSpec
from .starts import UniformStream

FEATURE_GRAPH_K = 20
#: The project's suggested sweep (the paper's grid was not available): α, λ over 10^-3..10^3;
#: β and γ are inert and stay at 1.
GRID = {"alpha": [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3], "lambda": [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3]}


def make_init(n: int, d: int, n_labels: int, stream: UniformStream, params: dict) -> dict:
    """Initial W0 (d, L), Q0 (d, L) and S0 (n, L) ~ U(0,1), in this order (the code draws W, F, Q, S
    and overwrites F before use; F is not drawn)."""
    return {"W0": stream.matrix(d, n_labels), "Q0": stream.matrix(d, n_labels),
            "S0": stream.matrix(n, n_labels)}


def _check_params(params: dict, init: dict, n: int, d: int, n_labels: int) -> None:
    if params["mode"] not in MODES:
        raise ConfigError("unknown LRMFS mode", field="mode", expected=MODES, found=params["mode"])
    for key in ("alpha", "beta", "gamma", "lambda", "tol"):
        if not float(params[key]) >= 0:
            raise ConfigError("LRMFS parameter must be >= 0", field=key, found=params[key])
    if not float(params["tol"]) < 1:
        raise ConfigError("LRMFS tol must be below 1 (the code starts with err = 1, so no iteration "
                          "would run)", field="tol", found=params["tol"])
    if int(params["max_iter"]) < 1:
        raise ConfigError("LRMFS needs at least one iteration", field="max_iter", found=params["max_iter"])
    shapes = {"W0": (d, n_labels), "Q0": (d, n_labels), "S0": (n, n_labels)}
    for key, shape in shapes.items():
        if key not in init or np.shape(init[key]) != shape:
            raise ConfigError("LRMFS initial matrix missing or of the wrong shape", field=f"init.{key}",
                              expected=shape, found=np.shape(init[key]) if key in init else "missing")


def _subspace_step(X, dz, F, C, graphs, alpha, beta, gamma):
    """Step 4: solve U1 Q + Q U2 = 0; ConfigError if the Sylvester operator is singular."""
    from scipy.linalg import solve_sylvester  # imported here, not with the module: see _common.py

    L_X, L_Y = graphs
    d = C.shape[0]
    M = np.linalg.solve(C, X.T @ (dz[:, None] * F))
    P = np.linalg.solve(np.eye(d) - alpha * C, M @ M.T)
    U1 = 2.0 * beta * L_X - alpha * (P + P.T)
    U2 = 2.0 * gamma * L_Y
    eig1 = np.linalg.eigvalsh((U1 + U1.T) / 2.0)
    eig2 = np.linalg.eigvalsh(U2)
    separation = np.min(np.abs(eig1[:, None] + eig2[None, :]))
    scale = np.max(np.abs(eig1)) + np.max(np.abs(eig2))
    if not separation > 1e-12 * scale:
        raise ConfigError("LRMFS subspace step: the Sylvester operator is singular, Q is not unique",
                          found=f"min |eig(U1) + eig(U2)| = {separation:.3g}")
    return solve_sylvester(U1, U2, np.zeros((d, L_Y.shape[0])))


def _objective(V, dz, W, Q, A, D, graphs, alpha, beta, gamma, lam) -> float:
    value = np.sum(dz * np.sum(V * V, axis=1)) + alpha * np.sum((W - Q @ A) ** 2)
    if graphs is not None:
        L_X, L_Y = graphs
        value += beta * np.trace(Q.T @ L_X @ Q) + gamma * np.trace(Q @ L_Y @ Q.T)
    return float(value + lam * np.sum(D * np.sum(W * W, axis=1)))


def lrmfs(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Run LRMFS on validated float64 X (n, d), Y (n, L); return W (d, L) and the info dict."""
    n, d = X.shape
    n_labels = Y.shape[1]
    alpha, beta, gamma, lam = (float(params[k]) for k in ("alpha", "beta", "gamma", "lambda"))
    faithful = params["mode"] == "faithful"
    graphs = None
    if faithful:
        if d <= FEATURE_GRAPH_K:
            raise DataError("LRMFS (faithful mode) needs more features than feature-graph neighbours",
                            field="X_train", expected=f"d >= {FEATURE_GRAPH_K + 1}", found=f"d = {d}")
        graphs = (knn_binary_laplacian(X, FEATURE_GRAPH_K), knn_binary_laplacian(Y, n_labels - 1))
    B = np.where(Y == 1, 1.0, -1.0)
    W = np.array(init["W0"], dtype=np.float64)
    Q = np.array(init["Q0"], dtype=np.float64)
    S = np.array(init["S0"], dtype=np.float64)
    D = np.ones(d)
    dz = np.ones(n)
    gram_X = gram_operand(X)
    products_X = sparse_if_mostly_zero(X)
    objective, max_abs_q = [], []
    err, t = 1.0, 1
    while err > float(params["tol"]) and t <= int(params["max_iter"]):
        F = Y + B * S
        A = Q.T @ W
        C = gram_matrix(gram_X, np.sqrt(dz))
        C[np.diag_indices(d)] += alpha  # C = X'DzX + αI + λ diag(D), in place
        C[np.diag_indices(d)] += lam * D
        system = C if not Q.any() else C - alpha * (Q @ Q.T)  # Q = 0 from the first Q-step in fast mode
        W = solve_symmetric(system, products_X.T @ (dz[:, None] * F))
        if faithful:
            Q = _subspace_step(X, dz, F, C, graphs, alpha, beta, gamma)
            max_abs_q.append(float(np.max(np.abs(Q))))
        else:
            Q = np.zeros_like(Q)
        XW = products_X @ W
        S = np.maximum(B * (XW - Y), 0.0)
        V = XW - F
        dz = 0.5 / (np.sqrt(np.sum(V * V, axis=1)) + MATLAB_EPS)
        D = 0.5 / (np.sqrt(np.sum(W * W, axis=1)) + MATLAB_EPS)
        objective.append(_objective(V, dz, W, Q, A, D, graphs, alpha, beta, gamma, lam))
        if t > 1:
            err = abs(objective[-2] - objective[-1])
        t += 1
    info = {"iterations": len(objective), "objective": objective, "mode": params["mode"]}
    if faithful:
        info["max_abs_Q"] = max_abs_q
    return W, info


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`).

    ``init`` holds W0, Q0 (d, L) and S0 (n, L). Returns the (d,) scores and info: iterations,
    objective trace, mode (and the max |Q| after each Q-step in faithful mode).
    """
    n, d = X.shape
    _check_params(params, init, n, d, Y.shape[1])
    W, info = lrmfs(X, Y, params, init)
    return np.sum(W * W, axis=1), info


SPEC = MethodSpec.shipped("LRMFS", scores=feature_scores, matlab_function="LRMFS",
                          make_init=make_init, nonnegative_features=True,
                          summary="label relaxation + l2,1 IRLS (Fan et al. 2025)")
MODES = SPEC.allowed["mode"].choices
