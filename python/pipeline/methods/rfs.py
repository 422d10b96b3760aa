"""RFS: efficient and robust feature selection via joint l2,1-norm minimisation (Nie, Huang, Cai,
Ding, NIPS 2010).

Follows the MLC_toolbox implementation (``KKimura360/MLC_toolbox``, ``function/FSDR/RFS/``;
docs/methods/RFS.md, with the line numbers). With X (n, d) prefixed by a column of ones (the bias
b is absorbed into W, so X₁ is n × (d+1)), RFS minimises

    ‖X₁W − Y‖₂,₁ + ‖αW‖₂,₁

by iterative reweighting, in one of two forms chosen by the shape of X₁, as the toolbox does:

- "augmented" (d + 1 > n, the paper's algorithm): A = [X₁, αI_n], U = D Aᵀ (A D Aᵀ)⁻¹ Y and
  D = diag(2 √(‖u_i‖² + eps)); W is the first d + 1 rows of U; objective Σ_i ‖u_i‖.
- "reweighted" (d + 1 <= n): W = (X₁ᵀ Hn X₁ + α² Hm)⁻¹ X₁ᵀ Hn Y with Hn = diag(0.5 / √(‖r_i‖² +
  eps)), r_i the residual rows, and Hm = diag(0.5 / √(‖α w_j‖² + eps)); objective
  Σ_i ‖r_i‖ + Σ_j ‖α w_j‖.

Both start from unit weights and run at most ``max_iter`` updates, stopping after the first one
whose objective moved by less than ``tol``, absolutely or relatively (``objective_settled``). The
score is the squared row norm of W without the bias row, the one the toolbox sorts; the harness
orders it. Deterministic.

Deviations from the toolbox code (docs/methods/RFS.md): the toolbox's ``maxIt`` = 100 runs at most
99 updates (``while t < maxIt``), so ``max_iter`` counts updates and defaults to 99; the augmented
form solves (A D Aᵀ) Z = Y and forms D Aᵀ Z instead of (D Aᵀ (A D Aᵀ)⁻¹) Y (n × L right-hand
sides instead of (d + 1 + n) × n: rounding-level differences); the selection of ``dim`` features
and the classifier trained on them are the harness's.
"""

from __future__ import annotations

import numpy as np

from ._common import MATLAB_EPS, solve_symmetric
from .base import MethodSpec

#: The project's suggested sweep of α over 10^-3..10^3 (the paper reports no tuning grid).
GRID = {"alpha": [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3]}


def objective_settled(previous: float, current: float, tol: float) -> bool:
    """The stopping test of the MLC_toolbox methods (RFS, MIFS): the objective moved by less than
    ``tol``, absolutely or relative to its previous value. Twin: ``mlfs_objective_settled.m``."""
    change = abs(current - previous)
    return change < tol or change / previous < tol


def _augmented_step(A: np.ndarray, weights: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """U = D Aᵀ (A D Aᵀ)⁻¹ Y for D = diag(weights)."""
    weighted_At = weights[:, None] * A.T
    return weighted_At @ solve_symmetric(A @ weighted_At, Y)


def _augmented(X1: np.ndarray, Y: np.ndarray, alpha: float, max_iter: int, tol: float):
    n = X1.shape[0]
    A = np.hstack([X1, alpha * np.eye(n)])
    weights = np.ones(A.shape[1])
    objective = []
    for _ in range(max_iter):
        U = _augmented_step(A, weights, Y)
        row_squares = np.sum(U * U, axis=1)
        weights = 2.0 * np.sqrt(row_squares + MATLAB_EPS)
        objective.append(float(np.sum(np.sqrt(row_squares))))
        if len(objective) > 1 and objective_settled(objective[-2], objective[-1], tol):
            break
    return U[:X1.shape[1]], objective


def _reweighted(X1: np.ndarray, Y: np.ndarray, alpha: float, max_iter: int, tol: float):
    residual_weights = np.ones(X1.shape[0])
    row_weights = np.ones(X1.shape[1])
    objective = []
    for _ in range(max_iter):
        weighted_X = residual_weights[:, None] * X1
        system = weighted_X.T @ X1
        system[np.diag_indices_from(system)] += alpha ** 2 * row_weights
        W = solve_symmetric(system, weighted_X.T @ Y)
        residual = X1 @ W - Y
        residual_squares = np.sum(residual * residual, axis=1)
        row_squares = np.sum((alpha * W) ** 2, axis=1)
        residual_weights = 0.5 / np.sqrt(residual_squares + MATLAB_EPS)
        row_weights = 0.5 / np.sqrt(row_squares + MATLAB_EPS)
        objective.append(float(np.sum(np.sqrt(residual_squares)) + np.sum(np.sqrt(row_squares))))
        if len(objective) > 1 and objective_settled(objective[-2], objective[-1], tol):
            break
    return W, objective


def rfs(X: np.ndarray, Y: np.ndarray, params: dict) -> tuple[np.ndarray, dict]:
    """Run RFS on a validated float64 fold X (n, d), Y (n, L); return W (d+1, L), bias row first,
    and the info dict (form, iterations, objective trace)."""
    X1 = np.hstack([np.ones((X.shape[0], 1)), X])
    form = "augmented" if X1.shape[1] > X1.shape[0] else "reweighted"
    solver = _augmented if form == "augmented" else _reweighted
    W, objective = solver(X1, Y, float(params["alpha"]), int(params["max_iter"]), float(params["tol"]))
    return W, {"form": form, "iterations": len(objective), "objective": objective}


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`);
    deterministic. Returns Σ_l W_jl² of the feature rows (the bias row left out) and the info."""
    W, info = rfs(X, Y, params)
    features = W[1:]
    return np.sum(features * features, axis=1), info


SPEC = MethodSpec.shipped("RFS", scores=feature_scores, matlab_function="RFS", nonnegative_features=True,
                          summary="joint l2,1-norm loss and penalty, reweighted (Nie et al. 2010)")
