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
from results_factory import write_all_features, write_fold_files, write_result_set, write_tuning_records

from pipeline.errors import ConfigError
from pipeline.experiment.model import load_suite
from pipeline.aggregate import METRIC_TABLE_STEM
from pipeline.data.registry import REAL_DATASETS
from pipeline.paper.run import PaperPaths, _after_tasks
from pipeline.paper.tables import report_options
from pipeline.report.document import compile_pdf, write_main_tex
from pipeline.report.options import DOCUMENT_OPTIONS
from pipeline.report.layout import FONT_SIZES, MIN_TYPE_PT, TEXT_WIDTH_PT, Page
from pipeline.report.tables import ScoreTable, ValueTable, render_score_table_latex, render_value_table_latex

METHODS = ["DAGFS", "LRMFS", "GRRO", "SRFS", "VARIANCE"]
DATASETS = ["emotions", "yeast", "scene", "medical"]
METRICS = ["micro_f1", "macro_f1", "hamming_loss"]
WIDE_METHODS = ["DAGFS", "LRMFS", "MIFS", "SCLS", "GRRO", "LRDG", "SRFS", "LSMFS", "MDFS", "RFS", "VARIANCE", "RANDOM"]
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
    suite.write_text(suite_text(METHODS, DATASETS, columns=2, paper_size="a4paper", font_size="11pt",
                                layout="landscape", table_width=400, fit_width="false", pdf="true"))
    loaded = load_suite(suite)
    options = report_options(loaded, tmp_path / "r", tmp_path, loaded.grids[0])
    assert {name: getattr(options, name) for name in DOCUMENT_OPTIONS} == {
        "columns": 2, "paper_size": "a4paper", "font_size": "11pt", "layout": "landscape", "table_width": 400.0,
        "fit_width": False, "pdf": True}
    assert options.page == Page(2, "a4paper", "11pt")
    suite.write_text(suite_text(METHODS, DATASETS))
    loaded = load_suite(suite)
    options = report_options(loaded, tmp_path / "r", tmp_path, loaded.grids[0])
    assert {name: getattr(options, name) for name in DOCUMENT_OPTIONS} == {
        "columns": 1, "paper_size": "letterpaper", "font_size": "10pt", "layout": "split", "table_width": None,
        "fit_width": True, "pdf": False}
    for key, bad, allowed in (("columns", 3, "1 or 2"), ("paper_size", "a5paper", "'letterpaper' or 'a4paper'"),
                              ("font_size", "9pt", "'10pt', '11pt' or '12pt'"), ("font_size", 10, "'10pt', '11pt'"),
                              ("layout", "sideways", "'split' or 'landscape'"), ("table_width", 50, "100"),
                              ("pdf", "'yes'", "bool")):
        suite.write_text(suite_text(METHODS, DATASETS, **{key: bad}))
        with pytest.raises(ConfigError, match=re.escape(allowed)) as refused:
            load_suite(suite)
        assert refused.value.field == f"tables.{key}", bad


def test_the_document_class_options_set_the_page_the_tables_are_laid_out_for(tmp_path):
    """A larger base font sets the tables in larger type on a wider line: never shrunk, a wide table needs
    more parts; shrunk (to 7 pt at most, whatever the font size), fewer, the line being wider."""
    pages = [Page(1, "a4paper", size) for size in FONT_SIZES]
    assert [(p.text_width_pt, p.text_height_pt, p.table_type_pt) for p in pages] == [
        (345.0, 598.0, 8.0), (360.0, 595.8, 9.0), (390.0, 592.0, 10.0)]  # pdflatex's \textwidth, \textheight
    write_main_tex(tmp_path, title="Page", page=Page(2, "a4paper", "12pt"))
    assert "\\documentclass[12pt,a4paper,twocolumn]{article}" in (tmp_path / "main.tex").read_text()
    means = np.random.default_rng(4).uniform(0.1, 0.9, (4, 10))
    methods = [f"METHOD{i}" for i in range(10)]
    parts = {fit: [len(ScoreTable("Micro-F1", DATASETS, methods, means, means / 10, False, "Caption.", "tab:p",
                                  fit_width=fit, stacked=False, page=page).arrangement()[1]) for page in pages]
             for fit in (True, False)}
    assert parts == {True: [3, 2, 2], False: [3, 4, 4]}
    with pytest.raises(ValueError, match="font_size must be one of"):
        Page(1, "a4paper", "9pt")


def suite_text(methods, datasets, folds: int = 5, **tables) -> str:
    """A suite file of ``methods`` x ``datasets`` on ``folds`` folds with the ``tables:`` options given."""
    return ("name: camready\ndatasets: [{datasets}]\nfolds: {{mode: kfold, count: {folds}, seed: 1}}\n"
            "methods: {{{methods}}}\ngrids: {{kgrid: {{}}}}\ntables: {{{tables}}}\n").format(
        datasets=", ".join(datasets), folds=folds, methods=", ".join(f"{m}: {{}}" for m in methods),
        tables=", ".join(f"{key}: {value}" for key, value in tables.items()))


#: The studies compiled from one suite file (methods, datasets, metrics, folds): 5 methods x 4 datasets, and
#: 12 x 17 with three methods tuned on one dataset over four parameters (sensitivity and convergence figures;
#: a parameter table of 12 columns and a selection table whose details wrap). Two metrics and three folds for
#: the larger: its figures and the reading of its results files take most of its time.
STUDIES = {"5x4": (METHODS, DATASETS, METRICS, 5),
           "12x17": (WIDE_METHODS, REAL_DATASETS, ["micro_f1", "hamming_loss"], 3)}
#: The document of each compile: the default page, and the other paper and font sizes; the larger
#: study in two columns of 12 pt type, where its tables must split most.
PAGES = {("5x4", 1): {}, ("5x4", 2): {"paper_size": "a4paper", "font_size": "11pt"},
         ("12x17", 2): {"paper_size": "a4paper", "font_size": "12pt"}}
TUNED_ON = "medical"
TUNED = WIDE_METHODS[:3]
TUNING_GRID = {"alpha": [0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0], "beta": [0.01, 0.1, 1.0], "gamma": [0.5, 2.0],
               "delta": [1, 5]}


@pytest.fixture(scope="module")
def suite_papers(tmp_path_factory):
    """main.pdf of a study of :data:`STUDIES` (synthetic results with the all-features reference, written
    where the suite's results_dir points, once per study) for a one- or a two-column article, each made
    by the suite run's own last step (parameter report, then tables, figures and main.tex) from its own
    suite file."""
    roots, made = {}, {}

    def make(study: str, columns: int) -> Path:
        methods, datasets, metrics, folds = STUDIES[study]
        if study not in roots:
            root = roots[study] = tmp_path_factory.mktemp(f"study{study}")
            (root / "suite.yaml").write_text(suite_text(methods, datasets, folds))
            suite = load_suite(root / "suite.yaml")
            results = write_result_set(root / suite.results_dir, methods, datasets, folds=folds, seed=7)
            write_all_features(results, datasets, folds=folds, seed=8)
            write_fold_files(root / suite.folds_dir, datasets, folds=folds)
            if study == "12x17":
                write_tuning_records(results, TUNED, TUNED_ON, TUNING_GRID, folds=folds, seed=9)
        if (study, columns) not in made:
            root = roots[study]
            suite_file = root / f"suite{columns}.yaml"
            suite_file.write_text(suite_text(methods, datasets, folds, columns=columns, **PAGES[study, columns],
                                             pdf="true", out_dir=f"paper/tables{columns}",
                                             metrics=f"[{', '.join(metrics)}]"))
            suite = load_suite(suite_file)
            said = []
            done = _after_tasks(suite, PaperPaths.of(suite, root), said.append)
            assert done["tables"] == {"kgrid": "made", "parameters": "made"}, said
            made[study, columns] = root / suite.tables["out_dir"]
        return made[study, columns]
    return make


# Each compile draws the figures and runs pdflatex twice (5 x 4: 10-20 s; 12 x 17: 20-40 s); the fast lane has
# the parameter report's figures compiled and the table layout below.
@pytest.mark.slow
@pytest.mark.parametrize(("study", "columns"), list(PAGES))
def test_a_suite_compiles_into_a_paper_a_publisher_accepts(suite_papers, study, columns):
    tables = suite_papers(study, columns)
    out, parameters = tables / "kgrid", tables / "parameters"
    sizes = check_printable(out, out / "main.pdf")
    assert any(family.startswith("STIXGeneral") for family in sizes)  # the figures' text is in the PDF, measured
    methods, datasets, metrics, _ = STUDIES[study]
    for metric in metrics:
        table = (out / f"table_{METRIC_TABLE_STEM[metric]}.tex").read_text()
        if study == "5x4":  # 5 methods and the reference fit: one float per metric
            assert table.count("\\begin{table*}") == 1, metric
        else:  # 12 methods and the reference: in parts that fit the page, each method in one
            assert table.count("\\begin{table*}") >= 2 and all(f"& {m} " in table or f"& {m}\\" in table
                                                                for m in methods), metric
    figures = (out / "figures.tex").read_text()
    drawn = sorted(p.name for p in (out / "figures").glob("*.pdf"))
    assert len(drawn) == len(datasets) + 1 + 2 * len(metrics)  # curves per dataset and mean, two CD per metric
    assert sorted(re.findall(r"\\includegraphics\{figures/([^}]+)\}", figures)) == drawn
    assert figures.count("\\caption{") == len(drawn)
    main = (out / "main.tex").read_text()
    assert f"\\documentclass[{Page(columns, **PAGES[study, columns]).class_options}]{{article}}" in main
    assert "\\input{../parameters/parameter_selection.tex}" in main
    tuned = sorted(p.name for p in parameters.glob("*.pdf"))
    if study == "12x17":  # a sensitivity figure per method, a convergence figure of the tuned dataset
        assert tuned == sorted([f"convergence_{TUNED_ON}.pdf"] + [f"sensitivity_{m}_{TUNED_ON}.pdf" for m in TUNED])
        assert "\\input{../parameters/parameter_figures.tex}" in main
        chosen = (parameters / "chosen_parameters.tex").read_text()
        assert chosen.count("\\begin{table*}") > 1  # 12 parameter columns: split, not shrunk below 7 pt
        assert all(chosen.count(f"{method} {name}") == 1 for method in TUNED for name in TUNING_GRID)
        assert re.search(r"\\begin\{tabular\}\{llp\{\d+\.\dpt\}\}",
                         (parameters / "parameter_selection.tex").read_text())  # the details wrap
    else:
        assert tuned == []
    floats = (parameters / "parameter_figures.tex").read_text() if tuned else ""
    assert sorted(re.findall(r"\\includegraphics\{([^}]+)\}", floats)) == tuned
    assert floats.count("\\caption{") == len(tuned)


def test_the_parameter_reports_figures_are_in_main_tex_captioned(tmp_path):
    from pipeline.paper.parameters import FIGURES_TEX, write_parameter_report

    results = tmp_path / "results"
    shutil.copytree(FIXTURE / "results", results)
    parameters = tmp_path / "tables" / "parameters"
    write_parameter_report(results, ["DAGFS", "LRMFS"], ["demo"], 3, parameters, page=Page(2))
    floats = (parameters / FIGURES_TEX).read_text()
    assert "\\begin{figure}[tp]" in floats and "{sensitivity_DAGFS_demo.pdf}" in floats  # one column
    assert "\\begin{figure*}[tp]" in floats and "{convergence_demo.pdf}" in floats  # across both
    assert floats.count("\\caption{") == 2
    out = tmp_path / "tables" / "kgrid"
    out.mkdir()
    write_main_tex(out, title="Parameters", page=Page(2), include=[parameters])
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
