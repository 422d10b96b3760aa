"""How a run stops: signals in the driver, and worker processes that never outlive it.

Driver side, :class:`RunStop`: while a run lasts, SIGINT (Ctrl-C), SIGTERM and SIGHUP record a
stop request instead of killing the driver; the executors poll it, stop their workers and report
the unfinished tasks as interrupted. No task runs in the driver: every executor runs tasks in
worker processes. A fault that would fail every later task (a full disk) requests a stop too,
without a signal.

Worker side, :func:`become_worker`: a worker leads its own process group (everything it starts
is in it, so the driver can end it all with :func:`end_process_group`), ignores the terminal's
SIGINT (the driver decides), turns SIGTERM into :class:`WorkerStopped` (the running task unwinds:
claim released, temporaries removed, Octave stopped; sent again when it arrived where Python
drops exceptions, such as a weakref callback), gets SIGTERM from the kernel when the
driver dies (``PR_SET_PDEATHSIG``), and has a watchdog thread that ends the process group,
Octave included, if the unwinding takes longer than a grace period or if the driver vanished
without that signal. :class:`TaskBudget` is what one task may use: the driver enforces its time,
the worker its memory (:func:`memory_limited`).
See ``docs/reliability.md``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass

import psutil

from ..fileio import remove_process_scratch_dir
from ..processes import WorkerStopped, end_process_group, lead_process_group
from ..results.budget import describe_budget
from .claims import release_claims_of_this_process

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
WORKER_GRACE = 3.0  # seconds a worker may take to unwind after SIGTERM before it is ended
REDELIVERY_DELAY = 0.01  # seconds after a dropped stop before it is sent again
_PR_SET_PDEATHSIG = 1


class RunStop:
    """Why a run stops early: a signal, or a fault that would fail every later task.

    Use as a context manager around the run (installs the signal handlers in the main thread);
    executors poll :attr:`requested`. A command line that exits right after the run passes
    ``ends_process=True``: once a signal has stopped the run, further stop signals (an impatient
    second Ctrl-C) are then ignored until the process exits instead of cutting its exit short.
    """

    def __init__(self, ends_process: bool = False):
        self.ends_process = ends_process
        self.reason: str | None = None
        self.signum: int | None = None
        self._previous: dict[int, object] = {}

    @property
    def requested(self) -> bool:
        return self.reason is not None

    def request(self, reason: str, signum: int | None = None) -> None:
        """Ask the run to stop; the first reason is kept."""
        if self.reason is None:
            self.reason, self.signum = reason, signum

    def __enter__(self) -> "RunStop":
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._on_signal)
        return self

    def __exit__(self, *exc) -> None:
        stopping = self.ends_process and self.signum is not None
        for signum, handler in self._previous.items():
            signal.signal(signum, signal.SIG_IGN if stopping else handler)
        self._previous.clear()

    def _on_signal(self, signum, _frame) -> None:
        self.request(f"interrupted by {signal.Signals(signum).name}", signum)


#: Octave's words for an allocation refused under the address-space limit.
_OCTAVE_OUT_OF_MEMORY = "out of memory"


@dataclass(frozen=True)
class TaskBudget:
    """What one task may use (``--task-timeout``, ``--task-memory``; None: no limit).

    ``seconds``: wall-clock time from the task's start in its worker; the driver ends a task over
    it (its worker's whole process group) and starts a fresh worker. ``memory``: bytes by which
    each process of the task (its worker, the worker's Octave) may grow its address space during
    the task, set as their ``RLIMIT_AS`` by the worker before the task (:func:`memory_limited`): an
    allocation beyond it fails (Python's MemoryError, Octave's "out of memory") and the task ends
    out of budget, the worker and its Octave carrying on with the next task.
    """

    seconds: float | None = None
    memory: int | None = None

    def is_over(self, started: float) -> bool:
        """Whether a task that started at ``started`` (``time.monotonic()``) is over its time budget."""
        return self.seconds is not None and time.monotonic() - started > self.seconds

    def limit(self, kind: str) -> float | None:
        """The budget of ``kind`` (``memory``: bytes, ``time``: seconds)."""
        return self.seconds if kind == "time" else self.memory

    def describe(self, kind: str) -> str:
        """The budget of ``kind`` as the reports name it: ``time budget of 1800 s``."""
        return describe_budget(kind, self.limit(kind))

    def ran_out_of_memory(self, error_type: str, message: str) -> bool:
        """Whether a task that failed with ``error_type`` and ``message`` under this budget ran out
        of its memory: a MemoryError in Python, or Octave's out-of-memory error."""
        return self.memory is not None and (error_type == "MemoryError" or _OCTAVE_OUT_OF_MEMORY in message)

    def covers(self, kind: str, spent: float) -> bool:
        """Whether this budget of ``kind`` is no larger than ``spent`` (the budget a task ran out of
        before): then running the task again would end the same way."""
        limit = self.limit(kind)
        return limit is not None and limit <= spent


class MemoryUse:
    """The peak resident memory of a task's processes (bytes; each process's own peak, summed), once
    :func:`memory_limited` has ended."""

    def __init__(self):
        self.peak_bytes: int | None = None


@contextlib.contextmanager
def memory_limited(budget: int | None):
    """Meanwhile, this process and its children (Octave) may each grow their address space by at
    most ``budget`` bytes (None: no limit), within any hard limit already set; yields a
    :class:`MemoryUse` filled on exit. Children started meanwhile inherit this process's limit.

    The peak resident sizes are reset first (``/proc/PID/clear_refs``), so the peak is the task's."""
    processes = [psutil.Process()] + psutil.Process().children(recursive=True)
    previous = {}
    for process in processes:
        _reset_peak_resident(process.pid)
        if budget is not None:
            with contextlib.suppress(psutil.Error, OSError, ValueError):
                previous[process] = process.rlimit(psutil.RLIMIT_AS)
                hard = previous[process][1]
                wanted = process.memory_info().vms + budget
                process.rlimit(psutil.RLIMIT_AS, (wanted if hard == psutil.RLIM_INFINITY else min(wanted, hard), hard))
    use = MemoryUse()
    try:
        yield use
    finally:
        for process, limits in previous.items():
            with contextlib.suppress(psutil.Error, OSError, ValueError):
                process.rlimit(psutil.RLIMIT_AS, limits)
        use.peak_bytes = peak_resident_bytes(os.getpid())


def peak_resident_bytes(pid: int) -> int | None:
    """The peak resident memory of process ``pid`` and its descendants (each one's own peak, summed;
    an upper bound of their joint peak), from Linux's ``VmHWM``; None where that is not told."""
    try:
        processes = [psutil.Process(pid)] + psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return None
    peaks = [_peak_resident(process.pid) for process in processes]
    return sum(peak for peak in peaks if peak is not None) if any(p is not None for p in peaks) else None


def _peak_resident(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def _reset_peak_resident(pid: int) -> None:
    """Start the peak resident size of ``pid`` again from its current size (Linux 4.0+; elsewhere
    the peak stays the process's lifetime peak)."""
    with contextlib.suppress(OSError):
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as clear_refs:
            clear_refs.write("5")


@contextlib.contextmanager
def stop_signals_blocked():
    """Block the stop signals in this thread meanwhile (a process forked here inherits the block)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def become_worker(parent_pid: int, grace: float = WORKER_GRACE) -> "StopSignal":
    """Set up a freshly forked worker (forked with the stop signals blocked, which this unblocks).

    The worker leads a new process group (the driver sets it too, whichever runs first), SIGINT
    and SIGHUP are ignored (the driver decides), the first SIGTERM raises :class:`WorkerStopped`,
    the kernel sends SIGTERM when the driver dies, and a watchdog thread ends the process group
    ``grace`` seconds after a SIGTERM.
    """
    lead_process_group(os.getpid())
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    stop_signal = StopSignal()
    signal.signal(signal.SIGTERM, stop_signal)
    sys.unraisablehook = stop_signal.redeliver_when_swallowed(sys.unraisablehook)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)  # the C-level handler writes here even while Python is busy
    _die_with_parent()
    threading.Thread(target=_watchdog, args=(parent_pid, wake_read, grace), daemon=True,
                     name="mlfs-worker-watchdog").start()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if os.getppid() != parent_pid:  # the driver died before the parent-death signal was set
        os.kill(os.getpid(), signal.SIGTERM)
    return stop_signal


class StopSignal:
    """A worker's SIGTERM handler: the first SIGTERM raises :class:`WorkerStopped` (later ones
    would interrupt the clean-up); :attr:`received` says whether it came."""

    def __init__(self):
        self.received = False

    def __call__(self, _signum, _frame) -> None:
        if not self.received:
            self.received = True
            raise WorkerStopped

    def redeliver_when_swallowed(self, previous_hook):
        """An unraisable-exception hook that sends the stop again when :class:`WorkerStopped` was raised
        where Python cannot raise it (a weakref callback, ``__del__``) and dropped it: otherwise the
        task would run on until the watchdog ends the process, and a traceback would reach the
        terminal. Any other unraisable exception goes to ``previous_hook``."""
        def hook(unraisable) -> None:
            if isinstance(unraisable.exc_value, WorkerStopped):
                self.received = False
                # Sent from another thread a moment later, the signal is handled once this hook and the
                # callback have returned (sent from here, its handler would run inside this hook).
                redelivery = threading.Timer(REDELIVERY_DELAY, os.kill, (os.getpid(), signal.SIGTERM))
                redelivery.daemon = True
                redelivery.start()
            else:
                previous_hook(unraisable)
        return hook


def _die_with_parent() -> None:
    """Ask Linux to send SIGTERM when the parent dies (elsewhere the watchdog polls the parent)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _watchdog(parent_pid: int, wake_read: int, grace: float) -> None:
    """Wait for a SIGTERM (or the parent's disappearance), then end the process after ``grace``."""
    while not select.select([wake_read], [], [], 1.0)[0]:
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGTERM)
            break
    time.sleep(grace)
    end_process_now()


def end_process_now() -> None:
    """Kill this process's children (Octave), release its claims, remove its scratch folder, then end
    the process group it leads, itself included (what a plug-in started and left to the group goes too)."""
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            child.kill()
    release_claims_of_this_process()
    remove_process_scratch_dir()
    if os.getpgid(0) == os.getpid():  # never the driver's group, should this process not lead its own
        end_process_group(os.getpid())
    os._exit(1)
