"""LSMFS: the embedded MLFS method of the public code ``HQUF/LSMFS`` (paper not identified).

Replicates ``LSMFS.m`` of ``HQUF/LSMFS`` as the code behaves (docs/methods/LSMFS.md, with the line
numbers). With X (n, d), Y (n, L), B = 2Y - 1 and the label Laplacian L_y of the binary (L-1)-NN
graph of the label columns (= L·I - 11' whenever the label columns are pairwise distinct: it
carries no information from Y), at most ``max_iter`` (20) iterations while
|obj_{t-1} - obj_t| > ``tol`` (1e-6):

1. M = Y + B⊙S
2. thin SVD W = U Σ P'
3. W = (X'X + γD)⁻¹ (X'V - λ U P')
4. V = (XW + βM) (αI + βL_y' + βL_y)⁻¹
5. S = max(B⊙(V - Y), 0)
6. D = diag(0.5 / (|w_i| + eps))
7. obj = |XW - V|² + α|V - M|² + β tr(V L_y V') + γ tr(W'DW) + λ Σ_i |w_i|

The score is the squared row norm of W, the one the code sorts; the harness orders it (``rank_scores``).

Traps kept on purpose (faithful replication): step 4 is not the minimiser of the objective, and
for α ≲ 1 + β it multiplies V by up to ~(1+β)/α per iteration, so such a run grows every iteration
and uses all 20 iterations (still deterministic and well conditioned, so both engines agree); the
last objective term is the code's element-wise ``sqrt(W*W')`` trace, i.e. Σ_i |w_i| rather than the
nuclear norm whose sub-gradient U P' drives step 3. A row of W whose feature column is all zero is
driven by -λ U P' alone and can grow, so constant features may rank first, as in the code.

Defaults: the repository has no driver. The sibling driver ``HQUF/LRMFS`` ``LRMFSKNN.m`` uses
α = 0.1, β = γ = λ = 1, which lies in the growing region (on medical and genbase the W-step system
then turns singular); the defaults are α = 10, β = 0.1, γ = λ = 1, which settle on every fold of
the paper's 17 data sets (docs/methods/LSMFS.md).

Deviations from the public code: linear systems are solved instead of forming explicit inverses,
and step 3 is solved in the equivalent scaled form E(E X'X E + γI)⁻¹E with E = D^(-1/2), which is
better scaled; a W-step system that is singular to working precision stops the run as a
divergence (:func:`weight_step`); X'X is cached; the starts W0, V0, S0 come from the harness
(``make_init``, in the code's order; the code's random M is overwritten before use and is not
drawn); the label distances are computed directly (no statistics package); a divergence guard
stops a run whose iterates become non-finite or exceed ``divergence_limit`` (:mod:`._divergence`).
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError, EngineError
from ._common import MATLAB_EPS, gram_matrix, gram_operand, knn_binary_laplacian, sparse_if_mostly_zero
from ._divergence import check_iterates, check_limit
from .base import MethodSpec
from .starts import UniformStream

#: Smallest admissible (min/max)² of the Cholesky pivots of the scaled W-step system.
PIVOT_RATIO_LIMIT = 1e-14


def make_init(n: int, d: int, n_labels: int, stream: UniformStream, params: dict) -> dict:
    """Initial W0 (d, L), V0 (n, L) and S0 (n, L) ~ U(0,1), drawn in the code's order."""
    return {"W0": stream.matrix(d, n_labels), "V0": stream.matrix(n, n_labels), "S0": stream.matrix(n, n_labels)}


def label_laplacian(Y: np.ndarray) -> np.ndarray:
    """The code's ``Laplacian_GK1(Y, k = L-1)`` over the label columns (L, L)."""
    return knn_binary_laplacian(Y, Y.shape[1] - 1)


def objective(XW, W, V, M, L_y, D, params) -> float:
    """The code's stopping value (step 7) at the current iterates (XW = X @ W)."""
    row_norm2 = np.sum(W * W, axis=1)
    return float(np.sum((XW - V) ** 2) + params["alpha"] * np.sum((V - M) ** 2)
                 + params["beta"] * np.sum((V @ L_y) * V) + params["gamma"] * np.sum(D * row_norm2)
                 + params["lambda"] * np.sum(np.sqrt(row_norm2)))


def weight_step(XtX: np.ndarray, D: np.ndarray, gamma: float, rhs: np.ndarray, iteration: int) -> np.ndarray:
    """Step 3, (X'X + γD)⁻¹ rhs, solved in the scaled form E (E X'X E + γI)⁻¹ E rhs, E = D^(-1/2).

    The same matrix in exact arithmetic, better scaled. When rows of W grow (α ≲ 1 + β), D decays
    and on rank-deficient data (all-zero or duplicated columns of sparse sets) the system becomes
    singular to working precision, where the code's ``inv`` returns Inf or noise. That is a
    divergence: EngineError when the Cholesky factorisation fails or its squared pivot ratio
    (min/max)² falls below :data:`PIVOT_RATIO_LIMIT`. Twin: the same lines in ``LSMFS.m``.
    """
    from scipy.linalg import cho_solve  # imported here, not with the module: see _common.py

    scale = 1.0 / np.sqrt(D)
    system = scale[:, None] * XtX * scale[None, :]
    system[np.diag_indices(D.size)] += gamma
    try:
        factor = np.linalg.cholesky(system)
    except np.linalg.LinAlgError:
        factor = None
    pivots = np.abs(np.diag(factor)) if factor is not None else np.zeros(1)
    ratio = float((pivots.min() / pivots.max()) ** 2) if pivots.max() > 0 else 0.0
    if not ratio >= PIVOT_RATIO_LIMIT:
        raise EngineError(f"LSMFS diverged at iteration {iteration}: the W-step system X'X + gamma D is "
                          "singular to working precision (rows of W grew without bound)", field="W",
                          expected=f"squared Cholesky pivot ratio >= {PIVOT_RATIO_LIMIT:g}", found=f"{ratio:.3g}")
    return scale[:, None] * cho_solve((factor, True), scale[:, None] * rhs)


def lsmfs(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Run LSMFS on validated X (n, d), Y (n, L); return W (d, L) and info (iterations, objective)."""
    d, n_labels = X.shape[1], Y.shape[1]
    alpha, beta, gamma, lam = (float(params[k]) for k in ("alpha", "beta", "gamma", "lambda"))
    limit = check_limit("LSMFS", params["divergence_limit"])
    L_y = label_laplacian(Y)
    B = 2.0 * Y - 1.0
    XtX = gram_matrix(gram_operand(X))
    X = sparse_if_mostly_zero(X)
    label_system = alpha * np.eye(n_labels) + beta * L_y.T + beta * L_y
    W, V, S = (np.array(init[key], dtype=np.float64) for key in ("W0", "V0", "S0"))
    D = np.ones(d)
    trace = []
    err, t = 1.0, 1
    while err > float(params["tol"]) and t <= int(params["max_iter"]):
        M = Y + B * S
        U, _, Pt = np.linalg.svd(W, full_matrices=False)
        W = weight_step(XtX, D, gamma, X.T @ V - lam * (U @ Pt), t)
        XW = X @ W
        V = np.linalg.solve(label_system.T, (XW + beta * M).T).T
        S = np.maximum(B * (V - Y), 0.0)
        D = 0.5 / (np.sqrt(np.sum(W * W, axis=1)) + MATLAB_EPS)
        check_iterates("LSMFS", t, limit, W=W, V=V)
        trace.append(objective(XW, W, V, M, L_y, D, params))
        if t > 1:
            err = abs(trace[-2] - trace[-1])
        t += 1
    return W, {"iterations": len(trace), "objective": trace, "V": V.tolist()}


def _check(params: dict, init: dict, n: int, d: int, n_labels: int) -> None:
    for key in ("alpha", "beta", "lambda", "tol"):
        if not float(params[key]) >= 0:
            raise ConfigError("LSMFS parameter must be >= 0", field=key, found=params[key])
    if not float(params["gamma"]) > 0:
        raise ConfigError("LSMFS gamma must be > 0 (it keeps the W-step system non-singular)",
                          field="gamma", found=params["gamma"])
    if not float(params["tol"]) < 1:
        raise ConfigError("LSMFS tol must be below 1 (the code starts with err = 1, so no iteration "
                          "would run)", field="tol", found=params["tol"])
    if int(params["max_iter"]) < 1:
        raise ConfigError("LSMFS needs at least one iteration", field="max_iter", found=params["max_iter"])
    for key, shape in {"W0": (d, n_labels), "V0": (n, n_labels), "S0": (n, n_labels)}.items():
        if key not in init or np.shape(init[key]) != shape:
            raise ConfigError("LSMFS initial matrix missing or of the wrong shape", field=f"init.{key}",
                              expected=shape, found=np.shape(init[key]) if key in init else "missing")


def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict, init: dict) -> tuple[np.ndarray, dict]:
    """Benchmark entry point, the harness's minimal form (:mod:`pipeline.methods.base`).

    ``init`` holds W0 (d, L), V0 and S0 (n, L). Returns the (d,) scores and info: iterations,
    objective trace, the final W and V.

    Raises
    ------
    EngineError
        When the iterates diverge (non-finite or above ``divergence_limit``), naming the iteration.
    """
    n, d = X.shape
    _check(params, init, n, d, Y.shape[1])
    W, info = lsmfs(X, Y, params, init)
    info["W"] = W.tolist()
    return np.sum(W * W, axis=1), info


SPEC = MethodSpec.shipped("LSMFS", scores=feature_scores, matlab_function="LSMFS",
                          make_init=make_init, nonnegative_features=True,
                          summary="latent labels + dragged targets, l2,1 IRLS (HQUF code)")
