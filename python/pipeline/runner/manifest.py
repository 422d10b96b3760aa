"""Failure reports (``failures.json``) of a run; the run records themselves are in :mod:`.history`."""

from __future__ import annotations

from pathlib import Path

from ..fileio import atomic_write_json, remove_abandoned_temporaries
from ..results.layout import failures_path
from .run import Outcome


def remove_partial_reports(root: Path, unnamed_after: float) -> None:
    """Delete the ``failures.json`` temporaries of dead writers in ``root``.

    A live run's temporary, about to be renamed, is never touched; one of another host, or one
    that names no writer, only once older than ``unnamed_after`` seconds.
    """
    remove_abandoned_temporaries(failures_path(root), unnamed_after)


def write_failures(root: Path, outcomes: list[Outcome]) -> Path | None:
    """Write ``<root>/failures.json`` naming each failed or interrupted task; remove a stale one if
    there is none."""
    path = failures_path(root)
    failed = [o for o in outcomes if o.status in ("failed", "interrupted")]
    if not failed:
        path.unlink(missing_ok=True)
        return None
    return atomic_write_json(path, {"failed": [
        {"task": o.task.key, "status": o.status, "method": o.task.method, "dataset": o.task.dataset, "fold": o.task.fold,
         "error_type": o.error_type, "message": o.message} for o in failed]})
