"""All the statistics of one "k methods over N blocks" comparison in a single object.

``compare_methods`` runs average ranks, Friedman/Iman–Davenport, Nemenyi's critical differences
and, against a reference method, the Wilcoxon signed-rank test with Holm's correction, the mean
gain and win/tie/loss counts (and optionally the Bayesian signed-rank test).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from .bayesian import BayesianSignedRankResult, bayesian_signed_rank
from .friedman import FriedmanResult, friedman_test
from .multiple import holm_adjust
from .nemenyi import cd_cliques, nemenyi_cd
from .ranks import check_score_matrix, rank_matrix
from .signed_rank import SignedRankResult, wilcoxon_signed_rank

DEFAULT_ALPHAS = (0.05, 0.10)
TIE_TOLERANCE = 1e-12


def alpha_key(alpha: float) -> str:
    """JSON key of a level: two decimals ("0.05", "0.10") unless that would round it."""
    return f"{alpha:.2f}" if round(alpha, 2) == alpha else f"{alpha:g}"


def win_tie_loss(reference, other, *, lower_is_better: bool = False,
                 tol: float = TIE_TOLERANCE) -> tuple[int, int, int]:
    """Count blocks where ``reference`` beats, ties (|difference| <= tol) or loses to ``other``."""
    advantage = np.asarray(other, float) - np.asarray(reference, float)
    if not lower_is_better:
        advantage = -advantage
    return int((advantage > tol).sum()), int((np.abs(advantage) <= tol).sum()), int((advantage < -tol).sum())


@dataclass(frozen=True)
class PairwiseResult:
    """Reference against one other method over the blocks.

    ``gain`` is the mean advantage of the reference (positive = reference better, whatever the
    direction of the score); ``holm_p`` is adjusted over all methods compared with the reference.
    """

    method: str
    gain: float
    wins: int
    ties: int
    losses: int
    wilcoxon: SignedRankResult
    holm_p: float
    bayesian: BayesianSignedRankResult | None = None

    def to_dict(self) -> dict:
        out = {"method": self.method, "gain": self.gain, "wins": self.wins, "ties": self.ties,
               "losses": self.losses, "wilcoxon": self.wilcoxon.to_dict(),
               "wilcoxon_p": self.wilcoxon.p_value, "holm_p": self.holm_p}
        if self.bayesian is not None:
            out["bayesian"] = self.bayesian.to_dict()
        return out


@dataclass(frozen=True)
class Comparison:
    """Everything ``compare_methods`` computes; ``to_dict`` gives the JSON shape of the CLI."""

    methods: tuple[str, ...]
    blocks: tuple[str, ...]
    lower_is_better: bool
    ranks: np.ndarray
    avg_ranks: np.ndarray
    friedman: FriedmanResult | None
    nemenyi_cd: dict[float, float]
    cliques: dict[float, list[tuple[str, ...]]]
    reference: str | None
    pairwise: tuple[PairwiseResult, ...] = field(default=())

    def to_dict(self) -> dict:
        fr = self.friedman
        return {
            "methods": list(self.methods),
            "n_blocks": len(self.blocks),
            "lower_is_better": self.lower_is_better,
            "avg_ranks": dict(zip(self.methods, self.avg_ranks.tolist())),
            "friedman_chi2": None if fr is None else fr.chi2,
            "friedman_p": None if fr is None else fr.chi2_p,
            "iman_davenport_f": None if fr is None else fr.iman_davenport_f,
            "iman_davenport_p": None if fr is None else fr.iman_davenport_p,
            "nemenyi_cd": {alpha_key(a): cd for a, cd in self.nemenyi_cd.items()},
            "nemenyi_groups": {alpha_key(a): [list(c) for c in cl] for a, cl in self.cliques.items()},
            "reference": self.reference,
            "wilcoxon_p": {p.method: p.wilcoxon.p_value for p in self.pairwise},
            "holm_p": {p.method: p.holm_p for p in self.pairwise},
            "pairwise": {p.method: p.to_dict() for p in self.pairwise},
        }


def compare_methods(scores, methods, *, blocks=None, lower_is_better: bool = False,
                    reference: str | None = None, alphas=DEFAULT_ALPHAS, zero_method: str = "wilcox",
                    bayesian_rope: float | None = None, seed: int = 0) -> Comparison:
    """Run the whole battery on a complete score matrix.

    Parameters
    ----------
    scores : array-like, shape (n_blocks, n_methods)
        Finite scores; one row per block (data set), one column per method.
    methods : sequence of str, length n_methods
    blocks : sequence of str, optional
        Row names (default "0", "1", ...).
    lower_is_better : bool
        Direction of the score.
    reference : str, optional
        Method compared with every other one (Wilcoxon, Holm, gain, W/T/L). None skips that part.
    alphas : sequence of float
        Levels for the Nemenyi critical difference.
    zero_method : str
        Passed to :func:`wilcoxon_signed_rank`.
    bayesian_rope : float, optional
        If given, also run the Bayesian signed-rank test with this rope (seeded by ``seed``).
    """
    matrix = check_score_matrix(scores, min_blocks=1, min_methods=2)
    methods = tuple(str(m) for m in methods)
    if len(methods) != matrix.shape[1] or len(set(methods)) != len(methods):
        raise ConfigError("method names must be unique and match the score columns",
                          expected=f"{matrix.shape[1]} unique names", found=list(methods))
    blocks = tuple(str(b) for b in (blocks if blocks is not None else range(matrix.shape[0])))
    ranks = rank_matrix(matrix, lower_is_better=lower_is_better)
    avg = ranks.mean(axis=0)
    n_blocks, n_methods = matrix.shape
    friedman = friedman_test(matrix) if n_methods >= 3 and n_blocks >= 2 else None
    cds = {float(a): nemenyi_cd(n_methods, n_blocks, a) for a in alphas}
    cliques = {a: [tuple(methods[i] for i in c) for c in cd_cliques(avg, cd)] for a, cd in cds.items()}
    pairwise: tuple[PairwiseResult, ...] = ()
    if reference is not None:
        pairwise = _against_reference(matrix, methods, reference, lower_is_better, zero_method,
                                      bayesian_rope, seed)
    return Comparison(methods, blocks, lower_is_better, ranks, avg, friedman, cds, cliques,
                      reference, pairwise)


def _against_reference(matrix, methods, reference, lower_is_better, zero_method, rope, seed):
    if reference not in methods:
        raise ConfigError("reference method is not among the compared methods", field="reference",
                          expected=f"one of {list(methods)}", found=reference)
    ref = matrix[:, methods.index(reference)]
    others = [(m, matrix[:, j]) for j, m in enumerate(methods) if m != reference]
    sign = -1.0 if lower_is_better else 1.0
    tests = [wilcoxon_signed_rank(ref, col, zero_method=zero_method) for _, col in others]
    holm = holm_adjust([t.p_value for t in tests])
    results = []
    for (name, col), test, adj in zip(others, tests, holm):
        bayes = None
        if rope is not None:
            bayes = bayesian_signed_rank(ref, col, rope=rope, lower_is_better=lower_is_better, seed=seed)
        results.append(PairwiseResult(name, float(sign * np.mean(ref - col)),
                                      *win_tie_loss(ref, col, lower_is_better=lower_is_better),
                                      wilcoxon=test, holm_p=float(adj), bayesian=bayes))
    return tuple(results)
