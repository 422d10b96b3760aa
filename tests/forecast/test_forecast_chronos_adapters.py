"""Chronos-Bolt / Chronos-2 adapters on tiny randomly initialised checkpoints built here.

No weights are downloaded: the ``tiny_models`` fixture (conftest.py) saves small random models
with the real ``chronos-forecasting`` classes and the adapters load them back from disk.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from pipeline.errors import ConfigError
from pipeline.protocols.forecast.chronos_models import (Chronos2Forecaster, ChronosBoltForecaster,
                                                        ModelNotAvailableError, resolve_device)
from pipeline.protocols.forecast.models import ModelFactory, detect_model_type

LEVELS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def test_model_type_is_read_from_config_json(tiny_models):
    assert detect_model_type(tiny_models["bolt"]) == "chronos_bolt"
    assert detect_model_type(tiny_models["chronos2"]) == "chronos2"
    assert detect_model_type("seasonal_naive") == "seasonal_naive"


@pytest.mark.parametrize("kind, adapter", [("bolt", ChronosBoltForecaster), ("chronos2", Chronos2Forecaster)])
def test_adapters_return_n_q_h_with_batches_and_ragged_contexts(tiny_models, kind, adapter):
    rng = np.random.default_rng(0)
    contexts = [rng.normal(10, 1, size=n) for n in (50, 7, 90, 33, 20)]
    contexts[1][2] = np.nan  # missing values are passed through to the model
    forecaster = adapter(tiny_models[kind], batch_size=2)
    quantiles, mean = forecaster.predict(contexts, 20, LEVELS)  # 20 > the tiny model's 16 steps
    assert quantiles.shape == (5, 9, 20) and mean.shape == (5, 20)
    assert np.all(np.isfinite(quantiles))
    # the same series gives the same forecast whatever batch it lands in
    single = adapter(tiny_models[kind], batch_size=5).predict_quantiles(contexts, 20, LEVELS)
    np.testing.assert_allclose(single, quantiles, rtol=1e-4, atol=1e-4)
    assert forecaster.describe()["device"] == "cpu"


def test_wrong_adapter_for_the_checkpoint_is_refused(tiny_models):
    with pytest.raises(ConfigError, match="cannot load"):
        Chronos2Forecaster(tiny_models["bolt"])


def test_model_factory_loads_the_pipeline_once(tiny_models):
    factory = ModelFactory(tiny_models["chronos2"])
    assert factory.for_seasonality(24) is factory.for_seasonality(1)
    assert factory.model_name == "chronos-bolt-lookalike" and factory.model_type == "chronos2"


def test_missing_paths_hub_ids_and_incomplete_dirs_are_clear_errors(tmp_path):
    for path in ("amazon/chronos-2", tmp_path / "absent"):
        with pytest.raises(ModelNotAvailableError, match="never downloaded"):
            detect_model_type(path)
    (tmp_path / "config_only").mkdir()
    (tmp_path / "config_only" / "config.json").write_text("{}")
    with pytest.raises(ModelNotAvailableError, match="no weights file"):
        detect_model_type(tmp_path / "config_only")
    (tmp_path / "config_only" / "model.safetensors").write_bytes(b"")
    with pytest.raises(ConfigError, match="chronos_pipeline_class"):
        detect_model_type(tmp_path / "config_only")
    (tmp_path / "config_only" / "config.json").write_text(json.dumps({"chronos_pipeline_class": "Chronos2Pipeline"}))
    assert detect_model_type(tmp_path / "config_only") == "chronos2"


def test_missing_chronos_package_is_a_clear_error(tiny_models, monkeypatch):
    monkeypatch.setitem(sys.modules, "chronos", None)  # makes `import chronos` raise ImportError
    with pytest.raises(ConfigError, match="pip install chronos-forecasting"):
        ChronosBoltForecaster(tiny_models["bolt"])


def test_cuda_request_falls_back_to_cpu_with_a_warning(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for device in ("cuda", "cuda:0", "cuda:3"):
        with pytest.warns(UserWarning, match="falling back to CPU"):
            assert resolve_device(device) == "cpu"
    assert resolve_device("cpu") == "cpu"
    for bad in ("tpu", "cuda:", "cuda:x", "CUDA"):
        with pytest.raises(ConfigError, match="cpu, cuda, cuda:N or a GPU index N"):
            resolve_device(bad)


def test_a_missing_cuda_index_is_an_error(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert resolve_device("cuda:1") == "cuda:1"
    with pytest.raises(ConfigError, match="no such CUDA device"):
        resolve_device("cuda:2")
