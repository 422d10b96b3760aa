"""End-to-end run: data -> sequence split -> train -> per-sample predictions -> statistics -> tables.

The demo uses synthetic driving-like sequences (:func:`make_driving_sequences`), so it runs
anywhere; real data only needs a :class:`DrivingSamples` and the same calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ...errors import ConfigError
from ...fileio import atomic_write_json
from .analysis import AnalysisSettings, analyze_runs, available_comparisons, check_model_ids
from .checks import positive_int
from .data import DrivingSamples, SequenceWindowDataset, make_driving_sequences
from .models import build_model, count_parameters
from .predictions import (DEFAULT_EPS, pooled_metrics, predictions_frame, predictions_path,
                          run_dir, write_predictions)
from .split import load_or_create_split, validate_split
from .tables import write_outputs
from .training import measure_latency, predict, train_model


def parameter_efficiency(accuracy_percent: float, n_params: int) -> float:
    """``PE = accuracy_% / (n_params / 1e5)``; M1 (4,609 parameters) at 80 % gives 1735.7."""
    return accuracy_percent / (n_params / 1e5)


@dataclass(frozen=True)
class TrainingPlan:
    """What to train: models, seeds, epochs; ``train_stride`` keeps every k-th training window."""

    model_ids: Sequence[str] = ("M1", "M2", "M3", "M4")
    seeds: Sequence[int] = (42, 94, 123)
    epochs: int = 3
    batch_size: int = 256
    learning_rate: float = 1e-3
    train_stride: int = 1
    latency_calls: int = 1000
    eps: float = DEFAULT_EPS
    fmt: str = "csv"

    def __post_init__(self) -> None:
        check_model_ids(self.model_ids)
        if not self.seeds or len(set(self.seeds)) < len(self.seeds):
            raise ConfigError("training seeds must be given once each", field="seeds", found=list(self.seeds))
        for name in ("epochs", "batch_size", "train_stride", "latency_calls"):
            positive_int(getattr(self, name), name)
        if not self.learning_rate > 0:
            raise ConfigError("must be positive", field="learning_rate", found=self.learning_rate)
        if self.fmt not in ("csv", "parquet"):
            raise ConfigError("unknown prediction file format", field="fmt", expected="csv or parquet", found=self.fmt)


@dataclass
class RunLog:
    """Where a run wrote its files, for the caller and the CLI summary."""

    split_file: Path | None = None
    prediction_files: list[Path] = field(default_factory=list)
    output_files: list[Path] = field(default_factory=list)


def train_and_predict(samples: DrivingSamples, results_dir: str | Path, variant: str,
                      plan: TrainingPlan, split_seed: int = 0,
                      progress: Callable[[str], None] = lambda message: None) -> RunLog:
    """Split by sequence (persisted), then train every model for every seed and save predictions.

    Each run writes ``{model}_predictions.{fmt}`` and ``{model}_metrics.json`` (pooled test
    metrics, validation RMSE, parameter count, parameter efficiency, latency) under
    ``results_dir/{variant}/{model}/seed_{seed}/``.
    """
    results_dir = Path(results_dir)
    split = load_or_create_split(results_dir / variant / "splits", samples.sequence_ids, split_seed)
    indices = validate_split(split, samples.sequence_ids)
    dataset = SequenceWindowDataset(samples)
    log = RunLog(split_file=results_dir / variant / "splits" / f"split_{split_seed}.json")
    train_indices = indices["train"][::plan.train_stride]
    for seed in plan.seeds:
        for model_id in plan.model_ids:
            progress(f"training {model_id} seed {seed}")
            model = build_model(model_id, seed)
            losses = train_model(model, dataset, train_indices, epochs=plan.epochs, seed=seed,
                                 batch_size=plan.batch_size, learning_rate=plan.learning_rate)
            log.prediction_files.append(
                _evaluate_run(model, model_id, seed, dataset, indices, losses, results_dir,
                              variant, plan))
    return log


def _evaluate_run(model, model_id, seed, dataset, indices, losses, results_dir, variant, plan) -> Path:
    test = indices["test"]
    frame = predictions_frame(test, dataset.sequence_ids[test], dataset.samples.targets[test],
                              predict(model, dataset, test))
    path = write_predictions(frame, predictions_path(results_dir, variant, model_id, seed, plan.fmt))
    metrics = pooled_metrics(frame, plan.eps)
    val = indices["val"]
    val_errors = predict(model, dataset, val) - dataset.samples.targets[val]
    n_params = count_parameters(model)
    window, _ = dataset.windows(test[:1])
    atomic_write_json(run_dir(results_dir, variant, model_id, seed) / f"{model_id}_metrics.json", {
        "model_id": model_id, "seed": seed, "test": metrics,
        "val_rmse": float(np.sqrt(np.mean(val_errors ** 2))), "train_loss": losses,
        "n_params": n_params, "parameter_efficiency": parameter_efficiency(metrics["accuracy"], n_params),
        "latency": measure_latency(model, window, n_timed=plan.latency_calls),
    })
    return path


def run_demo(out_dir: str | Path, *, n_sequences: int = 100, length: int = 150, data_seed: int = 0,
             split_seed: int = 0, plan: TrainingPlan = TrainingPlan(),
             settings: AnalysisSettings = AnalysisSettings(), variant: str = "synthetic",
             progress: Callable[[str], None] = lambda message: None) -> RunLog:
    """The whole protocol on synthetic sequences; outputs under ``out_dir/results``.

    Tables compare the pairs of the comparison family whose two models are both in ``plan`` (all
    pairs of the planned models if the family has none).
    """
    samples = make_driving_sequences(n_sequences, length, seed=data_seed)
    results_dir = Path(out_dir) / "results"
    log = train_and_predict(samples, results_dir, variant, plan, split_seed, progress)
    comparisons = available_comparisons(plan.model_ids) or list(combinations(plan.model_ids, 2))
    progress(f"statistics for {len(comparisons)} comparisons")
    results = analyze_runs(results_dir, variant, plan.seeds, comparisons, settings)
    log.output_files = write_outputs(results, results_dir / "bootstrap")
    return log
