"""Model selection from ``--model-path``: built-in baselines by name, Chronos checkpoints by config.

``seasonal_naive`` (Gaussian intervals), ``seasonal_naive_point`` (quantiles = point forecast, the
Chronos reference convention) and ``auto_ets`` need no weights. Any other value must be a local directory
whose ``config.json`` names a Chronos pipeline class; the type is read from that file, not from
the directory name.
"""

from __future__ import annotations

from pathlib import Path

from ..devices import check_device, resolve_device
from .chronos_models import Chronos2Forecaster, ChronosBoltForecaster, chronos_kind
from .forecasters import AutoETSForecaster, BaseForecaster, SeasonalNaiveForecaster

BUILTIN_MODELS = {
    "seasonal_naive": lambda m: SeasonalNaiveForecaster(m, intervals="gaussian"),
    "seasonal_naive_point": lambda m: SeasonalNaiveForecaster(m, intervals="point"),
    "auto_ets": lambda m: AutoETSForecaster(m),
}
CHRONOS_ADAPTERS = {"chronos2": Chronos2Forecaster, "chronos_bolt": ChronosBoltForecaster,
                    "chronos_t5": ChronosBoltForecaster}


def detect_model_type(model_path: str | Path) -> str:
    """``seasonal_naive``, ``auto_ets``, ``chronos2``, ``chronos_bolt`` or ``chronos_t5``.

    Raises ModelNotAvailableError for a path that is not a complete local checkpoint.
    """
    if str(model_path) in BUILTIN_MODELS:
        return str(model_path)
    return chronos_kind(model_path)


class ModelFactory:
    """Creates the forecaster for each dataset (baselines need the dataset's seasonality).

    A Chronos pipeline is loaded once and reused for every dataset.
    """

    def __init__(self, model_path: str | Path, *, device: str = "cpu", torch_dtype: str = "float32",
                 batch_size: int = 32):
        self.model_path = str(model_path)
        self.model_type = detect_model_type(model_path)
        self.options = {"device": check_device(device), "torch_dtype": torch_dtype, "batch_size": batch_size}
        # resolved before any work, so the banner can name the device the run will use
        self.device = "cpu" if self.model_type in BUILTIN_MODELS else resolve_device(self.options["device"])
        self._chronos: BaseForecaster | None = None

    @property
    def model_name(self) -> str:
        return self.model_type if self.model_type in BUILTIN_MODELS else Path(self.model_path).name

    def for_seasonality(self, seasonality: int) -> BaseForecaster:
        if self.model_type in BUILTIN_MODELS:
            return BUILTIN_MODELS[self.model_type](seasonality)
        if self._chronos is None:
            self._chronos = CHRONOS_ADAPTERS[self.model_type](self.model_path,
                                                              **{**self.options, "device": self.device})
        return self._chronos

    def describe(self) -> dict:
        """Model settings for ``config.json``: ``device`` is the one used, ``device_requested`` the option.

        Built-in baselines run in NumPy on the CPU whatever the option; a Chronos model runs on the
        requested device, or on the CPU after a CUDA fallback.
        """
        return {"model_path": self.model_path, "model_type": self.model_type, **self.options,
                "device_requested": self.options["device"], "device": self.device}
