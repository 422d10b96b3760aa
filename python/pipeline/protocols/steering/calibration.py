"""Null calibration experiment with autocorrelated errors (``docs/steering.md``, "Calibration").

Two equally good models get independent AR(1) error processes with the same law, so every
rejection is a false positive. Testing sample-level differences as if samples were independent
rejects far too often when the errors are autocorrelated; testing one difference per sequence
keeps the nominal rate.
"""

from __future__ import annotations

import numpy as np

from ...stats.paired import sign_flip_test
from .checks import open_interval, positive_int


def ar1_errors(rng: np.random.Generator, shape: tuple[int, ...], length: int, phi: float) -> np.ndarray:
    """Stationary AR(1) paths ``e_t = phi e_{t-1} + N(0, 1)``, shape ``shape + (length,)``.

    The start is drawn from the stationary law ``N(0, 1 / (1 - phi**2))``.
    """
    paths = np.empty(shape + (length,))
    paths[..., 0] = rng.normal(0.0, np.sqrt(1.0 / (1.0 - phi ** 2)), shape)
    for t in range(1, length):
        paths[..., t] = phi * paths[..., t - 1] + rng.normal(0.0, 1.0, shape)
    return paths


def calibration_experiment(phi: float, *, n_sequences: int = 40, length: int = 150,
                           n_repeats: int = 300, n_permutations: int = 999, seed: int = 0,
                           alpha: float = 0.05) -> dict:
    """False-positive rates of the sample-level and the sequence-level sign-flip tests under H0.

    Each repeat draws errors ``(2, n_sequences, length)``; the sample-level test flips the signs
    of ``|e_A,t| - |e_B,t|`` per sample, the sequence-level test those of
    ``RMSE_A,i - RMSE_B,i`` per sequence. A rejection is ``p <= alpha``.
    """
    open_interval(phi, -1, 1, "phi")  # |phi| >= 1 has no stationary law
    for value, name in ((n_sequences, "n_sequences"), (length, "length"), (n_repeats, "n_repeats"),
                        (n_permutations, "n_permutations")):
        positive_int(value, name)
    open_interval(alpha, 0, 1, "alpha")
    rng = np.random.default_rng(seed)
    sample_p, sequence_p = np.empty(n_repeats), np.empty(n_repeats)
    for r in range(n_repeats):
        errors = ar1_errors(rng, (2, n_sequences), length, phi)
        test_seed = int(rng.integers(2 ** 32))
        sample_diffs = (np.abs(errors[0]) - np.abs(errors[1])).ravel()
        rmse = np.sqrt(np.mean(errors ** 2, axis=-1))
        sample_p[r] = sign_flip_test(sample_diffs, n_permutations=n_permutations, seed=test_seed)[0].p_value
        sequence_p[r] = sign_flip_test(rmse[0] - rmse[1], n_permutations=n_permutations,
                                       seed=test_seed)[0].p_value
    return {"phi": phi, "n_sequences": n_sequences, "length": length, "n_repeats": n_repeats,
            "n_permutations": n_permutations, "seed": seed, "alpha": alpha,
            "fpr_sample_level": float(np.mean(sample_p <= alpha)),
            "fpr_sequence_level": float(np.mean(sequence_p <= alpha))}
