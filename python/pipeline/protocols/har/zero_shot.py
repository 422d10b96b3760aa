"""Zero-shot metrics 1-2 for text-aligned models.

Prediction is the label whose L2-normalised text embedding has the largest dot product with the
L2-normalised sensor embedding. Open-set scoring compares *groups* of synonyms, closed-set scoring
compares exact names.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...errors import DataError
from .scores import classification_scores
from .vocabulary import LabelVocabulary

_NORM_FLOOR = 1e-12


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Divide each row by ``max(||row||, 1e-12)``."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, _NORM_FLOOR)


def cosine_predict(sensor_embeddings: np.ndarray, label_embeddings: np.ndarray) -> np.ndarray:
    """Index of the most similar label for each window, shape (N,); ties go to the first label.

    Parameters
    ----------
    sensor_embeddings : ndarray, shape (N, D)
    label_embeddings : ndarray, shape (K, D)
    """
    if sensor_embeddings.shape[1] != label_embeddings.shape[1]:
        raise DataError("sensor and label embeddings live in different spaces", field="label_embeddings",
                        expected=f"width {sensor_embeddings.shape[1]}", found=f"width {label_embeddings.shape[1]}")
    similarity = l2_normalize(sensor_embeddings) @ l2_normalize(label_embeddings).T
    return np.argmax(similarity, axis=1)


def score_open_set(sensor_embeddings: np.ndarray, true_names: Sequence[str], vocabulary: LabelVocabulary,
                   training_label_embeddings: np.ndarray) -> dict:
    """Metric 1: argmax over all training labels, scored on synonym groups.

    F1 is computed on group strings without ``labels=``, so groups that are only predicted count
    with F1 = 0 (upstream behaviour). ``coverage`` is the share of distinct test labels whose group
    contains at least one training label.
    """
    if len(training_label_embeddings) != len(vocabulary.training_labels):
        raise DataError("one embedding per training label is required", field="label_embeddings",
                        expected=len(vocabulary.training_labels), found=len(training_label_embeddings))
    predicted = cosine_predict(sensor_embeddings, training_label_embeddings)
    group = vocabulary.groups.group
    predicted_groups = [group(vocabulary.training_labels[k]) for k in predicted]
    true_groups = [group(name) for name in true_names]
    trainable_groups = {group(label) for label in vocabulary.training_labels}
    distinct = sorted(set(true_names))
    scores = classification_scores(true_groups, predicted_groups, None, 0, len(distinct))
    scores["coverage"] = sum(group(name) in trainable_groups for name in distinct) / len(distinct)
    return scores


def score_closed_set(sensor_embeddings: np.ndarray, labels: np.ndarray, activity_names: Sequence[str],
                     activity_label_embeddings: np.ndarray) -> dict:
    """Metric 2: argmax over the dataset's own label embeddings, exact match on class indices."""
    if len(activity_label_embeddings) != len(activity_names):
        raise DataError("one embedding per activity name is required", field="label_embeddings",
                        expected=len(activity_names), found=len(activity_label_embeddings))
    predicted = cosine_predict(sensor_embeddings, activity_label_embeddings)
    return classification_scores(labels, predicted, range(len(activity_names)), 0, len(activity_names))
