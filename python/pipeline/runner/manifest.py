"""Run manifests (``config.json``) and failure reports (``failures.json``)."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from ..fileio import atomic_write_json, remove_abandoned_temporaries
from .run import Outcome

_PACKAGES = ("numpy", "scipy", "scikit-learn", "scikit-multilearn", "oct2py", "pandas", "jinja2")


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version(), "mlfs-bench": _version("mlfs-bench")}
    versions.update({name: _version(name) for name in _PACKAGES})
    return versions


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def git_commit(repo: Path | None = None) -> str | None:
    """The commit of the checkout the code runs from (None outside git)."""
    cwd = repo or Path(__file__).resolve().parents[3]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def remove_partial_reports(root: Path, unnamed_after: float) -> None:
    """Delete the ``config.json`` / ``failures.json`` temporaries of dead writers in ``root``.

    A live run's temporary, about to be renamed, is never touched; one of another host, or one
    that names no writer, only once older than ``unnamed_after`` seconds.
    """
    for name in ("config.json", "failures.json"):
        remove_abandoned_temporaries(root / name, unnamed_after)


def write_manifest(root: Path, arguments: dict, started: str, finished: str | None,
                   summary: dict | None = None) -> Path:
    """Write ``<root>/config.json``: arguments, versions, git commit, start and end times."""
    return atomic_write_json(root / "config.json", {
        "command": [Path(sys.argv[0]).name, *sys.argv[1:]],
        "arguments": arguments,
        "versions": package_versions(),
        "git_commit": git_commit(),
        "started": started,
        "finished": finished,
        "summary": summary,
    })


def write_failures(root: Path, outcomes: list[Outcome]) -> Path | None:
    """Write ``<root>/failures.json`` naming each failed or interrupted task; remove a stale one if
    there is none."""
    path = root / "failures.json"
    failed = [o for o in outcomes if o.status in ("failed", "interrupted")]
    if not failed:
        path.unlink(missing_ok=True)
        return None
    return atomic_write_json(path, {"failed": [
        {"task": o.task.key, "status": o.status, "method": o.task.method, "dataset": o.task.dataset, "fold": o.task.fold,
         "error_type": o.error_type, "message": o.message} for o in failed]})
