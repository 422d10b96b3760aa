"""The paper exporter's dataset layout: ``<root>/<name>/train.npz`` and ``test.npz``, CSR parts.

Each file holds the compressed sparse row parts of the features and of the labels, under the keys
``X_data, X_indices, X_indptr, X_shape`` and ``Y_data, Y_indices, Y_indptr, Y_shape`` (the arrays
of ``scipy.sparse.csr_matrix``: row ``i``'s entries are ``data[indptr[i]:indptr[i+1]]`` in the
columns ``indices[indptr[i]:indptr[i+1]]``). The dataset's rows are ``train.npz``'s, then
``test.npz``'s: the order in which the reference exporter joined them.

The files come from elsewhere, so nothing is trusted: each file must be a regular file within the
dataset file size limit, it is read without pickles (``allow_pickle=False``), every member's
declared size and the dense size of both matrices must fit the array size limit
(:func:`~pipeline.data.matheader.byte_limit`) before anything is decompressed, and the CSR parts
must describe a valid matrix (``indptr`` from 0 to nnz and non-decreasing, column indices in
range and not repeated within a row, finite values, labels 0 or 1). Every refusal is a DataError
naming the file and the key.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from ..errors import DataError
from ..fileio import open_regular_file
from ..limits import dataset_file_limit
from .matheader import byte_limit
from .readers import RawData, numbered

#: The layout's name in a dataset's provenance.
NPZ_CSR = "npz-csr"
#: The two files of a dataset, in row order.
NPZ_PARTS = ("train.npz", "test.npz")
_CSR_PARTS = ("data", "indices", "indptr", "shape")
NPZ_KEYS = tuple(f"{matrix}_{part}" for matrix in ("X", "Y") for part in _CSR_PARTS)


def npz_files(name: str, root: str | Path) -> list[Path]:
    """``<root>/<name>/train.npz`` and ``test.npz``, in row order."""
    return [Path(root) / name / part for part in NPZ_PARTS]


def read_npz_pair(train_path: str | Path, test_path: str | Path) -> RawData:
    """Read a dataset in the NPZ layout: the rows of ``train_path``, then those of ``test_path``.

    Returns
    -------
    RawData
        X (n, d) float64 and Y (n, L) uint8, densified (the fold files store dense matrices).

    Raises
    ------
    DataError
        A file that is missing, too large, not an NPZ archive, lacks a key or holds an invalid CSR
        matrix; or train and test disagree on d or L.
    """
    (X_train, Y_train), (X_test, Y_test) = read_npz_file(train_path), read_npz_file(test_path)
    if X_train.shape[1] != X_test.shape[1] or Y_train.shape[1] != Y_test.shape[1]:
        raise DataError("train and test parts disagree on d or L", file=test_path, field="X_shape, Y_shape",
                        expected=(X_train.shape[1], Y_train.shape[1]), found=(X_test.shape[1], Y_test.shape[1]))
    return numbered(np.vstack([X_train, X_test]), np.vstack([Y_train, Y_test]))


def read_npz_file(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """The dense X (n, d) float64 and Y (n, L) uint8 of one NPZ file of the layout."""
    path = Path(path)
    limit = byte_limit()
    with open_regular_file(path, "NPZ file", dataset_file_limit(), DataError) as handle:
        try:
            archive = np.load(handle, allow_pickle=False)
        except (ValueError, OSError, zipfile.BadZipFile) as exc:
            raise DataError("not an NPZ archive", file=path, found=str(exc)) from None
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise DataError("not an NPZ archive", file=path, expected=f"keys {list(NPZ_KEYS)}",
                            found="a single array")
        with archive:
            _check_members(path, archive, limit)
            shapes = {matrix: _shape(path, archive, f"{matrix}_shape") for matrix in ("X", "Y")}
            dense_bytes = 8 * sum(rows * columns for rows, columns in shapes.values())
            if dense_bytes > limit:
                raise DataError("matrices too large", file=path, field="X_shape, Y_shape",
                                expected=f"at most {limit} bytes as float64", found=f"{dense_bytes} bytes")
            X = _dense(path, archive, "X", shapes["X"]).astype(np.float64)
            Y = _dense(path, archive, "Y", shapes["Y"])
    if X.shape[0] != Y.shape[0]:
        raise DataError("row count of the labels differs from the features", file=path, field="Y_shape",
                        expected=f"{X.shape[0]} rows (as X_shape)", found=f"{Y.shape[0]} rows")
    if not np.isin(Y, (0, 1)).all():
        raise DataError("labels must be 0 or 1", file=path, field="Y_data", expected="values in {0, 1}",
                        found=np.unique(Y[~np.isin(Y, (0, 1))])[:5].tolist())
    return X, Y.astype(np.uint8)


def _check_members(path: Path, archive, limit: int) -> None:
    """Every key present, and no member larger than ``limit`` once decompressed (from the zip
    directory, before anything is decompressed)."""
    missing = [key for key in NPZ_KEYS if key not in archive.files]
    if missing:
        raise DataError("missing key", file=path, field=missing[0], expected=f"keys {list(NPZ_KEYS)}",
                        found=f"keys {sorted(archive.files)}")
    for info in archive.zip.infolist():
        if info.file_size > limit:
            raise DataError("member too large", file=path, field=info.filename.removesuffix(".npy"),
                            expected=f"at most {limit} bytes", found=f"{info.file_size} bytes")


def _array(path: Path, archive, key: str, kinds: str) -> np.ndarray:
    try:
        array = archive[key]
    except (ValueError, OSError, zipfile.BadZipFile) as exc:  # pickled objects, a damaged member
        raise DataError("cannot read array", file=path, field=key, found=str(exc)) from None
    if array.ndim != 1 or array.dtype.kind not in kinds:
        raise DataError("not a 1-D array of the right kind", file=path, field=key,
                        expected="integers" if kinds == "iu" else "numbers",
                        found=f"{array.ndim}-D {array.dtype}")
    return array


def _shape(path: Path, archive, key: str) -> tuple[int, int]:
    shape = _array(path, archive, key, "iu")
    if shape.size != 2 or (shape < 0).any():
        raise DataError("not a shape", file=path, field=key, expected="two non-negative integers (rows, columns)",
                        found=shape.tolist()[:4])
    return int(shape[0]), int(shape[1])


def _dense(path: Path, archive, matrix: str, shape: tuple[int, int]) -> np.ndarray:
    """The dense matrix of one CSR triple, once the triple is known to be a valid CSR matrix."""
    rows, columns = shape
    data = _array(path, archive, f"{matrix}_data", "biuf")
    indices = _array(path, archive, f"{matrix}_indices", "iu").astype(np.int64)
    indptr = _array(path, archive, f"{matrix}_indptr", "iu").astype(np.int64)
    if indptr.size != rows + 1 or indptr[0] != 0 or (np.diff(indptr) < 0).any() or indptr[-1] != data.size:
        raise DataError("invalid row pointers", file=path, field=f"{matrix}_indptr",
                        expected=f"{rows + 1} non-decreasing entries from 0 to {data.size} (nnz)",
                        found=f"{indptr.size} entries from {indptr[:1].tolist()} to {indptr[-1:].tolist()}")
    if indices.size != data.size or (indices.size and (indices.min() < 0 or indices.max() >= columns)):
        raise DataError("invalid column indices", file=path, field=f"{matrix}_indices",
                        expected=f"{data.size} indices in 0..{columns - 1}", found=f"{indices.size} indices")
    row_of = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
    if np.unique(row_of * columns + indices).size != indices.size:
        raise DataError("a column appears twice in a row", file=path, field=f"{matrix}_indices",
                        expected="each (row, column) at most once")
    if data.dtype.kind == "f" and not np.isfinite(data).all():
        raise DataError("non-finite values", file=path, field=f"{matrix}_data", expected="finite values")
    dense = np.zeros(shape, dtype=data.dtype)
    dense[row_of, indices] = data
    return dense
