"""Cluster (whole-group) bootstrap.

Observations inside a group are dependent, groups are independent, so a resample draws whole
groups with replacement. A resample is represented by its multiplicities: row ``b`` of a
``(B, G)`` count matrix says how often each of the G groups was drawn. Any statistic that is a
function of per-group values or of per-group sums is then a matrix product, so B resamples cost
one BLAS call instead of a Python loop:

* the mean over drawn groups of a per-group value ``v``: ``counts @ v / G``;
* a pooled statistic over all observations of the drawn groups (duplicates counted with their
  multiplicity): form it from pooled sums ``counts @ S`` where ``S[g]`` holds group g's sums
  (count, sum of x, sum of x**2, ...).

Using the same count matrix for two conditions measured on the same groups gives a paired
cluster bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def cluster_resample_counts(n_groups: int, n_resamples: int, seed: int) -> np.ndarray:
    """Multiplicities ``(n_resamples, n_groups)`` of groups drawn with replacement, n_groups per row.

    Row b is the histogram of ``rng.integers(0, n_groups, n_groups)`` for the b-th resample, so
    each row sums to ``n_groups``.
    """
    if n_groups < 1:
        raise ValueError(f"cluster bootstrap needs at least one group, got {n_groups}")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_groups, size=(n_resamples, n_groups))
    offsets = (np.arange(n_resamples) * n_groups)[:, None]
    flat = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_groups)
    return flat.reshape(n_resamples, n_groups)


def resampled_group_means(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Mean of per-group ``values`` ``(G,)`` or ``(G, K)`` over each resample -> ``(B,)`` / ``(B, K)``."""
    return counts @ np.asarray(values, dtype=float) / counts.sum(axis=1).reshape(
        (-1,) + (1,) * (np.ndim(values) - 1))


def resampled_group_sums(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Pooled sums over the drawn groups: ``(G, S)`` per-group sums -> ``(B, S)``."""
    return counts @ np.asarray(sums, dtype=float)


@dataclass(frozen=True)
class BootstrapSummary:
    """Point estimate on the original sample plus mean, std and percentile bounds of the replicates."""

    estimate: float
    mean: float
    std: float
    low: float
    high: float
    confidence: float
    n_resamples: int

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "mean": self.mean, "std": self.std, "ci_low": self.low,
                "ci_high": self.high, "confidence": self.confidence,
                "n_resamples": self.n_resamples}


def summarize_replicates(estimate: float, replicates: np.ndarray,
                         confidence: float = 0.95) -> BootstrapSummary:
    """Mean, std (ddof = 1) and percentile interval of bootstrap ``replicates`` ``(B,)``.

    Non-finite replicates (a statistic undefined on some resample) are left out.
    """
    finite = np.asarray(replicates, dtype=float)
    finite = finite[np.isfinite(finite)]
    tail = 100 * (1 - confidence) / 2
    if finite.size == 0:
        mean = std = low = high = float("nan")
    else:
        mean = float(finite.mean())
        std = float(finite.std(ddof=1)) if finite.size > 1 else float("nan")
        low, high = (float(v) for v in np.percentile(finite, [tail, 100 - tail]))
    return BootstrapSummary(estimate=float(estimate), mean=mean, std=std, low=low, high=high,
                            confidence=confidence, n_resamples=int(np.size(replicates)))
