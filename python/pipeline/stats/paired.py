"""Statistics on paired differences: effect sizes with bootstrap CIs and the sign-flip test.

The input is always a vector of paired differences ``d_i = a_i - b_i`` (one per independent unit,
e.g. one per group of dependent observations), or a matrix of shape ``(n, K)`` holding ``K`` such
vectors that share the same units. Nothing here knows what the units or the two conditions are.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: Cohen's conventional thresholds on |effect|; a boundary belongs to the upper class.
EFFECT_CATEGORIES = ((0.2, "negligible"), (0.5, "small"), (0.8, "medium"), (math.inf, "large"))

_SIGN_CHUNK_ROWS = 2048  # sign vectors drawn per batch: bounds memory at 2048 x K floats


def hedges_correction(df: int) -> float:
    """Small-sample factor ``J = 1 - 3 / (4 df - 1)`` turning Cohen's d into Hedges' g.

    For paired (one-sample) data ``df = n - 1``: n = 5 gives 0.8, n = 500 gives 0.998496.
    Returns NaN when ``df < 1``.
    """
    return 1.0 - 3.0 / (4.0 * df - 1.0) if df >= 1 else math.nan


def effect_category(effect: float) -> str:
    """Cohen's label for ``|effect|``: negligible < 0.2 <= small < 0.5 <= medium < 0.8 <= large."""
    if not math.isfinite(effect):
        return "undefined"
    size = abs(effect)
    return next(label for upper, label in EFFECT_CATEGORIES if size < upper)


def cohens_dz(diffs: np.ndarray) -> tuple[float, bool]:
    """Cohen's d for paired data, ``mean(d) / sd(d)`` with ddof = 1.

    Returns ``(d, degenerate)``. n < 2 gives NaN; a zero spread gives 0 when the mean is 0 and NaN
    otherwise, both flagged as degenerate.
    """
    diffs = np.asarray(diffs, dtype=float)
    if diffs.size < 2:
        return math.nan, True
    mean = float(diffs.mean())
    if diffs.max() == diffs.min():  # exact test: std of equal floats may come out as 1e-17
        return (0.0 if mean == 0.0 else math.nan), True
    return mean / float(diffs.std(ddof=1)), False


def _dz_along_last_axis(diffs: np.ndarray, axis: int = -1) -> np.ndarray:
    """Vectorised ``mean / sd(ddof=1)`` for scipy's resampling (NaN where all values are equal)."""
    spread = diffs.max(axis=axis) > diffs.min(axis=axis)
    sd = np.where(spread, diffs.std(axis=axis, ddof=1), 1.0)
    return np.where(spread, diffs.mean(axis=axis) / sd, np.nan)


@dataclass(frozen=True)
class PairedEffectSize:
    """Cohen's d_z and Hedges' g of paired differences with 95 % (or other) bootstrap CIs.

    ``ci_*`` hold the interval used for reporting (BCa unless it was undefined, see ``ci_method``);
    ``percentile_ci_*`` always hold the percentile interval of the same bootstrap distribution.
    """

    n: int
    mean_diff: float
    d: float
    g: float
    hedges_j: float
    category: str
    degenerate: bool
    ci_method: str
    d_ci: tuple[float, float]
    g_ci: tuple[float, float]
    d_percentile_ci: tuple[float, float]
    g_percentile_ci: tuple[float, float]
    confidence: float
    n_bootstrap: int

    def to_dict(self) -> dict:
        return {
            "n": self.n, "mean_diff": self.mean_diff, "d": self.d, "g": self.g,
            "hedges_j": self.hedges_j, "category": self.category, "degenerate": self.degenerate,
            "ci_method": self.ci_method, "d_ci": list(self.d_ci), "g_ci": list(self.g_ci),
            "d_percentile_ci": list(self.d_percentile_ci),
            "g_percentile_ci": list(self.g_percentile_ci),
            "confidence": self.confidence, "n_bootstrap": self.n_bootstrap,
        }


def paired_effect_size(diffs: np.ndarray, *, n_bootstrap: int = 5000, confidence: float = 0.95,
                       seed: int = 42) -> PairedEffectSize:
    """Cohen's d_z, Hedges' g (df = n - 1) and their bootstrap CIs for paired differences ``(n,)``.

    The CI resamples the units (pairs) with replacement and recomputes d; BCa (scipy, jackknife
    acceleration) is reported because the sampling distribution of d is skewed when |d| is large,
    falling back to the percentile interval (``ci_method = "percentile"``) when BCa is undefined.
    The g interval is the d interval times J.
    """
    diffs = np.asarray(diffs, dtype=float).ravel()
    n = diffs.size
    d, degenerate = cohens_dz(diffs)
    j = hedges_correction(n - 1)
    nan_pair = (math.nan, math.nan)
    d_ci = d_pct = nan_pair
    ci_method = "none"
    if n >= 2 and not degenerate:
        d_ci, d_pct, ci_method = _bootstrap_dz_intervals(diffs, n_bootstrap, confidence, seed)
    g = j * d if math.isfinite(d) else math.nan
    return PairedEffectSize(
        n=n, mean_diff=float(diffs.mean()) if n else math.nan, d=d, g=g, hedges_j=j,
        category=effect_category(g), degenerate=degenerate, ci_method=ci_method,
        d_ci=d_ci, g_ci=(j * d_ci[0], j * d_ci[1]), d_percentile_ci=d_pct,
        g_percentile_ci=(j * d_pct[0], j * d_pct[1]), confidence=confidence, n_bootstrap=n_bootstrap,
    )


def _bootstrap_dz_intervals(diffs, n_bootstrap, confidence, seed):
    """BCa and percentile intervals of d_z from one scipy bootstrap run."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns (DegenerateDataWarning) when BCa is undefined
        res = stats.bootstrap((diffs,), _dz_along_last_axis, n_resamples=n_bootstrap,
                              confidence_level=confidence, method="BCa", vectorized=True,
                              rng=np.random.default_rng(seed))
    tail = 100 * (1 - confidence) / 2
    boot = res.bootstrap_distribution[np.isfinite(res.bootstrap_distribution)]
    pct = tuple(float(v) for v in np.percentile(boot, [tail, 100 - tail])) if boot.size else (
        math.nan, math.nan)
    bca = (float(res.confidence_interval.low), float(res.confidence_interval.high))
    if all(math.isfinite(v) for v in bca):
        return bca, pct, "BCa"
    return pct, pct, "percentile"


@dataclass(frozen=True)
class SignFlipResult:
    """Outcome of a paired sign-flip permutation test on ``mean(d)``."""

    observed_diff: float
    p_value: float
    significant: bool
    n_sequences: int
    n_permutations: int
    exact: bool
    alpha: float

    def to_dict(self) -> dict:
        return {"observed_diff": self.observed_diff, "p_value": self.p_value,
                "significant": self.significant, "n_sequences": self.n_sequences,
                "n_permutations": self.n_permutations, "exact": self.exact, "alpha": self.alpha}


def sign_flip_test(diffs: np.ndarray, *, n_permutations: int = 10000, alpha: float = 0.05,
                   seed: int = 42) -> list[SignFlipResult]:
    """Two-sided paired sign-flip permutation test of ``mean(d) = 0`` for one or many columns.

    Parameters
    ----------
    diffs : array (n,) or (n, K)
        Paired differences; each of the K columns is tested on its own, all with the same sign
        vectors, so a column's result equals that of a separate call with the same seed.
    n_permutations : int
        B. If ``2**n <= B`` every sign vector is enumerated (exact test,
        ``p = #{|T_s| >= |T| - tol} / 2**n``, identity included); otherwise B i.i.d. fair sign
        vectors give ``p = (1 + #{|T_b| >= |T| - tol}) / (B + 1)``, never zero.
        ``tol = 1e-12 * max(1, |T|)`` absorbs floating-point ties.

    Returns
    -------
    list of SignFlipResult, one per column.
    """
    diffs = np.asarray(diffs, dtype=float)
    matrix = diffs.reshape(-1, 1) if diffs.ndim == 1 else diffs
    n = matrix.shape[0]
    observed = matrix.mean(axis=0)
    threshold = np.abs(observed) - 1e-12 * np.maximum(1.0, np.abs(observed))
    exact = n < 63 and 2 ** n <= n_permutations
    if exact:
        hits, total, plus_one = _count_exact(matrix, threshold), 2 ** n, 0
    else:
        hits, total, plus_one = _count_monte_carlo(matrix, threshold, n_permutations, seed), \
            n_permutations, 1
    p_values = (plus_one + hits) / (total + plus_one)
    return [SignFlipResult(observed_diff=float(t), p_value=float(p), significant=bool(p < alpha),
                           n_sequences=n, n_permutations=total, exact=exact, alpha=alpha)
            for t, p in zip(observed, p_values)]


def _count_exact(matrix: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """Number of the 2**n sign vectors whose |mean(s * d)| reaches the threshold, per column."""
    n = matrix.shape[0]
    codes = np.arange(2 ** n, dtype=np.int64)[:, None]
    signs = 1.0 - 2.0 * ((codes >> np.arange(n)) & 1)
    return (np.abs(signs @ matrix / n) >= threshold).sum(axis=0)


def _count_monte_carlo(matrix, threshold, n_permutations, seed) -> np.ndarray:
    """Number of B random sign vectors reaching the threshold, drawn in fixed-size batches.

    A sign vector is drawn as packed random bytes (bit set = sign flipped). Rather than expanding
    it to n floats, each byte indexes a table of the 256 possible flipped partial sums of its 8
    differences, so one permutation costs n / 8 lookups: ``T_b = (sum(d) - 2 * flipped) / n``.
    """
    rng = np.random.default_rng(seed)
    n, n_columns = matrix.shape
    n_bytes = (n + 7) // 8
    padded = np.zeros((n_bytes * 8, n_columns))
    padded[:n] = matrix
    byte_bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(float)
    table = np.einsum("vb,jbk->jvk", byte_bits, padded.reshape(n_bytes, 8, n_columns))
    total = matrix.sum(axis=0)
    hits = np.zeros(n_columns, dtype=np.int64)
    for start in range(0, n_permutations, _SIGN_CHUNK_ROWS):
        rows = min(_SIGN_CHUNK_ROWS, n_permutations - start)
        packed = rng.integers(0, 256, size=(rows, n_bytes), dtype=np.uint8)
        flipped = np.zeros((rows, n_columns))
        for j in range(n_bytes):
            flipped += table[j, packed[:, j]]
        hits += (np.abs((total - 2.0 * flipped) / n) >= threshold).sum(axis=0)
    return hits
