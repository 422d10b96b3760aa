"""Feature scalers for fold export, fitted on the training part only.

* ``minmax``: scikit-learn ``MinMaxScaler(feature_range=(0, 1))``, which computes
  ``x * scale_ + min_`` (multiply, then add: bitwise the reference's arithmetic). A training range
  below ``10 * eps`` counts as 1, so a constant training column maps to 0 on train. Test values are
  **not** clipped unless ``clip_test`` is set (then both parts are clipped to [0, 1]).
* ``zscore``: ``StandardScaler`` (mean, population std; a near-zero std counts as 1).
* ``none``: identity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError

if TYPE_CHECKING:
    from sklearn.base import TransformerMixin

SCALERS = ("minmax", "zscore", "none")


def check_scaler(kind: str, *, clip_test: bool = False) -> None:
    """Raise ConfigError unless ``kind`` and ``clip_test`` name a scaler (without importing scikit-learn)."""
    if kind not in SCALERS:
        raise ConfigError("unknown scaler", field="scaler", expected=SCALERS, found=kind)
    if clip_test and kind != "minmax":
        raise ConfigError("clipping applies to the minmax scaler only", field="clip_test",
                          found=f"scaler {kind!r}")


def make_scaler(kind: str, *, clip_test: bool = False) -> TransformerMixin:
    """Return an unfitted scikit-learn transformer for ``kind`` (see the module docstring)."""
    check_scaler(kind, clip_test=clip_test)
    # scikit-learn takes about 2 s to import: only a command that scales a fold pays it, not one
    # that checks a suite's settings
    from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, StandardScaler

    if kind == "minmax":
        return MinMaxScaler(feature_range=(0, 1), clip=clip_test)
    if kind == "zscore":
        return StandardScaler()
    return FunctionTransformer()


def scale_fold(X_train: np.ndarray, X_test: np.ndarray, kind: str, *,
               clip_test: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Fit the scaler on ``X_train`` (n_train, d) and apply it to both parts; float64 outputs."""
    scaler = make_scaler(kind, clip_test=clip_test).fit(X_train)
    return (np.asarray(scaler.transform(X_train), dtype=np.float64),
            np.asarray(scaler.transform(X_test), dtype=np.float64))
