"""The downloader on local fixtures (never the network) and the data CLIs."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline import datasets as datasets_cli
from pipeline import export_splits as export_cli
from pipeline.cli import run_main
from pipeline.data.download import fetch_dataset
from pipeline.data.folds import load_fold, sha256_file
from pipeline.data.registry import get_spec
from pipeline.data.splits import stratified_splits
from pipeline.errors import DataError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def mirror(mlc_dir, tmp_path):
    """A local copy of emotions' files, served through a file:// URL."""
    folder = tmp_path / "mirror"
    folder.mkdir()
    for source in get_spec("emotions").files:
        shutil.copy(mlc_dir / source.name, folder)
    return folder


def test_fetch_from_file_mirror_verifies_and_places_files(mirror, tmp_path):
    dest = tmp_path / "dest"
    paths = fetch_dataset("emotions", dest, mirror=mirror.as_uri())
    assert [p.name for p in paths] == ["emotions-train.arff", "emotions-test.arff", "emotions.xml"]
    for path, source in zip(paths, get_spec("emotions").files):
        assert sha256_file(path) == source.sha256
    assert sorted(p.name for p in dest.iterdir()) == sorted(p.name for p in paths)  # no temp files


def test_fetch_uses_registry_urls_and_skips_verified_files(mlc_dir, tmp_path):
    requested = []

    def opener(url, timeout):
        requested.append(url)
        name = url.rsplit("/", 1)[-1]
        return io.BytesIO((mlc_dir / name).read_bytes())

    fetch_dataset("yeast", tmp_path, opener=opener)
    assert requested == [f.url for f in get_spec("yeast").files]
    fetch_dataset("yeast", tmp_path, opener=opener)  # all present and verified: no download
    assert len(requested) == 3
    fetch_dataset("yeast", tmp_path, opener=opener, force=True)
    assert len(requested) == 6


def test_fetch_rejects_a_corrupted_download_and_writes_nothing(mirror, tmp_path):
    (mirror / "emotions.xml").write_text("<labels/>")
    with pytest.raises(DataError, match=r"emotions\.xml.*checksum mismatch.*expected b2004282"):
        fetch_dataset("emotions", tmp_path / "dest", mirror=mirror.as_uri())
    assert not (tmp_path / "dest" / "emotions.xml").exists()


@pytest.mark.parametrize("name, remote", [("bibtex", "bibtex.mat"), ("Corel5k", "core15k.mat")])
def test_fetch_clml_datasets_from_their_pinned_source(mlc_dir, tmp_path, name, remote):
    (source,) = get_spec(name).files
    assert source.url == ("https://raw.githubusercontent.com/SaltedPerson/CLML/"
                          f"9a275b6785c1aba2909a037c4c155eb31e7f33ad/data/{remote}")

    def opener(url, timeout):
        assert url == source.url
        return io.BytesIO((mlc_dir / source.name).read_bytes())

    (path,) = fetch_dataset(name, tmp_path, opener=opener)
    assert path.name == f"{name}.mat" and sha256_file(path) == source.sha256


def test_fetch_reports_unreachable_source(tmp_path):
    with pytest.raises(DataError, match="download failed"):
        fetch_dataset("emotions", tmp_path, mirror=(tmp_path / "nowhere").as_uri())


def test_fetch_cli_with_mirror(mirror, tmp_path, capsys):
    code = run_main(datasets_cli.main, ["fetch", "emotions", "--dest", str(tmp_path / "d"),
                                        "--mirror", mirror.as_uri(), "--no-progress"])
    assert code == 0
    assert "checksums verified" in capsys.readouterr().out
    assert (tmp_path / "d" / "emotions-train.arff").is_file()


def test_list_and_info_cli(mlc_dir, capsys):
    assert run_main(datasets_cli.main, ["list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["dataset", "format", "n", "train", "test", "d", "L", "card."]
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:]}
    assert rows["genbase"] == ["mulan-arff", "662", "463", "199", "1185", "27", "1.252"]
    assert rows["demo"] == ["synthetic", "400", "320", "80", "120", "6", "-"]
    assert rows["Corel5k"] == ["clml-mat", "5000", "4500", "500", "499", "374", "3.522"]
    assert len(rows) == 32  # the 17, the 14 larger sets, demo
    assert run_main(datasets_cli.main, ["info", "medical", "--data-root", str(mlc_dir)]) == 0
    assert "n=978 d=1449 L=45 cardinality=1.245" in capsys.readouterr().out
    assert run_main(datasets_cli.main, ["info", "Corel5k", "--data-root", str(mlc_dir)]) == 0
    out = capsys.readouterr().out
    assert "SaltedPerson/CLML/9a275b6785c1aba2909a037c4c155eb31e7f33ad/data/core15k.mat" in out
    assert "rows in file order" in out and "n=5000 d=499 L=374 cardinality=3.522 density=0.0094" in out


@pytest.mark.parametrize("module, argv, pattern", [
    (datasets_cli, ["info", "nope"], "unknown dataset 'nope'"),
    (datasets_cli, ["fetch", "demo", "--dest", "x"], "no files to download"),
    (datasets_cli, ["fetch", "a/b", "--dest", "x"], "invalid dataset name"),
    (export_cli, ["--dataset", "nope"], "unknown dataset"),
    (export_cli, ["--dataset", "demo", "--scaler", "zscore", "--clip-test"], "clip"),
    (export_cli, ["--dataset", "demo", "--split-mode", "kfold", "--test-size", "0.2"], "holdout only"),
    (export_cli, ["--dataset", "demo", "--split-mode", "kfold", "--folds", "1"], "folds"),
    (export_cli, ["--dataset", "demo", "--test-size", "1.5"], "test fraction"),
    (export_cli, ["--dataset", "emotions", "--data-root", "/nonexistent"], "not found"),
    (export_cli, ["--dataset", "demo", "--folds", "1001"], "folds"),
    (export_cli, ["--dataset", "d" * 240], "dataset name too long"),
    (export_cli, ["--dataset", "demo\n"], "invalid dataset name 'demo\\n'"),
])
def test_cli_user_errors_exit_2_with_one_line(module, argv, pattern, tmp_path, capsys):
    code = run_main(module.main, [*argv, *(["--output-dir", str(tmp_path)] if module is export_cli else [])])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and pattern in err


def test_export_cli_checks_every_dataset_before_writing(tmp_path, capsys):
    code = run_main(export_cli.main, ["--datasets", "demo", "emotions", "--data-root",
                                      str(tmp_path / "empty"), "--output-dir", str(tmp_path / "out")])
    assert code == 2 and "emotions-train.arff" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("inside", [False, True])
def test_export_cli_refuses_an_output_dir_that_is_a_file(tmp_path, capsys, inside):
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    target = afile / "sub" if inside else afile
    code = run_main(export_cli.main, ["--dataset", "demo", "--output-dir", str(target), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"{afile}, field '--output-dir': the output directory is, or lies inside, a file" in err
    assert afile.read_text() == "not a directory"


def test_export_cli_writes_demo_folds(tmp_path, capsys):
    code = run_main(export_cli.main, ["--dataset", "demo", "--split-mode", "kfold", "--folds", "3",
                                      "--output-dir", str(tmp_path), "--no-progress"])
    assert code == 0
    fold = load_fold(tmp_path / "demo" / "fold2.mat")
    assert fold.X_train.shape[0] + fold.X_test.shape[0] == 400
    meta = json.loads((tmp_path / "demo" / "fold2.json").read_text())
    assert meta["settings"] == {"clip_test": False, "mode": "kfold", "n_folds": 3,
                                "scaler": "minmax", "seed": 0, "test_size": None}


def test_export_cli_holdout_defaults_to_reference_test_fraction(mlc_dir, tmp_path):
    code = run_main(export_cli.main, ["--dataset", "emotions", "--folds", "1", "--data-root",
                                      str(mlc_dir), "--output-dir", str(tmp_path), "--no-progress"])
    assert code == 0
    meta = json.loads((tmp_path / "emotions" / "fold0.json").read_text())
    assert meta["settings"]["test_size"] == pytest.approx(202 / 593)
    assert abs(meta["n_test"] - 202) <= 0.02 * 593  # iterative stratification is not size-exact


def test_export_cli_on_corel5k_uses_the_mulan_split_fraction(mlc_dir, real_datasets, tmp_path):
    code = run_main(export_cli.main, ["--dataset", "Corel5k", "--folds", "1", "--data-root",
                                      str(mlc_dir), "--output-dir", str(tmp_path), "--no-progress"])
    assert code == 0
    fold = load_fold(tmp_path / "Corel5k" / "fold0.mat")
    meta = json.loads((tmp_path / "Corel5k" / "fold0.json").read_text())
    assert meta["settings"]["test_size"] == pytest.approx(500 / 5000)
    assert meta["source"]["row_order"] == "file order (the file stores no split)"
    assert meta["source"]["source_files"] == [{"name": "Corel5k.mat", "sha256": get_spec("Corel5k").files[0].sha256}]
    assert (fold.n_features, fold.n_labels, fold.X_train.shape[0] + fold.X_test.shape[0]) == (499, 374, 5000)
    assert abs(fold.X_test.shape[0] - 500) <= 0.02 * 5000
    assert fold.X_train.min() == 0.0 and fold.X_train.max() == 1.0  # min-max scaled on train
    np.testing.assert_array_equal(fold.Y_test, real_datasets["Corel5k"].Y[meta["test_indices"]])


def test_bibtex_holdout_split_keeps_the_reference_fraction(real_datasets):
    Y = real_datasets["bibtex"].Y
    (split,) = stratified_splits(Y, mode="holdout", n_folds=1, seed=0,
                                 test_size=get_spec("bibtex").reference_test_size)
    np.testing.assert_array_equal(np.sort(np.concatenate([split.train, split.test])), np.arange(7395))
    assert abs(split.test.size - 2515) <= 0.02 * 7395
    assert Y[split.train].sum(axis=0).min() >= 1  # every label keeps a positive in training


def test_script_wrapper_and_help_run_as_programs(tmp_path, capsys):
    script = subprocess.run([sys.executable, str(REPO / "scripts" / "export_cv_splits_to_mat.py"),
                             "--dataset", "demo", "--split-mode", "kfold", "--folds", "2",
                             "--output-dir", str(tmp_path), "--no-progress"],
                            capture_output=True, text=True, timeout=120)
    assert script.returncode == 0, script.stderr
    assert (tmp_path / "demo" / "fold1.mat").is_file()
    shown = subprocess.run([sys.executable, "-m", "pipeline.datasets", "--help"],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "usage: python -m pipeline.datasets" in shown.stdout
    with pytest.raises(SystemExit) as exit_help:
        export_cli.main(["--help"])
    assert exit_help.value.code == 0 and "--split-mode {kfold,holdout}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_bad:  # argparse errors: one usage line, exit code 2
        export_cli.main(["--split-mode", "loo"])
    assert exit_bad.value.code == 2 and "invalid choice" in capsys.readouterr().err


@pytest.mark.octave
def test_octave_loads_a_fold_file():
    octave = shutil.which("octave-cli") or shutil.which("octave")
    assert octave, "GNU Octave is required for this test (make test installs it)"
    path = REPO / "data" / "paper_matlab_minmax" / "demo" / "fold0.mat"
    code = ("s = load('%s'); printf('%%d %%d %%d %%s %%.17g\\n', size(s.X_train, 1), "
            "size(s.X_train, 2), size(s.Y_test, 2), class(s.Y_train), sum(s.X_test(:)));") % path
    shown = subprocess.run([octave, "--no-gui", "--quiet", "--eval", code], capture_output=True,
                           text=True, timeout=120)
    rows, cols, labels, label_class, total = shown.stdout.split()
    fold = load_fold(path)
    assert (int(rows), int(cols), int(labels)) == (320, 120, 6) and label_class == "int8"
    assert float(total) == pytest.approx(float(np.sum(fold.X_test)), rel=1e-12)
