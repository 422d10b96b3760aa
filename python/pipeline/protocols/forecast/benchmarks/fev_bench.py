"""fev-bench adapter: reads fev's own ``tasks.yaml`` (``--benchmarks fev_bench=PATH``).

Mapping per fev task: ``dataset_config`` -> dataset name, ``horizon`` -> H, ``num_windows`` -> W,
``window_step_size`` -> step (default H), integer ``initial_cutoff`` -> offset (default
``-H - (W-1)*step``), ``seasonality``, ``target`` (a list = one score per column, averaged). MASE/SQL use fev's edge rule. Tasks with a date
``initial_cutoff`` are not supported and fail with a clear message (handled by ``--on-missing``).
Summary: skill score and win rate against seasonal naive on SQL (fev-bench's main metric).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.errors import ConfigError

from . import Benchmark, TaskSpec, mean_and_relative, read_yaml
from ..data import validate_dataset_name


class FevBenchmark(Benchmark):
    name = "fev_bench"
    mase_edge = "fev"
    baseline_model = "seasonal_naive"

    def load_tasks(self, source: Path) -> list[TaskSpec]:
        document = read_yaml(source)
        entries = document.get("tasks") if isinstance(document, dict) else document
        if not isinstance(entries, list) or not entries:
            raise ConfigError("fev task list must be a list under 'tasks'", file=source)
        return [self._task(entry, source) for entry in entries]

    def _task(self, entry: dict, source: Path) -> TaskSpec:
        name = entry.get("dataset_config") or entry.get("task_name")
        horizon = entry.get("horizon")
        if not name or not isinstance(horizon, int) or horizon < 1:
            raise ConfigError("fev task needs 'dataset_config' and a positive 'horizon'", file=source,
                              found=entry)
        windows = int(entry.get("num_windows", 1))
        step = int(entry.get("window_step_size") or horizon)
        cutoff = entry.get("initial_cutoff")
        target = entry.get("target")
        offset = cutoff if isinstance(cutoff, int) else -horizon - (windows - 1) * step
        return TaskSpec(name=validate_dataset_name(str(name)), prediction_length=horizon, offset=offset,
                        num_rolls=windows, hf_repo=str(entry.get("dataset_path", "autogluon/fev_datasets")),
                        step=step, seasonality=entry.get("seasonality"), mase_edge="fev",
                        task_name=str(entry.get("task_name") or name),
                        target=tuple(target) if isinstance(target, list) else target,
                        term=None if cutoff is None or isinstance(cutoff, int) else str(cutoff))

    def resolve(self, task: TaskSpec, series_lengths: np.ndarray, freq: str | None) -> TaskSpec:
        if task.term is not None:
            raise ConfigError("date-valued initial_cutoff is not supported", field=f"{task.label}.initial_cutoff",
                              expected="an integer offset", found=task.term)
        return task

    def summarize(self, table: pd.DataFrame) -> dict:
        from ..aggregate import geometric_mean

        relative = np.clip(table["relative_SQL"].to_numpy(dtype=float), 0.01, 100.0)
        wins = (table["SQL"] < table["baseline_SQL"]) + 0.5 * (table["SQL"] == table["baseline_SQL"])
        return {**mean_and_relative(table), "aggregation": "skill_score",
                "skill_score_sql": float(1.0 - geometric_mean(relative)) if len(relative) else None,
                "win_rate_vs_baseline_sql": float(np.mean(wins)) if len(relative) else None}


ADAPTER = FevBenchmark
