"""Forecasters behind one interface: ``predict_quantiles(contexts, horizon, levels) -> (N, Q, H)``.

:class:`BaseForecaster` validates the inputs and asserts the output shape, so an adapter only
implements ``_predict`` (quantiles and, optionally, the mean forecast). Built-in models that run
here without weights: :class:`SeasonalNaiveForecaster` (the reference baseline, docs/forecast.md) and
:class:`AutoETSForecaster` (StatsForecast ``AutoETS``).
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm


def assert_quantile_shape(array: np.ndarray, n: int, q: int, h: int, stage: str) -> np.ndarray:
    """Raise AssertionError naming ``stage`` unless ``array`` has shape ``(n, q, h)``."""
    if array.shape != (n, q, h):
        raise AssertionError(f"{stage}: quantile forecast must have shape (N, Q, H) = {(n, q, h)}, "
                             f"got {array.shape}")
    return array


class BaseForecaster(ABC):
    """A probabilistic forecaster of univariate series.

    Subclasses implement :meth:`_predict`; the public methods check inputs and output shapes.
    """

    name = "base"

    def predict(self, contexts: Sequence[np.ndarray], horizon: int,
                quantile_levels: Sequence[float]) -> tuple[np.ndarray, np.ndarray | None]:
        """Return ``(quantiles (N, Q, H), mean (N, H) or None)``."""
        if horizon < 1:
            raise ValueError(f"horizon must be >= 1, got {horizon}")
        levels = [float(q) for q in quantile_levels]
        if any(not 0.0 < q < 1.0 for q in levels):
            raise ValueError(f"quantile levels must lie in (0, 1), got {levels}")
        contexts = [np.asarray(c, dtype=float).ravel() for c in contexts]
        if any(len(c) == 0 for c in contexts):
            raise ValueError("every context must hold at least one value")
        quantiles, mean = self._predict(contexts, horizon, levels)
        quantiles = assert_quantile_shape(np.asarray(quantiles, dtype=float), len(contexts), len(levels),
                                          horizon, f"{self.name}.predict_quantiles")
        if mean is not None and np.shape(mean) != (len(contexts), horizon):
            raise AssertionError(f"{self.name}: mean forecast must be (N, H), got {np.shape(mean)}")
        return quantiles, None if mean is None else np.asarray(mean, dtype=float)

    def predict_quantiles(self, contexts: Sequence[np.ndarray], horizon: int,
                          quantile_levels: Sequence[float]) -> np.ndarray:
        """Quantile forecasts of shape ``(N, Q, H)`` for N contexts."""
        return self.predict(contexts, horizon, quantile_levels)[0]

    def predict_mean(self, contexts: Sequence[np.ndarray], horizon: int) -> np.ndarray | None:
        """Mean forecast ``(N, H)`` when the model has one, else None."""
        return self.predict(contexts, horizon, [0.5])[1]

    @abstractmethod
    def _predict(self, contexts: list[np.ndarray], horizon: int,
                 levels: list[float]) -> tuple[np.ndarray, np.ndarray | None]:
        """Model-specific prediction; contexts are non-empty 1-D float arrays."""

    def describe(self) -> dict:
        """Parameters recorded in ``config.json``."""
        return {"name": self.name}


def _fill_missing(context: np.ndarray) -> np.ndarray:
    """Forward-fill NaNs, then replace leading NaNs by 0 (fev's baseline preprocessing)."""
    return pd.Series(context).ffill().fillna(0.0).to_numpy()


class SeasonalNaiveForecaster(BaseForecaster):
    """Repeat the last season (docs/forecast.md, "Seasonal Naive"), with one of two quantile conventions.

    ``intervals="gaussian"``: quantiles ``point + z_tau * sigma_h`` as StatsForecast
    ``SeasonalNaive`` with prediction intervals (fev's baseline). ``intervals="point"``: every
    quantile equals the point forecast, so WQL reduces to the WAPE of the point forecast; this is
    what reproduces the published Chronos seasonal-naive WQL values (see docs/forecast.md).

    Parameters
    ----------
    seasonality : int
        Season length m (a context shorter than m uses m = 1).
    intervals : {"gaussian", "point"}
        Quantile convention (above).
    max_context : int
        Only the last ``max_context`` points are used (1000, as fev's wrapper).
    chunk_size : int
        Series processed together in one padded ``(chunk, max_context)`` matrix.
    """

    def __init__(self, seasonality: int = 1, intervals: str = "gaussian", max_context: int = 1000,
                 chunk_size: int = 2048):
        if seasonality < 1 or max_context < 1:
            raise ValueError("seasonality and max_context must be >= 1")
        if intervals not in ("gaussian", "point"):
            raise ValueError(f"intervals must be 'gaussian' or 'point', got {intervals!r}")
        self.intervals = intervals
        self.name = "seasonal_naive" if intervals == "gaussian" else "seasonal_naive_point"
        self.seasonality = int(seasonality)
        self.max_context = int(max_context)
        self.chunk_size = int(chunk_size)

    def describe(self) -> dict:
        return {"name": self.name, "seasonality": self.seasonality, "max_context": self.max_context,
                "intervals": self.intervals}

    def _predict(self, contexts, horizon, levels):
        points, sigmas = [], []
        for start in range(0, len(contexts), self.chunk_size):
            point, sigma = self._point_and_sigma(contexts[start:start + self.chunk_size], horizon)
            points.append(point)
            sigmas.append(sigma)
        point, sigma = np.concatenate(points), np.concatenate(sigmas)
        if self.intervals == "point":
            return np.repeat(point[:, None, :], len(levels), axis=1), point
        z = norm.ppf(np.asarray(levels))[None, :, None]
        quantiles = point[:, None, :] + z * sigma[:, None, :]
        return quantiles, point

    def _point_and_sigma(self, contexts: list[np.ndarray], horizon: int) -> tuple[np.ndarray, np.ndarray]:
        """Point forecast and per-step sigma ``(n, H)`` for a chunk of series, vectorised."""
        trimmed = [_fill_missing(c[-self.max_context:]) for c in contexts]
        lengths = np.array([len(c) for c in trimmed])
        width = lengths.max()
        padded = np.full((len(trimmed), width), np.nan)
        for row, values in enumerate(trimmed):
            padded[row, width - len(values):] = values
        season = np.where(lengths >= self.seasonality, self.seasonality, 1)
        point = np.empty((len(trimmed), horizon))
        sigma = np.empty((len(trimmed), horizon))
        for m in np.unique(season):
            rows = season == m
            block = padded[rows]
            steps = np.arange(horizon)
            point[rows] = block[:, width - m + steps % m]
            residuals = block[:, m:] - block[:, :-m]
            scale = np.sqrt(np.nansum(residuals ** 2, axis=1) / np.maximum(lengths[rows] - m, 1))
            sigma[rows] = scale[:, None] * np.sqrt(steps // m + 1)[None, :]
        return point, sigma


class AutoETSForecaster(BaseForecaster):
    """StatsForecast ``AutoETS`` (automatic ETS model selection by AICc) per series.

    Quantile ``tau`` is read from the model's central prediction interval of level
    ``100 |2 tau - 1|`` (lower bound below the median, upper above; ``tau = 0.5`` is the mean, the
    forecast distribution being Gaussian). NaNs are forward-filled (then 0) and only the last
    ``max_context`` points are used, as for the seasonal naive baseline. A series AutoETS cannot
    fit (e.g. fewer than three points) gets the seasonal naive forecast; such fallbacks are counted
    in ``n_fallbacks`` and reported with a warning.
    """

    name = "auto_ets"

    def __init__(self, seasonality: int = 1, max_context: int = 1000):
        self.seasonality = int(seasonality)
        self.max_context = int(max_context)
        self.n_fallbacks = 0

    def describe(self) -> dict:
        return {"name": self.name, "seasonality": self.seasonality, "max_context": self.max_context,
                "library": "statsforecast AutoETS"}

    def _predict(self, contexts, horizon, levels):
        from statsforecast.models import AutoETS

        interval_levels = sorted({_interval_level(tau) for tau in levels if tau != 0.5})
        quantiles = np.empty((len(contexts), len(levels), horizon))
        means = np.empty((len(contexts), horizon))
        fallback = SeasonalNaiveForecaster(self.seasonality, max_context=self.max_context)
        failed_before = self.n_fallbacks
        for i, context in enumerate(contexts):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    forecast = AutoETS(season_length=self.seasonality).forecast(
                        y=_fill_missing(context[-self.max_context:]), h=horizon, level=interval_levels or None)
            except (NotImplementedError, IndexError, ValueError, np.linalg.LinAlgError):
                self.n_fallbacks += 1
                quantiles[i], means[i] = (a[0] for a in fallback.predict([context], horizon, levels))
                continue
            means[i] = forecast["mean"]
            quantiles[i] = [forecast["mean"] if tau == 0.5 else
                            forecast[f"{'lo' if tau < 0.5 else 'hi'}-{_interval_level(tau)}"] for tau in levels]
        if self.n_fallbacks > failed_before:
            warnings.warn(f"auto_ets: {self.n_fallbacks - failed_before} series could not be fitted "
                          "and use the seasonal naive forecast", stacklevel=2)
        return quantiles, means


def _interval_level(tau: float) -> int | float:
    """Central interval level (in %) whose bounds are the tau and 1 - tau quantiles."""
    level = round(abs(200.0 * tau - 100.0), 10)
    return int(level) if level.is_integer() else level
