"""Seasonal period table (GluonTS ``get_seasonality``) and backtest windows (offsets and date cutoffs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline.errors import ConfigError, DataError
from pipeline.protocols.forecast.seasonality import seasonality_from_freq
from pipeline.protocols.forecast.windows import backtest_windows, date_cuts, make_windows, offset_cuts


@pytest.mark.parametrize("freq, expected", [
    ("h", 24), ("H", 24), ("15min", 96), ("30min", 48), ("10min", 144), ("2h", 12), ("T", 1440), ("5T", 288),
    ("D", 1), ("W-SUN", 1), ("MS", 12), ("ME", 12), ("M", 12), ("B", 5), ("QS-OCT", 4), ("Q-DEC", 4),
    ("YE-DEC", 1), ("A-DEC", 1),
    # seconds: an hour of seconds, as GluonTS; sub-second and month-start are not confused
    ("s", 3600), ("S", 3600), ("10s", 360), ("30s", 120), ("ms", 1), ("us", 1),
])
def test_seasonality_table(freq, expected):
    assert seasonality_from_freq(freq) == expected


def test_hourly_data_in_seconds_has_the_gluonts_seasonality():
    stamps = pd.date_range("2024-01-01", periods=10, freq="s")
    assert seasonality_from_freq(pd.infer_freq(stamps)) == 3600


def test_non_dividing_multiple_warns_and_gives_one():
    with pytest.warns(UserWarning, match="does not divide"):
        assert seasonality_from_freq("7h") == 1
    with pytest.warns(UserWarning, match="does not divide"):
        assert seasonality_from_freq("7s") == 1
    with pytest.raises(ConfigError, match="cannot parse"):
        seasonality_from_freq("every tuesday")


def test_last_h_points_window():
    series = [np.arange(10.0), np.arange(5.0)]
    (window,) = backtest_windows(series, offset=-3, prediction_length=3)
    np.testing.assert_array_equal(window.targets, [[7, 8, 9], [2, 3, 4]])
    assert [len(c) for c in window.contexts] == [7, 2] and window.n_skipped == 0


def test_earlier_target_slice_and_rolling_windows():
    series = [np.arange(20.0)]
    # ETTm-like: offset -8 with H = 2 -> the target is an earlier slice, not the last points
    (window,) = backtest_windows(series, offset=-8, prediction_length=2)
    np.testing.assert_array_equal(window.targets, [[12, 13]])
    rolls = list(backtest_windows(series, offset=-6, prediction_length=2, num_windows=3))
    np.testing.assert_array_equal(np.concatenate([w.targets for w in rolls]), [[14, 15], [16, 17], [18, 19]])
    assert [len(w.contexts[0]) for w in rolls] == [14, 16, 18]


def test_non_negative_offset_is_a_position_from_the_start():
    series = [np.arange(10.0), np.arange(6.0)]
    windows = list(make_windows(series, offset_cuts([10, 6], offset=3, step=2, num_windows=2), prediction_length=2))
    np.testing.assert_array_equal(windows[0].targets, [[3, 4], [3, 4]])
    # the second window of the short series would need y[5:7] from 6 points: skipped and counted
    np.testing.assert_array_equal(windows[1].targets, [[5, 6]])
    assert windows[1].n_skipped == 1


def test_short_series_are_skipped_and_counted():
    series = [np.arange(3.0), np.arange(10.0)]
    (window,) = backtest_windows(series, offset=-4, prediction_length=2)
    assert window.n_skipped == 1 and window.item_index.tolist() == [1]
    # an empty context (cut at 0) is skipped too
    (window,) = backtest_windows([np.arange(10.0), np.arange(3.0)], offset=-3, prediction_length=3)
    assert window.item_index.tolist() == [0] and window.n_skipped == 1


def test_min_and_max_context_length():
    series = [np.arange(10.0), np.arange(20.0)]
    (window,) = backtest_windows(series, offset=-2, prediction_length=2, min_context_length=10)
    assert window.item_index.tolist() == [1] and window.n_skipped == 1
    (window,) = backtest_windows(series, offset=-2, prediction_length=2, max_context_length=3)
    np.testing.assert_array_equal(window.contexts[1], [15, 16, 17])


def test_a_window_with_no_series_is_an_error_not_a_silent_skip():
    with pytest.raises(DataError, match="window 0 keeps no series"):
        list(backtest_windows([np.arange(5.0)], offset=-20, prediction_length=2))


def test_windows_are_produced_one_at_a_time():
    """The generator holds one window: a huge window count costs nothing until iterated."""
    windows = backtest_windows([np.arange(50.0)], offset=-10, prediction_length=1, num_windows=10**12, step=1)
    first = next(windows)
    assert first.targets.tolist() == [[40.0]]


def test_date_cutoffs_count_points_at_or_before_each_cutoff():
    stamps = [pd.date_range("2023-01-01", periods=10, freq="D").to_numpy(),
              pd.date_range("2023-01-04", periods=8, freq="D").to_numpy()]
    cuts = list(date_cuts(stamps, first=pd.Timestamp("2023-01-05"), step=pd.offsets.Day(2), num_windows=2))
    assert [c.tolist() for c in cuts] == [[5, 2], [7, 4]]
    series = [np.arange(10.0), np.arange(8.0)]
    windows = list(make_windows(series, iter(cuts), prediction_length=3))
    np.testing.assert_array_equal(windows[1].targets, [[7, 8, 9], [4, 5, 6]])
