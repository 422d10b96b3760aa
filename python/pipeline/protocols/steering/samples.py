"""Reading the study's sample data: the preprocessed pickle layout and its CSV, Parquet and NPZ equivalents.

One sample per row, ordered by sequence and, inside a sequence, by time:

* a folder with ``features_{name}.pkl`` (``(N, 5)``, or ready-made windows ``(N, 50, 5)``),
  ``targets_{name}.pkl`` (``(N,)`` or ``(N, 1)``) and ``sequence_ids_{name}.pkl`` (``(N,)``
  integers or strings) — the preprocessed layout of the commaSteeringControl variants, ``name``
  being e.g. ``paper`` or ``full``; each file holds a NumPy array or a list;
* ``{name}.npz`` with the arrays ``features``, ``targets`` and ``sequence_ids`` (read without pickle);
* ``{name}.csv`` or ``{name}.parquet`` with the columns ``sequence_id``, ``target`` and the five
  feature columns (every other column is a feature, in file order).

Pickles go only through the restricted unpickler (:mod:`..restricted_pickle`: no code runs, memory
bounded by the file size and :class:`~..load_limits.LoadLimits`); NPZ data sizes are checked
before reading (:mod:`..npyfile`); tables go through :func:`.files.read_table`. Mismatched lengths,
NaN or infinite values, a wrong feature width and sequences that are not contiguous each end in one
:class:`~pipeline.errors.DataError` naming the file.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import DataError
from ...fileio import atomic_write_bytes
from ...names import validate_name
from ..load_limits import LoadLimits
from ..npyfile import npz_arrays
from ..restricted_pickle import restricted_load
from ..user_files import input_size, open_input_file
from .data import DrivingSamples, sequence_starts
from .files import read_table
from .models import N_FEATURES, WINDOW_LENGTH

PICKLE_PARTS = ("features", "targets", "sequence_ids")
TABLE_SUFFIXES = (".csv", ".parquet")


@dataclass(frozen=True)
class LoadedSamples:
    """Validated samples, the data set's ``name`` (a safe file name) and the files they came from."""

    samples: DrivingSamples
    name: str
    files: dict[str, Path]


def pickle_layout_names(folder: Path) -> list[str]:
    """The ``name`` of every ``features_{name}.pkl`` in ``folder``, sorted."""
    return sorted(p.name[len("features_"):-len(".pkl")] for p in folder.glob("features_*.pkl"))


def pickle_layout_files(folder: str | Path, name: str | None = None) -> tuple[str, dict[str, Path]]:
    """The data set name and ``{part: path}`` of the pickle layout in ``folder``.

    Without ``name`` the folder must hold exactly one ``features_*.pkl``; every part must exist.
    """
    folder = Path(folder)
    names = pickle_layout_names(folder)
    if name is None:
        if len(names) != 1:
            raise DataError("cannot tell which data set to read" if names else "no pickle layout found",
                            file=folder, expected="one features_{name}.pkl (or choose one with --name)",
                            found=", ".join(names) or "no features_*.pkl")
        name = names[0]
    validate_name(name, "--name")
    files = {part: folder / f"{part}_{name}.pkl" for part in PICKLE_PARTS}
    missing = [str(path) for path in files.values() if not path.is_file()]
    if missing:
        raise DataError("incomplete pickle layout", file=folder,
                        expected=", ".join(p.name for p in files.values()), found=f"missing {', '.join(missing)}")
    return name, files


def _read_pickle(path: Path, limits: LoadLimits):
    with open_input_file(path, "a pickled NumPy array or list", limits.max_bytes, "--max-bytes") as handle:
        return restricted_load(handle, path, stream_bytes=input_size(handle), max_elements=limits.max_elements)


def _as_array(value, path: Path, part: str) -> np.ndarray:
    if not isinstance(value, (np.ndarray, list, tuple)):
        raise DataError("expected a NumPy array or a list", file=path, field=part, found=type(value).__name__)
    try:
        array = np.asarray(value)
    except ValueError as exc:  # ragged nested lists
        raise DataError(f"not a rectangular array ({exc})", file=path, field=part) from exc
    if array.dtype.hasobject and part != "sequence_ids":
        raise DataError("expected numbers", file=path, field=part, found=f"array {array.dtype} {array.shape}")
    return array


def read_samples(path: str | Path, name: str | None = None, limits: LoadLimits = LoadLimits()) -> LoadedSamples:
    """Read and validate a data set in any of the module's layouts (chosen by what ``path`` is)."""
    path = Path(path)
    if not path.exists():
        raise DataError("no such file or folder", file=path, expected="sample data")
    if path.is_dir():
        name, files = pickle_layout_files(path, name)
        arrays = {part: _as_array(_read_pickle(file, limits), file, part) for part, file in files.items()}
    elif path.suffix == ".npz":
        with open_input_file(path, "an .npz archive", limits.max_bytes, "--max-bytes") as handle:
            found = npz_arrays(handle, path, limits)
        missing = [part for part in PICKLE_PARTS if part not in found]
        if missing:
            raise DataError("archive lacks arrays", file=path, expected=", ".join(PICKLE_PARTS),
                            found=f"{', '.join(sorted(found)) or 'none'} (missing {', '.join(missing)})")
        files, arrays = dict.fromkeys(PICKLE_PARTS, path), {part: found[part] for part in PICKLE_PARTS}
    elif path.suffix in TABLE_SUFFIXES:
        files, arrays = dict.fromkeys(PICKLE_PARTS, path), _table_arrays(path)
    else:
        raise DataError("unknown sample data layout", file=path,
                        expected="a folder of features_/targets_/sequence_ids_{name}.pkl, or .npz, .csv, .parquet")
    samples = validated_samples(arrays, files)
    return LoadedSamples(samples, validate_name(name or path.stem, "data set name"), files)


def _table_arrays(path: Path) -> dict[str, np.ndarray]:
    frame = read_table(path, "a sample table with sequence_id, target and feature columns",
                       dtype={"sequence_id": str})
    missing = [c for c in ("sequence_id", "target") if c not in frame.columns]
    if missing:
        raise DataError("missing columns", file=path, expected="sequence_id, target and the feature columns",
                        found=", ".join(map(str, frame.columns)))
    feature_columns = [c for c in frame.columns if c not in ("sequence_id", "target")]
    if frame["sequence_id"].isna().any():
        raise DataError("empty sequence id", file=path, field="sequence_id",
                        found=f"row {int(np.flatnonzero(frame['sequence_id'].isna())[0])}")
    try:
        features = frame[feature_columns].to_numpy(dtype=np.float32)
        targets = frame["target"].to_numpy(dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise DataError(f"non-numeric feature or target ({exc})", file=path) from exc
    return {"features": features, "targets": targets, "sequence_ids": frame["sequence_id"].to_numpy(dtype=str)}


def _sequence_id_strings(ids: np.ndarray, path: Path) -> np.ndarray:
    """Sequence ids as strings; integral floats (e.g. ids saved as float64) become integers first."""
    if ids.ndim != 1:
        raise DataError("sequence ids must be one per sample", file=path, field="sequence_ids",
                        expected="shape (N,)", found=f"shape {ids.shape}")
    if ids.dtype.kind == "f":
        if not np.all(np.isfinite(ids)) or not np.all(ids == np.round(ids)):
            raise DataError("sequence ids must be integers or strings", file=path, field="sequence_ids",
                            found="non-integral or NaN float ids")
        ids = ids.astype(np.int64)
    if ids.dtype.hasobject and not all(isinstance(i, (str, int, np.integer)) for i in ids.tolist()):
        raise DataError("sequence ids must be integers or strings", file=path, field="sequence_ids")
    return ids.astype(str)


def _check_finite(values: np.ndarray, path: Path, part: str) -> None:
    bad = ~np.isfinite(values.reshape(values.shape[0], -1)).all(axis=1)
    if bad.any():
        raise DataError(f"{int(bad.sum())} sample(s) with NaN or infinite values", file=path, field=part,
                        found=f"first at sample {int(np.flatnonzero(bad)[0])}")


def validated_samples(arrays: dict[str, np.ndarray], files: dict[str, Path]) -> DrivingSamples:
    """Check shapes, agreement of lengths, finiteness and sequence contiguity; return float32 samples."""
    features, targets = arrays["features"], arrays["targets"]
    if targets.ndim == 2 and targets.shape[1] == 1:
        targets = targets[:, 0]
    if targets.ndim != 1:
        raise DataError("targets must be one number per sample", file=files["targets"], field="targets",
                        expected="shape (N,) or (N, 1)", found=f"shape {targets.shape}")
    if features.shape[1:] not in ((N_FEATURES,), (WINDOW_LENGTH, N_FEATURES)):
        raise DataError("wrong feature shape", file=files["features"], field="features",
                        expected=f"(N, {N_FEATURES}) or windows (N, {WINDOW_LENGTH}, {N_FEATURES})",
                        found=f"shape {features.shape}")
    ids = _sequence_id_strings(arrays["sequence_ids"], files["sequence_ids"])
    lengths = {part: len(a) for part, a in (("features", features), ("targets", targets), ("sequence_ids", ids))}
    if len(set(lengths.values())) != 1:
        raise DataError("the three parts hold different numbers of samples", file=files["features"].parent
                        if len(set(files.values())) > 1 else files["features"],
                        found=", ".join(f"{files[p].name}[{p}]: {n}" for p, n in lengths.items()))
    if lengths["features"] == 0:
        raise DataError("no samples", file=files["features"], field="features")
    _check_finite(features, files["features"], "features")
    _check_finite(targets, files["targets"], "targets")
    try:
        sequence_starts(ids)
    except DataError as exc:
        raise DataError(exc.message, file=files["sequence_ids"], field="sequence_ids", found=exc.found) from exc
    return DrivingSamples(features=np.ascontiguousarray(features, dtype=np.float32),
                          targets=np.ascontiguousarray(targets, dtype=np.float32), sequence_ids=ids)


def data_sha256(samples: DrivingSamples) -> str:
    """SHA-256 of the samples as read (float32 features and targets, ids joined by newlines): the same
    data gives the same hash in every layout."""
    digest = hashlib.sha256()
    digest.update(str(samples.features.shape).encode())
    digest.update(np.ascontiguousarray(samples.features, dtype=np.float32).tobytes())
    digest.update(np.ascontiguousarray(samples.targets, dtype=np.float32).tobytes())
    digest.update("\n".join(np.asarray(samples.sequence_ids).astype(str).tolist()).encode("utf-8"))
    return digest.hexdigest()


def write_pickle_layout(samples: DrivingSamples, folder: str | Path, name: str) -> list[Path]:
    """Write ``features_/targets_/sequence_ids_{name}.pkl`` (NumPy arrays, pickle protocol 5) atomically."""
    validate_name(name, "--name")
    arrays = {"features": samples.features, "targets": samples.targets,
              "sequence_ids": np.asarray(samples.sequence_ids).astype(str)}
    return [atomic_write_bytes(Path(folder) / f"{part}_{name}.pkl", pickle.dumps(arrays[part], protocol=5))
            for part in PICKLE_PARTS]
