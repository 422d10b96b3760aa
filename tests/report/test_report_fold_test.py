"""The per-dataset marks of the tables: the corrected resampled t-test by default, its n_test/n_train
and fold mode from the fold sidecars (else the metrics files' sizes, hold-out assumed), the plain
paired t-test on request (``--fold-test paired``, suite ``tables: {fold_test: paired}``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from results_factory import write_fold_files, write_result_set
from scipy import stats

from pipeline import report_api as api
from pipeline.errors import ConfigError, DataError
from pipeline.experiment.model import load_suite
from pipeline.paper.tables import report_options

METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS", "GRRO", "VARIANCE"]
DATASETS = ["emotions", "yeast", "scene"]
FOLDS = 5
#: Sidecar sizes per dataset (the metrics files say 80 training and 20 test rows: n_test/n_train = 0.25)
SIDECARS = {"emotions": ("kfold", 60, 40), "yeast": ("holdout", 70, 30)}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """Results of 6 methods on 3 datasets x 5 folds; sidecars for two of the datasets."""
    root = tmp_path_factory.mktemp("fold_test")
    results = write_result_set(root / "results", METHODS, DATASETS, folds=FOLDS, seed=11)
    folds = write_fold_files(root / "folds", DATASETS, folds=FOLDS)
    for dataset, (mode, n_train, n_test) in SIDECARS.items():
        for fold in range(FOLDS):
            (folds / dataset / f"fold{fold}.json").write_text(json.dumps(
                {"settings": {"mode": mode}, "n_train": n_train, "n_test": n_test}))
    return root


def tables(study, out: str, **options) -> dict[str, str]:
    api.tables(study / "results", study / out, ref_method="DAGFS", metrics=["micro_f1"], no_figures=True,
               folds_dir=study / "folds", **options)
    lines = (study / out / "table_microf1.tex").read_text().splitlines()
    # a dataset's row, over every part of a table split to fit the width
    return {d: " ".join(line for line in lines if line.startswith(f"{d} & ")) for d in DATASETS}


def expected_marks(study, dataset: str, ratio: float) -> tuple[int, int]:
    """(better, worse) counts against DAGFS from the formula: t = mean(d) / sqrt((1/J + ratio) s^2)."""
    folds = {m: [np.mean(json.loads((study / "results" / m / f"{dataset}_fold{i}_kgrid_metrics.json").read_text())
                         ["micro_f1"]) for i in range(FOLDS)] for m in METHODS}
    better = worse = 0
    for method in METHODS[1:]:
        diffs = np.subtract(folds[method], folds["DAGFS"])
        t = diffs.mean() / np.sqrt((1 / FOLDS + ratio) * diffs.var(ddof=1))
        if 2 * stats.t.sf(abs(t), FOLDS - 1) <= 0.05:
            better, worse = better + (t > 0), worse + (t < 0)
    return better, worse


def test_marks_use_the_sidecars_sizes_and_the_caption_names_each_datasets_correction(study):
    rows = tables(study, "corrected")
    ratios = {"emotions": 40 / 60, "yeast": 30 / 70, "scene": 20 / 80}  # scene: no sidecar, metrics files
    for dataset, ratio in ratios.items():
        assert (rows[dataset].count("$\\circ$"), rows[dataset].count("$\\bullet$")) == expected_marks(
            study, dataset, ratio), dataset
    caption = (study / "corrected" / "table_microf1.tex").read_text()
    assert ("(emotions: k-fold: Bouckaert and Frank 2004, r = 1; scene: Nadeau and Bengio 2003, hold-out assumed: "
            "one k-fold gives the same; yeast: repeated hold-out: Nadeau and Bengio 2003)") in caption
    report = (study / "corrected" / "report.md").read_text()
    assert "two-sided corrected resampled t-test, alpha = 0.05, variance of the differences times (1/J + n\\_test/n\\_train)" in report


def test_the_plain_paired_t_test_on_request_marks_at_least_as_many_cells(study):
    corrected, paired = tables(study, "corrected"), tables(study, "paired", fold_test="paired")
    marks = {name: sum(row.count(mark) for row in rows.values() for mark in ("$\\circ$", "$\\bullet$"))
             for name, rows in (("corrected", corrected), ("paired", paired))}
    assert marks["paired"] > marks["corrected"]  # the overlap correction removes marks in this study
    for dataset in DATASETS:
        assert (paired[dataset].count("$\\circ$"), paired[dataset].count("$\\bullet$")) == expected_marks(
            study, dataset, 0.0)
    assert "two-sided paired t-test over the folds, alpha = 0.05;" in (study / "paired" / "table_microf1.tex").read_text()


def test_sidecars_that_disagree_or_lack_their_sizes_are_refused(study, tmp_path):
    import shutil

    folds = tmp_path / "folds"
    shutil.copytree(study / "folds", folds)
    sidecar = folds / "yeast" / "fold1.json"
    sidecar.write_text(json.dumps({"settings": {"mode": "kfold"}, "n_train": 70, "n_test": 30}))
    with pytest.raises(DataError, match="different fold modes") as info:
        api.tables(study / "results", tmp_path / "out", ref_method="DAGFS", no_figures=True, folds_dir=folds)
    assert info.value.field == "settings.mode"
    sidecar.write_text(json.dumps({"settings": {"mode": "holdout"}, "n_train": 0, "n_test": 30}))
    with pytest.raises(DataError, match="size") as info:
        api.tables(study / "results", tmp_path / "out", ref_method="DAGFS", no_figures=True, folds_dir=folds)
    assert (info.value.field, info.value.file) == ("n_train", str(sidecar))


def test_datasets_without_known_sizes_get_no_mark(study, tmp_path):
    import shutil

    results = tmp_path / "results"
    shutil.copytree(study / "results", results)
    for path in results.glob("*/scene_fold*_kgrid_metrics.json"):  # as metrics files that predate the sizes
        record = json.loads(path.read_text())
        path.write_text(json.dumps({k: v for k, v in record.items() if k not in ("n_train", "n_test")}))
    api.tables(results, tmp_path / "out", ref_method="DAGFS", metrics=["micro_f1"], no_figures=True)
    table = (tmp_path / "out" / "table_microf1.tex").read_text()
    scene = " ".join(line for line in table.splitlines() if line.startswith("scene & "))
    assert "circ" not in scene and "bullet" not in scene
    assert "scene: no mark: fold sizes unknown" in table


def test_the_suite_chooses_the_test_in_its_tables_section(tmp_path):
    suite = "name: x\ndatasets: [emotions]\nfolds: {mode: kfold, count: 2, seed: 1}\nmethods: {VARIANCE: {}}\n" \
            "grids: {kgrid: {}}\n"
    (tmp_path / "suite.yaml").write_text(suite + "tables: {fold_test: paired}\n")
    loaded = load_suite(tmp_path / "suite.yaml")
    assert report_options(loaded, tmp_path / "r", tmp_path, loaded.grids[0]).fold_test == "paired"
    (tmp_path / "suite.yaml").write_text(suite)
    loaded = load_suite(tmp_path / "suite.yaml")
    assert report_options(loaded, tmp_path / "r", tmp_path, loaded.grids[0]).fold_test == "corrected"
    (tmp_path / "suite.yaml").write_text(suite + "tables: {fold_test: welch}\n")
    with pytest.raises(ConfigError) as info:
        load_suite(tmp_path / "suite.yaml")
    assert info.value.field == "tables.fold_test"
