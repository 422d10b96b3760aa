"""The suite's fold files: exported when missing, checked against their sidecars when present."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

from ..data.export import ExportSettings, export_dataset
from ..data.folds import fold_path, sha256_file
from ..data.registry import get_spec, load_dataset, require_files
from ..documents import RESULT_LIMITS, read_document
from ..errors import ConfigError
from .suite import Suite


def dataset_settings(suite: Suite, dataset: str) -> ExportSettings:
    """The export settings of one dataset: a holdout with ``test_size: reference`` uses its n_test / n."""
    if suite.folds.mode != "holdout" or suite.folds.test_size is not None:
        return suite.folds
    return replace(suite.folds, test_size=get_spec(dataset).reference_test_size)


def ensure_folds(suite: Suite, folds_dir: Path, raw_root: Path, report=print) -> None:
    """Export every dataset whose fold files are missing; check the others against their sidecars.

    Raises
    ------
    ConfigError
        If existing fold files were made with other settings or changed since (their sidecar's
        SHA-256): mixing them would silently change the experiment.
    """
    for dataset in suite.datasets:
        settings = dataset_settings(suite, dataset)
        paths = [fold_path(folds_dir, dataset, i) for i in range(settings.n_folds)]
        if all(path.is_file() for path in paths):
            for path in paths[:len(suite.fold_indices)]:
                check_sidecar(path, settings)
            continue
        require_files(dataset, raw_root)
        export_dataset(load_dataset(dataset, raw_root), folds_dir, settings)
        report(f"{dataset}: exported {settings.n_folds} folds to {folds_dir / dataset}")


def check_sidecar(path: Path, settings: ExportSettings) -> None:
    """A fold file with a sidecar must match the declared settings and the SHA-256 recorded there."""
    sidecar_path = path.with_suffix(".json")
    if not sidecar_path.is_file():
        return  # folds made elsewhere: used as given
    sidecar = read_document(sidecar_path, "fold sidecar", limits=RESULT_LIMITS, kind="json")
    recorded = sidecar.get("settings") if isinstance(sidecar, dict) else None
    if recorded != asdict(settings):
        raise ConfigError("fold file was made with other settings than the suite declares; delete the folder "
                          "to re-export it or point folds.dir elsewhere", file=sidecar_path,
                          expected=asdict(settings), found=recorded)
    if sidecar.get("fold_sha256") != sha256_file(path):
        raise ConfigError("fold file changed since it was exported (SHA-256 differs from its sidecar)", file=path)
