"""Fixtures for the report tests: synthetic result sets (docs/results-schema.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from report_helpers import DATASETS, METHODS, SEEDED  # noqa: E402
from results_factory import write_result_set  # noqa: E402


@pytest.fixture(scope="session")
def kgrid_results(tmp_path_factory) -> Path:
    return write_result_set(tmp_path_factory.mktemp("kgrid"), METHODS, DATASETS, folds=3, grid="kgrid",
                            seed=1, n_features=[68, 72, 103], seeded=SEEDED)


@pytest.fixture(scope="session")
def pgrid_results(tmp_path_factory) -> Path:
    return write_result_set(tmp_path_factory.mktemp("pgrid"), METHODS, DATASETS, folds=3, grid="pgrid",
                            seed=2, n_features=[68, 72, 103], seeded=SEEDED)
