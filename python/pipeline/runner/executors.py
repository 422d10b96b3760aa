"""Executors: run a list of tasks on one worker process (serial), on a local process pool, or on a
Dask cluster; no task runs in the driver.

Each worker builds one :class:`~pipeline.runner.run.Workbench` (so one Octave process) when it
receives its first task and reuses it for every later task. On Dask, each Dask worker runs its
tasks in a one-worker :class:`~pipeline.runner.pool.WorkerPool` of its own, so that a task's
budget is enforced there as on the local executors. Results are written by the worker to
the results directory (which must be shared storage on a cluster); the driver only collects
outcomes and shows progress.

:func:`execute` drives an executor: it reports progress, waits at the end for tasks another run
holds (and then counts them ``done_elsewhere``, or computes them if that run gave up), stops the
run on a signal or on a storage fault, and reports the tasks that did not finish as
``interrupted``. See ``docs/reliability.md``.
"""

from __future__ import annotations

import logging
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..errors import ConfigError
from ..fileio import remove_abandoned_scratch_dirs
from ..limits import worker_count
from ..results.layout import RUN_HISTORY_FOLDER
from .lifecycle import RunStop
from ..errors import StorageError
from ..results.budget import remove_budget_record, write_budget_record
from ..results.layout import REFERENCE_FOLDER
from .pool import WORKER_ENDED, WorkerPool
from .run import EARLIER_RUN, Outcome, RunSettings, fresh_outcome, task_claim
from .tasks import Task

EXECUTORS = ("serial", "process", "dask")
_CLAIM_POLL = 1.0  # seconds between two looks at the claims of tasks another run holds


_dask_pool: WorkerPool | None = None


def _run_on_dask_worker(task: Task, settings: RunSettings) -> Outcome:
    """Dask task body: run the task in this Dask worker's own one-worker pool (kept while the
    settings stay the same), so that its budget covers the whole task here too: the pool's worker
    is killed with all it started when the task runs out of time, as on the local executors. The
    pool's worker is forked from the Dask worker, which must therefore not be daemonic
    (``distributed.worker.daemon: false``; the LocalCluster is started so)."""
    global _dask_pool
    if _dask_pool is None or _dask_pool.settings != settings:
        if _dask_pool is not None:
            _dask_pool.close()
        _dask_pool = WorkerPool(settings, 1, shares_cores=True).__enter__()
    return next(iter(_dask_pool.run([task], RunStop())))


class DaskExecutor:
    """Runs the tasks on a Dask cluster: a LocalCluster of ``jobs`` processes, or the scheduler at
    ``scheduler`` (connected on entry, so an unreachable one is reported before anything runs)."""

    def __init__(self, settings: RunSettings, jobs: int, scheduler: str | None = None, cluster: dict | None = None):
        self.settings = settings
        self.jobs = jobs
        self.scheduler = scheduler
        self.cluster = cluster
        self._client = None
        self._cluster = None
        self._config = None
        self._unfinished: list[Task] = []

    def __enter__(self) -> "DaskExecutor":
        import dask
        from dask.distributed import Client

        if self.scheduler:
            try:
                self._client = Client(self.scheduler)
            except (OSError, TimeoutError) as exc:
                raise ConfigError(f"cannot reach the Dask scheduler: {' '.join(str(exc).split())}",
                                  field="--scheduler", found=self.scheduler) from None
        else:
            # Held while the cluster lives: its nannies read it again each time they restart a worker.
            self._config = dask.config.set(_LOCAL_CLUSTER_CONFIG)
            try:
                self._cluster = (_slurm_cluster(self.cluster["slurm"], self.jobs, self.settings.results_dir)
                                 if self.cluster else _local_cluster(self.jobs))
                self._client = Client(self._cluster)
            except BaseException:
                self._close_cluster()
                raise
        return self

    def __exit__(self, *exc) -> None:
        self._client.close()
        self._close_cluster()
        # A worker stopped inside a task (e.g. in an Octave call) left its claim: its process is
        # gone now, so the claim is abandoned and goes; a remote worker's stays until it is stale.
        for task in self._unfinished:
            task_claim(task, self.settings).break_if_abandoned()

    def _close_cluster(self) -> None:
        if self._cluster is not None:
            self._cluster.close()
            remove_abandoned_scratch_dirs()
        if self._config is not None:
            self._config.__exit__(None, None, None)

    def run(self, tasks: Iterable[Task], stop: RunStop) -> Iterator[Outcome]:
        from dask.distributed import as_completed

        submitted = {self._client.submit(_run_on_dask_worker, task, self.settings, pure=False,
                                         key=f"mlfs-{task.key}-{time.time_ns()}-{i}"): task
                     for i, task in enumerate(tasks)}
        pending = as_completed(submitted)
        while not pending.is_empty():
            if stop.requested:
                # Dask cannot stop a task that runs; a LocalCluster's workers end when it closes.
                self._unfinished += [task for future, task in submitted.items() if not future.done()]
                self._client.cancel(list(submitted))
                return
            batch = pending.next_batch(block=False)
            for future in batch:
                yield _dask_outcome(future, submitted[future])
            if not batch:
                time.sleep(0.05)


def _slurm_cluster(options: dict, jobs: int, results_dir: str):
    """A Dask cluster of ``jobs`` SLURM jobs (``dask_jobqueue``) whose workers reach this process's
    scheduler (docs/cluster.md): each job runs one single-threaded worker process per core, as
    every executor runs one task per process. The jobs' output goes to ``<results>/runs/slurm/``."""
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        raise ConfigError("run.cluster.slurm needs dask-jobqueue: pip install 'mlfs-bench[cluster]'",
                          field="run.cluster") from None
    options = {key: value for key, value in options.items() if value is not None}
    # each worker forks the one worker of its pool (_run_on_dask_worker): it must not be daemonic
    options["job_script_prologue"] = [*options.get("job_script_prologue", []),
                                      "export DASK_DISTRIBUTED__WORKER__DAEMON=False"]
    cluster = SLURMCluster(processes=options["cores"], log_directory=str(Path(results_dir) / RUN_HISTORY_FOLDER / "slurm"),
                           **options)
    cluster.scale(jobs=jobs)
    return cluster


#: Dask settings while a cluster the run starts lives.
_LOCAL_CLUSTER_CONFIG = {
    # Dask's default MALLOC_TRIM_THRESHOLD_ makes glibc map and unmap every large NumPy
    # temporary; the evaluator then runs about twice as slow as in a plain process.
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    # Each Dask worker forks the one worker of its pool (_run_on_dask_worker): daemonic
    # processes may not have children.
    "distributed.worker.daemon": False,
    # The driver reports every task's outcome; the cluster's own log (in the workers and, via
    # silence_logs, in the driver) is about itself: a heartbeat in flight when the cluster
    # closes (after Ctrl-C) is logged with a traceback although nothing went wrong.
    "distributed.nanny.pre-spawn-environ.DASK_LOGGING__DISTRIBUTED": "critical",
}


def _local_cluster(jobs: int):
    """A LocalCluster whose processes ignore SIGINT: the terminal's Ctrl-C reaches the whole
    process group, and only the driver decides what happens (they inherit the ignored signal)."""
    from dask.distributed import LocalCluster

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                            silence_logs=logging.CRITICAL)
    finally:
        signal.signal(signal.SIGINT, previous)


def _dask_outcome(future, task: Task) -> Outcome:
    try:
        return future.result()
    except Exception as exc:  # the worker died (KilledWorker) or the task could not run there
        kind = "WorkerCrashed" if type(exc).__name__ == "KilledWorker" else type(exc).__name__
        return Outcome(task, "failed", f"the Dask worker failed: {' '.join(str(exc).split())}", kind)


def make_executor(kind: str, settings: RunSettings, jobs: int = 1, scheduler: str | None = None,
                  n_tasks: int | None = None, cluster: dict | None = None):
    """The executor ``kind`` (``serial``, ``process`` or ``dask``), to be entered with ``with``.

    Local workers (the pool, a LocalCluster) are capped by ``n_tasks`` (when given) and by the
    usable cores (:func:`~pipeline.limits.worker_count`, which says so above the cores).

    Raises
    ------
    ConfigError
        For an unknown executor, ``jobs < 1`` or a scheduler without ``--executor dask``.
    """
    if kind not in EXECUTORS:
        raise ConfigError(f"unknown executor {kind!r}", expected=f"one of {list(EXECUTORS)}")
    if jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {jobs}")
    if scheduler and kind != "dask":
        raise ConfigError("--scheduler needs --executor dask")
    if kind != "serial" and not scheduler and not cluster:  # a cluster's workers are not this machine's cores
        jobs = worker_count(jobs, jobs if n_tasks is None else n_tasks)
    if kind == "dask":
        return DaskExecutor(settings, jobs, scheduler, cluster)
    return WorkerPool(settings, 1 if kind == "serial" else jobs)


@dataclass
class RunResult:
    """Every task's outcome, in completion order, and why the run stopped early (if it did)."""

    outcomes: list[Outcome] = field(default_factory=list)
    stop_reason: str | None = None
    stop_signal: int | None = None


def execute(executor, tasks: list[Task], progress: bool = True, stop: RunStop | None = None,
            on_outcome: Callable[[Outcome], None] | None = None) -> RunResult:
    """Run ``tasks`` on an entered executor with a progress bar; see the module docstring.

    With ``--skip-existing`` the tasks whose files are fresh are skipped here, before any worker
    starts. ``stop`` is the caller's entered :class:`RunStop` when signals must also be caught
    before and after the tasks (while the executor starts and closes, while reports are written);
    without it they are caught while the tasks run. ``on_outcome`` is called in the driver with each
    outcome as it arrives (e.g. to log it).
    """
    from tqdm import tqdm  # here, not with the module, which every command line imports at start

    if stop is None:
        with RunStop() as own:
            return execute(executor, tasks, progress, own, on_outcome)
    with tqdm(total=len(tasks), desc="tasks", unit="task", disable=not progress, leave=True) as bar:
        tally = _Tally(tasks, bar, on_outcome)
        batch = []
        for task in tasks:
            fresh = fresh_outcome(task, executor.settings)
            if fresh is None:
                batch.append(task)
            else:
                tally.add(fresh)
        held_elsewhere: list[Task] = []
        while batch and not stop.requested:
            for outcome in executor.run(batch, stop):
                if outcome.status == "locked":
                    held_elsewhere.append(outcome.task)
                    continue
                tally.add(outcome)
                try:
                    keep_budget_record(outcome, executor.settings)
                except StorageError as exc:
                    stop.request(f"stopped after a storage fault: {exc}")
                if outcome.error_type in WORKER_ENDED:  # the dead worker could not release its claim
                    task_claim(outcome.task, executor.settings).break_if_abandoned()
                if outcome.error_type == "StorageError":
                    stop.request(f"stopped after a storage fault: {outcome.message}")
            batch, held_elsewhere = _wait_for_claims(held_elsewhere, executor.settings, stop, bar)
    outcomes = tally.outcomes + [Outcome(task, "interrupted", f"did not finish: the run was {stop.reason}",
                                         "Interrupted") for task in tally.unfinished.elements()]
    return RunResult(outcomes, stop.reason, stop.signum)


def keep_budget_record(outcome: Outcome, settings: RunSettings) -> None:
    """Record a method's task that ran out of budget in this run beside its files; remove the
    record of one that has now finished (:mod:`pipeline.results.budget`)."""
    task = outcome.task
    if task.stage == "candidate" or task.method == REFERENCE_FOLDER:
        return
    if outcome.status == "out_of_budget" and outcome.reason != EARLIER_RUN:
        write_budget_record(settings.results_dir, task.folder, task.dataset, task.fold, {
            "task": task.key, "budget": outcome.budget,
            "limit": settings.budget.limit(outcome.budget),
            "seconds": outcome.seconds, "peak_memory_bytes": outcome.peak_memory_bytes, "message": outcome.message})
    elif outcome.status == "done":
        remove_budget_record(settings.results_dir, task.folder, task.dataset, task.fold)


class _Tally:
    """The outcomes so far, the tasks yet to finish, and the progress bar."""

    def __init__(self, tasks: list[Task], bar, on_outcome: Callable[[Outcome], None] | None):
        self.outcomes: list[Outcome] = []
        self.unfinished = Counter(tasks)
        self.bar = bar
        self.on_outcome = on_outcome

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)
        self.unfinished[outcome.task] -= 1
        if self.on_outcome is not None:
            self.on_outcome(outcome)
        self.bar.set_postfix_str(f"{outcome.task.key} {outcome.status}", refresh=False)
        self.bar.update(1)


def _wait_for_claims(held: list[Task], settings: RunSettings, stop: RunStop, bar) -> tuple[list[Task], list[Task]]:
    """Wait until some of the tasks other runs hold are free; return (free tasks, still held)."""
    if held:
        bar.write(f"waiting for {len(held)} task(s) that another run is computing", file=sys.stderr)
    while held and not stop.requested:
        free = [task for task in held if task_claim(task, settings).is_free()]
        if free:
            return free, [task for task in held if task not in free]
        time.sleep(_CLAIM_POLL)
    return [], held


def run_all(tasks: list[Task], settings: RunSettings, executor: str = "serial", jobs: int = 1,
            progress: bool = True, scheduler: str | None = None,
            on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Run every task with a progress bar; return the outcomes in completion order."""
    with make_executor(executor, settings, jobs, scheduler, len(tasks)) as runner:
        return execute(runner, tasks, progress, on_outcome=on_outcome).outcomes
