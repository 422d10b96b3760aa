"""``python -m pipeline.tables`` end to end on synthetic result sets (docs/results-schema.md)."""

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from report_helpers import DATASETS, METHODS, NASTY, compile_tables

from pipeline.cli import run_main
from pipeline.evaluation.grids import p_target_index
from pipeline.evaluation.metrics import METRICS
from pipeline.report.latex import latex_escape
from pipeline.report.options import read_display_map
from pipeline.tables import main

FIGURE_METRICS = ["micro_f1", "hamming_loss"]
TABLES = ["table_microf1.tex", "table_macrof1.tex", "table_hamming.tex", "table_micro_pr_auc.tex",
          "table_macro_pr_auc.tex", "table_avg_precision.tex", "table_one_error.tex", "table_time.tex",
          "table_stats.tex", "table_ranks.tex"]


def run_tables(results, out, *extra, capsys=None):
    argv = ["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "DAGFS",
            "--out-dir", str(out), *extra]
    code = run_main(main, argv)
    err = capsys.readouterr().err if capsys else ""
    return code, err


def fold_values(results, method, dataset, metric, grid, p_target=0.2):
    values = []
    for fold in range(3):
        obj = json.loads((results / method / f"{dataset}_fold{fold}_{grid}_metrics.json").read_text())
        curve = np.array(obj[metric], dtype=float)
        values.append(curve.mean() if grid == "kgrid" else curve[p_target_index(obj["p_values"], p_target)])
    return np.array(values)


@pytest.fixture(scope="module")
def display_map(tmp_path_factory):
    path = tmp_path_factory.mktemp("display") / "display.json"
    path.write_text(json.dumps({"LRMFS": NASTY, "emotions": "Emotions_%", "DAGFS": "DAGFS (ours)"}))
    return path


@pytest.fixture(scope="module")
def kgrid_out(kgrid_results, display_map, tmp_path_factory):
    """Every table of every metric; the figures and the Bayesian test are :func:`kgrid_figures_out`'s."""
    out = tmp_path_factory.mktemp("kgrid_tables")
    assert run_tables(kgrid_results, out, "--display-map", str(display_map), "--no-figures")[0] == 0
    return out


@pytest.fixture(scope="module")
def kgrid_figures_out(kgrid_results, display_map, tmp_path_factory):
    """Figures and the Bayesian signed-rank test for two metrics, one of them lower-is-better: each
    metric adds 3 Bayesian tests (20,000 samples each) and 2 figures, the slowest parts of a run."""
    out = tmp_path_factory.mktemp("kgrid_figures")
    assert run_tables(kgrid_results, out, "--display-map", str(display_map), "--bayesian-rope", "0.01",
                      "--metrics", *FIGURE_METRICS)[0] == 0
    return out


def test_kgrid_csv_is_tidy_with_sample_std(kgrid_results, kgrid_out):
    table = pd.read_csv(kgrid_out / "benchmark_means_kgrid.csv")
    assert list(table.columns) == ["dataset", "method", "metric", "mean", "std", "n_folds"]
    assert len(table) == len(DATASETS) * len(METHODS) * len(METRICS) and (table["n_folds"] == 3).all()
    row = table[(table.dataset == "yeast") & (table.method == "MIFS") & (table.metric == "hamming_loss")].iloc[0]
    values = fold_values(kgrid_results, "MIFS", "yeast", "hamming_loss", "kgrid")
    assert row["mean"] == pytest.approx(values.mean(), rel=1e-9)
    assert row["std"] == pytest.approx(values.std(ddof=1), rel=1e-9)


def test_kgrid_tables_stats_and_report(kgrid_out):
    for name in TABLES:
        assert (kgrid_out / name).is_file(), name
    micro = (kgrid_out / "table_microf1.tex").read_text()
    assert latex_escape(NASTY) in micro and "Emotions\\_\\%" in micro and "DAGFS (ours)" in micro
    assert "Avg.\\ rank" in micro and "W/T/L vs DAGFS (ours)" in micro
    assert "$\\downarrow$ lower is better" in (kgrid_out / "table_hamming.tex").read_text()
    stats = json.loads((kgrid_out / "stats_kgrid.json").read_text())
    ranks = (kgrid_out / "table_ranks.tex").read_text()
    micro_stats = stats["metrics"]["micro_f1"]
    first_rank = f"{micro_stats['avg_ranks']['DAGFS']:.2f}"
    assert "DAGFS (ours) & " in ranks and first_rank in ranks.split("DAGFS (ours) & ")[1].split("&")[0]
    assert "Friedman p & " + f"{micro_stats['friedman_p']:.3g}" in ranks and "\\label{tab:ranks_kgrid}" in ranks
    assert micro_stats["reference"] == "DAGFS" and set(micro_stats["holm_p"]) == {"LRMFS", "MIFS", "SCLS"}
    assert micro_stats["datasets"] == DATASETS and micro_stats["excluded_datasets"] == []
    report = (kgrid_out / "report.md").read_text()
    assert report.count("### ") == len(METRICS) + 3 and "Degenerate" not in report
    assert "![" not in report and not (kgrid_out / "figures").exists()


def test_kgrid_report_links_its_figures_and_states_the_bayesian_test(kgrid_figures_out):
    report = (kgrid_figures_out / "report.md").read_text()
    assert report.count("### ") == len(FIGURE_METRICS) + 3 and "(figures/curves_kgrid_mean.png)" in report
    assert "P(DAGFS (ours) better)" in report
    # Every image in report.md is one of the figures written, linked relatively.
    pngs = sorted(p.relative_to(kgrid_figures_out).as_posix() for p in (kgrid_figures_out / "figures").glob("*.png"))
    assert sorted(re.findall(r"!\[[^]]*\]\(([^)]*)\)", report)) == pngs and report.count("![") == len(pngs)
    for stem in ["curves_kgrid_CAL500", "curves_kgrid_mean", "cd_kgrid_hamming_loss"]:
        for ext in ("png", "pdf"):
            assert (kgrid_figures_out / "figures" / f"{stem}.{ext}").stat().st_size > 1000


def test_kgrid_tables_compile_with_pdflatex(kgrid_out, tmp_path):
    compile_tables([kgrid_out / name for name in TABLES], tmp_path)


def test_pgrid_uses_the_value_at_p_target_and_compiles(pgrid_results, tmp_path, capsys):
    out = tmp_path / "out"
    assert run_tables(pgrid_results, out, "--grid", "pgrid", "--p-target", "0.3", "--no-figures",
                      capsys=capsys)[0] == 0
    table = pd.read_csv(out / "benchmark_means_pgrid.csv")
    row = table[(table.dataset == "CAL500") & (table.method == "SCLS") & (table.metric == "macro_f1")].iloc[0]
    values = fold_values(pgrid_results, "SCLS", "CAL500", "macro_f1", "pgrid", p_target=0.3)
    assert row["mean"] == pytest.approx(values.mean(), rel=1e-9)
    assert "At 30\\% selected features" in (out / "table_macrof1.tex").read_text()
    report = (out / "report.md").read_text()
    assert "tables use the curve value at p = 0.3" in report  # the files were written for 0.2
    compile_tables([out / name for name in TABLES], tmp_path)


def test_missing_fold_is_an_error_unless_explicitly_allowed(kgrid_results, tmp_path, capsys):
    results = tmp_path / "res"
    shutil.copytree(kgrid_results, results)
    (results / "MIFS" / "yeast_fold2_kgrid_metrics.json").unlink()
    code, err = run_tables(results, tmp_path / "out", "--no-figures", capsys=capsys)
    assert code == 2 and "1 result files missing" in err and "MIFS/yeast_fold2_kgrid_metrics.json" in err
    code, _ = run_tables(results, tmp_path / "out", "--no-figures", "--allow-incomplete", capsys=capsys)
    assert code == 0
    table = pd.read_csv(tmp_path / "out" / "benchmark_means_kgrid.csv")
    assert table[(table.dataset == "yeast") & (table.method == "MIFS")]["n_folds"].eq(2).all()
    assert "\\,$\\dagger$" in (tmp_path / "out" / "table_microf1.tex").read_text()
    assert "missing: MIFS/yeast\\_fold2" in (tmp_path / "out" / "report.md").read_text()


def test_method_without_a_dataset_is_left_out_of_the_tests(kgrid_results, tmp_path, capsys):
    results = tmp_path / "res"
    shutil.copytree(kgrid_results, results)
    for path in (results / "SCLS").glob("emotions_*"):
        path.unlink()
    assert run_tables(results, tmp_path / "out", "--no-figures", capsys=capsys)[0] == 2
    assert run_tables(results, tmp_path / "out", "--no-figures", "--allow-incomplete", capsys=capsys)[0] == 0
    stats = json.loads((tmp_path / "out" / "stats_kgrid.json").read_text())
    assert stats["metrics"]["macro_f1"]["excluded_datasets"] == ["emotions"]
    assert stats["metrics"]["macro_f1"]["n_blocks"] == 2
    assert "left out: emotions" in (tmp_path / "out" / "table_macrof1.tex").read_text()
    compile_tables([tmp_path / "out" / name for name in TABLES], tmp_path)


@pytest.mark.parametrize("content, message", [
    ('["DAGFS"]', "must be a JSON object"),
    ('{"DAGFS": 3}', "non-empty string"),
    ('{"DAGFS": "X", "LRMFS": "X"}', "same display name"),
    ("{not json", "cannot parse display map"),
    ("{\"DAGFS\": \"A\", \"DAGFS\": \"B\"}", "a key is repeated"),
    ("{\"DAGFS\": {\"x\": \"A\"}}", "nested too deeply (expected at most 1 nesting level(s))"),
])
def test_display_map_is_validated(kgrid_results, tmp_path, capsys, content, message):
    path = tmp_path / "map.json"
    path.write_text(content)
    code, err = run_tables(kgrid_results, tmp_path / "out", "--display-map", str(path), "--no-figures",
                           capsys=capsys)
    assert code == 2 and message in err


def test_bad_arguments_exit_with_code_2(kgrid_results, tmp_path, capsys):
    argv = ["--results-dir", str(kgrid_results), "--methods", "DAGFS", "LRMFS", "MIFS",
            "--ref-method", "SCLS", "--out-dir", str(tmp_path)]
    assert run_main(main, argv) == 2 and "--ref-method" in capsys.readouterr().err
    argv[argv.index("--ref-method") + 1] = "DAGFS"
    argv[argv.index("--methods") + 1] = "../x"
    assert run_main(main, argv) == 2 and "invalid method name" in capsys.readouterr().err


def test_regeneration_is_byte_identical(kgrid_results, tmp_path):
    outputs = []
    for name in ("a", "b"):
        assert run_tables(kgrid_results, tmp_path / name, "--no-figures")[0] == 0
        outputs.append({p.relative_to(tmp_path / name): p.read_bytes()
                        for p in sorted((tmp_path / name).rglob("*")) if p.is_file()})
    assert outputs[0].keys() == outputs[1].keys() and len(outputs[0]) == len(METRICS) + 7  # main.tex included
    for key in outputs[0]:
        assert outputs[0][key] == outputs[1][key], key


def test_shipped_paper_display_map_is_valid():
    repo = Path(__file__).resolve().parents[2]
    mapping = read_display_map(repo / "paper" / "tables" / "display_map_paper.json")
    assert mapping["DAGFS"] == "DAGFS" and mapping["Corel5k"] == "Corel5k"


def test_metrics_files_older_than_ranking_loss_and_coverage_still_make_tables(kgrid_results, tmp_path, capsys):
    """Files written before the evaluator computed ranking loss and coverage (seed-averaged ones too)
    lack their keys: those cells read '--', a note counts the files, the other metrics are untouched."""
    from pipeline.fileio import atomic_write_json

    results = tmp_path / "res"
    shutil.copytree(kgrid_results, results)
    for path in results.glob("*/*_kgrid_metrics.json"):
        obj = json.loads(path.read_text())
        atomic_write_json(path, {k: v for k, v in obj.items()
                                 if not k.startswith(("ranking_loss", "coverage"))})
    assert run_tables(results, tmp_path / "out", "--no-figures", capsys=capsys)[0] == 0
    n_files = len(list(results.glob("*/*_kgrid_metrics.json")))
    report = (tmp_path / "out" / "report.md").read_text()
    for name in ("Ranking Loss", "Coverage"):
        assert f"{name}: {n_files} of {n_files} metrics files were written before the evaluator computed it" in report
        assert f"{name}: no dataset has a value for every method" in report
    table = (tmp_path / "out" / "table_coverage.tex").read_text()
    assert "Avg.\\ rank" not in table and "left out: CAL500, emotions, yeast" in table
    stats = json.loads((tmp_path / "out" / "stats_kgrid.json").read_text())
    assert "coverage" not in stats["metrics"] and stats["metrics"]["micro_f1"]["n_blocks"] == 3


def test_metric_without_any_complete_dataset_keeps_the_other_tables(kgrid_results, tmp_path, capsys):
    from pipeline.fileio import atomic_write_json

    results = tmp_path / "res"
    shutil.copytree(kgrid_results, results)
    for path in (results / "MIFS").glob("*_kgrid_metrics.json"):
        obj = json.loads(path.read_text())
        obj["macro_pr_auc"] = [None] * len(obj["k_values"])
        atomic_write_json(path, obj)
    assert run_tables(results, tmp_path / "out", "--no-figures", capsys=capsys)[0] == 0
    table = (tmp_path / "out" / "table_macro_pr_auc.tex").read_text()
    assert "Avg.\\ rank" not in table and "left out: CAL500, emotions, yeast" in table
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Macro PR-AUC: no dataset has a value for every method" in report
    stats = json.loads((tmp_path / "out" / "stats_kgrid.json").read_text())
    assert "macro_pr_auc" not in stats["metrics"] and stats["metrics"]["micro_f1"]["n_blocks"] == 3
    compile_tables([tmp_path / "out" / name for name in TABLES], tmp_path)


def test_one_method_makes_score_tables_without_ranks_or_tests(kgrid_results, tmp_path, capsys):
    # A researcher's first run: their method alone. Its scores are tabulated; nothing is ranked.
    out = tmp_path / "out"
    code = run_main(main, ["--results-dir", str(kgrid_results), "--methods", "DAGFS", "--ref-method", "DAGFS",
                           "--out-dir", str(out)])
    assert code == 0, capsys.readouterr().err
    report = (out / "report.md").read_text()
    assert "Micro-F1: one method, nothing to rank or test" in report
    assert "Avg.\\ rank" not in (out / "table_microf1.tex").read_text()
    assert json.loads((out / "stats_kgrid.json").read_text())["metrics"] == {}
    compile_tables([out / name for name in TABLES], tmp_path)
