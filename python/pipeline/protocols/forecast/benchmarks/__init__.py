"""Benchmark suites: one adapter module per benchmark, tasks from shipped task lists.

A benchmark is named on the command line as ``NAME`` (its shipped task list in ``configs/``) or
``NAME=FILE`` (the adapter reads FILE instead: our YAML list for ``lite``, ``extended``,
``chronos_i`` and ``chronos_ii``, the suite's own format for ``fev_bench`` and ``gift_eval``).
Each adapter turns its source into :class:`TaskSpec`\\ s, says how the windows of a task are
resolved once its data are loaded, and how its per-dataset table is summarised. Every task list
is validated against :class:`~..limits.Limits` before any task is built.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from ....errors import ConfigError
from ..data import validate_dataset_name
from ..limits import DEFAULT_LIMITS, Limits, brief
from ..metrics import MASE_EDGES

CONFIG_DIR = Path(__file__).with_name("configs")
ADAPTERS = ("lite", "extended", "chronos_i", "chronos_ii", "gift_eval", "fev_bench")
# the original framework's task-list files (its configs/ folder) and the shipped lists they hold
CONFIG_ALIASES = {"lite-benchmark": "lite", "in-domain": "chronos_i", "zero-shot": "chronos_ii",
                  "extended-benchmark": "extended"}
CHRONOS_KEYS = {"name", "hf_repo", "offset", "prediction_length", "num_rolls", "seasonality", "step", "mase_edge"}


@dataclass(frozen=True)
class TaskSpec:
    """One dataset of a benchmark with its backtest windows (docs/forecast.md, "Windows").

    ``offset`` is an integer cutoff (negative: from each series' end) and ``initial_cutoff`` an
    ISO timestamp; exactly one is set. ``step`` (points, default H) or ``step_offset`` (a pandas
    offset, date cutoffs only) separates the ``num_rolls`` windows. ``seasonality`` None means
    "derive from the data's frequency"; ``target`` None means every numeric list column;
    ``window_aggregation`` is ``mean`` (metric per window, then mean) or ``pool``.
    """

    name: str
    prediction_length: int
    offset: int | None = None
    num_rolls: int = 1
    hf_repo: str = "autogluon/chronos_datasets"
    step: int | None = None
    seasonality: int | None = None
    mase_edge: str = "gluonts"
    task_name: str | None = None
    target: str | tuple[str, ...] | None = None
    term: str | None = None
    initial_cutoff: str | None = None
    step_offset: str | None = None
    min_context_length: int = 1
    max_context_length: int | None = None
    window_aggregation: str = "mean"

    @property
    def label(self) -> str:
        return self.task_name or self.name

    @property
    def window_step(self) -> int:
        return self.step or self.prediction_length


def bounded_int(entry: dict, key: str, source: Path, *, default=None, minimum: int = 1,
                maximum: int | None = None, limit: str | None = None, limits: Limits = DEFAULT_LIMITS,
                label: str | None = None) -> int | None:
    """``entry[key]`` as an integer in ``[minimum, maximum]`` (and within ``limit``), else ConfigError."""
    value = entry.get(key, default)
    field = f"{label or entry.get('name')}.{key}"
    if value is None:
        return None
    too_big = maximum is not None and isinstance(value, int) and value > maximum
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum or too_big:
        expected = f"an integer >= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
        raise ConfigError("invalid value", file=source, field=field, expected=expected, found=brief(value))
    return limits.check(limit, value, file=source, field=field) if limit else value


def check_window_room(offset: int, horizon: int, windows: int, step: int, source: Path, label: str) -> int:
    """A negative offset must leave room for every window inside the series (fev's rule).

    Window k ends at ``L + offset + k*step + H``, so the last one fits only when
    ``offset <= -H - (W - 1) * step``; a larger offset would silently skip windows.
    """
    latest = -horizon - (windows - 1) * step
    if offset < 0 and offset > latest:
        raise ConfigError("offset leaves no room for every window before the series end", file=source,
                          field=f"{label}.offset", expected=f"<= -H - (num_windows - 1) * step = {latest}",
                          found=brief(offset))
    return offset


def check_entries(entries: object, source: Path, limits: Limits, what: str) -> list:
    """``entries`` as a non-empty list within ``limits.max_tasks`` (checked before iterating)."""
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{what} must be a non-empty YAML list", file=source, found=type(entries).__name__)
    limits.check("max_tasks", len(entries), file=source, field="tasks")
    return entries


def reject_unknown_keys(entry: dict, allowed: set, source: Path, label: str) -> None:
    unknown = sorted(set(map(str, entry)) - allowed)
    if unknown:
        raise ConfigError("unknown task keys", file=source, field=label, expected=sorted(allowed), found=brief(unknown))


def parse_task_list(entries: object, source: Path, mase_edge: str = "gluonts",
                    limits: Limits = DEFAULT_LIMITS) -> list[TaskSpec]:
    """Validate our YAML list format (``name, hf_repo, offset, prediction_length, num_rolls``).

    Optional keys: ``seasonality`` (overrides the frequency's), ``step`` (default H), ``mase_edge``.
    """
    tasks = []
    for entry in check_entries(entries, source, limits, "task list"):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ConfigError("each task needs a 'name'", file=source, found=brief(entry))
        reject_unknown_keys(entry, CHRONOS_KEYS, source, entry["name"])
        horizon = bounded_int(entry, "prediction_length", source, limit="max_prediction_length", limits=limits)
        if horizon is None:
            raise ConfigError("missing key", file=source, field=f"{entry['name']}.prediction_length")
        rolls = bounded_int(entry, "num_rolls", source, default=1, limit="max_windows", limits=limits)
        step = bounded_int(entry, "step", source, default=horizon, limit="max_points", limits=limits)
        offset = entry.get("offset", -horizon)
        if not isinstance(offset, int) or isinstance(offset, bool) or offset >= 0:
            raise ConfigError("offset must be a negative integer", file=source, field=f"{entry['name']}.offset",
                              found=brief(offset))
        limits.check("max_points", -offset, file=source, field=f"{entry['name']}.offset")
        edge = entry.get("mase_edge", mase_edge)
        if edge not in MASE_EDGES:
            raise ConfigError("unknown MASE edge rule", file=source, field=f"{entry['name']}.mase_edge",
                              expected=MASE_EDGES, found=brief(edge))
        tasks.append(TaskSpec(
            name=validate_dataset_name(entry["name"]), prediction_length=horizon,
            offset=check_window_room(offset, horizon, rolls, step, source, entry["name"]), num_rolls=rolls,
            hf_repo=str(entry.get("hf_repo", TaskSpec.hf_repo)), step=step, mase_edge=edge,
            seasonality=bounded_int(entry, "seasonality", source, limit="max_points", limits=limits)))
    return tasks


def config_path(value: str | Path) -> Path:
    """A task-list file; else a shipped list named ``lite``, ``lite.yaml``, ``chronos_ii``..., or by the
    original framework's file name (``configs/lite-benchmark.yaml``, ``zero-shot.yaml``...)."""
    path = Path(value)
    if path.is_file():
        return path
    stem = path.name.removesuffix(".yaml")
    shipped = CONFIG_DIR / f"{CONFIG_ALIASES.get(stem, stem)}.yaml"
    if shipped.is_file():
        return shipped
    raise ConfigError("task list not found", file=path,
                      expected=f"a YAML file, one of {sorted(p.stem for p in CONFIG_DIR.glob('*.yaml'))} "
                               f"or one of the original framework's {sorted(CONFIG_ALIASES)}")


def read_yaml(path: Path, limits: Limits = DEFAULT_LIMITS) -> object:
    """Parse a YAML task list after checking its size."""
    if not path.is_file():
        raise ConfigError("benchmark task list not found", file=path)
    limits.check("max_task_file_bytes", path.stat().st_size, file=path, field="size in bytes")
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=path) from exc


class Benchmark:
    """Base adapter: tasks from a YAML list; summary = means plus gmean relative scores.

    Subclasses set ``name`` (the command-line name), ``result_name`` (the stem of the result
    files, as the original framework names them) and ``default_config``, and override
    :meth:`load_tasks` (other task-list formats), :meth:`resolve` (windows that depend on the
    data) and :meth:`summarize`.
    """

    name = "base"
    result_name = "base"
    default_config: str | None = None
    mase_edge = "gluonts"
    # Seasonal naive variant that relative scores divide by (the suite's reference baseline).
    baseline_model = "seasonal_naive_point"

    def __init__(self, source: Path | None = None, limits: Limits = DEFAULT_LIMITS):
        self.limits = limits
        self.source = Path(source) if source is not None else CONFIG_DIR / self.default_config
        self.tasks = self.load_tasks(self.source)
        labels = [task.label for task in self.tasks]
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:  # one result row per task: a repeated name would make the tables ambiguous
            raise ConfigError("task names repeat", file=self.source, expected="one task per name",
                              found=brief(repeated))

    def load_tasks(self, source: Path) -> list[TaskSpec]:
        return parse_task_list(read_yaml(source, self.limits), source, self.mase_edge, self.limits)

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


def load_benchmark(benchmark_name: str, limits: Limits = DEFAULT_LIMITS) -> Benchmark:
    """Build the adapter for ``NAME`` or ``NAME=FILE``."""
    name, _, file = benchmark_name.partition("=")
    if name not in ADAPTERS:
        raise ConfigError("unknown benchmark", field="--benchmarks", expected=list(ADAPTERS), found=brief(name))
    module = importlib.import_module(f"{__name__}.{name}")
    return module.ADAPTER(config_path(file) if file else None, limits)

