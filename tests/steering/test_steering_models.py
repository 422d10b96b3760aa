"""Model zoo M1-M8: documented parameter counts, shapes, seeded initialisation, latency."""

import numpy as np
import pytest
import torch

from pipeline.errors import ConfigError
from pipeline.protocols.steering.models import MODEL_SPECS, build_model, count_parameters, parameter_efficiency
from pipeline.protocols.steering.training import measure_latency

RECOMPUTED = {"M1": 4_609, "M2": 40_449, "M3": 84_801, "M4": 84_866, "M5": 597_633,
              "M6": 597_762, "M7": 630_786, "M8": 597_633}


@pytest.mark.parametrize("model_id", sorted(RECOMPUTED))
def test_parameter_counts_match_the_documented_table(model_id):
    model = build_model(model_id, seed=0)
    n_params = count_parameters(model)
    assert abs(n_params - RECOMPUTED[model_id]) <= 0.005 * RECOMPUTED[model_id]
    assert n_params == RECOMPUTED[model_id] == MODEL_SPECS[model_id].expected_params
    out = model(torch.zeros(3, 50, 5))
    assert out.shape == (3,)


def test_lstm_formula_and_attention_overheads():
    assert count_parameters(build_model("M3", 0).lstm) == 84_736
    assert count_parameters(build_model("M5", 0).lstm) == 597_504
    assert count_parameters(build_model("M8", 0)) == count_parameters(build_model("M5", 0))


def test_initialisation_depends_on_seed_only_and_keeps_global_rng():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    first, second = build_model("M4", 7), build_model("M4", 7)
    assert float(torch.rand(1)) == float(before)
    for p, q in zip(first.parameters(), second.parameters()):
        assert torch.equal(p, q)
    assert not torch.equal(next(build_model("M4", 8).parameters()), next(first.parameters()))


def test_dot_product_attention_attends_over_time():
    model = build_model("M8", 0).eval()
    x = torch.randn(2, 50, 5, generator=torch.Generator().manual_seed(0))
    y = x.clone()
    y[:, :10] += 1.0  # changing early steps must change the output through attention
    with torch.inference_mode():
        assert not torch.allclose(model(x), model(y))


def test_unknown_model_is_a_config_error():
    with pytest.raises(ConfigError, match="M9"):
        build_model("M9", 0)


def test_latency_protocol_reports_percentiles_on_one_thread():
    threads = torch.get_num_threads()
    report = measure_latency(build_model("M1", 0), torch.zeros(1, 50, 5), n_warmup=5, n_timed=50)
    assert report["num_threads"] == 1 and torch.get_num_threads() == threads
    assert 0 < report["p50_ms"] <= report["p95_ms"] and report["n_timed"] == 50
    with pytest.raises(ValueError, match="one window"):
        measure_latency(build_model("M1", 0), torch.zeros(2, 50, 5))


def test_parameter_efficiency_reference_value():
    assert parameter_efficiency(80.0, 4_609) == pytest.approx(1735.7, abs=0.05)
    assert np.isclose(parameter_efficiency(50.0, 100_000), 50.0)
