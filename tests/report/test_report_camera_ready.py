"""A paper a publisher accepts, from the suite alone: the layout options of ``tables:``, one table per
metric when it fits, no float too large and no overfull box, figures drawn at their printed width with
type of at least 7 pt embedded as TrueType (never Type 3), and every figure captioned in ``main.tex``.

The document tests compile synthetic results of a 5 x 4 suite (one and two columns); the 12 x 17 one
is compiled in test_report_paper_layout.py, the 20 x 31 extreme as one table here."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from results_factory import write_all_features, write_fold_files, write_result_set

from pipeline.errors import ConfigError
from pipeline.experiment.model import load_suite
from pipeline.paper.tables import make_tables, report_options
from pipeline.report.document import compile_pdf, write_main_tex
from pipeline.report.layout import MIN_TYPE_PT, TEXT_WIDTH_PT
from pipeline.report.tables import ScoreTable, ValueTable, render_score_table_latex, render_value_table_latex

METHODS = ["DAGFS", "LRMFS", "GRRO", "SRFS", "VARIANCE"]
DATASETS = ["emotions", "yeast", "scene", "medical"]
METRICS = ["micro_f1", "macro_f1", "hamming_loss"]
SUITE = ("name: camready\ndatasets: [{datasets}]\nfolds: {{mode: kfold, count: 5, seed: 1}}\n"
         "methods: {{{methods}}}\ngrids: {{kgrid: {{}}}}\n").format(
    datasets=", ".join(DATASETS), methods=", ".join(f"{m}: {{}}" for m in METHODS))
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "results_before_issue31"
#: pdftohtml reports type sizes in thirds of a point (its largest zoom, 3): a size is known to +-1/6 pt.
SIZE_UNITS_PER_PT = 3


def printed_type_sizes(pdf: Path) -> dict[str, float]:
    """Smallest type size (pt) of each font family of ``pdf``, as pdftohtml reads the text."""
    if shutil.which("pdftohtml") is None:
        pytest.fail("pdftohtml is not installed: run `make latex` (Debian poppler-utils)")
    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-stdout", "-zoom", str(SIZE_UNITS_PER_PT), str(pdf)],
                         capture_output=True, text=True, check=True).stdout
    sizes: dict[str, float] = {}
    for size, family in re.findall(r'<fontspec id="\d+" size="(-?\d+)" family="(?:[A-Z]{6}\+)?([^"]+)"', xml):
        sizes[family] = min(sizes.get(family, np.inf), int(size) / SIZE_UNITS_PER_PT)
    return sizes


def font_types(pdf: Path) -> list[str]:
    """The type of every font ``pdffonts`` lists for ``pdf`` (``Type 1``, ``CID TrueType``, ``Type 3``...)."""
    lines = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout.splitlines()
    start = lines[0].index("type")
    return [line[start:start + 18].strip() for line in lines[2:]]


def check_printable(out: Path, pdf: Path) -> dict[str, float]:
    """The publisher's checks on a compiled document; returns its type sizes."""
    log = (out / "main.log").read_text(encoding="latin-1")
    assert "Float too large" not in log and "Overfull" not in log
    types = font_types(pdf)
    assert types and "Type 3" not in types, types
    sizes = printed_type_sizes(pdf)
    assert min(sizes.values()) >= MIN_TYPE_PT - 0.5 / SIZE_UNITS_PER_PT, sizes
    return sizes


def test_the_suite_takes_the_layout_options_of_the_command_line(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE + "tables: {columns: 2, layout: landscape, table_width: 400, fit_width: false, pdf: true}\n")
    loaded = load_suite(suite)
    options = report_options(loaded, tmp_path / "r", tmp_path, loaded.grids[0])
    assert (options.columns, options.layout, options.table_width, options.fit_width, options.pdf) == (
        2, "landscape", 400.0, False, True)
    suite.write_text(SUITE)
    loaded = load_suite(suite)
    options = report_options(loaded, tmp_path / "r", tmp_path, loaded.grids[0])
    assert (options.columns, options.layout, options.table_width, options.fit_width, options.pdf) == (
        1, "split", None, True, False)
    for bad, field in (("{columns: 3}", "tables.columns"), ("{table_width: 50}", "tables.table_width"),
                       ("{layout: sideways}", "tables.layout"), ("{pdf: 'yes'}", "tables.pdf")):
        suite.write_text(SUITE + f"tables: {bad}\n")
        with pytest.raises(ConfigError) as refused:
            load_suite(suite)
        assert refused.value.field == field, bad


@pytest.fixture(scope="module")
def suite_papers(tmp_path_factory):
    """main.pdf of the 5 x 4 suite (synthetic results with the all-features reference) for a one- or a
    two-column article, made once each by the suite's own table step."""
    made = {}

    def make(columns: int) -> Path:
        if columns not in made:
            root = tmp_path_factory.mktemp(f"suite{columns}")
            (root / "suite.yaml").write_text(SUITE + f"tables: {{columns: {columns}, pdf: true, "
                                                     f"metrics: [{', '.join(METRICS)}]}}\n")
            suite = load_suite(root / "suite.yaml")
            results = write_result_set(root / suite.results_dir, METHODS, DATASETS, folds=5, seed=7)
            write_all_features(results, DATASETS, folds=5, seed=8)
            write_fold_files(root / suite.folds_dir, DATASETS, folds=5)
            assert make_tables(suite, results, root, suite.grids[0]) == "made"
            made[columns] = root / suite.tables["out_dir"] / "kgrid"
        return made[columns]
    return make


# Each compile draws 11 figures and runs pdflatex twice (10-20 s); the fast lane has the parameter report's
# figures compiled and the table layout below.
@pytest.mark.slow
@pytest.mark.parametrize("columns", [1, 2])
def test_a_suite_compiles_into_a_paper_a_publisher_accepts(suite_papers, columns):
    out = suite_papers(columns)
    sizes = check_printable(out, out / "main.pdf")
    assert any(family.startswith("DejaVuSans") for family in sizes)  # the figures' text is in the PDF, measured
    for stem in ("microf1", "macrof1", "hamming"):  # 5 methods and the reference fit: one float per metric
        assert (out / f"table_{stem}.tex").read_text().count("\\begin{table*}") == 1, stem
    figures = (out / "figures.tex").read_text()
    drawn = sorted(p.name for p in (out / "figures").glob("*.pdf"))
    assert len(drawn) == len(DATASETS) + 1 + 2 * len(METRICS)  # curves per dataset and mean, two CD per metric
    assert sorted(re.findall(r"\\includegraphics\{figures/([^}]+)\}", figures)) == drawn
    assert figures.count("\\caption{") == len(drawn)
    assert ("twocolumn" in (out / "main.tex").read_text()) == (columns == 2)


def test_the_parameter_reports_figures_are_in_main_tex_captioned(tmp_path):
    from pipeline.paper.parameters import FIGURES_TEX, write_parameter_report

    results = tmp_path / "results"
    shutil.copytree(FIXTURE / "results", results)
    parameters = tmp_path / "tables" / "parameters"
    write_parameter_report(results, ["DAGFS", "LRMFS"], ["demo"], 3, parameters, columns=2)
    floats = (parameters / FIGURES_TEX).read_text()
    assert "\\begin{figure}[tp]" in floats and "{sensitivity_DAGFS_demo.pdf}" in floats  # one column
    assert "\\begin{figure*}[tp]" in floats and "{convergence_demo.pdf}" in floats  # across both
    assert floats.count("\\caption{") == 2
    out = tmp_path / "tables" / "kgrid"
    out.mkdir()
    write_main_tex(out, title="Parameters", columns=2, include=[parameters])
    pdf = compile_pdf(out / "main.tex")
    check_printable(out, pdf)
    log = (out / "main.log").read_text(encoding="latin-1")
    for image in ("sensitivity_DAGFS_demo.pdf", "convergence_demo.pdf"):  # found on the graphics path
        assert re.search(rf"<use \.\./parameters/+{image}>", log), image


@pytest.mark.parametrize("columns", [1, 2])
def test_the_largest_study_is_split_into_floats_that_fit_the_page(tmp_path, columns):
    """20 methods x 31 datasets with the reference and a long caption: parts that hold every cell, each
    within the page at 7 pt or more, the summary rows once per column part (in its last row part); the
    across-seed spread of 20 seed-averaged methods likewise."""
    rng = np.random.default_rng(1)
    methods, datasets = [f"METHOD{i:02d}" for i in range(20)], [f"dataset{i:02d}" for i in range(31)]
    means = rng.uniform(0.1, 0.9, (31, 20))
    table = ScoreTable("Micro-F1", datasets, methods, means, np.full_like(means, 0.0123), False,
                       "A caption of the length the report writes. " * 12, "tab:big",
                       avg_ranks=np.linspace(1, 20, 20), win_tie_loss={m: (10, 1, 20) for m in methods[1:]},
                       reference=methods[0], baseline_means=means[:, 0], baseline_stds=means[:, 0] / 10,
                       width_pt=TEXT_WIDTH_PT[columns])
    stacked, parts = table.arrangement()
    assert len(parts) > 1 and sorted({i for p in parts for i in p.rows}) == list(range(31))
    assert sorted(j for p in parts if p.rows == parts[0].rows for j in p.columns) == list(range(20))
    tex = render_score_table_latex(table)
    assert tex.count("Avg.\\ rank") == len({tuple(p.columns) for p in parts})  # once per column part
    spread = ValueTable("Across-seed spread", "Method", "Dataset", [f"Metric {k}" for k in range(9)],
                        [(m, datasets, rng.uniform(0, 0.05, (31, 9))) for m in methods], "Std over seeds. " * 6,
                        "tab:spread", width_pt=TEXT_WIDTH_PT[columns])
    spread_parts = spread.parts()  # 620 rows: each method's 31 datasets stay together, never past the page
    assert len({tuple(p.rows) for p in spread_parts}) > 1
    assert sorted(g for p in spread_parts if p.columns == spread_parts[0].columns for g in p.rows) == list(range(20))
    (tmp_path / "table.tex").write_text(tex + render_value_table_latex(spread))
    option = ",twocolumn" if columns == 2 else ""
    (tmp_path / "main.tex").write_text(f"\\documentclass[10pt{option}]{{article}}\n\\usepackage{{booktabs}}\n"
                                       "\\usepackage{amssymb}\n\\usepackage{graphicx}\n\\begin{document}\n"
                                       "\\input{table.tex}\n\\end{document}\n")
    check_printable(tmp_path, compile_pdf(tmp_path / "main.tex"))


@pytest.mark.parametrize("columns", [1, 2])
def test_five_methods_and_the_reference_are_one_table(columns):
    rng = np.random.default_rng(2)
    means = rng.uniform(0.1, 0.9, (4, 5))
    table = ScoreTable("Micro-F1", DATASETS, METHODS, means, means / 10, False, "A caption. " * 40, "tab:m",
                       avg_ranks=np.arange(1.0, 6.0), win_tie_loss={m: (2, 0, 2) for m in METHODS[1:]},
                       reference="DAGFS", baseline_means=means[:, 0], baseline_stds=means[:, 0] / 10,
                       width_pt=TEXT_WIDTH_PT[columns])
    assert len(table.arrangement()[1]) == 1


def test_a_table_taller_than_the_page_is_split_into_row_parts_with_the_summary_last():
    means = np.random.default_rng(3).uniform(0.1, 0.9, (31, 4))
    table = ScoreTable("Micro-F1", [f"d{i}" for i in range(31)], METHODS[:4], means, means / 10, False, "Caption.",
                       "tab:rows", avg_ranks=np.arange(1.0, 5.0), stacked=True)
    _, parts = table.arrangement()
    assert len(parts) == 2 and [p.rows for p in parts] == [list(range(16)), list(range(16, 31))]
    assert [p.summary for p in parts] == [False, True]
    assert render_score_table_latex(table).count("Avg.\\ rank") == 1
