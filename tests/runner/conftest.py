"""Fixtures for the runner and CLI tests."""

from pathlib import Path

import pytest

from runner_helpers import make_fold_dir


@pytest.fixture
def fold_dir(tmp_path) -> Path:
    return make_fold_dir(tmp_path / "folds")
