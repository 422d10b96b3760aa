"""Random-start methods run with several seeds: per fold, their metrics averaged over the seeds.

Each seed's results stay in their own folder (``<METHOD>__seed_<s>``, complete result files). The
method's own folder gets, per dataset and fold, a metrics file of the usual schema whose curves
are the mean over the seeds at every grid point, plus the across-seed spread
(docs/results-schema.md): ``seeds``, ``<metric>_seed_std`` (per grid point), ``<metric>_mean_seed_std``
and, on the p-grid, ``<metric>_at_p_target_seed_std`` (sample std, ddof = 1). The file records the
SHA-256 of every seed's file it averages, so it is redone exactly when one of them changes, and the
digest of its own content, so it is redone when it was edited by hand.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..evaluation.metrics import METRICS
from ..fileio import atomic_write_json
from ..results.digest import DIGEST_FIELD, content_unchanged, with_digest
from ..results.layout import seed_folder
from ..results.schema import metrics_file_data, read_metrics_file
from ..results.staleness import sha256_or_none, staleness
from ..runner.store import ResultStore
from ..experiment.model import MethodEntry

SPREAD_KEYS = ("n_constant_selected", "degenerate", "time_rank_seconds", "time_eval_seconds")


def average_seeds(results_dir: Path, entry: MethodEntry, dataset: str, fold: int, mode: str) -> str:
    """Write (or keep) the seed-averaged metrics file; return ``done``, ``skipped`` or ``missing``."""
    store = ResultStore(results_dir)
    sources = {seed_folder(entry.name, seed): store.files(seed_folder(entry.name, seed), dataset, fold).metrics(mode)
               for seed in entry.seeds}
    digests = {folder: sha256_or_none(path) for folder, path in sources.items()}
    if None in digests.values():
        return "missing"
    target = store.files(entry.name, dataset, fold).metrics(mode)
    if staleness(target, lambda path: read_metrics_file(path, mode), "metrics file", "no average yet", [
            lambda record: None if record.value("seed_sources") == digests else "a seed's file changed",
            lambda record: None if record.content_sha256 and content_unchanged(target, record.content_sha256)
            else "the average was edited after it was written"]) is None:
        return "skipped"
    records = [metrics_file_data(path, mode) for path in sources.values()]
    atomic_write_json(target, with_digest(averaged_record(entry, records, digests)))
    return "done"


def averaged_record(entry: MethodEntry, records: list[dict], digests: dict) -> dict:
    """One record from the per-seed records of a task (same grid, fold and settings)."""
    template = records[0]
    averaged = {key: value for key, value in template.items()
                if not any(key == m or key.startswith(f"{m}_") for m in METRICS)
                and key not in SPREAD_KEYS and key != DIGEST_FIELD}
    averaged.update(method=entry.name, params={k: v for k, v in template["params"].items() if k != "seed"},
                    seeds=list(entry.seeds), seed_sources=digests)
    for metric in METRICS:
        if any(metric not in r for r in records):  # a seed's file predates this metric: left out, as there
            continue
        curves = np.array([_floats(r[metric]) for r in records])
        averaged[metric] = np.mean(curves, axis=0)
        averaged[f"{metric}_seed_std"] = _std(curves)
        averaged[f"{metric}_mean"] = float(np.mean(averaged[metric]))
        averaged[f"{metric}_mean_seed_std"] = float(_std(np.array([_float(r[f"{metric}_mean"]) for r in records])))
        if template["grid_mode"] == "pgrid":
            at_target = np.array([_float(r[f"{metric}_at_p_target"]) for r in records])
            averaged[f"{metric}_at_p_target"] = float(np.mean(at_target))
            averaged[f"{metric}_at_p_target_seed_std"] = float(_std(at_target))
    averaged["n_constant_selected"] = np.max([r["n_constant_selected"] for r in records], axis=0).tolist()
    averaged["degenerate"] = np.any([r["degenerate"] for r in records], axis=0).tolist()
    for key in ("time_rank_seconds", "time_eval_seconds"):
        times = [r.get(key) for r in records]
        averaged[key] = float(np.mean(times)) if None not in times else None
    return averaged


def _floats(values) -> list[float]:
    return [_float(v) for v in values]


def _float(value) -> float:
    return float("nan") if value is None else float(value)


def _std(values: np.ndarray):
    """Sample std over the seeds (axis 0); NaN with a single seed."""
    if values.shape[0] < 2:
        return np.full(values.shape[1:], np.nan) if values.ndim > 1 else float("nan")
    return np.std(values, axis=0, ddof=1)
