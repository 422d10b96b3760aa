"""PMU, D2F, SCLS, MDMR and LRFS: the information-theoretic filters of ``Sadegh28/PyIT-MLFS``.

Each ranks the features by the reference's greedy forward selection (``rank(X, y,
mode="pre_eval")``, the reference's default): the ranking is the selection order. The criteria,
in bits, with S the features chosen so far and the sums over the L labels (docs/methods/<NAME>.md
give the reference's lines):

- D2F and MDMR: J(f) = Σ_i I(f; y_i) - Σ_{s∈S} Σ_i I(f; s; y_i) (the reference's MDMR is D2F's
  code; docs/methods/MDMR.md says what the paper's criterion would be);
- PMU: D2F's J(f) - Σ_{i,j} I(f; y_i; y_j) (every ordered label pair, i = j included);
- SCLS: J(f) = R(f) (1 - Σ_{s∈S} I(f; s) / H(f)) with R(f) = Σ_i I(f; y_i);
- LRFS: J(f) = Σ_{i,j} I(f; y_i | y_j) - (1/|S|) Σ_{s∈S} I(f; s).

I(a; b; c) is the co-information I(a; b) - I(a; b | c), as pyitlib's ``information_co``. Every
term is written as a sum of joint entropies read from the count matrices of
:mod:`pipeline.methods.information`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .base import MethodSpec
from .information import JointCounts, forward_selection, order_scores, training_counts

Criterion = Callable[[np.ndarray, int], np.ndarray]


def _relevance(counts: JointCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """H(x_f) (d,), H(x_f, y_l) (d, L) and Σ_l I(x_f; y_l) (d,)."""
    feature_h = counts.feature_entropies()
    feature_label_h = counts.feature_label_entropies()
    label_h = counts.label_entropies()
    relevance = (feature_h[:, None] + label_h[None, :] - feature_label_h).sum(axis=1)
    return feature_h, feature_label_h, relevance


def _feature_mutual_information(counts: JointCounts, feature_h: np.ndarray, pair_counts: np.ndarray) -> np.ndarray:
    """I(x_f; x_s) (d, d)."""
    return feature_h[:, None] + feature_h[None, :] - counts.feature_pair_entropies(pair_counts)


def _label_coinformation_sums(counts: JointCounts, feature_h, feature_label_h) -> np.ndarray:
    """Σ_l I(x_f; x_s; y_l) (d, d), the multivariate redundancy of D2F, MDMR and PMU."""
    pair_counts = counts.feature_pair_counts()
    L = counts.n_labels
    per_feature = feature_label_h.sum(axis=1)
    return (L * _feature_mutual_information(counts, feature_h, pair_counts) + counts.label_entropies().sum()
            - per_feature[:, None] - per_feature[None, :] + counts.feature_pair_label_entropy_sums(pair_counts))


def _subtract_redundancy(base: np.ndarray) -> Criterion:
    return lambda redundancy, chosen: base - redundancy


def d2f_criterion(counts: JointCounts) -> tuple[Criterion, np.ndarray]:
    """D2F's (and the reference MDMR's) criterion and its redundancy matrix."""
    feature_h, feature_label_h, relevance = _relevance(counts)
    return _subtract_redundancy(relevance), _label_coinformation_sums(counts, feature_h, feature_label_h)


def pmu_criterion(counts: JointCounts) -> tuple[Criterion, np.ndarray]:
    """PMU's criterion: D2F's minus the label-pair co-information Σ_{i,j} I(f; y_i; y_j)."""
    feature_h, feature_label_h, relevance = _relevance(counts)
    L = counts.n_labels
    label_pairs = (L * L * feature_h + 2 * L * counts.label_entropies().sum() - 2 * L * feature_label_h.sum(axis=1)
                   - counts.label_pair_entropies().sum() + counts.feature_label_pair_entropy_sums())
    redundancy = _label_coinformation_sums(counts, feature_h, feature_label_h)
    return _subtract_redundancy(relevance - label_pairs), redundancy


def scls_criterion(counts: JointCounts) -> tuple[Criterion, np.ndarray]:
    """SCLS's criterion R(f) - (Σ_S I(f; s) / H(f)) R(f); a constant feature (H = 0, so R = 0) gets 0."""
    feature_h, _, relevance = _relevance(counts)
    redundancy = _feature_mutual_information(counts, feature_h, counts.feature_pair_counts())
    informative = feature_h > 0
    safe_h = np.where(informative, feature_h, 1.0)

    def criterion(accumulated: np.ndarray, chosen: int) -> np.ndarray:
        return np.where(informative, relevance - (accumulated / safe_h) * relevance, 0.0)

    return criterion, redundancy


def lrfs_criterion(counts: JointCounts) -> tuple[Criterion, np.ndarray]:
    """LRFS's criterion Σ_{i,j} I(f; y_i | y_j) - mean_{s∈S} I(f; s)."""
    feature_h, feature_label_h, _ = _relevance(counts)
    L = counts.n_labels
    label_relevance = (L * feature_label_h.sum(axis=1) + counts.label_pair_entropies().sum()
                       - L * counts.label_entropies().sum() - counts.feature_label_pair_entropy_sums())
    redundancy = _feature_mutual_information(counts, feature_h, counts.feature_pair_counts())

    def criterion(accumulated: np.ndarray, chosen: int) -> np.ndarray:
        return label_relevance if chosen == 0 else label_relevance - accumulated / chosen

    return criterion, redundancy


CRITERIA: dict[str, Callable[[JointCounts], tuple[Criterion, np.ndarray]]] = {
    "PMU": pmu_criterion, "D2F": d2f_criterion, "SCLS": scls_criterion, "MDMR": d2f_criterion, "LRFS": lrfs_criterion,
}


def selection_order(method: str, X: np.ndarray, Y: np.ndarray, params: dict) -> np.ndarray:
    """The 0-based greedy selection order of ``method`` on the training part (X, Y)."""
    criterion, redundancy = CRITERIA[method](training_counts(X, Y, params))
    return forward_selection(criterion, redundancy)


def _scores_function(method: str):
    def feature_scores(X: np.ndarray, Y: np.ndarray, params: dict) -> np.ndarray:
        """d for the first feature selected, 1 for the last (the ranking is the selection order)."""
        return order_scores(selection_order(method, X, Y, params))

    feature_scores.__name__ = f"{method.lower()}_scores"
    return feature_scores


_SUMMARIES = {
    "PMU": "pairwise multivariate mutual information, greedy forward (Lee & Kim 2013; Python only)",
    "D2F": "interaction-information redundancy, greedy forward (Lee & Kim 2015; Python only)",
    "SCLS": "scalable relevance scaled by redundancy/entropy, greedy forward (Lee & Kim 2017; Python only)",
    "MDMR": "max-dependency min-redundancy as PyIT-MLFS codes it (= D2F's criterion; Python only)",
    "LRFS": "label-conditional relevance minus mean redundancy, greedy forward (Zhang et al. 2019; Python only)",
}
SPECS = {name: MethodSpec.shipped(name, scores=_scores_function(name), summary=summary)
         for name, summary in _SUMMARIES.items()}
