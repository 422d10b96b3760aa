"""On-disk embedding cache keyed by model name and dataset content hash.

Files are plain ``np.save`` float arrays written atomically; they are read back with pickle
disabled, so a tampered cache can fail but never execute code.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ...fileio import atomic_write_bytes
from ...names import validate_name
from .data import HarDataset
from .providers import load_float_array


class EmbeddingCache:
    """Embeddings under ``root/{model}/``: ``{dataset}_{hash16}.npy`` and ``labels_{hash16}.npy``.

    ``root=None`` disables caching (every call computes).
    """

    def __init__(self, root: str | Path | None):
        self.root = None if root is None else Path(root)

    def window_embeddings(self, model: str, dataset: HarDataset, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """Cached ``compute()`` for the windows of ``dataset`` as embedded by ``model``."""
        key = f"{dataset.name}_{dataset.content_hash()[:16]}"
        return self._cached(model, key, compute)

    def label_embeddings(self, model: str, texts: Sequence[str], compute: Callable[[], np.ndarray]) -> np.ndarray:
        """Cached ``compute()`` for the label ``texts`` as embedded by ``model``."""
        digest = hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]
        return self._cached(model, f"labels_{digest}", compute)

    def _cached(self, model: str, key: str, compute: Callable[[], np.ndarray]) -> np.ndarray:
        if self.root is None:
            return np.asarray(compute(), dtype=np.float64)
        path = self.root / validate_name(model, "model") / f"{key}.npy"
        if path.is_file():
            return load_float_array(path)
        array = np.asarray(compute(), dtype=np.float64)
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        atomic_write_bytes(path, buffer.getvalue())
        return array
