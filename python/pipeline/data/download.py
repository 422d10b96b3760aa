"""Download a registered dataset's files and verify their SHA-256.

Files come from the pinned commits of the source repositories listed in the registry (raw GitHub
URLs), or from a mirror folder/URL holding the same file names (``mirror``: any URL ``urllib``
opens, e.g. ``https://...`` or ``file:///...``). Each file is streamed to a temporary file and
checked against the registry's SHA-256 before it is moved into place atomically, so a broken
download never leaves a file that looks valid. A download is stopped, and its temporary removed,
once it passes the dataset file size limit (:func:`pipeline.limits.dataset_file_limit`): a mirror
serving an endless body costs at most that much disk and one block of memory.
"""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Iterable

from ..errors import DataError
from ..fileio import atomic_write_chunks
from ..limits import MAX_DATASET_FILE_BYTES_VARIABLE, dataset_file_limit
from .folds import sha256_file
from .registry import SYNTHETIC, SourceFile, get_spec

Opener = Callable[..., object]
_TIMEOUT_SECONDS = 60
_CHUNK = 1 << 20


def source_url(source: SourceFile, mirror: str | None = None) -> str:
    """The URL to download ``source`` from: the registry URL, or ``<mirror>/<file name>``."""
    return source.url if mirror is None else f"{mirror.rstrip('/')}/{source.name}"


def fetch_dataset(name: str, dest: str | Path, *, mirror: str | None = None, force: bool = False,
                  opener: Opener = urllib.request.urlopen,
                  on_file: Callable[[SourceFile], None] | None = None) -> list[Path]:
    """Download the files of dataset ``name`` into ``dest`` (flat layout) and verify them.

    Parameters
    ----------
    name : str
        A registered real dataset (the synthetic ``demo`` has no files).
    dest : path
        Destination folder (created if needed).
    mirror : str, optional
        Base URL that replaces the registry's source URLs.
    force : bool
        Download again even when a file with the right checksum is already there.
    opener : callable
        ``urllib.request.urlopen``-compatible function (replaceable in tests).
    on_file : callable, optional
        Called with each SourceFile after it is in place (progress reporting).

    Returns
    -------
    list of Path
        The dataset's files in ``dest``.

    Raises
    ------
    DataError
        Download failure, a file larger than the size limit, or checksum mismatch (nothing is
        written for that file).
    """
    spec = get_spec(name)
    if spec.format == SYNTHETIC:
        raise DataError(f"dataset {name!r} is generated in code and has no files to download",
                        field="dataset")
    dest = Path(dest)
    limit = dataset_file_limit()
    paths = []
    for source in spec.files:
        target = dest / source.name
        if force or not (target.is_file() and sha256_file(target) == source.sha256):
            atomic_write_chunks(target, _verified_chunks(source, source_url(source, mirror), opener, limit))
        paths.append(target)
        if on_file is not None:
            on_file(source)
    return paths


def _verified_chunks(source: SourceFile, url: str, opener: Opener, limit: int) -> Iterable[bytes]:
    """The blocks of the download of ``source`` from ``url``; DataError once more than ``limit``
    bytes came, or at the end when their SHA-256 is not the registered one."""
    digest = hashlib.sha256()
    received = 0
    try:
        with opener(url, timeout=_TIMEOUT_SECONDS) as response:
            for block in iter(lambda: response.read(_CHUNK), b""):
                received += len(block)
                if received > limit:
                    raise DataError("download larger than the dataset file size limit: stopped", file=url,
                                    expected=f"at most {limit} bytes (set {MAX_DATASET_FILE_BYTES_VARIABLE} "
                                             "to raise the limit)", found=f"more than {limit} bytes")
                digest.update(block)
                yield block
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DataError("download failed", file=url, found=str(exc)) from None
    if digest.hexdigest() != source.sha256:
        raise DataError("checksum mismatch: the downloaded file is not the registered one",
                        file=url, field="sha256", expected=source.sha256, found=digest.hexdigest())
