"""Checks on the files and folders a user hands to a protocol's command line.

Input files are checked for existence, emptiness and size before any parser runs, so a hostile or
damaged file fails with one precise :class:`~pipeline.errors.DataError`. A size limit is a byte
or row count with a documented default that a user may raise through an environment variable.
Output folders and files are checked before any work starts, so a file (or a folder) in the way
costs no computation.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..documents import RESULT_LIMITS, read_document
from ..errors import ConfigError, DataError


def checked_file_size(path: str | Path, kind: str, limit: int | None = None, variable: str | None = None) -> int:
    """Size of an existing, non-empty regular file of at most ``limit`` bytes; DataError otherwise.

    ``kind`` says what the file should hold; ``variable`` names the environment variable that
    raises ``limit`` (quoted in the message).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError("not a regular file" if path.exists() else "file is missing", file=path, expected=kind)
    size = path.stat().st_size
    if size == 0:
        raise DataError("empty file (0 bytes)", file=path, expected=kind)
    if limit is not None and size > limit:
        hint = f" (set {variable} to allow more)" if variable else ""
        raise DataError(f"file is larger than the limit{hint}", file=path, expected=f"<= {limit} bytes",
                        found=f"{size} bytes")
    return size


def read_json_bounded(path: str | Path, limit: int) -> object:
    """Parse a UTF-8 JSON file of at most ``limit`` bytes with the strict reader
    (:mod:`pipeline.documents`: no repeated keys, bounded depth, digits and text, finite numbers)."""
    path = Path(path)
    checked_file_size(path, "a JSON document", limit)
    return read_document(path, "JSON document", limits=replace(RESULT_LIMITS, max_bytes=limit), kind="json",
                         error=DataError)


def output_file(path: str | Path | None, option: str, message: str = "output path is a folder",
                expected: str | None = "a file path") -> Path | None:
    """``path`` unless it names an existing folder; ConfigError naming ``option`` with ``message``
    (and ``expected``) otherwise. Call it before any work, so a folder in the way costs nothing."""
    if path is not None and Path(path).is_dir():
        raise ConfigError(message, field=option, expected=expected, found=str(path))
    return None if path is None else Path(path)


def output_apart(path: str | Path | None, option: str, inputs: dict[str, str | Path | None]) -> None:
    """ConfigError when the output file ``path`` is one of the ``inputs`` (option -> path): writing it
    would replace what the command reads. Call it before any work."""
    if path is None or not Path(path).exists():
        return
    for input_option, input_path in inputs.items():
        if input_path is not None and Path(input_path).exists() and Path(path).samefile(input_path):
            raise ConfigError(f"the output would replace the input given with {input_option}", field=option,
                              expected=f"another file than {input_option}", found=str(path))


def output_folder(path: str | Path | None, option: str) -> Path | None:
    """``path`` when it is a folder or does not exist yet; ConfigError naming ``option`` otherwise."""
    if path is not None and Path(path).exists() and not Path(path).is_dir():
        raise ConfigError("is not a folder", field=option, found=str(path))
    return None if path is None else Path(path)
