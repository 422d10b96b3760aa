"""tests/session_cache.py: set-up shared by the xdist workers of a session is made once, whoever
asks first, and a failed attempt leaves nothing that a later one would take for done."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from session_cache import made_once, session_folder


def _factory(base: Path) -> SimpleNamespace:
    return SimpleNamespace(getbasetemp=lambda: base)


def test_the_session_folder_is_shared_by_the_workers_of_one_session_only(tmp_path, monkeypatch):
    worker_base = tmp_path / "pytest-7" / "popen-gw1"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert session_folder(_factory(worker_base)) == tmp_path / "pytest-7"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert session_folder(_factory(tmp_path / "pytest-8")) == tmp_path / "pytest-8"


def test_workers_asking_together_get_one_folder_made_once(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    calls = []

    def make(folder: Path) -> None:
        calls.append(folder)
        time.sleep(0.05)  # long enough for the other askers to reach the lock meanwhile
        (folder / "built.txt").write_text("once")

    folders = []
    askers = [threading.Thread(target=lambda: folders.append(made_once(_factory(tmp_path), "wheel", make)))
              for _ in range(4)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    assert len(calls) == 1 and folders == [tmp_path / "wheel"] * 4
    assert (tmp_path / "wheel" / "built.txt").read_text() == "once"


def test_a_failed_make_leaves_nothing_and_the_next_request_makes_it_again(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)

    def broken(folder: Path) -> None:
        (folder / "half.txt").write_text("partial")
        raise RuntimeError("the build failed")

    with pytest.raises(RuntimeError, match="the build failed"):
        made_once(_factory(tmp_path), "venv", broken)
    assert not (tmp_path / "venv").exists()
    folder = made_once(_factory(tmp_path), "venv", lambda folder: (folder / "whole.txt").write_text("ok"))
    assert sorted(p.name for p in folder.iterdir()) == [".made", "whole.txt"]
