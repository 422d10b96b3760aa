"""The worker pool of the ``serial`` (one worker) and ``process`` executors: worker processes the
driver feeds one task at a time. No task runs in the driver.

Each worker is forked from the driver, leads its own process group, and keeps one
:class:`~pipeline.runner.run.Workbench` (so one Octave process) for all its tasks. Tasks and
outcomes travel as JSON over one pipe per worker, so the driver always knows which task each
worker runs:

- a worker that dies (a signal, ``os._exit``, any exit) fails the task it was running
  (``WorkerCrashed``) and is replaced; the run carries on;
- a task over its :class:`~pipeline.runner.lifecycle.TaskBudget` ends ``out_of_budget``: over its
  time, the driver kills its worker's process group and starts a fresh worker (``TaskTimeout``);
  over its memory, an allocation fails in the worker (or its Octave) under the limit the worker set
  before the task, and the worker carries on (``MemoryBudget``);
- a worker that ends, however it ends, takes its process group along (what a plug-in started);
- on a stop request the driver sends every worker SIGTERM, collects the outcomes that still
  arrive within a grace period, then kills what is left: nothing runs or writes afterwards;
- workers get SIGTERM from the kernel when the driver dies (:mod:`pipeline.runner.lifecycle`),
  and their Octave processes die with them.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import multiprocessing
import os
import signal
import sys
import tempfile
import time
import traceback
from collections import deque
from multiprocessing.connection import Connection, wait
from typing import Iterable, Iterator

import numpy as np

from ..fileio import process_scratch_dir, remove_abandoned_scratch_dirs, remove_process_scratch_dir
from ..limits import format_memory_size
from .claims import release_claims_of_this_process
from .history import LOGGER_NAME, attach_log
from ..processes import (WorkerStopped, carry_worker_mark, describe_exit_code, end_worker_processes,
                         lead_process_group, new_worker_mark)
from .lifecycle import (WORKER_GRACE, RunStop, TaskBudget, become_worker, memory_limited, peak_resident_bytes,
                        stop_signals_blocked)
from .run import Outcome, RunSettings, Workbench, run_task
from .tasks import Task

DRIVER_GRACE = WORKER_GRACE + 2.0  # the driver kills a worker that has not ended by then
_POLL = 0.2
#: The error types of a task whose worker process was ended while it ran (it could not release its claim).
WORKER_ENDED = ("WorkerCrashed", "TaskTimeout")


def encode(item: Task | Outcome) -> bytes:
    return json.dumps(dataclasses.asdict(item)).encode("utf-8")


def decode_task(data: bytes) -> Task:
    return Task(**json.loads(data))


def decode_outcome(data: bytes) -> Outcome:
    fields = json.loads(data)
    fields["task"] = Task(**fields["task"])
    return Outcome(**fields)


def configure_worker(settings: RunSettings, shares_cores: bool = True) -> None:
    """One BLAS thread per worker when workers share the cores (parallelism comes from the
    workers; the serial executor's one worker keeps them all, as a task in the driver did); log to
    the run's log (a forked worker already does: it inherited the driver's handler)."""
    from threadpoolctl import threadpool_limits

    if shares_cores:
        threadpool_limits(1)
    logged = {getattr(handler, "baseFilename", None) for handler in logging.getLogger(LOGGER_NAME).handlers}
    if settings.log_file and os.path.abspath(settings.log_file) not in logged:
        attach_log(settings.log_file)


def _worker_main(conn: Connection, settings: RunSettings, parent_pid: int, shares_cores: bool, mark: str) -> None:
    """A worker's life: run the tasks the driver sends until it says stop, or until SIGTERM.

    Every program it starts carries its ``mark`` in its environment, so that the driver can end them
    all. It ends with ``os._exit``: threads a plug-in left behind do not keep it alive, and no exit
    handler of the driver it was forked from runs here.
    """
    bench, code = None, 0
    carry_worker_mark(mark)
    try:
        stop_signal = become_worker(parent_pid)
        tempfile.tempdir = str(process_scratch_dir())  # everything temporary goes with the worker
        configure_worker(settings, shares_cores)
        bench = Workbench(settings)
        while True:
            try:
                message = conn.recv_bytes()
            except EOFError:
                break
            if not message:  # no more tasks
                break
            with memory_limited(settings.budget.memory) as use:
                outcome = run_task(decode_task(message), settings, bench)
            if outcome.status == "failed" and settings.budget.ran_out_of_memory(outcome.error_type, outcome.message):
                outcome = out_of_budget(outcome, settings.budget, "memory", use.peak_bytes,
                                        f"an allocation beyond it was refused ({outcome.message})")
            if stop_signal.received and outcome.status == "failed":
                break  # it failed because the stop interrupted it: the driver reports it interrupted
            conn.send_bytes(encode(outcome))
    except WorkerStopped:  # SIGTERM: the run stops, or the driver died
        pass
    except BaseException:  # noqa: BLE001 - a fault outside any task: said, and the driver replaces the worker
        traceback.print_exc()
        code = 1
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # let the clean-up finish
        if bench is not None:
            bench.close()
        release_claims_of_this_process()  # one a stop caught between its link and its task
        remove_process_scratch_dir()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


class _Worker:
    """The driver's handle on one worker process: its pipe and the task it runs."""

    def __init__(self, settings: RunSettings, shares_cores: bool):
        context = multiprocessing.get_context("fork")
        self.conn, child_end = context.Pipe(duplex=True)
        self.mark = new_worker_mark()
        self.process = context.Process(target=_worker_main, args=(child_end, settings, os.getpid(), shares_cores,
                                                                  self.mark), daemon=True, name="mlfs-worker")
        with stop_signals_blocked():  # the child installs its own handlers before it sees a signal
            self.process.start()
        lead_process_group(self.process.pid)
        child_end.close()
        self.task: Task | None = None
        self.started = 0.0  # time.monotonic() when the task started
        self.used = False

    @property
    def alive(self) -> bool:
        return self.process.exitcode is None

    def assign(self, task: Task) -> None:
        self.task, self.used, self.started = task, True, time.monotonic()
        try:
            self.conn.send_bytes(encode(task))
        except OSError:  # it died meanwhile: collect() reports the crash
            pass

    def receive(self) -> Outcome | None:
        """The outcome of the running task if it has arrived."""
        if self.task is None:
            return None
        try:
            if not self.conn.poll():
                return None
            outcome = decode_outcome(self.conn.recv_bytes())
        except (EOFError, OSError):  # it died before or while sending
            return None
        self.task = None
        return outcome

    def collect(self) -> Outcome | None:
        """The outcome of the running task if it arrived, a crash outcome if the worker died."""
        outcome = self.receive()
        if outcome is not None or self.task is None or self.alive:
            return outcome
        task, self.task = self.task, None
        return Outcome(task, "failed", f"worker process {self.process.pid} crashed ({describe_exit(self.process)}) "
                                       "while running this task; a new worker took its place", "WorkerCrashed",
                       time.monotonic() - self.started)

    def end_if_over(self, budget: TaskBudget) -> Outcome | None:
        """If the running task is over its time ``budget``: kill the worker and every process it started
        (Octave included), end the task out of budget (with the peak memory its processes had reached)."""
        if self.task is None or not budget.is_over(self.started):
            return None
        peak = peak_resident_bytes(self.process.pid)
        self.kill()
        self.process.join()
        task, self.task = self.task, None
        stopped = Outcome(task, "failed", error_type="TaskTimeout", seconds=time.monotonic() - self.started)
        return out_of_budget(stopped, budget, "time", peak, f"its worker process {self.process.pid} and every "
                                                            "process it started were killed; a new worker took its place")

    def kill(self) -> None:
        """SIGKILL the worker and every process it started, Octave included (none is left running)."""
        end_worker_processes(self.process.pid, self.mark)

    def stop(self, sig: int) -> None:
        if self.alive:
            try:
                os.kill(self.process.pid, sig)
            except ProcessLookupError:
                pass

    def close(self) -> None:
        """Tell the worker there are no more tasks, wait for it, kill it if it does not end."""
        try:  # an explicit message: workers forked later hold copies of this pipe, so no EOF comes
            self.conn.send_bytes(b"")
        except OSError:
            pass
        self.conn.close()
        self.process.join(DRIVER_GRACE)
        self.kill()  # what is left of it, and what it started and left running (a dead worker's Octave too)
        self.process.join()


def out_of_budget(outcome: Outcome, budget: TaskBudget, kind: str, peak_bytes: int | None, how: str) -> Outcome:
    """``outcome`` (a task stopped at its ``kind`` budget, ``how``) as an ``out_of_budget`` outcome
    saying what the task used: its seconds and its processes' peak resident memory."""
    used = f"{outcome.seconds:.1f} s" + (f", peak {format_memory_size(peak_bytes)} resident" if peak_bytes else "")
    return dataclasses.replace(outcome, status="out_of_budget", budget=kind, peak_memory_bytes=peak_bytes,
                               error_type=outcome.error_type if kind == "time" else "MemoryBudget",
                               message=f"out of its {budget.describe(kind)} after {used}: {how}")


def describe_exit(process) -> str:
    """How a finished ``multiprocessing`` process ended: ``killed by SIGKILL``, ``exit code 0``."""
    process.join(0)
    return describe_exit_code(process.exitcode)


#: Modules every task imports (its records' schemas, the MAT-file reader of its fold, the engine of
#: Python methods, the BLAS thread limit), imported before any worker is forked: each worker would import
#: them again, 0.2 s of every worker's start (and the process executor and every phase of a suite fork anew).
_TASK_MODULES = ("pipeline.results.schema", "pipeline.engines.python", "scipy.io", "threadpoolctl")


def _load_task_code(settings: RunSettings) -> None:
    """Import here, in the driver, once, what every task imports; with the Octave engine, oct2py too
    (its import is 1 s; Octave itself is started by each worker, never here)."""
    for module in _TASK_MODULES:
        importlib.import_module(module)
    if settings.engine == "octave" or settings.evaluator == "octave":
        from ..engines.octave import import_oct2py

        import_oct2py()


def _load_evaluator_code(settings: RunSettings) -> None:
    """Load the native evaluator's compiled code here, in the driver, once: every worker forked
    afterwards starts with it, instead of spending seconds of its first task's budget on it (a
    tiny evaluation, results discarded; one thread, so that no thread pool is forked)."""
    if settings.evaluator != "native":
        return
    from ..evaluation.mlknn import evaluate_grid

    X = np.random.default_rng(0).random((12, 3))
    Y = (X[:, :2] > 0.5).astype(np.uint8)
    evaluate_grid(X[:8], Y[:8], X[8:], Y[8:], [1, 2, 3], [1, 2, 3], num=2, n_threads=1)


class WorkerPool:
    """``jobs`` worker processes (started on the first task, replaced when they die); one for the
    ``serial`` executor and for each Dask worker. ``shares_cores`` (default: more than one job):
    the workers share the machine's cores with other workers, so each keeps one BLAS thread.

    Use as a context manager; :meth:`run` may be called several times.
    """

    def __init__(self, settings: RunSettings, jobs: int, shares_cores: bool | None = None):
        self.settings = settings
        self.jobs = jobs
        self.shares_cores = jobs > 1 if shares_cores is None else shares_cores
        self._workers: list[_Worker] = []
        self._wanted = jobs  # workers to keep for the current batch: no more than its tasks
        self._failed_starts = 0

    def __enter__(self) -> "WorkerPool":
        _load_task_code(self.settings)
        _load_evaluator_code(self.settings)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, tasks: Iterable[Task], stop: RunStop) -> Iterator[Outcome]:
        """Yield each task's outcome as it finishes; on a stop request, stop every worker and yield
        only the outcomes that still arrive (the caller reports the others as interrupted)."""
        queue = deque(tasks)
        self._wanted = max(1, min(self.jobs, len(queue) + sum(w.task is not None for w in self._workers)))
        while not stop.requested and (queue or self._busy()):
            self._replace_dead_workers()
            for worker in self._workers:
                if worker.task is None and queue:
                    worker.assign(queue.popleft())
            wait([w.conn for w in self._workers if w.task] + [w.process.sentinel for w in self._workers], _POLL)
            for worker in self._workers:
                outcome = worker.collect() or worker.end_if_over(self.settings.budget)
                if outcome is not None:
                    yield outcome
        if stop.requested:
            yield from self._stop_workers()

    def close(self) -> None:
        """End every worker (pipe closed: they finish and exit) and remove dead workers' folders."""
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.close()
        remove_abandoned_scratch_dirs()

    def _busy(self) -> bool:
        return any(w.task is not None for w in self._workers)

    def _replace_dead_workers(self) -> None:
        kept = []
        for worker in self._workers:
            if worker.alive or worker.task is not None:
                kept.append(worker)
                continue
            worker.close()
            self._failed_starts = 0 if worker.used else self._failed_starts + 1
        if self._failed_starts > 2 * self.jobs:
            raise RuntimeError("worker processes keep dying before their first task")
        self._workers = kept + [_Worker(self.settings, self.shares_cores) for _ in range(self._wanted - len(kept))]

    def _stop_workers(self) -> Iterator[Outcome]:
        for worker in self._workers:
            worker.stop(signal.SIGTERM)
        deadline = time.monotonic() + DRIVER_GRACE
        while self._busy() and time.monotonic() < deadline:
            wait([w.conn for w in self._workers if w.task] + [w.process.sentinel for w in self._workers], _POLL)
            for worker in self._workers:
                outcome = worker.receive()
                if outcome is not None:
                    yield outcome
                elif not worker.alive:
                    worker.task = None  # stopped before it finished: reported as interrupted
        for worker in self._workers:
            worker.kill()
            worker.task = None
        self.close()
