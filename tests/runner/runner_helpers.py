"""Helpers for the runner and CLI tests: small real fold files and timing-free result snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pipeline.data.folds import save_fold


def make_fold_dir(root: Path, dataset: str = "toy", n_folds: int = 2, n_train: int = 60, n_test: int = 30,
                  d: int = 25, n_labels: int = 4, seed: int = 0) -> Path:
    """Write ``root/<dataset>/fold{i}.mat`` with planted label structure; return ``root``."""
    rng = np.random.default_rng(seed)
    for i in range(n_folds):
        X = rng.random((n_train + n_test, d))
        Y = (X[:, :n_labels] + 0.3 * rng.random((n_train + n_test, n_labels)) > 0.8).astype(np.int8)
        save_fold(root / dataset / f"fold{i}.mat", X[:n_train], Y[:n_train], X[n_train:], Y[n_train:])
    return root


def result_contents(root: Path) -> dict[str, object]:
    """Every result file under ``root`` minus timing: JSON parsed without timing fields, text as is."""
    contents: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.name in ("config.json", "failures.json") or path.name.endswith("_time.txt"):
            continue
        rel = str(path.relative_to(root))
        if path.suffix == ".json":
            record = json.loads(path.read_text())
            contents[rel] = {key: value for key, value in record.items() if not key.startswith("time_")}
        else:
            contents[rel] = path.read_text()
    return contents
