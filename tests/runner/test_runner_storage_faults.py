"""File-system and start-up faults end with exit 2 and one line naming the path and the reason.

A full disk is a real small tmpfs (the tests run as root); where mounting is refused, ENOSPC is
injected at the write call instead. A fault at start writes nothing; a fault inside a task fails
that task with its reason and stops the run cleanly, leaving nothing partial under a final name.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from runner_helpers import make_fold_dir, summary_counts
from pipeline import fileio, kgrid
from pipeline.cli import run_main

BASE = ["--engine", "python", "--no-progress"]
PAGE = 4096


class SmallDisk:
    """A folder with room for ``free`` bytes (a multiple of the page size, 0 for a full disk): a
    tmpfs of that size, or ENOSPC injected at the write call. ``read_only`` mounts it read-only
    instead (or injects EROFS)."""

    def __init__(self, root: Path, monkeypatch, free: int, read_only: bool = False):
        self.path = root / "disk"
        self.path.mkdir()
        # tmpfs takes size=0 for "unlimited": one more page, filled below, makes any room exact
        options = f"size={free + PAGE}" + (",ro" if read_only else "")
        try:
            mount = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(self.path)],
                                   capture_output=True)
            self.mounted = mount.returncode == 0
        except OSError:  # no mount command
            self.mounted = False
        if self.mounted and not read_only:
            (self.path / ".filler").write_bytes(b"x" * PAGE)
        if not self.mounted:
            self._inject(monkeypatch, free, errno.EROFS if read_only else errno.ENOSPC)

    def _inject(self, monkeypatch, free: int, code: int) -> None:
        budget = [0 if code == errno.EROFS else free]
        write_durably = fileio.write_durably

        def limited(handle, data: bytes) -> None:
            pages = -(-len(data) // PAGE) * PAGE  # what the file takes on tmpfs (never given back here)
            if pages > budget[0]:
                raise OSError(code, os.strerror(code))
            budget[0] -= pages
            write_durably(handle, data)

        monkeypatch.setattr(fileio, "write_durably", limited)

    def unmount(self) -> None:
        if self.mounted:
            subprocess.run(["umount", str(self.path)], check=True)


@pytest.fixture
def small_disk(tmp_path, monkeypatch):
    disks = []

    def make(free: int, read_only: bool = False) -> SmallDisk:
        disks.append(SmallDisk(tmp_path, monkeypatch, free, read_only))
        return disks[-1]

    yield make
    for disk in disks:
        disk.unmount()


def _run(folds: Path, results: Path, *extra: str) -> int:
    return run_main(kgrid.main, [*BASE, "--data-dir", str(folds), "--results-dir", str(results),
                                 "--methods", "VARIANCE", *extra])


def _one_error_line(err: str, *needles: str) -> None:
    (line,) = [line for line in err.splitlines() if line.startswith("error: ")]
    assert all(needle in line for needle in needles), line
    assert "Traceback" not in err


def test_full_disk_at_start_exits_2_and_writes_nothing(tmp_path, small_disk, capsys):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    disk = small_disk(0)
    results = disk.path / "res"
    assert _run(folds, results) == 2
    _one_error_line(capsys.readouterr().err, str(results / "runs"), "cannot write: No space left on device")
    assert not [p for p in results.rglob("*") if p.is_file()]


def test_disk_filling_up_mid_run_fails_that_task_and_stops_cleanly(tmp_path, small_disk, capsys):
    folds = make_fold_dir(tmp_path / "folds", n_folds=8)
    disk = small_disk(9 * PAGE)  # room for the manifest and a task or two, not for eight
    results = disk.path / "res"
    code = _run(folds, results)
    err = capsys.readouterr().err
    assert code == 2, err
    counts = summary_counts(err)
    assert counts["failed"] == 1 and counts["interrupted"] > 0
    assert counts["done"] + counts["failed"] + counts["interrupted"] == 16  # 8 folds x (VARIANCE + reference)
    failed = [line for line in err.splitlines() if line.startswith("FAILED ")]
    assert len(failed) == 1 and "cannot write: No space left on device" in failed[0]
    assert "stopped after a storage fault" in err and "fix it, then resume with --skip-existing" in err
    assert "Traceback" not in err
    for path in results.rglob("*_metrics.json"):  # nothing partial under a final name
        json.loads(path.read_text())
    for path in results.rglob("*_ranking.csv"):
        assert path.read_text().endswith("\n")
    assert not [p for p in results.rglob("*") if p.name.endswith((".tmp", ".claim"))]


def test_read_only_results_folder(tmp_path, small_disk, capsys):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    disk = small_disk(0, read_only=True)
    assert _run(folds, disk.path) == 2
    _one_error_line(capsys.readouterr().err, str(disk.path / "runs"), "Read-only file system")
    if disk.mounted:  # a folder that cannot be created there either
        assert _run(folds, disk.path / "res") == 2
        _one_error_line(capsys.readouterr().err, str(disk.path / "res"),
                        "cannot create results directory: Read-only file system")


@pytest.mark.parametrize("layout,reason", [
    ("below a file", "cannot create results directory: Not a directory"),
    ("symlink loop", "cannot create results directory: Too many levels of symbolic links"),
    ("a file", "cannot create results directory: a file of that name exists"),
])
def test_unusable_results_path_exits_2_with_the_reason(tmp_path, capsys, layout, reason):
    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop").symlink_to("loop")
    results = {"below a file": tmp_path / "file" / "res", "symlink loop": tmp_path / "loop" / "res",
               "a file": tmp_path / "file"}[layout]
    assert _run(folds, results) == 2
    _one_error_line(capsys.readouterr().err, str(results), reason)


def test_method_folder_that_cannot_be_created_fails_its_task_and_stops(tmp_path, capsys):
    folds = make_fold_dir(tmp_path / "folds", n_folds=3)
    results = tmp_path / "res"
    results.mkdir()
    (results / "VARIANCE").write_text("not a folder")
    assert _run(folds, results) == 2
    err = capsys.readouterr().err
    # the other VARIANCE folds and the 3 all-features references are interrupted
    assert summary_counts(err) == {"done": 0, "skipped": 0, "done elsewhere": 0, "failed": 1, "interrupted": 5}
    assert f"{results / 'VARIANCE'}: cannot create method folder: a file of that name exists" in err
    failures = json.loads((results / "failures.json").read_text())["failed"]
    assert [f["error_type"] for f in failures] == ["StorageError"] + ["Interrupted"] * 5
    (record,) = (results / "runs").glob("*.json")
    assert json.loads(record.read_text())["finished"]


def test_unreachable_dask_scheduler_exits_2_before_writing(tmp_path, capsys):
    import dask
    import distributed  # noqa: F401  its defaults first: a config.set made before would drop them on exit

    folds = make_fold_dir(tmp_path / "folds", n_folds=1)
    results = tmp_path / "res"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert _run(folds, results, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9") == 2
    _one_error_line(capsys.readouterr().err, "field '--scheduler': cannot reach the Dask scheduler",
                    "found tcp://127.0.0.1:9")
    assert not (results / "runs").exists()
