"""Whether a task's existing files can be kept, and if not, why (the reasons runs and ``status`` print).

A ranking is fresh when it is complete (``_time.txt`` written last), its ``_ranking.json`` records
the same parameters, and the code fingerprint recorded there equals the current one of the method
in the engine that will run it. A metrics file is fresh when it is complete, was made with the
same ML-kNN, grid and parameters, from the current ranking file (same SHA-256) and by the current
evaluator code. Each check returns ``None`` (fresh) or a short reason.
"""

from __future__ import annotations

from pathlib import Path

from ..data.folds import sha256_file
from ..documents import read_result_file
from ..errors import ConfigError, DataError, PipelineError
from ..evaluation.metrics import METRICS
from .fingerprint import changed_files
from .store import ResultStore, TaskFiles

# The record schemas (pydantic, about half a second to import) are imported by the functions that
# read records: every command line imports the runner at start.


def ranking_staleness(store: ResultStore, files: TaskFiles, d: int, params: dict, method_code: dict,
                      selected_by: str | None = None) -> str | None:
    """Why the ranking must be (re)computed, or None if it can be reused.

    ``selected_by``: how the parameters were chosen (a tuned method's ``"inner validation"``), which
    the ranking's record must say too.
    """
    from ..result_schema import read_ranking_record

    if not store.has_ranking(files, d):
        return "no ranking yet"
    if not files.ranking_record.is_file():
        return "the ranking has no record of the code that made it"
    try:
        record = read_ranking_record(files.ranking_record)
    except DataError as exc:
        return unreadable("ranking record", exc)
    if record.params != params:
        return "the ranking was made with other parameters"
    if record.selected_by != selected_by:
        return f"the ranking's parameters were not selected by {selected_by or 'the suite'}"
    changed = changed_files(None if record.code is None else record.code.as_dict(), method_code)
    if changed:
        return f"method code changed ({_some(changed)})"
    return None


def metrics_staleness(files: TaskFiles, mode: str, expected: dict, evaluator: str,
                      evaluator_code: dict, *, overwrite: bool, replaced_by: str | None = None) -> str | None:
    """Why one grid's metrics must be (re)computed, or None if the file can be kept.

    ``replaced_by``: the reason to give when the file holds other settings that are meant to be
    replaced (a tuned method whose selection changed) instead of refusing them.

    Raises
    ------
    ConfigError
        If the file was made with other settings (ML-kNN, grid or parameters), ``overwrite`` is off
        and ``replaced_by`` is None: keeping both would mix settings in one results folder.
    """
    from ..result_schema import Provenance, absent_metrics, read_metrics_file

    path = files.metrics(mode)
    if not path.is_file():
        return "no metrics yet"
    try:
        record = read_metrics_file(path, mode)
    except DataError as exc:
        return unreadable("metrics file", exc)
    absent = sorted(absent_metrics(record), key=METRICS.index)
    if absent:
        return f"made before the evaluator computed {', '.join(absent)}"
    if any(record.value(key) != value for key, value in expected.items()):
        if replaced_by is not None:
            return replaced_by
        if not overwrite:
            raise ConfigError("result exists with other settings (ML-kNN, grid or parameters); use --overwrite "
                              "or another results folder", file=path)
        return "other settings (--overwrite)"
    provenance = record.provenance or Provenance()
    if provenance.ranking_sha256 != sha256_or_none(files.ranking):
        return "the ranking changed since it was scored"
    if provenance.evaluator != evaluator:
        return f"scored by the {provenance.evaluator} evaluator, this run uses {evaluator}"
    changed = changed_files(provenance.evaluator_code(), evaluator_code)
    if changed:
        return f"evaluator code changed ({_some(changed)})"
    return None


def unreadable(what: str, exc: DataError) -> str:
    """The reason for recomputing a result file its schema refuses (the field, when one is named)."""
    return f"the {what} is partial or unreadable" + (f" ({exc.field})" if exc.field else "")


def read_json(path: Path) -> dict | None:
    """A JSON object from ``path``, or None if it is absent or not a readable object."""
    try:
        value = read_result_file(path, "result file")
    except PipelineError:
        return None
    return value if isinstance(value, dict) else None


def sha256_or_none(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:
        return None


def _some(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")

