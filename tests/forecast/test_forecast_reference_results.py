"""The shipped published Chronos results: each model's per-dataset scores reproduce its published
aggregate relative scores (a check of the copies against each other), and they load by name."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from pipeline.errors import ConfigError
from pipeline.protocols.forecast.compare import compare_tables
from pipeline.protocols.forecast.reference import aggregate_scores, reference_names, reference_scores

MODELS = [f"chronos-bolt-{size}" for size in ("tiny", "mini", "small", "base")] + \
         [f"chronos-t5-{size}" for size in ("tiny", "mini", "small", "base", "large")]


#: msh9184/tsm-trainer's README (commit 01564ac8), its Chronos-2 lite reference rounded: WQL, MASE
CHRONOS_2_LITE = {"m4_hourly": (0.0265, 0.8105), "m4_monthly": (0.0926, 0.9224), "monash_weather": (0.1253, 0.7741),
                  "nn5": (0.1488, 0.5768), "exchange_rate": (0.0121, 1.8509)}


def test_every_published_model_the_baseline_and_chronos_2_are_shipped():
    assert reference_names() == sorted([*MODELS, "seasonal-naive", "chronos-2"])


def test_the_chronos_2_lite_reference_is_the_framework_s_table():
    """Its rows round to the table its framework prints, and their means to the printed averages."""
    scores = reference_scores("chronos-2").set_index("dataset")
    assert dict(scores["benchmark"]) == {"m4_hourly": "chronos_i", "m4_monthly": "chronos_i",
                                         "exchange_rate": "chronos_ii", "monash_weather": "chronos_ii",
                                         "nn5": "chronos_ii"}
    for dataset, (wql, mase) in CHRONOS_2_LITE.items():
        assert (round(scores.loc[dataset, "WQL"], 4), round(scores.loc[dataset, "MASE"], 4)) == (wql, mase), dataset
    assert (round(scores["WQL"].mean(), 4), round(scores["MASE"].mean(), 4)) == (0.0811, 0.9870)


def test_runs_are_compared_with_the_chronos_2_reference(tmp_path):
    """A run's rows get Chronos-2's values where it has the dataset (a blank elsewhere), as with any reference."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"benchmarks": ["lite"], "result_files": {"lite": "chronos_lite"}}))
    pd.DataFrame({"dataset": ["exchange_rate", "m4_hourly", "other"], "MASE": [1.7, 1.2, 2.0],
                  "WQL": [0.013, 0.048, 0.5]}).to_csv(run / "chronos_lite.csv", index=False)
    table = compare_tables([run, "chronos-2", "chronos-bolt-base"], ["mine", "c2", "bolt"]).set_index("dataset")
    assert table.loc["exchange_rate", "MASE[c2]"] == pytest.approx(1.8509465999380377, rel=1e-15)
    assert table.loc["m4_hourly", "WQL[c2]"] == pytest.approx(0.02651751588407676, rel=1e-15)
    assert table.loc["m4_hourly", "MASE[bolt]"] == pytest.approx(0.8350129849014075, rel=1e-15)
    assert np.isnan(table.loc["other", "MASE[c2]"]) and table.loc["other", "MASE[mine]"] == 2.0


@pytest.mark.parametrize("model", MODELS)
def test_per_dataset_scores_reproduce_the_published_aggregates(model):
    scores = reference_scores(model).set_index(["benchmark", "dataset"])
    baseline = reference_scores("seasonal-naive").set_index(["benchmark", "dataset"])
    assert list(scores.index) == list(baseline.index)
    assert scores.index.get_level_values(0).value_counts().to_dict() == {"chronos_i": 15, "chronos_ii": 27}
    suites = {"in-domain": "chronos_i", "zero-shot": "chronos_ii"}
    for row in aggregate_scores(model).itertuples():
        bench = suites[row.benchmark]
        relative = scores.loc[bench, row.metric] / baseline.loc[bench, row.metric]
        assert float(np.exp(np.log(relative).mean())) == pytest.approx(row.value, rel=1e-12)


def test_unknown_references_are_errors():
    with pytest.raises(ConfigError, match="unknown reference"):
        reference_scores("chronos-9")
    with pytest.raises(ConfigError, match="no published aggregate"):
        aggregate_scores("seasonal-naive")
