"""The in-memory form of a whole multi-label dataset (what readers and the generator produce)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class Dataset:
    """A whole dataset in memory.

    Attributes
    ----------
    name : str
    X : ndarray of shape (n, d), float64
    Y : ndarray of shape (n, L), uint8 in {0, 1}
    label_names : tuple of str, length L
    provenance : dict
        Where the data came from: source files with SHA-256, or the generator and its seed.
    """

    name: str
    X: np.ndarray
    Y: np.ndarray
    label_names: tuple[str, ...]
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        return int(self.Y.shape[1])

    @property
    def cardinality(self) -> float:
        """Mean number of relevant labels per instance."""
        return float(self.Y.sum(axis=1).mean())
