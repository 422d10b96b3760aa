"""Forecast accuracy metrics (definitions in docs/forecast.md, "Metrics"), vectorised over series.

Shapes: ``N`` items (one series x one window), ``Q`` quantile levels, ``H`` horizon steps.
``y_true`` is ``(N, H)``, quantile forecasts ``q_pred`` are ``(N, Q, H)``, point forecasts
``(N, H)``, per-item seasonal errors ``(N,)``. NaN targets are masked out of every sum and mean.
All functions are pure (no I/O); lower is better for every metric.

Every metric is a ratio of two sums (:func:`window_sums`), so that the windows of a task can be
combined either way the suites do: the metric per window, then the mean over windows (fev,
Chronos: :func:`average_windows`), or the sums pooled over all windows first (GIFT-Eval through
GluonTS: :func:`pool_windows`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...errors import ConfigError

DEFAULT_QUANTILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
MASE_EDGES = ("gluonts", "fev")
SMAPE_CONVENTIONS = ("fev", "gluonts")
NUMERIC_METRICS = ("MASE", "WQL", "SQL", "crps_wql", "crps_mql", "MAE", "MSE", "sMAPE")
WINDOW_AGGREGATIONS = ("mean", "pool")


def _check_shapes(y_true: np.ndarray, q_pred: np.ndarray | None = None,
                  point: np.ndarray | None = None, levels: Sequence[float] | None = None) -> None:
    if y_true.ndim != 2:
        raise ValueError(f"y_true must be (N, H), got shape {y_true.shape}")
    n, h = y_true.shape
    if q_pred is not None:
        q = len(levels) if levels is not None else q_pred.shape[1]
        if q_pred.shape != (n, q, h):
            raise ValueError(f"q_pred must be (N, Q, H) = {(n, q, h)}, got {q_pred.shape}")
    if point is not None and point.shape != (n, h):
        raise ValueError(f"point forecast must be (N, H) = {(n, h)}, got {point.shape}")


def _ratio(numerator, denominator) -> float:
    """``mean(numerator / denominator)`` (the mean matters for WQL's per-level numerators)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.mean(np.asarray(numerator, dtype=float) / denominator)) if denominator else float("nan")


def _masked_sum(values: np.ndarray) -> tuple[float, int]:
    """(sum, count) over the non-NaN entries of ``values``."""
    valid = ~np.isnan(values)
    return float(np.where(valid, values, 0.0).sum()), int(valid.sum())


def quantile_loss(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """Pinball loss with the factor 2 of Chronos/fev: ``2 |(y - q)(1{y <= q} - tau)|``.

    Returns ``(N, Q, H)``; entries whose target is NaN are NaN.
    """
    y_true = np.asarray(y_true, dtype=float)
    q_pred = np.asarray(q_pred, dtype=float)
    _check_shapes(y_true, q_pred, levels=levels)
    tau = np.asarray(levels, dtype=float)[None, :, None]
    y = y_true[:, None, :]
    return 2.0 * np.abs((y - q_pred) * ((y <= q_pred) - tau))


def _wql_sums(y_true, loss: np.ndarray) -> tuple[np.ndarray, float]:
    """(per-level loss sums, sum of |y|) over valid targets; ``loss`` is :func:`quantile_loss`."""
    valid = ~np.isnan(np.asarray(y_true, dtype=float))
    per_level = np.where(valid[:, None, :], loss, 0.0).sum(axis=(0, 2))
    return per_level, float(np.abs(np.where(valid, y_true, 0.0)).sum())


def wql(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float]) -> float:
    """Weighted quantile loss, pooled over items and steps; mean over the Q levels.

    ``(1/Q) sum_tau [sum_{i,h} rho_tau / sum_{i,h} |y|]`` (GluonTS ``MeanWeightedSumQuantileLoss``,
    GIFT-Eval "CRPS").
    """
    return _ratio(*_wql_sums(y_true, quantile_loss(y_true, q_pred, levels)))


def mql(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float]) -> float:
    """Unscaled mean quantile loss ``mean_tau mean_{i,h} rho_tau`` (fev "MQL", a 9-point CRPS proxy)."""
    return _ratio(*_masked_sum(quantile_loss(y_true, q_pred, levels)))


def seasonal_error(contexts: Sequence[np.ndarray], m: int, edge: str = "gluonts") -> np.ndarray:
    """In-sample seasonal naive error ``s_i = mean_t |x_t - x_{t-m}|`` of each context, shape ``(N,)``.

    Computed for all series at once on the concatenated contexts. NaN differences are skipped.
    ``edge="gluonts"`` uses lag 1 when ``m >= T_i`` (Chronos parity); ``edge="fev"`` returns NaN
    for items with ``T_i <= m`` or a NaN or zero error, so they drop out of MASE/SQL.
    """
    if edge not in MASE_EDGES:
        raise ConfigError(f"unknown MASE edge rule {edge!r}", expected=MASE_EDGES, found=edge)
    if m < 1:
        raise ConfigError("seasonality must be >= 1", field="seasonality", found=m)
    lengths = np.array([len(c) for c in contexts], dtype=np.int64)
    flat = np.concatenate([np.asarray(c, dtype=float) for c in contexts]) if len(contexts) else np.zeros(0)
    seasonal = _mean_lagged_abs_diff(flat, lengths, m)
    if edge == "fev":
        undefined = (lengths <= m) | ~np.isfinite(seasonal) | (seasonal == 0)
        return np.where(undefined, np.nan, seasonal)
    short = lengths <= m
    if short.any():
        seasonal = np.where(short, _mean_lagged_abs_diff(flat, lengths, 1), seasonal)
    return seasonal


def _mean_lagged_abs_diff(flat: np.ndarray, lengths: np.ndarray, lag: int) -> np.ndarray:
    """Per-series mean of ``|x_t - x_{t-lag}|`` on the concatenated series, NaN pairs skipped.

    ``diff[j]`` pairs ``flat[j + lag]`` with ``flat[j]``; series i owns ``diff[start_i : end_i - lag]``
    (the ``lag`` entries after that straddle two series). One ``np.add.reduceat`` over the
    interleaved bounds ``start_0, end_0 - lag, start_1, ...`` sums the owned segments (even
    results) and the straddling gaps (odd results, discarded), in O(N) extra memory whatever m.
    """
    result = np.full(len(lengths), np.nan)
    owned = lengths > lag
    if flat.size <= lag or not owned.any():
        return result
    size = flat.size - lag
    diff = np.empty(size + 1)  # one zero pad keeps the last bound (== size) a valid reduceat index
    np.subtract(flat[lag:], flat[:-lag], out=diff[:size])
    np.abs(diff[:size], out=diff[:size])
    diff[size] = 0.0
    missing = np.isnan(diff)
    diff[missing] = 0.0
    ends = np.cumsum(lengths)
    bounds = np.empty(2 * int(owned.sum()), dtype=np.intp)
    bounds[0::2], bounds[1::2] = (ends - lengths)[owned], ends[owned] - lag
    totals = np.add.reduceat(diff, bounds)[::2]
    counts = (lengths[owned] - lag) - np.add.reduceat(missing, bounds, dtype=np.int64)[::2]
    with np.errstate(invalid="ignore", divide="ignore"):
        result[owned] = np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
    return result


def _scaled(values: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``values / s_i`` along the item axis (NaN where the scale is undefined)."""
    scale = np.asarray(scale, dtype=float).reshape((-1,) + (1,) * (values.ndim - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return values / scale


def _point_error(y_true, point) -> np.ndarray:
    y_true, point = np.asarray(y_true, dtype=float), np.asarray(point, dtype=float)
    _check_shapes(y_true, point=point)
    return y_true - point


def mase(y_true: np.ndarray, point: np.ndarray, scale: np.ndarray) -> float:
    """Mean absolute scaled error ``mean_{i,h} |y - yhat| / s_i`` over the valid entries.

    ``scale`` is :func:`seasonal_error`; items with a NaN scale (fev edge rule) are excluded.
    """
    return _ratio(*_masked_sum(_scaled(np.abs(_point_error(y_true, point)), scale)))


def sql(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float], scale: np.ndarray) -> float:
    """Scaled quantile loss ``mean_tau mean_{i,h} rho_tau / s_i`` (fev-bench's main metric)."""
    return _ratio(*_masked_sum(_scaled(quantile_loss(y_true, q_pred, levels), scale)))


def mae(y_true: np.ndarray, point: np.ndarray) -> float:
    """Mean absolute error of the point (median) forecast."""
    return _ratio(*_masked_sum(np.abs(_point_error(y_true, point))))


def mse(y_true: np.ndarray, point: np.ndarray) -> float:
    """Mean squared error (pass the mean forecast when the model has one, GluonTS ``MSE[mean]``)."""
    return _ratio(*_masked_sum(_point_error(y_true, point) ** 2))


def _smape_terms(y_true, point, convention: str) -> np.ndarray:
    if convention not in SMAPE_CONVENTIONS:
        raise ConfigError(f"unknown sMAPE convention {convention!r}", expected=SMAPE_CONVENTIONS,
                          found=convention)
    error = np.abs(_point_error(y_true, point))
    denominator = np.abs(np.asarray(y_true, dtype=float)) + np.abs(np.asarray(point, dtype=float))
    factor = 2.0 if convention == "fev" else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, factor * error / denominator, np.nan)


def smape(y_true: np.ndarray, point: np.ndarray, convention: str = "fev") -> float:
    """Symmetric MAPE; ``fev``: ``2|y - yhat| / (|y| + |yhat|)`` in [0, 2], ``gluonts``: without the 2.

    Terms with a zero denominator are excluded.
    """
    return _ratio(*_masked_sum(_smape_terms(y_true, point, convention)))


def median_index(levels: Sequence[float]) -> int:
    """Index of the 0.5 level, which gives the point forecast."""
    matches = [i for i, level in enumerate(levels) if abs(level - 0.5) < 1e-12]
    if not matches:
        raise ConfigError("quantile levels must include 0.5 (the point forecast)",
                          field="quantile_levels", found=list(levels))
    return matches[0]


def window_sums(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float],
                contexts: Sequence[np.ndarray], seasonality: int, *, edge: str = "gluonts",
                mean_pred: np.ndarray | None = None, smape_convention: str = "fev") -> dict:
    """(numerator, denominator) of every metric on one evaluation window; see :func:`scores`.

    Parameters
    ----------
    y_true : (N, H) targets, q_pred : (N, Q, H) quantiles, contexts : N past arrays,
    seasonality : m for MASE/SQL, mean_pred : optional (N, H) mean forecast for MSE.
    """
    y_true = np.asarray(y_true, dtype=float)
    q_pred = np.asarray(q_pred, dtype=float)
    _check_shapes(y_true, q_pred, levels=levels)
    point = q_pred[:, median_index(levels), :]
    scale = seasonal_error(contexts, seasonality, edge)
    loss = quantile_loss(y_true, q_pred, levels)
    error = y_true - point
    mean_error = error if mean_pred is None else _point_error(y_true, mean_pred)
    return {
        "MASE": _masked_sum(_scaled(np.abs(error), scale)),
        "WQL": _wql_sums(y_true, loss),
        "SQL": _masked_sum(_scaled(loss, scale)),
        "crps_mql": _masked_sum(loss),
        "MAE": _masked_sum(np.abs(error)),
        "MSE": _masked_sum(mean_error ** 2),
        "sMAPE": _masked_sum(_smape_terms(y_true, point, smape_convention)),
    }


def scores(sums: dict) -> dict:
    """Metric values from :func:`window_sums` (or :func:`pool_windows`); ``crps_wql`` is WQL."""
    values = {name: _ratio(numerator, denominator) for name, (numerator, denominator) in sums.items()}
    return {name: values["WQL" if name == "crps_wql" else name] for name in NUMERIC_METRICS}


def pool_windows(per_window: Sequence[dict]) -> dict:
    """Sums added over windows: the metric of all windows' items together (GluonTS ``axis=None``)."""
    if not per_window:
        raise ValueError("no evaluation window to pool")
    return {name: (np.sum([w[name][0] for w in per_window], axis=0), sum(w[name][1] for w in per_window))
            for name in per_window[0]}


def average_windows(per_window: Sequence[dict]) -> dict:
    """Mean over windows of each metric (fev ``test_error``), from per-window :func:`scores`."""
    if not per_window:
        raise ValueError("no evaluation window to average")
    return {name: float(np.mean([w[name] for w in per_window])) for name in NUMERIC_METRICS}


def evaluate_window(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float],
                    contexts: Sequence[np.ndarray], seasonality: int, *, edge: str = "gluonts",
                    mean_pred: np.ndarray | None = None, smape_convention: str = "fev") -> dict:
    """All metrics of one evaluation window plus the conventions used (``mse_forecast``,
    ``smape_convention``, ``mase_edge``); arguments as :func:`window_sums`."""
    sums = window_sums(y_true, q_pred, levels, contexts, seasonality, edge=edge, mean_pred=mean_pred,
                       smape_convention=smape_convention)
    return {**scores(sums), "mse_forecast": "median" if mean_pred is None else "mean",
            "smape_convention": smape_convention, "mase_edge": edge}
