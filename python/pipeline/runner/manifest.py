"""Failure reports (``failures.json``) of a run; the run records themselves are in :mod:`.history`."""

from __future__ import annotations

from pathlib import Path

from ..fileio import atomic_write_json
from .run import Outcome


def remove_partial_reports(root: Path) -> None:
    """Delete ``failures.json`` temporaries a killed run left in ``root``."""
    for name in ("failures.json",):
        for partial in root.glob(f".{name}.*.tmp"):
            partial.unlink(missing_ok=True)


def write_failures(root: Path, outcomes: list[Outcome]) -> Path | None:
    """Write ``<root>/failures.json`` naming each failed task; remove a stale one if none failed."""
    path = root / "failures.json"
    failed = [o for o in outcomes if o.status in ("failed", "locked")]
    if not failed:
        path.unlink(missing_ok=True)
        return None
    return atomic_write_json(path, {"failed": [
        {"task": o.task.key, "status": o.status, "method": o.task.method, "dataset": o.task.dataset, "fold": o.task.fold,
         "error_type": o.error_type, "message": o.message} for o in failed]})
