"""Helpers shared by the NumPy baselines (LRMFS, GRRO, SRFS, SCNMF, LSMFS, LRDG, RFSFS).

Each helper has a MATLAB/Octave twin under ``matlab/util/`` doing the same operations in the same
order (named in the docstrings), so the two engines agree to rounding level.
"""

from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError

from ..errors import ConfigError, DataError

# The methods import SciPy inside the functions that use it: every command that lists the methods
# (their --help, `python -m pipeline.methods list`) imports these modules, and SciPy's sparse,
# linalg and spatial modules take longer to import than NumPy itself.

MATLAB_EPS = float(np.finfo(np.float64).eps)
#: Below this share of non-zero entries a feature matrix is multiplied as a sparse matrix.
SPARSE_DENSITY = 0.3
#: Below this share of non-zero entries X'X is computed from the sparse form: the sparse product
#: beats the dense symmetric rank-k product there (bibtex, 3.7 % non-zero: 0.16 s vs 0.53 s;
#: the Yahoo sets, 6-8 %: about even; enron, 9 %: twice slower).
SPARSE_GRAM_DENSITY = 0.05


def check_training_data(X, Y, method: str, nonnegative: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validate a training fold and return it as float64 arrays.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Finite, non-negative training features (min-max scaled in the benchmark).
    Y : array-like of shape (n, L)
        Labels in {0, 1}.
    method : str
        Named in the error messages.
    nonnegative : bool
        Whether negative features are refused (the factorisation baselines need X >= 0).

    Raises
    ------
    DataError
        For non-2-D inputs, mismatched rows, non-finite or negative features, or other labels.
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y)
    if X.ndim != 2 or Y.ndim != 2:
        raise DataError(f"{method} needs 2-D X (n, d) and Y (n, L)", field="X_train/Y_train",
                        found=f"X {X.shape}, Y {Y.shape}")
    if X.shape[0] != Y.shape[0]:
        raise DataError(f"{method}: X and Y have different row counts", field="Y_train",
                        expected=f"{X.shape[0]} rows", found=f"{Y.shape[0]} rows")
    if not np.all(np.isfinite(X)):
        raise DataError(f"{method} needs finite training features", field="X_train",
                        found=f"{int(np.sum(~np.isfinite(X)))} non-finite values")
    if nonnegative and X.size and X.min() < 0:
        raise DataError(f"{method} needs non-negative (min-max scaled) features", field="X_train",
                        found=f"minimum {X.min():g}")
    if not np.isin(Y, (0, 1)).all():
        raise DataError(f"{method} needs labels in {{0,1}}", field="Y_train",
                        found=f"values {np.unique(Y)[:5]}")
    return X, Y.astype(np.float64)


def nonnegative_start(init: dict, key: str, shape: tuple[int, ...], method: str) -> np.ndarray:
    """Return ``init[key]`` as float64 if it is a non-negative array of ``shape``, else ConfigError."""
    start = init.get(key)
    if start is None or np.shape(start) != shape or np.min(start) < 0:
        raise ConfigError(f"{method} initial matrix missing, of the wrong shape or negative", field=f"init.{key}",
                          expected=f"non-negative {shape}", found="missing" if start is None else np.shape(start))
    return np.asarray(start, dtype=np.float64)


def sparse_if_mostly_zero(X: np.ndarray):
    """X (n, d) as a CSR matrix when under :data:`SPARSE_DENSITY` of it is non-zero, else X itself.

    Speed only: the text data sets are 92-99 % zeros, and a product with the sparse form skips
    them (the same products up to the order of the additions). Twin: ``mlfs_sparse_if_mostly_zero.m``.
    """
    import scipy.sparse as sp

    return sp.csr_matrix(X) if np.count_nonzero(X) < SPARSE_DENSITY * X.size else X


def gram_operand(X: np.ndarray):
    """X (n, d) as a CSR matrix when under :data:`SPARSE_GRAM_DENSITY` of it is non-zero, else X."""
    import scipy.sparse as sp

    return sp.csr_matrix(X) if np.count_nonzero(X) < SPARSE_GRAM_DENSITY * X.size else X


def gram_matrix(X, row_scale: np.ndarray | None = None) -> np.ndarray:
    """(RX)'(RX) (d, d), R = diag(row_scale) (the identity when None), dense and exactly symmetric.

    ``X`` (n, d) is an array or the CSR matrix of :func:`gram_operand`: a symmetric rank-k
    product of the array, or the sparse product (the same sums in another order). Twin:
    ``mlfs_gram_matrix.m``.
    """
    import scipy.sparse as sp

    if sp.issparse(X):
        scaled = X if row_scale is None else sp.diags(row_scale) @ X
        return (scaled.T @ scaled).toarray()
    scaled = X if row_scale is None else row_scale[:, None] * X
    return scaled.T @ scaled


def solve_symmetric(system: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """system⁻¹ rhs for a symmetric system (d, d): by Cholesky, or by LU when the system is not
    positive definite, as MATLAB's and Octave's ``\\`` do for a symmetric matrix."""
    from scipy.linalg import cho_factor, cho_solve

    try:
        factor = cho_factor(system, lower=False, check_finite=False)
    except LinAlgError:
        return np.linalg.solve(system, rhs)
    return cho_solve(factor, rhs, check_finite=False)


class GramProducts:
    """X'XW and the fit |XW - Y|² of one training fold X (n, d), Y (n, L), once per W (d, L).

    With d <= n, X'XW comes from the cached Gram matrix X'X (d, d) and the fit from
    <W, X'XW> - 2<W, X'Y> + |Y|² (no n×L temporary); otherwise both come from XW (n, L), with no
    d×d memory. A mostly-zero X is multiplied as sparse. Twin: ``mlfs_gram_fold.m`` and
    ``mlfs_gram_products.m``.
    """

    def __init__(self, X: np.ndarray, Y: np.ndarray, XtY: np.ndarray):
        n, d = X.shape
        self.gram = gram_matrix(gram_operand(X)) if d <= n else None
        self.X = sparse_if_mostly_zero(X) if self.gram is None else None
        self.Y = Y
        self.XtY = XtY
        self.Y_norm2 = float(np.sum(Y * Y))

    def __call__(self, W: np.ndarray) -> tuple[np.ndarray, float]:
        """(X'XW (d, L), |XW - Y|²) at W."""
        if self.gram is not None:
            gram_w = self.gram @ W
            return gram_w, float(np.sum(W * gram_w) - 2.0 * np.sum(W * self.XtY) + self.Y_norm2)
        XW = self.X @ W
        residual = XW - self.Y
        return self.X.T @ XW, float(np.sum(residual * residual))


def column_distances(X: np.ndarray) -> np.ndarray:
    """Euclidean distances between the columns of X (n, d) -> (d, d), computed directly.

    Direct differences (not the |a|^2+|b|^2-2ab expansion) give exact zeros for identical
    columns, as MATLAB's pdist2 does. Twin: ``mlfs_pdist2(X', X', 'euclidean')``.
    """
    from scipy.spatial.distance import cdist

    return cdist(X.T, X.T, metric="euclidean")


def label_cosine_similarity(Y: np.ndarray) -> np.ndarray:
    """Cosine similarity of the label columns of Y (n, L) -> (L, L); an all-zero column gives 0.

    Twin: ``1 - mlfs_pdist2(Y', Y', 'cosine')`` with NaN set to 0.
    """
    norms = np.sqrt(np.sum(Y * Y, axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        similarity = (Y.T @ Y) / np.outer(norms, norms)
    return np.where(np.isfinite(similarity), similarity, 0.0)


def label_cosine_distance(Y: np.ndarray) -> np.ndarray:
    """Cosine distance 1 - cos of the label columns (L, L), with 0 where a column is all zero.

    This is MATLAB's ``pdist2(Y', Y', 'cosine')`` with NaN replaced by 0 (the GRRO and SCNMF code's
    convention; scikit-learn would give distance 1). Twin: ``mlfs_label_cosine_distance.m``.
    """
    norms = np.sqrt(np.sum(Y * Y, axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = 1.0 - (Y.T @ Y) / np.outer(norms, norms)
    return np.where(np.isfinite(distance), distance, 0.0)


def knn_binary_laplacian(points: np.ndarray, k: int) -> np.ndarray:
    """Unnormalised Laplacian of the symmetrised binary k-NN graph of the columns of ``points``.

    For each column, sort its distance row ascending (stable), skip the first entry (assumed to be
    itself) and link the next k with weight 1; then G = (G + G') / 2 and L = diag(G 1) - G.
    Twin: ``mlfs_knn_laplacian.m``. Needs more than k columns.
    """
    distances = column_distances(points)
    m = distances.shape[0]
    if m <= k:
        raise DataError("the k-NN graph needs more points than neighbours", field="X_train",
                        expected=f"at least {k + 1} columns", found=m)
    order = np.argsort(distances, axis=1, kind="stable")[:, 1:k + 1]
    graph = np.zeros((m, m))
    np.put_along_axis(graph, order, 1.0, axis=1)
    graph = (graph + graph.T) / 2.0
    return np.diag(graph.sum(axis=1)) - graph
