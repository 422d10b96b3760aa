"""The run history of a results folder: one record and one log file per run, never overwritten.

``RESULTS_DIR/runs/<RUN_ID>.json`` holds the command, its arguments, package versions, the git
commit and whether the tree was dirty, the start and end times, the summary (counts per status,
why tasks were recomputed) and timings; ``RESULTS_DIR/runs/<RUN_ID>.log`` holds one line per task
and everything the engines said (e.g. Octave's own messages), which is kept off the terminal.
``RUN_ID`` is ``<UTC start, YYYYMMDDTHHMMSS.mmmZ>_<host>_<pid>`` (with ``-2``, ``-3``, ... if a run
of the same process started in the same millisecond), so no two runs share a file.
The MATLAB/Octave front door writes the same records (``mlfs_run_many.m``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import hashlib
import logging
import os
import platform
import socket
import sys
from importlib import metadata
from pathlib import Path

from ..errors import ConfigError
from ..fileio import atomic_write_json, ensure_directory
from ..locations import PACKAGE_DIR, matlab_dir
from ..names import validate_name
from ..results.layout import RUN_HISTORY_FOLDER
from .fingerprint import git_state

_PACKAGES = ("numpy", "scipy", "scikit-learn", "scikit-multilearn", "oct2py", "pandas", "jinja2", "numba")
#: Environment variables that choose BLAS kernels and threads: with an unstable method (LRDG) they
#: change the numbers, so every run records them (twin list in mlfs_run_history.m).
NUMERICS_ENVIRONMENT = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                        "MKL_CBWR", "NUMBA_NUM_THREADS")
LOGGER_NAME = "pipeline"


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def package_versions() -> dict[str, str | None]:
    return dict(_installed_versions())


@functools.cache  # each lookup scans the installed distributions (7 ms); they do not change while a process runs
def _installed_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version(), "mlfs-bench": package_version("mlfs-bench")}
    versions.update({name: package_version(name) for name in _PACKAGES})
    return versions


def code_identity() -> dict:
    """``git`` (commit, dirty) and, where that does not identify the code (no checkout: an installed
    package; or uncommitted changes), ``package``: the digest of the package's files."""
    git = git_state()
    exact = git["commit"] is not None and git["dirty"] is False
    return {"git": git, "package": None if exact else package_digest()}


def package_digest() -> dict:
    """What identifies the code that ran where git cannot (an installed package): the SHA-256 over
    the package's files (its Python code and data files, and the MATLAB/Octave code it runs), each
    named relative to its folder, so the same code gives the same digest wherever it is installed."""
    digest = hashlib.sha256()
    count = 0
    try:
        code = matlab_dir()
    except ConfigError:  # a copy of the Python package alone: it runs Python methods only
        code = None
    for label, folder in (("pipeline", PACKAGE_DIR), ("matlab", code)):
        if folder is None:
            continue
        for path in sorted(folder.rglob("*")):
            if (not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc"
                    or (folder == PACKAGE_DIR and code is not None and code in path.parents)):
                continue
            digest.update(f"{label}/{path.relative_to(folder).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
            count += 1
    return {"sha256": digest.hexdigest(), "files": count}


def package_version(name: str) -> str | None:
    """Installed version of distribution ``name``, or None when it is not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


class RunHistory:
    """The record and log of one run in ``<results_dir>/runs/``.

    Use ``history.start()`` before the tasks and ``history.finish(summary, ...)`` after them; the
    record is written at both moments (``finished`` is null while the run lasts or if it died).
    """

    def __init__(self, results_dir: str | Path, arguments: dict, *, command: list[str] | None = None):
        started = _dt.datetime.now(_dt.timezone.utc)
        self.folder = Path(results_dir) / RUN_HISTORY_FOLDER
        self.run_id = _unique_id(self.folder, f"{started:%Y%m%dT%H%M%S}.{started.microsecond // 1000:03d}Z_"
                                              f"{_safe_host()}_{os.getpid()}")
        self.record_path = self.folder / f"{self.run_id}.json"
        self.log_path = self.folder / f"{self.run_id}.log"
        self.record = {
            "run_id": self.run_id, "command": command or [Path(sys.argv[0]).name, *sys.argv[1:]],
            "arguments": arguments, "versions": package_versions(), **code_identity(), "host": socket.gethostname(),
            "environment": {key: os.environ.get(key) for key in NUMERICS_ENVIRONMENT},
            "pid": os.getpid(), "started": started.isoformat(timespec="seconds"), "finished": None,
            "summary": None, "log": self.log_path.name,
        }
        self._handler: logging.Handler | None = None

    def start(self, settings=None, **extra) -> "RunHistory":
        """Write the opening record and send the ``pipeline`` loggers' messages to the run's log.

        With the run's ``settings``, a run that uses Octave (engine or evaluator) records Octave's
        version, BLAS and LAPACK under ``versions["octave"]``.
        """
        if settings is not None and "octave" in (settings.engine, settings.evaluator):
            from ..engines.octave import describe_octave

            self.record["versions"]["octave"] = describe_octave()
        ensure_directory(self.folder, "run history folder")
        self.record.update(extra)
        atomic_write_json(self.record_path, self.record)
        self._handler = attach_log(self.log_path)
        return self

    def log(self, line: str) -> None:
        logging.getLogger(LOGGER_NAME).info(line)

    def finish(self, summary: dict, **extra) -> Path:
        """Write the closing record (end time, summary, anything else given) and close the log."""
        self.record.update(finished=now_iso(), summary=summary, **extra)
        if self._handler is not None:
            logging.getLogger(LOGGER_NAME).removeHandler(self._handler)
            self._handler.close()
            self._handler = None
        return atomic_write_json(self.record_path, self.record)


    @contextlib.contextmanager
    def closed_on_error(self):
        """Close the record (``finished`` set, ``summary.aborted`` saying why) if the block ends
        with an exception before :meth:`finish` ran; the exception goes on."""
        try:
            yield self
        except BaseException as exc:
            if self.record["finished"] is None and self.record_path.exists():
                with contextlib.suppress(Exception):
                    self.finish({"aborted": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"})
            raise


def attach_log(path: str | Path) -> logging.Handler:
    """Append every message of the ``pipeline`` loggers to ``path`` (also from worker processes)."""
    handler = logging.FileHandler(path, mode="a", encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    return handler


def _unique_id(folder: Path, base: str) -> str:
    run_id, n = base, 1
    while (folder / f"{run_id}.json").exists():
        n += 1
        run_id = f"{base}-{n}"
    return run_id


def _safe_host() -> str:
    host = "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in socket.gethostname())[:40] or "host"
    return validate_name(host.strip(".-") or "host", "host")
