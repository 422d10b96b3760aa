"""``download_eval_datasets``: fetch benchmark datasets once, into the local Arrow layout.

Sources (the only places this package ever reads data from outside the datasets root):

* ``hub`` (default, needs internet): the benchmark task's ``hf_repo`` on the Hugging Face Hub,
  files ``<name>/*.parquet`` via ``huggingface_hub.snapshot_download``;
* ``--source-dir MIRROR``: a local copy with the same layout (``MIRROR/<name>/*.parquet``);
* ``--staged-dir DIR``: the raw M4 hourly / exchange_rate / NN5 files (see :mod:`.convert`).

Every dataset ends up as ``<root>/<name>/data-00000-of-00001.arrow`` (Arrow IPC stream).
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from pipeline.errors import DataError
from pipeline.fileio import atomic_write_bytes

from .benchmarks import TaskSpec
from .convert import STAGED_READERS
from .data import dataset_location, validate_dataset_name, write_arrow_dataset

Fetcher = Callable[[str, str, Path], Path]


def fetch_from_hub(hf_repo: str, name: str, workdir: Path) -> Path:
    """Download ``<name>/*.parquet`` of dataset repo ``hf_repo``; return the folder holding them."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:  # pragma: no cover - huggingface_hub ships with transformers
        raise DataError("downloading from the Hub needs the 'huggingface_hub' package") from exc
    local = snapshot_download(repo_id=hf_repo, repo_type="dataset", allow_patterns=[f"{name}/*"],
                              local_dir=str(workdir))
    return Path(local) / name


def mirror_fetcher(source_dir: str | Path) -> Fetcher:
    """A fetcher reading ``<source_dir>/<name>/*.parquet`` (a local mirror of the Hub layout)."""
    def fetch(hf_repo: str, name: str, workdir: Path) -> Path:
        return Path(source_dir) / name
    return fetch


def parquet_to_arrow(folder: Path, name: str, root: Path) -> Path:
    """Concatenate ``folder/*.parquet`` into ``<root>/<name>/data-00000-of-00001.arrow``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    if not files:
        raise DataError("no parquet files for dataset", file=folder, field=name, expected="<name>/*.parquet")
    table = pa.concat_tables([pq.read_table(f) for f in files])
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return atomic_write_bytes(root / name / "data-00000-of-00001.arrow", sink.getvalue())


def download_datasets(tasks: Iterable[TaskSpec], root: str | Path, *, fetch: Fetcher = fetch_from_hub,
                      overwrite: bool = False, log: Callable[[str], None] = print) -> list[Path]:
    """Bring every task's dataset into ``root``; datasets already present are kept unless ``overwrite``."""
    root = Path(root)
    written, seen = [], set()
    for task in tasks:
        if task.name in seen:
            continue
        seen.add(task.name)
        validate_dataset_name(task.name)
        if dataset_location(root, task.name) is not None and not overwrite:
            log(f"{task.name}: already present, kept")
            continue
        with tempfile.TemporaryDirectory() as workdir:
            folder = fetch(task.hf_repo, task.name, Path(workdir))
            path = parquet_to_arrow(folder, task.name, root)
        log(f"{task.name}: {path.stat().st_size / 1e6:.1f} MB from {task.hf_repo}")
        written.append(path)
    return written


def convert_staged_tasks(tasks: Iterable[TaskSpec], staged_dir: str | Path, root: str | Path,
                         log: Callable[[str], None] = print) -> list[Path]:
    """Convert the staged raw files for those tasks that have a converter; others are listed."""
    written = []
    for task in tasks:
        if task.name not in STAGED_READERS:
            log(f"{task.name}: no staged converter, skipped")
            continue
        subfolder, reader = STAGED_READERS[task.name]
        path = write_arrow_dataset(reader(Path(staged_dir) / subfolder), root)
        log(f"{task.name}: converted from {Path(staged_dir) / subfolder}")
        written.append(path)
    return written
