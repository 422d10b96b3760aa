"""The shipped GIFT-Eval and fev-bench task lists, and both suites run on small local data in their
own layouts (GIFT-Eval storage with multivariate targets; fev data with a date cutoff)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from forecast_layouts import chronos_table, gift_eval_table, write_ipc

from pipeline.cli import run_main
from pipeline.errors import ConfigError
from pipeline.protocols.forecast.__main__ import main
from pipeline.protocols.forecast.benchmarks import load_benchmark
from pipeline.protocols.forecast.data import load_dataset
from pipeline.protocols.forecast.runner import task_cuts


def cli(*args) -> int:
    return run_main(main, [str(a) for a in args])


def test_shipped_gift_eval_list_has_the_97_configurations():
    tasks = load_benchmark("gift_eval").tasks
    assert len(tasks) == 97
    terms = pd.Series([t.term for t in tasks]).value_counts().to_dict()
    assert terms == {"short": 55, "medium": 21, "long": 21}
    labels = {t.label for t in tasks}
    assert {"m4_hourly/short", "electricity/15T/long", "bizitobs_l2c/H/medium", "us_births/W/short"} <= labels
    assert "m4_hourly/long" not in labels
    assert {t.hf_repo for t in tasks} == {"Salesforce/GiftEval"} and {t.window_aggregation for t in tasks} == {"pool"}


def test_shipped_fev_bench_list_has_the_100_tasks():
    tasks = {t.label: t for t in load_benchmark("fev_bench").tasks}
    assert len(tasks) == 100
    dated = {label: (t.initial_cutoff, t.min_context_length) for label, t in tasks.items() if t.initial_cutoff}
    assert dated == {"rohlik_orders_1D": ("2023-05-01T00:00:00", 1), "rohlik_orders_1W": ("2023-05-01T00:00:00", 1),
                     "rohlik_sales_1D": ("2023-12-15T00:00:00", 14), "rohlik_sales_1W": ("2023-12-15T00:00:00", 8)}
    covid = tasks["uk_covid_nation_1D/new"]
    assert covid.name == "uk_covid_nation_1D" and covid.target == ("new_admissions", "new_cases", "new_deaths")
    assert covid.seasonality == 7 and covid.num_rolls == 20 and covid.offset == -28 * 20
    assert len(tasks["boomlet_1676"].target) == 100 and tasks["m5_1M"].min_context_length == 6
    assert tasks["hermes"].target == "target" and {t.mase_edge for t in tasks.values()} == {"fev"}


def test_gift_eval_windows_horizons_and_pooled_scores_on_its_layout(tmp_path):
    """Hourly series y = t (one univariate dataset, one with two variates y = t and 2t): the seasonal
    naive point forecast repeats the last day, so step h misses by ``24 * (h // 24 + 1)`` (times 2
    for 2t) while the seasonal error is 24 (48): MASE = mean(h // 24 + 1). WQL is pooled over windows."""
    length = 1000
    write_ipc(tmp_path / "toy" / "H", gift_eval_table([np.arange(length, dtype=float)], "H"))
    write_ipc(tmp_path / "pair", gift_eval_table([np.vstack([np.arange(length), 2 * np.arange(length)])], "h"))
    tasks = tmp_path / "gift.yaml"
    tasks.write_text(yaml.safe_dump({"short": ["toy/H"], "medium_long": ["pair"]}))
    assert cli("run_benchmark", "--model-path", "seasonal_naive_point", "--benchmarks", f"gift_eval={tasks}",
               "--datasets-root", tmp_path, "--output-dir", tmp_path, "--experiment-name", "gift",
               "--no-progress") == 0
    table = pd.read_csv(tmp_path / "gift" / "gift_eval.csv").set_index("dataset")
    # H = 48 x term multiplier; windows = min(max(1, ceil(0.1 * 1000 / H)), 20)
    assert table.loc["toy/H/short", ["prediction_length", "n_windows", "n_series"]].tolist() == [48, 3, 1]
    assert table.loc["pair/medium", ["prediction_length", "n_windows", "n_series"]].tolist() == [480, 1, 2]
    assert table.loc["pair/long", ["prediction_length", "n_windows"]].tolist() == [720, 1]
    assert table["MASE"].to_dict() == {"toy/H/short": 1.5, "pair/medium": 10.5, "pair/long": 15.5}
    assert (table["window_aggregation"] == "pool").all()
    cuts = [length - 48 * 3 + 48 * k for k in range(3)]
    error = sum(24 * (h // 24 + 1) for h in range(48))
    pooled = 3 * error / sum(48 * c + sum(range(48)) for c in cuts)
    assert table.loc["toy/H/short", "WQL"] == pytest.approx(pooled, rel=1e-9)  # CSV keeps 10 digits
    averaged = np.mean([error / (48 * c + sum(range(48))) for c in cuts])
    assert abs(pooled / averaged - 1) > 1e-3  # pooling is not the mean of window scores


def test_gift_eval_m4_datasets_have_one_window_and_the_chronos_scores(arrow_root, tmp_path):
    tasks = tmp_path / "gift.yaml"
    tasks.write_text(yaml.safe_dump({"short": ["m4_hourly"]}))
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"gift_eval={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--experiment-name", "m4",
               "--no-progress") == 0
    row = pd.read_csv(tmp_path / "m4" / "gift_eval.csv").iloc[0]
    assert (row["prediction_length"], row["n_windows"], row["n_series"]) == (48, 1, 414)
    assert row["MASE"] == pytest.approx(1.1932105781333862, rel=1e-6)  # the published Chronos value


def test_gift_eval_rejects_frequencies_it_has_no_horizon_for(arrow_root, tmp_path):
    tasks = tmp_path / "gift.yaml"
    tasks.write_text(yaml.safe_dump({"short": ["exchange_rate", "nn5"]}))  # business days: not in GIFT-Eval's table
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"gift_eval={tasks}",
               "--datasets-root", arrow_root, "--output-dir", tmp_path, "--on-missing", "drop",
               "--experiment-name", "b", "--no-progress") == 0
    summary = json.loads((tmp_path / "b" / "gift_eval_summary.json").read_text())
    assert "no GIFT-Eval horizon for this frequency" in summary["failed_tasks"]["exchange_rate/short"]


def _daily_fev_data(root):
    """Two daily series y = t from 2023-01-01 (150 and 120 days) in the fev layout."""
    write_ipc(root / "shop", chronos_table({"sales": [np.arange(150.0), np.arange(120.0)]}, "2023-01-01", "D"))


def test_fev_date_cutoff_windows_start_after_the_cutoff(tmp_path):
    _daily_fev_data(tmp_path)
    tasks = tmp_path / "fev.yaml"
    tasks.write_text(yaml.safe_dump({"tasks": [
        {"dataset_config": "shop", "horizon": 7, "num_windows": 2, "initial_cutoff": "2023-04-10",
         "seasonality": 7, "target": "sales", "task_name": "dated"},
        {"dataset_config": "shop", "horizon": 7, "num_windows": 2, "initial_cutoff": "2023-04-10",
         "window_step_size": "14D", "seasonality": 7, "target": "sales", "task_name": "fortnight"}]}))
    benchmark = load_benchmark(f"fev_bench={tasks}")
    dataset = load_dataset(tmp_path, "shop", "sales", with_timestamps=True)
    day = (pd.Timestamp("2023-04-10") - pd.Timestamp("2023-01-01")).days
    cuts = [c.tolist() for c in task_cuts(benchmark.tasks[0], dataset, np.arange(2))]
    assert cuts == [[day + 1, day + 1], [day + 8, day + 8]]  # at or before the cutoff is context
    cuts = [c.tolist() for c in task_cuts(benchmark.tasks[1], dataset, np.arange(2))]
    assert cuts == [[day + 1, day + 1], [day + 15, day + 15]]
    assert cli("run_benchmark", "--model-path", "seasonal_naive_point", "--benchmarks", f"fev_bench={tasks}",
               "--datasets-root", tmp_path, "--output-dir", tmp_path, "--experiment-name", "fev",
               "--no-progress") == 0
    table = pd.read_csv(tmp_path / "fev" / "fev_bench.csv").set_index("dataset")
    # y = t and a seasonal naive point forecast: every error is one season (7), the scale too
    assert table.loc["dated", ["n_windows", "n_series", "MASE", "SQL"]].tolist() == [2, 2, 1.0, 1.0]
    # the second fortnight window needs days 114..120 (121 points): the 120-day series is skipped there
    assert table.loc["fortnight", ["n_windows", "n_series", "n_skipped"]].tolist() == [2, 2, 1]


def test_fev_date_cutoff_outside_the_data_is_an_error(tmp_path):
    _daily_fev_data(tmp_path)
    tasks = tmp_path / "fev.yaml"
    tasks.write_text(yaml.safe_dump({"tasks": [
        {"dataset_config": "shop", "horizon": 7, "initial_cutoff": "2030-01-01", "target": "sales"}]}))
    assert cli("run_benchmark", "--model-path", "seasonal_naive", "--benchmarks", f"fev_bench={tasks}",
               "--datasets-root", tmp_path, "--output-dir", tmp_path, "--no-progress") == 2


@pytest.mark.parametrize("task, message", [
    ({"dataset_config": "shop", "horizon": 7, "num_windows": 3, "initial_cutoff": -10}, "offset leaves no room"),
    ({"dataset_config": "shop", "horizon": 7, "window_step_size": "7D"}, "needs a date initial_cutoff"),
    ({"dataset_config": "shop", "horizon": 7, "initial_cutoff": "someday"}, "neither an integer nor a date"),
    ({"dataset_config": "shop", "horizon": 7, "generate_univariate_targets_from": ["a"]}, "not supported"),
    ({"dataset_config": "shop", "horizon": 7, "quantile_levels": [0.5]}, "quantile levels"),
    ({"dataset_config": "shop", "horizon": 7, "horizon_weight": [1]}, "unknown task keys"),
    ({"dataset_config": "shop", "horizon": 0}, "invalid value"),
    ({"dataset_config": "shop", "horizon": 7, "target": []}, "non-empty list"),
])
def test_fev_task_definitions_are_validated(tmp_path, task, message):
    tasks = tmp_path / "fev.yaml"
    tasks.write_text(yaml.safe_dump({"tasks": [task]}))
    with pytest.raises(ConfigError, match=message):
        load_benchmark(f"fev_bench={tasks}")
