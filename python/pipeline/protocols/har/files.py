"""Bounded, pickle-free reading of the files a user hands to the HAR protocol.

Every array file is opened by the bounded reader (:func:`..user_files.open_input_file`) and
checked before anything is allocated: it is a regular file and not empty, its
``.npy`` header (or the header of every ``.npz`` member) parses, its dtype holds no Python
objects (an object array is a pickle, which can run code, and is refused), the declared data size
is within the limit, and the file really holds that many bytes. Only then is the array read, with
pickle disabled. JSON files are bounded by their size before they are parsed.

The array limit is :data:`~pipeline.limits.DEFAULT_HAR_MAX_ARRAY_BYTES` per file (all members of an
``.npz`` together); set the environment variable ``MLFS_HAR_MAX_BYTES`` to a byte count to change it.
"""

from __future__ import annotations

import math
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ...errors import DataError
from ...limits import (DEFAULT_HAR_MAX_ARRAY_BYTES, HAR_MAX_ARRAY_BYTES_VARIABLE, HAR_MAX_JSON_BYTES,
                       HAR_MAX_NPZ_MEMBERS, env_limit)
from ..user_files import input_size, open_input_file, read_json_bounded

# What a damaged or hostile zip archive can raise while its members are listed or read.
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError, OSError, ValueError)


def max_array_bytes() -> int:
    """The per-file limit on declared array data: ``MLFS_HAR_MAX_BYTES`` or the default (4 GiB)."""
    return env_limit(HAR_MAX_ARRAY_BYTES_VARIABLE, DEFAULT_HAR_MAX_ARRAY_BYTES)


def _read_header(stream: BinaryIO, source: Path, field: str) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from an ``.npy`` header (versions 1.0 and 2.0)."""
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")
    except (ValueError, EOFError, SyntaxError) as exc:
        raise DataError(f"not a readable .npy array ({exc})", file=source, field=field) from exc
    return shape, dtype


def _declared_bytes(shape: tuple[int, ...], dtype: np.dtype, source: Path, field: str, limit: int) -> int:
    """Data bytes an array header declares, after refusing object dtypes and sizes over ``limit``."""
    if dtype.hasobject:
        raise DataError("object arrays are pickles and are refused; save plain numeric or string arrays",
                        file=source, field=field, expected="a numeric or string dtype", found=str(dtype))
    n_bytes = math.prod(shape) * dtype.itemsize
    if n_bytes > limit:
        raise DataError(f"array is larger than the limit (set {HAR_MAX_ARRAY_BYTES_VARIABLE} to allow more)",
                        file=source, field=field, expected=f"<= {limit} bytes",
                        found=f"{n_bytes} bytes declared, shape {shape}")
    return n_bytes


def read_npy(path: str | Path, field: str = "array") -> np.ndarray:
    """Read one ``.npy`` array after checking its header, its size and that it is no pickle."""
    path = Path(path)
    with open_input_file(path, "a .npy array") as stream:
        size = input_size(stream)
        shape, dtype = _read_header(stream, path, field)
        n_bytes = _declared_bytes(shape, dtype, path, field, max_array_bytes())
        if size - stream.tell() < n_bytes:
            raise DataError("file is truncated", file=path, field=field,
                            expected=f"{n_bytes} data bytes for shape {shape}", found=f"{size - stream.tell()}")
        stream.seek(0)
        return np.lib.format.read_array(stream, allow_pickle=False)


def read_npz(path: str | Path) -> dict[str, np.ndarray]:
    """Read every array of an ``.npz`` archive after checking each member's header and the total size."""
    path = Path(path)
    limit = max_array_bytes()
    try:
        with open_input_file(path, "an .npz archive") as handle, zipfile.ZipFile(handle) as archive:
            members = _checked_members(archive, path, limit)
            arrays = {}
            for key, info in members.items():
                with archive.open(info) as stream:
                    arrays[key] = np.lib.format.read_array(stream, allow_pickle=False)
            return arrays
    except DataError:
        raise
    except _ZIP_ERRORS as exc:
        raise DataError(f"not a readable .npz archive ({type(exc).__name__}: {exc})", file=path) from exc


def _checked_members(archive: zipfile.ZipFile, path: Path, limit: int) -> dict[str, zipfile.ZipInfo]:
    """``{array name: member}`` once every member passed the header, dtype and size checks."""
    infos = archive.infolist()
    if len(infos) > HAR_MAX_NPZ_MEMBERS:
        raise DataError("too many arrays in the archive", file=path, expected=f"<= {HAR_MAX_NPZ_MEMBERS}",
                        found=len(infos))
    members, total = {}, 0
    for info in infos:
        if not info.filename.endswith(".npy"):
            raise DataError("archive member is not an .npy array", file=path, field=info.filename)
        key = info.filename[:-len(".npy")]
        with archive.open(info) as stream:
            shape, dtype = _read_header(stream, path, key)
            header_bytes = stream.tell()
        n_bytes = _declared_bytes(shape, dtype, path, key, limit)
        if info.file_size - header_bytes < n_bytes:
            raise DataError("archive member is truncated", file=path, field=key,
                            expected=f"{n_bytes} data bytes for shape {shape}",
                            found=f"{info.file_size - header_bytes}")
        total += n_bytes
        if total > limit:
            raise DataError(f"the arrays together are larger than the limit (set {HAR_MAX_ARRAY_BYTES_VARIABLE} to "
                            "allow more)", file=path, expected=f"<= {limit} bytes", found=f"{total} bytes by {key!r}")
        members[key] = info
    return members


def read_json(path: str | Path, limit: int = HAR_MAX_JSON_BYTES) -> object:
    """Parse a UTF-8 JSON file of at most ``limit`` bytes (16 MiB by default)."""
    return read_json_bounded(path, limit)
