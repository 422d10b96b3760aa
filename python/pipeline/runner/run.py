"""Running one task: load the fold, rank on the training part only, evaluate on the test part.

:func:`run_task` is what every executor calls, in the driver (serial) or in a worker process.
Workers keep their engines in a :class:`Workbench` for their whole life, so an Octave process is
started once per worker, not once per task.
"""

from __future__ import annotations

import hashlib
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..data.folds import fold_path, load_fold, sha256_file
from ..engines import make_engine, make_evaluator
from ..errors import ConfigError, EngineError, PipelineError
from ..evaluation.grids import k_grid, p_grid, p_target_index, p_to_k
from ..evaluation.metrics import METRICS
from ..methods import get_method
from ..rankings import validate_ranking
from .claims import TaskClaim, claim_path
from .store import ResultStore, TaskFiles
from .tasks import GridSpec, Task


@dataclass(frozen=True)
class RunSettings:
    """Everything a worker needs besides the task (picklable)."""

    data_dir: str
    results_dir: str
    grid: GridSpec
    engine: str = "python"
    evaluator: str = "native"
    mlknn_k: int = 10
    mlknn_smooth: float = 1.0
    skip_existing: bool = False
    overwrite: bool = False
    rank: bool = True
    claim_stale_after: float = 6 * 3600.0
    engine_options: dict = field(default_factory=dict, compare=False)
    run_started: float | None = None  # epoch s; a complete result newer than this is another run's


@dataclass(frozen=True)
class Outcome:
    """What happened to one task: ``done``, ``skipped``, ``done_elsewhere`` (another run completed it
    while this one ran), ``failed``, ``interrupted`` (the run stopped first) or ``locked`` (another
    run holds it right now; the executors wait for it and report one of the others)."""

    task: Task
    status: str
    message: str = ""
    error_type: str = ""
    seconds: float = 0.0


class Workbench:
    """The engines and evaluator a worker reuses across tasks (created lazily, closed once)."""

    def __init__(self, settings: RunSettings):
        self.settings = settings
        self._engines: dict[str, object] = {}
        self._evaluator = None

    def engine_for(self, spec):
        """The selected engine if it can run ``spec``; Python-only methods run in Python."""
        name = self.settings.engine
        if name != "python" and spec.matlab_function is None:
            name = "python"
        if name not in self._engines:
            options = self.settings.engine_options if name != "python" else {}
            self._engines[name] = make_engine(name, **options)
        engine = self._engines[name]
        if not engine.supports(spec):
            raise ConfigError(f"method {spec.name} cannot run on engine {name}")
        return engine

    @property
    def evaluator(self):
        if self._evaluator is None:
            options = self.settings.engine_options if self.settings.evaluator != "native" else {}
            self._evaluator = make_evaluator(self.settings.evaluator, **options)
        return self._evaluator

    def close(self) -> None:
        for engine in self._engines.values():
            engine.close()
        if self._evaluator is not None:
            self._evaluator.close()
        self._engines.clear()
        self._evaluator = None


def grid_points(grid: GridSpec, d: int) -> tuple[list[int], list[float] | None]:
    """Return (k per grid entry, p per grid entry or None) for a fold with d features."""
    if grid.mode == "kgrid":
        return k_grid(d, grid.k_min, grid.k_max, grid.k_step), None
    p_values = [float(p) for p in p_grid(grid.p_min, grid.p_max, grid.p_step)]
    return list(p_to_k(p_values, d)), p_values


def run_task(task: Task, settings: RunSettings, bench: Workbench) -> Outcome:
    """Run one task and return its outcome; user errors and engine failures are caught here."""
    start = time.perf_counter()
    try:
        with TaskClaim(claim_path(settings.results_dir, task.folder, task.dataset, task.fold),
                       settings.claim_stale_after) as claim:
            if not claim.acquired:
                holder = claim.holder()
                return Outcome(task, "locked", f"being computed by pid {holder.get('pid')} on "
                               f"{holder.get('host')}; rerun with --skip-existing when it ends", "TaskLocked")
            status = _run(task, settings, bench)
    except PipelineError as exc:
        return Outcome(task, "failed", str(exc), type(exc).__name__, time.perf_counter() - start)
    return Outcome(task, status, seconds=time.perf_counter() - start)


def _run(task: Task, settings: RunSettings, bench: Workbench) -> str:
    spec = get_method(task.method) if settings.rank else None
    params = spec.resolve_params(task.overrides) if spec else task.overrides
    store = ResultStore(settings.results_dir)
    files = store.files(task.folder, task.dataset, task.fold)
    store.remove_partial_files(files)
    mode = settings.grid.mode
    expected = {"mlknn": _mlknn_settings(settings), "params": params, "grid": settings.grid.describe()}
    status = store.metrics_status(files, mode, expected)
    if status == "ok" and not settings.overwrite and _written_since(files.metrics(mode), settings.run_started):
        return "done_elsewhere"
    if settings.skip_existing and not settings.overwrite and status == "ok":
        return "skipped"
    if status == "different" and not settings.overwrite:
        raise ConfigError("result exists with other settings (ML-kNN, grid or parameters); use "
                          "--overwrite or another --results-dir", file=files.metrics(mode))
    fold_file = fold_path(settings.data_dir, task.dataset, task.fold)
    fold = load_fold(fold_file, dataset=task.dataset, index=task.fold)
    k_per_entry, p_values = grid_points(settings.grid, fold.n_features)
    _check_evaluable(fold, settings, fold_file)
    ranking = _obtain_ranking(task, spec, params, fold, files, store, settings, bench)
    k_distinct = sorted(set(k_per_entry))
    context = f"{task.folder}/{task.dataset}/fold{task.fold}"
    eval_start = time.perf_counter()
    curves = bench.evaluator.evaluate(fold.X_train, fold.Y_train, fold.X_test, fold.Y_test, ranking,
                                      k_distinct, num=settings.mlknn_k, smooth=settings.mlknn_smooth,
                                      context=context)
    eval_seconds = time.perf_counter() - eval_start
    record = _metrics_record(task, fold, params, settings, curves, k_per_entry, p_values, eval_seconds)
    record["provenance"] = _provenance(fold_file, files, bench, spec, settings)
    store.write_metrics(files, mode, record)
    return "done"


def _written_since(path: Path, moment: float | None) -> bool:
    return moment is not None and path.stat().st_mtime >= moment


def _check_evaluable(fold, settings: RunSettings, fold_file: Path) -> None:
    """Refuse, before any file is written, folds that ML-kNN cannot score."""
    n_train = fold.X_train.shape[0]
    if settings.mlknn_k >= n_train:
        raise ConfigError("ML-kNN needs more training instances than neighbours", file=fold_file,
                          field="X_train", expected=f"n_train > {settings.mlknn_k}", found=f"n_train = {n_train}")


def _obtain_ranking(task, spec, params, fold, files: TaskFiles, store: ResultStore,
                    settings: RunSettings, bench: Workbench) -> np.ndarray:
    d = fold.n_features
    if not settings.rank:
        return store.read_ranking(files.ranking, d)
    if not settings.overwrite and store.has_ranking(files, d):
        return store.read_ranking(files.ranking, d)
    engine = bench.engine_for(spec)
    init = spec.initial_matrices(fold.X_train.shape[0], d, fold.n_labels, params)
    context = f"{task.folder}/{task.dataset}/fold{task.fold}"
    start = time.perf_counter()
    ranking, _info = engine.rank(spec, fold.X_train, fold.Y_train, params, init, context=context)
    seconds = time.perf_counter() - start
    try:
        ranking = validate_ranking(ranking, d, source=f"{spec.name} output for {context}")
    except PipelineError as exc:
        raise EngineError(str(exc)) from exc
    store.write_ranking(files, ranking, seconds)
    return ranking


def _mlknn_settings(settings: RunSettings) -> dict:
    return {"num": int(settings.mlknn_k), "smooth": float(settings.mlknn_smooth)}


def _metrics_record(task, fold, params, settings, curves, k_per_entry, p_values, eval_seconds) -> dict:
    index = {int(k): i for i, k in enumerate(curves["k_values"])}
    rows = [index[int(k)] for k in k_per_entry]
    record = {
        "grid_mode": settings.grid.mode,
        "method": task.folder,
        "dataset": task.dataset,
        "fold": int(task.fold),
        "k_values": [int(k) for k in k_per_entry],
        "grid": settings.grid.describe(),
        "mlknn": _mlknn_settings(settings),
        "params": params,
        "n_features": int(fold.n_features),
        "n_labels": int(fold.n_labels),
        "n_train": int(fold.X_train.shape[0]),
        "n_test": int(fold.X_test.shape[0]),
        "macro_pr_auc_labels_used": int(curves["macro_pr_auc_labels_used"]),
        "macro_pr_auc_labels_total": int(curves["macro_pr_auc_labels_total"]),
        "time_eval_seconds": eval_seconds,
    }
    for key in METRICS:
        values = [float(curves[key][r]) for r in rows]
        record[key] = values
        record[f"{key}_mean"] = float(np.mean(values))
    if p_values is not None:
        target = p_target_index(p_values, settings.grid.p_target)
        record["p_values"] = p_values
        record["p_target"] = float(settings.grid.p_target)
        record["p_target_used"] = p_values[target]
        for key in METRICS:
            record[f"{key}_at_p_target"] = record[key][target]
    return record


def _provenance(fold_file: Path, files: TaskFiles, bench: Workbench, spec, settings: RunSettings) -> dict:
    ranking_sha = hashlib.sha256(files.ranking.read_bytes()).hexdigest() if files.ranking.is_file() else None
    if spec is None:
        engine = "external"
    else:
        engine = settings.engine if spec.matlab_function is not None else "python"
    return {
        "fold_sha256": sha256_file(fold_file),
        "ranking_sha256": ranking_sha,
        "engine": engine,
        "evaluator": settings.evaluator,
        "pipeline_version": __version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
    }
