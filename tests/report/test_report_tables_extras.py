"""``python -m pipeline.tables``: running-time table, degenerate-selection marks, seed-averaged runs."""

import json
import shutil

import numpy as np
import pytest
from report_helpers import DATASETS, METHODS, SEEDED, compile_tables
from results_factory import selection_fields

from pipeline.cli import run_main
from pipeline.evaluation.grids import p_target_index
from pipeline.evaluation.metrics import METRICS
from pipeline.fileio import atomic_write_json
from pipeline.tables import main

SCORE_TABLES = ["table_microf1.tex", "table_macrof1.tex", "table_hamming.tex", "table_micro_pr_auc.tex",
                "table_macro_pr_auc.tex", "table_avg_precision.tex", "table_one_error.tex"]


def run_tables(results, out, *extra):
    argv = ["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "DAGFS",
            "--out-dir", str(out), "--no-figures", *extra]
    return run_main(main, argv)


def edit(path, change):
    obj = json.loads(path.read_text())
    change(obj)
    atomic_write_json(path, obj)


def copy_results(source, tmp_path):
    shutil.copytree(source, tmp_path / "res")
    return tmp_path / "res"


def table_row(tex: str, dataset: str) -> list[str]:
    """The cells of a dataset's row in a LaTeX table (without the row name)."""
    line = next(line for line in tex.splitlines() if line.startswith(f"{dataset} & "))
    return [cell.strip() for cell in line.removesuffix("\\\\").split(" & ")[1:]]


def test_time_table_shows_mean_and_sample_std_of_the_files(kgrid_results, tmp_path):
    assert run_tables(kgrid_results, tmp_path / "out") == 0
    tex = (tmp_path / "out" / "table_time.tex").read_text()
    times = [json.loads((kgrid_results / "MIFS" / f"yeast_fold{f}_kgrid_metrics.json").read_text())
             ["time_rank_seconds"] for f in range(3)]
    mean, std = np.mean(times), np.std(times, ddof=1)
    assert 4 <= mean < 5  # method 2 takes about 2**2 s: three significant digits, two decimals
    assert table_row(tex, "yeast")[2] == f"{mean:.2f} $\\pm$ {std:.2f}"
    assert table_row(tex, "yeast")[0].startswith("\\textbf{1.0")  # the fastest method is bold
    assert "$\\downarrow$ lower is better" in tex and "engine start-up, data transfer and the ML-kNN" in tex
    assert "carry no time" not in tex and "\\label{tab:time_kgrid}" in tex
    report = (tmp_path / "out" / "report.md").read_text()
    assert "### Running time (s) (↓ lower is better)" in report


def test_files_without_a_time_give_dashes_and_are_counted(kgrid_results, tmp_path):
    results = copy_results(kgrid_results, tmp_path)
    for path in (results / "LRMFS").glob("*.json"):  # an old run: no method time at all
        edit(path, lambda obj: obj.pop("time_rank_seconds"))
    edit(results / "MIFS" / "emotions_fold1_kgrid_metrics.json", lambda obj: obj.update(time_rank_seconds=None))
    assert run_tables(results, tmp_path / "out") == 0
    tex = (tmp_path / "out" / "table_time.tex").read_text()
    assert [row[1] for row in (table_row(tex, d) for d in DATASETS)] == ["--"] * 3
    assert table_row(tex, "emotions")[2].endswith("\\,$\\dagger$")  # two of three folds
    assert "10 of 36 results record no ranking time: '-{}-' where no fold" in tex and "older runs" not in tex
    compile_tables([tmp_path / "out" / "table_time.tex"], tmp_path)


def test_degenerate_kgrid_point_marks_the_cell_of_every_score_table(kgrid_results, tmp_path):
    results = copy_results(kgrid_results, tmp_path)
    path = results / "MIFS" / "yeast_fold1_kgrid_metrics.json"
    edit(path, lambda obj: obj.update(selection_fields(obj["k_values"], degenerate_points=(0, 3, 4, 5),
                                                       n_constant_features=40)))
    assert run_tables(results, tmp_path / "out") == 0
    out = tmp_path / "out"
    for name in SCORE_TABLES:
        tex = (out / name).read_text()
        assert "\\,$\\ddagger$" in table_row(tex, "yeast")[2], name
        assert tex.count("\\,$\\ddagger$") == 2 and "constant on the training part" in tex  # cell + caption
    assert "ddagger" not in (out / "table_time.tex").read_text()
    report = (out / "report.md").read_text()
    assert "| MIFS | yeast | 1 | k = 10: 6 constant; k = 40–60: 3 points, 21–31 constant | 40 | yes |" in report
    assert "degenerate selections (mostly constant features selected): 1 fold(s), 1 table cell(s) marked ‡" in report
    micro = report.split("### Micro-F1")[1].split("### ")[0]
    yeast = next(line for line in micro.splitlines() if line.startswith("| yeast |")).split(" | ")
    assert yeast[3].endswith(" ‡") and "‡" not in yeast[2] + yeast[4] and "\n‡ in at least one fold" in micro
    stats = json.loads((out / "stats_kgrid.json").read_text())
    assert stats["degenerate_folds"] == [{"method": "MIFS", "dataset": "yeast", "fold": 1,
                                          "points": [[0, 10.0, 10, 6], [3, 40.0, 40, 21], [4, 50.0, 50, 26],
                                                     [5, 60.0, 60, 31]],
                                          "n_constant_features": 40, "in_tables": True}]
    compile_tables([out / name for name in SCORE_TABLES], tmp_path)


def test_pgrid_marks_only_a_degenerate_point_at_the_target(pgrid_results, tmp_path):
    results = copy_results(pgrid_results, tmp_path)
    first = json.loads((results / "DAGFS" / "CAL500_fold0_pgrid_metrics.json").read_text())
    target = p_target_index(first["p_values"], 0.2)
    edit(results / "DAGFS" / "CAL500_fold0_pgrid_metrics.json",
         lambda obj: obj.update(selection_fields(obj["k_values"], degenerate_points=(target + 1,))))
    edit(results / "SCLS" / "emotions_fold2_pgrid_metrics.json",
         lambda obj: obj.update(selection_fields(obj["k_values"], degenerate_points=(target,))))
    assert run_tables(results, tmp_path / "out", "--grid", "pgrid") == 0
    tex = (tmp_path / "out" / "table_macrof1.tex").read_text()
    assert "ddagger" not in "".join(table_row(tex, "CAL500"))
    assert "\\,$\\ddagger$" in table_row(tex, "emotions")[3]
    report = (tmp_path / "out" / "report.md").read_text()
    p_next, k_next = first["p_values"][target + 1], first["k_values"][target + 1]
    assert f"| DAGFS | CAL500 | 0 | p = {p_next:g} (k = {k_next}): {k_next // 2 + 1} constant | 5 | no |" in report
    assert "| SCLS | emotions | 2 | p = 0.2 (k = " in report and "2 fold(s), 1 table cell(s)" in report


def test_incomplete_selection_check_is_an_error(kgrid_results, tmp_path, capsys):
    results = copy_results(kgrid_results, tmp_path)
    path = results / "DAGFS" / "yeast_fold0_kgrid_metrics.json"
    edit(path, lambda obj: obj.pop("degenerate"))
    assert run_tables(results, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "yeast_fold0_kgrid_metrics.json" in err and "'degenerate'" in err
    edit(path, lambda obj: obj.update(degenerate=[1] * len(obj["k_values"])))
    assert run_tables(results, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "field 'degenerate.0'" in err and "expected a valid boolean; found 1" in err
    n_points = len(json.loads(path.read_text())["k_values"])
    edit(path, lambda obj: obj.update(degenerate=[False] * (n_points - 1)))
    assert run_tables(results, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "field 'degenerate'" in err and f"expected a list aligned with the grid ({n_points} entries)" in err


def test_seed_averaged_methods_are_named_in_captions_and_report(kgrid_results, tmp_path):
    assert run_tables(kgrid_results, tmp_path / "out") == 0
    sentence = "Seed-averaged (mean over the seeds at each grid point): SCLS, seeds 0–4."
    for name in SCORE_TABLES + ["table_stats.tex", "table_ranks.tex", "table_time.tex"]:
        assert sentence in (tmp_path / "out" / name).read_text(), name
    report = (tmp_path / "out" / "report.md").read_text()
    assert f"## Seed-averaged methods\n\n{sentence}\n" in report
    stats = json.loads((tmp_path / "out" / "stats_kgrid.json").read_text())
    assert stats["seed_averaged"] == {"SCLS": [{"seeds": SEEDED["SCLS"], "files": 9}]}
    assert not (tmp_path / "out" / "table_seed_spread.tex").exists()


def test_mixed_seed_lists_are_counted(kgrid_results, tmp_path):
    results = copy_results(kgrid_results, tmp_path)
    edit(results / "SCLS" / "yeast_fold2_kgrid_metrics.json", lambda obj: obj.update(seeds=[7, 8]))
    edit(results / "SCLS" / "yeast_fold1_kgrid_metrics.json", lambda obj: obj.pop("seeds"))
    assert run_tables(results, tmp_path / "out") == 0
    assert ("SCLS, seeds 0–4 in 7 of 9 files, seeds 7, 8 in 1 of 9 files, a single run in 1 of 9 files."
            in (tmp_path / "out" / "table_microf1.tex").read_text())


@pytest.mark.parametrize("grid", ["kgrid", "pgrid"])
def test_seed_spread_table_is_the_fold_mean_of_the_seed_std(kgrid_results, pgrid_results, tmp_path, grid):
    results = kgrid_results if grid == "kgrid" else pgrid_results
    assert run_tables(results, tmp_path / "out", "--grid", grid, "--seed-spread") == 0
    tex = (tmp_path / "out" / "table_seed_spread.tex").read_text()
    stds = []
    for fold in range(3):
        obj = json.loads((results / "SCLS" / f"emotions_fold{fold}_{grid}_metrics.json").read_text())
        stds.append([obj[f"{m}_mean_seed_std"] if grid == "kgrid"
                     else obj[f"{m}_seed_std"][p_target_index(obj["p_values"], 0.2)] for m in METRICS])
    parts = [line.removesuffix(" \\\\").split(" & ") for line in tex.splitlines() if " & emotions & " in line]
    assert all(part[:2] == ["", "emotions"] for part in parts)  # the table may be split into parts
    assert sum((part[2:] for part in parts), []) == [f"{v:.4f}" for v in np.mean(stds, axis=0)]
    assert table_row(tex, "SCLS")[0] == "CAL500" and "Method & Dataset & Micro-F1" in tex
    summarised = "grid mean" if grid == "kgrid" else "value at p = 0.2"
    assert f"each fold's {summarised}, averaged over the folds" in tex
    assert f"\\label{{tab:seed_spread_{grid}}}" in tex
    assert "### Across-seed spread" in (tmp_path / "out" / "report.md").read_text()
    compile_tables([tmp_path / "out" / "table_seed_spread.tex"], tmp_path)


def test_seed_spread_without_seeded_methods_is_refused(kgrid_results, tmp_path, capsys):
    results = copy_results(kgrid_results, tmp_path)
    for path in (results / "SCLS").glob("*.json"):
        edit(path, lambda obj: obj.pop("seeds"))
    assert run_tables(results, tmp_path / "out", "--seed-spread") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "no method has seed-averaged results" in err
