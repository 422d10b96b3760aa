"""Download a registered dataset's files and verify their SHA-256.

Files come from the pinned commits of the source repositories listed in the registry (raw GitHub
URLs), or from a mirror folder/URL holding the same file names (``mirror``: any URL ``urllib``
opens, e.g. ``https://...`` or ``file:///...``). Each file is checked against the registry's
SHA-256 before it is moved into place atomically, so a broken download never leaves a file that
looks valid.
"""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Iterable

from ..errors import DataError
from ..fileio import atomic_write_bytes
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
        Download failure or checksum mismatch (nothing is written for that file).
    """
    spec = get_spec(name)
    if spec.format == SYNTHETIC:
        raise DataError(f"dataset {name!r} is generated in code and has no files to download",
                        field="dataset")
    dest = Path(dest)
    paths = []
    for source in spec.files:
        target = dest / source.name
        if force or not (target.is_file() and sha256_file(target) == source.sha256):
            atomic_write_bytes(target, _download_verified(source, source_url(source, mirror), opener))
        paths.append(target)
        if on_file is not None:
            on_file(source)
    return paths


def _download_verified(source: SourceFile, url: str, opener: Opener) -> bytes:
    try:
        with opener(url, timeout=_TIMEOUT_SECONDS) as response:
            data = b"".join(_chunks(response))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DataError("download failed", file=url, found=str(exc)) from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != source.sha256:
        raise DataError("checksum mismatch: the downloaded file is not the registered one",
                        file=url, field="sha256", expected=source.sha256, found=digest)
    return data


def _chunks(response) -> Iterable[bytes]:
    for block in iter(lambda: response.read(_CHUNK), b""):
        yield block
