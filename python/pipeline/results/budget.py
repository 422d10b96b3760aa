"""Out-of-budget records: ``<root>/<FOLDER>/<DATASET>_fold<i>_out_of_budget.json``, one per task that
was stopped at its memory or time budget (docs/reliability.md, "Per-task budgets").

A run writes the record when the task runs out of budget and removes it when the task later
finishes; a resumed run does not run the task again under a budget no larger than the one it ran
out of, and the tables mark its cells instead of leaving a hole. Fields: ``task``, ``budget``
(``memory`` or ``time``), ``limit`` (bytes each process may grow by, or seconds), ``seconds`` and
``peak_memory_bytes`` (what the task used until it was stopped), ``message``.
"""

from __future__ import annotations

from pathlib import Path

from ..documents import read_result_file
from ..errors import DataError
from ..fileio import atomic_write_json
from ..limits import format_memory_size
from .layout import out_of_budget_path

BUDGET_RECORD_FIELDS = ("task", "budget", "limit", "seconds", "peak_memory_bytes", "message")
#: The kinds of budget a task can run out of (an out-of-budget outcome's and record's ``budget``).
BUDGET_KINDS = ("memory", "time")


def describe_budget(kind: str, limit: float) -> str:
    """A budget as the reports name it: ``time budget of 1800 s``, ``memory budget of 8 GiB per process``."""
    if kind == "time":
        return f"time budget of {limit:g} s"
    return f"memory budget of {format_memory_size(limit)} per process"


def write_budget_record(root: str | Path, folder: str, dataset: str, fold: int, record: dict) -> Path:
    """Write the out-of-budget record of task ``folder/dataset/fold`` (``record``: the fields above)."""
    return atomic_write_json(out_of_budget_path(root, folder, dataset, fold),
                             {name: record[name] for name in BUDGET_RECORD_FIELDS})


def remove_budget_record(root: str | Path, folder: str, dataset: str, fold: int) -> None:
    """Remove the record of a task that has now finished (none: nothing to do)."""
    out_of_budget_path(root, folder, dataset, fold).unlink(missing_ok=True)


def read_budget_record(root: str | Path, folder: str, dataset: str, fold: int) -> dict | None:
    """The out-of-budget record of task ``folder/dataset/fold``, or None when it has none.

    Raises
    ------
    DataError
        When the record exists but is not one (unreadable, or a field missing or of another kind).
    """
    path = out_of_budget_path(root, folder, dataset, fold)
    if not path.is_file():
        return None
    record = read_result_file(path, "out-of-budget record")
    if (not isinstance(record, dict) or set(record) != set(BUDGET_RECORD_FIELDS)
            or record["budget"] not in BUDGET_KINDS
            or not isinstance(record["limit"], (int, float)) or isinstance(record["limit"], bool)):
        raise DataError("not an out-of-budget record", file=path, expected=f"the keys {list(BUDGET_RECORD_FIELDS)} "
                        "with budget 'memory' or 'time' and a numeric limit")
    return record
