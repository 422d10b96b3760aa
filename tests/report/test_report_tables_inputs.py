"""``python -m pipeline.tables``: names read from disk, row order, option checks, tables that fit."""

import json
import re
import shutil

import pytest
from report_helpers import METHODS, compile_tables, overfull_boxes
from results_factory import write_result_set

from pipeline.cli import run_main
from pipeline.report.job import figure_links
from pipeline.tables import main

HOSTILE = "x)![t](http:evil.example"


def run_tables(results, out, *extra, methods=METHODS):
    argv = ["--results-dir", str(results), *(["--methods", *methods] if methods else []),
            "--ref-method", "DAGFS", "--out-dir", str(out), "--no-figures", *extra]
    return run_main(main, argv)


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


@pytest.fixture()
def results(kgrid_results, tmp_path):
    shutil.copytree(kgrid_results, tmp_path / "res")
    return tmp_path / "res"


@pytest.mark.parametrize("name", [f"{HOSTILE}_fold0_kgrid_metrics.json", "yeast_fold01_kgrid_metrics.json",
                                  ".hidden_fold0_kgrid_metrics.json", "yeast_foldx_kgrid_metrics.json"])
def test_every_metrics_file_name_is_checked_not_skipped(results, tmp_path, capsys, name):
    shutil.copy(results / "MIFS" / "yeast_fold0_kgrid_metrics.json", results / "MIFS" / name)
    assert run_tables(results, tmp_path / "out") == 2
    err = one_line_error(capsys)
    assert name in err and ("invalid dataset name" in err or "_fold<i>_kgrid_metrics.json" in err)


def test_method_folders_are_those_with_metrics_files_and_valid_names(results, tmp_path, capsys):
    (results / "tables").mkdir()  # e.g. the tables of an earlier run: not a method
    (results / "tables" / "report.md").write_text("# old\n")
    assert run_tables(results, tmp_path / "out", methods=None) == 0
    header = next(line for line in (tmp_path / "out" / "table_microf1.tex").read_text().splitlines()
                  if line.startswith("Dataset & "))
    assert header == "Dataset & DAGFS & LRMFS & MIFS & SCLS \\\\"
    shutil.copytree(results / "MIFS", results / "MIFS v2")
    assert run_tables(results, tmp_path / "out", methods=None) == 2
    assert "invalid method name 'MIFS v2'" in one_line_error(capsys)


def test_rows_follow_datasets_or_alphabetical_order_ignoring_case(tmp_path, capsys):
    results = write_result_set(tmp_path / "res", ["DAGFS", "MIFS", "SCLS"], ["Science", "emotions", "Arts", "bibtex"],
                               folds=2, n_features=[50, 60, 70, 80])

    def rows(*extra):
        assert run_tables(results, tmp_path / "out", *extra, methods=["DAGFS", "MIFS", "SCLS"]) == 0
        tex = (tmp_path / "out" / "table_hamming.tex").read_text()
        body = tex.split("\\midrule\n")[1]
        return [line.split(" & ")[0] for line in body.splitlines()]

    assert rows() == ["Arts", "bibtex", "emotions", "Science"]
    assert rows("--datasets", "Science", "emotions") == ["Science", "emotions"]
    report = (tmp_path / "out" / "report.md").read_text()
    assert report.index("| Science |") < report.index("| emotions |") and "| Arts |" not in report
    assert run_tables(results, tmp_path / "out", "--datasets", "EMOTIONS", methods=["DAGFS", "MIFS"]) == 2
    assert "EMOTIONS (found emotions)" in one_line_error(capsys)
    assert run_tables(results, tmp_path / "out", "--datasets", "Arts", "Arts", methods=["DAGFS", "MIFS"]) == 2
    assert "listed twice" in one_line_error(capsys)


@pytest.mark.parametrize("extra, message", [
    (["--label-suffix", "a}b"], "--label-suffix"),
    (["--label-suffix", "final\n"], "--label-suffix"),
    (["--p-target", "0"], "--p-target"),
    (["--folds", "0"], "--folds"),
    (["--jobs", "0"], "--jobs"),
    (["--metrics", "micro_f1", "micro_f1"], "--metrics"),
])
def test_bad_options_are_refused_in_one_line(results, tmp_path, capsys, extra, message):
    assert run_tables(results, tmp_path / "out", *extra) == 2
    assert message in one_line_error(capsys)


def test_metrics_option_chooses_the_tables_and_their_order(results, tmp_path):
    out = tmp_path / "out"
    assert run_tables(results, out, "--metrics", "one_error", "micro_f1") == 0
    assert sorted(p.name for p in out.glob("table_*.tex")) == [
        "table_microf1.tex", "table_one_error.tex", "table_ranks.tex", "table_stats.tex", "table_time.tex"]
    ranks = (out / "table_ranks.tex").read_text()
    assert ranks.index("One-error") < ranks.index("Micro-F1")


def test_output_folder_that_cannot_be_created_is_refused_before_any_work(results, tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    assert run_tables(results, tmp_path / "afile" / "tables") == 2
    err = one_line_error(capsys)
    assert "--out-dir" in err and "cannot create the output folder" in err


def test_display_names_cannot_inject_markup_into_the_report(results, tmp_path):
    display = tmp_path / "display.json"
    display.write_text(json.dumps({"emotions": HOSTILE, "LRMFS": "<img src=x onerror=alert(1)>",
                                   "MIFS": "two\nlines"}))
    assert run_tables(results, tmp_path / "out", "--display-map", str(display)) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    active = re.sub(r"\\.", "", report)  # what Markdown interprets: escaped pairs removed
    assert "![" not in active and "<img" not in active and "two\nlines" not in report
    assert "x)!\\[t\\](http:evil.example" in report and "two lines" in report
    micro = (tmp_path / "out" / "table_microf1.tex").read_text()
    assert "two lines" in micro
    compile_tables([tmp_path / "out" / "table_microf1.tex", tmp_path / "out" / "table_stats.tex"], tmp_path)


def test_figure_links_cannot_inject_markup_or_a_remote_image(tmp_path):
    figures = [tmp_path / "figures" / f"{HOSTILE}.png", tmp_path / "figures" / "curve_micro_f1.pdf",
               tmp_path / "figures" / "a b<img src=x>.png"]
    links = figure_links(figures, tmp_path)
    assert len(links) == 2  # PNG files only
    for link in links:
        alt, address = re.fullmatch(r"!\[(.*)\]\(([^()\s]*)\)", link).groups()  # one image link, nothing else
        active = re.sub(r"\\.", "", alt)  # what Markdown interprets: escaped pairs removed
        assert "![" not in active and "<" not in active and "](" not in active
        assert address.startswith("figures/") and ":" not in address
    assert links[0].endswith("(figures/x%29%21%5Bt%5D%28http%3Aevil.example.png)")


def test_eight_methods_are_split_to_fit_the_text_width_without_shrinking(tmp_path):
    methods = ["DAGFS", "LRMFS", "GRRO", "SRFS", "SCNMF", "LSMFS", "LRDG", "RFSFS"]
    results = write_result_set(tmp_path / "res", methods, ["Arts", "emotions"], folds=2, n_features=[462, 72],
                               seeded={"SRFS": [0, 1, 2]})
    tables = ["table_microf1.tex", "table_time.tex", "table_stats.tex", "table_ranks.tex", "table_seed_spread.tex"]
    out = tmp_path / "out"
    assert run_tables(results, out, "--no-fit-width", "--seed-spread", methods=methods) == 0
    (tmp_path / "tex").mkdir()
    compile_tables([out / name for name in tables], tmp_path / "tex")
    assert overfull_boxes(tmp_path / "tex") == []  # every part fits the 345 pt line as it is, at 8 pt
    micro = (out / "table_microf1.tex").read_text()
    assert micro.count("\\begin{table*}") == 2 and "\\resizebox" not in micro and "\\footnotesize" in micro
    assert "continued from Table~\\ref{tab:microf1_kgrid}: part 2 of 2" in micro
