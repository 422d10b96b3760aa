"""Score and statistics tables: marks, escaping, Markdown, and compilation with pdflatex."""

import dataclasses
import re
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from report_helpers import NASTY, compile_tables

from pipeline.report.latex import latex_escape
from pipeline.report.tables import (CellNote, RankTable, ScoreTable, StatsBlock, StatsRow, StatsTable, ValueTable,
                                    cell_marks,
                                    markdown_escape, render_rank_table_latex,
                                    render_rank_table_markdown, render_score_table_latex,
                                    render_score_table_markdown, render_stats_table_latex,
                                    render_stats_table_markdown, render_value_table_latex,
                                    render_value_table_markdown)


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
                      notes=[CellNote("dagger", "fewer folds", frozenset({(0, 0)})),
                             CellNote("ddagger", "degenerate_point", frozenset({(0, 1), (1, 2)})),
                             CellNote("approx", "never used")],
                      spread_over="5 folds")


def test_score_table_latex_marks_escapes_and_summary_rows():
    text = render_score_table_latex(make_score_table(names=("M1", NASTY, "M3")))
    assert r"\textbf{0.7200 $\pm$ 0.0200}\,$\ddagger$ &" in text
    assert r"\underline{0.7000 $\pm$ 0.0300} \\" in text
    assert r"0.6100 $\pm$ 0.0100\,$\dagger$ &" in text and r"\textbf{0.5000 $\pm$ 0.0000} & -- &" in text
    assert r"higher is better). Note" in text
    assert r"second underlined, decided on the printed values (equal printed values share the mark); average rank" in text
    assert text.count("\\,$\\ddagger$") == 3 and r"\,$\ddagger$\,degenerate\_point}" in text
    assert r"\,$\dagger$\,fewer folds \,$\ddagger$" in text and "never used" not in text and "(a)" not in text
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
    assert "| ds\\_a | 0.6100 ± 0.0100 † | **0.7200 ± 0.0200** ‡ | <u>0.7000 ± 0.0300</u> |" in text
    assert "| Avg. rank | <u>2.00</u> | **1.00** | 3.00 |" in text
    assert "| W/T/L vs M1 | -- | 1/0/1 | 2/0/0 |" in text
    assert "\n† fewer folds\n" in text and "\n‡ degenerate\\_point\n" in text and "never used" not in text
    assert markdown_escape(NASTY) in text


MARKDOWN_INJECTIONS = ["x)![t](http:evil.example", "<img src=x onerror=alert(1)>", "a|b", "**b** _i_ `c`",
                       "line\nbreak", "&lt;tag&gt;", "~~s~~ $x$ [l](u) #12 @user"]


@pytest.mark.parametrize("text", MARKDOWN_INJECTIONS)
def test_markdown_escape_leaves_no_markup(text):
    escaped = markdown_escape(text)
    bare = re.sub(r"\\.", "", escaped)  # drop every escaped pair: nothing active may remain
    assert not set(bare) & set("\\`*_[]<>|$&~#@") and "\n" not in escaped
    assert re.sub(r"\\(.)", r"\1", escaped) == text.replace("\n", " ")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_markdown_escape_round_trips_any_text(text):
    escaped = markdown_escape(text)
    assert re.sub(r"\\(.)", r"\1", escaped, flags=re.DOTALL) == "".join(
        " " if unicodedata.category(ch) == "Cc" else ch for ch in text)
    assert not any(unicodedata.category(ch) == "Cc" for ch in escaped)


def test_latex_escape_turns_line_breaks_into_spaces():
    assert latex_escape("a\n\nb\r\tc") == "a  b  c"


def make_stats_table(name=NASTY, bayesian=True, approximate=()):
    rows = [StatsRow(name, 0.012, 10, 2, 3, 6.1e-5, 1.2e-4, 0.97, beyond_bd_cd=True),
            StatsRow("M3", -0.1, 1, 1, 13, 0.2, 0.2, 0.01)]
    block = StatsBlock("Hamming Loss", True, 15, 9.28, 0.025, 3.69, 0.0198, 1.25, rows, bonferroni_dunn_cd=2.1)
    second = [dataclasses.replace(r, wilcoxon_method="asymptotic" if i in approximate else "exact")
              for i, r in enumerate(rows)]
    return StatsTable([block, dataclasses.replace(block, rows=second)], "DAGFS", "Over datasets.",
                      "tab:stats_kgrid", bayesian=bayesian)


def test_stats_table_latex_and_markdown():
    text = render_stats_table_latex(make_stats_table())
    assert text.count("Hamming Loss $\\downarrow$ & 15 & 9.28 (0.025) & 3.69 (0.0198) & 1.25 / 2.10 \\\\") == 2
    assert text.count("\\multicolumn{8}{l}{\\textbf{Hamming Loss} $\\downarrow$ ($N$=15)} \\\\") == 2
    row = f"{latex_escape(NASTY)} & 0.0120 & 10/2/3 & 6.1e-05 & 0.00012 & $\\checkmark$ & $\\checkmark$ & 0.970 \\\\"
    assert text.count(row) == 2
    assert "M3 & -0.1000 & 1/1/13 & 0.2 & 0.2 &  &  & 0.010 \\\\" in text
    assert "{lcccccc" + "c}" in text and "Two-sided Wilcoxon" in text and "Bonferroni--Dunn" in text
    assert "exact null distribution of the signed-rank statistic over all sign flips" in text
    assert "normal approximation" not in text and "(a)" not in text
    empty = make_stats_table(bayesian=False)
    empty.blocks[1].rows = []
    assert render_stats_table_latex(empty).count("\\multicolumn{7}") == 1
    md = render_stats_table_markdown(make_stats_table())
    assert "| Hamming Loss ↓ (N=15) | 9.28 (0.025) | 3.69 (0.0198) | 1.25 / 2.10 |" in md
    assert f"| {markdown_escape(NASTY)} | 0.0120 | 10/2/3 | 6.1e-05 | 0.00012 | ✓ | ✓ | 0.970 |" in md
    assert "Wilcoxon: p from the exact null distribution" in md and "ᵃ" not in md


def test_stats_table_marks_approximate_p_values():
    mixed = make_stats_table(approximate=(1,))
    text = render_stats_table_latex(mixed)
    assert text.count("0.2\\,(a) & 0.2") == 1 and text.count("0.2 & 0.2") == 1
    assert "over all sign flips (mid-ranks for ties); \\,(a): the normal approximation with the tie " \
           "correction (more than 50 nonzero differences)" in text
    assert "| M3 | -0.1000 | 1/1/13 | 0.2ᵃ | 0.2 |" in render_stats_table_markdown(mixed)
    only = make_stats_table()
    for block in only.blocks:
        block.rows = [dataclasses.replace(r, wilcoxon_method="asymptotic") for r in block.rows]
    text = render_stats_table_latex(only)
    assert "dropped; p from the normal approximation with the tie correction (more than 50" in text
    assert "exact null" not in text


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


def make_value_table():
    groups = [(NASTY, ["ds_a", "b"], np.array([[0.01234, np.nan], [0.0, 0.5]])),
              ("M2", ["ds_a", "b"], np.array([[0.1, 0.2], [0.3, 0.4]]))]
    return ValueTable("Across-seed spread", "Method", "Dataset", ["Micro-F1", "Hamming_Loss"], groups,
                      "Std over seeds & more.", "tab:seed_spread_kgrid")


def test_value_table_latex_and_markdown():
    text = render_value_table_latex(make_value_table())
    rows = f"{latex_escape(NASTY)} & ds\\_a & 0.0123 & -- \\\\\n & b & 0.0000 & 0.5000 \\\\\n"
    assert rows + "\\midrule\nM2 & ds\\_a" in text
    assert "{llcc}" in text and "Method & Dataset & Micro-F1 & Hamming\\_Loss" in text
    assert "\\caption{Across-seed spread. Std over seeds \\& more.}" in text and "resizebox" in text
    md = render_value_table_markdown(make_value_table())
    assert f"| {markdown_escape(NASTY)} | ds\\_a | 0.0123 | -- |\n|  | b | 0.0000 | 0.5000 |\n| M2 |" in md
    assert md.startswith("### Across-seed spread\n\nStd over seeds \\& more.\n")


def test_time_like_values_keep_three_significant_digits():
    table = ScoreTable("Running time (s)", ["a"], ["x", "y", "z", "w"], np.array([[0.001234, 12.345, 1234.5, 0.0]]),
                       np.array([[0.0001, 1.04, np.nan, 0.0]]), True, "", "tab:time", digits=3, significant=True)
    cells = [(mean, std, mark) for mean, std, mark, _ in table.cells()[0]]
    assert cells == [("0.00123", "0.00010", "second"), ("12.3", "1.0", ""), ("1234", "--", ""), ("0", "0", "best")]


def test_fit_width_is_the_default_and_can_be_turned_off():
    for table, render in ((make_score_table(), render_score_table_latex),
                          (make_stats_table(), render_stats_table_latex),
                          (make_rank_table(), render_rank_table_latex),
                          (make_value_table(), render_value_table_latex)):
        text = render(table)
        assert text.count("\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%") == \
            text.count("\\begin{table*}") >= 1
        table.fit_width = False
        assert "resizebox" not in render(table)


def render_wide_tables(fit_width: bool = True) -> str:
    names = [f"Method{i}_{NASTY}" for i in range(8)]
    wide = ScoreTable("Wide", ["a", "b"], names, np.full((2, 8), 0.5), np.full((2, 8), 0.01), False, "Wide.",
                      "tab:wide", fit_width=fit_width)
    return render_score_table_latex(wide)


def test_every_table_compiles_with_pdflatex(tmp_path):
    files = []
    for i, text in enumerate([render_rank_table_latex(make_rank_table()),
                              render_score_table_latex(make_score_table(names=(NASTY, "b_c", "x<y>|z"))),
                              render_stats_table_latex(make_stats_table()),
                              render_stats_table_latex(make_stats_table(bayesian=False, approximate=(0,))),
                              render_value_table_latex(make_value_table()), render_wide_tables()]):
        files.append(tmp_path / f"t{i}.tex")
        files[-1].write_text(text)
    assert compile_tables(files, tmp_path).stat().st_size > 1000
