"""Seasonal period table (§4.2) and backtest windows (§4.3)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import ConfigError
from pipeline.protocols.forecast.seasonality import seasonality_from_freq
from pipeline.protocols.forecast.windows import make_windows


@pytest.mark.parametrize("freq, expected", [
    ("h", 24), ("H", 24), ("15min", 96), ("30min", 48), ("10min", 144), ("2h", 12), ("T", 1440),
    ("D", 1), ("W-SUN", 1), ("MS", 12), ("ME", 12), ("M", 12), ("B", 5), ("QS-OCT", 4), ("Q-DEC", 4),
    ("YE-DEC", 1), ("A-DEC", 1), ("s", 1),
])
def test_seasonality_table(freq, expected):
    assert seasonality_from_freq(freq) == expected


def test_non_dividing_multiple_warns_and_gives_one():
    with pytest.warns(UserWarning, match="does not divide"):
        assert seasonality_from_freq("7h") == 1
    with pytest.raises(ConfigError):
        seasonality_from_freq("every tuesday")


def test_last_h_points_window():
    series = [np.arange(10.0), np.arange(5.0)]
    (window,) = make_windows(series, offset=-3, prediction_length=3)
    np.testing.assert_array_equal(window.targets, [[7, 8, 9], [2, 3, 4]])
    assert [len(c) for c in window.contexts] == [7, 2] and window.n_skipped == 0


def test_earlier_target_slice_and_rolling_windows():
    series = [np.arange(20.0)]
    # ETTm-like: offset -8 with H = 2 -> the target is an earlier slice, not the last points
    (window,) = make_windows(series, offset=-8, prediction_length=2)
    np.testing.assert_array_equal(window.targets, [[12, 13]])
    rolls = make_windows(series, offset=-6, prediction_length=2, num_rolls=3)
    np.testing.assert_array_equal(np.concatenate([w.targets for w in rolls]), [[14, 15], [16, 17], [18, 19]])
    assert [len(w.contexts[0]) for w in rolls] == [14, 16, 18]


def test_short_series_are_skipped_and_counted():
    series = [np.arange(3.0), np.arange(10.0)]
    (window,) = make_windows(series, offset=-4, prediction_length=2)
    assert window.n_skipped == 1 and window.item_index.tolist() == [1]
    (window,) = make_windows([np.arange(10.0)], offset=-1, prediction_length=2)
    assert window.n_skipped == 1 and window.targets.shape == (0, 2)
    with pytest.raises(ConfigError):
        make_windows(series, offset=0, prediction_length=2)
