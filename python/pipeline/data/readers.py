"""Readers for the two on-disk layouts of the multi-label benchmark data.

* **Mulan** (ARFF + XML): the XML names the L label attributes; in the ARFF files they are the
  *last* L attributes, and their **file order** is used (the XML order differs for yeast and enron).
  Dense and sparse ARFF are both read with ``liac-arff``. Features may be numeric, nominal {0,1}
  or nominal {YES,NO} (YES = 1); named ID attributes (genbase's ``protein``) are dropped.
* **Yahoo** ``.mat`` (LAMDA layout): ``train_data``/``test_data`` are n x d, ``train_target``/
  ``test_target`` are L x n with +1 = relevant (-1, or 0, = irrelevant); targets are transposed to
  n x L and mapped to {0,1}.
* **CLML** ``.mat`` (bibtex, Corel5k): ``dataset`` is n x d, ``class`` is L x n with 1 = relevant
  (stored as {0,1} in bibtex and {-1,+1} in Corel5k); no split is stored.
* **MLC-toolbox** ``.mat`` (the fourteen larger sets of ``../shared/data/mlc-large``): ``data`` is
  n x d, ``target`` is L x n with 1 = relevant; no split is stored.

The Mulan and Yahoo readers return the rows of the **predefined training part followed by the test
part** (the row order of the reference exporter and of the Zhang-style ``.mat`` copies); the CLML
and MLC-toolbox readers keep the file's row order. The ``.mat`` readers check the variables'
declared shapes (:mod:`pipeline.data.matheader`) before loading them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import arff
import numpy as np

from ..errors import DataError
from ..fileio import read_regular_file
from ..limits import dataset_file_limit
from .matheader import byte_limit, load_declared_matrices

_NUMERIC_TYPES = ("NUMERIC", "REAL", "INTEGER")


@dataclass(frozen=True)
class RawData:
    """Features, labels and names as read from files (before the registry's shape check).

    X : (n, d) float64; Y : (n, L) uint8 in {0,1}.
    """

    X: np.ndarray
    Y: np.ndarray
    label_names: tuple[str, ...]
    feature_names: tuple[str, ...]


def read_mulan_labels(xml_path: str | Path) -> list[str]:
    """Label names listed in a Mulan XML file, in XML order."""
    xml_path = Path(xml_path)
    raw = read_regular_file(xml_path, "Mulan label XML", dataset_file_limit(), DataError)
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError as exc:
        raise DataError("cannot read Mulan label XML", file=xml_path, found=str(exc)) from None
    names = [el.get("name") for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "label"]
    if not names or any(name is None for name in names):
        raise DataError("no <label name=...> elements", file=xml_path, field="labels")
    return names


def read_mulan(arff_paths: list[str | Path], xml_path: str | Path, *,
               drop_attributes: tuple[str, ...] = ()) -> RawData:
    """Read one or more Mulan ARFF files with the same header and stack their rows.

    Parameters
    ----------
    arff_paths : list of paths
        E.g. ``[<name>-train.arff, <name>-test.arff]``; rows are concatenated in this order.
    xml_path : path
        The Mulan XML listing the label attributes.
    drop_attributes : tuple of str
        Feature attributes to drop by name (identifiers such as genbase's ``protein``).

    Returns
    -------
    RawData
        X (n, d) float64 and Y (n, L) uint8, labels in ARFF file order.
    """
    label_set = set(read_mulan_labels(xml_path))
    parts = [_read_arff_file(Path(p), label_set, drop_attributes) for p in arff_paths]
    first = parts[0]
    for path, part in zip(arff_paths[1:], parts[1:]):
        if part.feature_names != first.feature_names or part.label_names != first.label_names:
            raise DataError("attributes differ from the first file", file=path, field="@attribute",
                            expected=f"the header of {arff_paths[0]}")
    return RawData(X=np.vstack([p.X for p in parts]), Y=np.vstack([p.Y for p in parts]),
                   label_names=first.label_names, feature_names=first.feature_names)


def read_yahoo_mat(path: str | Path) -> RawData:
    """Read a Yahoo (LAMDA) ``.mat`` file: train rows, then test rows.

    Returns
    -------
    RawData
        X (n_train + n_test, d) float64; Y (n_train + n_test, L) uint8 with 1 where the target is +1.
    """
    path = Path(path)
    variables = load_declared_matrices(path, "file", ("train_data", "train_target", "test_data", "test_target"),
                                       byte_limit())
    xs, ys = [], []
    for part in ("train", "test"):
        x = _mat_variable(path, variables, f"{part}_data")
        ys.append(_labels_from_targets(path, f"{part}_target",
                                       _mat_variable(path, variables, f"{part}_target"), x.shape[0]))
        xs.append(x.astype(np.float64))
    if xs[0].shape[1] != xs[1].shape[1] or ys[0].shape[1] != ys[1].shape[1]:
        raise DataError("train and test parts disagree on d or L", file=path, field="test_data",
                        expected=(xs[0].shape[1], ys[0].shape[1]),
                        found=(xs[1].shape[1], ys[1].shape[1]))
    return numbered(np.vstack(xs), np.vstack(ys))


def read_clml_mat(path: str | Path) -> RawData:
    """Read a CLML ``.mat`` file (bibtex, Corel5k): ``dataset`` n x d, ``class`` L x n.

    Returns
    -------
    RawData
        X (n, d) float64 and Y (n, L) uint8 with 1 where ``class`` is 1, rows in file order.
    """
    return _read_features_and_targets(Path(path), "dataset", "class")


def read_mlc_toolbox_mat(path: str | Path) -> RawData:
    """Read an MLC-toolbox ``.mat`` file: ``data`` n x d, ``target`` L x n.

    Returns
    -------
    RawData
        X (n, d) float64 and Y (n, L) uint8 with 1 where ``target`` is 1, rows in file order.
    """
    return _read_features_and_targets(Path(path), "data", "target")


def _read_features_and_targets(path: Path, features: str, targets: str) -> RawData:
    """The two layouts that store features n x d and targets L x n under their own names."""
    variables = load_declared_matrices(path, "file", (features, targets), byte_limit())
    x = _mat_variable(path, variables, features)
    Y = _labels_from_targets(path, targets, _mat_variable(path, variables, targets), x.shape[0])
    return numbered(x.astype(np.float64), Y)


def _labels_from_targets(path: Path, key: str, targets: np.ndarray, n: int) -> np.ndarray:
    """(n, L) uint8 labels from L x n targets: 1 where the target is +1; -1 and 0 are irrelevant."""
    if targets.shape[1] != n:
        raise DataError("targets must be L x n (one column per instance)", file=path, field=key,
                        expected=f"{n} columns", found=f"shape {targets.shape}")
    bad = ~np.isin(targets, (-1, 0, 1))
    if bad.any():
        raise DataError("target values must be -1/0 (irrelevant) or +1 (relevant)", file=path,
                        field=key, found=np.unique(targets[bad])[:5].tolist())
    return (targets.T == 1).astype(np.uint8)


def numbered(X: np.ndarray, Y: np.ndarray) -> RawData:
    """RawData with the names ``feature1..featured`` and ``label1..labelL`` (the files have none)."""
    return RawData(X=X, Y=Y, label_names=tuple(f"label{j + 1}" for j in range(Y.shape[1])),
                   feature_names=tuple(f"feature{j + 1}" for j in range(X.shape[1])))


def _mat_variable(path: Path, variables: dict, key: str) -> np.ndarray:
    value = variables[key]
    if not isinstance(value, np.ndarray) or value.ndim != 2 or value.dtype.kind not in "biuf":
        raise DataError("not a 2-D numeric array", file=path, field=key,
                        found=getattr(value, "shape", type(value).__name__))
    if value.dtype.kind == "f" and not np.isfinite(value).all():
        raise DataError("non-finite values", file=path, field=key, expected="finite values")
    return value


def _read_arff_file(path: Path, label_set: set[str], drop_attributes: tuple[str, ...]) -> RawData:
    raw = read_regular_file(path, "ARFF file", dataset_file_limit(), DataError)
    try:
        decoded = arff.loads(raw.decode("utf-8"))
    except (arff.ArffException, UnicodeDecodeError) as exc:
        raise DataError("cannot read ARFF file", file=path, found=str(exc)) from None
    attributes = decoded["attributes"]
    names = [name for name, _ in attributes]
    n_labels = len(label_set)
    label_names = names[len(names) - n_labels:]
    if set(label_names) != label_set:
        raise DataError("the last L attributes are not the labels named in the XML", file=path,
                        field="@attribute", expected=f"{n_labels} labels at the end",
                        found=f"{sorted(set(label_names) - label_set)[:3]} among them")
    missing = [name for name in drop_attributes if name not in names[:len(names) - n_labels]]
    if missing:
        raise DataError("attribute to drop not found", file=path, field=missing[0])
    rows = decoded["data"]
    table = np.array(rows, dtype=object).reshape(len(rows), len(names))
    feature_columns = [j for j in range(len(names) - n_labels) if names[j] not in drop_attributes]
    X = np.column_stack([_feature_column(path, names[j], attributes[j][1], table[:, j])
                         for j in feature_columns]) if feature_columns else np.zeros((len(rows), 0))
    Y = np.column_stack([_label_column(path, names[j], attributes[j][1], table[:, j])
                         for j in range(len(names) - n_labels, len(names))])
    return RawData(X=X, Y=Y, label_names=tuple(label_names),
                   feature_names=tuple(names[j] for j in feature_columns))


def _feature_column(path: Path, name: str, kind, column: np.ndarray) -> np.ndarray:
    _reject_missing(path, name, column)
    if isinstance(kind, str) and kind.upper() in _NUMERIC_TYPES:
        return _finite_column(path, name, column.astype(np.float64))
    values = set(kind) if isinstance(kind, list) else set()
    if values == {"0", "1"}:
        return (column == "1").astype(np.float64)
    if values == {"YES", "NO"}:
        return (column == "YES").astype(np.float64)
    raise DataError("unsupported feature type", file=path, field=name,
                    expected="NUMERIC, {0,1} or {YES,NO}", found=kind)


def _finite_column(path: Path, name: str, values: np.ndarray) -> np.ndarray:
    """``values``, or DataError naming the attribute and the first data row holding ``inf``,
    ``nan`` or a number beyond the float range (``1e999``), which ARFF's reader takes as infinite."""
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise DataError("non-finite feature value (inf, nan, or beyond the float range as 1e999)",
                        file=path, field=name, expected="finite numbers",
                        found=f"{values[bad[0]]} in data row {int(bad[0])}, {bad.size} in all")
    return values


def _label_column(path: Path, name: str, kind, column: np.ndarray) -> np.ndarray:
    _reject_missing(path, name, column)
    if not (isinstance(kind, list) and set(kind) == {"0", "1"}):
        raise DataError("label attribute must be nominal {0,1}", file=path, field=name, found=kind)
    return (column == "1").astype(np.uint8)


def _reject_missing(path: Path, name: str, column: np.ndarray) -> None:
    missing = np.flatnonzero(column == None)  # noqa: E711 (element-wise comparison on objects)
    if missing.size:
        raise DataError("missing values ('?') are not supported", file=path, field=name,
                        found=f"{missing.size} missing, first in data row {int(missing[0])}")
