"""Fold export: split properties, train-only scaling, determinism, sidecars, the shipped demo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skmultilearn.model_selection import iterative_train_test_split

from pipeline.data.export import ExportSettings, export_dataset
from pipeline.data.folds import load_fold, sha256_file
from pipeline.data.registry import Dataset
from pipeline.data.scaling import scale_fold
from pipeline.data.splits import stratified_splits
from pipeline.data.synthetic import make_demo_dataset
from pipeline.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
SHIPPED_DEMO = REPO / "data" / "paper_matlab_minmax" / "demo"


@st.composite
def label_matrices(draw):
    n = draw(st.integers(12, 60))
    n_labels = draw(st.integers(1, 5))
    density = draw(st.floats(0.05, 0.6))
    seed = draw(st.integers(0, 2**16))
    return (np.random.default_rng(seed).random((n, n_labels)) < density).astype(np.uint8)


@settings(max_examples=25, deadline=None)
@given(Y=label_matrices(), n_folds=st.integers(2, 6), seed=st.integers(0, 1000))
def test_kfold_test_sets_partition_the_rows(Y, n_folds, seed):
    splits = stratified_splits(Y, mode="kfold", n_folds=n_folds, seed=seed)
    assert len(splits) == n_folds
    tests = np.concatenate([s.test for s in splits])
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(Y)))  # complete, each row once
    for s in splits:
        assert np.intersect1d(s.train, s.test).size == 0  # disjoint
        np.testing.assert_array_equal(np.sort(np.concatenate([s.train, s.test])), np.arange(len(Y)))


@settings(max_examples=25, deadline=None)
@given(Y=label_matrices(), repeats=st.integers(1, 4), seed=st.integers(0, 1000),
       test_size=st.floats(0.1, 0.5))
def test_holdout_repeats_are_disjoint_and_complete(Y, repeats, seed, test_size):
    splits = stratified_splits(Y, mode="holdout", n_folds=repeats, seed=seed, test_size=test_size)
    assert [s.seed for s in splits] == [seed + f for f in range(repeats)]
    for s in splits:
        assert np.intersect1d(s.train, s.test).size == 0
        np.testing.assert_array_equal(np.sort(np.concatenate([s.train, s.test])), np.arange(len(Y)))


def test_splits_are_seeded_and_leave_the_global_rng_alone():
    Y = (np.random.default_rng(1).random((200, 4)) < 0.3).astype(np.uint8)
    np.random.seed(12345)
    before = np.random.get_state()[1].copy()
    a = stratified_splits(Y, mode="kfold", n_folds=5, seed=3)
    assert np.array_equal(np.random.get_state()[1], before)
    b = stratified_splits(Y, mode="kfold", n_folds=5, seed=3)
    c = stratified_splits(Y, mode="kfold", n_folds=5, seed=4)
    assert all(np.array_equal(x.test, y.test) for x, y in zip(a, b))
    assert not all(np.array_equal(x.test, y.test) for x, y in zip(a, c))


def test_holdout_reproduces_the_reference_procedure_once_seeded(real_datasets):
    """Reference: shuffle with RandomState(seed+f), then iterative_train_test_split (order 2)."""
    dataset = real_datasets["emotions"]
    seed, test_size = 5, 202 / 593
    splits = stratified_splits(dataset.Y, mode="holdout", n_folds=2, seed=seed, test_size=test_size)
    for f, split in enumerate(splits):
        perm = np.random.RandomState(seed + f).permutation(dataset.n_samples)
        np.random.seed(seed + f)
        X_train, Y_train, X_test, Y_test = iterative_train_test_split(
            dataset.X[perm], dataset.Y[perm], test_size)
        np.testing.assert_array_equal(dataset.X[split.train], X_train)
        np.testing.assert_array_equal(dataset.Y[split.test], Y_test)
        np.testing.assert_array_equal(dataset.X[split.test], X_test)


@pytest.mark.parametrize("mode, folds, tolerance", [("kfold", 5, 0.06), ("holdout", 3, 0.03)])
@pytest.mark.parametrize("name", ["emotions", "medical", "yeast", "Arts"])
def test_label_proportions_preserved_on_real_data(real_datasets, name, mode, folds, tolerance):
    dataset = real_datasets[name]
    splits = stratified_splits(dataset.Y, mode=mode, n_folds=folds, seed=0,
                               test_size=0.3 if mode == "holdout" else None)
    full = dataset.Y.mean(axis=0)
    for s in splits:
        assert np.abs(dataset.Y[s.test].mean(axis=0) - full).max() <= tolerance
        assert np.abs(dataset.Y[s.train].mean(axis=0) - full).max() <= tolerance


def test_holdout_test_fraction_is_close_to_requested(real_datasets):
    dataset = real_datasets["scene"]
    for s in stratified_splits(dataset.Y, mode="holdout", n_folds=2, seed=0, test_size=0.25):
        assert len(s.test) / len(dataset.Y) == pytest.approx(0.25, abs=0.01)


def test_bad_split_arguments():
    Y = np.ones((10, 2), dtype=np.uint8)
    for kwargs in ({"mode": "loo", "n_folds": 2}, {"mode": "kfold", "n_folds": 1},
                   {"mode": "holdout", "n_folds": 2}, {"mode": "holdout", "n_folds": 2, "test_size": 1.0},
                   {"mode": "kfold", "n_folds": 2, "seed": -1}):
        with pytest.raises(ConfigError):
            stratified_splits(Y, **{"seed": 0, **kwargs})


def test_minmax_is_fitted_on_train_only():
    X_train = np.array([[0.0, 5.0, 2.0], [10.0, 5.0, 4.0], [5.0, 5.0, 3.0]])
    X_test = np.array([[20.0, 7.0, 1.0], [-10.0, 5.0, 3.0]])
    train, test = scale_fold(X_train, X_test, "minmax")
    np.testing.assert_array_equal(train[:, 0], [0.0, 1.0, 0.5])
    np.testing.assert_array_equal(train[:, 1], [0.0, 0.0, 0.0])  # constant column: range counts as 1
    np.testing.assert_array_equal(test[:, 0], [2.0, -1.0])  # not clipped by default
    np.testing.assert_array_equal(test[:, 1], [2.0, 0.0])   # x - min, divided by range 1
    np.testing.assert_array_equal(test[:, 2], [-0.5, 0.5])
    scale = 1.0 / 2.0  # multiply-then-add form, as scikit-learn's MinMaxScaler
    assert test[1, 2] == 3.0 * scale + (-2.0 * scale)
    _, clipped = scale_fold(X_train, X_test, "minmax", clip_test=True)
    np.testing.assert_array_equal(clipped[:, 0], [1.0, 0.0])


def test_zscore_and_none_scalers():
    X_train = np.array([[1.0, 3.0], [3.0, 3.0]])
    train, test = scale_fold(X_train, np.array([[5.0, 4.0]]), "zscore")
    np.testing.assert_array_equal(train, [[-1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(test, [[3.0, 1.0]])
    train, test = scale_fold(X_train, np.array([[5.0, 4.0]]), "none")
    np.testing.assert_array_equal(test, [[5.0, 4.0]])
    with pytest.raises(ConfigError, match="clip"):
        scale_fold(X_train, X_train, "zscore", clip_test=True)


def test_export_real_dataset_writes_consistent_folds_and_sidecars(real_datasets, tmp_path):
    dataset = real_datasets["emotions"]
    settings_ = ExportSettings(mode="holdout", n_folds=2, seed=7, test_size=202 / 593)
    paths = export_dataset(dataset, tmp_path, settings_)
    assert paths == [tmp_path / "emotions" / "fold0.mat", tmp_path / "emotions" / "fold1.mat"]
    for index, path in enumerate(paths):
        fold = load_fold(path)
        meta = json.loads(path.with_suffix(".json").read_text())
        train, test = np.array(meta["train_indices"]), np.array(meta["test_indices"])
        assert meta["fold_sha256"] == sha256_file(path) and meta["fold_seed"] == 7 + index
        assert meta["settings"]["mode"] == "holdout" and meta["stratifier"]["order"] == 2
        assert {f["name"] for f in meta["source"]["source_files"]} == {
            "emotions-train.arff", "emotions-test.arff", "emotions.xml"}
        assert "scikit-multilearn" in meta["versions"] and "numpy" in meta["versions"]
        # rows stored in the sidecar's index order; labels exactly the dataset's
        np.testing.assert_array_equal(fold.Y_train, dataset.Y[train])
        np.testing.assert_array_equal(fold.Y_test, dataset.Y[test])
        # train-only min-max: train spans [0, 1] per column, test uses train's parameters
        lo, hi = dataset.X[train].min(axis=0), dataset.X[train].max(axis=0)
        assert fold.X_train.min() >= 0.0 and fold.X_train.max() <= 1.0 + 1e-12
        np.testing.assert_allclose(fold.X_test, (dataset.X[test] - lo) / (hi - lo), atol=1e-12)
        assert fold.X_test.min() < 0.0 or fold.X_test.max() > 1.0  # emotions: test leaves [0, 1]


def _export_bytes(dataset, out, seed):
    export_dataset(dataset, out, ExportSettings(mode="kfold", n_folds=3, seed=seed))
    return {p.name: p.read_bytes() for p in sorted((out / dataset.name).iterdir())}


def test_same_seed_gives_byte_identical_files_other_seed_differs(real_datasets, tmp_path):
    dataset = real_datasets["yeast"]
    first = _export_bytes(dataset, tmp_path / "a", seed=0)
    np.random.seed(999)  # the caller's global RNG state must not matter
    second = _export_bytes(dataset, tmp_path / "b", seed=0)
    other = _export_bytes(dataset, tmp_path / "c", seed=1)
    assert sorted(first) == ["fold0.json", "fold0.mat", "fold1.json", "fold1.mat", "fold2.json",
                             "fold2.mat"]
    assert first == second
    assert all(first[name] != other[name] for name in first)
    assert b"Created on" not in first["fold0.mat"][:116]


def test_synthetic_generator_is_deterministic_with_planted_features():
    (a, rel_a), (b, _) = make_demo_dataset(0), make_demo_dataset(0)
    c, rel_c = make_demo_dataset(1)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert not np.array_equal(a.X, c.X)
    assert a.name == "demo" and a.X.shape == (400, 120) and a.Y.shape == (400, 6)
    assert len(rel_a) == 10 and np.all(np.diff(rel_a) > 0)
    assert 0.15 <= a.Y.mean(axis=0).min() and a.Y.mean(axis=0).max() <= 0.45
    # planted features carry the label signal: their best |correlation| beats every noise feature
    corr = np.abs(np.corrcoef(a.X.T, a.Y.T)[:120, 120:]).max(axis=1)
    noise = np.setdiff1d(np.arange(120), rel_a)
    assert np.sort(corr[rel_a])[2] > corr[noise].max()


def test_shipped_demo_folds_are_valid_small_and_reproducible(tmp_path):
    files = sorted(SHIPPED_DEMO.glob("fold*"))
    assert [p.name for p in files] == [f"fold{i}.{ext}" for i in range(5) for ext in ("json", "mat")]
    assert sum(p.stat().st_size for p in files) < 1_000_000
    dataset, _ = make_demo_dataset(0)
    export_dataset(dataset, tmp_path, ExportSettings(mode="kfold", n_folds=5, seed=0))
    for i in range(5):
        shipped, fresh = load_fold(SHIPPED_DEMO / f"fold{i}.mat"), load_fold(tmp_path / "demo" / f"fold{i}.mat")
        for key in ("X_train", "Y_train", "X_test", "Y_test"):
            np.testing.assert_array_equal(getattr(shipped, key), getattr(fresh, key))
        meta = json.loads((SHIPPED_DEMO / f"fold{i}.json").read_text())
        assert meta["fold_sha256"] == sha256_file(SHIPPED_DEMO / f"fold{i}.mat")
        assert meta["n_train"] == 320 and meta["n_test"] == 80


def test_export_rejects_unsafe_dataset_names(tmp_path):
    bad = Dataset(name="../evil", X=np.zeros((4, 1)), Y=np.zeros((4, 1), dtype=np.uint8),
                  label_names=("y",))
    with pytest.raises(ConfigError):
        export_dataset(bad, tmp_path, ExportSettings(mode="kfold", n_folds=2))
