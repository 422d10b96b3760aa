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
