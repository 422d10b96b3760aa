"""Training runs and the end-to-end demo: data -> sequence split -> train -> predictions -> statistics -> tables.

:func:`train_runs` trains models x seeds on a persisted split and saves each run (predictions,
metrics, checkpoint, configuration) resumably; the ``train`` command calls it on data read by
:mod:`.samples`, the demo on synthetic driving-like sequences (:func:`make_driving_sequences`).
"""

from __future__ import annotations

import io
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from tqdm import tqdm

from ...errors import ConfigError, DataError
from ...fileio import atomic_write_bytes, atomic_write_json
from ..user_files import open_input_file
from .analysis import AnalysisSettings, analyze_runs, check_model_ids, default_comparisons
from .checks import positive_int
from .data import DrivingSamples, SequenceWindowDataset, make_driving_sequences
from .files import read_json_file
from .models import WINDOW_LENGTH, build_model, count_parameters, parameter_efficiency
from .predictions import (DEFAULT_EPS, existing_predictions, pooled_metrics, predictions_frame,
                          predictions_path, run_dir, write_predictions)
from .samples import data_sha256
from .split import SequenceSplit, load_or_create_split, split_path, validate_split
from .tables import write_outputs
from .training import measure_latency, predict, train_model


CHECKPOINT_NAME = "checkpoint.pt"


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


OPTIMISER, LOSS = "Adam", "MSE"
#: The settings a finished run must share with a new request to be kept (the device may differ).
RESUME_KEYS = ("model_id", "seed", "variant", "epochs", "batch_size", "learning_rate", "optimiser", "loss",
               "train_stride", "window", "split_sha256", "data_sha256")


def training_config(plan: TrainingPlan, model_id: str, seed: int, variant: str, split: SequenceSplit,
                    data_hash: str, device: str) -> dict:
    """The full training configuration of one run, as stored in its ``config.json``."""
    return {"model_id": model_id, "seed": int(seed), "variant": variant, "epochs": plan.epochs,
            "batch_size": plan.batch_size, "learning_rate": plan.learning_rate, "optimiser": OPTIMISER,
            "loss": LOSS, "train_stride": plan.train_stride, "window": WINDOW_LENGTH,
            "split_seed": split.split_seed, "split_sha256": split.sha256, "data_sha256": data_hash,
            "device": device, "torch_version": torch.__version__}


def stored_config(folder: Path) -> dict | None:
    """A run's ``config.json`` (None when the run never finished)."""
    config_path = folder / "config.json"
    if not config_path.is_file():
        return None
    stored = read_json_file(config_path)
    if not isinstance(stored, dict):
        raise DataError("run configuration must be a JSON object", file=config_path, found=type(stored).__name__)
    return stored


def _check_config(folder: Path, stored: dict, wanted: dict, keys: Sequence[str], message: str) -> None:
    for key in keys:
        if stored.get(key) != wanted[key]:
            raise ConfigError(message, file=folder / "config.json", field=key, expected=wanted[key],
                              found=stored.get(key))


def finished_run(folder: Path, model_id: str, config: dict) -> bool:
    """Whether ``folder`` holds a finished run of ``config`` (its ``config.json``, written last,
    predictions and checkpoint). A finished run trained with other settings is an error: the
    results folder would mix two experiments."""
    stored = stored_config(folder)
    if stored is None:
        return False
    _check_config(folder, stored, config, RESUME_KEYS, "this run was already trained with other settings (choose "
                  "another output folder, or delete the run's folder to retrain it)")
    return (folder / CHECKPOINT_NAME).is_file() and any(
        (folder / f"{model_id}_predictions.{fmt}").is_file() for fmt in ("csv", "parquet"))


def train_runs(samples: DrivingSamples, split: SequenceSplit, results_dir: str | Path, variant: str,
               plan: TrainingPlan, *, data_hash: str | None = None, device: str = "cpu",
               progress: Callable[[str], None] = lambda message: None, show_bar: bool | None = False) -> RunLog:
    """Train every model for every seed on ``split`` and save each run, resumably.

    Each run writes into ``results_dir/{variant}/{model}/seed_{seed}/`` its predictions
    (``{model}_predictions.{fmt}``), ``{model}_metrics.json`` (pooled test metrics, validation RMSE,
    parameter count and efficiency, CPU latency), ``checkpoint.pt`` (the state_dict, on CPU) and,
    last, ``config.json`` (:func:`training_config`), every file atomically. A run whose
    ``config.json`` exists is skipped; a run killed before it is redone from scratch.
    ``show_bar``: tqdm progress bar per run (None: only on a terminal).
    """
    results_dir = Path(results_dir)
    indices = validate_split(split, samples.sequence_ids)
    dataset = SequenceWindowDataset(samples)
    data_hash = data_hash or data_sha256(samples)
    log = RunLog()
    train_indices = indices["train"][::plan.train_stride]
    n_batches = plan.epochs * -(-train_indices.size // plan.batch_size)
    for seed in plan.seeds:
        for model_id in plan.model_ids:
            folder = run_dir(results_dir, variant, model_id, seed)
            config = training_config(plan, model_id, seed, variant, split, data_hash, device)
            if finished_run(folder, model_id, config):
                progress(f"{model_id} seed {seed}: finished run kept ({folder / 'config.json'})")
                log.prediction_files.append(existing_predictions(results_dir, variant, model_id, seed))
                continue
            progress(f"training {model_id} seed {seed} on {device}")
            model = build_model(model_id, seed).to(device)
            with tqdm(total=n_batches, desc=f"{model_id} seed {seed}", unit="batch", leave=False,
                      disable=None if show_bar is None else not show_bar) as bar:
                losses = train_model(model, dataset, train_indices, epochs=plan.epochs, seed=seed,
                                     batch_size=plan.batch_size, learning_rate=plan.learning_rate,
                                     device=device, on_batch=lambda: bar.update(1))
            log.prediction_files.append(_evaluate_run(model.to("cpu"), model_id, seed, dataset, indices, losses,
                                                      results_dir, variant, plan))
            _save_checkpoint(model, folder / CHECKPOINT_NAME)
            atomic_write_json(folder / "config.json", config | {"n_train_samples": int(train_indices.size)})
    return log


def evaluate_runs(samples: DrivingSamples, split: SequenceSplit, results_dir: str | Path, variant: str,
                  plan: TrainingPlan, *, data_hash: str | None = None, max_bytes: int,
                  progress: Callable[[str], None] = lambda message: None) -> RunLog:
    """Predict the test set again from each finished run's ``checkpoint.pt`` (on CPU) and rewrite its
    predictions and metrics (the latency measured on this machine).

    Every run of ``plan.model_ids`` x ``plan.seeds`` must be finished and trained on these data and
    this split (``config.json``); its checkpoint may hold at most ``max_bytes``.
    """
    indices = validate_split(split, samples.sequence_ids)
    dataset = SequenceWindowDataset(samples)
    wanted = {"split_sha256": split.sha256, "data_sha256": data_hash or data_sha256(samples)}
    log = RunLog()
    for seed in plan.seeds:
        for model_id in plan.model_ids:
            folder = run_dir(results_dir, variant, model_id, seed)
            stored = stored_config(folder)
            if stored is None:
                raise DataError("run is not finished (train it first)", file=folder / "config.json")
            _check_config(folder, stored, wanted | {"model_id": model_id, "seed": int(seed)},
                          ("model_id", "seed", "split_sha256", "data_sha256"),
                          "this run was trained on other data or another split")
            progress(f"evaluating {model_id} seed {seed}")
            model = _load_checkpoint(model_id, seed, folder / CHECKPOINT_NAME, max_bytes)
            metrics = read_json_file(folder / f"{model_id}_metrics.json") \
                if (folder / f"{model_id}_metrics.json").is_file() else {}
            log.prediction_files.append(_evaluate_run(model, model_id, seed, dataset, indices,
                                                      metrics.get("train_loss", []) if isinstance(metrics, dict)
                                                      else [], results_dir, variant, plan))
    return log


def _load_checkpoint(model_id: str, seed: int, path: Path, max_bytes: int):
    """Model ``model_id`` with the weights of ``path`` (torch's weights-only loader: no code runs)."""
    with open_input_file(path, "a state_dict saved by train", max_bytes, "--max-bytes") as handle:
        model = build_model(model_id, seed)
        try:
            model.load_state_dict(torch.load(handle, map_location="cpu", weights_only=True))
        except pickle.UnpicklingError as exc:  # torch's long hint to load without restriction is not for us
            raise DataError(f"not a checkpoint torch's weights-only loader reads ({type(exc).__name__})",
                            file=path, expected=f"the state_dict of {model_id}") from exc
        except (RuntimeError, EOFError, ValueError, KeyError) as exc:
            raise DataError(f"not a {model_id} checkpoint ({type(exc).__name__}: "
                            f"{str(exc).splitlines()[0][:200]})", file=path) from exc
    return model


def _save_checkpoint(model, path: Path) -> Path:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def _evaluate_run(model, model_id, seed, dataset, indices, losses, results_dir, variant, plan) -> Path:
    """Predictions and ``{model}_metrics.json`` of a trained run (model on CPU)."""
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


def train_and_predict(samples: DrivingSamples, results_dir: str | Path, variant: str,
                      plan: TrainingPlan, split_seed: int = 0,
                      progress: Callable[[str], None] = lambda message: None) -> RunLog:
    """Split by sequence (persisted in ``results_dir/{variant}/splits``), then :func:`train_runs` on CPU."""
    results_dir = Path(results_dir)
    split = load_or_create_split(results_dir / variant / "splits", samples.sequence_ids, split_seed)
    log = train_runs(samples, split, results_dir, variant, plan, progress=progress)
    log.split_file = split_path(results_dir / variant / "splits", split_seed)
    return log


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
    comparisons = default_comparisons(plan.model_ids)
    progress(f"statistics for {len(comparisons)} comparisons")
    results = analyze_runs(results_dir, variant, plan.seeds, comparisons, settings)
    log.output_files = write_outputs(results, results_dir / "bootstrap")
    return log
