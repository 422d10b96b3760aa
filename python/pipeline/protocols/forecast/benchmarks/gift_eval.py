"""GIFT-Eval adapter: its dataset lists and horizon/window rules (``--benchmarks gift_eval=PATH``).

PATH is a YAML mapping ``{short: [names], medium_long: [names]}`` mirroring GIFT-Eval's
``short_datasets`` / ``med_long_datasets`` lists (names like ``m4_hourly`` or
``electricity/15T``, read from ``<root>/<name>``). Each short name gives a ``short`` task and each
medium/long name a ``medium`` and a ``long`` task. Once the data are loaded:

* base horizon from the frequency: M 12, W 8, D 30, H 48, T 48, S 60 (M4 datasets: A 6, Q 8, M 18,
  W 13, D 14, H 48); ``medium`` x10, ``long`` x15;
* windows ``min(max(1, ceil(0.1 * shortest length / H)), 20)``, non-overlapping, ending at the
  series end.

Summary: geometric mean of relative MASE and WQL ("CRPS") vs seasonal naive.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.errors import ConfigError

from . import Benchmark, TaskSpec, mean_and_relative, read_yaml, with_windows
from ..data import validate_dataset_name

BASE_HORIZON = {"M": 12, "W": 8, "D": 30, "H": 48, "T": 48, "S": 60}
M4_BASE_HORIZON = {"A": 6, "Q": 8, "M": 18, "W": 13, "D": 14, "H": 48}
TERM_MULTIPLIER = {"short": 1, "medium": 10, "long": 15}
TEST_FRACTION, MAX_WINDOWS = 0.1, 20
_CODE_ALIASES = {"MIN": "T", "ME": "M", "MS": "M", "Y": "A", "YE": "A", "YS": "A", "QE": "Q", "QS": "Q",
                 "B": "D"}


def frequency_code(freq: str) -> str:
    """GIFT-Eval's base frequency letter (``T``, ``H``, ``D``, ``W``, ``M``, ``Q``, ``A``, ``S``)."""
    match = re.match(r"^\d*([A-Za-z]+)", freq or "")
    if match is None:
        raise ConfigError("cannot read the data's frequency", expected="a pandas frequency", found=freq)
    code = match.group(1).upper()
    return _CODE_ALIASES.get(code, code)


class GiftEvalBenchmark(Benchmark):
    name = "gift_eval"
    baseline_model = "seasonal_naive"

    def load_tasks(self, source: Path) -> list[TaskSpec]:
        document = read_yaml(source)
        if not isinstance(document, dict) or not set(document) <= {"short", "medium_long"}:
            raise ConfigError("GIFT-Eval task list must map 'short' and 'medium_long' to dataset names",
                              file=source, found=document if not isinstance(document, dict) else sorted(document))
        tasks = []
        for group, terms in (("short", ("short",)), ("medium_long", ("medium", "long"))):
            for name in document.get(group) or []:
                for term in terms:
                    tasks.append(TaskSpec(name=validate_dataset_name(str(name)), prediction_length=1, offset=-1,
                                          hf_repo="Salesforce/GiftEval", task_name=f"{name}/{term}", term=term))
        return tasks

    def resolve(self, task: TaskSpec, series_lengths: np.ndarray, freq: str | None) -> TaskSpec:
        code = frequency_code(freq)
        table = M4_BASE_HORIZON if task.name.startswith("m4_") else BASE_HORIZON
        if code not in table:
            raise ConfigError("no GIFT-Eval horizon for this frequency", field=task.label,
                              expected=sorted(table), found=freq)
        horizon = table[code] * TERM_MULTIPLIER[task.term]
        windows = min(max(1, math.ceil(TEST_FRACTION * int(np.min(series_lengths)) / horizon)), MAX_WINDOWS)
        return with_windows(task, prediction_length=horizon, offset=-horizon * windows, num_rolls=windows)

    def summarize(self, table: pd.DataFrame) -> dict:
        return {**mean_and_relative(table), "aggregation": "gmean_relative"}


ADAPTER = GiftEvalBenchmark
