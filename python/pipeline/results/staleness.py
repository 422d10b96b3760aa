"""Whether a result file is still good, and if not, why: the one judgement every record goes through.

:func:`staleness` reads a record with its schema reader and runs the checks of its kind in order;
it returns None (fresh) or the first reason, the text runs, ``status`` and the logs print. The
kinds assemble their checks where their expectations are known: a ranking record and a metrics
file (:mod:`pipeline.runner.freshness`), the all-features reference (:mod:`pipeline.runner.reference`),
a tuning candidate's record (:mod:`pipeline.runner.tuning`), a seed-averaged metrics file
(:mod:`pipeline.paper.seeds`) and the records of what tables and reports were made from
(:func:`stamp_staleness`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from ..data.folds import sha256_file
from ..documents import read_result_file
from ..errors import DataError, PipelineError

#: One check of a record: None when the record passes it, else the reason it is stale.
Check = Callable[[Any], "str | None"]
#: The reason given when a tables or report folder has no record of what it was made from.
NO_STAMP = "missing"


def staleness(path: str | Path, read: Callable[[Path], Any], what: str, missing: str,
              checks: Sequence[Check] = ()) -> str | None:
    """Why the record at ``path`` must be made again, or None if it can be kept.

    Parameters
    ----------
    read : callable
        The record's schema reader (DataError when the file is refused).
    what : str
        The record's name in the reason for an unreadable file (``"metrics file"``).
    missing : str
        The reason when there is no file (``"no metrics yet"``).
    checks : sequence of callables
        Run in order on the record read; the first reason wins.
    """
    path = Path(path)
    if not path.is_file():
        return missing
    try:
        record = read(path)
    except DataError as exc:
        return unreadable(what, exc)
    for check in checks:
        reason = check(record)
        if reason is not None:
            return reason
    return None


def stamp_staleness(path: str | Path, stamp: dict) -> str | None:
    """:func:`staleness` of a folder's record of what it was made from (``.made_from.json``): fresh
    when it equals ``stamp``; :data:`NO_STAMP` when absent."""
    return staleness(path, _json_object, "record of what the folder was made from", NO_STAMP,
                     [lambda recorded: None if recorded == stamp else "its inputs, options or code changed"])


def unreadable(what: str, exc: DataError) -> str:
    """The reason for recomputing a result file its schema refuses (the field, when one is named)."""
    return f"the {what} is partial or unreadable" + (f" ({exc.field})" if exc.field else "")


def code_changed(part: str, recorded: dict | None, current: dict) -> str | None:
    """``"<part> code changed (files)"`` when the recorded code fingerprint differs from the current
    one; when it was hashed under another scheme (before comments and formatting stopped counting),
    the reason says that instead, since every normalised file's hash differs then."""
    changed = changed_files(recorded, current)
    if not changed:
        return None
    if recorded is not None and recorded.get("scheme") != current.get("scheme"):
        return (f"{part} code fingerprint scheme changed (to {current.get('scheme')}: comments, docstrings and "
                "formatting no longer count)")
    return f"{part} code changed ({_some(changed)})"


def evaluator_changed(provenance, evaluator: str, evaluator_code: dict) -> str | None:
    """Why a score made with ``provenance`` is not the current evaluator's (another evaluator, or its code)."""
    if provenance.evaluator != evaluator:
        return f"scored by the {provenance.evaluator} evaluator, this run uses {evaluator}"
    return code_changed("evaluator", provenance.evaluator_code(), evaluator_code)


def changed_files(recorded: dict | None, current: dict) -> list[str]:
    """Paths whose hash differs between two code fingerprints (added, removed or edited), sorted;
    everything when nothing was recorded."""
    def as_map(fingerprint):
        files = (fingerprint or {}).get("files") or []
        return {str(pair[0]): str(pair[1]) for pair in files if isinstance(pair, list) and len(pair) == 2}

    old, new = as_map(recorded), as_map(current)
    return sorted(path for path in old.keys() | new.keys() if old.get(path) != new.get(path))


def sha256_or_none(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except (OSError, DataError):  # missing, unreadable, or not a regular file
        return None


def read_json(path: Path) -> dict | None:
    """A JSON object from ``path``, or None if it is absent or not a readable object."""
    try:
        return _json_object(path)
    except PipelineError:
        return None


def _json_object(path: Path) -> dict:
    value = read_result_file(path, "result file")
    if not isinstance(value, dict):
        raise DataError("the file must hold a JSON object", file=path, found=type(value).__name__)
    return value


def _some(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
