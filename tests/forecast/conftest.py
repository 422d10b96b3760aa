"""Fixtures of the forecasting tests: the staged real data converted once to the Arrow layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.protocols.forecast.convert import convert_staged

LEVELS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


@pytest.fixture(scope="session")
def arrow_root(forecast_dir: Path, tmp_path_factory) -> Path:
    """``<root>/{m4_hourly,exchange_rate,nn5}/data-00000-of-00001.arrow`` from the staged files."""
    root = tmp_path_factory.mktemp("forecast_arrow")
    convert_staged(forecast_dir, root)
    return root


def _save_tiny_bolt(path):
    import torch
    from transformers import T5Config
    from chronos.chronos_bolt import ChronosBoltModelForForecasting

    torch.manual_seed(0)
    config = T5Config(d_model=16, d_kv=4, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2,
                      vocab_size=2, decoder_start_token_id=0, pad_token_id=0, eos_token_id=None,
                      architectures=["ChronosBoltModelForForecasting"], chronos_pipeline_class="ChronosBoltPipeline",
                      chronos_config={"context_length": 64, "prediction_length": 16, "input_patch_size": 8,
                                      "input_patch_stride": 8, "quantiles": LEVELS, "use_reg_token": True})
    ChronosBoltModelForForecasting(config).save_pretrained(path)


def _save_tiny_chronos2(path):
    import torch
    from chronos.chronos2.config import Chronos2CoreConfig
    from chronos.chronos2.model import Chronos2Model

    torch.manual_seed(0)
    config = Chronos2CoreConfig(d_model=16, d_kv=4, d_ff=32, num_layers=1, num_heads=2,
                                architectures=["Chronos2Model"], chronos_pipeline_class="Chronos2Pipeline",
                                chronos_config={"context_length": 64, "output_patch_size": 8, "input_patch_size": 8,
                                                "input_patch_stride": 8, "quantiles": LEVELS,
                                                "use_reg_token": True, "max_output_patches": 4})
    Chronos2Model(config).save_pretrained(path)


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    """Tiny randomly initialised Chronos-Bolt and Chronos-2 checkpoints (seeded)."""
    root = tmp_path_factory.mktemp("chronos")
    # directory names deliberately lie: the type must come from config.json
    bolt, chronos2 = root / "chronos-2-lookalike", root / "chronos-bolt-lookalike"
    _save_tiny_bolt(bolt)
    _save_tiny_chronos2(chronos2)
    return {"bolt": bolt, "chronos2": chronos2}
