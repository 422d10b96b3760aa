"""Processes as the run sees them: the stop a worker receives, process groups, how a process ended.

The lowest layer, so that the engines and the methods' isolated calls (which fork children of a
task's worker) and the runner (which forks the workers) share one definition.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal


class WorkerStopped(KeyboardInterrupt):
    """Raised in a worker by the SIGTERM that stops it (the run stops, or the driver died).

    A KeyboardInterrupt, so that code which cleans up on Ctrl-C (an Octave call kills Octave) does
    so here too; a distinct type, so that a method raising KeyboardInterrupt itself is told apart:
    that is the task's failure, not a stop."""


def lead_process_group(pid: int) -> None:
    """Make ``pid`` (this process or a child just forked) the leader of a new process group.

    Called by the child and by its parent: whichever comes first, the group exists before the
    child starts anything, and before the parent may need to end it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the child died, or it did it
        os.setpgid(pid, pid)


def describe_exit_code(code: int | None) -> str:
    """How a process ended, from its exit code (negative: the signal that killed it):
    ``killed by SIGKILL``, ``exit code 0``."""
    if code is not None and code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def end_process_group(pgid: int) -> None:
    """SIGKILL every process of the group ``pgid`` (a worker and all it started; none may be left)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


#: The environment variable that carries a worker's mark (:func:`end_worker_processes`). Every program
#: the worker starts inherits it, Octave included, which the worker's process group does not hold:
#: oct2py starts Octave on a terminal of its own, in a session of its own.
WORKER_MARK = "MLFS_WORKER_MARK"


def new_worker_mark() -> str:
    """A mark for a worker about to be forked, unique on this machine (the driver's pid and 64 random bits)."""
    return f"{os.getpid()}-{secrets.token_hex(8)}"


def carry_worker_mark(mark: str) -> None:
    """In a freshly forked worker: make every program it starts from now on carry ``mark``."""
    os.environ[WORKER_MARK] = mark


def end_worker_processes(pgid: int, mark: str) -> None:
    """SIGKILL a worker's process group ``pgid`` and every process whose environment carries its
    ``mark``, in whatever group or session, and even after the worker died (its Octave then belongs
    to init).

    The group alone is not enough: a worker killed as a group left its Octave computing, for minutes
    (Octave acts on its terminal's hang-up only between two statements). The group is stopped first,
    so that none of it starts another program between the search and the kill. A process the worker
    forked without starting a program shows the environment the driver started with, not the mark:
    it is in the group."""
    import psutil  # the driver has it loaded (the workers' peak memory); modules importing this one need not

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGSTOP)
    end_process_group(pgid)
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):  # gone meanwhile, or another user's
            if process.environ().get(WORKER_MARK) == mark:
                process.kill()
