"""Crash-safe file writing, and temporaries that name their writer.

Every result file is written to a temporary file in the destination folder, flushed and fsynced,
then renamed over its final name. A reader therefore sees either the old complete file or the new
complete file, never a partial one, even if the writer is killed.

A temporary is named ``.<final name>.<writer>.<random>.tmp`` where ``<writer>`` is
``<pid>-<process start, centiseconds>@<host>`` (:class:`Writer`). A clean-up can therefore tell a
temporary whose writer is dead, which it may remove, from one a live process is about to rename,
which it must never touch (:func:`remove_abandoned_temporaries`). Each process's scratch folder
(``mlfs.<writer>.<random>`` on the RAM disk ``/dev/shm`` when there is one) is named the same way,
so the folder of a killed process is removed by the next one that looks
(:func:`process_scratch_dir`).

Operating-system errors while creating folders or writing files (no permission, read-only or full
file system, a path through a regular file, a symbolic-link loop) are raised as
:class:`~pipeline.errors.StorageError` naming the path and the reason.

Files a user or a download provides (documents, plug-in and fingerprinted code, dataset sources,
fold files) are opened by one bounded reader, :func:`open_regular_file` / :func:`read_regular_file`:
only a regular file is read (a FIFO, a device such as ``/dev/zero``, a socket or a folder is
refused with what it is, without blocking on it), and a file larger than the caller's limit is
refused from its size before a byte is read.
"""

from __future__ import annotations

import atexit
import functools
import json
import math
import os
import re
import shutil
import socket
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterable

import psutil

from .errors import PipelineError, StorageError
from .limits import MAX_HOST_LENGTH

_HOST_UNSAFE = re.compile(r"[^A-Za-z0-9.-]")
_WRITER = re.compile(r"^(?P<pid>[0-9]+)-(?P<started>[0-9]+)@(?P<host>[A-Za-z0-9.-]+)$")


def this_host() -> str:
    """This machine's name as it appears in temporaries and claims (file-name safe, as
    :meth:`Writer.parse` reads it back, and at most :data:`MAX_HOST_LENGTH` characters)."""
    return _HOST_UNSAFE.sub("-", socket.gethostname())[:MAX_HOST_LENGTH] or "host"


def process_alive(pid: int, running_since: float) -> bool:
    """Whether process ``pid`` of this host exists and already ran at ``running_since`` (epoch s).

    A zombie counts as dead, and so does a process started more than a second after
    ``running_since``: that is a later process that reuses the pid. A process we may not inspect
    counts as alive.
    """
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return process.create_time() <= running_since + 1.0
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


@dataclass(frozen=True)
class Writer:
    """The process that writes a temporary: host, process id and process start time.

    The start time (centiseconds since the epoch) distinguishes the writer from a later process
    that reuses its pid.
    """

    pid: int
    started: int
    host: str

    @classmethod
    def current(cls) -> "Writer":
        """This process (recomputed after a fork, since the pid changes)."""
        pid = os.getpid()
        cached = _CURRENT.get(pid)
        if cached is None:
            cached = _CURRENT[pid] = cls(pid, int(psutil.Process(pid).create_time() * 100), this_host())
        return cached

    @classmethod
    def parse(cls, text: str) -> "Writer | None":
        """The writer named by ``text`` (``pid-started@host``), or None if it names none."""
        match = _WRITER.match(text)
        if match is None:
            return None
        return cls(int(match["pid"]), int(match["started"]), match["host"])

    def __str__(self) -> str:
        return f"{self.pid}-{self.started}@{self.host}"

    def is_dead(self) -> bool | None:
        """True if this writer provably ended, False if it runs, None if it is on another host."""
        if self.host != this_host():
            return None
        return not process_alive(self.pid, self.started / 100)


_CURRENT: dict[int, Writer] = {}


def _writer_in(name: str, prefix: str, suffix: str) -> Writer | None:
    """The writer in ``<prefix><writer>.<random><suffix>``, None if ``name`` names none."""
    if not (name.startswith(prefix) and name.endswith(suffix)):
        return None
    tag, _, _random = name[len(prefix):len(name) - len(suffix)].rpartition(".")
    return Writer.parse(tag)


def temporary_writer(temporary: Path, final_name: str) -> Writer | None:
    """The writer named in ``temporary`` (a temporary of ``final_name``), None if unnamed."""
    return _writer_in(temporary.name, f".{final_name}.", ".tmp")


def create_temporary(path: Path) -> tuple[int, Path]:
    """Create ``.<name>.<writer>.<random>.tmp`` beside ``path``; return (open fd, its path)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{Writer.current()}.", suffix=".tmp", dir=path.parent)
    return fd, Path(tmp)


def remove_abandoned_temporaries(path: Path, unnamed_after: float | None = None) -> list[Path]:
    """Remove the temporaries of ``path`` whose writer is provably dead; return them.

    A temporary of a live writer is never removed. One of another host, or one that names no
    writer (written by an older version), is removed only when ``unnamed_after`` is given and its
    last change is older than that many seconds.
    """
    removed = []
    for temporary in path.parent.glob(f".{path.name}.*.tmp"):
        writer = temporary_writer(temporary, path.name)
        dead = writer.is_dead() if writer is not None else None
        if dead is None:
            dead = unnamed_after is not None and _age(temporary) >= unnamed_after
        if dead:
            temporary.unlink(missing_ok=True)
            removed.append(temporary)
    return removed


@functools.cache
def scratch_root() -> Path:
    """Where scratch folders go: the RAM disk ``/dev/shm`` if writable, else the temporary folder."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())


_SCRATCH: dict[int, Path] = {}


def process_scratch_dir() -> Path:
    """This process's private scratch folder ``<scratch root>/mlfs.<writer>.<random>``.

    Created on first use, after removing the folders of dead processes; removed at a normal
    interpreter exit or by :func:`remove_process_scratch_dir` (for processes that end with
    ``os._exit``, such as pool workers).
    """
    pid = os.getpid()
    if pid not in _SCRATCH:
        remove_abandoned_scratch_dirs()
        _SCRATCH[pid] = Path(tempfile.mkdtemp(prefix=f"mlfs.{Writer.current()}.", dir=scratch_root()))
        atexit.register(remove_process_scratch_dir)
    return _SCRATCH[pid]


def remove_process_scratch_dir() -> None:
    """Remove this process's scratch folder, if it made one."""
    path = _SCRATCH.pop(os.getpid(), None)
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


def remove_abandoned_scratch_dirs() -> list[Path]:
    """Remove the scratch folders of dead processes of this host; return them."""
    removed = []
    for path in scratch_root().glob("mlfs.*"):
        writer = _writer_in(path.name, "mlfs.", "")
        if writer is not None and writer.is_dead():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def storage_error(action: str, path: Path, exc: OSError) -> StorageError:
    """A StorageError for ``exc`` raised while doing ``action`` on ``path``."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    return StorageError(f"cannot {action}: {reason}", file=path)


def ensure_directory(path: str | Path, what: str = "folder") -> Path:
    """Create folder ``path`` (and its parents) unless it exists; StorageError if impossible."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file, or a symbolic link that leads nowhere or in a loop
        try:
            os.stat(path)
        except OSError as exc:
            raise storage_error(f"create {what}", path, exc) from None
        raise StorageError(f"cannot create {what}: a file of that name exists", file=path) from None
    except OSError as exc:
        raise storage_error(f"create {what}", path, exc) from None
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_durably(handle, data: bytes) -> None:
    """Write ``data`` to the open binary file ``handle`` and force it to the disk."""
    handle.write(data)
    handle.flush()
    os.fsync(handle.fileno())


def atomic_write_bytes(path: str | Path, data: bytes, *, durable: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, then ``os.replace``),
    forced to the disk first unless not ``durable`` (a cache entry, checked when it is read).

    The file gets the permissions of a normally created file (``0o666`` less the umask), not the
    private ``0o600`` of a temporary file.

    Raises
    ------
    StorageError
        When the folder cannot be created or the file cannot be written; no temporary is left.
    """
    return atomic_write_chunks(path, [data], durable=durable)


def atomic_write_chunks(path: str | Path, chunks: Iterable[bytes], *, durable: bool = True) -> Path:
    """Write the ``chunks`` to ``path`` atomically, as :func:`atomic_write_bytes`, holding one chunk
    at a time in memory (a download is streamed to the disk). Whatever the iteration raises (a
    download refused half-way) leaves ``path`` as it was and no temporary behind."""
    path = Path(path)
    ensure_directory(path.parent)
    try:
        fd, tmp = create_temporary(path)
    except OSError as exc:
        raise storage_error("write", path, exc) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            os.chmod(tmp, 0o666 & ~_umask())
            for chunk in chunks:
                handle.write(chunk)
            if durable:
                write_durably(handle, b"")
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise storage_error("write", path, exc) from None
        raise
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def to_strict_json(obj: Any) -> Any:
    """Return ``obj`` with NaN/Inf floats replaced by ``None`` and NumPy scalars/arrays as Python types.

    Strict JSON has no NaN; ``null`` is what MATLAB's ``jsonencode`` writes for NaN as well, so both
    front doors produce the same files.
    """
    if isinstance(obj, dict):
        return {str(k): to_strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_strict_json(v) for v in obj]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):
        return to_strict_json(obj.tolist())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    return obj


def dumps_json(obj: Any) -> str:
    """Serialise ``obj`` as strict, sorted, indented JSON with a trailing newline."""
    return json.dumps(to_strict_json(obj), indent=2, sort_keys=True, allow_nan=False) + "\n"


def atomic_write_json(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` as strict JSON (see :func:`dumps_json`) to ``path`` atomically."""
    return atomic_write_text(path, dumps_json(obj))


#: First characters that make a spreadsheet read a cell as a formula (CSV injection).
FORMULA_LEADERS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A cell of a CSV file meant for people and their spreadsheets: text that starts like a
    formula (``=HYPERLINK(...)``, ``@SUM``, ``+``, ``-``, tab, carriage return) gets a leading
    apostrophe, so it shows as text; numbers, and text that reads as one (``-0.25``), are kept."""
    if not isinstance(value, str) or not value.startswith(FORMULA_LEADERS):
        return value
    try:
        float(value)
        return value
    except ValueError:
        return "'" + value


def csv_safe_frame(frame):
    """A copy of a pandas DataFrame with :func:`csv_cell` applied to its column names and its text cells."""
    safe = frame.rename(columns=csv_cell)
    for column in safe.columns[safe.dtypes == object]:
        safe[column] = safe[column].map(csv_cell)
    return safe


#: What a path that is not a regular file is, for the refusal (by ``stat.S_IFMT``).
_FILE_KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device", stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket"}


def open_regular_file(path: str | Path, what: str, limit: int | None, error: type[PipelineError]) -> BinaryIO:
    """``path`` opened for binary reading, once it is known to be a regular file of at most
    ``limit`` bytes (None: any size, for a caller that streams it).

    The file is opened without blocking (``O_NONBLOCK``: opening a FIFO for reading would wait for
    a writer) and its type and size are taken from the opened file (``fstat``), so what is read is
    what was checked, even if the path is replaced meanwhile. A symbolic link is followed.

    Raises
    ------
    error
        ``"<what> not found"``; ``"<what> is not a regular file"`` naming what it is (a FIFO, a
        device, a folder, ...); ``"<what> too large"`` with the limit and the size; ``"cannot read
        <what>"`` with the system's reason. Each names ``path``.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"{what} not found", file=path) from None
    except OSError as exc:  # a socket cannot be opened (ENXIO): say what it is when stat can
        kind = _kind_of(path)
        if kind is not None:
            raise error(f"{what} is not a regular file", file=path, expected="a regular file", found=kind) from None
        raise error(f"cannot read {what}: {exc.strerror or exc}", file=path) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{what} is not a regular file", file=path, expected="a regular file",
                        found=_FILE_KINDS.get(stat.S_IFMT(info.st_mode), "another kind of file"))
        if limit is not None and info.st_size > limit:
            raise error(f"{what} too large", file=path, expected=f"at most {limit} bytes",
                        found=f"{info.st_size} bytes")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_file(path: str | Path, what: str, limit: int, error: type[PipelineError]) -> bytes:
    """The bytes of the regular file ``path`` of at most ``limit`` bytes (see
    :func:`open_regular_file`); at most ``limit + 1`` bytes are read, so a file that grew after
    its size was checked is refused too."""
    with open_regular_file(path, what, limit, error) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(f"cannot read {what}: {exc.strerror or exc}", file=path) from None
    if len(data) > limit:
        raise error(f"{what} too large", file=path, expected=f"at most {limit} bytes",
                    found=f"more than {limit} bytes (it grew while it was read)")
    return data


def _kind_of(path: Path) -> str | None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else _FILE_KINDS.get(stat.S_IFMT(mode), "another kind of file")
