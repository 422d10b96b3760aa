"""Hand-made MAT v5 files for the hostile-input tests (bombs, lying headers, broken elements), and
the peak memory a loader takes on them.

Written from the MAT v5 layout (128-byte header; per variable an miMATRIX element with array
flags, dimensions, name and real part, optionally inside an miCOMPRESSED zlib stream) so that a
test can declare any shape without allocating it.
"""

from __future__ import annotations

import struct
import tracemalloc
import zlib

import numpy as np

MI_INT8, MI_UINT8, MI_UINT32, MI_INT32, MI_DOUBLE, MI_MATRIX, MI_COMPRESSED = 1, 2, 6, 5, 9, 14, 15
DOUBLE_CLASS, SPARSE_CLASS = 6, 5


def _tag(kind: int, n_bytes: int) -> bytes:
    return struct.pack("<II", kind, n_bytes)


def _padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 8)


def file_bytes(*elements: bytes) -> bytes:
    """A little-endian MAT v5 file holding ``elements``."""
    text = b"MATLAB 5.0 MAT-file, crafted by the mlfs-bench hostile-input tests".ljust(116, b" ")
    return text + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM" + b"".join(elements)


def matrix_head(name: str, dims: tuple[int, ...], *, data_bytes: int | None = None,
                class_id: int = DOUBLE_CLASS, storage: int = MI_DOUBLE) -> tuple[bytes, int]:
    """(miMATRIX element up to and including the real part's tag, bytes of data still to follow).

    ``data_bytes`` defaults to what the shape needs as doubles; pass another count to make a lying
    header. The matrix byte count covers the data and its padding.
    """
    n_data = int(np.prod(dims)) * 8 if data_bytes is None else data_bytes
    body = (_tag(MI_UINT32, 8) + struct.pack("<II", class_id, 0)
            + _tag(MI_INT32, 4 * len(dims)) + _padded(struct.pack(f"<{len(dims)}i", *dims))
            + _tag(MI_INT8, len(name)) + _padded(name.encode()) + _tag(storage, n_data))
    padded_data = n_data + (-n_data % 8)
    return _tag(MI_MATRIX, len(body) + padded_data) + body, padded_data


def matrix(name: str, array: np.ndarray) -> bytes:
    """An uncompressed double matrix element (column-major data, as MATLAB stores it)."""
    array = np.asarray(array, dtype="<f8")
    head, _ = matrix_head(name, array.shape)
    return head + _padded(array.tobytes(order="F"))


def compressed(element: bytes) -> bytes:
    """``element`` inside an miCOMPRESSED element."""
    stream = zlib.compress(element, 6)
    return _tag(MI_COMPRESSED, len(stream)) + stream


def stored_as_uint8(name: str, array: np.ndarray) -> bytes:
    """An uncompressed double matrix whose data is stored as uint8, as MATLAB stores a double
    array of small integers (values 0..255)."""
    data = np.asarray(array).astype("<u1").tobytes(order="F")
    head, _ = matrix_head(name, np.shape(array), data_bytes=len(data), storage=MI_UINT8)
    return head + _padded(data)


def zero_bomb(name: str, dims: tuple[int, int], storage: int = MI_DOUBLE) -> bytes:
    """A compressed double matrix of zeros whose data really is there (inflates to n·d elements of
    the ``storage`` type: 8 bytes each for double, 1 for uint8)."""
    item = {MI_DOUBLE: 8, MI_UINT8: 1}[storage]
    head, n_data = matrix_head(name, dims, data_bytes=item * int(np.prod(dims)), storage=storage)
    packer = zlib.compressobj(9)
    parts = [packer.compress(head)]
    block = bytes(1 << 22)
    for start in range(0, n_data, len(block)):
        parts.append(packer.compress(block[:min(len(block), n_data - start)]))
    stream = b"".join(parts) + packer.flush()
    return _tag(MI_COMPRESSED, len(stream)) + stream


def lying_bomb(name: str, dims: tuple[int, int], compressed_size: int) -> bytes:
    """A compressed element of about ``compressed_size`` bytes whose header declares ``dims`` doubles.

    The zlib stream is valid but holds only the header and filler (stored blocks), far less than
    the declared data. To a reader that trusts the header it is a bomb: it allocates the declared
    size before it finds out.
    """
    head, _ = matrix_head(name, dims)
    packer = zlib.compressobj(0)  # level 0: stored blocks, as long as their content
    stream = packer.compress(head + b"\xa5" * (compressed_size - len(head))) + packer.flush()
    return _tag(MI_COMPRESSED, len(stream)) + stream


def small_fold(rng: np.random.Generator, n_train: int = 12, n_test: int = 5, d: int = 3) -> dict:
    """Four valid fold arrays (X in [0, 1), Y in {0, 1} with two labels)."""
    return {"X_train": rng.random((n_train, d)), "Y_train": (rng.random((n_train, 2)) > 0.5) * 1.0,
            "X_test": rng.random((n_test, d)), "Y_test": (rng.random((n_test, 2)) > 0.5) * 1.0}


def peak_bytes(function, *args, **kwargs) -> tuple[int, BaseException | None]:
    """Peak Python/NumPy allocation while ``function`` runs (tracemalloc), and what it raised."""
    tracemalloc.start()
    try:
        function(*args, **kwargs)
        raised = None
    except BaseException as exc:  # noqa: BLE001 (returned to the test, which checks its type)
        raised = exc
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, raised
