"""The information-theoretic filters' shared engine: discretisation, entropies from joint counts,
and the greedy forward selection PMU, D2F, SCLS, MDMR and LRFS are built on.

The reference (``Sadegh28/PyIT-MLFS``, docs/methods/PMU.md and the other pages) discretises the
training features with scikit-learn's ``KBinsDiscretizer(n_bins=3, encode="ordinal",
strategy="uniform")`` and computes every (conditional, multivariate) mutual information with one
pyitlib call per feature pair and label, thousands to millions of calls. Here every quantity is a
sum of joint entropies, and every joint table is a count matrix: with B the n × (d·b) one-hot
indicator matrix of the discretised features (column f·b + v is ``x_f == v``), ``B.T @ B`` counts
every (feature value, feature value) pair at once, ``B.T @ Y`` every (feature value, label = 1)
pair, and the same products restricted to the rows where label j is 1 give the three-way tables.
The only Python loop runs over the labels (one matrix product each), never over feature pairs.

Entropies are in bits (pyitlib's default base), the maximum-likelihood (plug-in) estimate
H = log2 n - Σ c log2 c / n over the cell counts c.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import ConfigError
from ..rankings import RELATIVE_TIE_TOLERANCE

#: scikit-learn's ``KBinsDiscretizer`` strategies, the reference's (``uniform``) first.
DISCRETISERS = ("uniform", "quantile", "kmeans")


def discretise(X: np.ndarray, n_bins: int, discretiser: str) -> np.ndarray:
    """Bin codes 0..n_bins-1 (n, d) int64 of the training features ``X`` (n, d), as the reference
    does: ``KBinsDiscretizer(n_bins, encode="ordinal", strategy=discretiser)`` fitted on ``X``.

    The harness passes the training part only, so the bin edges never see a test row.
    """
    if discretiser not in DISCRETISERS:
        raise ConfigError(f"unknown discretiser {discretiser!r}", field="discretiser",
                          expected=f"one of {DISCRETISERS}")
    if isinstance(n_bins, bool) or int(n_bins) != n_bins or n_bins < 2:
        raise ConfigError("n_bins must be an integer of at least 2", field="n_bins", found=repr(n_bins))
    from sklearn.preprocessing import KBinsDiscretizer  # heavy: imported only when a method runs

    binner = KBinsDiscretizer(n_bins=int(n_bins), encode="ordinal", strategy=discretiser)
    with warnings.catch_warnings():
        # A constant column becomes one bin and narrow bins are merged, both as in the reference;
        # scikit-learn says so with a warning per column, which is expected here, not a fault.
        warnings.filterwarnings("ignore", message=r"Feature \d+ is constant", category=UserWarning)
        warnings.filterwarnings("ignore", message=r"Bins whose width are too small", category=UserWarning)
        codes = binner.fit_transform(np.asarray(X, dtype=np.float64))
    return codes.astype(np.int64)


@dataclass(frozen=True)
class JointCounts:
    """The count matrices of one discretised training part, from which every entropy is read.

    ``indicators`` is B (n, d·b) float64, ``labels`` Y (n, L) float64, ``bins`` b the width of
    each feature's block of columns (the largest code + 1; unused codes are empty columns),
    ``xlog2x`` the table of c·log2(c) for the counts c = 0..n (0 for c = 0).
    """

    indicators: np.ndarray
    labels: np.ndarray
    bins: int
    xlog2x: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray, Y: np.ndarray) -> "JointCounts":
        n, d = codes.shape
        bins = int(codes.max()) + 1 if codes.size else 1
        indicators = np.zeros((n, d * bins))
        indicators[np.arange(n)[:, None], np.arange(d)[None, :] * bins + codes] = 1.0
        counts = np.arange(n + 1, dtype=np.float64)
        # Every cell is an integer count in 0..n: a table look-up replaces a logarithm per cell
        # of the (feature pair, label) tables, (d·b)² cells for each label.
        xlog2x = counts * np.log2(np.maximum(counts, 1.0))
        return cls(indicators, np.asarray(Y, dtype=np.float64), bins, xlog2x)

    def _entropy(self, counts: np.ndarray, axis) -> np.ndarray:
        """Plug-in entropy in bits of the joint tables in ``counts`` (exact integer counts), the
        cells along ``axis``: log2 n - Σ c log2 c / n."""
        cells = self.xlog2x[counts.astype(np.intp)]  # exact: BLAS sums of 0/1 products are integers
        return np.log2(self.n) - cells.sum(axis=axis) / self.n

    @property
    def n(self) -> int:
        return self.indicators.shape[0]

    @property
    def d(self) -> int:
        return self.indicators.shape[1] // self.bins

    @property
    def n_labels(self) -> int:
        return self.labels.shape[1]

    def _per_feature(self, counts: np.ndarray) -> np.ndarray:
        """(d·b, ...) -> (d, b, ...): each feature's block of value rows."""
        return counts.reshape(self.d, self.bins, *counts.shape[1:])

    def feature_entropies(self) -> np.ndarray:
        """H(x_f) (d,)."""
        return self._entropy(self._per_feature(self.indicators.sum(axis=0)), axis=1)

    def label_entropies(self) -> np.ndarray:
        """H(y_l) (L,)."""
        ones = self.labels.sum(axis=0)
        return self._entropy(np.stack([self.n - ones, ones]), axis=0)

    def feature_label_entropies(self) -> np.ndarray:
        """H(x_f, y_l) (d, L), from the (value, label = 1) counts ``B.T @ Y``."""
        ones = self._per_feature(self.indicators.T @ self.labels)
        value_counts = self._per_feature(self.indicators.sum(axis=0))[:, :, None]
        return self._entropy(np.concatenate([value_counts - ones, ones], axis=1), axis=1)

    def feature_pair_counts(self) -> np.ndarray:
        """``B.T @ B`` (d·b, d·b): the joint counts of every pair of feature values."""
        return self.indicators.T @ self.indicators

    def feature_pair_entropies(self, pair_counts: np.ndarray) -> np.ndarray:
        """H(x_f, x_s) (d, d) from ``pair_counts`` (:meth:`feature_pair_counts`)."""
        return self._entropy(self._pair_blocks(pair_counts), axis=(1, 3))

    def _pair_blocks(self, pair_counts: np.ndarray) -> np.ndarray:
        return pair_counts.reshape(self.d, self.bins, self.d, self.bins)

    def feature_pair_label_entropy_sums(self, pair_counts: np.ndarray) -> np.ndarray:
        """Σ_l H(x_f, x_s, y_l) (d, d): per label, the pair counts of its positive rows and the rest."""
        total = np.zeros((self.d, self.d))
        for label in range(self.n_labels):
            positive = self.indicators[self.labels[:, label] == 1]
            ones = positive.T @ positive
            total += self._entropy(self._pair_blocks(pair_counts - ones), axis=(1, 3))
            total += self._entropy(self._pair_blocks(ones), axis=(1, 3)) - np.log2(self.n)
        return total

    def label_pair_entropies(self) -> np.ndarray:
        """H(y_i, y_j) (L, L), from ``Y.T @ Y``."""
        both = self.labels.T @ self.labels
        ones = np.diag(both)
        cells = np.stack([self.n - ones[:, None] - ones[None, :] + both, ones[:, None] - both,
                          ones[None, :] - both, both])
        return self._entropy(cells, axis=0)

    def feature_label_pair_entropy_sums(self) -> np.ndarray:
        """Σ_{i,j} H(x_f, y_i, y_j) (d,) over every ordered label pair, i = j included (as the
        reference sums them): per label j, the (value, y_i = 1) counts of the rows where y_j = 1."""
        value_counts = self._per_feature(self.indicators.sum(axis=0))[:, :, None]
        value_ones = self._per_feature(self.indicators.T @ self.labels)
        total = np.zeros(self.d)
        for label in range(self.n_labels):
            rows = self.labels[:, label] == 1
            both = self._per_feature(self.indicators[rows].T @ self.labels[rows])   # y_i = 1, y_j = 1
            j_ones = value_ones[:, :, label][:, :, None]                             # y_j = 1
            cells = np.concatenate([value_counts - value_ones - j_ones + both, value_ones - both,
                                    j_ones - both, both], axis=1)
            total += self._entropy(cells, axis=1).sum(axis=1)
        return total


def forward_selection(criterion: Callable[[np.ndarray, int], np.ndarray], redundancy: np.ndarray) -> np.ndarray:
    """The greedy forward selection order (0-based, d) of the references.

    At step k (S the k features chosen so far) ``criterion(Σ_{s∈S} redundancy[:, s], k)`` gives
    every feature's value of the method's criterion J; the feature of largest J among those not
    chosen is chosen next. The references take the first maximum in index order
    (``J.index(max(J))``); here features within a rounding-level tie of the maximum
    (:data:`~pipeline.rankings.RELATIVE_TIE_TOLERANCE`, the project's ranking rule) count as
    equal, so the lowest index among them wins whatever the order of the floating-point sums.
    """
    d = redundancy.shape[0]
    remaining = np.ones(d, dtype=bool)
    accumulated = np.zeros(d)
    order = np.empty(d, dtype=np.int64)
    for step in range(d):
        values = criterion(accumulated, step)
        best = values[remaining].max()
        tied = remaining & (best - values <= RELATIVE_TIE_TOLERANCE * np.maximum(abs(best), np.abs(values)))
        chosen = int(np.flatnonzero(tied)[0])
        order[step] = chosen
        remaining[chosen] = False
        accumulated += redundancy[:, chosen]
    return order


def order_scores(order: np.ndarray) -> np.ndarray:
    """Scores whose ranking is the selection ``order``: d for the first feature chosen, 1 for the last."""
    scores = np.empty(order.size)
    scores[order] = np.arange(order.size, 0, -1, dtype=np.float64)
    return scores


def training_counts(X: np.ndarray, Y: np.ndarray, params: dict) -> JointCounts:
    """The joint counts of the training part discretised with the method's ``n_bins`` and ``discretiser``."""
    return JointCounts.of(discretise(X, params["n_bins"], params["discretiser"]), Y)
