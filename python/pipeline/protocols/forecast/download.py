"""``download_eval_datasets``: fetch benchmark datasets once, into the local Arrow layout.

Sources (the only places this package ever reads data from outside the datasets root):

* ``hub`` (default, needs internet): the task's ``hf_repo`` on the Hugging Face Hub, files
  ``<name>/*`` via ``huggingface_hub.snapshot_download``; a network failure ends in one line;
* ``--source-dir MIRROR``: a local copy with the same layout (``MIRROR/<name>/*``);
* ``--staged-dir DIR``: the raw M4 hourly / exchange_rate / NN5 files (see :mod:`.convert`).

A fetched folder of ``*.arrow`` files (GIFT-Eval's storage) is copied after a read check; a folder
of ``*.parquet`` files (Chronos and fev datasets) becomes ``<root>/<name>/data-00000-of-00001.arrow``
(Arrow IPC stream). Datasets already present are kept unless ``--overwrite``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable, Iterable

from ...errors import DataError
from ...fileio import atomic_write_bytes
from .arrow_data import read_table, table_to_ipc_stream
from .benchmarks import TaskSpec
from .convert import STAGED_READERS, convert_staged
from .data import dataset_location, inside_root, validate_dataset_name
from .limits import DEFAULT_LIMITS, Limits

Fetcher = Callable[[str, str, Path], Path]
Log = Callable[[str], None]


def fetch_from_hub(hf_repo: str, name: str, workdir: Path) -> Path:
    """Download ``<name>/*`` of dataset repo ``hf_repo``; return the folder holding the files."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:  # pragma: no cover - huggingface_hub ships with transformers
        raise DataError("downloading from the Hub needs the 'huggingface_hub' package") from exc
    try:
        local = snapshot_download(repo_id=hf_repo, repo_type="dataset", allow_patterns=[f"{name}/*"],
                                  local_dir=str(workdir))
    except OSError as exc:  # offline, refused, not found: every huggingface_hub network error is an OSError
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"download failed ({type(exc).__name__}: {first_line})", field=f"{hf_repo}/{name}",
                        expected="network access to the Hugging Face Hub, or --source-dir / --staged-dir") from exc
    return Path(local) / name


def mirror_fetcher(source_dir: str | Path) -> Fetcher:
    """A fetcher reading ``<source_dir>/<name>/`` (a local mirror of the Hub layout)."""
    def fetch(hf_repo: str, name: str, workdir: Path) -> Path:
        return Path(source_dir) / name
    return fetch


def store_fetched(folder: Path, name: str, root: Path, limits: Limits = DEFAULT_LIMITS) -> Path:
    """Store the fetched ``*.arrow`` or ``*.parquet`` files of ``folder`` as ``<root>/<name>/``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = sorted(folder.glob("*.arrow")) if folder.is_dir() else []
    parquet = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    if arrow:
        table = read_table(arrow, limits)
    elif parquet:
        table = pa.concat_tables([pq.read_table(f) for f in parquet])
    else:
        raise DataError("no Arrow or parquet files for dataset", file=folder, field=name,
                        expected="<name>/*.arrow or <name>/*.parquet")
    return atomic_write_bytes(root / name / "data-00000-of-00001.arrow", table_to_ipc_stream(table))


def unique_tasks(tasks: Iterable[TaskSpec]) -> list[TaskSpec]:
    """One task per dataset name, in first-seen order."""
    seen: dict[str, TaskSpec] = {}
    for task in tasks:
        seen.setdefault(validate_dataset_name(task.name), task)
    return list(seen.values())


def plan_lines(tasks: Iterable[TaskSpec], root: Path) -> list[str]:
    """``[EXISTS]`` / ``[MISSING] hf_repo/name -> <root>/<name>`` for each dataset (``--dry-run``)."""
    return [f"[{'EXISTS' if dataset_location(root, task.name) is not None else 'MISSING'}] "
            f"{task.hf_repo}/{task.name} -> {root / task.name}" for task in unique_tasks(tasks)]


def download_datasets(tasks: Iterable[TaskSpec], root: str | Path, *, fetch: Fetcher = fetch_from_hub,
                      overwrite: bool = False, log: Log = print, limits: Limits = DEFAULT_LIMITS) -> list[Path]:
    """Bring every task's dataset into ``root``; datasets already present are kept unless ``overwrite``."""
    root = Path(root)
    written = []
    for task in unique_tasks(tasks):
        inside_root(root, root / task.name)  # never write through a link that leaves the root
        if dataset_location(root, task.name) is not None and not overwrite:
            log(f"{task.name}: already present, kept")
            continue
        with tempfile.TemporaryDirectory() as workdir:
            path = store_fetched(fetch(task.hf_repo, task.name, Path(workdir)), task.name, root, limits)
        log(f"{task.name}: {path.stat().st_size / 1e6:.1f} MB from {task.hf_repo}")
        written.append(path)
    return written


def convert_staged_tasks(tasks: Iterable[TaskSpec], staged_dir: str | Path, root: str | Path,
                         log: Log = print) -> list[Path]:
    """Convert the staged raw files for those tasks that have a converter; others are listed."""
    written = []
    for task in unique_tasks(tasks):
        if task.name not in STAGED_READERS:
            log(f"{task.name}: no staged converter, skipped")
            continue
        written += convert_staged(staged_dir, root, [task.name])
        log(f"{task.name}: converted from {Path(staged_dir) / STAGED_READERS[task.name][0]}")
    return written
