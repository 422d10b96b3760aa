"""The combined comparison table: order, N/A, missing, means, malformed files, escaping."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess

import pytest

from pipeline.cli import run_main
from pipeline.fileio import atomic_write_json
from pipeline.protocols.har.cli import main
from pipeline.protocols.har.table import build_table, read_results, to_latex, write_tables

NA = {"applicable": False, "reason": "not text-aligned"}


def _entry(acc):
    return {"applicable": True, "accuracy": acc, "f1_macro": acc - 10, "f1_weighted": acc - 5,
            "n_samples": 100, "n_train_samples": 10, "n_classes": 6}


def _write(folder, dataset, model, metrics):
    atomic_write_json(folder / f"{dataset}_{model}_evaluation.json",
                      {"schema_version": 1, "dataset": dataset, "model": model, "metrics": metrics})


@pytest.fixture
def results_dir(tmp_path):
    full = {"zero_shot_open_set": _entry(40), "zero_shot_closed_set": _entry(50), "supervised_1pct": _entry(60),
            "supervised_10pct": _entry(70), "linear_probe": _entry(80)}
    _write(tmp_path, "VTT_ConIoT", "tsfm", full)
    _write(tmp_path, "motionsense", "tsfm", {**full, "linear_probe": _entry(90)})
    _write(tmp_path, "MobiAct", "my_model", {"zero_shot_open_set": NA, "zero_shot_closed_set": NA,
                                             "1pct_supervised": _entry(33.33), "10pct_supervised": _entry(44.44),
                                             "linear_probe": _entry(55.55)})
    _write(tmp_path, "motionsense", "moment", {"zero_shot_open_set": NA, "zero_shot_closed_set": NA,
                                               "supervised_1pct": _entry(61.25)})
    (tmp_path / "broken_x_evaluation.json").write_text("{not json")
    (tmp_path / "other_y_evaluation.json").write_text(json.dumps({"dataset": "d", "model": "m", "metrics": [1]}))
    return tmp_path


def test_rows_follow_protocol_order_with_na_and_missing(results_dir):
    results, warnings = read_results(results_dir)
    assert len(warnings) == 2 and all("skipped malformed" in w for w in warnings)
    table = build_table(results)
    assert [row[:2] for row in table.rows] == [
        ["motionsense", "tsfm"], ["motionsense", "moment"], ["motionsense", "my_model"],
        ["MobiAct", "tsfm"], ["MobiAct", "moment"], ["MobiAct", "my_model"],
        ["VTT_ConIoT", "tsfm"], ["VTT_ConIoT", "moment"], ["VTT_ConIoT", "my_model"]]
    columns = table.columns
    cell = {tuple(row[:2]): dict(zip(columns, row)) for row in table.rows}
    assert cell[("motionsense", "moment")]["zero_shot_open_set_acc"] == "N/A"
    assert cell[("motionsense", "moment")]["supervised_1pct_acc"] == "61.2"
    assert cell[("motionsense", "moment")]["linear_probe_acc"] == "—"
    assert cell[("MobiAct", "tsfm")]["linear_probe_f1w"] == "—"
    assert cell[("MobiAct", "my_model")]["supervised_1pct_acc"] == "33.3"     # upstream key spelling
    assert cell[("MobiAct", "my_model")]["supervised_10pct_f1m"] == "34.4"
    means = {row[1]: dict(zip(columns, row)) for row in table.mean_rows}
    assert means["tsfm"]["linear_probe_acc"] == "85.0 (2)"
    assert means["moment"]["zero_shot_closed_set_acc"] == "N/A"
    assert means["moment"]["linear_probe_acc"] == "—"


def test_cli_writes_markdown_csv_latex(results_dir, tmp_path, capsys):
    out = tmp_path / "tables"
    assert run_main(main, ["table", "--input-dir", str(results_dir), "--output-dir", str(out)]) == 0
    assert capsys.readouterr().err.count("warning:") == 2
    markdown = (out / "results_table.md").read_text()
    assert markdown.splitlines()[0].startswith(r"| dataset | model | zero\_shot\_open\_set\_acc |")
    assert r"| VTT\_ConIoT | tsfm |" in markdown and "| VTT_ConIoT |" not in markdown
    rows = list(csv.reader((out / "results_table.csv").open()))
    assert len(rows) == 1 + 9 + 3 and len(rows[0]) == 17
    latex = (out / "results_table.tex").read_text()
    assert r"VTT\_ConIoT & tsfm" in latex and r"my\_model" in latex and "VTT_ConIoT" not in latex
    assert r"1\% labels" in latex and "---" in latex and "—" not in latex


def test_latex_table_compiles(results_dir, tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is missing (the Makefile installs TeX Live)")
    body = to_latex(build_table(read_results(results_dir)[0]))
    document = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + body + "\\end{document}\n"
    (tmp_path / "t.tex").write_text(document)
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]


@pytest.mark.parametrize("content, found", [
    ({}, "found no *_evaluation.json file"),
    ({"a_evaluation.json": "{\"dataset\": 1}"}, "found 1 malformed, first: "),
])
def test_table_of_no_result_is_refused(tmp_path, capsys, content, found):
    """Once three header-only tables were written (exit 0), as if they tabled something."""
    for name, text in content.items():
        (tmp_path / name).write_text(text)
    assert run_main(main, ["table", "--input-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path}: no result to tabulate: no table written (expected *_evaluation.json "
                          f"files (python -m pipeline.protocols.har evaluate); {found}") and err.count("\n") == 1, err
    assert not list(tmp_path.glob("results_table.*"))


def test_markdown_escapes_hostile_names_and_oversized_files_are_skipped(tmp_path):
    atomic_write_json(tmp_path / "hostile_evaluation.json",
                      {"dataset": "a|b", "model": "[m](http://x)", "metrics": {"linear_probe": _entry(80)}})
    (tmp_path / "big_evaluation.json").write_text(" " * (16 * 2 ** 20 + 1))
    paths, warnings = write_tables(tmp_path)
    assert len(warnings) == 1 and "larger than the limit" in warnings[0]
    markdown = (tmp_path / "results_table.md").read_text()
    assert r"| a\|b | \[m\](http://x) |" in markdown
    assert all(line.count(" | ") == 16 for line in markdown.splitlines() if line.startswith("| "))
