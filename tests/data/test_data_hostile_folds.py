"""Hostile fold files: bombs and lying headers are refused from their headers, memory stays bounded
by the real data, extreme feature values are refused, and fold names read back from disk are
validated. Crafted files, real loaders, and the k-grid front door (exit code 2, one line)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse
from hypothesis import given, settings, strategies as st

from hostile_mat import compressed, file_bytes, lying_bomb, matrix, matrix_head, peak_bytes, small_fold, zero_bomb
from pipeline import kgrid
from pipeline.cli import run_main
from pipeline.data.folds import (discover_datasets, list_fold_indices, load_fold, max_feature_magnitude,
                                 save_fold)
from pipeline.data.matheader import DEFAULT_MAX_BYTES, MAX_BYTES_VARIABLE, read_mat_headers
from pipeline.errors import ConfigError, DataError

REALMAX = sys.float_info.max
REPO = Path(__file__).resolve().parents[2]



def _fold_with(tmp_path, bomb_key: str, bomb: bytes, dataset: str = "bomb"):
    """fold0.mat with three small valid arrays and ``bomb`` as the fourth variable."""
    arrays = small_fold(np.random.default_rng(0))
    elements = [bomb if key == bomb_key else compressed(matrix(key, value)) for key, value in arrays.items()]
    path = tmp_path / dataset / "fold0.mat"
    path.parent.mkdir(parents=True)
    path.write_bytes(file_bytes(*elements))
    return path


def test_header_reader_agrees_with_scipy_on_real_files(mlc_dir):
    paths = [REPO / "data" / "paper_matlab_minmax" / "demo" / "fold0.mat", mlc_dir / "Arts.mat",
             mlc_dir / "bibtex.mat", mlc_dir / "Corel5k.mat"]
    for path in paths:
        ours = [(v.name, v.dims, "double" if v.class_name == "double" else v.class_name)
                for v in read_mat_headers(path)]
        assert ours == [(name, shape, kind) for name, shape, kind in scipy.io.whosmat(path)], path


def test_header_reader_on_every_kind_of_variable(tmp_path):
    path = tmp_path / "kinds.mat"
    scipy.io.savemat(path, {"d": np.zeros((2, 3)), "i": np.ones((1, 1), np.int8), "c": np.array(["abc"]),
                            "s": {"x": 1.0}, "z": np.array([[1 + 2j]]), "l": np.array([[True, False]]),
                            "e": np.zeros((0, 4)), "t": np.zeros((2, 3, 4)),
                            "sp": scipy.sparse.csc_matrix(np.eye(3))}, do_compression=True)
    found = {v.name: (v.class_name, v.dims, v.is_complex) for v in read_mat_headers(path)}
    assert found == {"d": ("double", (2, 3), False), "i": ("int8", (1, 1), False),
                     "c": ("char", (1, 3), False), "s": ("struct", (1, 1), False),
                     "z": ("double", (1, 1), True), "l": ("logical", (1, 2), False),
                     "e": ("double", (0, 4), False), "t": ("double", (2, 3, 4), False),
                     "sp": ("sparse", (3, 3), False)}


def test_real_zlib_bomb_is_refused_before_it_is_inflated(tmp_path):
    # 32 MB of zeros in 31 kB; the limit is lowered so that the test stays small and fast
    rng = np.random.default_rng(0)
    elements = [zero_bomb("X_train", (2000, 2000)), compressed(matrix("Y_train", np.zeros((2000, 2)))),
                compressed(matrix("X_test", rng.random((5, 2000)))), compressed(matrix("Y_test", np.ones((5, 2))))]
    path = tmp_path / "fold0.mat"
    path.write_bytes(file_bytes(*elements))
    assert path.stat().st_size < 200_000
    peak, raised = peak_bytes(load_fold, path, max_bytes=10_000_000)
    assert isinstance(raised, DataError)
    assert "field 'X_train': arrays larger than the size limit" in str(raised)
    assert "at most 10000000 bytes as float64 (set MLFS_MAX_FOLD_BYTES" in str(raised)
    assert "X_train 2000x2000" in str(raised)
    assert peak < 2_000_000  # nothing of the 32 MB was inflated
    fold = load_fold(path, max_bytes=100_000_000)  # under a higher limit it is a valid fold
    assert fold.X_train.shape == (2000, 2000) and not fold.X_train.any()


def test_lying_header_of_a_3_4_gb_array_is_refused_with_the_default_limit(tmp_path, capsys):
    # 3.4 MB on disk (deflate expands 1032:1 at most), 20000 x 21250 doubles (3.4 GB) declared
    path = _fold_with(tmp_path / "folds", "X_train", lying_bomb("X_train", (20000, 21250), 3_400_000))
    peak, raised = peak_bytes(load_fold, path)
    assert isinstance(raised, DataError) and f"at most {DEFAULT_MAX_BYTES} bytes" in str(raised)
    assert "found 3400" in str(raised)
    assert peak < 2_000_000
    code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(tmp_path / "folds"), "--results-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "bomb/fold0.mat, field 'X_train': arrays larger than the size limit" in err
    assert "Traceback" not in err


def test_limit_comes_from_the_environment(tmp_path, monkeypatch):
    path = save_fold(tmp_path / "fold0.mat", **small_fold(np.random.default_rng(1)))  # 17 x (3+2) doubles
    monkeypatch.setenv(MAX_BYTES_VARIABLE, str(17 * 5 * 8 - 1))
    with pytest.raises(DataError, match="found 680 bytes declared"):
        load_fold(path)
    monkeypatch.setenv(MAX_BYTES_VARIABLE, str(17 * 5 * 8))
    assert load_fold(path).X_train.shape == (12, 3)
    monkeypatch.setenv(MAX_BYTES_VARIABLE, "lots")
    with pytest.raises(ConfigError, match="field 'MLFS_MAX_FOLD_BYTES': must be a positive integer.*'lots'"):
        load_fold(path)


@pytest.mark.parametrize("build, pattern", [
    # data part declares 8000 bytes while the shape needs 80
    (lambda: compressed(matrix_head("X_train", (10, 1), data_bytes=8000)[0]),
     r"holds 8000 bytes, which does not fit shape \(10, 1\)"),
    # an uncompressed element that runs past the end of the file
    (lambda: matrix("X_train", np.ones((40, 3)))[:200], "runs past the end of the file"),
    # a compressed element whose zlib stream is not one
    (lambda: compressed(matrix_head("X_train", (4, 3))[0])[:8] + b"x" * 50, "corrupt compressed"),
    # a complete zlib stream that ends before the variable's header does
    (lambda: compressed(matrix_head("X_train", (4, 3))[0][:30]), "compressed variable ends inside its header"),
])
def test_broken_structures_are_format_errors(tmp_path, build, pattern):
    path = tmp_path / "fold0.mat"
    path.write_bytes(file_bytes(build()))
    with pytest.raises(DataError, match=rf"fold0\.mat: not a readable MATLAB \.mat file.*{pattern}"):
        load_fold(path)


def test_compressed_element_declaring_more_than_deflate_can_hold(tmp_path):
    # the 3.4 GB header of the previous test in 1.5 MB: deflate cannot expand that much
    stream = lying_bomb("X_train", (20000, 21250), 1_500_000)
    path = tmp_path / "fold0.mat"
    path.write_bytes(file_bytes(stream))
    with pytest.raises(DataError, match=r"declares 3400000056 bytes, more than its 150\d{4} compressed bytes can hold"):
        load_fold(path, max_bytes=10**12)


@pytest.mark.parametrize("extra, pattern", [
    ({"X_train": scipy.sparse.csc_matrix(np.eye(3))}, r"field 'X_train': not a real numeric array.*found sparse"),
    ({"Y_test": {"a": 1.0}}, r"field 'Y_test': not a real numeric array.*found struct"),
])
def test_containers_and_sparse_matrices_are_refused_from_the_header(tmp_path, extra, pattern):
    arrays = {**small_fold(np.random.default_rng(2)), **extra}
    scipy.io.savemat(tmp_path / "fold0.mat", arrays)
    with pytest.raises(DataError, match=pattern):
        load_fold(tmp_path / "fold0.mat")


def test_a_variable_stored_twice_is_refused(tmp_path):
    arrays = small_fold(np.random.default_rng(3))
    elements = [matrix(k, v) for k, v in arrays.items()] + [matrix("X_test", arrays["X_test"] + 1)]
    (tmp_path / "fold0.mat").write_bytes(file_bytes(*elements))
    with pytest.raises(DataError, match="field 'X_test': variable stored twice"):
        load_fold(tmp_path / "fold0.mat")


def test_crafted_valid_file_loads_like_scipy_writes_it(tmp_path):
    arrays = small_fold(np.random.default_rng(4))
    (tmp_path / "fold0.mat").write_bytes(file_bytes(*(compressed(matrix(k, v)) for k, v in arrays.items())))
    fold = load_fold(tmp_path / "fold0.mat")
    np.testing.assert_array_equal(fold.X_test, arrays["X_test"])
    np.testing.assert_array_equal(fold.Y_train, arrays["Y_train"])


# -- extreme feature values --------------------------------------------------------------------

def test_magnitude_limit_is_exact_at_its_boundary(tmp_path):
    d = 3
    limit = max_feature_magnitude(d)
    assert limit == math.sqrt(REALMAX / 24)
    arrays = small_fold(np.random.default_rng(5), d=d)
    arrays["X_train"][4, 2] = -limit
    assert save_fold(tmp_path / "ok" / "fold0.mat", **arrays)
    arrays["X_test"][1, 0] = np.nextafter(limit, np.inf)
    scipy.io.savemat(tmp_path / "fold0.mat", arrays)
    with pytest.raises(DataError) as info:
        load_fold(tmp_path / "fold0.mat")
    message = str(info.value)
    assert "field 'X_test': feature value too large: a squared distance over the fold's features could overflow" in message
    assert "expected |x| <= 2.73686e+153 = sqrt(realmax / (8 d)) for d = 3" in message
    assert f"found {np.nextafter(limit, np.inf).item()!r} at row 1, column 0 (1 such values)" in message
    with pytest.raises(DataError, match="feature value too large"):
        save_fold(tmp_path / "never.mat", **arrays)  # the exporter can never write such a fold
    assert not (tmp_path / "never.mat").exists()


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 20_000), signs=st.integers(0, 3))
def test_no_squared_distance_overflows_within_the_limit(d, signs):
    """Worst case for every d: all coordinates at +-M on opposite sides, summed in order."""
    limit = max_feature_magnitude(d)
    a = np.full(d, limit if signs & 1 else -limit)
    b = -a if signs & 2 else np.full(d, -limit if signs & 1 else limit)
    terms = (a - b) * (a - b)
    total = 0.0
    for value in terms:  # the canonical recurrence, sequential in feature order
        total += value
    assert math.isfinite(total) and total <= REALMAX / 2 * (1 + 1e-12)
    assert math.isfinite(float(a @ a + b @ b + 2 * abs(a @ b)))  # norm expansion used by BLAS paths


def test_overflowing_fold_through_the_k_grid_is_exit_2(tmp_path, capsys):
    arrays = small_fold(np.random.default_rng(6), n_train=30, n_test=8)
    arrays["X_train"][3, 1] = 1.5e154  # above sqrt(realmax): its square alone overflows
    (tmp_path / "folds" / "huge").mkdir(parents=True)
    scipy.io.savemat(tmp_path / "folds" / "huge" / "fold0.mat", arrays)
    code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(tmp_path / "folds"), "--results-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "huge/fold0.mat, field 'X_train': feature value too large" in err
    assert "found 1.5e+154 at row 3, column 1" in err
    assert not list((tmp_path / "r").rglob("*_metrics.json"))


# -- names read back from disk ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["fold01.mat", "fold0.mat\n", "fold\u0663.mat", "FOLD2.MAT", "fold 1.mat",
                                  "fold1000000.mat"])
def test_near_miss_fold_file_names_are_refused_not_skipped(tmp_path, name):
    save_fold(tmp_path / "toy" / "fold0.mat", **small_fold(np.random.default_rng(7)))
    (tmp_path / "toy" / name).write_bytes(b"")
    with pytest.raises(DataError, match=r"toy: not a valid fold file name") as info:
        list_fold_indices(tmp_path, "toy")
    assert f"found {name!r}" in str(info.value)


def test_other_files_beside_the_folds_are_ignored(tmp_path):
    for i in (0, 2, 999999):
        save_fold(tmp_path / "toy" / f"fold{i}.mat", **small_fold(np.random.default_rng(i)))
    for other in ("fold0.json", "fold0.mat.bak", "notes.txt", ".fold1.mat.tmp"):
        (tmp_path / "toy" / other).write_text("x")
    assert list_fold_indices(tmp_path, "toy") == [0, 2, 999999]


@pytest.mark.parametrize("folder", ["demo\n", "a b", "x" * 129])
def test_discovered_dataset_folder_with_an_invalid_name_is_refused(tmp_path, capsys, folder):
    save_fold(tmp_path / folder / "fold0.mat", **small_fold(np.random.default_rng(8), n_train=30))
    save_fold(tmp_path / "fine" / "fold0.mat", **small_fold(np.random.default_rng(9), n_train=30))
    with pytest.raises(DataError, match="dataset folder with an invalid name: rename it, or choose datasets"):
        discover_datasets(tmp_path)
    code = run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--data-dir", str(tmp_path), "--results-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert run_main(kgrid.main, ["--engine", "python", "--no-progress", "--methods", "VARIANCE",
                                 "--datasets", "fine", "--data-dir", str(tmp_path),
                                 "--results-dir", str(tmp_path / "r")]) == 0
