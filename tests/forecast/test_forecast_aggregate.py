"""Aggregations (docs/forecast.md, "Aggregation"): gmean relative scores, win rate with ties, clipped skill,
bootstrap CI, policies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline.errors import ConfigError, DataError
from pipeline.protocols.forecast.aggregate import (apply_missing_policy, gmean_relative, leaderboard,
                                                   mean_summary)


@pytest.fixture
def errors() -> pd.DataFrame:
    return pd.DataFrame({"naive": [1.0, 2.0, 4.0, 1.0], "model_a": [0.5, 2.0, 2.0, 1e-6],
                         "model_b": [2.0, 2.0, 8.0, 1.0]}, index=["d1", "d2", "d3", "d4"])


def test_gmean_relative(errors):
    result = gmean_relative(errors, "naive")
    assert result["naive"] == pytest.approx(1.0)
    assert result["model_a"] == pytest.approx((0.5 * 1.0 * 0.5 * 1e-6) ** 0.25)
    assert result["model_b"] == pytest.approx((2 * 1 * 2 * 1) ** 0.25)


def test_leaderboard_skill_is_clipped_and_win_rate_counts_ties_half(errors):
    board = leaderboard(errors, "naive").set_index("model")
    clipped = np.array([0.5, 1.0, 0.5, 0.01])  # 1e-6 is clipped to 0.01
    assert board.loc["model_a", "skill_score"] == pytest.approx(1 - np.exp(np.log(clipped).mean()))
    assert board.loc["naive", "skill_score"] == pytest.approx(0.0)
    # model_a vs naive: win, tie, win, win -> 3.5/4; vs model_b: win, tie, win, win -> 3.5/4
    assert board.loc["model_a", "win_rate"] == pytest.approx(3.5 / 4)
    assert board.loc["model_a", "win_rate_vs_baseline"] == pytest.approx(3.5 / 4)
    # naive vs model_a: 0.5/4; vs model_b: win, tie, win, tie -> 3/4
    assert board.loc["naive", "win_rate"] == pytest.approx((0.5 / 4 + 3 / 4) / 2)
    assert list(board.index) == ["model_a", "naive", "model_b"]


def test_bootstrap_ci_is_seeded_and_brackets_the_estimate(errors):
    first, second = leaderboard(errors, "naive"), leaderboard(errors, "naive")
    pd.testing.assert_frame_equal(first, second)
    for row in first.itertuples():
        assert row.skill_score_lower <= row.skill_score + 1e-12 <= row.skill_score_upper + 2e-12
        assert row.win_rate_lower <= row.win_rate <= row.win_rate_upper


def test_bootstrap_matches_explicit_resampling(errors):
    board = leaderboard(errors, "naive", n_resamples=200, seed=123).set_index("model")
    rng = np.random.default_rng(123)
    draws = rng.integers(0, 4, size=(200, 4))
    log_rel = np.log(np.clip(errors["model_b"] / errors["naive"], 0.01, 100)).to_numpy()
    skills = 1 - np.exp(log_rel[draws].mean(axis=1))
    lower, upper = np.quantile(skills, [0.025, 0.975])
    assert board.loc["model_b", "skill_score_lower"] == pytest.approx(lower)
    assert board.loc["model_b", "skill_score_upper"] == pytest.approx(upper)


def test_missing_policies(errors):
    holed = errors.copy()
    holed.loc["d2", "model_b"] = np.nan
    with pytest.raises(DataError, match="model_b@d2"):
        apply_missing_policy(holed, "naive", "error")
    assert list(apply_missing_policy(holed, "naive", "drop").index) == ["d1", "d3", "d4"]
    imputed = apply_missing_policy(holed, "naive", "impute")
    assert imputed.loc["d2", "model_b"] == errors.loc["d2", "naive"]
    assert leaderboard(holed, "naive", policy="drop")["n_tasks"].iloc[0] == 3
    with pytest.raises(ConfigError):
        apply_missing_policy(holed, "naive", "ignore")
    no_base = errors.copy()
    no_base.loc["d1", "naive"] = np.nan
    with pytest.raises(DataError, match="baseline"):
        apply_missing_policy(no_base, "naive", "impute")


def test_mean_summary():
    table = pd.DataFrame({"MASE": [1.0, 3.0], "WQL": [0.1, 0.3]})
    assert mean_summary(table) == {"avg_mase": 2.0, "avg_wql": pytest.approx(0.2), "n_datasets": 2}


def test_leaderboard_reproduces_fev_0_10_including_bootstrap_bounds():
    """Reference values: fev 0.10.0 ``fev.analysis.leaderboard(..., n_resamples=1000, seed=123)`` run
    (in a separate venv) on exactly this error table."""
    rng = np.random.default_rng(0)
    tasks = [f"t{i}" for i in range(12)]
    errors = pd.DataFrame(rng.lognormal(0, 0.5, (12, 4)), index=tasks, columns=["seasonal_naive", "a", "b", "c"])
    errors.loc["t3", "b"] = errors.loc["t3", "a"]
    fev = {  # model: win_rate, lower, upper, skill_score, lower, upper
        "seasonal_naive": (0.750000, 0.583333, 0.916667, 0.0, 0.0, 0.0),
        "a": (0.458333, 0.250000, 0.694444, -0.349538, -0.852323, -0.016414),
        "b": (0.430556, 0.250000, 0.611111, -0.417391, -0.996207, -0.036422),
        "c": (0.361111, 0.166667, 0.555556, -0.561007, -1.081158, -0.130143),
    }
    board = leaderboard(errors, "seasonal_naive").set_index("model")
    columns = ["win_rate", "win_rate_lower", "win_rate_upper", "skill_score", "skill_score_lower",
               "skill_score_upper"]
    for model, expected in fev.items():
        np.testing.assert_allclose(board.loc[model, columns].to_numpy(dtype=float), expected, atol=1e-6)
