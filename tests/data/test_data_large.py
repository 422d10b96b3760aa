"""The fourteen larger sets (MLC-toolbox layout, ../shared/data/mlc-large) and the NPZ CSR layout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse

from pipeline.data.npz import read_npz_file
from pipeline.data.registry import LARGE_DATASETS, default_data_root, get_spec, load_dataset
from pipeline.datasets import main as datasets_main
from pipeline.errors import DataError
from pipeline.export_splits import main as export_main

FOURTEEN = ("20NG", "CAL500", "birds", "corel16k1", "corel16k2", "delicious", "flags", "languagelog",
            "rcv1s1", "rcv1s2", "rcv1s3", "rcv1s4", "rcv1s5", "tmc2007-500")


@pytest.fixture(scope="module")
def large_dir(shared_data: Path) -> Path:
    path = shared_data / "mlc-large"
    if not path.is_dir():
        pytest.fail(f"larger multi-label data folder {path} is missing")
    return path


def test_the_fourteen_are_registered_with_checksums_of_the_staged_files(large_dir):
    assert LARGE_DATASETS == FOURTEEN
    listed = dict(reversed(line.split()) for line in (large_dir / "SHA256SUMS").read_text().splitlines())
    for name in FOURTEEN:
        dataset_spec = get_spec(name)
        assert listed[dataset_spec.files[0].name] == dataset_spec.files[0].sha256
        assert dataset_spec.files[0].url.startswith("https://raw.githubusercontent.com/KKimura360/MLC_toolbox/")
        assert dataset_spec.reference_test_size == 0.3
        assert default_data_root(name).resolve() == large_dir.resolve()  # $MLFS_SHARED_DATA, or ../shared/data


@pytest.mark.parametrize("name", ["flags", "CAL500", "birds", "languagelog", "rcv1s1", "tmc2007-500"])
def test_a_staged_set_loads_with_the_registered_shape(name):
    dataset = load_dataset(name)  # default root: the set's collection folder
    dataset_spec = get_spec(name)
    assert dataset.X.shape == (dataset_spec.n, dataset_spec.d) and dataset.X.dtype == np.float64
    assert dataset.Y.shape == (dataset_spec.n, dataset_spec.n_labels) and dataset.Y.dtype == np.uint8
    assert dataset.cardinality == pytest.approx(dataset_spec.cardinality, abs=1e-3)
    assert dataset.provenance["format"] == "mlc-toolbox-mat"


def _write_cut(folder: Path, name: str, rows: int, source: Path, transpose_target: bool = False) -> Path:
    variables = scipy.io.loadmat(source)
    target = variables["target"][:, :rows]
    folder.mkdir(parents=True, exist_ok=True)
    scipy.io.savemat(folder / f"{name}.mat", {"data": variables["data"][:rows],
                                              "target": target.T if transpose_target else target})
    return folder / f"{name}.mat"


def test_a_file_of_another_shape_is_refused_naming_file_field_and_shape(tmp_path, large_dir):
    path = _write_cut(tmp_path, "flags", 40, large_dir / "flags.mat")
    with pytest.raises(DataError) as caught:
        load_dataset("flags", tmp_path)
    text = str(caught.value)
    assert str(path) in text and "(n, d, L)" in text and "(194, 19, 7)" in text and "(40, 19, 7)" in text


def test_targets_stored_n_by_l_are_refused_naming_the_field(tmp_path, large_dir):
    _write_cut(tmp_path, "flags", 40, large_dir / "flags.mat", transpose_target=True)
    with pytest.raises(DataError, match="L x n") as caught:
        load_dataset("flags", tmp_path)
    assert "target" in str(caught.value)


def test_list_shows_the_fourteen_and_info_names_the_source(capsys):
    assert datasets_main(["list"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["tmc2007-500"][1:5] == ["mlc-toolbox-mat", "28596", "20017", "8579"]
    assert set(FOURTEEN) <= set(rows)
    assert datasets_main(["info", "flags"]) == 0
    out = capsys.readouterr().out
    assert "KKimura360/MLC_toolbox/e7987792cc26a81028395a0761b65b2bc89364bd/dataset/matfile/flags.mat" in out
    assert "declared hold-out test fraction 0.3" in out and "n=194 d=19 L=7" in out


def _write_npz_layout(root: Path, name: str, X: np.ndarray, Y: np.ndarray, n_train: int) -> None:
    """The paper exporter's layout: the first n_train rows in train.npz, the rest in test.npz."""
    (root / name).mkdir(parents=True)
    for part, rows in (("train", slice(0, n_train)), ("test", slice(n_train, None))):
        parts = {}
        for matrix, values in (("X", X[rows]), ("Y", Y[rows])):
            csr = scipy.sparse.csr_matrix(values)
            parts.update({f"{matrix}_data": csr.data, f"{matrix}_indices": csr.indices,
                          f"{matrix}_indptr": csr.indptr, f"{matrix}_shape": np.array(csr.shape)})
        np.savez_compressed(root / name / f"{part}.npz", **parts)


def _export(data_root: Path | None, output_dir: Path, name: str) -> Path:
    root_option = ["--data-root", str(data_root)] if data_root is not None else []
    assert export_main(["--datasets", name, *root_option, "--folds", "2", "--output-dir", str(output_dir),
                        "--no-progress"]) == 0
    return output_dir / name


@pytest.mark.parametrize("name, n_train", [("birds", 322), ("flags", 130)])
def test_npz_layout_exports_byte_identical_folds(tmp_path, name, n_train):
    """birds (real-valued features) cut at Mulan's 322 training rows, flags (integer features)
    anywhere: the rows and their order, not where train.npz ends, make the folds."""
    registered = load_dataset(name)
    _write_npz_layout(tmp_path / "npz", name, registered.X, registered.Y, n_train)
    from_registry = _export(None, tmp_path / "from_registry", name)
    from_npz = _export(tmp_path / "npz", tmp_path / "from_npz", name)
    for fold in ("fold0", "fold1"):
        assert (from_npz / f"{fold}.mat").read_bytes() == (from_registry / f"{fold}.mat").read_bytes()
        npz_sidecar = json.loads((from_npz / f"{fold}.json").read_text())
        assert npz_sidecar["source"]["format"] == "npz-csr"
        assert [f["name"] for f in npz_sidecar["source"]["source_files"]] == ["train.npz", "test.npz"]


def test_holdout_of_a_set_without_split_uses_the_declared_test_size(tmp_path):
    folder = _export(None, tmp_path, "flags")
    sidecar = json.loads((folder / "fold0.json").read_text())
    assert sidecar["settings"]["test_size"] == 0.3 and sidecar["settings"]["mode"] == "holdout"
    assert abs(sidecar["n_test"] - 0.3 * 194) <= 3  # iterative stratification: near the declared share


@pytest.fixture(scope="module")
def good_npz(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("npz")
    X = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 1]], dtype=np.uint8)
    _write_npz_layout(root, "toy", X, Y, n_train=4)
    return root / "toy" / "train.npz"


def _rewritten(source: Path, target: Path, **changes) -> Path:
    with np.load(source) as archive:
        arrays = {key: archive[key] for key in archive.files}
    arrays.update(changes)
    np.savez(target, **{key: value for key, value in arrays.items() if value is not None})
    return target


def test_a_valid_npz_file_reads_back_dense(good_npz):
    X, Y = read_npz_file(good_npz)
    np.testing.assert_array_equal(X, [[0, 1, 0], [2, 0, 0.5], [0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(Y, [[1, 0], [0, 1], [1, 1], [0, 1]])


@pytest.mark.parametrize("changes, field, text", [
    ({"Y_indptr": None}, "Y_indptr", "missing key"),
    ({"X_indptr": np.array([0, 1, 3, 2, 6])}, "X_indptr", "invalid row pointers"),
    ({"X_indices": np.array([1, 0, 9, 0, 1, 2])}, "X_indices", "invalid column indices"),
    ({"X_indices": np.array([1, 0, 0, 0, 1, 2])}, "X_indices", "a column appears twice"),
    ({"X_data": np.array([1.0, 2.0, np.inf, 1.0, 1.0, 1.0])}, "X_data", "non-finite"),
    ({"Y_data": np.array([1, 2, 1, 1, 1])}, "Y_data", "labels must be 0 or 1"),
    ({"X_shape": np.array([4.0, 3.0])}, "X_shape", "not a 1-D array of the right kind"),
    ({"X_data": np.array(["a"] * 6, dtype=object)}, "X_data", "cannot read array"),
])
def test_a_broken_npz_file_is_refused_naming_file_and_key(tmp_path, good_npz, changes, field, text):
    path = _rewritten(good_npz, tmp_path / "train.npz", **changes)
    with pytest.raises(DataError, match=text) as caught:
        read_npz_file(path)
    assert str(path) in str(caught.value) and field in str(caught.value)


def test_an_npz_file_declaring_more_than_the_size_limit_is_refused_before_reading(tmp_path, good_npz, monkeypatch):
    path = _rewritten(good_npz, tmp_path / "train.npz", X_shape=np.array([10**6, 10**5]))
    with pytest.raises(DataError, match="matrices too large"):
        read_npz_file(path)
    monkeypatch.setenv("MLFS_MAX_FOLD_BYTES", "16")
    with pytest.raises(DataError, match="member too large"):
        read_npz_file(good_npz)


def test_an_npz_folder_without_its_test_part_is_named(tmp_path, good_npz):
    (tmp_path / "flags").mkdir()
    shutil.copy(good_npz, tmp_path / "flags" / "train.npz")
    with pytest.raises(DataError, match="not found") as caught:
        load_dataset("flags", tmp_path)
    assert str(tmp_path / "flags" / "test.npz") in str(caught.value)



PAPER_SUITE = """
name: npz
datasets: [flags]
folds: {mode: holdout, count: 1, seed: 0, test_size: reference}
methods: {VARIANCE: {}}
engine: python
grids: {kgrid: {k_min: 5, k_max: 15, k_step: 5}}
run: {executor: serial}
"""


@pytest.mark.slow  # a whole paper run (25 s wall at load average 17); the export_splits test above is the fast lane's
def test_paper_run_exports_the_same_folds_from_the_npz_layout(tmp_path):
    from pipeline.cli import run_main
    from pipeline.paper.__main__ import main as paper_main

    registered = load_dataset("flags")
    _write_npz_layout(tmp_path / "npz", "flags", registered.X, registered.Y, n_train=136)
    (tmp_path / "suite.yaml").write_text(PAPER_SUITE)
    assert run_main(paper_main, ["run", str(tmp_path / "suite.yaml"), "--root", str(tmp_path / "run"),
                                 "--data-root", str(tmp_path / "npz"), "--no-progress"]) == 0
    assert export_main(["--datasets", "flags", "--folds", "1", "--output-dir", str(tmp_path / "registry"),
                        "--no-progress"]) == 0
    exported = tmp_path / "run" / "data" / "paper_matlab_minmax" / "flags" / "fold0.mat"
    assert exported.read_bytes() == (tmp_path / "registry" / "flags" / "fold0.mat").read_bytes()
    assert json.loads(exported.with_suffix(".json").read_text())["source"]["format"] == "npz-csr"
