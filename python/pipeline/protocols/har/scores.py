"""Scores reported for every metric: accuracy and F1 in percent."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.metrics import accuracy_score, f1_score


def classification_scores(y_true: Sequence, y_pred: Sequence, labels: Sequence | None,
                          n_train_samples: int, n_classes: int) -> dict:
    """Accuracy, macro F1 and weighted F1 (x100, ``zero_division=0``) plus the sample counts.

    ``labels=None`` lets sklearn use the union of true and predicted values (open-set group
    scoring, as upstream); otherwise F1 averages over exactly ``labels``.
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    f1_args = {"zero_division": 0} if labels is None else {"zero_division": 0, "labels": list(labels)}
    return {
        "applicable": True,
        "accuracy": 100.0 * float(accuracy_score(y_true, y_pred)),
        "f1_macro": 100.0 * float(f1_score(y_true, y_pred, average="macro", **f1_args)),
        "f1_weighted": 100.0 * float(f1_score(y_true, y_pred, average="weighted", **f1_args)),
        "n_samples": int(len(y_true)),
        "n_train_samples": int(n_train_samples),
        "n_classes": int(n_classes),
    }


def not_applicable(reason: str) -> dict:
    """The entry of a metric that does not apply to a model (never reported as 0)."""
    return {"applicable": False, "reason": reason}
