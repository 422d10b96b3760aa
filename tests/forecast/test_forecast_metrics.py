"""Metrics on hand-computed examples, vectorised == per-series loop, windows averaged or pooled."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.errors import ConfigError
from pipeline.protocols.forecast import metrics as M

LEVELS = [0.1, 0.5, 0.9]


def test_quantile_loss_has_the_factor_two():
    y = np.array([[10.0]])
    q = np.array([[[8.0], [10.0], [13.0]]])
    # tau=0.1, under-forecast by 2: 2*2*0.1; tau=0.5 exact: 0; tau=0.9, over by 3: 2*3*0.1
    np.testing.assert_allclose(M.quantile_loss(y, q, LEVELS)[0, :, 0], [0.4, 0.0, 0.6])


def test_wql_pools_over_items_and_steps():
    y = np.array([[10.0, 20.0], [5.0, np.nan]])
    q = np.repeat(np.array([[[12.0, 18.0]], [[5.0, 99.0]]]), 3, axis=1)
    # all quantiles equal a point forecast -> WQL = sum|y - yhat| / sum|y| over non-NaN entries
    assert M.wql(y, q, LEVELS) == pytest.approx((2 + 2 + 0) / 35)
    assert M.mql(y, q, LEVELS) == pytest.approx(4 / 3)


def test_seasonal_error_gluonts_and_fev_edges():
    contexts = [np.array([1.0, 2, 4, 7]), np.array([3.0, 3.0]), np.array([1.0, np.nan, 2.0, 5.0])]
    gluonts = M.seasonal_error(contexts, 2, "gluonts")
    # series 0: |4-1|, |7-2| -> 4; series 1: T=2 <= m -> lag 1: 0; series 2: |2-1| (NaN pair skipped) -> 1
    np.testing.assert_allclose(gluonts, [4.0, 0.0, 1.0])
    fev = M.seasonal_error(contexts, 2, "fev")
    assert fev[0] == 4.0 and np.isnan(fev[1]) and fev[2] == 1.0
    with pytest.raises(ConfigError):
        M.seasonal_error(contexts, 2, "other")


def test_mase_and_sql_skip_undefined_scales():
    y = np.array([[2.0, 4.0], [1.0, 1.0]])
    point = np.array([[1.0, 1.0], [0.0, 0.0]])
    scale = np.array([2.0, np.nan])
    assert M.mase(y, point, scale) == pytest.approx((0.5 + 1.5) / 2)
    q = np.repeat(point[:, None, :], 3, axis=1)
    assert M.sql(y, q, LEVELS, scale) == pytest.approx((0.5 + 1.5) / 2)


def test_smape_conventions_and_zero_denominator():
    y = np.array([[1.0, 0.0, 2.0]])
    point = np.array([[3.0, 0.0, 2.0]])
    assert M.smape(y, point, "fev") == pytest.approx((2 * 2 / 4 + 0) / 2)
    assert M.smape(y, point, "gluonts") == pytest.approx((2 / 4 + 0) / 2)
    with pytest.raises(ConfigError):
        M.smape(y, point, "mape")


def test_evaluate_window_uses_mean_for_mse_when_given():
    y = np.array([[1.0, 3.0]])
    q = np.array([[[0.0, 2.0], [1.0, 3.0], [2.0, 4.0]]])
    result = M.evaluate_window(y, q, LEVELS, [np.array([0.0, 1.0, 2.0])], 1, mean_pred=np.array([[2.0, 2.0]]))
    assert result["MSE"] == 1.0 and result["mse_forecast"] == "mean"
    assert result["MAE"] == 0.0 and result["MASE"] == 0.0
    assert result["crps_wql"] == result["WQL"]
    with pytest.raises(ValueError, match=r"\(N, Q, H\)"):
        M.evaluate_window(y, q[:, :2], LEVELS, [np.zeros(3)], 1)
    with pytest.raises(ConfigError, match="0.5"):
        M.evaluate_window(y, q, [0.1, 0.2, 0.9], [np.zeros(3)], 1)


def _loop_metrics(y, q, levels, contexts, m):
    """Per-series reference: GluonTS-style seasonal error and pooled sums, one series at a time."""
    abs_num = scaled_sum = count = 0.0
    loss_sum = np.zeros(len(levels))
    abs_y = 0.0
    for i, context in enumerate(contexts):
        lag = m if m < len(context) else 1
        diffs = [abs(context[t] - context[t - lag]) for t in range(lag, len(context))
                 if not (np.isnan(context[t]) or np.isnan(context[t - lag]))]
        s = sum(diffs) / len(diffs)
        for h in range(y.shape[1]):
            if np.isnan(y[i, h]):
                continue
            point = q[i, levels.index(0.5), h]
            scaled_sum += abs(y[i, h] - point) / s
            count += 1
            abs_y += abs(y[i, h])
            for k, tau in enumerate(levels):
                err = y[i, h] - q[i, k, h]
                loss_sum[k] += 2 * max(tau * err, (tau - 1) * err)
            abs_num += abs(y[i, h] - point)
    return scaled_sum / count, float(np.mean(loss_sum / abs_y))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 4), st.integers(0, 10_000))
def test_vectorised_metrics_equal_a_per_series_loop(n, h, m, seed):
    rng = np.random.default_rng(seed)
    contexts = [rng.normal(5, 2, size=rng.integers(2, 12)) for _ in range(n)]
    y = rng.normal(5, 2, size=(n, h))
    y[rng.random((n, h)) < 0.2] = np.nan
    y[:, 0] = rng.uniform(0.1, 9.0, size=n)  # at least one valid target per item
    q = np.sort(rng.normal(5, 2, size=(n, len(M.DEFAULT_QUANTILES), h)), axis=1)
    levels = list(M.DEFAULT_QUANTILES)
    expected_mase, expected_wql = _loop_metrics(y, q, levels, contexts, m)
    scale = M.seasonal_error(contexts, m)
    assert M.mase(y, q[:, 4], scale) == pytest.approx(expected_mase, rel=1e-12)
    assert M.wql(y, q, levels) == pytest.approx(expected_wql, rel=1e-12)


def _point_window(y, point):
    """Sums of one window whose every quantile equals ``point`` (WQL = WAPE)."""
    y, point = np.array(y, dtype=float), np.array(point, dtype=float)
    q = np.repeat(point[:, None, :], len(M.DEFAULT_QUANTILES), axis=1)
    return M.window_sums(y, q, M.DEFAULT_QUANTILES, [np.array([0.0, 1.0])] * len(y), 1)


def test_windows_averaged_fev_style_or_pooled_gluonts_style():
    # window A: |err| 2 on |y| 10; window B: |err| 0 and 2 on |y| 1 and 1
    windows = [_point_window([[10.0]], [[12.0]]), _point_window([[1.0, 1.0]], [[1.0, 3.0]])]
    averaged = M.average_windows([M.scores(w) for w in windows])
    pooled = M.scores(M.pool_windows(windows))
    assert averaged["WQL"] == pytest.approx((2 / 10 + 2 / 2) / 2)
    assert pooled["WQL"] == pytest.approx(4 / 12)
    assert averaged["MAE"] == pytest.approx((2 + 1) / 2) and pooled["MAE"] == pytest.approx(4 / 3)
    assert pooled["crps_wql"] == pooled["WQL"]


def test_scores_of_window_sums_equal_the_metric_functions():
    rng = np.random.default_rng(3)
    contexts = [rng.normal(5, 2, n) for n in (4, 9, 13)]
    y = rng.normal(5, 2, (3, 5))
    y[0, 1] = np.nan
    q = np.sort(rng.normal(5, 2, (3, 9, 5)), axis=1)
    levels = list(M.DEFAULT_QUANTILES)
    result = M.evaluate_window(y, q, levels, contexts, 2)
    scale = M.seasonal_error(contexts, 2)
    expected = {"MASE": M.mase(y, q[:, 4], scale), "WQL": M.wql(y, q, levels), "SQL": M.sql(y, q, levels, scale),
                "crps_mql": M.mql(y, q, levels), "MAE": M.mae(y, q[:, 4]), "MSE": M.mse(y, q[:, 4]),
                "sMAPE": M.smape(y, q[:, 4])}
    for name, value in expected.items():
        assert result[name] == pytest.approx(value, rel=1e-13), name


def test_seasonal_error_with_a_long_season_needs_no_season_sized_buffer():
    """m = 3600 (seconds data) on many short series: O(N) extra memory, lag-1 fallback per series."""
    contexts = [np.arange(5.0) * (i + 1) for i in range(20_000)]
    scale = M.seasonal_error(contexts, 3600)
    np.testing.assert_allclose(scale, np.arange(1, 20_001))


def test_metrics_match_fev_0_10_on_a_fixed_input():
    """Reference values: fev 0.10.0 ``get_metric(name).compute(...)`` (run in a separate venv) on
    exactly these arrays: NaN targets, a NaN in a context, one context shorter than m = 4."""
    rng = np.random.default_rng(11)
    lengths = [3, 10, 15, 8, 12]
    contexts = [rng.normal(5, 2, n) for n in lengths]
    contexts[2][4] = np.nan
    y = rng.normal(5, 2, (5, 6))
    y[1, 2] = y[3, 0] = np.nan
    q = np.sort(rng.normal(5, 2, (5, 9, 6)), axis=1)
    levels = list(M.DEFAULT_QUANTILES)
    scale = M.seasonal_error(contexts, 4, "fev")
    ours = {"MASE": M.mase(y, q[:, 4], scale), "WQL": M.wql(y, q, levels), "SQL": M.sql(y, q, levels, scale),
            "MQL": M.mql(y, q, levels), "MAE": M.mae(y, q[:, 4]), "MSE": M.mse(y, q[:, 4]),
            "SMAPE": M.smape(y, q[:, 4], "fev")}
    fev = {"MASE": 1.0399046282548274, "WQL": 0.21195318554883083, "SQL": 0.8666817331414133,
           "MQL": 1.1467172858254324, "MAE": 1.390719593863763, "MSE": 3.0199227102156105,
           "SMAPE": 0.2892844718722126}
    for name, value in fev.items():
        assert ours[name] == pytest.approx(value, rel=1e-12), name
