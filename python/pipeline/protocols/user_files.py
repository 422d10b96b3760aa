"""Checks on the files and folders a user hands to a protocol's command line.

Input files are opened by the package's bounded reader (:func:`pipeline.fileio.open_regular_file`:
only a regular file, a FIFO or a device refused without blocking, its type and size taken from the
opened file) and checked for emptiness and size before any parser reads the open file, so a
hostile or damaged file fails with one precise :class:`~pipeline.errors.DataError` and what is
parsed is what was checked. A size limit is a byte or row count with a documented default
(:mod:`pipeline.limits`) that a user may raise through an environment variable or an option.
Output folders and files are checked before any work starts, so a file (or a folder) in the way
costs no computation.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from ..documents import RESULT_LIMITS, parse_document
from ..errors import ConfigError, DataError
from ..fileio import open_regular_file


def open_input_file(path: str | Path, kind: str, limit: int | None = None, variable: str | None = None) -> BinaryIO:
    """``path`` opened for binary reading, once it is a non-empty regular file of at most ``limit``
    bytes (None: any size); DataError otherwise. The caller closes it.

    ``kind`` says what the file should hold; ``variable`` names the environment variable or the
    option that raises ``limit`` (quoted in the message). The file's size is ``input_size(handle)``.
    """
    path = Path(path)
    handle = open_regular_file(path, "file", None, DataError)
    try:
        size = input_size(handle)
        if size == 0:
            raise DataError("empty file (0 bytes)", file=path, expected=kind)
        if limit is not None and size > limit:
            hint = f" (set {variable} to allow more)" if variable else ""
            raise DataError(f"file is larger than the limit{hint}", file=path, expected=f"<= {limit} bytes",
                            found=f"{size} bytes")
    except BaseException:
        handle.close()
        raise
    return handle


def input_size(handle: BinaryIO) -> int:
    """The size of the open file ``handle``, from the file itself (not from its path)."""
    return os.fstat(handle.fileno()).st_size


def read_json_bounded(path: str | Path, limit: int) -> object:
    """Parse a UTF-8 JSON file of at most ``limit`` bytes with the strict reader
    (:mod:`pipeline.documents`: no repeated keys, bounded depth, digits and text, finite numbers)."""
    path = Path(path)
    with open_input_file(path, "a JSON document", limit) as handle:
        try:
            raw = handle.read(limit + 1)  # one byte more: a file that grew since it was checked is refused
        except OSError as exc:
            raise DataError(f"cannot read file: {exc.strerror or exc}", file=path) from None
    return parse_document(raw, "JSON document", kind="json", limits=replace(RESULT_LIMITS, max_bytes=limit),
                          error=DataError, file=path)


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
