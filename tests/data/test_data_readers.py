"""Readers and registry on the 17 real datasets (../shared/data/mlc) and on small bad files."""

from __future__ import annotations

import dataclasses
import shutil
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
import scipy.io

from pipeline.data import registry
from pipeline.data.readers import read_clml_mat, read_mulan, read_yahoo_mat
from pipeline.data.registry import REAL_DATASETS, get_spec, load_dataset
from pipeline.errors import ConfigError, DataError

# (n, d, L, cardinality, feature min, feature max, labels without positives) from the data README.
README_TABLE = {
    "Arts": (5000, 462, 26, 1.636, 0.0, 1.0, 0),
    "Business": (5000, 438, 30, 1.588, 0.0, 1.0, 1),
    "Education": (5000, 550, 33, 1.461, 0.0, 1.0, 0),
    "Entertainment": (5000, 640, 21, 1.420, 0.0, 1.0, 0),
    "Health": (5000, 612, 32, 1.662, 0.0, 1.0, 2),
    "Recreation": (5000, 606, 22, 1.423, 0.0, 1.0, 0),
    "Reference": (5000, 793, 33, 1.169, 0.0, 1.0, 1),
    "Science": (5000, 743, 40, 1.451, 0.0, 1.0, 0),
    "Social": (5000, 1047, 39, 1.283, 0.0, 1.0, 1),
    "emotions": (593, 72, 6, 1.869, -99.09, 237.0, 0),
    "enron": (1702, 1001, 53, 3.378, 0.0, 1.0, 0),
    "genbase": (662, 1185, 27, 1.252, 0.0, 1.0, 0),
    "medical": (978, 1449, 45, 1.245, 0.0, 1.0, 0),
    "scene": (2407, 294, 6, 1.074, 0.0, 1.0, 0),
    "yeast": (2417, 103, 14, 4.237, -0.797, 0.730, 0),
    "bibtex": (7395, 1836, 159, 2.402, 0.0, 1.0, 0),
    "Corel5k": (5000, 499, 374, 3.522, 0.0, 1.0, 0),
}


def test_registry_lists_the_seventeen_readme_datasets_the_larger_sets_and_demo():
    assert set(REAL_DATASETS) == set(README_TABLE)
    assert set(registry.REGISTRY) == set(README_TABLE) | set(registry.LARGE_DATASETS) | {"demo"}
    for name, (n, d, n_labels, card, *_rest) in README_TABLE.items():
        dataset_spec = get_spec(name)
        assert (dataset_spec.n, dataset_spec.d, dataset_spec.n_labels) == (n, d, n_labels)
        assert dataset_spec.n_train + dataset_spec.n_test == n
        assert dataset_spec.cardinality == pytest.approx(card)
        assert all(f.url.startswith("https://raw.githubusercontent.com/") for f in dataset_spec.files)


def test_registry_checksums_match_the_shared_sha256sums(mlc_dir):
    listed = dict(reversed(line.split()) for line in (mlc_dir / "SHA256SUMS").read_text().splitlines())
    for name in REAL_DATASETS:
        for source in get_spec(name).files:
            assert listed[source.name] == source.sha256, source.name


@pytest.mark.parametrize("name", sorted(README_TABLE))
def test_real_dataset_matches_readme_statistics(real_datasets, name):
    n, d, n_labels, card, lo, hi, empty_labels = README_TABLE[name]
    ds = real_datasets[name]
    assert ds.X.shape == (n, d) and ds.Y.shape == (n, n_labels)
    assert ds.X.dtype == np.float64 and ds.Y.dtype == np.uint8
    assert set(np.unique(ds.Y)) <= {0, 1}
    assert ds.cardinality == pytest.approx(card, abs=1e-3)
    assert ds.X.min() == pytest.approx(lo, abs=1e-3) and ds.X.max() == pytest.approx(hi, abs=1e-3)
    assert int((ds.Y.sum(axis=0) == 0).sum()) == empty_labels
    assert ds.Y.sum(axis=1).min() >= 1  # README: no instance has an empty label set
    assert np.isfinite(ds.X).all()
    assert len(ds.label_names) == n_labels
    assert [f["name"] for f in ds.provenance["source_files"]] == [f.name for f in get_spec(name).files]


@pytest.mark.parametrize("name", ["enron", "genbase", "medical", "bibtex", "Corel5k"])
def test_binary_features_are_exactly_zero_or_one(real_datasets, name):
    assert set(np.unique(real_datasets[name].X)) == {0.0, 1.0}


def test_sparse_arff_zero_shares_match_readme(real_datasets):
    assert float((real_datasets["enron"].X == 0).mean()) == pytest.approx(0.916, abs=1e-3)
    assert float((real_datasets["medical"].X == 0).mean()) == pytest.approx(0.991, abs=1e-3)


def test_genbase_protein_id_is_dropped_and_yes_no_mapped(real_datasets, mlc_dir):
    raw = read_mulan([mlc_dir / "genbase-train.arff"], mlc_dir / "genbase.xml",
                     drop_attributes=("protein",))
    assert "protein" not in raw.feature_names and raw.feature_names[0] == "PS00010"
    assert raw.X.shape == (463, 1185)
    constant = np.ptp(real_datasets["genbase"].X, axis=0) == 0
    assert int(constant.sum()) == 1074  # README: 1074 of the 1185 features are constant
    # first training row of genbase-train.arff: protein Q9PQS9, then 'NO' for PS00010
    assert real_datasets["genbase"].X[0, 0] == 0.0


@pytest.mark.parametrize("name", ["yeast", "enron"])
def test_labels_follow_arff_file_order_not_xml_order(real_datasets, mlc_dir, name):
    xml_order = [el.get("name") for el in ElementTree.parse(mlc_dir / f"{name}.xml").getroot()]
    file_order = [line.split()[1] for line in (mlc_dir / f"{name}-train.arff").read_text().splitlines()
                  if line.lower().startswith("@attribute")][-len(xml_order):]
    assert list(real_datasets[name].label_names) == file_order
    assert file_order != xml_order and sorted(file_order) == sorted(xml_order)


def test_rows_are_train_then_test(real_datasets, mlc_dir):
    arts = scipy.io.loadmat(mlc_dir / "Arts.mat")
    np.testing.assert_array_equal(real_datasets["Arts"].X[:2000], arts["train_data"])
    np.testing.assert_array_equal(real_datasets["Arts"].Y[2000:], (arts["test_target"].T == 1))
    scene_train = read_mulan([mlc_dir / "scene-train.arff"], mlc_dir / "scene.xml")
    np.testing.assert_array_equal(real_datasets["scene"].X[:1211], scene_train.X)


# (density, share of zero features, duplicate feature rows, label type in the file) from the README
CLML_README = {"bibtex": (0.0151, 0.963, 40, np.uint8), "Corel5k": (0.0094, 0.983, 2, np.int16)}


@pytest.mark.parametrize("name", sorted(CLML_README))
def test_clml_datasets_keep_file_rows_and_convert_labels(real_datasets, mlc_dir, name):
    density, zeros, duplicate_rows, label_type = CLML_README[name]
    ds = real_datasets[name]
    raw = scipy.io.loadmat(mlc_dir / f"{name}.mat")
    assert raw["class"].dtype == label_type  # {0,1} in bibtex, {-1,+1} in Corel5k
    np.testing.assert_array_equal(ds.Y, (raw["class"].T == 1).astype(np.uint8))
    np.testing.assert_array_equal(ds.X, raw["dataset"])  # file row order, no split stored
    assert ds.Y.mean() == pytest.approx(density, abs=5e-5)
    assert float((ds.X == 0).mean()) == pytest.approx(zeros, abs=5e-4)
    assert ds.n_samples - np.unique(ds.X, axis=0).shape[0] == duplicate_rows
    assert ds.provenance["row_order"] == "file order (the file stores no split)"
    assert get_spec(name).reference_test_size == pytest.approx({"bibtex": 2515 / 7395, "Corel5k": 0.1}[name])


def test_clml_reader_maps_both_label_codings_and_checks_orientation(tmp_path):
    path = tmp_path / "c.mat"
    features = np.array([[0, 1], [1, 1], [0, 0]], dtype=np.uint8)
    for labels in (np.array([[1, 0, 1], [0, 0, 1]], dtype=np.uint8),
                   np.array([[1, -1, 1], [-1, -1, 1]], dtype=np.int16)):
        scipy.io.savemat(path, {"dataset": features, "class": labels})
        raw = read_clml_mat(path)
        np.testing.assert_array_equal(raw.Y, [[1, 0], [0, 0], [1, 1]])
        assert raw.X.dtype == np.float64 and raw.label_names == ("label1", "label2")
    scipy.io.savemat(path, {"dataset": features, "class": np.ones((3, 2))})
    with pytest.raises(DataError, match=r"c\.mat, field 'class': targets must be L x n.*found shape \(3, 2\)"):
        read_clml_mat(path)
    scipy.io.savemat(path, {"dataset": features})
    with pytest.raises(DataError, match=r"field 'class': missing variable.*found keys \['dataset'\]"):
        read_clml_mat(path)


def test_yahoo_reader_transposes_and_maps_targets(tmp_path):
    path = tmp_path / "tiny.mat"
    target = np.array([[1, -1, 1], [-1, -1, 1]], dtype=np.int16)  # L=2 x n=3
    scipy.io.savemat(path, {"train_data": np.arange(6.0).reshape(3, 2), "train_target": target,
                            "test_data": np.ones((1, 2)), "test_target": np.array([[-1], [1]])})
    raw = read_yahoo_mat(path)
    np.testing.assert_array_equal(raw.Y, [[1, 0], [0, 0], [1, 1], [0, 1]])
    np.testing.assert_array_equal(raw.X[:3], np.arange(6.0).reshape(3, 2))


def test_yahoo_reader_rejects_untransposed_and_bad_targets(tmp_path):
    path = tmp_path / "bad.mat"
    scipy.io.savemat(path, {"train_data": np.zeros((3, 2)), "train_target": np.ones((3, 2)),
                            "test_data": np.zeros((1, 2)), "test_target": np.ones((2, 1))})
    with pytest.raises(DataError, match=r"bad\.mat.*train_target.*L x n"):
        read_yahoo_mat(path)
    scipy.io.savemat(path, {"train_data": np.zeros((3, 2)), "train_target": np.full((2, 3), 2),
                            "test_data": np.zeros((1, 2)), "test_target": np.ones((2, 1))})
    with pytest.raises(DataError, match=r"train_target.*\+1"):
        read_yahoo_mat(path)


def _write_arff(path, attributes, rows):
    header = "\n".join(f"@attribute {name} {kind}" for name, kind in attributes)
    path.write_text(f"@relation t\n{header}\n@data\n" + "\n".join(rows) + "\n")


def _write_xml(path, labels):
    body = "".join(f'<label name="{name}"></label>' for name in labels)
    path.write_text(f'<?xml version="1.0"?><labels xmlns="http://mulan.sourceforge.net/labels">'
                    f"{body}</labels>")


def test_mulan_reader_sparse_rows_and_label_file_order(tmp_path):
    _write_arff(tmp_path / "s.arff", [("f1", "numeric"), ("f2", "{0,1}"), ("b", "{0,1}"),
                                      ("a", "{0,1}")],
                ["{0 2.5,3 1}", "{1 1,2 1}"])
    _write_xml(tmp_path / "s.xml", ["a", "b"])
    raw = read_mulan([tmp_path / "s.arff"], tmp_path / "s.xml")
    np.testing.assert_array_equal(raw.X, [[2.5, 0.0], [0.0, 1.0]])
    np.testing.assert_array_equal(raw.Y, [[0, 1], [1, 0]])
    assert raw.label_names == ("b", "a")


@pytest.mark.parametrize("attributes, rows, pattern", [
    ([("f", "{red,blue}"), ("y", "{0,1}")], ["red,1"], r"s\.arff.*field 'f'.*unsupported feature"),
    ([("f", "numeric"), ("y", "{0,1}")], ["?,1"], r"s\.arff.*field 'f'.*missing values"),
    ([("y", "{0,1}"), ("f", "numeric")], ["1,0.5"], r"s\.arff.*last L attributes"),
])
def test_mulan_reader_rejects_unsupported_files(tmp_path, attributes, rows, pattern):
    _write_arff(tmp_path / "s.arff", attributes, rows)
    _write_xml(tmp_path / "s.xml", ["y"])
    with pytest.raises(DataError, match=pattern):
        read_mulan([tmp_path / "s.arff"], tmp_path / "s.xml")


def test_load_dataset_checks_registered_shape(mlc_dir, monkeypatch):
    wrong = dataclasses.replace(get_spec("emotions"), d=71)
    monkeypatch.setitem(registry.REGISTRY, "emotions", wrong)
    with pytest.raises(DataError, match=r"registered shape.*expected \(593, 71, 6\).*found \(593, 72, 6\)"):
        load_dataset("emotions", mlc_dir)


def test_load_dataset_missing_file_and_unknown_name(tmp_path, mlc_dir):
    shutil.copy(mlc_dir / "emotions.xml", tmp_path)
    with pytest.raises(DataError, match=r"emotions-train\.arff.*pipeline\.datasets fetch emotions"):
        load_dataset("emotions", tmp_path)
    with pytest.raises(ConfigError, match="unknown dataset 'nope'"):
        load_dataset("nope", tmp_path)
    with pytest.raises(ConfigError, match="invalid dataset name"):
        load_dataset("../emotions", tmp_path)
