"""A results folder written by the code before the results package existed reads back unchanged.

``fixtures/results_before_package``: ``results/`` is what ``pipeline.kgrid --engine python --methods
VARIANCE RANDOM --datasets demo --folds 2 --k-max 30`` wrote on ``data/paper_matlab_minmax`` (its
all-features references name the ML-kNN neighbours ``k``, the metrics files ``num``), and ``tables/``
the tables ``pipeline.tables`` made from it then. The current code must give the same tables (asked for
the plain paired t-test those tables used; the corrected one is the default since), and
judge no file stale except where the code that made it changed (with that reason), and its rankings
and metrics files, whose records predate the fold hashes and the metrics files' digest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline import tables
from pipeline.cli import run_main
from pipeline.results.layout import REFERENCE_FOLDER
from pipeline.runner.reference import reference_tasks
from pipeline.runner.run import RunSettings, plan_task
from pipeline.runner.tasks import GridSpec, Task

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "results_before_package"
DATA = Path(__file__).resolve().parents[2] / "data" / "paper_matlab_minmax"
METHODS = ("RANDOM", "VARIANCE")
FOLDS = (0, 1)


def test_the_tables_of_an_earlier_results_folder_are_unchanged(tmp_path):
    results, out = tmp_path / "res", tmp_path / "tables"  # report.md names the folder: "res", as then
    shutil.copytree(FIXTURE / "results", results)
    assert run_main(tables.main, ["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "VARIANCE",
                                  "--out-dir", str(out), "--no-figures", "--folds", str(len(FOLDS)),
                                  "--fold-test", "paired"]) == 0
    expected = sorted(p.name for p in (FIXTURE / "tables").iterdir())
    changed = [name for name in expected if (out / name).read_bytes() != (FIXTURE / "tables" / name).read_bytes()]
    assert expected and changed == []
    # By default the same folder reads with the corrected test, its sizes from the metrics files (no sidecar)
    assert run_main(tables.main, ["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "VARIANCE",
                                  "--out-dir", str(tmp_path / "corrected"), "--no-figures",
                                  "--folds", str(len(FOLDS))]) == 0
    caption = (tmp_path / "corrected" / "table_microf1.tex").read_text()
    assert "corrected resampled t-test" in caption and "hold-out assumed" in caption


def test_an_earlier_results_folder_is_stale_only_where_its_code_changed(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(FIXTURE / "results", results)
    settings = RunSettings(data_dir=str(DATA), results_dir=str(results), grids=(GridSpec(k_max=30),),
                           skip_existing=True)
    tasks = [Task(method, "demo", fold) for method in METHODS for fold in FOLDS]
    tasks += reference_tasks({"demo": list(FOLDS)})
    for task in tasks:
        plan = plan_task(task, settings)
        # its rankings do not name the training part they were computed from, its metrics files and
        # all-features references carry no digest of their content: computed again, with that reason
        # (each is the first reason found; the references name their unchanged fold file).
        if task.method == REFERENCE_FOLDER:
            assert plan.rank_reason is None, task.key
            assert plan.grid_reasons == {"all_features": "made before metrics files carried a digest of their content"}
        else:
            assert plan.rank_reason == "made before fold hashes were recorded", task.key
            assert plan.grid_reasons == {"kgrid": "made before metrics files carried a digest of their content"}
