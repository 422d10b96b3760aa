"""Processes as the run sees them: the stop a worker receives, process groups, how a process ended.

The lowest layer, so that the engines and the methods' isolated calls (which fork children of a
task's worker) and the runner (which forks the workers) share one definition.
"""

from __future__ import annotations

import contextlib
import os
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


def end_process_tree(pid: int) -> None:
    """SIGKILL process ``pid`` (alive, or dead but not yet reaped), the group it leads, and every process
    descended from it in whatever group or session.

    The group alone is not enough: oct2py starts Octave in a session of its own (on the terminal it
    opens for it), so a worker killed as a group left its Octave computing, possibly for long minutes
    (Octave acts on the terminal's hang-up only between two statements). The group is stopped first,
    so that none of it starts another process between the listing and the kill."""
    import psutil  # the driver and the workers have it loaded; the modules importing this one need not

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGSTOP)
    try:
        descendants = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    end_process_group(pid)
    for process in descendants:
        with contextlib.suppress(psutil.Error):
            process.kill()
