"""Writer-tagged temporaries and scratch folders: only what provably belongs to a dead process
of this host is ever removed; write faults become StorageError naming the file and the reason."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time

import psutil
import pytest

from pipeline import fileio
from pipeline.errors import StorageError
from pipeline.fileio import (Writer, atomic_write_text, process_alive, remove_abandoned_scratch_dirs,
                             remove_abandoned_temporaries, scratch_root, temporary_writer)
from pipeline.names import MAX_NAME_LENGTH
from pipeline.runner.store import ResultStore


def _exited_writer() -> Writer:
    proc = subprocess.run([sys.executable, "-c", "from pipeline.fileio import Writer; print(Writer.current())"],
                          capture_output=True, text=True, check=True)
    return Writer.parse(proc.stdout.strip())


def test_writer_names_this_process_and_tells_the_dead_from_the_living():
    me = Writer.current()
    assert Writer.parse(str(me)) == me and me.pid == os.getpid()
    assert me.started == int(psutil.Process().create_time() * 100)
    assert me.is_dead() is False
    assert _exited_writer().is_dead() is True
    assert Writer(me.pid, me.started - 10_000, me.host).is_dead() is True  # our pid, an older process
    assert Writer(me.pid, me.started, "elsewhere").is_dead() is None  # cannot be checked from here
    for text in ("", "12@h", "x-1@h", "1-2@", "1-2@a/b"):
        assert Writer.parse(text) is None


def test_process_alive_sees_zombies_as_dead():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 60
    while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(child.pid, time.time())
    child.wait()
    assert process_alive(os.getpid(), time.time())


def test_temporaries_name_their_writer_and_vanish_after_the_write(tmp_path):
    target = tmp_path / "a.json"
    atomic_write_text(target, "{}\n")
    assert target.read_text() == "{}\n" and [p.name for p in tmp_path.iterdir()] == ["a.json"]
    assert temporary_writer(tmp_path / f".a.json.{Writer.current()}.k2j4.tmp", "a.json") == Writer.current()
    assert temporary_writer(tmp_path / ".a.json.k2j4.tmp", "a.json") is None
    assert temporary_writer(tmp_path / f".b.json.{Writer.current()}.k2j4.tmp", "a.json") is None


def test_only_abandoned_temporaries_are_removed(tmp_path):
    target = tmp_path / "config.json"
    dead, me = _exited_writer(), Writer.current()
    abandoned = tmp_path / f".config.json.{dead}.aaaa.tmp"
    live = tmp_path / f".config.json.{me}.bbbb.tmp"
    remote = tmp_path / f".config.json.{Writer(1, 1, 'elsewhere')}.cccc.tmp"
    unnamed = tmp_path / ".config.json.dddd.tmp"
    other_file = tmp_path / f".failures.json.{dead}.eeee.tmp"
    for path in (abandoned, live, remote, unnamed, other_file):
        path.write_text("{")
    assert remove_abandoned_temporaries(target) == [abandoned]
    assert remove_abandoned_temporaries(target, unnamed_after=3600) == []
    old = time.time() - 7200
    for path in (remote, unnamed):
        os.utime(path, (old, old))
    assert sorted(remove_abandoned_temporaries(target, unnamed_after=3600)) == sorted([remote, unnamed])
    assert live.exists() and other_file.exists()


def test_scratch_folders_of_dead_processes_are_removed_and_live_ones_kept():
    dead = scratch_root() / f"mlfs.{_exited_writer()}.zz01"
    live = scratch_root() / f"mlfs.{Writer.current()}.zz02"
    foreign = scratch_root() / "mlfs.not-a-writer.zz03"
    try:
        for path in (dead, live, foreign):
            (path / "octave.x").mkdir(parents=True)
        assert dead in remove_abandoned_scratch_dirs()
        assert not dead.exists() and live.is_dir() and foreign.is_dir()
    finally:
        for path in (dead, live, foreign):
            shutil.rmtree(path, ignore_errors=True)


def test_write_faults_are_storage_errors_with_the_reason(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StorageError, match="cannot create folder: Not a directory") as caught:
        atomic_write_text(tmp_path / "file" / "sub" / "a.json", "{}")
    assert str(tmp_path / "file" / "sub") in str(caught.value)
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(StorageError, match="Too many levels of symbolic links"):
        atomic_write_text(tmp_path / "loop" / "a.json", "{}")


def test_any_host_name_gives_writer_tags_that_read_back_and_fit_a_file_name(tmp_path, monkeypatch):
    monkeypatch.setattr(socket, "gethostname", lambda: "build_node " + "x" * 200)
    writer = Writer(os.getpid(), int(psutil.Process().create_time() * 100), fileio.this_host())
    assert Writer.parse(str(writer)) == writer and writer.is_dead() is False  # a live writer is recognised
    monkeypatch.setattr(fileio, "_CURRENT", {os.getpid(): writer})
    files = ResultStore(tmp_path).files("M", "d" * MAX_NAME_LENGTH, 99)
    files.kgrid.parent.mkdir(parents=True)
    atomic_write_text(files.kgrid, "{}")  # its temporary's name stays within 255 bytes
    assert files.kgrid.read_text() == "{}"
