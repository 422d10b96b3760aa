"""Fold files: where they live, how they are loaded and validated.

A fold file ``<data_dir>/<dataset>/fold<i>.mat`` (MATLAB v5) holds four variables, one row per
instance:

=========== ============ ========================================================
key         shape        content
=========== ============ ========================================================
``X_train`` (n_train, d) features of the training part (scaled on train only)
``Y_train`` (n_train, L) labels, {0,1}
``X_test``  (n_test, d)  features of the test part (scaled with the train parameters)
``Y_test``  (n_test, L)  labels, {0,1}
=========== ============ ========================================================

Loading validates all of it and raises :class:`~pipeline.errors.DataError` naming the file, the
field, what was expected and what was found. Labels must be {0,1}; {-1,+1} labels (the Yahoo
``.mat`` convention) are **rejected**, not converted, because a fold file is always written by our
exporter and a {-1,+1} fold means it came from somewhere unexpected.

Hostile files are refused before they cost memory: the variable headers are read first
(:mod:`pipeline.data.matheader`, nothing inflated), and a fold whose four arrays would take more
than :func:`~pipeline.data.matheader.byte_limit` bytes as float64 is refused before its data is read. Feature values
are bounded by :func:`max_feature_magnitude` so that no squared distance over the fold's features
can overflow (which would make the evaluators' neighbour choices depend on how they add).
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ConfigError, DataError
from ..fileio import open_regular_file
from ..names import validate_name
from ..fileio import atomic_write_bytes
from .matfile import mat_bytes
from .matheader import NUMERIC_CLASSES, byte_limit, load_declared_matrices, read_mat_headers

FOLD_KEYS = ("X_train", "Y_train", "X_test", "Y_test")
#: Canonical fold file names: ``fold0.mat`` ... ``fold999999.mat`` (ASCII digits, no leading zero).
_FOLD_FILE = re.compile(r"fold(0|[1-9][0-9]{0,5})\.mat", re.ASCII)
#: Names a reader would take for a fold file, but which are not canonical (``fold01.mat``,
#: ``fold0.mat`` followed by a newline, non-ASCII digits, ``FOLD0.MAT``): refused, never skipped.
_FOLD_LIKE = re.compile(r"\s*fold\s*\d+\s*\.mat\s*", re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class Fold:
    """One train/test split of a dataset, as read from a fold file.

    Attributes
    ----------
    X_train : ndarray of shape (n_train, d), float64
    Y_train : ndarray of shape (n_train, L), uint8 in {0, 1}
    X_test : ndarray of shape (n_test, d), float64
    Y_test : ndarray of shape (n_test, L), uint8 in {0, 1}
    path : Path
        The fold file it was read from.
    dataset : str
        Dataset name (the fold file's folder name unless given explicitly).
    index : int
        Fold index i of ``fold<i>.mat`` (-1 if the file name does not say).
    """

    X_train: np.ndarray
    Y_train: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray
    path: Path
    dataset: str
    index: int

    @property
    def n_features(self) -> int:
        """Number of features d."""
        return int(self.X_train.shape[1])

    @property
    def n_labels(self) -> int:
        """Number of labels L."""
        return int(self.Y_train.shape[1])


def fold_path(data_dir: str | Path, dataset: str, i: int) -> Path:
    """Return ``<data_dir>/<dataset>/fold<i>.mat`` after validating the dataset name."""
    validate_name(dataset, "dataset")
    if int(i) < 0:
        raise DataError("fold index must be non-negative", field="fold", expected=">= 0", found=i)
    return Path(data_dir) / dataset / f"fold{int(i)}.mat"


def list_fold_indices(data_dir: str | Path, dataset: str) -> list[int]:
    """Sorted indices i of the ``fold<i>.mat`` files in ``<data_dir>/<dataset>`` (empty if none).

    Raises
    ------
    DataError
        A file name looks like a fold file but is not canonical (``fold01.mat``, a trailing
        newline, ...): it would be silently ignored otherwise.
    """
    folder = Path(data_dir) / validate_name(dataset, "dataset")
    if not folder.is_dir():
        return []
    indices = []
    # every entry but a folder: a FIFO or device named fold1.mat is refused when it is loaded,
    # not skipped (the dataset would silently lose a fold)
    for name in sorted(p.name for p in folder.iterdir() if not p.is_dir()):
        match = _FOLD_FILE.fullmatch(name)
        if match:
            indices.append(int(match.group(1)))
        elif _FOLD_LIKE.fullmatch(name):
            raise DataError("not a valid fold file name", file=folder,
                            expected="fold<i>.mat with i in 0..999999 written in ASCII digits "
                                     "without leading zeros, nothing around it", found=repr(name))
    return sorted(indices)


def discover_datasets(data_dir: str | Path) -> list[str]:
    """Sorted names of the subfolders of ``data_dir`` that contain ``fold0.mat``.

    Raises
    ------
    DataError
        Such a folder's name is not a valid dataset name (e.g. it ends in a newline): it would
        make result files no later stage reads.
    """
    root = Path(data_dir)
    if not root.is_dir():
        return []
    names = sorted(p.name for p in root.iterdir()
                   if p.is_dir() and (p / "fold0.mat").exists() and not (p / "fold0.mat").is_dir())
    for name in names:
        try:
            validate_name(name, "dataset")
        except ConfigError as exc:
            raise DataError(f"dataset folder with an invalid name: rename it, or choose datasets "
                            f"with --datasets ({exc.message})", file=root / name) from None
    return names


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes (read in 1 MiB blocks); DataError when it is missing or not a
    regular file (a FIFO would block, a link to ``/dev/zero`` never end)."""
    digest = hashlib.sha256()
    with open_regular_file(path, "file", None, DataError) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fold_feature_count(path: str | Path) -> int:
    """The number of features d of a fold file, read from its MAT header without loading the arrays."""
    return _training_shape(Path(path))[1]


def fold_training_rows(path: str | Path) -> int:
    """The number of training instances of a fold file, read from its MAT header without loading the arrays."""
    return _training_shape(Path(path))[0]


def _training_shape(path: Path) -> tuple[int, int]:
    """``X_train``'s (rows, columns) from the MAT header. A file whose header does not show a real
    numeric 2-D ``X_train`` is loaded in full, so the error is the precise one :func:`load_fold`
    raises (DataError)."""
    try:
        variable = {variable.name: variable for variable in read_mat_headers(path)}.get("X_train")
    except (OSError, DataError):  # unreadable header: let load_fold say exactly what is wrong
        variable = None
    if variable is None or len(variable.dims) != 2 or variable.class_id not in NUMERIC_CLASSES \
            or variable.is_complex:
        return load_fold(path).X_train.shape
    return int(variable.dims[0]), int(variable.dims[1])


def max_feature_magnitude(d: int) -> float:
    """Largest |feature value| accepted in a fold with ``d`` features: ``sqrt(realmax / (8 d))``.

    With every |x| <= M, a difference is at most 2M, a squared difference at most 4M^2 and a sum
    of d of them at most 4 d M^2 = realmax / 2: no canonical squared distance (nor the norms and
    cross products of a BLAS evaluation, each bounded the same way) can overflow, with a factor
    of 2 to spare for rounding.
    """
    return math.sqrt(sys.float_info.max / (8 * d))


def load_fold(path: str | Path, *, dataset: str | None = None, index: int | None = None,
              max_bytes: int | None = None) -> Fold:
    """Read and validate a fold file.

    Parameters
    ----------
    path : str or Path
        A ``fold<i>.mat`` file.
    dataset : str, optional
        Dataset name; defaults to the name of the file's folder.
    index : int, optional
        Fold index; defaults to the ``<i>`` of ``fold<i>.mat`` (or -1).
    max_bytes : int, optional
        Limit on the four arrays as float64 (default :func:`~pipeline.data.matheader.byte_limit`),
        checked on the declared shapes before any data is read.

    Returns
    -------
    Fold
        X as float64, Y as uint8 in {0,1}.

    Raises
    ------
    DataError
        The file is missing, truncated or not a MAT file; a key is missing; an array is not 2-D,
        not numeric, or has non-finite features or features above :func:`max_feature_magnitude`;
        row counts of X and Y differ; train and test disagree on d or L; a label is not 0 or 1;
        the arrays are larger than the limit.
    """
    path = Path(path)
    if index is None:
        match = _FOLD_FILE.fullmatch(path.name)
        index = int(match.group(1)) if match else -1
    try:
        arrays = _validated(path, load_declared_matrices(path, "fold file", FOLD_KEYS, byte_limit(max_bytes)))
        return Fold(
            X_train=np.ascontiguousarray(arrays["X_train"], dtype=np.float64),
            Y_train=np.ascontiguousarray(arrays["Y_train"], dtype=np.uint8),
            X_test=np.ascontiguousarray(arrays["X_test"], dtype=np.float64),
            Y_test=np.ascontiguousarray(arrays["Y_test"], dtype=np.uint8),
            path=path, dataset=dataset if dataset is not None else path.parent.name, index=int(index))
    except MemoryError:  # the estimate from the headers fell short of what the machine could give
        raise DataError("not enough memory to load the fold", file=path) from None


def save_fold(path: str | Path, X_train: np.ndarray, Y_train: np.ndarray,
              X_test: np.ndarray, Y_test: np.ndarray) -> Path:
    """Write a fold file atomically and deterministically (X float64, Y int8, as the reference).

    The arrays get the same checks as :func:`load_fold` first, so an invalid fold is never written.

    Parameters
    ----------
    X_train : (n_train, d), Y_train : (n_train, L), X_test : (n_test, d), Y_test : (n_test, L)
        Y in {0,1}.
    """
    return atomic_write_bytes(path, fold_bytes(path, X_train, Y_train, X_test, Y_test))


def fold_bytes(path: str | Path, X_train: np.ndarray, Y_train: np.ndarray,
               X_test: np.ndarray, Y_test: np.ndarray) -> bytes:
    """The content :func:`save_fold` writes to ``path`` (checked as it checks them; ``path`` names
    the file in errors), for a writer that records its SHA-256 before the file exists."""
    path = Path(path)
    _validated(path, {"X_train": np.asarray(X_train), "Y_train": np.asarray(Y_train),
                      "X_test": np.asarray(X_test), "Y_test": np.asarray(Y_test)})
    return mat_bytes({
        "X_train": np.asarray(X_train, dtype=np.float64),
        "Y_train": np.asarray(Y_train, dtype=np.int8),
        "X_test": np.asarray(X_test, dtype=np.float64),
        "Y_test": np.asarray(Y_test, dtype=np.int8),
    })


def _validated(path: Path, variables: dict) -> dict[str, np.ndarray]:
    """The four fold arrays of ``variables`` after every check, or DataError naming path and field."""
    arrays = {key: _numeric_matrix(path, key, variables) for key in FOLD_KEYS}
    _check_shapes(path, arrays)
    limit = max_feature_magnitude(arrays["X_train"].shape[1])
    for key in ("X_train", "X_test"):
        _check_finite(path, key, arrays[key])
        _check_magnitude(path, key, arrays[key], limit)
    for key in ("Y_train", "Y_test"):
        _check_binary(path, key, arrays[key])
    return arrays


def _numeric_matrix(path: Path, key: str, variables: dict) -> np.ndarray:
    if key not in variables:
        present = sorted(k for k in variables if not k.startswith("__"))
        raise DataError("missing variable", file=path, field=key,
                        expected=f"keys {list(FOLD_KEYS)}", found=f"keys {present}")
    array = variables[key]
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "biuf":
        kind = type(array).__name__ if not isinstance(array, np.ndarray) else array.dtype
        raise DataError("not a real numeric array", file=path, field=key,
                        expected="numeric (bool, int, uint or float)", found=kind)
    if array.ndim != 2:
        raise DataError("wrong number of dimensions", file=path, field=key,
                        expected="2-D (rows = instances)", found=f"{array.ndim}-D {array.shape}")
    return array


def _check_shapes(path: Path, arrays: dict) -> None:
    for part in ("train", "test"):
        x, y = arrays[f"X_{part}"], arrays[f"Y_{part}"]
        if x.shape[0] != y.shape[0]:
            raise DataError("row count differs from the features", file=path, field=f"Y_{part}",
                            expected=f"{x.shape[0]} rows (as X_{part})", found=f"{y.shape[0]} rows")
        if x.shape[0] == 0:
            raise DataError("no instances", file=path, field=f"X_{part}", expected=">= 1 row",
                            found=x.shape)
    for prefix, what in (("X", "features"), ("Y", "labels")):
        train, test = arrays[f"{prefix}_train"], arrays[f"{prefix}_test"]
        if train.shape[1] != test.shape[1]:
            raise DataError(f"number of {what} differs between train and test", file=path,
                            field=f"{prefix}_test", expected=f"{train.shape[1]} columns",
                            found=f"{test.shape[1]} columns")
        if train.shape[1] == 0:
            raise DataError(f"no {what}", file=path, field=f"{prefix}_train",
                            expected=">= 1 column", found=train.shape)


def _check_finite(path: Path, key: str, array: np.ndarray) -> None:
    bad = ~np.isfinite(array)
    if bad.any():
        row, col = (int(v) for v in np.argwhere(bad)[0])
        raise DataError("non-finite feature values", file=path, field=key, expected="finite values",
                        found=f"{int(bad.sum())} NaN/Inf, first at row {row}, column {col}")


def _check_magnitude(path: Path, key: str, array: np.ndarray, limit: float) -> None:
    if -limit <= array.min() and array.max() <= limit:  # two reductions, no temporary array
        return
    big = (array > limit) | (array < -limit)
    row, col = (int(v) for v in np.argwhere(big)[0])
    raise DataError("feature value too large: a squared distance over the fold's features could "
                    "overflow", file=path, field=key,
                    expected=f"|x| <= {limit:.6g} = sqrt(realmax / (8 d)) for d = {array.shape[1]}",
                    found=f"{array[row, col].item()!r} at row {row}, column {col} "
                          f"({int(big.sum())} such values)")


def _check_binary(path: Path, key: str, array: np.ndarray) -> None:
    bad = (array != 0) & (array != 1)
    if bad.any():
        values = np.unique(array[bad])[:5].tolist()
        raise DataError("labels must be 0 or 1", file=path, field=key, expected="values in {0, 1}",
                        found=f"{int(bad.sum())} other values, e.g. {values}")
