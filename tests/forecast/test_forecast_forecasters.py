"""Seasonal Naive (docs/forecast.md), AutoETS (StatsForecast) and the (N, Q, H) contract of BaseForecaster."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from pipeline.protocols.forecast.data import load_dataset
from pipeline.protocols.forecast.forecasters import (AutoETSForecaster, BaseForecaster,
                                                     SeasonalNaiveForecaster)
from pipeline.protocols.forecast.metrics import DEFAULT_QUANTILES, evaluate_window
from pipeline.protocols.forecast.windows import backtest_windows

LEVELS = list(DEFAULT_QUANTILES)


def test_seasonal_naive_repeats_the_last_season_with_gaussian_quantiles():
    context = np.array([1.0, 2.0, 3.0, 2.0, 4.0, 5.0])
    quantiles, mean = SeasonalNaiveForecaster(3).predict([context], 5, [0.1, 0.5, 0.9])
    np.testing.assert_array_equal(mean[0], [2.0, 4.0, 5.0, 2.0, 4.0])
    residuals = context[3:] - context[:3]  # 1, 2, 2
    sigma = np.sqrt((residuals ** 2).sum() / (6 - 3))
    sigma_h = sigma * np.sqrt(np.array([1, 1, 1, 2, 2]))
    np.testing.assert_allclose(quantiles[0, 0], mean[0] + norm.ppf(0.1) * sigma_h)
    np.testing.assert_allclose(quantiles[0, 1], mean[0])


def test_seasonal_naive_short_context_nans_and_point_convention():
    contexts = [np.array([7.0, np.nan]), np.array([np.nan, 1.0, 2.0, 3.0])]
    gaussian = SeasonalNaiveForecaster(3).predict_quantiles(contexts, 2, LEVELS)
    # context shorter than m -> repeat the last (forward-filled) value
    np.testing.assert_array_equal(gaussian[0, 4], [7.0, 7.0])
    # leading NaN becomes 0 before the season is repeated: last season = [1, 2, 3]
    np.testing.assert_array_equal(gaussian[1, 4], [1.0, 2.0])
    point = SeasonalNaiveForecaster(3, intervals="point").predict_quantiles(contexts, 2, LEVELS)
    assert np.all(point == point[:, 4:5, :])


def test_seasonal_naive_only_uses_the_last_max_context_points():
    rng = np.random.default_rng(0)
    context = np.concatenate([rng.normal(0, 100, 500), rng.normal(0, 1, 1000)])
    sigma_last = SeasonalNaiveForecaster(1).predict_quantiles([context], 1, [0.8413447460685429])[0, 0, 0] - context[-1]
    residuals = np.diff(context[-1000:])
    assert sigma_last == pytest.approx(np.sqrt((residuals ** 2).sum() / 999))


def test_chunked_prediction_equals_one_block():
    rng = np.random.default_rng(1)
    contexts = [rng.normal(size=rng.integers(3, 40)) for _ in range(25)]
    whole = SeasonalNaiveForecaster(4).predict_quantiles(contexts, 6, LEVELS)
    chunked = SeasonalNaiveForecaster(4, chunk_size=4).predict_quantiles(contexts, 6, LEVELS)
    np.testing.assert_allclose(whole, chunked, rtol=1e-12, atol=1e-12)


class _WrongShape(BaseForecaster):
    name = "wrong"

    def _predict(self, contexts, horizon, levels):
        return np.zeros((len(contexts), horizon, len(levels))), None


def test_base_forecaster_asserts_the_output_shape():
    with pytest.raises(AssertionError, match=r"wrong.predict_quantiles.*\(N, Q, H\) = \(2, 3, 4\)"):
        _WrongShape().predict_quantiles([np.ones(3), np.ones(5)], 4, [0.1, 0.5, 0.9])
    with pytest.raises(ValueError, match="at least one value"):
        SeasonalNaiveForecaster().predict_quantiles([np.ones(0)], 2, [0.5])
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        SeasonalNaiveForecaster().predict_quantiles([np.ones(3)], 2, [1.5])


def test_auto_ets_runs_on_real_exchange_rates(arrow_root):
    dataset = load_dataset(arrow_root, "exchange_rate")
    (window,) = backtest_windows(dataset.series[:3], offset=-30, prediction_length=30)
    quantiles, mean = AutoETSForecaster(5, max_context=200).predict(window.contexts, 30, LEVELS)
    assert quantiles.shape == (3, 9, 30) and np.all(np.isfinite(quantiles))
    assert np.all(np.diff(quantiles, axis=1) > 0)  # Gaussian quantiles increase with the level
    np.testing.assert_allclose(quantiles[:, 0] + quantiles[:, 8], 2 * quantiles[:, 4])  # symmetric
    np.testing.assert_allclose(quantiles[:, 4], mean)
    scores = evaluate_window(window.targets, quantiles, LEVELS, window.contexts, 5, mean_pred=mean)
    assert scores["mse_forecast"] == "mean" and 0.1 < scores["MASE"] < 5


def test_auto_ets_follows_a_trend_that_seasonal_naive_cannot():
    rng = np.random.default_rng(3)
    series = [10 + 0.5 * np.arange(120) + rng.normal(0, 0.2, 120) for _ in range(2)]
    (window,) = backtest_windows(series, offset=-12, prediction_length=12)
    ets = AutoETSForecaster(1).predict_quantiles(window.contexts, 12, LEVELS)
    naive = SeasonalNaiveForecaster(1).predict_quantiles(window.contexts, 12, LEVELS)
    ets_mase = evaluate_window(window.targets, ets, LEVELS, window.contexts, 1)["MASE"]
    naive_mase = evaluate_window(window.targets, naive, LEVELS, window.contexts, 1)["MASE"]
    assert ets_mase < 0.3 * naive_mase


def test_auto_ets_quantiles_are_the_statsforecast_interval_bounds():
    from statsforecast.models import AutoETS

    rng = np.random.default_rng(5)
    context = 20 + np.sin(np.arange(96) * 2 * np.pi / 12) + rng.normal(0, 0.3, 96)
    ours = AutoETSForecaster(12).predict_quantiles([context], 6, [0.1, 0.25, 0.5, 0.9])[0]
    reference = AutoETS(season_length=12).forecast(y=context, h=6, level=[50, 80])
    np.testing.assert_allclose(ours, [reference["lo-80"], reference["lo-50"], reference["mean"],
                                      reference["hi-80"]])


def test_auto_ets_falls_back_loudly_on_unfittable_series():
    forecaster = AutoETSForecaster(1)
    with pytest.warns(UserWarning, match="1 series could not be fitted"):
        quantiles = forecaster.predict_quantiles([np.array([1.0, 2.0])], 3, [0.5])
    assert forecaster.n_fallbacks == 1
    np.testing.assert_array_equal(quantiles[0, 0], [2.0, 2.0, 2.0])
