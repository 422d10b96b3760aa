"""Fixtures of the data-layer tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.data.registry import REAL_DATASETS, load_dataset


class RealDatasets(dict):
    """Name -> dataset of the 17 real datasets, each read the first time a test asks for it: most
    tests use one or two, and reading all of them took about 4 s of each xdist worker."""

    def __init__(self, root: Path):
        super().__init__()
        self.root = root

    def __missing__(self, name: str):
        if name not in REAL_DATASETS:
            raise KeyError(f"{name!r} is not a real dataset (expected one of {sorted(REAL_DATASETS)})")
        self[name] = dataset = load_dataset(name, self.root)
        return dataset


@pytest.fixture(scope="session")
def real_datasets(mlc_dir) -> RealDatasets:
    """The real datasets, each read once per session when first used."""
    return RealDatasets(mlc_dir)
