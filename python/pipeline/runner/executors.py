"""Executors: run a list of tasks serially, on a local process pool, or on a Dask cluster.

Each worker builds one :class:`~pipeline.runner.run.Workbench` (so one Octave process) when it
receives its first task and reuses it for every later task. Results are written by the worker to
the results directory (which must be shared storage on a cluster); the driver only collects
outcomes and shows progress.
"""

from __future__ import annotations

import atexit
import itertools
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Iterable, Iterator

from tqdm import tqdm

from ..errors import ConfigError
from .history import attach_log
from .run import Outcome, RunSettings, Workbench, fresh_outcome, run_task
from .tasks import Task

EXECUTORS = ("serial", "process", "dask")

_worker_bench: Workbench | None = None
_worker_settings: RunSettings | None = None


def _init_worker(settings: RunSettings) -> None:
    """Process-pool initializer: one workbench per worker, BLAS limited to one thread."""
    global _worker_bench, _worker_settings
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    if settings.log_file:
        attach_log(settings.log_file)
    _worker_settings = settings
    _worker_bench = Workbench(settings)
    atexit.register(_worker_bench.close)


def _run_in_worker(task: Task) -> Outcome:
    return run_task(task, _worker_settings, _worker_bench)


def _run_on_dask_worker(task: Task, settings: RunSettings) -> Outcome:
    """Dask task body: reuse this worker process's workbench while the settings stay the same."""
    global _worker_bench, _worker_settings
    if _worker_bench is None or _worker_settings != settings:
        if _worker_bench is not None:
            _worker_bench.close()
        _init_worker(settings)
    return run_task(task, settings, _worker_bench)


def _dask_outcomes(tasks: list[Task], settings: RunSettings, jobs: int, scheduler: str | None) -> Iterator[Outcome]:
    import dask
    from dask.distributed import Client, LocalCluster, as_completed as dask_completed

    if scheduler:
        client, cluster = Client(scheduler), None
    else:
        # Dask's default MALLOC_TRIM_THRESHOLD_ makes glibc map and unmap every large NumPy
        # temporary; the evaluator then runs about twice as slow as in a plain process.
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=40)
        client = Client(cluster)
    try:
        futures = [client.submit(_run_on_dask_worker, task, settings, pure=False,
                                 key=f"mlfs-{task.key}-{i}") for i, task in enumerate(tasks)]
        for future in dask_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def iter_outcomes(tasks: list[Task], settings: RunSettings, executor: str = "serial",
                  jobs: int = 1, scheduler: str | None = None) -> Iterator[Outcome]:
    """Yield the outcome of every task as it finishes."""
    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}", expected=f"one of {list(EXECUTORS)}")
    if jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {jobs}")
    if scheduler and executor != "dask":
        raise ConfigError("--scheduler needs --executor dask")
    if executor == "dask":
        yield from _dask_outcomes(tasks, settings, jobs, scheduler)
        return
    if executor == "serial" or jobs == 1:
        bench = Workbench(settings)
        try:
            for task in tasks:
                yield run_task(task, settings, bench)
        finally:
            bench.close()
        return
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(settings,)) as pool:
        futures = [pool.submit(_run_in_worker, task) for task in tasks]
        for future in as_completed(futures):
            yield future.result()


def run_all(tasks: list[Task], settings: RunSettings, executor: str = "serial", jobs: int = 1,
            progress: bool = True, scheduler: str | None = None,
            on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Run every task with a progress bar; return the outcomes in completion order.

    ``on_outcome`` is called in the driver with each outcome as it arrives (e.g. to log it).
    """
    fresh = [outcome for outcome in (fresh_outcome(task, settings) for task in tasks) if outcome is not None]
    skipped = {outcome.task for outcome in fresh}
    pending = [task for task in tasks if task not in skipped]
    outcomes: list[Outcome] = []
    stream: Iterable[Outcome] = itertools.chain(fresh, iter_outcomes(pending, settings, executor, jobs, scheduler)
                                                if pending else ())
    with tqdm(total=len(tasks), desc="tasks", unit="task", disable=not progress, leave=True) as bar:
        for outcome in stream:
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
            bar.set_postfix_str(f"{outcome.task.key} {outcome.status}", refresh=False)
            bar.update(1)
    return outcomes
