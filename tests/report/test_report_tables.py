"""Score and statistics tables: marks, escaping, Markdown, and compilation with pdflatex."""

import dataclasses

import numpy as np
import pytest
from report_helpers import NASTY, compile_tables

from pipeline.report.latex import latex_escape
from pipeline.report.tables import (RankTable, ScoreTable, StatsBlock, StatsRow, StatsTable, cell_marks,
                                    markdown_escape, render_rank_table_latex,
                                    render_rank_table_markdown, render_score_table_latex,
                                    render_score_table_markdown, render_stats_table_latex,
                                    render_stats_table_markdown)


def test_cell_marks_direction_ties_and_nan():
    assert cell_marks([0.5, 0.7, 0.6], lower_is_better=False) == ["", "best", "second"]
    assert cell_marks([0.5, 0.7, 0.6], lower_is_better=True) == ["best", "", "second"]
    assert cell_marks([0.7, 0.7 + 1e-13, 0.6, 0.6], lower_is_better=False) == ["best", "best", "second", "second"]
    assert cell_marks([np.nan, 0.2, 0.1], lower_is_better=False) == ["", "best", "second"]
    assert cell_marks([np.nan, np.nan], lower_is_better=False) == ["", ""]


def make_score_table(names=("M1", "M2", "M3")):
    means = np.array([[0.61, 0.72, 0.70], [0.5, np.nan, 0.4]])
    stds = np.array([[0.01, 0.02, 0.03], [0.0, np.nan, 0.05]])
    return ScoreTable("Micro-F1", ["ds_a", NASTY], list(names), means, stds, False, "Note 50% & more.",
                      "tab:microf1_kgrid", avg_ranks=np.array([2.0, 1.0, 3.0]),
                      win_tie_loss={names[1]: (1, 0, 1), names[2]: (2, 0, 0)}, reference=names[0],
                      flagged={(0, 0)}, flag_note="fewer folds", spread_over="5 folds")


def test_score_table_latex_marks_escapes_and_summary_rows():
    text = render_score_table_latex(make_score_table(names=("M1", NASTY, "M3")))
    assert r"\textbf{0.7200 $\pm$ 0.0200}" in text
    assert r"\underline{0.7000 $\pm$ 0.0300}" in text
    assert r"0.6100 $\pm$ 0.0100$^\dagger$" in text
    assert latex_escape(NASTY) in text and NASTY not in text
    assert r"Avg.\ rank & \underline{2.00} & \textbf{1.00} & 3.00 \\" in text
    assert r"W/T/L vs M1 & -- & 1/0/1 & 2/0/0 \\" in text
    assert r"\toprule" in text and r"\bottomrule" in text and r"$\uparrow$ higher is better" in text
    assert r"Note 50\% \& more." in text and r"\label{tab:microf1_kgrid}" in text
    assert r"{l" + "c" * 3 + "}" in text


def test_score_table_rejects_unsafe_labels():
    table = make_score_table()
    table.label = "tab:x}\\evil"
    with pytest.raises(ValueError, match="label"):
        render_score_table_latex(table)


def test_markdown_has_the_same_content():
    text = render_score_table_markdown(make_score_table())
    assert "| ds\\_a | 0.6100 ± 0.0100 † | **0.7200 ± 0.0200** | <u>0.7000 ± 0.0300</u> |" in text
    assert "| Avg. rank | <u>2.00</u> | **1.00** | 3.00 |" in text
    assert "| W/T/L vs M1 | -- | 1/0/1 | 2/0/0 |" in text
    assert markdown_escape(NASTY) in text


def make_stats_table(name=NASTY, bayesian=True):
    rows = [StatsRow(name, 0.012, 10, 2, 3, 6.1e-5, 1.2e-4, 0.97), StatsRow("M3", -0.1, 1, 1, 13, 0.2, 0.2, 0.01)]
    block = StatsBlock("Hamming Loss", True, 15, 9.28, 0.025, 3.69, 0.0198, 1.25, rows)
    return StatsTable([block, dataclasses.replace(block, rows=list(rows))], "DAGFS", "Over datasets.", "tab:stats_kgrid", bayesian=bayesian)


def test_stats_table_latex_and_markdown():
    text = render_stats_table_latex(make_stats_table())
    omnibus = "\\textbf{Hamming Loss} $\\downarrow$ ($N$=15) & 9.28 (0.025) & 3.69 (0.0198) & 1.250"
    assert f"{omnibus} & {latex_escape(NASTY)} & 0.0120 & 10/2/3 & 6.1e-05 & 0.00012 & $\\checkmark$ & 0.970 \\\\" in text
    assert " & & &  & M3 & -0.1000 & 1/1/13 & 0.2 & 0.2 &  & 0.010 \\\\" in text
    assert "{lccclccccc" + "c}" in text and "two-sided Wilcoxon" in text and "resizebox" not in text
    empty = make_stats_table(bayesian=False)
    empty.blocks[1].rows = []
    assert "($N$=15) & 9.28 (0.025) & 3.69 (0.0198) & 1.250 & -- & & & & & \\\\" in render_stats_table_latex(empty)
    md = render_stats_table_markdown(make_stats_table())
    assert "| Hamming Loss ↓ (N=15) | 9.28 (0.025) | 3.69 (0.0198) | 1.250 |" in md


def make_rank_table():
    ranks = np.array([[1.0, 2.5], [2.0, np.nan], [3.0, 1.5]])
    return RankTable([NASTY, "b", "c"], ["Micro-F1", "Hamming_Loss"], ranks, "At 20% features.",
                     "tab:ranks_pgrid", {"Friedman p": [0.012, None]})


def test_rank_table_latex_and_markdown():
    text = render_rank_table_latex(make_rank_table())
    assert f"{latex_escape(NASTY)} & \\textbf{{1.00}} & \\underline{{2.50}} \\\\" in text
    assert "b & \\underline{2.00} & -- \\\\" in text and "c & 3.00 & \\textbf{1.50} \\\\" in text
    assert "Friedman p & 0.012 & -- \\\\" in text and "Hamming\\_Loss" in text
    md = render_rank_table_markdown(make_rank_table())
    assert "| b | <u>2.00</u> | -- |" in md and "| Friedman p | 0.012 | -- |" in md


def render_wide_tables() -> str:
    names = [f"Method{i}_{NASTY}" for i in range(8)]
    wide = ScoreTable("Wide", ["a", "b"], names, np.full((2, 8), 0.5), np.full((2, 8), 0.01), False, "Wide.",
                      "tab:wide", fit_width=True)
    stats, ranks = make_stats_table(), make_rank_table()
    stats.fit_width = ranks.fit_width = True
    return render_score_table_latex(wide) + render_stats_table_latex(stats) + render_rank_table_latex(ranks)


def test_fit_width_wraps_the_tabular():
    text = render_wide_tables()
    assert text.count("\\resizebox{\\ifdim\\width>\\textwidth\\textwidth\\else\\width\\fi}{!}{%") == 3


def test_every_table_compiles_with_pdflatex(tmp_path):
    files = []
    for i, text in enumerate([render_rank_table_latex(make_rank_table()),render_score_table_latex(make_score_table(names=(NASTY, "b_c", "x<y>|z"))),
                              render_stats_table_latex(make_stats_table()),
                              render_stats_table_latex(make_stats_table(bayesian=False)),
                              render_wide_tables()]):
        files.append(tmp_path / f"t{i}.tex")
        files[-1].write_text(text)
    assert compile_tables(files, tmp_path).stat().st_size > 1000
