"""Per-task claim files: two runs on one results directory never compute the same task at once.

A claim is a small JSON file (host, pid, start time) created atomically with ``os.link`` — which
fails if the file exists — so exactly one run wins. A claim is *stale*, and may be broken, when its
process is gone (same host: the pid no longer exists, is a zombie, or now belongs to a process
started after the claim) or when it is older than ``stale_after`` seconds (other hosts, e.g. Dask
workers on a cluster, whose pids cannot be checked). A killed run
therefore never blocks a resumed one on the same machine, and blocks one elsewhere at most
``stale_after`` seconds.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from pathlib import Path

import psutil

DEFAULT_STALE_AFTER = 6 * 3600.0


class TaskClaim:
    """An exclusive claim on one task, held while its files are computed.

    Use as ``with TaskClaim(path) as claim: if claim.acquired: ...``.
    """

    def __init__(self, path: str | Path, stale_after: float = DEFAULT_STALE_AFTER):
        self.path = Path(path)
        self.stale_after = stale_after
        self.acquired = False

    def __enter__(self) -> "TaskClaim":
        self.acquired = self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> bool:
        """Create the claim; break a stale one once. Returns whether this process holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            if self._try_create():
                self.acquired = True
                self.remove_abandoned_temporaries()
                return True
            if not self._break_if_stale():
                return False
        return False

    def release(self) -> None:
        if self.acquired:
            self.path.unlink(missing_ok=True)
            self.acquired = False

    def holder(self) -> dict:
        """The claim's content (empty dict if unreadable)."""
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def remove_abandoned_temporaries(self) -> None:
        """Delete other claim temporaries of this task (call while holding the claim).

        They belong to processes killed between creating and linking them, or to a process that is
        losing the race right now (its link then fails, which it reads as "claimed by another").
        """
        for partial in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            partial.unlink(missing_ok=True)

    def _try_create(self) -> bool:
        content = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "started": time.time()})
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(content)
            os.link(tmp, self.path)
            return True
        except (FileExistsError, FileNotFoundError):  # claimed by another (which removed our temporary)
            return False
        finally:
            Path(tmp).unlink(missing_ok=True)

    def _break_if_stale(self) -> bool:
        if not self._is_stale():
            return False
        grave = self.path.with_name(f"{self.path.name}.stale.{os.getpid()}")
        try:
            os.replace(self.path, grave)  # only one breaker moves the stale file away
        except FileNotFoundError:
            return True  # another process already broke it: try again
        grave.unlink(missing_ok=True)
        return True

    def _is_stale(self) -> bool:
        info = self.holder()
        try:
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return True
        if info.get("host") == socket.gethostname() and isinstance(info.get("pid"), int):
            return not _claimant_alive(info["pid"], float(info.get("started", 0.0)))
        return age > self.stale_after


def _claimant_alive(pid: int, claimed_at: float) -> bool:
    """Whether the process that made a claim at ``claimed_at`` still runs (zombies count as gone)."""
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return process.create_time() <= claimed_at + 1.0  # a newer process reusing the pid is not it
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True
