"""MDFS: manifold regularised discriminative feature selection (Zhang, Luo, Li, Zhou, Li, Pattern
Recognition 95, 2019).

Follows the authors' code (``jiazhang-ml/MDFS``, ``function/MDFS.m``, ``function/Laplacian_GK.m``,
``demo.m``; docs/methods/MDFS.md, with the line numbers). With X (n, d), the labels as signs
S = 2Y − 1 (the code's convention: 1 for a label, −1 otherwise), H = I − 11ᵀ/n the centring matrix,
Lx the Laplacian of the binary k-NN graph of the instances and L0 that of the labels (``Laplacian_GK``:
k nearest by Euclidean distance, the first of the stable order skipped as the point itself,
G = (G + Gᵀ)/2), MDFS minimises over the latent labels F (n, L) and W (d, L)

    tr(FᵀLxF) + α‖HXW − HF‖²_F + α‖F − S‖²_F + β tr(F L0 Fᵀ) + γ‖W‖₂,₁

alternating, from the random start W:

1. F solves (Lx + αH + αI) F + F (β L0) = αHXW + αS          (the code's ``lyap``)
2. W = (α XᵀHX + γD + eps I)⁻¹ αXᵀHF,  D = diag(0.5 / √(‖w_j‖² + eps)) of the previous W

until the relative change of the objective is below ``tol`` (from the second iteration on) or
``max_iter`` iterations ran. k = ``neighbours``, or L − 1 when it is 0 (the demo's
``para.k = num_label − 1``: the label graph is then complete). The score is Σ_l W_jl², the one the
demo sorts; the harness orders it.

Both coefficient matrices of step 1 are symmetric and fixed, and A = Lx + αH + αI is positive
definite for α > 0 while βL0 is semidefinite, so step 1 is solved from their eigendecompositions,
computed once: F = P [(PᵀRQ) ⊘ (λ_i + μ_j)] Qᵀ with A = PΛPᵀ, βL0 = QMQᵀ and R the right-hand side.

Deviations from the authors' code (docs/methods/MDFS.md): the Sylvester equation is solved by the
eigendecompositions above instead of ``lyap`` (Bartels–Stewart) each iteration (rounding-level
differences, O(n²L) per iteration instead of O(n³)); HX is formed as the column-centred X;
``max_iter`` caps the loop, which the code leaves unbounded; the start W comes from the harness
(``make_init``) instead of unseeded ``rand``; the demo's PCA of the features (which ranks
principal components, not features) is not applied.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError, DataError
from ._common import MATLAB_EPS, knn_binary_laplacian, solve_symmetric
from .base import MethodSpec
from .starts import UniformStream

#: The project's suggested sweep of α, β, γ over 10^-3..10^3 (the authors' code ships no grid).
GRID = {key: [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3] for key in ("alpha", "beta", "gamma")}


def make_init(n: int, d: int, n_labels: int, stream: UniformStream, params: dict) -> dict:
    """Initial W0 (d, L) ~ U(0,1) (the code's only draw)."""
    return {"W0": stream.matrix(d, n_labels)}


def graph_neighbours(params: dict, n_labels: int) -> int:
    """k of both graphs: ``neighbours``, or L − 1 when it is 0 (the demo's setting)."""
    return int(params["neighbours"]) or n_labels - 1


class SymmetricSylvester:
    """Solver of A F + F B = R for fixed symmetric A (n, n) and B (L, L) with λ_i(A) + μ_j(B) > 0,
    from their eigendecompositions (computed once). Twin: the nested function in ``MDFS.m``."""

    def __init__(self, A: np.ndarray, B: np.ndarray):
        self._a_values, self._a_vectors = np.linalg.eigh(A)
        self._b_values, self._b_vectors = np.linalg.eigh(B)
        self._denominators = self._a_values[:, None] + self._b_values[None, :]

    def solve(self, R: np.ndarray) -> np.ndarray:
        rotated = self._a_vectors.T @ R @ self._b_vectors
        return self._a_vectors @ (rotated / self._denominators) @ self._b_vectors.T


def _objective(F, Fc, XcW, S, W, laplacians, alpha, beta, gamma) -> float:
    instance_laplacian, label_laplacian = laplacians
    fit = XcW - Fc
    label_fit = F - S
    return float(np.sum(F * (instance_laplacian @ F)) + alpha * np.sum(fit * fit)
                 + alpha * np.sum(label_fit * label_fit) + beta * np.sum(F * (F @ label_laplacian))
                 + gamma * np.sum(np.sqrt(np.sum(W * W, axis=1) + MATLAB_EPS)))


def mdfs(X: np.ndarray, Y: np.ndarray, params: dict, W0: np.ndarray) -> tuple[np.ndarray, dict]:
    """Run MDFS on a validated float64 fold X (n, d), Y (n, L) in {0, 1}; return W (d, L) and the
    info dict (neighbours, iterations, objective trace)."""
    n, d = X.shape
    alpha, beta, gamma = (float(params[key]) for key in ("alpha", "beta", "gamma"))
    k = graph_neighbours(params, Y.shape[1])
    if n <= k:
        raise DataError("MDFS's instance graph needs more training rows than neighbours", field="X_train",
                        expected=f"at least {k + 1} rows (neighbours = {k})", found=n)
    if Y.shape[1] <= k:
        raise ConfigError("MDFS's label graph needs more labels than neighbours", field="neighbours",
                          expected=f"at most {Y.shape[1] - 1} (0: L - 1)", found=params["neighbours"])
    S = 2.0 * Y - 1.0
    laplacians = (knn_binary_laplacian(X.T, k), knn_binary_laplacian(S, k))
    centring = np.eye(n) - 1.0 / n
    sylvester = SymmetricSylvester(laplacians[0] + alpha * centring + alpha * np.eye(n), beta * laplacians[1])
    Xc = X - X.mean(axis=0)
    gram = alpha * (Xc.T @ Xc)
    W = np.array(W0, dtype=np.float64)
    objective = []
    previous = 1.0
    for _ in range(int(params["max_iter"])):
        F = sylvester.solve(alpha * (Xc @ W) + alpha * S)
        row_weights = 0.5 / np.sqrt(np.sum(W * W, axis=1) + MATLAB_EPS)
        system = gram.copy()
        system[np.diag_indices(d)] += gamma * row_weights + MATLAB_EPS
        Fc = F - F.mean(axis=0)
        W = solve_symmetric(system, alpha * (Xc.T @ Fc))
        objective.append(_objective(F, Fc, Xc @ W, S, W, laplacians, alpha, beta, gamma))
        change = abs((objective[-1] - previous) / previous)
        previous = objective[-1]
        if change < float(params["tol"]) and len(objective) > 1:
            break
    return W, {"neighbours": k, "iterations": len(objective), "objective": objective}


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`).

    ``init`` holds W0 (d, L). Returns Σ_l W_jl² and the info.
    """
    shape = (X.shape[1], Y.shape[1])
    if "W0" not in init or np.shape(init["W0"]) != shape:
        raise ConfigError("MDFS initial matrix missing or of the wrong shape", field="init.W0", expected=shape,
                          found=np.shape(init["W0"]) if "W0" in init else "missing")
    W, info = mdfs(X, Y, params, init["W0"])
    return np.sum(W * W, axis=1), info


SPEC = MethodSpec.shipped("MDFS", scores=feature_scores, matlab_function="MDFS", make_init=make_init,
                          nonnegative_features=True,
                          summary="manifold-regularised latent labels, l2,1 regression (Zhang et al. 2019)")
