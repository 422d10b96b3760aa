"""Chronos-2 and Chronos-Bolt adapters (package ``chronos-forecasting``, imported lazily).

Weights are never downloaded: a model is loaded only from an existing local directory holding a
Chronos ``config.json`` and a weights file. The model type is read from that ``config.json``
(``chronos_pipeline_class``), never from the directory name.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ...documents import read_document
from ...errors import ConfigError, PipelineError
from ..devices import resolve_device
from .forecasters import BaseForecaster, assert_quantile_shape

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                "pytorch_model.bin.index.json")
PIPELINE_KINDS = {"Chronos2Pipeline": "chronos2", "ChronosBoltPipeline": "chronos_bolt",
                  "ChronosPipeline": "chronos_t5"}
CHRONOS_PACKAGE_HINT = "pip install chronos-forecasting==2.3.2"


class ModelNotAvailableError(PipelineError, FileNotFoundError):
    """Model weights are not present locally; they must be placed there by hand."""


def _not_available(path: str | Path, found: str) -> ModelNotAvailableError:
    return ModelNotAvailableError(
        "model weights are not available locally and are never downloaded; place the checkpoint "
        "(config.json + model.safetensors) in a local directory and pass that path "
        "(hub IDs such as 'amazon/chronos-2' are not accepted)",
        file=path, expected="an existing directory with config.json and weights", found=found)


def check_model_dir(path: str | Path) -> dict:
    """Return the parsed ``config.json`` of a local Chronos checkpoint, or raise ModelNotAvailableError."""
    path = Path(path)
    if not path.is_dir():
        raise _not_available(path, "no such directory")
    config_file = path / "config.json"
    if not config_file.is_file():
        raise _not_available(path, "no config.json")
    if not any((path / name).is_file() for name in WEIGHT_FILES):
        raise _not_available(path, f"no weights file ({', '.join(WEIGHT_FILES[:2])})")
    return read_document(config_file, "model config.json", kind="json")


def chronos_kind(path: str | Path) -> str:
    """``chronos2``, ``chronos_bolt`` or ``chronos_t5`` from the checkpoint's ``config.json``."""
    config = check_model_dir(path)
    pipeline_class = config.get("chronos_pipeline_class")
    if pipeline_class is None and "chronos_config" in config:
        pipeline_class = "ChronosPipeline"
    if pipeline_class not in PIPELINE_KINDS:
        raise ConfigError("config.json does not describe a Chronos checkpoint", file=Path(path) / "config.json",
                          field="chronos_pipeline_class", expected=sorted(PIPELINE_KINDS), found=pipeline_class)
    return PIPELINE_KINDS[pipeline_class]


def _import_chronos():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import chronos
    except ImportError as exc:
        raise ConfigError(f"the Chronos adapters need the 'chronos-forecasting' package ({CHRONOS_PACKAGE_HINT})",
                          found=str(exc)) from exc
    return chronos


class ChronosForecaster(BaseForecaster):
    """Common loading and batching of a Chronos pipeline from a local directory.

    Parameters
    ----------
    model_path : local checkpoint directory; device : ``cpu``, ``cuda`` or ``cuda:N`` (falls back to CPU);
    torch_dtype : ``float32`` or ``bfloat16``; batch_size : series per forward call.
    """

    kind = "chronos"

    def __init__(self, model_path: str | Path, *, device: str = "cpu", torch_dtype: str = "float32",
                 batch_size: int = 32):
        if torch_dtype not in ("float32", "bfloat16"):
            raise ConfigError("unknown torch dtype", field="--torch-dtype", expected="float32 or bfloat16",
                              found=torch_dtype)
        found_kind = chronos_kind(model_path)
        if found_kind not in self.accepted_kinds:
            raise ConfigError(f"{type(self).__name__} cannot load this checkpoint", file=model_path,
                              expected=self.accepted_kinds, found=found_kind)
        chronos = _import_chronos()
        import torch

        self.model_path = Path(model_path)
        self.device = resolve_device(device)
        self.torch_dtype = torch_dtype
        self.batch_size = int(batch_size)
        self.name = f"{found_kind}:{self.model_path.name}"
        self.pipeline = chronos.BaseChronosPipeline.from_pretrained(
            str(self.model_path), device_map=self.device, torch_dtype=getattr(torch, torch_dtype))

    accepted_kinds: tuple[str, ...] = ()

    def describe(self) -> dict:
        return {"name": self.name, "kind": self.kind, "model_path": str(self.model_path),
                "device": self.device, "torch_dtype": self.torch_dtype, "batch_size": self.batch_size}

    def _predict(self, contexts, horizon, levels):
        import torch

        quantile_parts, mean_parts = [], []
        for start in range(0, len(contexts), self.batch_size):
            batch = [torch.tensor(c, dtype=torch.float32) for c in contexts[start:start + self.batch_size]]
            quantiles, mean = self._call_pipeline(batch, horizon, levels)
            quantile_parts.append(assert_quantile_shape(quantiles, len(batch), len(levels), horizon,
                                                        f"{self.name} batch"))
            mean_parts.append(mean)
        return np.concatenate(quantile_parts), np.concatenate(mean_parts)

    def _call_pipeline(self, batch, horizon, levels) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


class ChronosBoltForecaster(ChronosForecaster):
    """Chronos-Bolt (and original Chronos T5): tensors ``(B, H, Q)`` and ``(B, H)``."""

    kind = "chronos_bolt"
    accepted_kinds = ("chronos_bolt", "chronos_t5")

    def _call_pipeline(self, batch, horizon, levels):
        quantiles, mean = self.pipeline.predict_quantiles(batch, prediction_length=horizon,
                                                          quantile_levels=list(levels))
        return (quantiles.float().cpu().numpy().transpose(0, 2, 1),
                mean.float().cpu().numpy())


class Chronos2Forecaster(ChronosForecaster):
    """Chronos-2: lists of ``(n_variates, H, Q)`` tensors, one per series; cross-learning off."""

    kind = "chronos2"
    accepted_kinds = ("chronos2",)

    def _call_pipeline(self, batch, horizon, levels):
        quantiles, mean = self.pipeline.predict_quantiles(batch, prediction_length=horizon,
                                                          quantile_levels=list(levels),
                                                          batch_size=self.batch_size,
                                                          cross_learning=False)
        stacked = np.stack([q.float().cpu().numpy()[0] for q in quantiles])  # (B, H, Q)
        means = np.stack([m.float().cpu().numpy()[0] for m in mean])  # (B, H)
        return stacked.transpose(0, 2, 1), means
