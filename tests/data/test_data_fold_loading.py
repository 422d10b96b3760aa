"""load_fold on good files and on a corpus of bad ones; fold paths and discovery."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import scipy.io

from pipeline.data.folds import (Fold, discover_datasets, fold_path, list_fold_indices, load_fold,
                                 save_fold, sha256_file)
from pipeline.errors import ConfigError, DataError


def _good_arrays():
    rng = np.random.default_rng(0)
    return {"X_train": rng.random((6, 3)), "Y_train": rng.integers(0, 2, (6, 2)).astype(np.int8),
            "X_test": rng.random((4, 3)), "Y_test": rng.integers(0, 2, (4, 2)).astype(np.int8)}


def test_round_trip_casts_dtypes_and_names_the_fold(tmp_path):
    arrays = _good_arrays()
    path = save_fold(fold_path(tmp_path, "toy", 3), **arrays)
    fold = load_fold(path)
    assert isinstance(fold, Fold)
    assert (fold.dataset, fold.index, fold.path) == ("toy", 3, path)
    assert (fold.n_features, fold.n_labels) == (3, 2)
    assert fold.X_train.dtype == np.float64 and fold.Y_test.dtype == np.uint8
    np.testing.assert_array_equal(fold.X_train, arrays["X_train"])
    np.testing.assert_array_equal(fold.Y_test, arrays["Y_test"])
    assert load_fold(path, dataset="other", index=7).dataset == "other"


def test_fold_path_listing_discovery_and_hash(tmp_path):
    assert fold_path(tmp_path, "emotions", 2) == tmp_path / "emotions" / "fold2.mat"
    with pytest.raises(ConfigError):
        fold_path(tmp_path, "../x", 0)
    for i in (0, 1, 10):
        save_fold(fold_path(tmp_path, "a", i), **_good_arrays())
    save_fold(fold_path(tmp_path, "b", 1), **_good_arrays())  # no fold0: not discovered
    (tmp_path / "a" / "fold1.json").write_text("{}")
    assert list_fold_indices(tmp_path, "a") == [0, 1, 10]
    assert list_fold_indices(tmp_path, "missing") == []
    assert discover_datasets(tmp_path) == ["a"]
    assert discover_datasets(tmp_path / "nowhere") == []
    path = fold_path(tmp_path, "a", 0)
    assert sha256_file(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_save_fold_refuses_invalid_arrays(tmp_path):
    arrays = _good_arrays()
    arrays["Y_test"] = np.full((4, 2), -1)
    with pytest.raises(DataError, match=r"bad\.mat.*field 'Y_test'"):
        save_fold(tmp_path / "bad.mat", **arrays)
    arrays = _good_arrays()
    arrays["X_test"], arrays["Y_test"] = arrays["X_test"][:0], arrays["Y_test"][:0]
    with pytest.raises(DataError, match=r"field 'X_test': no instances"):
        save_fold(tmp_path / "bad.mat", **arrays)
    assert not (tmp_path / "bad.mat").exists()


def _write(tmp_path, **changes):
    arrays = _good_arrays()
    arrays.update(changes)
    path = tmp_path / "fold0.mat"
    scipy.io.savemat(path, {k: v for k, v in arrays.items() if v is not None})
    return path


@pytest.mark.parametrize("changes, field, pattern", [
    ({"Y_test": None}, "Y_test", r"missing variable.*expected keys"),
    ({"Y_train": np.ones((5, 2))}, "Y_train", r"row count.*expected 6 rows.*found 5 rows"),
    ({"X_test": np.ones((4, 2))}, "X_test", r"features differs.*expected 3 columns.*found 2"),
    ({"Y_test": np.ones((4, 3))}, "Y_test", r"labels differs.*expected 3 columns|labels differs"),
    ({"X_train": np.full((6, 3), np.nan)}, "X_train", r"non-finite.*18 NaN/Inf, first at row 0"),
    ({"X_test": np.array([[0, 1, np.inf]] * 4)}, "X_test", r"non-finite.*first at row 0, column 2"),
    ({"Y_train": -np.ones((6, 2))}, "Y_train", r"0 or 1.*found 12 other values, e.g. \[-1"),
    ({"Y_test": np.full((4, 2), 2)}, "Y_test", r"0 or 1"),
    ({"X_train": np.zeros((6, 3, 2))}, "X_train", r"dimensions.*expected 2-D.*found 3-D"),
    ({"X_train": np.array(["abc"])}, "X_train", r"not a real numeric array"),
    ({"Y_train": np.ones((6, 2), dtype=complex)}, "Y_train", r"not a real numeric array"),
])
def test_bad_fold_contents_give_data_error_with_file_and_field(tmp_path, changes, field, pattern):
    path = _write(tmp_path, **changes)
    with pytest.raises(DataError, match=pattern) as info:
        load_fold(path)
    message = str(info.value)
    assert str(path) in message and f"field '{field}'" in message


def test_misnamed_key_lists_the_keys_found(tmp_path):
    arrays = _good_arrays()
    arrays["Xtrain"] = arrays.pop("X_train")
    path = tmp_path / "fold0.mat"
    scipy.io.savemat(path, arrays)
    with pytest.raises(DataError, match=r"field 'X_train'.*found keys \['X_test', 'Xtrain'"):
        load_fold(path)


def test_minus_one_plus_one_labels_are_rejected_not_converted(tmp_path):
    path = _write(tmp_path, Y_train=np.where(_good_arrays()["Y_train"] > 0, 1, -1))
    with pytest.raises(DataError, match=r"Y_train.*values in \{0, 1\}"):
        load_fold(path)


@pytest.mark.parametrize("content", [b"", b"not a mat file at all\n" * 10, b"MATLAB 5.0" + b"\0" * 40])
def test_non_mat_files_give_data_error(tmp_path, content):
    path = tmp_path / "fold0.mat"
    path.write_bytes(content)
    with pytest.raises(DataError, match=r"fold0\.mat: not a readable MATLAB \.mat file"):
        load_fold(path)


@pytest.mark.parametrize("keep", [128, 200, 0.5, -1])
def test_truncated_fold_gives_data_error(tmp_path, keep):
    good = save_fold(tmp_path / "good.mat", **_good_arrays()).read_bytes()
    cut = int(len(good) * keep) if isinstance(keep, float) else keep
    path = tmp_path / "fold1.mat"
    path.write_bytes(good[:cut])
    with pytest.raises(DataError, match=r"fold1\.mat.*(not a readable|missing variable)"):
        load_fold(path)


def test_missing_fold_file(tmp_path):
    with pytest.raises(DataError, match=r"fold9\.mat: fold file not found"):
        load_fold(tmp_path / "fold9.mat")
