"""Running one task: load the fold, rank on the training part only, evaluate on the test part.

:func:`run_task` is what every executor calls, in a worker process.
Workers keep their engines in a :class:`Workbench` for their whole life, so an Octave process is
started once per worker, not once per task. A task's ranking is computed once and scored on every
grid of the run from one ML-kNN pass over the union of their k values; files that are still fresh
(``freshness``) are kept when the run resumes.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data.folds import fold_feature_count, fold_path, load_fold, sha256_file
from ..engines import make_engine, make_evaluator
from ..engines.process_state import process_state_restored
from ..errors import ConfigError, EngineError, PipelineError
from ..methods import get_method
from ..rankings import check_ranking_sorts_scores, validate_ranking, validate_scores
from ..results.layout import REFERENCE_FOLDER, TaskFiles, all_features_path, claim_path, mlknn_settings
from ..results.budget import read_budget_record
from ..results.staleness import sha256_or_none
from .claims import DEFAULT_STALE_AFTER, TaskClaim
from .fingerprint import evaluator_fingerprint, git_state, method_fingerprint, ranking_fingerprint
from .plugins import activate_plugins
from .freshness import metrics_staleness, ranking_staleness
from .lifecycle import TaskBudget
from .inner import TuningSpec, fold_training_sha256, make_inner_splits, training_sha256
from .records import metrics_record, ranking_record, runtime_versions, union_of_k
from .reference import reference_reason, run_reference
from .store import ResultStore
from .tasks import GridSpec, Task
from .tuning import SELECTED_BY_INNER, plan_candidate, run_candidate


@dataclass(frozen=True)
class RunSettings:
    """Everything a worker needs besides the task (picklable).

    ``grids``: the grids every task is scored on (one ranking, one ML-kNN pass for all of them).
    ``skip_existing``: keep fresh results; ``overwrite``: recompute everything; neither: reuse fresh
    rankings but score them again, except those another run completed after ``run_started`` (epoch
    seconds; None: no such check). ``log_file``: the run's log, which worker processes append to.
    ``tuning``: the inner-split rule and criterion of candidate tasks (None: the run has none).
    ``plugins``: the plug-in folders every worker loads (docs/plugins.md); ``external``: methods
    whose rankings are given (scored, never computed; their code fingerprint is their ranking file's).
    ``budget``: what one task may use (``--task-timeout``, ``--task-memory``), on every executor.
    The folders and the log are held as absolute paths.
    """

    data_dir: str
    results_dir: str
    grids: tuple[GridSpec, ...]
    engine: str = "python"
    evaluator: str = "native"
    mlknn_k: int = 10
    mlknn_smooth: float = 1.0
    skip_existing: bool = False
    overwrite: bool = False
    rank: bool = True
    claim_stale_after: float = DEFAULT_STALE_AFTER
    engine_options: dict = field(default_factory=dict, compare=False)
    log_file: str | None = None
    run_started: float | None = None
    tuning: TuningSpec | None = None
    plugins: tuple[str, ...] = ()
    external: tuple[str, ...] = ()
    budget: TaskBudget = TaskBudget()

    def __post_init__(self):
        for name in ("data_dir", "results_dir", "log_file"):  # a method's os.chdir cannot redirect a write
            if getattr(self, name) is not None:
                object.__setattr__(self, name, os.path.abspath(getattr(self, name)))
        if not self.grids or len({grid.mode for grid in self.grids}) != len(self.grids):
            raise ConfigError("a run needs one or more grids, at most one of each mode",
                              found=[grid.mode for grid in self.grids])

    def engine_for(self, method_spec) -> str:
        """The engine that runs ``method_spec``: the selected one, or Python for Python-only methods."""
        return self.engine if method_spec.matlab_function is not None else "python"

    @property
    def mlknn(self) -> dict:
        """The run's ML-kNN settings as every record holds them."""
        return mlknn_settings(self.mlknn_k, self.mlknn_smooth)


@dataclass(frozen=True)
class Outcome:
    """What happened to one task: ``done``, ``skipped``, ``done_elsewhere`` (another run completed it
    while this one ran), ``failed``, ``out_of_budget`` (stopped at its ``budget``, ``memory`` or
    ``time``: a result of the benchmark, not a failure), ``interrupted`` (the run stopped first) or
    ``locked`` (another run holds it right now; the executors wait for it and report one of the others).

    ``reason`` says why a ``done`` task was computed (``"no metrics yet"``, a stale reason, ...);
    ``degenerate_points`` counts the grid points whose selection is mostly training-constant
    features (see :func:`~pipeline.runner.records.constant_feature_counts`) and ``warnings`` the
    numerical warnings of the method call that computed its ranking in this run
    (:mod:`pipeline.method_warnings`), for the run summary.
    """

    task: Task
    status: str
    message: str = ""
    error_type: str = ""
    seconds: float = 0.0
    degenerate_points: int = 0
    reason: str = ""
    budget: str = ""
    peak_memory_bytes: int | None = None
    warnings: int = 0


class Workbench:
    """The engines and evaluator a worker reuses across tasks (created lazily, closed once)."""

    def __init__(self, settings: RunSettings):
        activate_plugins(settings.plugins, settings.engine, settings.engine_options)  # a worker's own registry
        self.settings = settings
        self._engines: dict[str, object] = {}
        self._evaluator = None
        self._git = None
        self._inner: tuple[tuple, list] | None = None

    def engine_for(self, method_spec):
        """The selected engine if it can run ``method_spec``; Python-only methods run in Python."""
        name = self.settings.engine_for(method_spec)
        if name not in self._engines:
            options = self.settings.engine_options if name != "python" else {}
            self._engines[name] = make_engine(name, **options)
        engine = self._engines[name]
        if not engine.supports(method_spec):
            raise ConfigError(f"method {method_spec.name} cannot run on engine {name}")
        return engine

    @property
    def evaluator(self):
        if self._evaluator is None:
            options = self.settings.engine_options if self.settings.evaluator != "native" else {}
            self._evaluator = make_evaluator(self.settings.evaluator, **options)
        return self._evaluator

    @property
    def git(self) -> dict:
        """The checkout's commit and dirty flag, read once per worker and run (git is a subprocess)."""
        if self._git is None:
            self._git = git_state()
        return self._git

    def inner_splits(self, fold_file: Path, fold) -> list[tuple]:
        """The inner splits of ``fold`` under the run's tuning rule, each with its validation fold
        prepared by the evaluator (checks, label priors): ``(split, prepared)`` pairs made once per
        outer fold and reused by every candidate of it this worker runs (candidates of one fold
        come in a row)."""
        stat = fold_file.stat()
        key = (str(fold_file), stat.st_mtime_ns, stat.st_size, self.settings.tuning)
        if self._inner is None or self._inner[0] != key:
            settings = self.settings
            splits = make_inner_splits(fold.X_train, fold.Y_train, settings.tuning)
            self._inner = (key, [(split, self.evaluator.prepare(split.X_train, split.Y_train, split.X_validation,
                                                                  split.Y_validation, num=settings.mlknn_k,
                                                                  smooth=settings.mlknn_smooth))
                                 for split in splits])
        return self._inner[1]

    def close(self) -> None:
        for engine in self._engines.values():
            engine.close()
        if self._evaluator is not None:
            self._evaluator.close()
        self._engines.clear()
        self._evaluator = None


def run_task(task: Task, settings: RunSettings, bench: Workbench) -> Outcome:
    """Run one task and return its outcome; user errors and engine failures are caught here.

    The process state the task's code may change (working folder, random generators, floating-point
    error handling) is put back after it, as after each method call, for the tasks that follow."""
    start = time.perf_counter()
    try:
        with process_state_restored(), task_claim(task, settings) as claim:
            if not claim.acquired:  # the executor waits for the holder, then counts or reruns it
                return Outcome(task, "locked")
            if task.stage == "candidate":
                (status, reason), degenerate_points, warned = run_candidate(task, settings, bench), 0, 0
            else:
                status, reason, degenerate_points, warned = _run(task, settings, bench)
    except PipelineError as exc:
        return Outcome(task, "failed", str(exc), type(exc).__name__, time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 - any other failure (MemoryError in ML-kNN, a bug) fails
        # this task alone: it is recorded in failures.json and the run goes on
        return Outcome(task, "failed", unexpected_failure(exc), type(exc).__name__, time.perf_counter() - start)
    return Outcome(task, status, seconds=time.perf_counter() - start, degenerate_points=degenerate_points,
                   reason=reason, warnings=warned)


def task_claim(task: Task, settings: RunSettings) -> TaskClaim:
    """The claim that keeps two runs from computing ``task`` at once (one per candidate, too)."""
    candidate = task.params_json if task.stage == "candidate" else None
    return TaskClaim(claim_path(settings.results_dir, task.folder, task.dataset, task.fold, candidate),
                     settings.claim_stale_after)


def unexpected_failure(exc: BaseException, limit: int = 300) -> str:
    """One line for an exception that is not a user error: its type and its message, cut."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"
    kind = "out of memory" if isinstance(exc, MemoryError) else "unexpected error"
    return f"{kind} in this task: {type(exc).__name__}" + (f": {text}" if text else "")


@dataclass(frozen=True)
class TaskPlan:
    """What a task needs, decided from its existing files without changing anything.

    ``rank_reason``: why the ranking must be computed (None: reuse it); ``grid_reasons``: grid mode ->
    why its metrics must be computed, for the grids whose files cannot be kept (empty: nothing to do).
    """

    method_spec: object
    params: dict
    files: TaskFiles
    fold_file: Path
    code: dict
    rank_reason: str | None
    grid_reasons: dict

    @property
    def reason(self) -> str:
        return self.rank_reason or next(iter(self.grid_reasons.values()), "")


def plan_task(task: Task, settings: RunSettings) -> TaskPlan:
    """Decide, from the files on disk and the current code, what ``task`` needs (no side effects)."""
    if task.method == REFERENCE_FOLDER:
        return _plan_reference(task, settings)
    method_spec = get_method(task.method) if ranks(task, settings) else None
    params = method_spec.resolve_params(task.overrides) if method_spec else task.overrides
    store = ResultStore(settings.results_dir)
    files = store.files(task.folder, task.dataset, task.fold)
    fold_file = fold_path(settings.data_dir, task.dataset, task.fold)
    code = {"method": (method_fingerprint(method_spec, settings.engine_for(method_spec)) if method_spec
                       else ranking_fingerprint(files.ranking)),
            "evaluator": evaluator_fingerprint(settings.evaluator)}
    selected_by = SELECTED_BY_INNER if task.stage == "tuned" else None
    rank_reason = (_ranking_reason(store, files, fold_file, params, code["method"], settings, selected_by)
                   if method_spec is not None else None)
    grid_reasons = _grid_reasons(files, fold_file, params, code["evaluator"], settings, rank_reason, selected_by)
    return TaskPlan(method_spec, params, files, fold_file, code, rank_reason, grid_reasons)


def fresh_outcome(task: Task, settings: RunSettings) -> Outcome | None:
    """``skipped`` if the task's files are fresh (checked in the driver, before any worker starts),
    ``out_of_budget`` if it ran out of a budget no smaller than the run's in an earlier run (never
    retried silently: a larger budget runs it again), else None.

    Only with ``skip_existing``; a task whose state cannot be read is left to run (and report why).
    """
    if not settings.skip_existing or settings.overwrite:
        return None
    try:
        earlier = earlier_out_of_budget(task, settings)
        if earlier is not None:
            return earlier
        if task.stage == "candidate":
            return Outcome(task, "skipped") if plan_candidate(task, settings).reason is None else None
        return Outcome(task, "skipped") if not plan_task(task, settings).grid_reasons else None
    except Exception:  # noqa: BLE001 - whatever it is, running the task says it in its outcome
        return None


#: The ``reason`` of an out-of-budget outcome read from an earlier run's record (not written again).
EARLIER_RUN = "out of budget in an earlier run"
#: The option that raises each kind of budget, for the message of a task not run again.
_BUDGET_OPTIONS = {"memory": "--task-memory (a suite's run.task_memory)",
                   "time": "--task-timeout (a suite's run.task_timeout)"}


def earlier_out_of_budget(task: Task, settings: RunSettings) -> Outcome | None:
    """The task's out-of-budget outcome of an earlier run if the run's budget of that kind is no larger."""
    if task.stage == "candidate" or task.method == REFERENCE_FOLDER:
        return None
    record = read_budget_record(settings.results_dir, task.folder, task.dataset, task.fold)
    if record is None or not settings.budget.covers(record["budget"], record["limit"]):
        return None
    kind = record["budget"]
    return Outcome(task, "out_of_budget", f"{record['message']} (an earlier run; not run again under a budget "
                                          f"no larger: raise {_BUDGET_OPTIONS[kind]} to try it again)",
                   "TaskTimeout" if kind == "time" else "MemoryBudget", float(record["seconds"]),
                   reason=EARLIER_RUN, budget=kind, peak_memory_bytes=record["peak_memory_bytes"])


def _plan_reference(task: Task, settings: RunSettings) -> TaskPlan:
    """The all-features reference's plan: its one file is the task's only "grid" (``all_features``)."""
    reason = reference_reason(task, settings)
    if reason is None and not settings.skip_existing and \
            not _written_since(all_features_path(settings.results_dir, task.dataset, task.fold), settings):
        reason = "recomputed (no --skip-existing)"
    code = {"method": None, "evaluator": evaluator_fingerprint(settings.evaluator)}
    return TaskPlan(None, {}, None, fold_path(settings.data_dir, task.dataset, task.fold), code, None,
                    {"all_features": reason} if reason else {})


def _run_reference(task: Task, settings: RunSettings, bench: Workbench) -> tuple[str, str, int, int]:
    plan = _plan_reference(task, settings)
    if not plan.grid_reasons:
        elsewhere = _written_since(all_features_path(settings.results_dir, task.dataset, task.fold), settings)
        return ("done_elsewhere" if elsewhere else "skipped"), "", 0, 0
    run_reference(task, settings, bench, plan.reason)
    return "done", plan.reason, 0, 0


def _run(task: Task, settings: RunSettings, bench: Workbench) -> tuple[str, str, int, int]:
    """Bring the task's files up to date; return (status, reason, degenerate grid points, numerical
    warnings of the ranking computed now)."""
    if task.method == REFERENCE_FOLDER:
        return _run_reference(task, settings, bench)
    store = ResultStore(settings.results_dir)
    store.remove_partial_files(store.files(task.folder, task.dataset, task.fold))
    plan = plan_task(task, settings)
    if not plan.grid_reasons:
        elsewhere = all(_written_since(plan.files.metrics(grid.mode), settings) for grid in settings.grids)
        return ("done_elsewhere" if elsewhere else "skipped"), "", 0, 0
    fold = load_fold(plan.fold_file, dataset=task.dataset, index=task.fold)
    check_evaluable(fold.X_train.shape[0], settings.mlknn_k, plan.fold_file)
    grids = [grid for grid in settings.grids if grid.mode in plan.grid_reasons]
    k_values = union_of_k(grids, fold.n_features)  # checks the grids before anything is computed
    if plan.rank_reason is None:
        ranking, timing = store.read_ranking(plan.files.ranking, fold.n_features), _reused_timing(store, plan.files)
        warned = 0
    else:
        ranking, timing, warned = _compute_ranking(task, plan, fold, store, settings, bench)
    records = _score(task, fold, ranking, grids, k_values, plan.params, settings, bench)
    provenance = _provenance(plan, settings, bench.git)
    for grid, record in zip(grids, records):
        store.write_metrics(plan.files, grid.mode, {**record, **timing, **_selection(task), "provenance": provenance})
    return "done", plan.reason, max(sum(r["degenerate"]) for r in records), warned


def _selection(task: Task) -> dict:
    """What the final records of a tuned method add: how its parameters were chosen."""
    return {"selected_by": SELECTED_BY_INNER} if task.stage == "tuned" else {}


def ranks(task: Task, settings: RunSettings) -> bool:
    """Whether the run computes the task's ranking (not for given, external rankings)."""
    return settings.rank and task.method not in settings.external


def _ranking_reason(store, files, fold_file, params, method_code, settings, selected_by) -> str | None:
    """Why the ranking a run computes must be computed now (None: reuse it)."""
    if settings.overwrite:
        return "--overwrite"
    return ranking_staleness(store, files, fold_feature_count(fold_file), params, method_code,
                             fold_training_sha256(fold_file), selected_by)


def _grid_reasons(files, fold_file, params, evaluator_code, settings, rank_reason, selected_by) -> dict[str, str]:
    """Grid mode -> why its metrics must be computed, for every grid whose file cannot be kept.

    A tuned method's files may hold parameters an earlier selection chose: they are stale, not an error.
    """
    reasons = {}
    for grid in settings.grids:
        expected = {"mlknn": settings.mlknn, "params": params, "grid": grid.describe()}
        if selected_by is not None:
            expected["selected_by"] = selected_by
        stale = metrics_staleness(files, grid.mode, expected, settings.evaluator, evaluator_code, fold_file,
                                  overwrite=settings.overwrite,
                                  replaced_by=None if selected_by is None else "the selection changed")
        if rank_reason is not None:
            stale = stale or "the ranking is recomputed"
        elif stale is None and not settings.skip_existing and not _written_since(files.metrics(grid.mode), settings):
            stale = "recomputed (no --skip-existing)"
        if stale is not None:
            reasons[grid.mode] = stale
    return reasons


def _score(task, fold, ranking, grids, k_values, params, settings, bench) -> list[dict]:
    """One ML-kNN pass over the union of the grids' k values, split into one record per grid."""
    context = f"{task.folder}/{task.dataset}/fold{task.fold}"
    started = time.perf_counter()
    curves = bench.evaluator.evaluate(fold.X_train, fold.Y_train, fold.X_test, fold.Y_test, ranking,
                                      k_values, num=settings.mlknn_k,
                                      smooth=settings.mlknn_smooth, context=context)
    seconds = time.perf_counter() - started
    return [{**metrics_record(grid=grid, folder=task.folder, dataset=task.dataset, fold_index=task.fold, fold=fold,
                              params=params, mlknn=settings.mlknn, curves=curves, ranking=ranking),
             "time_eval_seconds": seconds} for grid in grids]


def _written_since(path: Path, settings: RunSettings) -> bool:
    """Whether ``path`` was written after the run started: by another run, which completed it."""
    try:
        return settings.run_started is not None and path.stat().st_mtime >= settings.run_started
    except OSError:
        return False


def check_evaluable(n_train: int, mlknn_k: int, fold_file: Path) -> None:
    """Refuse a fold that ML-kNN with ``mlknn_k`` neighbours cannot score: the front doors before
    any task (:func:`pipeline.experiment.run.run_experiment`), a task before any file is written."""
    if mlknn_k >= n_train:
        raise ConfigError("ML-kNN needs more training instances than neighbours", file=fold_file,
                          field="X_train", expected=f"n_train > {mlknn_k}", found=f"n_train = {n_train}")


def _reused_timing(store: ResultStore, files: TaskFiles) -> dict:
    return {"time_rank_seconds": store.read_time(files), "time_rank_overhead_seconds": None}


def _compute_ranking(task: Task, plan: TaskPlan, fold, store: ResultStore, settings: RunSettings,
                     bench: Workbench) -> tuple[np.ndarray, dict, int]:
    """Rank on the training part, write scores, ranking, its record and time; return it with its timing
    and the number of numerical warnings of the method call.

    ``time_rank_seconds`` is the method's own compute time, measured where the method runs (inside
    Octave for the Octave engine), so it excludes engine start-up and data transfer; those go to
    ``time_rank_overhead_seconds``.
    """
    d, method_spec = fold.n_features, plan.method_spec
    engine = bench.engine_for(method_spec)
    init = method_spec.initial_matrices(fold.X_train.shape[0], d, fold.n_labels, plan.params)
    context = f"{task.folder}/{task.dataset}/fold{task.fold}"
    start = time.perf_counter()
    ranking, info = engine.rank(method_spec, fold.X_train, fold.Y_train, plan.params, init, context=context)
    wall = time.perf_counter() - start
    seconds = float(info.get("compute_seconds", wall))
    source = f"{method_spec.name} output for {context}"
    try:
        ranking = validate_ranking(ranking, d, source=source)
        scores = validate_scores(info.get("scores"), d, source=source)
        check_ranking_sorts_scores(ranking, scores, source=source)
    except PipelineError as exc:
        raise EngineError(str(exc)) from exc
    timing = {"time_rank_seconds": seconds, "time_rank_overhead_seconds": max(wall - seconds, 0.0)}
    record = ranking_record(folder=task.folder, dataset=task.dataset, fold_index=task.fold, params=plan.params,
                            training=training_sha256(fold.X_train, fold.Y_train), engine=settings.engine_for(method_spec), code=plan.code["method"], git=bench.git,
                            timing=timing, info=info, engine_versions=engine.versions())
    record.update(_selection(task))
    store.write_ranking(plan.files, ranking, seconds, scores, record)
    return ranking, timing, record["warnings"]["count"]


def _provenance(plan: TaskPlan, settings: RunSettings, git: dict) -> dict:
    return {
        "fold_sha256": sha256_file(plan.fold_file),
        "ranking_sha256": sha256_or_none(plan.files.ranking),
        "engine": settings.engine_for(plan.method_spec) if plan.method_spec is not None else "external",
        "evaluator": settings.evaluator,
        "code": plan.code,
        "git": git,
        "versions": runtime_versions(),
    }
