"""Expensive set-up made once per test session and shared by every xdist worker.

A module-scoped fixture runs once per worker that runs a test of its module: with ``--dist
worksteal`` the tests of one module often land on both workers, and a wheel build, a virtual
environment or a reference run was then made twice. :func:`made_once` makes it in the session's
temporary folder, which the workers share, under a file lock: the first worker to ask makes it,
the others wait for it and reuse it. A uniquely named module (not a conftest), so that
tests/shared/test_session_cache.py can import it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path
from typing import Callable

#: Written into a folder once ``make`` returned: a folder without it was left by a ``make`` that failed.
MADE_MARK = ".made"


def session_folder(tmp_path_factory) -> Path:
    """The temporary folder of the whole session: an xdist worker's own folder
    (``pytest-N/popen-gw0``) is one of its children; without xdist it is the session's folder itself."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name`` of the session's temporary folder, filled by ``make(folder)`` the first
    time any worker asks for it. A ``make`` that raises leaves no folder behind: the error reaches
    the test that asked, and the next request makes it again."""
    root = session_folder(tmp_path_factory)
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if make raises
        if not (folder / MADE_MARK).is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            try:
                make(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            (folder / MADE_MARK).touch()
    return folder
