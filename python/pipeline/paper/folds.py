"""The suite's fold files: checked against their sidecars when present, exported when missing."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

from ..data.export import ExportSettings, export_dataset
from ..data.folds import fold_path, sha256_file
from ..data.registry import REGISTRY, get_spec, load_dataset, require_files
from ..documents import RESULT_LIMITS, read_document
from ..errors import ConfigError
from ..experiment.model import Experiment


def dataset_settings(suite: Experiment, dataset: str) -> ExportSettings:
    """The export settings of one dataset: a holdout with ``test_size: reference`` uses its n_test / n."""
    if suite.folds.mode != "holdout" or suite.folds.test_size is not None:
        return suite.folds
    return replace(suite.folds, test_size=get_spec(dataset).reference_test_size)


def check_folds(suite: Experiment, folds_dir: Path) -> list[str]:
    """The datasets whose fold files must be exported; the door check of ``status`` and ``run``
    alike, so that ``status`` refuses what ``run`` would.

    Raises
    ------
    ConfigError
        If existing fold files were made with other settings or changed since (their sidecar's
        SHA-256): mixing them would silently change the experiment; if a dataset whose folds
        are missing is not a registered dataset, which could not be exported; or if a fold file's
        place is taken by a folder.
    """
    if suite.folds is None:  # fold files: found (or refused) by Experiment.located
        return []
    to_export = []
    for dataset in suite.datasets:
        paths = [fold_path(folds_dir, dataset, i) for i in _folds_needed(suite)]
        blocking = next((path for path in paths if path.exists() and not path.is_file()), None)
        if blocking is not None:  # the export could not write there
            raise ConfigError("a fold file's place is taken by something that is not a file", file=blocking,
                              expected="a fold file, or nothing (it is then exported)")
        if all(path.is_file() for path in paths):
            check_sidecars_present(paths)
            settings = dataset_settings(suite, dataset) if dataset in REGISTRY else suite.folds
            for path in paths:
                check_sidecar(path, settings)
            continue
        if dataset not in REGISTRY:
            raise ConfigError("no fold files for this dataset, and it is not a registered dataset that could be "
                              "exported", file=folds_dir / dataset, field="datasets",
                              expected=f"{len(paths)} fold files, or one of {', '.join(REGISTRY)}",
                              found=dataset)
        to_export.append(dataset)
    return to_export


def export_folds(suite: Experiment, datasets: list[str], folds_dir: Path, raw_root: Path | None,
                 report=print) -> None:
    """Export the fold files of ``datasets`` (those :func:`check_folds` found missing) from ``raw_root``
    (None: each dataset's collection folder, :func:`~pipeline.data.registry.default_data_root`)."""
    for dataset in datasets:
        settings = dataset_settings(suite, dataset)
        require_files(dataset, raw_root)
        written = export_dataset(load_dataset(dataset, raw_root), folds_dir, settings,
                                 first=len(_folds_needed(suite)))
        count = f"{len(written)}" if len(written) == settings.n_folds else f"{len(written)} of {settings.n_folds}"
        report(f"{dataset}: exported {count} folds to {folds_dir / dataset}")


def _folds_needed(suite: Experiment) -> list[int]:
    """The fold indices this run reads (``--folds N``: the first N); a holdout exports only those."""
    return suite.fold_indices if suite.folds.mode == "holdout" else list(range(suite.folds.n_folds))


def check_sidecars_present(paths: list[Path]) -> None:
    """Refuse a dataset's fold files that lack a sidecar: the suite declares how its folds are made,
    and only the sidecar says which settings made a fold file.

    An export writes each sidecar before its fold file; a fold file without one was left by an
    older export stopped between the two, copied in by hand or made elsewhere. Fold files made
    elsewhere are used as given with ``folds: {mode: files}``, which declares no settings.
    """
    without = [path for path in paths if not path.with_suffix(".json").is_file()]
    if not without:
        return
    if len(without) < len(paths):
        raise ConfigError("fold file has no sidecar, though the other folds of its dataset have one (an export "
                          "stopped between the two, or a file put there by hand); delete the dataset's folder to "
                          "export it again with the suite's settings, or point folds.dir elsewhere", file=without[0])
    raise ConfigError("fold files have no sidecar, so nothing says they were made with the suite's fold settings; "
                      "delete the dataset's folder to export it with them, or declare folds: {mode: files} to use "
                      "these files as given", file=without[0].parent)


def check_sidecar(path: Path, settings: ExportSettings) -> None:
    """A fold file must match the declared settings and the SHA-256 recorded there."""
    sidecar_path = path.with_suffix(".json")
    sidecar = read_document(sidecar_path, "fold sidecar", limits=RESULT_LIMITS, kind="json")
    recorded = sidecar.get("settings") if isinstance(sidecar, dict) else None
    if recorded != asdict(settings):
        raise ConfigError("fold file was made with other settings than the suite declares; delete the folder "
                          "to re-export it or point folds.dir elsewhere", file=sidecar_path,
                          expected=asdict(settings), found=recorded)
    if sidecar.get("fold_sha256") != sha256_file(path):
        raise ConfigError("fold file changed since it was exported (SHA-256 differs from its sidecar)", file=path)
