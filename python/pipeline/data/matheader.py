"""The variable headers of a MATLAB v5 ``.mat`` file, read without loading or inflating the data.

A MAT v5 file is a 128-byte header followed by one data element per variable: an ``miMATRIX``
element, or an ``miCOMPRESSED`` element whose zlib stream holds an ``miMATRIX`` element. The
matrix element starts with the array flags (class, complex and logical bits), the dimensions, the
name and then the tag of the real part, which gives the storage type and byte count of the data.
:func:`read_mat_headers` reads exactly these few dozen bytes of each variable (inflating only
the start of a compressed stream) and skips the rest, so a caller can check the declared shapes
and sizes before anything the size of the data is allocated: a small file cannot make it inflate
gigabytes. Every structural problem (truncated file, element running past the end of the file,
data byte count that disagrees with the shape, ...) is a DataError naming the file and variable.
"""

from __future__ import annotations

import math
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import ConfigError, DataError
from ..fileio import open_regular_file
from ..limits import DEFAULT_MAX_FOLD_BYTES as DEFAULT_MAX_BYTES
from ..limits import MAX_FOLD_BYTES_VARIABLE as MAX_BYTES_VARIABLE
from ..limits import MAX_MAT_DIMENSIONS, MAX_MAT_NAME_BYTES, available_memory, env_limit

MI_MATRIX, MI_COMPRESSED = 14, 15
#: Bytes per element of the numeric MAT v5 storage types (miINT8 ... miUINT64).
STORAGE_ITEM_BYTES = {1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 4, 9: 8, 12: 8, 13: 8}
#: Names of the storage types (a double array of small integers may be stored as miUINT8 etc.).
STORAGE_NAMES = {1: "int8", 2: "uint8", 3: "int16", 4: "uint16", 5: "int32", 6: "uint32",
                 7: "single", 9: "double", 12: "int64", 13: "uint64"}
MI_DOUBLE = 9
#: Bytes per element of the numeric classes once loaded.
CLASS_ITEM_BYTES = {6: 8, 7: 4, 8: 1, 9: 1, 10: 2, 11: 2, 12: 4, 13: 4, 14: 8, 15: 8}
#: MATLAB array classes, by class number.
CLASS_NAMES = {1: "cell", 2: "struct", 3: "object", 4: "char", 5: "sparse", 6: "double",
               7: "single", 8: "int8", 9: "uint8", 10: "int16", 11: "uint16", 12: "int32",
               13: "uint32", 14: "int64", 15: "uint64", 16: "function_handle", 17: "opaque"}
NUMERIC_CLASSES = frozenset(range(6, 16))
#: The most a DEFLATE stream can expand, 1032:1 (a property of the format, as zlib documents it,
#: not a limit): a compressed element declaring more is corrupt.
DEFLATE_EXPANSION_BOUND = 1032

_FILE_HEADER_BYTES = 128
_INFLATE_BLOCK = 1 << 16


@dataclass(frozen=True)
class MatVariable:
    """What the header of one variable declares.

    Attributes
    ----------
    name : str
    class_id : int
        MATLAB class number (6 = double, 9 = uint8, 2 = struct, ...); see :data:`CLASS_NAMES`.
    dims : tuple of int
    is_complex, is_logical : bool
    element_bytes : int
        Size of the variable's matrix element as stored, once inflated: what a reader that loads
        it allocates, whatever its class.
    storage : int or None
        MAT storage type of a numeric variable's data (:data:`STORAGE_NAMES`); it may be narrower
        than the class (MATLAB stores a double array of small integers as uint8), and the reader
        then allocates the inflated data and its converted copy.
    """

    name: str
    class_id: int
    dims: tuple[int, ...]
    is_complex: bool
    is_logical: bool
    element_bytes: int
    storage: int | None = None

    @property
    def class_name(self) -> str:
        kind = CLASS_NAMES.get(self.class_id, f"class {self.class_id}")
        return "logical" if self.is_logical else kind

    @property
    def n_elements(self) -> int:
        return math.prod(self.dims)

    @property
    def stored_narrower(self) -> bool:
        """Whether the data is stored in another type than its class (converted on loading)."""
        return self.storage is not None and STORAGE_NAMES.get(self.storage) != CLASS_NAMES.get(self.class_id)

    @property
    def loading_bytes(self) -> int:
        """What loading it allocates at most, counted as float64 (8 bytes per element) or, when the
        data is stored in a narrower type than its class, the inflated element plus its converted
        copy, if that is more."""
        as_float64 = 8 * self.n_elements
        if not self.stored_narrower:
            return as_float64
        return max(as_float64, self.element_bytes + CLASS_ITEM_BYTES.get(self.class_id, 8) * self.n_elements)

    def describe(self) -> str:
        """``name RxC`` and, when the data is stored in a narrower type than its class, which."""
        shape = "x".join(str(v) for v in self.dims)
        narrower = f" {self.class_name} stored as {STORAGE_NAMES.get(self.storage)}" if self.stored_narrower else ""
        return f"{self.name} {shape}{narrower}"


def read_mat_headers(path: str | Path, what: str = "MAT file") -> list[MatVariable]:
    """Headers of every variable of a MAT v5 file, in file order, without reading their data.

    Raises
    ------
    DataError
        ``what`` not found or not a regular file (a FIFO, a device: refused without blocking);
        not a MAT v5 file (v4, v7.3/HDF5 and other files included), truncated, or a variable
        whose header is malformed or inconsistent with its data byte count.
    """
    path = Path(path)
    with open_regular_file(path, what, None, DataError) as handle:
        return _headers(path, handle)


def load_declared_matrices(path: str | Path, what: str, keys: tuple[str, ...], max_bytes: int) -> dict:
    """The variables ``keys`` of a MAT v5 file, loaded by SciPy once their headers passed
    :func:`check_declared_matrices`. The file is opened once: what is loaded is what was checked,
    even if the path is replaced meanwhile.

    Raises
    ------
    DataError
        Everything :func:`read_mat_headers` and :func:`check_declared_matrices` refuse, and a file
        SciPy cannot read.
    """
    path = Path(path)
    with open_regular_file(path, what, None, DataError) as handle:
        check_declared_matrices(path, _headers(path, handle), keys, max_bytes)
        handle.seek(0)
        import scipy.io  # here, not with the module: about 1 s that a command reading no MAT file should not pay

        try:
            return scipy.io.loadmat(handle, variable_names=keys)
        except Exception as exc:  # SciPy raises ValueError, TypeError, OSError... on bad files
            raise _format_error(path, f"{type(exc).__name__}: {exc}") from None


def _headers(path: Path, handle: BinaryIO) -> list[MatVariable]:
    size = os.fstat(handle.fileno()).st_size
    endian = _file_endian(path, handle.read(_FILE_HEADER_BYTES))
    variables, offset = [], _FILE_HEADER_BYTES
    while offset < size:
        handle.seek(offset)
        kind, n_bytes = _unpack_tag(path, endian, handle.read(8), offset)
        if offset + 8 + n_bytes > size:
            raise _format_error(path, f"element at byte {offset} runs past the end of the file "
                                      f"({n_bytes} bytes declared, {size - offset - 8} present)")
        if kind == MI_COMPRESSED:
            reader = _InflatedPrefix(path, handle, n_bytes, offset)
        elif kind == MI_MATRIX:
            reader = _PlainReader(path, handle, offset)
        else:
            raise _format_error(path, f"element at byte {offset} has type {kind}, "
                                      "not a matrix or compressed matrix")
        variables.append(_matrix_header(path, endian, reader, offset))
        offset += 8 + n_bytes
    return variables


def byte_limit(max_bytes: int | None = None) -> int:
    """The size limit for the arrays of one MAT file, as float64 bytes.

    ``max_bytes`` if given, else ``$MLFS_MAX_FOLD_BYTES`` if set, else :data:`DEFAULT_MAX_BYTES`.
    """
    if max_bytes is None:
        return env_limit(MAX_BYTES_VARIABLE, DEFAULT_MAX_BYTES)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ConfigError("the size limit must be a positive number of bytes",
                          field=MAX_BYTES_VARIABLE, found=repr(max_bytes))
    return max_bytes


def check_declared_matrices(path: Path, headers: list[MatVariable], keys: tuple[str, ...],
                            max_bytes: int) -> dict[str, MatVariable]:
    """Check, from the headers alone, the variables ``keys`` a reader is about to load.

    Returns
    -------
    dict of str to MatVariable
        The header of each key.

    Raises
    ------
    DataError
        A variable's name holds a NUL byte; a key is missing, stored twice, not a real 2-D numeric matrix (sparse, complex, char,
        cell, struct...), or all of them together would take more than ``max_bytes`` as float64;
        or another variable takes more than ``max_bytes`` once inflated (SciPy skips it, but
        MATLAB's and Octave's ``load`` inflate every variable, and both sides refuse alike).
    """
    for var in headers:
        if "\0" in var.name:
            raise DataError("variable name holds a NUL byte", file=path, field=var.name.replace("\0", "\\0")[:80],
                            expected="names without NUL (load would cut the name there)")
    present = sorted({var.name for var in headers})
    missing = [key for key in keys if key not in present]
    if missing:
        raise DataError("missing variable", file=path, field=missing[0],
                        expected=f"keys {list(keys)}", found=f"keys {_cut(present)}")
    declared: dict[str, MatVariable] = {}
    for var in headers:
        if var.name not in keys:
            continue
        if var.name in declared:
            raise DataError("variable stored twice", file=path, field=var.name)
        if var.class_id not in NUMERIC_CLASSES or var.is_complex:
            raise DataError("not a real numeric array", file=path, field=var.name,
                            expected="numeric (bool, int, uint or float)",
                            found=("complex " if var.is_complex else "") + var.class_name)
        if len(var.dims) != 2:
            raise DataError("wrong number of dimensions", file=path, field=var.name,
                            expected="2-D (rows = instances)", found=f"{len(var.dims)}-D {var.dims}")
        declared[var.name] = var
    _check_sizes(path, headers, declared, max_bytes)
    return declared


def _check_sizes(path: Path, headers: list[MatVariable], declared: dict[str, MatVariable],
                 max_bytes: int) -> None:
    """The ``declared`` variables together as float64 (plus the inflated data of those stored in a
    narrower type, which the reader holds while it converts them), and every other variable once
    inflated; then all of it against the memory this process can still get."""
    total = sum(var.loading_bytes for var in declared.values())
    largest = max(declared.values(), key=lambda var: var.loading_bytes)
    shapes = ", ".join(var.describe() for var in declared.values())
    if total > max_bytes:
        raise DataError("arrays larger than the size limit", file=path, field=largest.name,
                        expected=f"at most {max_bytes} bytes as float64 (set {MAX_BYTES_VARIABLE} "
                                 "to raise the limit)",
                        found=f"{total} bytes declared ({shapes})")
    for var in headers:
        if var.name not in declared and var.element_bytes > max_bytes:
            raise DataError("variable larger than the size limit", file=path, field=var.name,
                            expected=f"at most {max_bytes} bytes (set {MAX_BYTES_VARIABLE} to raise "
                                     "the limit)", found=f"{var.element_bytes} bytes")
    # and the reader's boolean masks of the largest array while it checks the values
    needed = (total + 2 * largest.n_elements
              + sum(var.element_bytes for var in headers if var.name not in declared))
    available, what = available_memory()
    if needed > available:
        raise DataError("not enough memory to load the fold", file=path, field=largest.name,
                        expected=f"at most {available} bytes ({what})",
                        found=f"{needed} bytes needed to load it ({shapes})")


def _file_endian(path: Path, header: bytes) -> str:
    if len(header) < _FILE_HEADER_BYTES:
        raise _format_error(path, f"{len(header)} bytes, shorter than the 128-byte MAT header")
    if header[126:128] not in (b"IM", b"MI") or 0 in header[:4]:
        raise _format_error(path, "no MAT v5 header (a MAT v4 file or not a MAT file)")
    endian = "<" if header[126:128] == b"IM" else ">"
    version = struct.unpack(endian + "H", header[124:126])[0]
    if version != 0x0100:
        raise _format_error(path, f"MAT header version {version:#06x}, not 0x0100 (v7.3/HDF5 "
                                  "files are not supported: save with -v7)")
    return endian


def _unpack_tag(path: Path, endian: str, raw: bytes, offset: int) -> tuple[int, int]:
    """(type, byte count) of a full 8-byte tag; small-element tags are rejected by the caller."""
    if len(raw) < 8:
        raise _format_error(path, f"tag at byte {offset} is cut short")
    return struct.unpack(endian + "II", raw)


class _PlainReader:
    """Sequential reads of an uncompressed element, from its tag on."""

    compressed_bytes = None

    def __init__(self, path: Path, handle: BinaryIO, offset: int):
        self.path, self.handle = path, handle
        self.handle.seek(offset)

    def read(self, n: int) -> bytes:
        data = self.handle.read(n)
        if len(data) < n:
            raise _format_error(self.path, "variable header is cut short")
        return data


class _InflatedPrefix:
    """Sequential reads of the first bytes of a compressed element's zlib stream.

    Only as much is inflated as is read (``decompressobj`` with ``max_length``), so the memory
    used is that of the header, whatever the stream would expand to.
    """

    def __init__(self, path: Path, handle: BinaryIO, n_bytes: int, offset: int):
        self.path, self.handle, self.left = path, handle, n_bytes
        self.compressed_bytes = n_bytes
        self.handle.seek(offset + 8)
        self.inflater = zlib.decompressobj()
        self.pending = b""

    def read(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            if not self.pending and self.left:
                self.pending = self.handle.read(min(_INFLATE_BLOCK, self.left))
                self.left -= len(self.pending)
            try:
                chunk = self.inflater.decompress(self.pending, n - len(out))
            except zlib.error as exc:
                raise _format_error(self.path, f"corrupt compressed variable ({exc})") from None
            self.pending = self.inflater.unconsumed_tail
            if not chunk and (self.left == 0 or self.inflater.eof):
                raise _format_error(self.path, "compressed variable ends inside its header")
            out += chunk
        return out


def _matrix_header(path: Path, endian: str, reader, offset: int) -> MatVariable:
    """Parse the start of an miMATRIX element from ``reader`` (positioned at its tag)."""
    kind, n_bytes = struct.unpack(endian + "II", reader.read(8))
    if kind != MI_MATRIX:
        raise _format_error(path, f"variable at byte {offset} holds element type {kind}, not a matrix")
    compressed = reader.compressed_bytes
    if compressed is not None and n_bytes > DEFLATE_EXPANSION_BOUND * compressed + 64:
        raise _format_error(path, f"variable at byte {offset} declares {n_bytes} bytes, more than "
                                  f"its {compressed} compressed bytes can hold")
    word = struct.unpack(endian + "I", _element(path, endian, reader, 8)[:4].ljust(4, b"\0"))[0]
    class_id = word & 0xFF
    dims_raw = _element(path, endian, reader, 4 * MAX_MAT_DIMENSIONS)
    dims = tuple(int(v) for v in struct.unpack(f"{endian}{len(dims_raw) // 4}i",
                                               dims_raw[: 4 * (len(dims_raw) // 4)]))
    name = _element(path, endian, reader, MAX_MAT_NAME_BYTES).decode("latin1")
    if any(v < 0 for v in dims):
        raise _format_error(path, f"variable {name!r} has negative dimensions {dims}")
    storage = None
    if class_id in NUMERIC_CLASSES:
        storage, data_bytes, _ = _next_tag(endian, reader)
        item = STORAGE_ITEM_BYTES.get(storage)
        if item is None or data_bytes != math.prod(dims) * item or data_bytes > n_bytes:
            raise _format_error(path, f"variable {name!r}: data of storage type {storage} holds "
                                      f"{data_bytes} bytes, which does not fit shape {dims}")
    return MatVariable(name=name, class_id=class_id, dims=dims, is_complex=bool(word & 0x0800),
                       is_logical=bool(word & 0x0200), element_bytes=n_bytes,
                       storage=storage if class_id in NUMERIC_CLASSES else None)


def _next_tag(endian: str, reader) -> tuple[int, int, bytes | None]:
    """(type, byte count, inline data) of the next sub-element tag.

    A small data element (4 data bytes or fewer) packs type and byte count into the first word
    and its data into the second; its inline data is returned, else None.
    """
    raw = reader.read(8)
    first = struct.unpack(endian + "I", raw[:4])[0]
    if first >> 16:
        return first & 0xFFFF, first >> 16, raw[4:4 + (first >> 16)]
    kind, n_bytes = struct.unpack(endian + "II", raw)
    return kind, n_bytes, None


def _element(path: Path, endian: str, reader, max_bytes: int) -> bytes:
    """Data of the next sub-element, which may hold at most ``max_bytes``."""
    _, n_bytes, inline = _next_tag(endian, reader)
    if inline is not None:
        return inline
    if n_bytes > max_bytes:
        raise _format_error(path, f"variable header field of {n_bytes} bytes (at most {max_bytes})")
    return reader.read(n_bytes + (-n_bytes) % 8)[:n_bytes]  # sub-elements are padded to 8 bytes


def _format_error(path: Path, found: str) -> DataError:
    return DataError("not a readable MATLAB .mat file (truncated or wrong format)", file=path,
                     found=found)


def _cut(names: list[str], shown: int = 8) -> str:
    """A list of variable names for a message: the first few, each cut, then how many more."""
    head = [name if len(name) <= 40 else name[:40] + "..." for name in names[:shown]]
    return f"{head}" + (f" and {len(names) - shown} more" if len(names) > shown else "")
