"""Benchmark suites: one adapter module per benchmark, tasks from YAML configs.

A benchmark is named on the command line as ``NAME`` (a shipped config in ``configs/``) or
``NAME=FILE`` (the adapter reads FILE: our YAML list, or the suite's own task list for
``fev_bench`` and ``gift_eval``). Each adapter turns its source into :class:`TaskSpec`\\ s and
says how its per-dataset table is summarised.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from pipeline.errors import ConfigError

from ..data import validate_dataset_name

CONFIG_DIR = Path(__file__).with_name("configs")
ADAPTERS = ("lite", "extended", "chronos_i", "chronos_ii", "gift_eval", "fev_bench")


@dataclass(frozen=True)
class TaskSpec:
    """One dataset of a benchmark with its backtest windows (spec §4.3).

    ``step`` defaults to ``prediction_length``; ``seasonality`` None means "derive from the data's
    frequency"; ``mase_edge`` is the MASE/SQL edge rule (``gluonts`` or ``fev``).
    """

    name: str
    prediction_length: int
    offset: int
    num_rolls: int = 1
    hf_repo: str = "autogluon/chronos_datasets"
    step: int | None = None
    seasonality: int | None = None
    mase_edge: str = "gluonts"
    task_name: str | None = None
    target: str | tuple[str, ...] | None = None  # None: every sequence column is a series
    term: str | None = None

    @property
    def label(self) -> str:
        return self.task_name or self.name


def _positive_int(entry: dict, key: str, source: Path, default=None) -> int:
    value = entry.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError("must be a positive integer", file=source, field=f"{entry.get('name')}.{key}",
                          found=value)
    return value


def parse_task_list(entries: object, source: Path, mase_edge: str = "gluonts") -> list[TaskSpec]:
    """Validate our YAML list format (``name, hf_repo, offset, prediction_length, num_rolls``)."""
    if not isinstance(entries, list) or not entries:
        raise ConfigError("benchmark config must be a non-empty YAML list", file=source,
                          found=type(entries).__name__)
    tasks = []
    for entry in entries:
        if not isinstance(entry, dict) or "name" not in entry:
            raise ConfigError("each task needs a 'name'", file=source, found=entry)
        horizon = _positive_int(entry, "prediction_length", source)
        offset = entry.get("offset", -horizon)
        if not isinstance(offset, int) or offset >= 0:
            raise ConfigError("offset must be a negative integer", file=source, field=f"{entry['name']}.offset",
                              found=offset)
        seasonality = entry.get("seasonality")
        if seasonality is not None:
            seasonality = _positive_int(entry, "seasonality", source)
        tasks.append(TaskSpec(name=validate_dataset_name(entry["name"]), prediction_length=horizon,
                              offset=offset, num_rolls=_positive_int(entry, "num_rolls", source, 1),
                              hf_repo=str(entry.get("hf_repo", TaskSpec.hf_repo)), seasonality=seasonality,
                              step=entry.get("step"), mase_edge=entry.get("mase_edge", mase_edge)))
    return tasks


def read_yaml(path: Path) -> object:
    if not path.is_file():
        raise ConfigError("benchmark config file not found", file=path)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=path) from exc


class Benchmark:
    """Base adapter: tasks from a YAML list; summary = means plus gmean relative scores.

    Subclasses override :meth:`load_tasks` (other task-list formats), :meth:`resolve` (windows
    that depend on the data) and :meth:`summarize`.
    """

    name = "base"
    default_config: str | None = None
    mase_edge = "gluonts"
    # Seasonal naive variant that relative scores divide by (the suite's reference baseline).
    baseline_model = "seasonal_naive_point"

    def __init__(self, source: Path | None = None):
        source = source or (CONFIG_DIR / self.default_config if self.default_config else None)
        if source is None:
            raise ConfigError(f"benchmark '{self.name}' needs the suite's task list",
                              field="--benchmarks", expected=f"{self.name}=/path/to/task-list")
        self.source = Path(source)
        self.tasks = self.load_tasks(self.source)

    def load_tasks(self, source: Path) -> list[TaskSpec]:
        return parse_task_list(read_yaml(source), source, self.mase_edge)

    def resolve(self, task: TaskSpec, series_lengths: np.ndarray, freq: str | None) -> TaskSpec:
        """Final windows for ``task`` once its data are loaded (identity for fixed configs)."""
        return task

    def summarize(self, table: pd.DataFrame) -> dict:
        """Summary of the per-dataset table (rows with status ``ok``/``imputed``)."""
        return {**mean_and_relative(table), "aggregation": "mean"}


def mean_and_relative(table: pd.DataFrame) -> dict:
    """Arithmetic means of MASE/WQL and geometric means of the relative scores vs the baseline."""
    from ..aggregate import geometric_mean, mean_summary

    summary = mean_summary(table)
    for metric in ("MASE", "WQL"):
        relative = table[f"relative_{metric}"].to_numpy(dtype=float)
        summary[f"gmean_relative_{metric.lower()}"] = float(geometric_mean(relative)) if len(relative) else None
    summary["n_relative_scores"] = int(len(table))
    return summary


def load_benchmark(spec: str) -> Benchmark:
    """Build the adapter for ``NAME`` or ``NAME=FILE``."""
    name, _, file = spec.partition("=")
    if name not in ADAPTERS:
        raise ConfigError("unknown benchmark", field="--benchmarks", expected=list(ADAPTERS), found=name)
    module = importlib.import_module(f"{__name__}.{name}")
    return module.ADAPTER(Path(file) if file else None)


def with_windows(task: TaskSpec, **changes) -> TaskSpec:
    return replace(task, **changes)
