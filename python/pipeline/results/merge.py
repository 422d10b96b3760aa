"""Merge results folders made elsewhere (another machine, another cluster job) into one.

A *task* is everything one (method folder, dataset, fold) wrote: its scores, ranking, ranking
record, time, metrics files, tuning record and tuning candidates; the all-features reference of a
(dataset, fold) is a task of the folder ``_reference``. Before anything is copied, every folder's
metrics files must share their settings (grid and ML-kNN, per grid) and every (dataset, fold) must
have been scored on the same fold file (its ``fold_sha256``): results of other settings or other
folds are refused, never mixed.

A task found in the target and a source is the *same* when its ranking and every metric value
agree (timings and provenance may differ); its files the target lacks (another grid) are then
copied. Otherwise it is a *conflict*: ``refuse`` reports every conflict and copies nothing;
``keep-newest`` keeps the task whose metrics files were written last (by modification time, which
:func:`merge_folders` keeps when it copies; copy folders with ``rsync -a`` or ``cp -p``);
``keep-both`` copies the incoming task under ``<FOLDER>__merged_<i>`` (``i`` the source's position),
which the tables show as a method of its own. Each file is copied to a temporary name and renamed;
the metrics files of a task come last, so a merge killed midway leaves tasks that a rerun of the
merge (or of the run) completes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from ..errors import ConfigError, DataError
from ..documents import read_result_file
from ..fileio import atomic_write_chunks, atomic_write_text, dumps_json, open_regular_file
from .digest import DIGEST_FIELD, with_digest
from .layout import ALL_FEATURES_SUFFIX, METRICS_SUFFIXES, RUN_HISTORY_FOLDER, TASK_SUFFIXES, task_file_pattern, variant_folder
from .schema import AllFeaturesFile, read_all_features_file, read_metrics_file, settings_key

POLICIES = ("refuse", "keep-newest", "keep-both")
_TASK_FILE = task_file_pattern()
_CHUNK = 1 << 20


@dataclass
class Task:
    """One task's files in one results folder, by their path relative to it."""

    root: Path
    folder: str
    dataset: str
    fold: int
    files: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.folder}/{self.dataset}/fold{self.fold}"

    def ordered_files(self) -> list[str]:
        """The files with the metrics files last (a task is complete once they are there)."""
        return sorted(self.files, key=lambda name: (name.endswith(METRICS_SUFFIXES), name))

    def metrics_files(self) -> list[str]:
        return [name for name in self.files if name.endswith(METRICS_SUFFIXES)]

    def written_at(self) -> float:
        return max((os.stat(self.root / name).st_mtime for name in self.metrics_files()), default=0.0)


@dataclass
class MergeReport:
    copied: list[str] = field(default_factory=list)
    same: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    kept_both: list[str] = field(default_factory=list)
    conflicts: list[tuple[str, Path, str]] = field(default_factory=list)
    unmerged: bool = False

    def summary(self) -> str:
        state = "nothing copied: conflicts" if self.unmerged else "merged"
        return (f"{state}: {len(self.copied)} task(s) copied, {len(self.same)} already there with the same results, "
                f"{len(self.replaced)} replaced by a newer one, {len(self.kept_both)} kept beside the target's, "
                f"{len(self.conflicts)} conflict(s)")

    def conflict_lines(self) -> list[str]:
        return [f"conflict {key}: {source} differs from the target ({why})" for key, source, why in self.conflicts]


def merge_folders(sources: Sequence[str | Path], target: str | Path, policy: str = "refuse") -> MergeReport:
    """Merge the tasks of the results folders ``sources`` into ``target`` (created if absent)."""
    if policy not in POLICIES:
        raise ConfigError("unknown conflict policy", field="--on-conflict", expected=" or ".join(POLICIES), found=policy)
    target = Path(target)
    roots = [_source_folder(source, target) for source in sources]
    found = [_tasks(root) for root in roots]
    existing = _tasks(target) if target.is_dir() else {}
    _check_compatible([existing, *found], [target, *roots])
    report = MergeReport()
    plan = _plan(existing, found, policy, report)
    if report.conflicts and policy == "refuse":
        report.unmerged = True
        return report
    for task, folder, replaced in plan:
        _copy_task(task, target, folder, replaced)
    for root in roots:
        _copy_run_history(root, target)
    return report


def _source_folder(source: str | Path, target: Path) -> Path:
    root = Path(source)
    if not root.is_dir():
        raise ConfigError("results folder to merge not found", file=root)
    if target.exists() and root.resolve() == target.resolve():
        raise ConfigError("a folder cannot be merged into itself", file=root, field="--into")
    return root


def _tasks(root: Path) -> dict[tuple[str, str, int], Task]:
    """Every task of the results folder ``root``: method folders and the all-features reference;
    claims and temporaries (names starting with ``.``) are not results and stay behind."""
    tasks: dict[tuple[str, str, int], Task] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name != RUN_HISTORY_FOLDER
                         and not p.name.startswith(".")):
        for path in sorted(folder.iterdir()):
            match = _TASK_FILE.fullmatch(path.name)
            if match is None or path.name.startswith("."):
                continue
            key = (folder.name, match["dataset"], int(match["fold"]))
            task = tasks.setdefault(key, Task(root, *key))
            if path.is_dir():
                task.files += [str(p.relative_to(root)) for p in sorted(path.iterdir())
                               if p.is_file() and not p.name.startswith(".")]
            else:
                task.files.append(str(path.relative_to(root)))
    return tasks


def _check_compatible(task_sets: list[dict], roots: list[Path]) -> None:
    """Every metrics file shares its grid's settings, and each (dataset, fold) one fold file."""
    settings: dict[str, tuple[str, Path]] = {}
    folds: dict[tuple[str, int], tuple[str, Path]] = {}
    for tasks in task_sets:
        for task in tasks.values():
            for name in task.metrics_files():
                path = task.root / name
                record = _read_values_file(path)
                if not isinstance(record, AllFeaturesFile):
                    _check_same(settings, record.grid_mode, settings_key(record), path, "settings (grid and ML-kNN)")
                digest = record.provenance.fold_sha256 if record.provenance is not None else None
                if digest is not None:
                    _check_same(folds, (task.dataset, task.fold), digest, path, "fold file (fold_sha256)")


def _check_same(seen: dict, key, value: str, path: Path, what: str) -> None:
    first = seen.setdefault(key, (value, path))
    if first[0] != value:
        raise DataError(f"results made with another {what} than {first[1]}: merging them would mix them",
                        file=path, expected=first[0], found=value)


def _plan(existing: dict, found: list[dict], policy: str, report: MergeReport) -> list[tuple[Task, str, Task | None]]:
    """(task, target folder, task it replaces) per task to copy; conflicts and the same go to ``report``."""
    plan = []
    held = dict(existing)
    for position, tasks in enumerate(found, start=1):
        for key, task in tasks.items():
            mine = held.get(key)
            why = None if mine is None else _difference(mine, task)
            if mine is None:
                report.copied.append(task.key)
                plan.append((task, task.folder, None))
                held[key] = task
            elif why is None:
                report.same.append(task.key)
                missing = Task(task.root, *key, files=[n for n in task.files if Path(n).name not in _names(mine)])
                if missing.files:
                    plan.append((missing, task.folder, None))
            else:
                report.conflicts.append((task.key, task.root, why))
                if policy == "keep-newest" and task.written_at() > mine.written_at():
                    report.replaced.append(task.key)
                    plan.append((task, task.folder, mine))
                    held[key] = task
                elif policy == "keep-both":
                    folder = variant_folder(task.folder, [("merged", position)])
                    report.kept_both.append(f"{task.key} -> {folder}")
                    plan.append((task, folder, None))
    return plan


def _names(task: Task) -> set[str]:
    return {Path(name).name for name in task.files}


def _difference(mine: Task, theirs: Task) -> str | None:
    """Why two copies of a task hold different results, None if their ranking and values agree."""
    ranking = TASK_SUFFIXES["ranking"]
    mine_ranking = [n for n in mine.files if n.endswith(ranking)]
    theirs_ranking = [n for n in theirs.files if n.endswith(ranking)]
    if mine_ranking and theirs_ranking and _bytes(mine.root / mine_ranking[0]) != _bytes(theirs.root / theirs_ranking[0]):
        return "another ranking"
    theirs_metrics = {Path(n).name: n for n in theirs.metrics_files()}
    for name in mine.metrics_files():
        other = theirs_metrics.get(Path(name).name)
        if other is not None and _values(mine.root / name) != _values(theirs.root / other):
            return f"other values in {Path(name).name}"
    return None


def _values(path: Path) -> dict:
    """What a metrics or reference file says about the results, without timings and provenance."""
    record = _read_values_file(path)
    if isinstance(record, AllFeaturesFile):
        return dict(record.metrics)
    return {"axis": record.axis, **{key: value for key, value in record.model_dump().items()
                                   if isinstance(value, list) and key not in ("k_values", "p_values")}}


def _read_values_file(path: Path):
    """A metrics file or an all-features reference, validated by its schema."""
    if path.name.endswith(ALL_FEATURES_SUFFIX):
        return read_all_features_file(path)
    return read_metrics_file(path)


def _bytes(path: Path) -> bytes:
    return b"".join(_chunks(path))


def _chunks(path: Path) -> Iterator[bytes]:
    with open_regular_file(path, "result file", None, DataError) as handle:
        while chunk := handle.read(_CHUNK):
            yield chunk


def _copy_task(task: Task, target: Path, folder: str, replaced: Task | None) -> None:
    for name in task.ordered_files():
        relative = Path(name)
        destination = target / folder / relative.relative_to(task.folder)
        if folder != task.folder and relative.suffix == ".json":
            _write_renamed(task.root / relative, destination, task.folder, folder)
        else:
            atomic_write_chunks(destination, _chunks(task.root / relative))
        stat = os.stat(task.root / relative)
        os.utime(destination, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # keep-newest compares these later
    if replaced is not None:  # the replaced copy's files the incoming task does not have would mix two runs
        incoming = _names(task)
        for name in replaced.files:
            if Path(name).name not in incoming:
                (target / name).unlink(missing_ok=True)


def _write_renamed(source: Path, destination: Path, method: str, folder: str) -> None:
    """A record of a task kept beside the target's under another folder: it names that folder as
    its method (the tables check a file names the folder it is in), with its digest made again."""
    record = read_result_file(source, "result file")
    if isinstance(record, dict) and record.get("method") == method:
        renamed = {key: value for key, value in record.items() if key != DIGEST_FIELD} | {"method": folder}
        atomic_write_text(destination, dumps_json(with_digest(renamed) if DIGEST_FIELD in record else renamed))
    else:
        atomic_write_chunks(destination, _chunks(source))


def _copy_run_history(root: Path, target: Path) -> None:
    """The run records (unique names: time, host, process) travel with their results."""
    history = root / RUN_HISTORY_FOLDER
    if not history.is_dir():
        return
    for path in sorted(history.iterdir()):
        destination = target / RUN_HISTORY_FOLDER / path.name
        if path.is_file() and not path.name.startswith(".") and not destination.exists():
            atomic_write_chunks(destination, _chunks(path))
