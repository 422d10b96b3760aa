"""Helpers shared by the NumPy baselines LRMFS, GRRO, SRFS and SCNMF.

Each helper has a MATLAB/Octave twin under ``matlab/util/`` doing the same operations in the same
order (named in the docstrings), so the two engines agree to rounding level.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from ..errors import ConfigError, DataError

MATLAB_EPS = float(np.finfo(np.float64).eps)
#: Below this share of non-zero entries a feature matrix is multiplied as a sparse matrix.
SPARSE_DENSITY = 0.3


def check_training_data(X, Y, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate a training fold and return it as float64 arrays.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Finite, non-negative training features (min-max scaled in the benchmark).
    Y : array-like of shape (n, L)
        Labels in {0, 1}.
    method : str
        Named in the error messages.

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
    if X.size and X.min() < 0:
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
    return sp.csr_matrix(X) if np.count_nonzero(X) < SPARSE_DENSITY * X.size else X


def column_distances(X: np.ndarray) -> np.ndarray:
    """Euclidean distances between the columns of X (n, d) -> (d, d), computed directly.

    Direct differences (not the |a|^2+|b|^2-2ab expansion) give exact zeros for identical
    columns, as MATLAB's pdist2 does. Twin: ``mlfs_pdist2(X', X', 'euclidean')``.
    """
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
