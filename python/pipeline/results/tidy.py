"""One tidy table of a results folder: a row per method x dataset x fold x grid point x metric.

``python -m pipeline.results export RESULTS_DIR --to FILE.parquet|.csv`` writes it
(docs/results-schema.md, "The tidy table"). Every value is the one its metrics file holds (a
JSON ``null``, an undefined metric, stays a missing value); each row also carries what made it
(parameters, seeds, engine, code fingerprints, fold digest, times) and its outcome. The
all-features reference gives rows of grid ``all_features``; the failed or interrupted tasks of the
last run (``failures.json``) and the tasks stopped at their budget (their out-of-budget records)
give one row each, without a metric, with their outcome and message.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Iterator

import pandas as pd

from ..documents import read_result_file
from ..errors import ConfigError, DataError
from ..evaluation.metrics import METRICS
from ..fileio import atomic_write_bytes, atomic_write_text, csv_safe_frame
from .budget import describe_budget, read_budget_record
from .layout import (GRIDS, OUT_OF_BUDGET_SUFFIX, REFERENCE_FOLDER, RUN_HISTORY_FOLDER, all_features_glob,
                     failures_path, is_seed_folder, metrics_glob, metrics_name_pattern, out_of_budget_name_pattern,
                     variant_method)
from .schema import read_all_features_file, read_metrics_file

#: The grid value of the all-features reference's rows (ML-kNN on every feature: no grid point).
ALL_FEATURES_GRID = "all_features"
#: Column -> pandas dtype, in the table's order; nullable types keep a JSON null a null.
COLUMNS: dict[str, str] = {
    "method": "string", "variant": "string", "dataset": "string", "fold": "Int64", "grid": "string",
    "point": "Float64", "k": "Int64", "metric": "string", "value": "Float64", "seed_std": "Float64",
    "outcome": "string", "message": "string", "params": "string", "seed": "Int64", "seeds": "string",
    "engine": "string", "evaluator": "string", "method_code_sha256": "string", "evaluator_code_sha256": "string",
    "fold_sha256": "string", "ranking_sha256": "string", "time_rank_seconds": "Float64",
    "time_eval_seconds": "Float64", "n_train": "Int64", "n_test": "Int64", "n_features": "Int64",
    "n_labels": "Int64", "mlknn_num": "Int64", "mlknn_smooth": "Float64", "source": "string",
}
FORMATS = (".parquet", ".csv")


def tidy_table(results_dir: str | Path) -> pd.DataFrame:
    """The tidy table of ``results_dir`` (rows in folder, file and grid order)."""
    root = Path(results_dir)
    if not root.is_dir():
        raise ConfigError("results folder not found", file=root)
    rows = [*_method_rows(root), *_reference_rows(root), *_failure_rows(root), *_budget_rows(root)]
    if not rows:
        raise DataError("no metrics files, all-features references or failures found", file=root)
    frame = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
    return frame.astype(COLUMNS)


def export_table(results_dir: str | Path, to: str | Path) -> tuple[Path, int]:
    """Write the tidy table of ``results_dir`` to ``to`` (Parquet or CSV, by its suffix); the
    path written and its number of rows."""
    to = Path(to)
    if to.suffix.lower() not in FORMATS:
        raise ConfigError("unknown table format", field="--to", expected=" or ".join(FORMATS), found=to.name)
    if to.suffix.lower() == ".parquet":
        _require_pyarrow()
    frame = tidy_table(results_dir)
    if to.suffix.lower() == ".csv":
        # repr-exact floats (pandas writes Python's shortest round-trip form); formula-like text neutralised
        atomic_write_text(to, csv_safe_frame(frame).to_csv(index=False))
    else:
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False, engine="pyarrow")
        atomic_write_bytes(to, buffer.getvalue())
    return to, len(frame)


def _require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401  (pandas writes Parquet through it)
    except ImportError:
        raise ConfigError("writing Parquet needs pyarrow: pip install 'mlfs-bench[export]', or write --to FILE.csv",
                          field="--to") from None


def _method_rows(root: Path) -> Iterator[dict[str, Any]]:
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
                         and p.name != RUN_HISTORY_FOLDER):
        for grid in GRIDS:
            pattern = metrics_name_pattern(grid)
            for path in sorted(folder.glob(metrics_glob(grid))):
                if pattern.fullmatch(path.name):
                    yield from _metrics_file_rows(root, path, grid)


def _metrics_file_rows(root: Path, path: Path, grid: str) -> Iterator[dict[str, Any]]:
    record = read_metrics_file(path, grid)
    data = record.model_dump(by_alias=True)
    folder = path.parent.name
    common = {**_file_columns(record, data), "method": variant_method(folder), "variant": folder,
              "dataset": record.dataset, "fold": record.fold, "grid": grid, "source": str(path.relative_to(root)),
              "seed": int(folder.rsplit("_", 1)[1]) if is_seed_folder(folder) else None}
    degenerate = record.degenerate or [False] * len(record.axis)
    for metric in METRICS:
        curve = record.curve(metric)
        if curve is None:  # the file predates the metric
            continue
        spread = record.value(f"{metric}_seed_std")
        for i, (point, value) in enumerate(zip(record.axis, curve)):
            yield {**common, "point": point, "k": record.k_values[i] if record.k_values else point, "metric": metric,
                   "value": value, "seed_std": spread[i] if spread else None,
                   "outcome": "degenerate" if degenerate[i] else "ok"}


def _file_columns(record, data: dict) -> dict[str, Any]:
    """The columns every row of one metrics file shares: what made it."""
    provenance = data.get("provenance") or {}
    code = provenance.get("code") or {}
    mlknn = record.mlknn or {}
    return {"params": json.dumps(data.get("params") or {}, sort_keys=True),
            "seeds": json.dumps(record.seeds) if record.seeds else None,
            "engine": provenance.get("engine"), "evaluator": provenance.get("evaluator"),
            "method_code_sha256": (code.get("method") or {}).get("sha256"),
            "evaluator_code_sha256": (code.get("evaluator") or {}).get("sha256"),
            "fold_sha256": provenance.get("fold_sha256"), "ranking_sha256": provenance.get("ranking_sha256"),
            "time_rank_seconds": record.time_rank_seconds, "time_eval_seconds": record.value("time_eval_seconds"),
            "n_train": record.n_train, "n_test": record.n_test, "n_features": record.value("n_features"),
            "n_labels": record.value("n_labels"), "mlknn_num": mlknn.get("num"), "mlknn_smooth": mlknn.get("smooth")}


def _reference_rows(root: Path) -> Iterator[dict[str, Any]]:
    folder = root / REFERENCE_FOLDER
    if not folder.is_dir():
        return
    for path in sorted(folder.glob(all_features_glob())):
        record = read_all_features_file(path)
        data = record.model_dump(by_alias=True)
        provenance = data.get("provenance") or {}
        mlknn = record.mlknn or {}
        n_features = data.get("n_features")
        common = {"method": REFERENCE_FOLDER, "variant": REFERENCE_FOLDER, "dataset": record.dataset,
                  "fold": record.fold, "grid": ALL_FEATURES_GRID, "k": n_features, "n_features": n_features,
                  "n_train": data.get("n_train"), "n_test": data.get("n_test"), "n_labels": data.get("n_labels"),
                  "time_eval_seconds": data.get("time_eval_seconds"),
                  "outcome": "ok", "engine": provenance.get("engine"), "evaluator": provenance.get("evaluator"),
                  "evaluator_code_sha256": ((provenance.get("code") or {}).get("evaluator") or {}).get("sha256"),
                  "fold_sha256": provenance.get("fold_sha256"), "mlknn_num": mlknn.get("num"),
                  "mlknn_smooth": mlknn.get("smooth"), "source": str(path.relative_to(root))}
        for metric, value in record.metrics.items():
            yield {**common, "metric": metric, "value": value}


def _budget_rows(root: Path) -> Iterator[dict[str, Any]]:
    """One row per task stopped at its budget (its record; no metric): outcome ``out_of_budget``."""
    pattern = out_of_budget_name_pattern()
    for path in sorted(root.glob("*/*" + OUT_OF_BUDGET_SUFFIX)):
        match = pattern.fullmatch(path.name)
        if match is None or path.parent.name.startswith(("_", ".")):
            continue
        record = read_budget_record(root, path.parent.name, match["dataset"], int(match["fold"]))
        yield {"method": variant_method(path.parent.name), "variant": path.parent.name, "dataset": match["dataset"],
               "fold": int(match["fold"]), "outcome": "out_of_budget",
               "message": f"{describe_budget(record['budget'], record['limit'])}: {record['message']}",
               "time_rank_seconds": record["seconds"], "source": str(path.relative_to(root))}


def _failure_rows(root: Path) -> Iterator[dict[str, Any]]:
    path = failures_path(root)
    if not path.is_file():
        return
    report = read_result_file(path, "failure report")
    entries = report.get("failed") if isinstance(report, dict) else None
    if not isinstance(entries, list):
        raise DataError("a failure report must hold a list 'failed'", file=path, field="failed")
    for entry in entries:
        if not isinstance(entry, dict):
            raise DataError("each failed task must be an object", file=path, field="failed")
        method = str(entry.get("method", ""))
        yield {"method": variant_method(method), "variant": method, "dataset": entry.get("dataset"),
               "fold": entry.get("fold"), "outcome": entry.get("status"), "message": entry.get("message"),
               "source": str(path.relative_to(root))}
