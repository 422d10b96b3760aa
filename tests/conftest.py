"""Shared fixtures.

Real datasets live in ``../shared/data`` beside the checkout (or in ``$MLFS_SHARED_DATA``). Tests
that need them fail loudly when they are missing: a green run must mean the real data was used.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    env = os.environ.get("MLFS_SHARED_DATA")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if not path.is_dir():
        pytest.fail(f"real data folder {path} is missing: put ../shared beside the checkout "
                    "or set MLFS_SHARED_DATA")
    return path


@pytest.fixture(scope="session")
def mlc_dir(shared_data: Path) -> Path:
    path = shared_data / "mlc"
    if not path.is_dir():
        pytest.fail(f"multi-label data folder {path} is missing")
    return path


@pytest.fixture(scope="session")
def forecast_dir(shared_data: Path) -> Path:
    path = shared_data / "forecast"
    if not path.is_dir():
        pytest.fail(f"forecasting data folder {path} is missing")
    return path


@pytest.fixture(scope="session")
def real_folds(tmp_path_factory, mlc_dir):
    """``real_folds(dataset, folds=1, seed=0)``: the folder of hold-out folds of a real dataset, made
    once per session by the export command a user runs (min-max fitted on each training part).
    Tests read it; their results go elsewhere."""
    from pipeline.export_splits import main as export_main

    made: dict[tuple, Path] = {}

    def export(dataset: str, folds: int = 1, seed: int = 0) -> Path:
        key = (dataset, folds, seed)
        if key not in made:
            out = tmp_path_factory.mktemp(f"{dataset}_{folds}folds_seed{seed}")
            assert export_main(["--datasets", dataset, "--data-root", str(mlc_dir), "--split-mode", "holdout",
                                "--folds", str(folds), "--seed", str(seed), "--output-dir", str(out),
                                "--no-progress"]) == 0
            made[key] = out
        return made[key]

    return export
