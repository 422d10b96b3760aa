"""Distribution metrics on feature sets: Fréchet distance (FID) and diversity."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.spatial.distance import cdist

from ...errors import DataError

SQRTM_EPS = 1e-6
IMAGINARY_TOLERANCE = 1e-3  # largest imaginary part of sqrtm's diagonal taken as rounding (pytorch-fid's atol)
STD_EPS = 1e-10          # added to the reference std before z-scoring (Bailando)
CONSTANT_RTOL = 1e-12    # std <= this × |mean|: rounding noise of identical values
PAIR_BLOCK = 2 ** 22     # distances held at once by pairwise_diversity (32 MiB)


def normalize_to_reference(features: np.ndarray, reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """z-score both sets with the reference's per-dimension mean and std (Bailando convention)."""
    mean, std = reference.mean(axis=0), reference.std(axis=0)
    return (features - mean) / (std + STD_EPS), (reference - mean) / (std + STD_EPS)


def constant_dimensions(reference: np.ndarray) -> np.ndarray:
    """Boolean ``(D,)``: the dimensions on which the reference set ``(M, D)`` does not vary.

    z-scoring divides such a dimension by ``0 + 1e-10``, so any generated deviation on it is
    multiplied by 10^10 and FID grows to ~10^15 or more. A dimension counts as constant when its
    standard deviation is at most 1e-12 × |mean| (identical values leave only rounding noise).
    """
    return reference.std(axis=0) <= CONSTANT_RTOL * np.abs(reference.mean(axis=0))


class FidUndefined(DataError):
    """The Fréchet distance of two sets does not exist numerically (their covariances are too
    ill-conditioned to compare): the metric is reported as null with this reason."""


def frechet_distance(features: np.ndarray, reference: np.ndarray) -> float:
    """Fréchet distance between Gaussian fits of ``features`` (N, D) and ``reference`` (M, D).

    ``‖μ_X − μ_Y‖² + Tr(Σ_X + Σ_Y − 2 (Σ_X Σ_Y)^{1/2})`` with ``np.cov`` (ddof 1). A non-finite
    matrix square root is retried with ``1e-6 · I`` added to both covariances; an imaginary part
    above 1e-3 on the diagonal is an error.
    """
    for name, values in (("features", features), ("reference", reference)):
        if values.ndim != 2 or values.shape[0] < 2:
            raise DataError("FID needs at least 2 rows per set", field=name,
                            expected="(n >= 2, D)", found=values.shape)
        if values.shape[0] < values.shape[1]:
            warnings.warn(f"FID: {name} has {values.shape[0]} rows < {values.shape[1]} dimensions; "
                          "its covariance is singular", RuntimeWarning, stacklevel=2)
    if features.shape[1] != reference.shape[1]:
        raise DataError("FID feature dimensions differ", expected=reference.shape[1],
                        found=features.shape[1])
    mu_x, mu_y = features.mean(axis=0), reference.mean(axis=0)
    sigma_x = np.atleast_2d(np.cov(features, rowvar=False))
    sigma_y = np.atleast_2d(np.cov(reference, rowvar=False))
    root = scipy.linalg.sqrtm(sigma_x @ sigma_y)
    if not np.isfinite(root).all():
        shift = SQRTM_EPS * np.eye(sigma_x.shape[0])
        root = scipy.linalg.sqrtm((sigma_x + shift) @ (sigma_y + shift))
    if np.iscomplexobj(root):
        worst = np.max(np.abs(np.diagonal(root).imag))
        if worst > IMAGINARY_TOLERANCE:
            raise FidUndefined(f"undefined: the matrix square root of the covariance product has an imaginary part "
                               f"of {worst:.3g} (covariances too ill-conditioned to compare)")
        root = root.real
    mean_term = float(np.sum((mu_x - mu_y) ** 2))
    return mean_term + float(np.trace(sigma_x) + np.trace(sigma_y) - 2.0 * np.trace(root))


def sampled_diversity(embeddings: np.ndarray, times: int = 300, seed: int = 10) -> float:
    """CLoSD diversity: mean distance between ``min(times, N−1)`` random pairs.

    Two index arrays are drawn independently without replacement from a generator seeded with
    ``seed``; pairs may coincide.
    """
    n_items = embeddings.shape[0]
    if n_items < 2:
        raise DataError("diversity needs at least 2 motions", found=n_items)
    times = min(times, n_items - 1)
    rng = np.random.default_rng(seed)
    first = rng.choice(n_items, times, replace=False)
    second = rng.choice(n_items, times, replace=False)
    return float(np.mean(np.linalg.norm(embeddings[first] - embeddings[second], axis=1)))


def pairwise_diversity(features: np.ndarray, block: int = PAIR_BLOCK) -> float:
    """Bailando/EDGE diversity: mean Euclidean distance over all N(N−1)/2 unordered pairs.

    Distances are summed in row blocks of about ``block`` distances, so memory stays linear in N
    (all pairs of 100,000 motions at once would take 40 GB).
    """
    n_items = features.shape[0]
    if n_items < 2:
        raise DataError("diversity needs at least 2 motions", found=n_items)
    rows = max(1, block // n_items)
    total = 0.0
    for start in range(0, n_items - 1, rows):
        distances = cdist(features[start:start + rows], features[start:])
        total += float(np.triu(distances, k=1).sum())  # pairs (i, j) with j > i only
    return total / (n_items * (n_items - 1) / 2)
