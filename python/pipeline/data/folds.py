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
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.io

from ..errors import DataError
from ..names import validate_name
from .matfile import write_mat

FOLD_KEYS = ("X_train", "Y_train", "X_test", "Y_test")
_FOLD_FILE = re.compile(r"^fold(\d+)\.mat$")


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
    """Sorted indices i of the ``fold<i>.mat`` files in ``<data_dir>/<dataset>`` (empty if none)."""
    folder = Path(data_dir) / validate_name(dataset, "dataset")
    if not folder.is_dir():
        return []
    matches = (_FOLD_FILE.match(p.name) for p in folder.iterdir() if p.is_file())
    return sorted(int(m.group(1)) for m in matches if m)


def discover_datasets(data_dir: str | Path) -> list[str]:
    """Sorted names of the subfolders of ``data_dir`` that contain ``fold0.mat``."""
    root = Path(data_dir)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / "fold0.mat").is_file())


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes (read in 1 MiB blocks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fold_feature_count(path: str | Path) -> int:
    """The number of features d of a fold file, read from its MAT header without loading the arrays.

    A file whose header does not show a 2-D ``X_train`` is loaded in full, so the error is the
    precise one :func:`load_fold` raises (DataError).
    """
    path = Path(path)
    try:
        shapes = {name: shape for name, shape, _ in scipy.io.whosmat(path)}
    except Exception:  # unreadable header: let load_fold say exactly what is wrong
        shapes = {}
    shape = shapes.get("X_train")
    if shape is None or len(shape) != 2:
        return load_fold(path).n_features
    return int(shape[1])


def load_fold(path: str | Path, *, dataset: str | None = None, index: int | None = None) -> Fold:
    """Read and validate a fold file.

    Parameters
    ----------
    path : str or Path
        A ``fold<i>.mat`` file.
    dataset : str, optional
        Dataset name; defaults to the name of the file's folder.
    index : int, optional
        Fold index; defaults to the ``<i>`` of ``fold<i>.mat`` (or -1).

    Returns
    -------
    Fold
        X as float64, Y as uint8 in {0,1}.

    Raises
    ------
    DataError
        The file is missing, truncated or not a MAT file; a key is missing; an array is not 2-D,
        not numeric, or has non-finite features; row counts of X and Y differ; train and test
        disagree on d or L; a label is not 0 or 1.
    """
    path = Path(path)
    arrays = _validated(path, _read_mat(path))
    if index is None:
        match = _FOLD_FILE.match(path.name)
        index = int(match.group(1)) if match else -1
    return Fold(
        X_train=np.ascontiguousarray(arrays["X_train"], dtype=np.float64),
        Y_train=np.ascontiguousarray(arrays["Y_train"], dtype=np.uint8),
        X_test=np.ascontiguousarray(arrays["X_test"], dtype=np.float64),
        Y_test=np.ascontiguousarray(arrays["Y_test"], dtype=np.uint8),
        path=path, dataset=dataset if dataset is not None else path.parent.name, index=int(index))


def save_fold(path: str | Path, X_train: np.ndarray, Y_train: np.ndarray,
              X_test: np.ndarray, Y_test: np.ndarray) -> Path:
    """Write a fold file atomically and deterministically (X float64, Y int8, as the reference).

    The arrays get the same checks as :func:`load_fold` first, so an invalid fold is never written.

    Parameters
    ----------
    X_train : (n_train, d), Y_train : (n_train, L), X_test : (n_test, d), Y_test : (n_test, L)
        Y in {0,1}.
    """
    path = Path(path)
    _validated(path, {"X_train": np.asarray(X_train), "Y_train": np.asarray(Y_train),
                      "X_test": np.asarray(X_test), "Y_test": np.asarray(Y_test)})
    return write_mat(path, {
        "X_train": np.asarray(X_train, dtype=np.float64),
        "Y_train": np.asarray(Y_train, dtype=np.int8),
        "X_test": np.asarray(X_test, dtype=np.float64),
        "Y_test": np.asarray(Y_test, dtype=np.int8),
    })


def _validated(path: Path, variables: dict) -> dict[str, np.ndarray]:
    """The four fold arrays of ``variables`` after every check, or DataError naming path and field."""
    arrays = {key: _numeric_matrix(path, key, variables) for key in FOLD_KEYS}
    _check_shapes(path, arrays)
    for key in ("X_train", "X_test"):
        _check_finite(path, key, arrays[key])
    for key in ("Y_train", "Y_test"):
        _check_binary(path, key, arrays[key])
    return arrays


def _read_mat(path: Path) -> dict:
    if not path.is_file():
        raise DataError("fold file not found", file=path)
    try:
        return scipy.io.loadmat(path)
    except Exception as exc:  # SciPy raises ValueError, TypeError, OSError... on bad files
        raise DataError("not a readable MATLAB .mat file (truncated or wrong format)", file=path,
                        found=f"{type(exc).__name__}: {exc}") from None


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


def _check_binary(path: Path, key: str, array: np.ndarray) -> None:
    bad = (array != 0) & (array != 1)
    if bad.any():
        values = np.unique(array[bad])[:5].tolist()
        raise DataError("labels must be 0 or 1", file=path, field=key, expected="values in {0, 1}",
                        found=f"{int(bad.sum())} other values, e.g. {values}")
