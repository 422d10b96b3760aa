"""Characteristics of a dataset as its fold files hold it: the dataset table of a paper."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import DataError
from .folds import fold_path, load_fold
from .matheader import read_mat_headers
from .registry import REGISTRY


@dataclass(frozen=True)
class DatasetSummary:
    """Shape and label statistics of one dataset over the folds used.

    ``n`` instances (train + test of a fold), ``d`` features, ``n_labels`` labels; ``n_train`` and
    ``n_test`` as (smallest, largest) over the folds; ``cardinality`` (mean relevant labels per
    instance), ``density`` (cardinality / L), ``distinct_label_sets`` and ``zero_share`` (share of
    zero feature values) over the instances of the first fold (train and test together: every fold
    holds the same instances); ``domain`` from the registry ("" for an unregistered name).
    """

    name: str
    domain: str
    n: int
    d: int
    n_labels: int
    n_train: tuple[int, int]
    n_test: tuple[int, int]
    cardinality: float
    density: float
    distinct_label_sets: int
    zero_share: float


def summarise_dataset(folds_dir: str | Path, dataset: str, fold_indices: Sequence[int]) -> DatasetSummary:
    """Read the dataset's fold files (``<folds_dir>/<dataset>/fold<i>.mat``) and summarise them.

    Raises DataError naming the file when a fold file is missing or invalid.
    """
    if not fold_indices:
        raise DataError("no fold to summarise", field="fold_indices", file=Path(folds_dir) / dataset)
    paths = [fold_path(folds_dir, dataset, i) for i in fold_indices]
    for path in paths:
        if not path.is_file():
            raise DataError("fold file not found (needed for the dataset table)", file=path)
    first = load_fold(paths[0], dataset=dataset, index=fold_indices[0])
    sizes = [(first.X_train.shape[0], first.X_test.shape[0])] + [_split_sizes(p) for p in paths[1:]]
    X = np.vstack([first.X_train, first.X_test])
    Y = np.vstack([first.Y_train, first.Y_test]).astype(bool)
    cardinality = float(Y.sum(axis=1).mean())
    spec = REGISTRY.get(dataset)
    return DatasetSummary(
        name=dataset, domain=spec.domain if spec is not None else "", n=X.shape[0], d=X.shape[1],
        n_labels=Y.shape[1], n_train=(min(s[0] for s in sizes), max(s[0] for s in sizes)),
        n_test=(min(s[1] for s in sizes), max(s[1] for s in sizes)), cardinality=cardinality,
        density=cardinality / Y.shape[1], distinct_label_sets=int(np.unique(Y, axis=0).shape[0]),
        zero_share=float(np.mean(X == 0)))


def _split_sizes(path: Path) -> tuple[int, int]:
    """(n_train, n_test) of a fold file from its MAT headers; the file is loaded (and so checked)
    when the headers do not show them."""
    dims = {variable.name: variable.dims for variable in read_mat_headers(path)}
    if all(len(dims.get(key, ())) == 2 for key in ("X_train", "X_test")):
        return int(dims["X_train"][0]), int(dims["X_test"][0])
    fold = load_fold(path)
    return fold.X_train.shape[0], fold.X_test.shape[0]
