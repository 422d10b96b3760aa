"""Results that belong together: ``pipeline.tables`` refuses metrics files made with another grid
or ML-kNN setting, a file naming another dataset or fold than its path, methods (or the all-features
reference) scored on different files of one fold, and one method's folds of a dataset made with
different parameters; ``--separate-settings`` makes one set of tables per setting; the captions
state the settings the files hold."""

from __future__ import annotations

import hashlib
import json

import pytest
from report_helpers import DATASETS, METHODS
from results_factory import write_all_features, write_result_set

from pipeline import report_api
from pipeline.cli import run_main
from pipeline.errors import DataError
from pipeline.tables import main

GRID = {"k_min": 10, "k_max": 300, "k_step": 10}


@pytest.fixture
def results(tmp_path):
    root = write_result_set(tmp_path / "results", METHODS, [*DATASETS, "scene"], folds=3, n_features=[120, 80, 150, 90])
    for path in root.glob("*/*_kgrid_metrics.json"):
        # one digest per fold file name (shared by the methods), never the edit's all-zero one below; hash()
        # would differ between processes and be 0 one time in 16
        _edit(path, grid=GRID, mlknn={"num": 10, "smooth": 1.0},
              provenance={"fold_sha256": hashlib.sha256(path.name.encode()).hexdigest()})
    return root


def _edit(path, **fields):
    obj = json.loads(path.read_text())
    obj.update(fields)
    path.write_text(json.dumps(obj))


def _tables(results, out, capsys, *extra):
    code = run_main(main, ["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "DAGFS",
                           "--out-dir", str(out), "--no-figures", *extra])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("edit, shown", [
    ({"grid": {**GRID, "k_max": 90}}, '{"grid": {"k_max": 90'),
    ({"mlknn": {"num": 5, "smooth": 1.0}}, '"mlknn": {"num": 5'),
])
def test_other_settings_are_refused(results, tmp_path, capsys, edit, shown):
    for dataset in DATASETS:
        for fold in range(3):
            _edit(results / "MIFS" / f"{dataset}_fold{fold}_kgrid_metrics.json", **edit)
    code, err = _tables(results, tmp_path / "out", capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "results made with different settings" in err and shown in err and "MIFS/CAL500_fold0" in err
    assert not (tmp_path / "out" / "table_microf1.tex").exists()


def test_separate_settings_make_one_set_of_tables_each_with_its_own_caption(results, tmp_path, capsys):
    for method in METHODS:
        for dataset in ("CAL500", "yeast"):
            for fold in range(3):
                _edit(results / method / f"{dataset}_fold{fold}_kgrid_metrics.json",
                      grid={"k_min": 5, "k_max": 90, "k_step": 5}, mlknn={"num": 7, "smooth": 0.5})
    code, err = _tables(results, tmp_path / "out", capsys, "--separate-settings")
    assert code == 0, err
    first, second = sorted(((tmp_path / "out" / f"settings{i}" / "table_microf1.tex").read_text() for i in (1, 2)),
                           key=lambda text: "k = 5," in text)
    assert "k = 10, 20, ..., min(300, d)" in first and "ML-kNN with 10 neighbours and smoothing 1." in first
    assert "k = 5, 10, ..., min(90, d)" in second and "ML-kNN with 7 neighbours and smoothing 0.5." in second
    assert "emotions" in first and "scene" in first and "yeast" not in first and "CAL500" not in first
    assert "emotions" not in second and "yeast" in second and "CAL500" in second
    # the Python API separates them the same way (it calls the same build_report)
    written = report_api.tables(results, tmp_path / "api", ref_method="DAGFS", methods=METHODS, no_figures=True,
                                separate_settings=True)
    for i in (1, 2):
        table, from_command = (tmp_path / out / f"settings{i}" / "table_microf1.tex" for out in ("api", "out"))
        assert table in written and table.read_text() == from_command.read_text()


@pytest.mark.parametrize("edit, shown", [
    ({"dataset": "yeast"}, "field 'dataset': the file names another dataset than its path (expected 'CAL500'; found 'yeast')"),
    ({"fold": 2}, "field 'fold': the file names another fold than its path (expected 0; found 2)"),
    ({"method": "DAGFS"}, "field 'method': the file names another method than its path (expected 'MIFS'; found 'DAGFS')"),
    ({"provenance": {"fold_sha256": "0" * 64}}, "methods were scored on different files of one fold"),
])
def test_a_file_of_another_dataset_fold_or_fold_file_is_refused(results, tmp_path, capsys, edit, shown):
    _edit(results / "MIFS" / "CAL500_fold0_kgrid_metrics.json", **edit)
    code, err = _tables(results, tmp_path / "out", capsys, "--separate-settings")
    assert code == 2 and len(err.strip().splitlines()) == 1 and shown in err, err


def test_a_method_whose_folds_hold_different_parameters_is_refused(results, tmp_path, capsys):
    """Files copied from another run into one method's folder: the cell would average two settings."""
    for fold in (0, 2):
        _edit(results / "MIFS" / f"CAL500_fold{fold}_kgrid_metrics.json", params={"alpha": 0.5})
    code, err = _tables(results, tmp_path / "out", capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "MIFS on CAL500: folds scored with different parameters (fold(s) 0, 2; fold(s) 1)" in err
    assert not (tmp_path / "out" / "table_microf1.tex").exists()
    # a tuned method chooses its parameters per fold: its records say so, and its column is tabled
    for fold in range(3):
        _edit(results / "MIFS" / f"CAL500_fold{fold}_kgrid_metrics.json", selected_by="inner validation")
    code, err = _tables(results, tmp_path / "out", capsys)
    assert code == 0, err


def test_an_all_features_reference_of_another_fold_file_is_refused(results, tmp_path, capsys):
    write_all_features(results, [*DATASETS, "scene"], folds=3)
    methods_digest = json.loads((results / "MIFS" / "CAL500_fold1_kgrid_metrics.json").read_text())[
        "provenance"]["fold_sha256"]
    for path in (results / "_reference").glob("*.json"):   # scored on the files the methods were
        digest = json.loads((results / "MIFS" / path.name.replace("all_features", "kgrid_metrics")).read_text())[
            "provenance"]["fold_sha256"]
        _edit(path, provenance={"fold_sha256": digest})
    code, err = _tables(results, tmp_path / "out", capsys)
    assert code == 0, err
    other = "0" * 64 if methods_digest != "0" * 64 else "1" * 64
    _edit(results / "_reference" / "CAL500_fold1_all_features.json", provenance={"fold_sha256": other})
    code, err = _tables(results, tmp_path / "out2", capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "the all-features reference of CAL500 fold 1 was scored on another fold file than the methods" in err
    # the notebook API refuses it alike, for the folds load_results read
    folds = report_api.load_results(results, datasets=DATASETS)
    with pytest.raises(DataError, match="reference of CAL500 fold 1 was scored on another fold file"):
        report_api.load_all_features(results, folds)
    assert set(report_api.load_all_features(results, folds[folds["dataset"] != "CAL500"])["dataset"]) == set(DATASETS) - {
        "CAL500"}
