"""Run a benchmark: load each dataset locally, cut windows, forecast, score, summarise.

The benchmark's seasonal naive variant (``Benchmark.baseline_model``) is always scored on the same
windows as the baseline of the relative scores (its own scores are reused when it is the model
under test). A dataset that is missing or whose model fails becomes a row with status
``missing``/``failed``; ``on_missing`` decides what the summary does with it (``error``: the
benchmark fails, ``drop``, ``impute``: relative score 1). Unusable input (a PipelineError while
loading or cutting a dataset) stops the run under ``error`` and becomes a ``failed`` row under
``drop``/``impute``. Progress goes to ``log`` one line per task, as
``[i/n] name: WQL=..., MASE=... (s)``.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np
import pandas as pd

from ...errors import ConfigError, DataError, PipelineError
from .aggregate import BOOTSTRAP, MISSING_POLICIES, baseline_skill
from .benchmarks import Benchmark, TaskSpec
from .data import DatasetNotAvailableError, dataset_location, load_dataset
from .forecasters import BaseForecaster, assert_quantile_shape
from .limits import DEFAULT_LIMITS, Limits
from .metrics import DEFAULT_QUANTILES, NUMERIC_METRICS, average_windows, pool_windows, scores, window_sums
from .models import BUILTIN_MODELS, ModelFactory
from .seasonality import frequency_offset, seasonality_from_freq
from .series import SeriesDataset
from .windows import date_cuts, make_windows, offset_cuts

TABLE_COLUMNS = ["dataset", "model", "status", *NUMERIC_METRICS,
                 *(f"baseline_{m}" for m in ("MASE", "WQL", "SQL")),
                 "relative_MASE", "relative_WQL", "relative_SQL",
                 "seasonality", "freq", "prediction_length", "n_windows", "n_series", "n_skipped",
                 "window_aggregation", "mse_forecast", "smape_convention", "mase_edge", "error"]
HEADLINE_METRICS = ("MASE", "WQL")

Log = Callable[[str], None]


@dataclass
class BenchmarkRun:
    """Per-dataset table, summary and timings of one benchmark run; ``result_name`` names its files."""

    name: str
    result_name: str
    table: pd.DataFrame
    summary: dict
    timings: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.summary.get("status") == "ok"


def task_cuts(task: TaskSpec, dataset: SeriesDataset, rows: np.ndarray) -> Iterator[np.ndarray]:
    """Cut positions per window for the series ``rows`` of ``dataset`` (integer offset or date cutoff)."""
    if task.initial_cutoff is None:
        lengths = np.array([len(dataset.series[i]) for i in rows], dtype=np.int64)
        return offset_cuts(lengths, offset=task.offset, step=task.window_step, num_windows=task.num_rolls)
    if task.step_offset is None and dataset.freq is None:
        raise DataError("a date cutoff needs the data's frequency to step between windows", field=task.label)
    step = frequency_offset(task.step_offset) if task.step_offset else frequency_offset(dataset.freq) * task.window_step
    return date_cuts([dataset.timestamps[i] for i in rows], first=pd.Timestamp(task.initial_cutoff), step=step,
                     num_windows=task.num_rolls)


def score_task(forecaster: BaseForecaster, task: TaskSpec, dataset: SeriesDataset, rows: np.ndarray,
               seasonality: int, levels: Sequence[float]) -> dict:
    """Forecast every window of ``task`` on series ``rows``; metrics averaged or pooled over windows."""
    series = [dataset.series[i] for i in rows]
    per_window, n_skipped, n_series, mse_forecast = [], 0, 0, "median"
    for window in make_windows(series, task_cuts(task, dataset, rows), prediction_length=task.prediction_length,
                               min_context_length=task.min_context_length,
                               max_context_length=task.max_context_length, label=task.label):
        quantiles, mean = forecaster.predict(window.contexts, task.prediction_length, levels)
        assert_quantile_shape(quantiles, len(window.contexts), len(levels), task.prediction_length,
                              f"runner[{task.label}, window {window.index}]")
        per_window.append(window_sums(window.targets, quantiles, levels, window.contexts, seasonality,
                                      edge=task.mase_edge, mean_pred=mean))
        mse_forecast = "median" if mean is None else "mean"
        n_skipped += window.n_skipped
        n_series = max(n_series, len(window.contexts))
    if task.window_aggregation == "pool":
        values = scores(pool_windows(per_window))
    else:
        values = average_windows([scores(sums) for sums in per_window])
    for metric in HEADLINE_METRICS:
        if not np.isfinite(values[metric]):
            raise DataError(f"{metric} is not finite ({values[metric]}): no target value or no seasonal error "
                            "to scale by", field=task.label)
    return {**values, "n_windows": len(per_window), "n_series": n_series, "n_skipped": n_skipped,
            "mse_forecast": mse_forecast, "smape_convention": "fev", "mase_edge": task.mase_edge,
            "window_aggregation": task.window_aggregation}


def _target_groups(task: TaskSpec, dataset: SeriesDataset) -> list[np.ndarray]:
    """Series indices scored together: one group, or one per target column of a multivariate fev task."""
    if not isinstance(task.target, tuple):
        return [np.arange(len(dataset))]
    columns = np.asarray(dataset.columns)
    return [np.flatnonzero(columns == column) for column in task.target]


def dataset_loader(root: Path, limits: Limits = DEFAULT_LIMITS) -> Callable[..., SeriesDataset]:
    """``load(name, target, with_timestamps)``: :func:`~.data.load_dataset` under ``root`` that keeps
    the last dataset loaded (GIFT-Eval's medium and long tasks of one dataset are consecutive and
    load the same data)."""
    @functools.lru_cache(maxsize=1)
    def load(name: str, target, with_timestamps: bool) -> SeriesDataset:
        return load_dataset(root, name, target, limits=limits, with_timestamps=with_timestamps)

    return load


def run_task(factory: ModelFactory, task: TaskSpec, benchmark: Benchmark, root: Path,
             levels: Sequence[float], limits: Limits = DEFAULT_LIMITS, *,
             load: Callable[..., SeriesDataset] | None = None) -> tuple[dict, dict]:
    """Score one task for the model and the seasonal naive baseline; returns (row, timings).

    A task with several target columns (fev's multivariate tasks) is scored per target column and
    the metrics are averaged over columns (fev convention). ``load`` is a :func:`dataset_loader`
    (a new one by default).
    """
    started = time.perf_counter()
    load = load or dataset_loader(root, limits)
    dataset = load(task.name, task.target, task.initial_cutoff is not None)
    task = benchmark.resolve(task, np.array([len(s) for s in dataset.series]), dataset.freq)
    if task.seasonality is None and dataset.freq is None:
        raise DataError("dataset has no frequency; set 'seasonality' in the benchmark config", field=task.label)
    seasonality = task.seasonality or seasonality_from_freq(dataset.freq)
    model_dims, baseline_dims, predict_seconds = [], [], 0.0
    for rows in _target_groups(task, dataset):
        predict_started = time.perf_counter()
        model_dims.append(score_task(factory.for_seasonality(seasonality), task, dataset, rows, seasonality, levels))
        predict_seconds += time.perf_counter() - predict_started
        baseline_dims.append(model_dims[-1] if factory.model_type == benchmark.baseline_model else
                             score_task(BUILTIN_MODELS[benchmark.baseline_model](seasonality), task, dataset, rows,
                                        seasonality, levels))
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


def _failed_row(task: TaskSpec, model: str, status: str, message: str) -> dict:
    return {"dataset": task.label, "model": model, "status": status, "error": message,
            "prediction_length": task.prediction_length, "n_windows": task.num_rolls}


def _progress_line(index: int, total: int, label: str, width: int, row: dict, seconds: float | None) -> str:
    head = f"  [{index:>{len(str(total))}}/{total}] {label + ':':<{width + 1}}"
    if row["status"] == "ok":
        return f"{head} WQL={row['WQL']:.4f}, MASE={row['MASE']:.4f} ({seconds:.1f}s)"
    return f"{head} {row['status'].upper()} ({row['error']})"


def run_benchmark(factory: ModelFactory, benchmark: Benchmark, datasets_root: str | Path, *,
                  levels: Sequence[float] = DEFAULT_QUANTILES, on_missing: str = "error",
                  log: Log | None = print, limits: Limits = DEFAULT_LIMITS) -> BenchmarkRun:
    """Run every task of ``benchmark``; with ``on_missing='error'`` missing data stop before any work."""
    if on_missing not in MISSING_POLICIES:
        raise ConfigError("unknown missing-task policy", field="--on-missing", expected=MISSING_POLICIES,
                          found=on_missing)
    log = log or (lambda line: None)
    root = Path(datasets_root)
    missing = {t.name for t in benchmark.tasks if dataset_location(root, t.name) is None}
    if on_missing == "error" and missing:
        raise _missing_datasets_error([f"{benchmark.name}/{name}" for name in missing], root)
    load = dataset_loader(root, limits)
    started = time.perf_counter()
    rows, timings = [], {}
    width = max(len(t.label) for t in benchmark.tasks)
    log(f"Evaluating benchmark: {benchmark.name} ({len(benchmark.tasks)} tasks, model={factory.model_name})")
    for index, task in enumerate(benchmark.tasks, 1):
        row, timing = _run_or_record(factory, task, benchmark, root, levels, limits, task.name in missing,
                                     stop_on_input_error=on_missing == "error", load=load)
        rows.append(row)
        if timing:
            timings[task.label] = timing
        log(_progress_line(index, len(benchmark.tasks), task.label, width, row, timing and timing["total_seconds"]))
    table = pd.DataFrame(rows).reindex(columns=TABLE_COLUMNS).sort_values("dataset", kind="stable")
    table = table.reset_index(drop=True)
    for column in ("seasonality", "prediction_length", "n_windows", "n_series", "n_skipped"):
        table[column] = table[column].astype("Int64")
    return BenchmarkRun(benchmark.name, benchmark.result_name, table, summarize_run(benchmark, table, on_missing),
                        timings, time.perf_counter() - started)


def require_datasets(benchmarks: Sequence[Benchmark], root: Path) -> None:
    """Raise one error listing every dataset of ``benchmarks`` that is not under ``root``."""
    missing = [f"{b.name}/{t.name}" for b in benchmarks for t in b.tasks if dataset_location(root, t.name) is None]
    if missing:
        raise _missing_datasets_error(missing, root)


def _missing_datasets_error(missing: Sequence[str], root: Path) -> DatasetNotAvailableError:
    """The error listing the ``benchmark/dataset`` names of ``missing`` (sorted, without repeats)."""
    missing = sorted(set(missing))
    return DatasetNotAvailableError(
        f"{len(missing)} dataset(s) not available locally (never downloaded; use --on-missing drop|impute "
        "to run the rest)", file=root, expected="<root>/<name>/data-*.arrow", found=", ".join(missing))


def _run_or_record(factory, task, benchmark, root, levels, limits, is_missing,
                   stop_on_input_error: bool, load=None) -> tuple[dict, dict | None]:
    """The task's row and timings, or a ``missing``/``failed`` row.

    A model failure is recorded and the other tasks go on. Bad input (a PipelineError: malformed
    data, a limit exceeded) stops the run under ``--on-missing error`` and is recorded otherwise.
    """
    if is_missing:
        return _failed_row(task, factory.model_name, "missing", "dataset not available locally"), None
    try:
        return run_task(factory, task, benchmark, root, levels, limits, load=load)
    except PipelineError as exc:
        if stop_on_input_error:
            raise
        return _failed_row(task, factory.model_name, "failed", str(exc)), None
    except Exception as exc:  # a model failure on one task is recorded, never swallowed
        message = f"{type(exc).__name__}: {exc}"
        return _failed_row(task, factory.model_name, "failed", message), None


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
    relative = used.set_index("dataset")
    skill = {metric: baseline_skill(relative[f"relative_{metric}"]) for metric in HEADLINE_METRICS}
    return {"status": "ok", **extra, **benchmark.summarize(used),
            "skill_scores": {"baseline": benchmark.baseline_model, "bootstrap": BOOTSTRAP, **skill}}
