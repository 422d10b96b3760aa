"""Synthetic result sets that follow docs/results-schema.md (used by the tests and the benchmark)."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from pipeline.evaluation.grids import k_grid, p_grid, p_to_k, p_target_index
from pipeline.evaluation.metrics import METRICS
from pipeline.fileio import atomic_write_json
from pipeline.results.layout import task_files, tuning_path


def synthetic_curves(rng: np.random.Generator, n_points: int, skill: float) -> dict[str, np.ndarray]:
    """Plausible metric curves in [0, 1]; a higher ``skill`` is better on every metric."""
    t = np.linspace(0.0, 1.0, n_points)
    base = np.clip(0.3 + 0.2 * skill + 0.15 * np.sqrt(t) + rng.normal(0, 0.02, (len(METRICS), n_points)), 0, 1)
    curves = dict(zip(METRICS, base))
    curves["hamming_loss"] = 0.3 - 0.5 * (curves["hamming_loss"] - 0.3) / 2
    curves["one_error"] = 1.0 - curves["one_error"]
    curves["ranking_loss"] = 1.0 - curves["ranking_loss"]
    curves["coverage"] = 6.0 * (1.0 - curves["coverage"])  # in labels, out of L - 1
    return curves


def selection_fields(k_values: Sequence[int], degenerate_points: Sequence[int] = (),
                     n_constant_features: int = 5) -> dict:
    """The runner's constant-feature check: ``degenerate_points`` (grid indices) select k//2 + 1
    constant features, every other point none."""
    constant = [k // 2 + 1 if i in degenerate_points else 0 for i, k in enumerate(k_values)]
    return {"n_constant_selected": constant, "degenerate": [i in degenerate_points for i in range(len(k_values))],
            "n_constant_features": n_constant_features}


def seed_fields(rng: np.random.Generator, seeds: Sequence[int], n_points: int, grid: str,
                p_index: int | None = None) -> dict:
    """The spread fields of a seed-averaged file: std over seeds per point, of the grid mean, at p."""
    out: dict = {"seeds": list(seeds)}
    for metric in METRICS:
        std = np.abs(rng.normal(0.0, 0.01, n_points))
        out[f"{metric}_seed_std"] = std.tolist()
        out[f"{metric}_mean_seed_std"] = float(std.mean() / 2)
        if grid == "pgrid":
            out[f"{metric}_at_p_target_seed_std"] = float(std[p_index])
    return out


def write_fold(root: Path, method: str, dataset: str, fold: int, grid: str, d: int,
               curves: dict[str, np.ndarray], x, k_values, p_target: float = 0.2,
               extras: Mapping | None = None) -> Path:
    obj = {"grid_mode": grid, "method": method, "dataset": dataset, "fold": fold,
           "k_values": [int(k) for k in k_values], "n_features": d, "n_labels": 6, "n_train": 80,
           "n_test": 20, "mlknn": {"num": 10, "smooth": 1.0}, "params": {}, "time_eval_seconds": 0.01,
           "macro_pr_auc_labels_used": 6, "macro_pr_auc_labels_total": 6, "provenance": {"engine": "synthetic"}}
    for metric, values in curves.items():
        obj[metric] = values.tolist()
        obj[f"{metric}_mean"] = float(np.mean(values))
    if grid == "pgrid":
        obj["p_values"] = [float(p) for p in x]
        idx = p_target_index(x, p_target)
        obj.update(p_target=p_target, p_target_used=float(x[idx]))
        obj.update({f"{m}_at_p_target": float(v[idx]) for m, v in curves.items()})
    obj.update(extras or {})
    return atomic_write_json(root / method / f"{dataset}_fold{fold}_{grid}_metrics.json", obj)


def write_result_set(root: str | Path, methods: Sequence[str], datasets: Sequence[str], *, folds: int = 5,
                     grid: str = "kgrid", seed: int = 0, n_features: Sequence[int] | None = None,
                     seeded: Mapping[str, Sequence[int]] | None = None) -> Path:
    """Write a full result set; method i has skill decreasing with i, plus noise per dataset.

    Every file carries a ranking time (method i takes about 2**i seconds) and a constant-feature
    check without degenerate points; the methods in ``seeded`` are seed-averaged over their seeds.
    """
    root = Path(root)
    rng = np.random.default_rng(seed)
    dims = list(n_features) if n_features is not None else [int(v) for v in rng.integers(40, 400, len(datasets))]
    for dataset, d in zip(datasets, dims):
        if grid == "kgrid":
            x = np.array(k_grid(d), dtype=float)
            ks = x.astype(int)
        else:
            x = p_grid()
            ks = p_to_k(x, d)
        for fold in range(folds):
            for i, method in enumerate(methods):
                skill = 1.0 - i / max(1, len(methods)) + rng.normal(0, 0.15)
                extras = {"time_rank_seconds": round(2.0 ** i * (1 + 0.1 * rng.random()), 6),
                          **selection_fields(ks)}
                if seeded and method in seeded:
                    extras.update(seed_fields(rng, seeded[method], len(x), grid, p_target_index(x, 0.2)))
                write_fold(root, method, dataset, fold, grid, d, synthetic_curves(rng, len(x), skill), x, ks,
                           extras=extras)
    return root


def write_all_features(root: str | Path, datasets: Sequence[str], *, folds: int = 5, seed: int = 0,
                       n_features: Sequence[int] | None = None) -> Path:
    """``_reference/<DATASET>_fold<i>_all_features.json`` files (schema ``all_features/1``) with
    scores a little better than the best synthetic method's."""
    root = Path(root)
    rng = np.random.default_rng(seed)
    for j, dataset in enumerate(datasets):
        for fold in range(folds):
            values = {m: float(np.mean(c)) for m, c in synthetic_curves(rng, 5, 1.1).items()}
            atomic_write_json(root / "_reference" / f"{dataset}_fold{fold}_all_features.json", {
                "schema": "all_features/1", "dataset": dataset, "fold": fold,
                "n_features": int(n_features[j]) if n_features is not None else 100, "n_train": 80, "n_test": 20,
                "n_labels": 6, "mlknn": {"k": 10, "smooth": 1.0}, "metrics": values, "time_eval_seconds": 0.01,
                "provenance": {"engine": "synthetic"}})
    return root


def write_ranking_records(root: str | Path, engines: Mapping[str, str]) -> None:
    """A ``_ranking.json`` naming the engine beside every metrics file of the given methods."""
    root = Path(root)
    for method, engine in engines.items():
        for path in sorted((root / method).glob("*_fold*_kgrid_metrics.json")):
            stem = path.name.removesuffix("_kgrid_metrics.json")
            atomic_write_json(path.with_name(f"{stem}_ranking.json"), {"method": method, "engine": engine})


def write_fold_files(folder: str | Path, datasets: Sequence[str], *, folds: int = 5, seed: int = 0) -> Path:
    """Tiny fold files ``<folder>/<DATASET>/fold<i>.mat`` (the dataset table reads them)."""
    from pipeline.data.folds import fold_path, save_fold

    rng = np.random.default_rng(seed)
    for dataset in datasets:
        X = np.round(rng.random((25, 6)), 1)
        Y = (rng.random((25, 4)) < 0.4).astype(np.uint8)
        for fold in range(folds):
            test = np.arange(25) % folds == fold
            save_fold(fold_path(folder, dataset, fold), X[~test], Y[~test], X[test], Y[test])
    return Path(folder)


def write_tuning_records(root: str | Path, methods: Sequence[str], dataset: str, grid: Mapping[str, Sequence[float]], *,
                         folds: int = 5, seed: int = 0) -> None:
    """Inner-split tuning of ``methods`` on one dataset over ``grid`` (parameter -> values, every
    combination a candidate): a ``_tuning.json`` per fold (criterion, candidates, choice, timings) and a
    ``_ranking.json`` whose ``info.objective`` is a decreasing trace, so the parameter report draws
    sensitivity and convergence figures."""
    root = Path(root)
    rng = np.random.default_rng(seed)
    combinations = [dict(zip(grid, values)) for values in product(*grid.values())]
    for method in methods:
        for fold in range(folds):
            criteria = rng.uniform(0.3, 0.6, len(combinations))
            best = int(np.argmax(criteria))
            atomic_write_json(tuning_path(root, method, dataset, fold), {
                "schema": "mlfs-bench/tuning/1", "method": method, "folder": method, "dataset": dataset, "fold": fold,
                "selected_by": "inner validation",
                "criterion": {"metric": "micro_f1", "grid": "kgrid", "statistic": "mean",
                              "direction": "higher is better"},
                "inner": {"mode": "holdout", "count": 1, "test_size": 0.25, "seed": 0},
                "candidates": [{"overrides": c, "criterion": float(v)} for c, v in zip(combinations, criteria)],
                "chosen": {"overrides": combinations[best], "criterion": float(criteria[best]), "index": best},
                "timings": {"candidates_rank_seconds": float(rng.uniform(1, 10)),
                            "candidates_eval_seconds": float(rng.uniform(1, 10))}})
            objective = np.cumsum(rng.uniform(0.1, 1.0, 20))[::-1] + rng.uniform(1, 2)
            atomic_write_json(task_files(root, method, dataset, fold).ranking_record,
                              {"method": method, "engine": "octave", "info": {"objective": objective.tolist()}})
