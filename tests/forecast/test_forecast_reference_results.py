"""The shipped published Chronos results: each model's per-dataset scores reproduce its published
aggregate relative scores (a check of the copies against each other), and they load by name."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import ConfigError
from pipeline.protocols.forecast.reference import aggregate_scores, reference_names, reference_scores

MODELS = [f"chronos-bolt-{size}" for size in ("tiny", "mini", "small", "base")] + \
         [f"chronos-t5-{size}" for size in ("tiny", "mini", "small", "base", "large")]


def test_every_published_model_and_the_baseline_is_shipped():
    assert reference_names() == sorted([*MODELS, "seasonal-naive"])


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
