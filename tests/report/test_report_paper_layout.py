"""Paper-ready output: marks on printed values, the all-features reference, per-dataset marks,
Bonferroni–Dunn, engines in the time table, the dataset table, and the tables of 12 methods x 17 datasets
for a one- and a two-column article in parts that fit (test_report_camera_ready.py compiles such a study
from a suite file, with its figures, and measures the printed type)."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
from results_factory import write_all_features, write_fold_files, write_ranking_records, write_result_set
from scipy import stats

from pipeline import tables
from pipeline.errors import ConfigError
from pipeline.aggregate import METRIC_DISPLAY, METRIC_TABLE_STEM
from pipeline.evaluation.metrics import HIGHER_IS_BETTER, METRICS
from pipeline.data.registry import REAL_DATASETS
from pipeline.report.layout import split_columns, text_width_pt
from pipeline.report.tables import RankTable, ScoreTable, printed_marks, render_score_table_latex
from pipeline.stats.bonferroni_dunn import bonferroni_dunn_cd, bonferroni_dunn_q
from pipeline.stats.fold_tests import min_signed_rank_p, paired_t_p

METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS", "GRRO", "LRDG", "SRFS", "CSFS", "MDFS", "RFNM", "VARIANCE", "RANDOM"]


def test_near_ties_share_the_mark_they_print_with():
    table = ScoreTable("Hamming Loss", ["yeast"], ["A", "B", "C", "D"], np.array([[0.213064, 0.213073, 0.213089, 0.2145]]),
                       np.full((1, 4), 0.001), True, "", "tab:x")
    assert [(mean, mark) for mean, _, mark, _ in table.cells()[0]] == [
        ("0.2131", "best"), ("0.2131", "best"), ("0.2131", "best"), ("0.2145", "second")]
    text = render_score_table_latex(table)
    assert text.count(r"\textbf{0.2131 $\pm$ 0.0010}") == 3 and r"\underline{0.2145" in text
    # different hidden digits, different printed values: only the smaller one is best
    assert printed_marks(["0.2130", "0.2131"], lower_is_better=True) == ["best", "second"]
    ranks = RankTable(["a", "b", "c"], ["m"], np.array([[2.004], [1.996], [2.5]]), "", "tab:r")
    assert [mark for _, mark in (row[0] for row in ranks.cells())] == ["best", "best", "second"]


def test_bonferroni_dunn_critical_values_are_demsar_table_5b():
    published = {0.05: [1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.724, 2.773],
                 0.10: [1.645, 1.960, 2.128, 2.241, 2.326, 2.394, 2.450, 2.498, 2.539]}
    for alpha, values in published.items():
        for k, q in zip(range(2, 11), values):
            if (k, alpha) == (9, 0.05):
                # printed 2.724, a misprint: z at 1 - 0.05/16 is 2.734, between 2.690 (k=8) and 2.773 (k=10)
                assert bonferroni_dunn_q(k, alpha) == pytest.approx(stats.norm.isf(0.05 / 16), abs=1e-12)
                assert bonferroni_dunn_q(k, alpha) == pytest.approx(2.734, abs=5e-4)
                continue
            assert bonferroni_dunn_q(k, alpha) == pytest.approx(q, abs=2e-3), (k, alpha)
    # Demšar's example: 4 methods on 14 data sets, CD = 2.394 * sqrt(4*5 / (6*14)) = 1.17 at 0.05
    assert bonferroni_dunn_cd(4, 14, 0.05) == pytest.approx(1.168, abs=2e-3)
    with pytest.raises(ValueError):
        bonferroni_dunn_q(1, 0.05)


def test_the_plain_paired_t_test_on_request_is_scipys():
    """``--fold-test paired`` (the corrected default: tests/stats/test_stats_fold_tests.py)."""
    rng = np.random.default_rng(5)
    for n in (2, 3, 5, 10, 30):
        for _ in range(10):
            x, y = rng.normal(0.5, 0.1, n), rng.normal(0.52, 0.1, n)
            assert paired_t_p(x, y) == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-9, abs=1e-15)
    assert min_signed_rank_p(5) == 0.0625 and min_signed_rank_p(6) == 0.03125


def test_wide_columns_are_split_evenly_into_parts_that_fit():
    assert split_columns(50, [60] * 12, 345) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert split_columns(50, [60] * 4, 345) == [[0, 1, 2, 3]]
    assert split_columns(50, [400, 10], 345) == [[0], [1]]
    assert text_width_pt("0.2131 ± 0.0123") > text_width_pt("0.2131")


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    """12 methods x 17 datasets x 5 folds with all-features files for all datasets but one, engines
    recorded (DAGFS in Python, RANDOM external without a time), and tiny fold files."""
    root = tmp_path_factory.mktemp("big")
    results = write_result_set(root / "results", METHODS, REAL_DATASETS, folds=5, seed=3)
    write_all_features(results, REAL_DATASETS[:-1], folds=5, seed=4)
    write_ranking_records(results, {"DAGFS": "python", **{m: "octave" for m in METHODS[1:-1]}})
    for path in (results / "RANDOM").glob("*_metrics.json"):
        record = json.loads(path.read_text())
        path.write_text(json.dumps({**record, "time_rank_seconds": None, "provenance": {"engine": "external"}}))
    return results, write_fold_files(root / "folds", REAL_DATASETS, folds=5)


@pytest.fixture(scope="module")
def documents(big_run, tmp_path_factory):
    """The tables of ``big_run`` for a one- or a two-column article, made once each by the command line."""
    results, folds = big_run
    made = {}

    def make(columns: int):
        if columns not in made:
            out = tmp_path_factory.mktemp(f"columns{columns}")
            assert tables.main(["--results-dir", str(results), "--methods", *METHODS, "--ref-method", "DAGFS",
                                "--out-dir", str(out), "--no-figures", "--folds-dir", str(folds),
                                "--columns", str(columns)]) == 0
            made[columns] = out
        return made[columns]
    return make


# Each column count makes the 12 x 17 tables (a few seconds): the two-column ones, which
# test_reference_column_marks_wtl_engines_and_dataset_table shares, stay in the fast lane.
@pytest.mark.parametrize("columns", [pytest.param(1, marks=pytest.mark.slow), 2])
def test_main_tex_inputs_every_table_in_parts_that_fit(documents, columns):
    out = documents(columns)
    main = (out / "main.tex").read_text()
    inputs = re.findall(r"\\input\{(table_\w+\.tex)\}", main)
    assert inputs[:3] == ["table_datasets.tex", "table_microf1.tex", "table_macrof1.tex"]
    assert set(inputs) == {p.name for p in out.glob("table_*.tex")} and ("twocolumn" in main) == (columns == 2)
    for metric in METRICS:  # every metric of the evaluator, with its display name and direction
        tex = (out / f"table_{METRIC_TABLE_STEM[metric]}.tex").read_text()
        arrow = "$\\uparrow$ higher is better" if HIGHER_IS_BETTER[metric] else "$\\downarrow$ lower is better"
        assert f"\\caption{{{METRIC_DISPLAY[metric]} ({arrow})" in tex, metric
    micro = (out / "table_microf1.tex").read_text()
    parts = micro.count("\\begin{table*}")
    assert 2 <= parts <= (3 if columns == 1 else 2)  # 12 methods and All features in parts that fit the width
    assert "\\begin{tabular}[t]{@{}c@{}}" in micro  # the std under the mean: fewer parts


def test_reference_column_marks_wtl_engines_and_dataset_table(big_run, documents):
    results, _ = big_run
    out = documents(2)
    micro = (out / "table_microf1.tex").read_text()
    reference = json.loads((results / "_reference" / "Arts_fold0_all_features.json").read_text())
    assert "Dataset & All features & DAGFS" in micro and "No all-features reference for Corel5k." in micro
    values = [json.loads((results / "_reference" / f"Arts_fold{i}_all_features.json").read_text())["metrics"]
              ["micro_f1"] for i in range(5)]
    arts = next(line for line in micro.splitlines() if line.startswith("Arts & "))
    assert arts.split(" & ")[1] == f"\\begin{{tabular}}[t]{{@{{}}c@{{}}}}{np.mean(values):.4f}\\\\" \
                                   f"$\\pm$ {np.std(values, ddof=1):.4f}\\end{{tabular}}"
    assert reference["schema"] == "all_features/1"
    assert "Corel5k & -- &" in micro and "two-sided corrected resampled t-test, alpha = 0.05" in micro
    assert "variance of the differences times (1/J + n\\_test/n\\_train) over J folds as their training sets overlap" in micro
    assert "(Nadeau and Bengio 2003, hold-out assumed: one k-fold gives the same)" in micro  # no sidecar
    assert "exact Wilcoxon signed-rank test cannot reach alpha" in micro
    # per-dataset marks equal a direct corrected t-test on the fold values: 5 folds whose metrics files
    # record 80 training and 20 test rows (no sidecar), variance (1/5 + 20/80) s^2, df = 4
    fold = {m: [np.mean(json.loads((results / m / f"yeast_fold{i}_kgrid_metrics.json").read_text())["micro_f1"])
                for i in range(5)] for m in METHODS}
    expected = {"better": 0, "worse": 0, "": 0}
    for method in METHODS[1:]:
        diffs = np.subtract(fold[method], fold["DAGFS"])
        t = diffs.mean() / np.sqrt((1 / 5 + 5 / 20) * diffs.var(ddof=1))
        p = 2 * stats.t.sf(abs(t), 4)
        advantage = diffs.mean()
        expected["better" if p <= 0.05 and advantage > 0 else "worse" if p <= 0.05 else ""] += 1
    yeast = "".join(line for line in micro.splitlines() if line.startswith("yeast & "))
    assert (yeast.count("$\\circ$"), yeast.count("$\\bullet$")) == (expected["better"], expected["worse"])
    assert expected["better"] + expected["worse"] > 0
    report = (out / "report.md").read_text()
    assert "| W/T/L vs DAGFS |" in report
    stats_json = json.loads((out / "stats_kgrid.json").read_text())
    lrmfs = stats_json["metrics"]["micro_f1"]["pairwise"]["LRMFS"]
    wtl_row = next(line for line in report.splitlines() if line.startswith("| W/T/L vs DAGFS |"))
    assert f"| {lrmfs['losses']}/{lrmfs['ties']}/{lrmfs['wins']} |" in wtl_row  # LRMFS's own record
    time = (out / "table_time.tex").read_text()
    assert "Engines: Python (NumPy): DAGFS; GNU Octave: LRMFS, MIFS," in time
    assert "RANDOM ranked outside this pipeline, so no ranking time is known" in time
    assert "older runs" not in time and "time_rank_seconds" not in time and "metrics files" not in time
    datasets = (out / "table_datasets.tex").read_text()
    assert "emotions & music & 25 & 6 & 4 & 20 & 5 &" in datasets and "Arts & text (web pages)" in datasets
    stats_tex = (out / "table_stats.tex").read_text()
    assert "Bonferroni--Dunn" in stats_tex and "CD N / B--D" in stats_tex


@pytest.mark.slow  # a pdflatex compile with figures (~7 s); the two-column compile stays in the fast lane
def test_main_tex_with_figures_and_the_python_api(kgrid_results, tmp_path):
    from pipeline import report_api as api

    results = tmp_path / "results"
    shutil.copytree(kgrid_results, results)
    write_all_features(results, ["CAL500", "emotions", "yeast"], folds=3)
    out = tmp_path / "out"
    written = api.tables(results, out, ref_method="DAGFS", metrics=["micro_f1", "hamming_loss"], pdf=True,
                         layout="landscape")
    assert out / "main.pdf" in written and (out / "figures" / "cd_bd_kgrid_micro_f1.pdf").is_file()
    assert (out / "table_microf1.tex").read_text().startswith("\\begin{sidewaystable*}[p]")
    assert "Overfull \\hbox" not in (out / "main.log").read_text(encoding="latin-1")
    figures = (out / "figures.tex").read_text()
    # curves of 3 datasets and their mean, Nemenyi's and the Bonferroni-Dunn diagram of 2 metrics
    assert figures.count("\\begin{figure*}") == 4 + 4 and figures.count("\\caption{") == 8
    assert "{\\includegraphics{figures/cd_bd_kgrid_micro_f1.pdf}}" in figures
    assert "dashed line: All features (ML-kNN on every feature)" in figures and "Bonferroni-Dunn test" in figures
    assert "\\input{figures.tex}" in (out / "main.tex").read_text()
    # extra tables another module writes into the folder are picked up by main.tex
    (out / "table_tuning.tex").write_text("\\begin{table}\\centering x\\caption{Tuning.}\\end{table}\n")
    api.write_main_tex(out, title="Tables")
    assert "\\input{table_tuning.tex}" in (out / "main.tex").read_text()
    folds = api.load_results(results)
    assert set(folds.columns) == {"dataset", "method", "fold", "metric", "value"} and len(folds) == 4 * 3 * 3 * len(
        set(folds["metric"]))
    comparison = api.compare(folds, "hamming_loss", reference="DAGFS")
    stats_json = json.loads((out / "stats_kgrid.json").read_text())["metrics"]["hamming_loss"]
    assert comparison.avg_ranks.tolist() == list(stats_json["avg_ranks"].values())
    cd, differs = api.bonferroni_dunn(comparison)
    assert cd == pytest.approx(bonferroni_dunn_cd(4, 3)) and set(differs) == {"LRMFS", "MIFS", "SCLS"}
    reference = api.load_all_features(results, folds)
    assert set(reference["dataset"]) == {"CAL500", "emotions", "yeast"} and set(reference["fold"]) == {0, 1, 2}
    drawn = api.figures(results, tmp_path / "figures_only", ref_method="DAGFS", metrics=["micro_f1"],
                        datasets=["CAL500", "emotions"])
    assert sorted(p.name for p in drawn if p.suffix == ".pdf") == [
        "cd_bd_kgrid_micro_f1.pdf", "cd_kgrid_micro_f1.pdf", "curves_kgrid_CAL500.pdf", "curves_kgrid_emotions.pdf",
        "curves_kgrid_mean.pdf"]
    with pytest.raises(ConfigError, match="unknown option") as refused:
        api.tables(results, out, ref_method="DAGFS", colour=True)
    assert refused.value.field == "colour"


@pytest.mark.parametrize("call, message", [
    (lambda api, res, out: api.load_results(res, folds=0), "field '--folds': out of range"),
    (lambda api, res, out: api.load_results(res, folds=10**9), "field '--folds': out of range"),
    (lambda api, res, out: api.tables(res, out, ref_method="DAGFS", jobs="many"), "invalid int value: 'many'"),
    (lambda api, res, out: api.tables(res, out, ref_method="--help"), "--ref-method is not among the methods"),
    (lambda api, res, out: api.tables(res, out, ref_method="DAGFS", methods=["DAGFS", "--help"]),
     "invalid method name '--help'"),
])
def test_the_python_api_refuses_what_the_command_refuses_with_an_exception(kgrid_results, tmp_path, call, message):
    # as arguments of the command they would have been read as options (the help, exit 0) or ended
    # the interpreter (SystemExit from argparse); folds = 0 was taken as "every fold"
    from pipeline import report_api as api
    from pipeline.errors import PipelineError

    with pytest.raises(PipelineError, match=re.escape(message)):
        call(api, kgrid_results, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_python_api_takes_one_name_as_a_string(kgrid_results):
    from pipeline import report_api as api

    assert set(api.load_results(kgrid_results, methods="DAGFS", datasets="yeast")["method"]) == {"DAGFS"}


def test_all_features_files_are_checked_and_older_ones_read_as_missing(tmp_path):
    from pipeline.aggregate import read_all_features
    from pipeline.errors import DataError

    write_all_features(tmp_path, ["yeast"], folds=2)
    path = tmp_path / "_reference" / "yeast_fold1_all_features.json"
    record = json.loads(path.read_text())
    del record["metrics"]["micro_f1"]  # made before the evaluator computed it
    path.write_text(json.dumps(record))
    frame = read_all_features(tmp_path, ["yeast", "emotions"], {"yeast": [0, 1], "emotions": [0]})
    values = frame[frame["metric"] == "micro_f1"].sort_values("fold")["value"].tolist()
    assert np.isfinite(values[0]) and np.isnan(values[1]) and set(frame["dataset"]) == {"yeast"}
    for change, field in ((lambda r: r.update(schema="x/1"), "schema"), (lambda r: r.update(fold=0), "dataset/fold"),
                          (lambda r: r["metrics"].update(hamming_loss="0.1"), "metrics.hamming_loss")):
        broken = json.loads(json.dumps(record))
        change(broken)
        path.write_text(json.dumps(broken))
        with pytest.raises(DataError, match="yeast_fold1_all_features.json") as info:
            read_all_features(tmp_path, ["yeast"], {"yeast": [0, 1]})
        assert info.value.field == field
