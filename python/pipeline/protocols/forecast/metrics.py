"""Forecast accuracy metrics of spec §4.1, vectorised over series.

Shapes: ``N`` items (one series x one window), ``Q`` quantile levels, ``H`` horizon steps.
``y_true`` is ``(N, H)``, quantile forecasts ``q_pred`` are ``(N, Q, H)``, point forecasts
``(N, H)``, per-item seasonal errors ``(N,)``. NaN targets are masked out of every sum and mean.
All functions are pure (no I/O); lower is better for every metric.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pipeline.errors import ConfigError

DEFAULT_QUANTILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
MASE_EDGES = ("gluonts", "fev")
SMAPE_CONVENTIONS = ("fev", "gluonts")


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


def _masked_mean(values: np.ndarray) -> float:
    """Mean over the finite-target entries (NaN entries are masked), NaN if nothing is left."""
    valid = ~np.isnan(values)
    count = valid.sum()
    return float(np.where(valid, values, 0.0).sum() / count) if count else float("nan")


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


def wql(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float]) -> float:
    """Weighted quantile loss, pooled over items and steps; mean over the Q levels.

    ``(1/Q) sum_tau [sum_{i,h} rho_tau / sum_{i,h} |y|]`` (GluonTS ``MeanWeightedSumQuantileLoss``,
    GIFT-Eval "CRPS").
    """
    loss = quantile_loss(y_true, q_pred, levels)
    valid = ~np.isnan(np.asarray(y_true, dtype=float))
    scale = np.abs(np.where(valid, y_true, 0.0)).sum()
    per_level = np.where(valid[:, None, :], loss, 0.0).sum(axis=(0, 2)) / scale
    return float(per_level.mean())


def mql(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float]) -> float:
    """Unscaled mean quantile loss ``mean_tau mean_{i,h} rho_tau`` (fev "MQL", a 9-point CRPS proxy)."""
    return _masked_mean(quantile_loss(y_true, q_pred, levels))


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
    and the ``lag`` entries after that straddle the boundary, so they are zeroed before summing
    each series' segment with ``np.add.reduceat``.
    """
    result = np.full(len(lengths), np.nan)
    if flat.size <= lag:
        return result
    diff = flat[lag:] - flat[:-lag]
    np.abs(diff, out=diff)
    usable = ~np.isnan(diff)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    straddling = (ends[:, None] - lag + np.arange(lag)[None, :]).ravel()
    usable[straddling[(straddling >= 0) & (straddling < diff.size)]] = False
    np.copyto(diff, 0.0, where=~usable)
    owned = lengths > lag
    segment_starts = starts[owned]
    totals = np.add.reduceat(diff, segment_starts)
    counts = np.add.reduceat(usable, segment_starts, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        result[owned] = np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
    return result


def mase(y_true: np.ndarray, point: np.ndarray, scale: np.ndarray) -> float:
    """Mean absolute scaled error ``mean_{i,h} |y - yhat| / s_i`` over the valid entries.

    ``scale`` is :func:`seasonal_error`; items with a NaN scale (fev edge rule) are excluded.
    """
    y_true, point = np.asarray(y_true, dtype=float), np.asarray(point, dtype=float)
    _check_shapes(y_true, point=point)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _masked_mean(np.abs(y_true - point) / np.asarray(scale, dtype=float)[:, None])


def sql(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float], scale: np.ndarray) -> float:
    """Scaled quantile loss ``mean_tau mean_{i,h} rho_tau / s_i`` (fev-bench's main metric)."""
    loss = quantile_loss(y_true, q_pred, levels)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _masked_mean(loss / np.asarray(scale, dtype=float)[:, None, None])


def mae(y_true: np.ndarray, point: np.ndarray) -> float:
    """Mean absolute error of the point (median) forecast."""
    _check_shapes(np.asarray(y_true), point=np.asarray(point))
    return _masked_mean(np.abs(np.asarray(y_true, dtype=float) - point))


def mse(y_true: np.ndarray, point: np.ndarray) -> float:
    """Mean squared error (pass the mean forecast when the model has one, GluonTS ``MSE[mean]``)."""
    _check_shapes(np.asarray(y_true), point=np.asarray(point))
    return _masked_mean((np.asarray(y_true, dtype=float) - point) ** 2)


def smape(y_true: np.ndarray, point: np.ndarray, convention: str = "fev") -> float:
    """Symmetric MAPE; ``fev``: ``2|y - yhat| / (|y| + |yhat|)`` in [0, 2], ``gluonts``: without the 2.

    Terms with a zero denominator are excluded.
    """
    if convention not in SMAPE_CONVENTIONS:
        raise ConfigError(f"unknown sMAPE convention {convention!r}", expected=SMAPE_CONVENTIONS,
                          found=convention)
    y_true, point = np.asarray(y_true, dtype=float), np.asarray(point, dtype=float)
    _check_shapes(y_true, point=point)
    denominator = np.abs(y_true) + np.abs(point)
    factor = 2.0 if convention == "fev" else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(denominator > 0, factor * np.abs(y_true - point) / denominator, np.nan)
    return _masked_mean(terms)


def median_index(levels: Sequence[float]) -> int:
    """Index of the 0.5 level, which gives the point forecast."""
    matches = [i for i, level in enumerate(levels) if abs(level - 0.5) < 1e-12]
    if not matches:
        raise ConfigError("quantile levels must include 0.5 (the point forecast)",
                          field="quantile_levels", found=list(levels))
    return matches[0]


def evaluate_window(y_true: np.ndarray, q_pred: np.ndarray, levels: Sequence[float],
                    contexts: Sequence[np.ndarray], seasonality: int, *, edge: str = "gluonts",
                    mean_pred: np.ndarray | None = None, smape_convention: str = "fev") -> dict:
    """All §4.1 metrics for one evaluation window of one dataset.

    Parameters
    ----------
    y_true : (N, H) targets, q_pred : (N, Q, H) quantiles, contexts : N past arrays,
    seasonality : m for MASE/SQL, mean_pred : optional (N, H) mean forecast for MSE.

    Returns a dict of metric name -> float plus the conventions used (``mse_forecast``,
    ``smape_convention``, ``mase_edge``).
    """
    y_true = np.asarray(y_true, dtype=float)
    q_pred = np.asarray(q_pred, dtype=float)
    _check_shapes(y_true, q_pred, levels=levels)
    point = q_pred[:, median_index(levels), :]
    scale = seasonal_error(contexts, seasonality, edge)
    weighted = wql(y_true, q_pred, levels)
    unscaled = mql(y_true, q_pred, levels)
    return {
        "MASE": mase(y_true, point, scale),
        "WQL": weighted,
        "SQL": sql(y_true, q_pred, levels, scale),
        "crps_wql": weighted,
        "crps_mql": unscaled,
        "MAE": mae(y_true, point),
        "MSE": mse(y_true, point if mean_pred is None else np.asarray(mean_pred, dtype=float)),
        "sMAPE": smape(y_true, point, smape_convention),
        "mse_forecast": "median" if mean_pred is None else "mean",
        "smape_convention": smape_convention,
        "mase_edge": edge,
    }


NUMERIC_METRICS = ("MASE", "WQL", "SQL", "crps_wql", "crps_mql", "MAE", "MSE", "sMAPE")


def average_windows(per_window: Sequence[dict]) -> dict:
    """Average each numeric metric over windows (fev ``test_error``); conventions are kept."""
    if not per_window:
        raise ValueError("no evaluation window to average")
    merged = dict(per_window[0])
    for name in NUMERIC_METRICS:
        merged[name] = float(np.mean([w[name] for w in per_window]))
    merged["n_windows"] = len(per_window)
    return merged
