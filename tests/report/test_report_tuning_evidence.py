"""Tuning evidence shown (issue 35, item 5): the tuning cost per method beside the running-time
table, and the parameter report's warning when the chosen value sits at an end of its grid on at
least half of the folds of a dataset. Tuning records constructed as the runner writes them
(``pipeline.runner.tuning.select``), with only the fields these read."""

import shutil

import numpy as np
from report_helpers import METHODS

from pipeline.cli import run_main
from pipeline.fileio import atomic_write_json
from pipeline.paper.parameters import write_parameter_report
from pipeline.tables import main

GRID = (0.01, 1.0, 100.0)


def tuning_record(chosen: float, rank_seconds: float = 1.0, eval_seconds: float = 0.5) -> dict:
    return {"candidates": [{"overrides": {"alpha": alpha}, "criterion": 0.5} for alpha in GRID],
            "chosen": {"index": GRID.index(chosen), "overrides": {"alpha": chosen}},
            "criterion": {"metric": "micro_f1", "grid": "kgrid", "statistic": "mean", "direction": "higher is better"},
            "inner": {"mode": "kfold", "count": 3},
            "timings": {"candidates_rank_seconds": rank_seconds, "candidates_eval_seconds": eval_seconds}}


def run_tables(results, out):
    return run_main(main, ["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "DAGFS",
                           "--out-dir", str(out), "--no-figures", "--metrics", "micro_f1", "--datasets", "yeast"])


def test_the_tuning_time_of_a_tuned_method_is_tabled_after_the_running_time(kgrid_results, tmp_path, capsys):
    results = tmp_path / "res"
    shutil.copytree(kgrid_results, results)
    seconds = [(3.0, 1.0), (5.0, 1.5), (4.0, 0.25)]
    for fold, (rank, evaluation) in enumerate(seconds):
        atomic_write_json(results / "MIFS" / f"yeast_fold{fold}_tuning.json", tuning_record(1.0, rank, evaluation))
    assert run_tables(results, tmp_path / "out") == 0
    tex = (tmp_path / "out" / "table_tuning_time.tex").read_text()
    row = next(line for line in tex.splitlines() if line.startswith("yeast & "))
    cells = [cell.strip() for cell in row.removesuffix("\\\\").split(" & ")[1:]]
    totals = [rank + evaluation for rank, evaluation in seconds]
    assert cells[METHODS.index("MIFS")] == f"\\textbf{{{np.mean(totals):.2f} $\\pm$ {np.std(totals, ddof=1):.2f}}}"
    assert [c for j, c in enumerate(cells) if j != METHODS.index("MIFS")] == ["--"] * 3  # not tuned
    main_tex = (tmp_path / "out" / "main.tex").read_text()
    assert main_tex.index("table_time") < main_tex.index("table_tuning_time") < main_tex.index("table_ranks")

    atomic_write_json(results / "MIFS" / "yeast_fold1_tuning.json", {**tuning_record(1.0), "timings": {}})
    capsys.readouterr()
    assert run_tables(results, tmp_path / "again") == 2
    err = capsys.readouterr().err
    assert "yeast_fold1_tuning.json" in err and "'timings'" in err, err


def test_the_parameter_report_warns_when_an_end_of_the_grid_is_chosen_on_half_of_the_folds(tmp_path):
    for fold, chosen in enumerate([100.0, 100.0, 100.0, 1.0, 0.01]):  # the top on 3 of 5 folds
        atomic_write_json(tmp_path / "res" / "GRRO" / f"medical_fold{fold}_tuning.json", tuning_record(chosen))
    for fold, chosen in enumerate([0.01, 0.01, 1.0, 1.0, 100.0]):  # the bottom on 2 of 5: no warning
        atomic_write_json(tmp_path / "res" / "GRRO" / f"yeast_fold{fold}_tuning.json", tuning_record(chosen))
    write_parameter_report(tmp_path / "res", ["GRRO"], ["medical", "yeast"], 5, tmp_path / "out", figures=False)
    text = (tmp_path / "out" / "chosen_parameters.md").read_text()
    assert ("GRRO on medical: alpha = 100, the largest value of its grid, was chosen on 3 of 5 folds; "
            "the grid may be too narrow") in text
    assert "GRRO on yeast" not in text and "smallest" not in text
    assert "the grid may be too narrow" in (tmp_path / "out" / "chosen_parameters.tex").read_text()
