"""Run a benchmark: load each dataset locally, cut windows, forecast, score, summarise.

The benchmark's seasonal naive variant (``Benchmark.baseline_model``) is always scored on the same
windows as the baseline of the relative scores (its own scores are reused when it is the model
under test). A dataset that is missing or whose
forecast fails becomes a row with status ``missing``/``failed``; ``on_missing`` decides what the
summary does with it (``error``: the benchmark fails, ``drop``, ``impute``: relative score 1).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from pipeline.errors import PipelineError

from .aggregate import MISSING_POLICIES
from .benchmarks import Benchmark, TaskSpec
from .data import DatasetNotAvailableError, dataset_location, load_dataset
from .forecasters import BaseForecaster, assert_quantile_shape
from .metrics import DEFAULT_QUANTILES, NUMERIC_METRICS, average_windows, evaluate_window
from .models import BUILTIN_MODELS, ModelFactory
from .seasonality import seasonality_from_freq
from .windows import make_windows

TABLE_COLUMNS = ["dataset", "model", "status", *NUMERIC_METRICS,
                 *(f"baseline_{m}" for m in ("MASE", "WQL", "SQL")),
                 "relative_MASE", "relative_WQL", "relative_SQL",
                 "seasonality", "freq", "prediction_length", "n_windows", "n_series", "n_skipped",
                 "mse_forecast", "smape_convention", "mase_edge", "error"]


@dataclass
class BenchmarkRun:
    """Per-dataset table, summary and timings of one benchmark run."""

    name: str
    table: pd.DataFrame
    summary: dict
    timings: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.summary.get("status") == "ok"


def score_task(forecaster: BaseForecaster, task: TaskSpec, series: Sequence[np.ndarray], seasonality: int,
               levels: Sequence[float]) -> dict:
    """Forecast every window of ``task`` and return the window-averaged metrics plus counts."""
    per_window, n_skipped, n_series = [], 0, 0
    for window in make_windows(series, offset=task.offset, prediction_length=task.prediction_length,
                               num_rolls=task.num_rolls, step=task.step):
        n_skipped += window.n_skipped
        if not window.contexts:
            continue
        quantiles, mean = forecaster.predict(window.contexts, task.prediction_length, levels)
        assert_quantile_shape(quantiles, len(window.contexts), len(levels), task.prediction_length,
                              f"runner[{task.label}, window {window.index}]")
        per_window.append(evaluate_window(window.targets, quantiles, levels, window.contexts, seasonality,
                                          edge=task.mase_edge, mean_pred=mean))
        n_series = max(n_series, len(window.contexts))
    if not per_window:
        raise PipelineError("no series long enough for any window", field=task.label,
                            found=f"{n_skipped} series skipped")
    return {**average_windows(per_window), "n_series": n_series, "n_skipped": n_skipped}


def _failed_row(task: TaskSpec, model: str, status: str, message: str) -> dict:
    return {"dataset": task.label, "model": model, "status": status, "error": message,
            "prediction_length": task.prediction_length, "n_windows": task.num_rolls}


def run_task(factory: ModelFactory, task: TaskSpec, benchmark: Benchmark, root: Path,
             levels: Sequence[float]) -> tuple[dict, dict]:
    """Score one task for the model and the seasonal naive baseline; returns (row, timings).

    A task with several target columns (fev's multivariate tasks) is scored per target dimension
    and the metrics are averaged over dimensions (fev convention).
    """
    started = time.perf_counter()
    targets = task.target if isinstance(task.target, tuple) else (task.target,)
    model_dims, baseline_dims, predict_seconds = [], [], 0.0
    for target in targets:
        dataset = load_dataset(root, task.name, target)
        task = benchmark.resolve(task, np.array([len(s) for s in dataset.series]), dataset.freq)
        if task.seasonality is None and dataset.freq is None:
            raise PipelineError("dataset has no frequency; set 'seasonality' in the benchmark config",
                                field=task.label)
        seasonality = task.seasonality or seasonality_from_freq(dataset.freq)
        predict_started = time.perf_counter()
        model_dims.append(score_task(factory.for_seasonality(seasonality), task, dataset.series, seasonality,
                                     levels))
        predict_seconds += time.perf_counter() - predict_started
        baseline_dims.append(model_dims[-1] if factory.model_type == benchmark.baseline_model else
                             score_task(BUILTIN_MODELS[benchmark.baseline_model](seasonality), task,
                                        dataset.series, seasonality, levels))
    model_scores, baseline_scores = _average_dimensions(model_dims), _average_dimensions(baseline_dims)
    row = {"dataset": task.label, "model": factory.model_name, "status": "ok", "error": "",
           **model_scores, "seasonality": seasonality, "freq": dataset.freq,
           "prediction_length": task.prediction_length}
    for metric in ("MASE", "WQL", "SQL"):
        row[f"baseline_{metric}"] = baseline_scores[metric]
        row[f"relative_{metric}"] = model_scores[metric] / baseline_scores[metric]
    total = time.perf_counter() - started
    timings = {"load_seconds": total - predict_seconds, "predict_seconds": predict_seconds, "total_seconds": total}
    return row, timings


def _average_dimensions(per_dimension: list[dict]) -> dict:
    """Mean of each numeric metric over target dimensions; counts and conventions of the first."""
    merged = dict(per_dimension[0])
    for name in NUMERIC_METRICS:
        merged[name] = float(np.mean([d[name] for d in per_dimension]))
    return merged


def run_benchmark(factory: ModelFactory, benchmark: Benchmark, datasets_root: str | Path, *,
                  levels: Sequence[float] = DEFAULT_QUANTILES, on_missing: str = "error",
                  progress: bool = True) -> BenchmarkRun:
    """Run every task of ``benchmark``; with ``on_missing='error'`` missing data stop before any work."""
    if on_missing not in MISSING_POLICIES:
        raise PipelineError("unknown missing-task policy", field="--on-missing", expected=MISSING_POLICIES,
                            found=on_missing)
    root = Path(datasets_root)
    missing = [t.name for t in benchmark.tasks if dataset_location(root, t.name) is None]
    if missing and on_missing == "error":
        raise DatasetNotAvailableError(
            f"benchmark '{benchmark.name}': {len(missing)} dataset(s) not available locally "
            "(never downloaded; use --on-missing drop|impute to run the rest)", file=root,
            expected="<root>/<name>/data-*.arrow", found=", ".join(missing))
    rows, timings = [], {}
    bar = tqdm(benchmark.tasks, desc=benchmark.name, unit="dataset", disable=not progress)
    for task in bar:
        bar.set_postfix_str(task.label)
        if task.name in missing:
            rows.append(_failed_row(task, factory.model_name, "missing", "dataset not available locally"))
            continue
        try:
            row, timing = run_task(factory, task, benchmark, root, levels)
        except Exception as exc:  # a model or data failure on one task is recorded, never swallowed
            message = str(exc) if isinstance(exc, PipelineError) else f"{type(exc).__name__}: {exc}"
            rows.append(_failed_row(task, factory.model_name, "failed", message))
            tqdm.write(f"{benchmark.name}/{task.label}: FAILED ({message})", file=sys.stderr)
            continue
        rows.append(row)
        timings[task.label] = timing
        if progress:
            tqdm.write(f"{benchmark.name}/{task.label}: {row['n_series']} series, "
                       f"{timing['total_seconds']:.2f} s (predict {timing['predict_seconds']:.2f} s)")
    table = pd.DataFrame(rows).reindex(columns=TABLE_COLUMNS).sort_values("dataset", kind="stable")
    table = table.reset_index(drop=True)
    for column in ("seasonality", "prediction_length", "n_windows", "n_series", "n_skipped"):
        table[column] = table[column].astype("Int64")
    return BenchmarkRun(benchmark.name, table, summarize_run(benchmark, table, on_missing), timings)


def summarize_run(benchmark: Benchmark, table: pd.DataFrame, on_missing: str) -> dict:
    """Apply the missing-task policy, then the benchmark's own summary."""
    bad = table[table["status"] != "ok"]
    used = table[table["status"] == "ok"]
    extra = {"n_tasks": int(len(table)), "missing_policy": on_missing,
             "failed_tasks": {r.dataset: r.error for r in bad.itertuples()}}
    if len(bad) and on_missing == "error":
        return {"status": "failed", **extra,
                "error": f"{len(bad)} task(s) failed or missing (see failed_tasks; --on-missing drop|impute)"}
    if on_missing == "impute" and len(bad):
        imputed = bad.copy()
        imputed[["relative_MASE", "relative_WQL", "relative_SQL"]] = 1.0
        used = pd.concat([used, imputed])
        extra["imputed_tasks"] = sorted(bad["dataset"])
    elif len(bad):
        extra["dropped_tasks"] = sorted(bad["dataset"])
    if used.empty:
        return {"status": "failed", **extra, "error": "no task could be scored"}
    return {"status": "ok", **extra, **benchmark.summarize(used)}
