"""Export a dataset's folds: stratified split, train-only scaling, fold files and JSON sidecars.

For each fold i this writes, atomically,

* ``<output_dir>/<dataset>/fold<i>.mat`` with ``X_train, Y_train, X_test, Y_test`` (X float64,
  Y int8 in {0,1}, one row per instance, rows in the split's order), and
* ``<output_dir>/<dataset>/fold<i>.json``, its sidecar: split settings, the train/test row indices,
  the SHA-256 of the source files and of the fold file, and library versions. It is written
  before the fold file, so that no fold file is ever without it.

The same dataset, settings and library versions give byte-identical files on every run
(:mod:`pipeline.data.matfile` removes the timestamp SciPy writes into MAT headers).
"""

from __future__ import annotations

import hashlib
import platform
import zlib
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Callable

from ..fileio import atomic_write_bytes, atomic_write_json
from ..names import validate_name
from .folds import fold_bytes, fold_path
from .dataset import Dataset
from .scaling import check_scaler, scale_fold
from .splits import Split, check_split_settings, stratified_splits

SIDECAR_SCHEMA = "mlfs-bench/fold-sidecar/1"
_VERSIONED_PACKAGES = ("numpy", "scipy", "scikit-learn", "scikit-multilearn", "liac-arff", "mlfs-bench")


@dataclass(frozen=True)
class ExportSettings:
    """How folds are made.

    mode : "kfold" or "holdout"; n_folds : folds or holdout repeats; seed : base seed;
    test_size : holdout test fraction (None for kfold); scaler : "minmax", "zscore" or "none";
    clip_test : clip scaled values to [0, 1] (minmax only).
    """

    mode: str = "holdout"
    n_folds: int = 5
    seed: int = 0
    test_size: float | None = None
    scaler: str = "minmax"
    clip_test: bool = False

    def validate(self) -> "ExportSettings":
        """Return self, or raise ConfigError for invalid split or scaler settings."""
        check_split_settings(self.mode, self.n_folds, self.seed,
                             self.test_size if self.mode == "holdout" else None)
        check_scaler(self.scaler, clip_test=self.clip_test)
        return self


#: How the demo's folds are made (data/paper_matlab_minmax/demo in a checkout; generated, no download).
DEMO_FOLDS = ExportSettings(mode="kfold", n_folds=5, seed=0, scaler="minmax")


def export_dataset(dataset: Dataset, output_dir: str | Path, settings: ExportSettings, *,
                   on_fold: Callable[[int], None] | None = None, first: int | None = None) -> list[Path]:
    """Write the folds of ``dataset`` under ``<output_dir>/<dataset.name>/``: all of them, or the
    ``first`` ones of a holdout.

    Parameters
    ----------
    dataset : Dataset
        X (n, d) and Y (n, L) in {0,1}.
    output_dir : path
    settings : ExportSettings
    on_fold : callable, optional
        Called with the fold index after each fold is written (progress reporting).
    first : int, optional
        Write only folds ``0 .. first - 1`` of a holdout. Repeat f depends on ``seed + f`` alone, so
        they are the very files a whole export writes, and the others are never computed (an order-2
        stratification of delicious takes about 20 minutes a repeat). The k-fold partition is one
        whole, so a k-fold export writes every fold.

    Returns
    -------
    list of Path
        The fold files, in fold order.
    """
    validate_name(dataset.name, "dataset")
    settings.validate()
    count = first if first is not None and settings.mode == "holdout" else settings.n_folds
    splits = stratified_splits(dataset.Y, mode=settings.mode, n_folds=min(count, settings.n_folds),
                               seed=settings.seed,
                               test_size=settings.test_size if settings.mode == "holdout" else None)
    written = []
    for index, split in enumerate(splits):
        path = fold_path(output_dir, dataset.name, index)
        content = _fold_content(path, dataset, split, settings)
        # The sidecar before the fold file: a run stopped between them leaves a sidecar without its
        # fold (the fold is missing, and exported again), never a fold without its record. The old
        # fold goes first, so that it is never found beside the new sidecar.
        path.unlink(missing_ok=True)
        atomic_write_json(path.with_suffix(".json"),
                          _sidecar(path, hashlib.sha256(content).hexdigest(), index, dataset, split, settings))
        atomic_write_bytes(path, content)
        written.append(path)
        if on_fold is not None:
            on_fold(index)
    return written


def library_versions() -> dict[str, str]:
    """Versions of the packages (and zlib) that determine the fold files' bytes."""
    versions = {"python": platform.python_version(), "zlib": zlib.ZLIB_RUNTIME_VERSION}
    for package in _VERSIONED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _fold_content(path: Path, dataset: Dataset, split: Split, settings: ExportSettings) -> bytes:
    X_train, X_test = scale_fold(dataset.X[split.train], dataset.X[split.test], settings.scaler,
                                 clip_test=settings.clip_test)
    return fold_bytes(path, X_train, dataset.Y[split.train], X_test, dataset.Y[split.test])


def _sidecar(path: Path, fold_sha256: str, index: int, dataset: Dataset, split: Split,
             settings: ExportSettings) -> dict:
    stratifier = {"library": "scikit-multilearn", "class": "IterativeStratification",
                  "order": 1 if settings.mode == "kfold" else 2,
                  "shuffle": "numpy.random.RandomState(fold_seed).permutation(n)",
                  "global_numpy_rng_seed": split.seed}
    return {
        "schema": SIDECAR_SCHEMA,
        "dataset": dataset.name,
        "fold": index,
        "fold_file": path.name,
        "fold_sha256": fold_sha256,
        "settings": asdict(settings),
        "fold_seed": split.seed,
        "stratifier": stratifier,
        "n_total": dataset.n_samples, "n_features": dataset.n_features,
        "n_labels": dataset.n_labels,
        "n_train": int(split.train.size), "n_test": int(split.test.size),
        "train_indices": split.train.tolist(),
        "test_indices": split.test.tolist(),
        "indices_base": 0,
        "label_names": list(dataset.label_names),
        "source": dataset.provenance,
        "versions": library_versions(),
    }

