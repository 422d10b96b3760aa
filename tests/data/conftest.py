"""Fixtures of the data-layer tests."""

from __future__ import annotations

import pytest

from pipeline.data.registry import REAL_DATASETS, load_dataset


@pytest.fixture(scope="session")
def real_datasets(mlc_dir):
    """All 17 real datasets, read once per session (about 4 s)."""
    return {name: load_dataset(name, mlc_dir) for name in REAL_DATASETS}
