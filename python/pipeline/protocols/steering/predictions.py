"""Per-sample prediction files, their validation and pairing, and the metrics computed from them.

A prediction file (CSV or Parquet) has one row per test sample with the columns
``sample_idx, sequence_id, y_true, y_pred, abs_error``; it lives at
``results/{variant}/{model_id}/seed_{seed}/{model_id}_predictions.{csv|parquet}``. Two models are
paired by the key ``(sequence_id, sample_idx)``, never by row position.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import r2_score

from ...data.folds import max_feature_magnitude
from ...errors import DataError
from ...fileio import atomic_write_bytes, atomic_write_text
from ...names import validate_name
from .files import read_table

PREDICTION_COLUMNS = ("sample_idx", "sequence_id", "y_true", "y_pred", "abs_error")
KEY = ["sequence_id", "sample_idx"]
DEFAULT_EPS = 0.05
_ABS_ERROR_TOLERANCE = 1e-6


def run_dir(results_dir: str | Path, variant: str, model_id: str, seed: int) -> Path:
    """``results_dir/{variant}/{model_id}/seed_{seed}`` after checking the names are path-safe."""
    return (Path(results_dir) / validate_name(variant, "variant") / validate_name(model_id, "model")
            / f"seed_{int(seed)}")


def predictions_path(results_dir: str | Path, variant: str, model_id: str, seed: int,
                     fmt: str = "csv") -> Path:
    """Where model ``model_id``'s predictions for ``seed`` are stored (``fmt``: csv or parquet)."""
    if fmt not in ("csv", "parquet"):
        raise DataError("unknown prediction file format", expected="csv or parquet", found=fmt)
    return run_dir(results_dir, variant, model_id, seed) / f"{model_id}_predictions.{fmt}"


def existing_predictions(results_dir: str | Path, variant: str, model_id: str, seed: int) -> Path | None:
    """The CSV or else the Parquet prediction file of a run, or None when neither exists."""
    candidates = (predictions_path(results_dir, variant, model_id, seed, fmt) for fmt in ("csv", "parquet"))
    return next((path for path in candidates if path.is_file()), None)


def find_predictions(results_dir: str | Path, variant: str, model_id: str, seed: int) -> Path:
    """The existing CSV or Parquet prediction file of a run; DataError naming both candidates if none."""
    path = existing_predictions(results_dir, variant, model_id, seed)
    if path is None:
        csv_path = predictions_path(results_dir, variant, model_id, seed, "csv")
        raise DataError("prediction file is missing", file=csv_path,
                        expected=f"it or {csv_path.stem}.parquet with columns {', '.join(PREDICTION_COLUMNS)}")
    return path


def predictions_frame(sample_idx: np.ndarray, sequence_ids: np.ndarray, y_true: np.ndarray,
                      y_pred: np.ndarray) -> pd.DataFrame:
    """The prediction table (columns ``PREDICTION_COLUMNS``) from aligned arrays ``(k,)``."""
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    return pd.DataFrame({"sample_idx": np.asarray(sample_idx, dtype=np.int64),
                         "sequence_id": np.asarray(sequence_ids).astype(str),
                         "y_true": y_true, "y_pred": y_pred, "abs_error": np.abs(y_true - y_pred)})


def write_predictions(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a prediction table atomically as CSV or Parquet (by the suffix of ``path``)."""
    path = Path(path)
    frame = frame.loc[:, list(PREDICTION_COLUMNS)]
    if path.suffix == ".parquet":
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return atomic_write_bytes(path, buffer.getvalue())
    return atomic_write_text(path, frame.to_csv(index=False, lineterminator="\n"))


def read_predictions(path: str | Path, min_sequences: int = 2) -> pd.DataFrame:
    """Read (within the size limits of :mod:`.files`) and validate a prediction file.

    Every problem raises DataError naming the file.

    Checks: all five columns present; no missing values; integer ``sample_idx``; no duplicated
    ``(sequence_id, sample_idx)``; ``abs_error == |y_true - y_pred|`` (tolerance 1e-6); at least
    ``min_sequences`` sequences. Rows are returned sorted by ``(sequence_id, sample_idx)`` with the
    path in ``frame.attrs["source"]``.
    """
    path = Path(path)
    frame = read_table(path, "a prediction table (CSV or Parquet)", dtype={"sequence_id": str})
    missing = [c for c in PREDICTION_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError("missing columns", file=path, field=", ".join(missing),
                        expected=", ".join(PREDICTION_COLUMNS), found=", ".join(map(str, frame.columns)))
    frame = frame.loc[:, list(PREDICTION_COLUMNS)].copy()
    _check_values(frame, path)
    if frame["sequence_id"].nunique() < min_sequences:
        raise DataError("too few sequences for sequence-level statistics", file=path,
                        field="sequence_id", expected=f">= {min_sequences}",
                        found=frame["sequence_id"].nunique())
    frame = frame.sort_values(KEY, kind="stable").reset_index(drop=True)
    frame.attrs["source"] = str(path)
    return frame


def _check_values(frame: pd.DataFrame, path: Path) -> None:
    """NaNs, non-integer indices, duplicated keys and inconsistent abs_error -> DataError."""
    for column in PREDICTION_COLUMNS:
        n_missing = int(frame[column].isna().sum())
        if n_missing:
            first = int(np.flatnonzero(frame[column].isna().to_numpy())[0])
            raise DataError(f"{n_missing} missing/NaN values (first at data row {first + 1})",
                            file=path, field=column)
    limit = max_feature_magnitude(max(len(frame), 1))  # no sum of squared errors can overflow
    for column in ("y_true", "y_pred", "abs_error"):
        if not pd.api.types.is_numeric_dtype(frame[column]) or pd.api.types.is_bool_dtype(frame[column]):
            raise DataError("non-numeric values", file=path, field=column, found=frame[column].dtype)
        values = frame[column].to_numpy(dtype=float)
        bad = ~np.isfinite(values) | (np.abs(values) > limit)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise DataError(f"{int(bad.sum())} infinite or too large values (first at data row {first + 1})",
                            file=path, field=column, expected=f"finite values, |x| <= {limit:.6g}",
                            found=repr(float(values[first])))
    index = frame["sample_idx"]
    if not pd.api.types.is_integer_dtype(index):
        if not pd.api.types.is_numeric_dtype(index) or (index % 1 != 0).any():
            raise DataError("sample indices must be integers", file=path, field="sample_idx")
        frame["sample_idx"] = index.astype(np.int64)
    frame["sequence_id"] = frame["sequence_id"].astype(str)
    duplicated = frame.duplicated(KEY)
    if duplicated.any():
        row = frame.loc[duplicated].iloc[0]
        raise DataError(f"{int(duplicated.sum())} duplicated (sequence_id, sample_idx) keys",
                        file=path, field="sample_idx",
                        found=f"({row['sequence_id']}, {row['sample_idx']}) twice")
    recomputed = (frame["y_true"] - frame["y_pred"]).abs()
    bad = (recomputed - frame["abs_error"]).abs() > _ABS_ERROR_TOLERANCE
    if bad.any():
        raise DataError(f"abs_error differs from |y_true - y_pred| in {int(bad.sum())} rows",
                        file=path, field="abs_error")


def _source(frame: pd.DataFrame, fallback: str) -> str:
    return frame.attrs.get("source", fallback)


def pair_predictions(frame_a: pd.DataFrame, frame_b: pd.DataFrame, *,
                     allow_missing: bool = False) -> pd.DataFrame:
    """Join two validated prediction tables on ``(sequence_id, sample_idx)``.

    Sequences present in only one table raise DataError (naming the file and ids) unless
    ``allow_missing``, in which case only the shared sequences are kept. Inside shared sequences
    the sample keys must coincide and ``y_true`` must agree, otherwise the two files do not
    describe the same samples (e.g. different sample order or indexing) and DataError is raised.

    Returns columns ``sequence_id, sample_idx, y_true, error_a, error_b`` (signed errors
    ``y_pred - y_true``), sorted by the key.
    """
    name_a, name_b = _source(frame_a, "model A predictions"), _source(frame_b, "model B predictions")
    seq_a, seq_b = set(frame_a["sequence_id"]), set(frame_b["sequence_id"])
    for only, here, there in ((seq_a - seq_b, name_a, name_b), (seq_b - seq_a, name_b, name_a)):
        if only and not allow_missing:
            raise DataError(f"{len(only)} sequence ids appear only in this file, not in {there}",
                            file=here, field="sequence_id", found=", ".join(sorted(only)[:5]))
    shared = seq_a & seq_b
    left = frame_a[frame_a["sequence_id"].isin(shared)]
    right = frame_b[frame_b["sequence_id"].isin(shared)]
    merged = left.merge(right, on=KEY, how="outer", suffixes=("_a", "_b"), indicator=True)
    unmatched = merged[merged["_merge"] != "both"]
    if len(unmatched):
        row = unmatched.iloc[0]
        raise DataError(f"{len(unmatched)} samples have no partner in {name_b}: the two files "
                        "index the samples differently", file=name_a, field="sample_idx",
                        found=f"sequence {row['sequence_id']} sample {row['sample_idx']}")
    differs = (merged["y_true_a"] - merged["y_true_b"]).abs() > _ABS_ERROR_TOLERANCE
    if differs.any():
        row = merged.loc[differs].iloc[0]
        raise DataError(f"y_true differs from {name_b} in {int(differs.sum())} paired samples: the "
                        "files list different samples under the same (sequence_id, sample_idx)",
                        file=name_a, field="y_true",
                        found=f"sequence {row['sequence_id']} sample {row['sample_idx']}")
    merged = merged.sort_values(KEY, kind="stable").reset_index(drop=True)
    return pd.DataFrame({"sequence_id": merged["sequence_id"], "sample_idx": merged["sample_idx"],
                         "y_true": merged["y_true_a"],
                         "error_a": merged["y_pred_a"] - merged["y_true_a"],
                         "error_b": merged["y_pred_b"] - merged["y_true_a"]})


def pooled_metrics(frame: pd.DataFrame, eps: float = DEFAULT_EPS) -> dict:
    """MAE, RMSE, accuracy (% with |e| <= eps, inclusive) and R² over all samples of a table.

    R² follows sklearn's ``r2_score`` (1 - SS_res / SS_tot).
    """
    errors = frame["y_pred"].to_numpy(float) - frame["y_true"].to_numpy(float)
    return {"n_samples": int(errors.size), "n_sequences": int(frame["sequence_id"].nunique()),
            "mae": float(np.mean(np.abs(errors))), "rmse": float(np.sqrt(np.mean(errors ** 2))),
            "accuracy": float(100 * np.mean(np.abs(errors) <= eps)),
            "r2": float(r2_score(frame["y_true"], frame["y_pred"])), "eps": eps}


def aggregate_per_sequence(frame: pd.DataFrame, eps: float = DEFAULT_EPS) -> pd.DataFrame:
    """One row per ``sequence_id`` (sorted) with ``n_samples, mae, rmse, accuracy, r2``.

    ``accuracy = 100 * mean(|e| <= eps)`` (inclusive); ``r2`` is NaN when the sequence's targets
    are constant (``sum (y - mean y)^2 == 0``).
    """
    ids, codes = _sequence_codes(frame)
    sums = _sums(frame, eps, codes, len(ids))
    n, y = sums["n_samples"], frame["y_true"].to_numpy(float)
    ss_tot = np.bincount(codes, weights=(y - (sums["sum_y"] / n)[codes]) ** 2, minlength=len(ids))
    low, high = np.full(len(ids), np.inf), np.full(len(ids), -np.inf)
    np.minimum.at(low, codes, y)
    np.maximum.at(high, codes, y)
    constant = high == low  # exact test: the mean of equal floats may not be exact
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = np.where(constant, np.nan, 1 - sums["sum_sq"] / np.where(constant, 1.0, ss_tot))
    return pd.DataFrame({"sequence_id": ids, "n_samples": n.astype(np.int64), "mae": sums["sum_abs"] / n,
                         "rmse": np.sqrt(sums["sum_sq"] / n), "accuracy": 100 * sums["n_hits"] / n, "r2": r2})


def sequence_sums(frame: pd.DataFrame, eps: float = DEFAULT_EPS) -> pd.DataFrame:
    """Per-sequence sufficient sums (index ``sequence_id``, sorted) from which pooled metrics follow.

    Columns: ``n_samples, sum_abs, sum_sq, n_hits, sum_y, sum_y2``; pooled MAE, RMSE, accuracy and
    R² of any multiset of sequences are functions of the summed rows.
    """
    ids, codes = _sequence_codes(frame)
    return pd.DataFrame(_sums(frame, eps, codes, len(ids)), index=pd.Index(ids, name="sequence_id"))


def _sequence_codes(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct sequence ids and, per row, the position of its id among them."""
    codes, ids = pd.factorize(frame["sequence_id"].to_numpy(), sort=True)
    return np.asarray(ids), codes


def _sums(frame: pd.DataFrame, eps: float, codes: np.ndarray, n_sequences: int) -> dict[str, np.ndarray]:
    """The columns of :func:`sequence_sums` as arrays ``(n_sequences,)`` (one bincount each)."""
    y = frame["y_true"].to_numpy(float)
    errors = frame["y_pred"].to_numpy(float) - y
    terms = {"n_samples": None, "sum_abs": np.abs(errors), "sum_sq": errors ** 2,
             "n_hits": (np.abs(errors) <= eps).astype(float), "sum_y": y, "sum_y2": y ** 2}
    return {name: np.bincount(codes, weights=values, minlength=n_sequences).astype(float)
            for name, values in terms.items()}
