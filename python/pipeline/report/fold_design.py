"""How each dataset's folds were made, as the per-dataset t-test needs it: by repeated hold-out
or by k-fold cross-validation (the fold sidecars say; files without one leave it unsaid) and the
share ``n_test / n_train`` of the corrected resampled t-test (:mod:`pipeline.stats.fold_tests`).

The sizes come from each fold's sidecar (``<folds dir>/<dataset>/fold<i>.json``) when a folds
folder is given, else from the metrics files, which record the fold file's shapes as scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .. import aggregate as agg
from ..data.folds import fold_path
from ..data.splits import SPLIT_MODES
from ..documents import RESULT_LIMITS, read_document
from ..errors import DataError

#: How the folds were made and the source of the correction for them; for folds whose making no
#: sidecar states, and for those whose sizes are unknown (no mark).
DESIGN_NOTES = {"holdout": "repeated hold-out: Nadeau and Bengio 2003",
                "kfold": "k-fold: Bouckaert and Frank 2004, r = 1",
                "unstated": "Nadeau and Bengio 2003, hold-out assumed: one k-fold gives the same",
                "unknown": "no mark: fold sizes unknown"}


@dataclass(frozen=True)
class FoldDesign:
    """``mode``: "holdout" or "kfold" as the sidecars say, None when they do not (no sidecar);
    ``test_train_ratio``: mean ``n_test / n_train`` over the folds, None when no size is known."""

    mode: str | None
    test_train_ratio: float | None


def fold_designs(results: agg.ResultSet, folds_dir: str | None) -> dict[str, FoldDesign]:
    """The :class:`FoldDesign` of every dataset of ``results``.

    Raises
    ------
    DataError
        Naming the sidecar, if one is unreadable or lacks its mode or sizes, or if the sidecars of
        one dataset name different modes.
    """
    return {dataset: _design(results, dataset, folds_dir) for dataset in results.datasets}


def _design(results: agg.ResultSet, dataset: str, folds_dir: str | None) -> FoldDesign:
    modes, ratios = set(), []
    for fold in results.expected_folds[dataset]:
        sidecar = None if folds_dir is None else _read_sidecar(fold_path(folds_dir, dataset, fold).with_suffix(".json"))
        if sidecar is not None:
            mode, n_train, n_test = sidecar
            modes.add(mode)
        else:
            n_train, n_test = _recorded_sizes(results, dataset, fold)
        if n_train:
            ratios.append(n_test / n_train)
    if len(modes) > 1:
        raise DataError("the fold sidecars of one dataset name different fold modes", file=Path(folds_dir) / dataset,
                        field="settings.mode", expected="one mode", found=sorted(modes))
    return FoldDesign(next(iter(modes)) if modes else None, float(np.mean(ratios)) if ratios else None)


def _read_sidecar(path: Path) -> tuple[str, int, int] | None:
    """(mode, n_train, n_test) of a fold sidecar; None when there is none."""
    if not path.is_file():
        return None
    sidecar = read_document(path, "fold sidecar", limits=RESULT_LIMITS, kind="json")
    settings = sidecar.get("settings") if isinstance(sidecar, dict) else None
    mode = settings.get("mode") if isinstance(settings, dict) else None
    if mode not in SPLIT_MODES:
        raise DataError("fold sidecar without a valid fold mode", file=path, field="settings.mode",
                        expected=f"one of {list(SPLIT_MODES)}", found=repr(mode))
    for key in ("n_train", "n_test"):
        value = sidecar.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise DataError("fold sidecar without its part's size", file=path, field=key,
                            expected="a positive whole number", found=repr(value))
    return mode, sidecar["n_train"], sidecar["n_test"]


def _recorded_sizes(results: agg.ResultSet, dataset: str, fold: int) -> tuple[int | None, int | None]:
    """(n_train, n_test) from the first metrics file of the fold that records them."""
    for method in results.methods:
        result = results.results.get((method, dataset, fold))
        if result is not None and result.n_train and result.n_test is not None:
            return result.n_train, result.n_test
    return None, None


def design_note(designs: dict[str, FoldDesign], name: Callable[[str], str]) -> str:
    """What each dataset's correction is based on, for the caption: the note of the one design all
    datasets share, or a note per design naming its datasets."""
    groups: dict[str, list[str]] = {}
    for dataset, design in designs.items():
        key = "unknown" if design.test_train_ratio is None else design.mode or "unstated"
        groups.setdefault(key, []).append(name(dataset))
    if len(groups) == 1:
        return DESIGN_NOTES[next(iter(groups))]
    return "; ".join(f"{', '.join(datasets)}: {DESIGN_NOTES[key]}" for key, datasets in groups.items())
