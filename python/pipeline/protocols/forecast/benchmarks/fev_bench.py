"""fev-bench adapter: reads fev's own task list (shipped ``configs/fev_bench.yaml``, or ``fev_bench=FILE``).

Mapping per fev task (fev's ``Task`` semantics): ``dataset_config`` -> dataset name (else
``task_name``), ``horizon`` -> H, ``num_windows`` -> W, ``window_step_size`` -> step (default H;
a pandas offset string only with a date cutoff), ``initial_cutoff`` -> an integer offset
(negative: from each series' end, default ``-H - (W-1)*step``) or a date (the context is every
point at or before it), ``min_context_length`` / ``max_context_length``, ``seasonality``
(default 1, as fev), ``target`` (a list = one score per column, averaged). MASE/SQL use fev's edge
rule. Covariate keys are accepted and ignored (the models here are univariate); keys fev does not
know, and features not implemented here, are errors.
Summary: skill score and win rate against seasonal naive on SQL (fev-bench's main metric).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd

from ....errors import ConfigError
from ..data import validate_dataset_name
from ..limits import brief
from ..metrics import DEFAULT_QUANTILES
from ..seasonality import frequency_offset
from . import (Benchmark, TaskSpec, bounded_int, check_entries, check_window_room, mean_and_relative, read_yaml,
               reject_unknown_keys)

IGNORED_KEYS = {"eval_metric", "extra_metrics", "known_dynamic_columns", "past_dynamic_columns", "static_columns",
                "id_column", "timestamp_column", "quantile_levels", "generate_univariate_targets_from"}
TASK_KEYS = IGNORED_KEYS | {"dataset_path", "dataset_config", "task_name", "horizon", "num_windows", "initial_cutoff",
                            "window_step_size", "min_context_length", "max_context_length", "seasonality", "target"}


class FevBenchmark(Benchmark):
    name = "fev_bench"
    result_name = "fev_bench"
    default_config = "fev_bench.yaml"
    mase_edge = "fev"
    baseline_model = "seasonal_naive"

    def load_tasks(self, source: Path) -> list[TaskSpec]:
        document = read_yaml(source, self.limits)
        entries = document.get("tasks") if isinstance(document, dict) else document
        return [self._task(entry, source) for entry in check_entries(entries, source, self.limits, "fev task list")]

    def _task(self, entry: object, source: Path) -> TaskSpec:
        if not isinstance(entry, dict):
            raise ConfigError("each fev task must be a mapping", file=source, found=brief(entry))
        name = entry.get("dataset_config") or entry.get("task_name")
        label = entry.get("task_name") or name
        if not isinstance(name, str) or not isinstance(label, str):
            raise ConfigError("fev task needs 'dataset_config' (or 'task_name') as text", file=source,
                              found=brief(entry))
        reject_unknown_keys(entry, TASK_KEYS, source, label)
        _reject_unsupported(entry, source, label)
        def integer(key: str, **options) -> int | None:
            return bounded_int(entry, key, source, limits=self.limits, label=label, **options)

        horizon = integer("horizon", default=1, limit="max_prediction_length")
        windows = integer("num_windows", default=1, limit="max_windows")
        step, step_offset = _window_step(entry, horizon, source, label, self.limits)
        offset, cutoff = _cutoff(entry, horizon, windows, step, source, label, self.limits)
        if step_offset is not None and cutoff is None:
            raise ConfigError("a window_step_size string needs a date initial_cutoff", file=source,
                              field=f"{label}.window_step_size", found=brief(step_offset))
        return TaskSpec(
            name=validate_dataset_name(name), prediction_length=horizon, offset=offset, num_rolls=windows,
            hf_repo=str(entry.get("dataset_path", "autogluon/fev_datasets")), step=step, step_offset=step_offset,
            seasonality=integer("seasonality", default=1, limit="max_points"), mase_edge="fev", task_name=label,
            target=_target(entry, source, label, self.limits), initial_cutoff=cutoff,
            min_context_length=integer("min_context_length", default=1, limit="max_points"),
            max_context_length=integer("max_context_length", limit="max_points"))

    def summarize(self, table: pd.DataFrame) -> dict:
        from ..aggregate import CLIP_RANGE, geometric_mean

        relative = np.clip(table["relative_SQL"].to_numpy(dtype=float), *CLIP_RANGE)
        wins = (table["SQL"] < table["baseline_SQL"]) + 0.5 * (table["SQL"] == table["baseline_SQL"])
        return {**mean_and_relative(table), "aggregation": "skill_score",
                "skill_score_sql": float(1.0 - geometric_mean(relative)) if len(relative) else None,
                "win_rate_vs_baseline_sql": float(np.mean(wins)) if len(relative) else None}


def _reject_unsupported(entry: dict, source: Path, label: str) -> None:
    """fev features this runner does not implement: an error rather than a silently different task."""
    if entry.get("generate_univariate_targets_from") is not None:
        raise ConfigError("generate_univariate_targets_from is not supported", file=source,
                          field=f"{label}.generate_univariate_targets_from")
    default_columns = entry.get("timestamp_column", "timestamp") == "timestamp" and \
        entry.get("id_column", "id") in ("id", "item_id")
    if not default_columns:
        raise ConfigError("only the default 'id'/'timestamp' columns are supported", file=source, field=label)
    levels = entry.get("quantile_levels")
    if levels is not None and (not isinstance(levels, list) or sorted(levels) != list(DEFAULT_QUANTILES)):
        raise ConfigError("only the quantile levels 0.1, ..., 0.9 are supported", file=source,
                          field=f"{label}.quantile_levels", found=brief(levels))


def _window_step(entry: dict, horizon: int, source: Path, label: str, limits) -> tuple[int, str | None]:
    """(step in points, pandas offset string or None) from ``window_step_size``."""
    value = entry.get("window_step_size")
    if isinstance(value, str):
        offset = frequency_offset(value)
        if offset.n < 1:
            raise ConfigError("window_step_size must be a positive offset", file=source,
                              field=f"{label}.window_step_size", found=brief(value))
        return horizon, offset.freqstr
    return bounded_int(entry, "window_step_size", source, default=horizon, limit="max_points", limits=limits,
                       label=label), None


def _cutoff(entry: dict, horizon: int, windows: int, step: int, source: Path, label: str,
            limits) -> tuple[int | None, str | None]:
    """(integer offset, None) or (None, ISO date) from ``initial_cutoff`` (fev's default when absent)."""
    value = entry.get("initial_cutoff")
    if value is None:
        return -horizon - (windows - 1) * step, None
    if isinstance(value, (dt.date, str)):  # YAML turns an unquoted date into a datetime.date
        try:
            return None, pd.Timestamp(value).isoformat()
        except ValueError as exc:
            raise ConfigError("initial_cutoff is neither an integer nor a date", file=source,
                              field=f"{label}.initial_cutoff", found=brief(value)) from exc
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError("initial_cutoff must be an integer or a date", file=source, field=f"{label}.initial_cutoff",
                          found=brief(value))
    limits.check("max_points", abs(value), file=source, field=f"{label}.initial_cutoff")
    return check_window_room(value, horizon, windows, step, source, label), None


def _target(entry: dict, source: Path, label: str, limits) -> str | tuple[str, ...]:
    """The target column, or a sorted tuple of them (fev sorts multivariate targets)."""
    target = entry.get("target", "target")
    if isinstance(target, str):
        return target
    if isinstance(target, list):
        limits.check("max_targets", len(target), file=source, field=f"{label}.target")
    if not isinstance(target, list) or not target or not all(isinstance(t, str) for t in target):
        raise ConfigError("target must be a column name or a non-empty list of names", file=source,
                          field=f"{label}.target", found=brief(target))
    return tuple(sorted(target))


ADAPTER = FevBenchmark
