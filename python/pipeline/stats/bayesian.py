"""Bayesian signed-rank test (Benavoli et al., 2014) through ``baycomp``.

It answers "how probable is it that x is better than y" given the per-block scores, instead of a p
value. The Monte Carlo sampling is seeded, so the same input gives the same probabilities.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class BayesianSignedRankResult:
    """Posterior probabilities that x is better, practically equivalent (within ``rope``), worse."""

    p_x_better: float
    p_rope: float
    p_y_better: float
    rope: float

    def to_dict(self) -> dict:
        return asdict(self)


def bayesian_signed_rank(x, y, *, rope: float = 0.0, lower_is_better: bool = False,
                         nsamples: int = 20000, seed: int = 0) -> BayesianSignedRankResult:
    """Posterior of the Bayesian signed-rank test on paired samples ``x``, ``y`` of shape (n,).

    ``rope`` is the half-width of the region of practical equivalence in score units; with
    ``rope=0`` the middle probability is 0.
    """
    from baycomp import SignedRankTest  # optional dependency (extra "stats-extra")

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    samples = SignedRankTest.sample(x, y, rope=rope, nsamples=nsamples, random_state=seed)
    winners = np.bincount(samples.argmax(axis=1), minlength=3) / nsamples
    p_left, p_rope, p_right = (float(v) for v in winners)
    # baycomp's "left" means y - x < 0, i.e. x scores higher.
    x_higher, y_higher = p_left, p_right
    if lower_is_better:
        x_higher, y_higher = y_higher, x_higher
    return BayesianSignedRankResult(p_x_better=x_higher, p_rope=p_rope, p_y_better=y_higher, rope=rope)
