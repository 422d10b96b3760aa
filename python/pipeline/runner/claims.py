"""Per-task claim files: two runs on one results directory never compute the same task at once.

A claim is a small JSON file (host, pid, claim time) created atomically with ``os.link`` — which
fails if the file exists — so exactly one run wins. A claim is *abandoned*, and may be broken,
when its content is not a valid claim (empty or corrupt: a complete claim is written before it is
linked, so a live holder never shows one), when its process is gone (same host: the pid no longer
exists, is a zombie, or now belongs to a process started after the claim), or when it is older
than ``stale_after`` seconds (other hosts, e.g. Dask workers on a cluster, whose pids cannot be
checked). A killed run therefore never blocks a resumed one on the same machine, and blocks one
elsewhere at most ``stale_after`` seconds. See ``docs/reliability.md``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..documents import read_result_file
from ..errors import PipelineError
from ..fileio import (create_temporary, ensure_directory, process_alive, remove_abandoned_temporaries, storage_error,
                      this_host)

DEFAULT_STALE_AFTER = 6 * 3600.0

#: The claims this process has linked or is linking, with the content it wrote. A stop can arrive
#: between the link and the ``with`` block (or inside the release); the worker's way out then removes
#: what is still listed here (:func:`release_claims_of_this_process`), so no claim outlives its task.
_LINKED: dict[Path, dict] = {}


class TaskClaim:
    """An exclusive claim on one task, held while its files are computed.

    Use as ``with TaskClaim(path) as claim: if claim.acquired: ...``.
    """

    def __init__(self, path: str | Path, stale_after: float = DEFAULT_STALE_AFTER):
        self.path = Path(path)
        self.stale_after = stale_after
        self.acquired = False

    def __enter__(self) -> "TaskClaim":
        try:
            self.acquired = self.acquire()
        except BaseException:  # a stop after the link: ``__exit__`` will not run
            _release_if_ours(self.path)
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> bool:
        """Create the claim; break an abandoned one once. Returns whether this process holds it.

        Raises
        ------
        StorageError
            When the method folder or the claim cannot be written.
        """
        ensure_directory(self.path.parent, "method folder")
        for _ in range(2):
            if self._try_create():
                self.acquired = True
                remove_abandoned_temporaries(self.path, self.stale_after)
                return True
            if not self.break_if_abandoned():
                return False
        return False

    def release(self) -> None:
        if self.acquired:
            self.path.unlink(missing_ok=True)
            self.acquired = False
        _LINKED.pop(self.path, None)

    def holder(self) -> dict:
        """The claim's content (empty dict if missing or unreadable)."""
        try:
            content = read_result_file(self.path, "task claim")
        except PipelineError:
            return {}
        return content if isinstance(content, dict) else {}

    def is_free(self) -> bool:
        """Whether nobody holds the task: no claim, or an abandoned one."""
        return not self.path.exists() or self._is_abandoned()

    def _try_create(self) -> bool:
        content = {"host": this_host(), "pid": os.getpid(), "started": time.time()}
        try:
            fd, tmp = create_temporary(self.path)
        except OSError as exc:
            raise storage_error("write task claim", self.path, exc) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(content))
            _LINKED[self.path] = content  # listed before the link: no moment where it is ours unlisted
            os.link(tmp, self.path)
            return True
        except FileExistsError:  # claimed by another process
            _LINKED.pop(self.path, None)
            return False
        except OSError as exc:
            _LINKED.pop(self.path, None)
            raise storage_error("write task claim", self.path, exc) from None
        finally:
            tmp.unlink(missing_ok=True)

    def break_if_abandoned(self) -> bool:
        """Remove the claim if it is abandoned; returns whether the task is free of it now."""
        if not self._is_abandoned():
            return False
        grave = self.path.with_name(f"{self.path.name}.stale.{os.getpid()}")
        try:
            os.replace(self.path, grave)  # only one breaker moves the abandoned file away
        except FileNotFoundError:
            return True  # another process already broke it: try again
        grave.unlink(missing_ok=True)
        return True

    def _is_abandoned(self) -> bool:
        info = self.holder()
        try:
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return True
        host, pid, started = info.get("host"), info.get("pid"), info.get("started")
        if not (isinstance(host, str) and isinstance(pid, int) and isinstance(started, (int, float))):
            return True  # empty or corrupt: no live holder ever shows such a claim
        if host == this_host():
            return not process_alive(pid, float(started))
        return age > self.stale_after


def release_claims_of_this_process() -> None:
    """Remove every claim this process still holds: the way out of a worker that was stopped."""
    for path in list(_LINKED):
        _release_if_ours(path)


def _release_if_ours(path: Path) -> None:
    """Remove ``path`` if it is the claim this process linked (a forked child inherits the list of
    its parent, whose claims are not its own; a claim broken and taken by another run is theirs)."""
    content = _LINKED.pop(path, None)
    if content is None or content["pid"] != os.getpid():
        return
    if TaskClaim(path).holder() == content:
        path.unlink(missing_ok=True)
