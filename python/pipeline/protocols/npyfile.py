""".npy and .npz reading with every declared size checked against the real data first.

``np.load`` allocates the array its header declares before reading any data, so a 100-byte
``.npy`` declaring petabytes (or an ``.npz`` member doing the same) fails with a MemoryError, and
a truncated file fails with a traceback. Here the header is read first, the declared data size is
compared with the bytes that really follow and with :attr:`LoadLimits.max_bytes`, and only then
is the data read. A file is opened by the package's bounded reader
(:func:`pipeline.fileio.open_regular_file`), and its size taken from the open file.
"""

from __future__ import annotations

import math
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..errors import DataError
from ..fileio import open_regular_file
from .load_limits import LoadLimits
from .user_files import input_size

_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError)


@dataclass(frozen=True)
class NpyHeader:
    """The header of a ``.npy`` stream; ``offset`` is where its data starts."""

    shape: tuple
    fortran_order: bool
    dtype: np.dtype
    offset: int

    @property
    def data_bytes(self) -> int:
        """Bytes of data the header declares (exact integer, no overflow)."""
        return math.prod(self.shape) * self.dtype.itemsize


def read_npy_header(handle: BinaryIO, file: str | Path) -> NpyHeader:
    """Read the magic string and header of a ``.npy`` stream positioned at its start."""
    try:
        version = np.lib.format.read_magic(handle)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape, fortran_order, dtype = read(handle)
    except (ValueError, EOFError, OSError) as exc:
        raise DataError(f"not a valid .npy file ({exc})", file=file) from exc
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise DataError("invalid .npy header", file=file, field="shape", found=shape)
    return NpyHeader(tuple(shape), bool(fortran_order), dtype, handle.tell())


def read_npy_data(handle: BinaryIO, header: NpyHeader, available: int, file: str | Path,
                  limits: LoadLimits) -> np.ndarray:
    """Read the array after ``header``, given the ``available`` bytes that follow it.

    Refuses, before allocating, object arrays (they need pickle), data above
    ``limits.max_bytes`` and data the stream does not hold.
    """
    if header.dtype.hasobject:
        raise DataError("object array cannot be read without pickle", file=file,
                        expected="a numeric array", found=header.dtype)
    declared = header.data_bytes
    if declared > limits.max_bytes:
        raise DataError(f"header declares {declared:,} bytes of data, above the limit of "
                        f"{limits.max_bytes:,} (raise --max-bytes if the file is genuine)",
                        file=file)
    if declared > available:
        raise DataError(f"header declares {declared:,} bytes of data but the file holds "
                        f"{available:,} (truncated or corrupt file)", file=file)
    data = handle.read(declared)
    if len(data) != declared:
        raise DataError(f"file ends after {len(data):,} of {declared:,} data bytes", file=file)
    array = np.frombuffer(data, dtype=header.dtype, count=math.prod(header.shape))
    if header.fortran_order:
        return array.reshape(header.shape[::-1]).transpose()
    return array.reshape(header.shape)


def load_npy_array(path: Path, limits: LoadLimits = LoadLimits()) -> np.ndarray:
    """A numeric array from a ``.npy`` file, sizes checked before reading."""
    with open_regular_file(path, "file", None, DataError) as handle:
        header = read_npy_header(handle, path)
        return read_npy_data(handle, header, input_size(handle) - header.offset, path, limits)


def npz_arrays(handle: BinaryIO, path: Path, limits: LoadLimits = LoadLimits()) -> dict[str, np.ndarray]:
    """Every member of the ``.npz`` archive open in ``handle`` (the file ``path``) as a numeric array (no pickle).

    The uncompressed sizes of all members together may not exceed ``limits.max_bytes``; a
    stored (uncompressed) member may not claim more bytes than the archive holds.
    """
    archive_bytes = input_size(handle)
    try:
        with zipfile.ZipFile(handle) as archive:
            members = archive.infolist()
            total = sum(info.file_size for info in members)
            if total > limits.max_bytes:
                raise DataError(f"members declare {total:,} uncompressed bytes, above the limit "
                                f"of {limits.max_bytes:,} (raise --max-bytes if the file is "
                                "genuine)", file=path)
            return {_member_name(info, path): _read_member(archive, info, archive_bytes, path,
                                                           limits)
                    for info in members}
    except _ZIP_ERRORS as exc:
        raise DataError(f"not a readable .npz archive ({type(exc).__name__}: {exc})",
                        file=path) from exc


def _member_name(info: zipfile.ZipInfo, path: Path) -> str:
    if not info.filename.endswith(".npy"):
        raise DataError("unexpected archive member", file=path, expected="NAME.npy",
                        found=repr(info.filename[:80]))
    return info.filename[:-4]


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, archive_bytes: int,
                 path: Path, limits: LoadLimits) -> np.ndarray:
    if info.compress_type == zipfile.ZIP_STORED and info.file_size > archive_bytes:
        raise DataError(f"member claims {info.file_size:,} bytes, more than the archive holds",
                        file=path, field=info.filename)
    where = f"{path}[{info.filename}]"
    with archive.open(info) as member:
        header = read_npy_header(member, where)
        return read_npy_data(member, header, info.file_size - header.offset, where, limits)
