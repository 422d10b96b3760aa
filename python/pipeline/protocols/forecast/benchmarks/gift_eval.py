"""GIFT-Eval adapter: its dataset/term configuration and horizon/window rules.

The task list (shipped ``configs/gift_eval.yaml``, or ``gift_eval=FILE`` in the same format) maps
``short`` and ``medium_long`` to dataset names (``m4_hourly``, ``electricity/15T``, read from
``<root>/<name>``). Each short name gives a ``short`` task, each medium/long name a ``medium`` and
a ``long`` task. Once a dataset is loaded (GIFT-Eval's ``gift_eval.data.Dataset`` rules):

* base horizon from the frequency: M 12, W 8, D 30, H 48, T 48, S 60; datasets whose name
  contains ``m4``: A 6, Q 8, M 18, W 13, D 14, H 48; ``medium`` x10, ``long`` x15; any other
  frequency (business days, quarters outside M4, ...) has no GIFT-Eval horizon and fails;
* windows: ``m4`` datasets 1, others ``min(max(1, ceil(0.1 * shortest series / H)), 20)``,
  non-overlapping, ending at the series end;
* the ``target`` column only (covariates such as ``past_feat_dynamic_real`` are not series), a
  multivariate target split into one series per variate;
* metrics pooled over all windows and items, as GluonTS ``evaluate_model(axis=None)`` does.

Summary: geometric mean of relative MASE and WQL ("CRPS") vs seasonal naive.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from ....errors import ConfigError
from ..data import validate_dataset_name
from ..limits import brief
from ..seasonality import base_code, frequency_offset
from . import Benchmark, TaskSpec, check_entries, mean_and_relative, read_yaml

BASE_HORIZON = {"M": 12, "W": 8, "D": 30, "H": 48, "T": 48, "S": 60}
M4_BASE_HORIZON = {"A": 6, "Q": 8, "M": 18, "W": 13, "D": 14, "H": 48}
TERM_MULTIPLIER = {"short": 1, "medium": 10, "long": 15}
# Protocol semantics, not input limits: GIFT-Eval's TEST_SPLIT and MAX_WINDOW (gift_eval/data.py) -- the
# share of the shortest series that is tested and the most windows a task evaluates.
TEST_FRACTION, MAX_WINDOWS = 0.1, 20
GROUPS = (("short", ("short",)), ("medium_long", ("medium", "long")))
# pandas >= 2.2 names of the codes GIFT-Eval's tables use
_CODE_ALIASES = {"ME": "M", "QE": "Q", "Y": "A", "YE": "A", "h": "H", "min": "T", "s": "S"}


def frequency_code(freq: str | None) -> str:
    """GIFT-Eval's base frequency letter (``T``, ``H``, ``D``, ``W``, ``M``, ``Q``, ``A``, ``S``, ...)."""
    if freq is None:
        raise ConfigError("GIFT-Eval horizons need the data's frequency", expected="a 'freq' column or metadata")
    code = base_code(frequency_offset(freq))
    return _CODE_ALIASES.get(code, code)


class GiftEvalBenchmark(Benchmark):
    name = "gift_eval"
    result_name = "gift_eval"
    default_config = "gift_eval.yaml"
    baseline_model = "seasonal_naive"

    def load_tasks(self, source: Path) -> list[TaskSpec]:
        document = read_yaml(source, self.limits)
        if not isinstance(document, dict) or not set(document) <= {name for name, _ in GROUPS}:
            raise ConfigError("GIFT-Eval task list must map 'short' and 'medium_long' to dataset names",
                              file=source, found=brief(document))
        tasks = []
        for group, terms in GROUPS:
            names = document.get(group)
            for name in check_entries(names, source, self.limits, group) if names not in (None, []) else []:
                if not isinstance(name, str):
                    raise ConfigError("GIFT-Eval dataset names must be text", file=source, field=group,
                                      found=brief(name))
                for term in terms:
                    tasks.append(TaskSpec(name=validate_dataset_name(name), prediction_length=1, offset=-1,
                                          hf_repo="Salesforce/GiftEval", task_name=f"{name}/{term}", term=term,
                                          target="target", window_aggregation="pool"))
        self.limits.check("max_tasks", len(tasks), file=source, field="tasks")
        if not tasks:
            raise ConfigError("GIFT-Eval task list names no dataset", file=source)
        return tasks

    def resolve(self, task: TaskSpec, series_lengths: np.ndarray, freq: str | None) -> TaskSpec:
        code = frequency_code(freq)
        table = M4_BASE_HORIZON if "m4" in task.name else BASE_HORIZON
        if code not in table:
            raise ConfigError("no GIFT-Eval horizon for this frequency", field=task.label,
                              expected=sorted(table), found=freq)
        horizon = table[code] * TERM_MULTIPLIER[task.term]
        windows = 1 if "m4" in task.name else \
            min(max(1, math.ceil(TEST_FRACTION * int(np.min(series_lengths)) / horizon)), MAX_WINDOWS)
        return replace(task, prediction_length=horizon, offset=-horizon * windows, num_rolls=windows)

    def summarize(self, table: pd.DataFrame) -> dict:
        return {**mean_and_relative(table), "aggregation": "gmean_relative"}


ADAPTER = GiftEvalBenchmark
