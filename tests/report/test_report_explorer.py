"""The results explorer's page (python -m pipeline.report html): what it holds, read back from the HTML.

The page is made once per module from the shared synthetic k-grid results (3 datasets, 4 methods,
3 folds) with a display map whose names are markup, a failed task and a degenerate fold; the
browser test (tests/paper/test_paper_tuning.py) opens a real run's page in chromium.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import shutil
from pathlib import Path

import markupsafe
import numpy as np
import pandas as pd
import pytest

from pipeline import aggregate as agg
from pipeline import report_api as api
from pipeline.errors import ConfigError, PipelineError
from pipeline.report import explorer
from pipeline.report.options import ReportOptions
from pipeline.report.job import TableJob
from report_helpers import DATASETS, METHODS

HOSTILE = '<script>alert("x")</script>&amp;'
FAILURE = {"failed": [{"task": "MIFS/yeast/fold9", "status": "failed", "method": "MIFS", "dataset": "yeast",
                       "fold": 9, "error_type": "EngineError", "message": "Octave said <no>"}]}


@pytest.fixture(scope="module")
def page(kgrid_results, tmp_path_factory):
    """(results copy, display map, page text, job of the same options) for the explorer of the k-grid results."""
    root = tmp_path_factory.mktemp("explorer")
    results = root / "results"
    shutil.copytree(kgrid_results, results)
    (results / "failures.json").write_text(json.dumps(FAILURE))
    display = root / "display.json"
    display.write_text(json.dumps({"DAGFS": HOSTILE, "yeast": "Yeast </script>"}))
    (path,) = api.html(results, root / "out", ref_method="MIFS", display_map=str(display))
    job = TableJob(ReportOptions(results_dir=str(results), ref_method="MIFS", display_map=str(display),
                                 out_dir=str(root / "job")))
    return results, path.read_text(encoding="utf-8"), job


def _json_block(text: str, element: str):
    match = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', text, re.S)
    return json.loads(match.group(1))


def test_one_page_per_grid_with_results_named_by_the_grid(page):
    results, text, _ = page
    assert (results.parent / "out" / "explorer_kgrid.html").is_file()
    assert not (results.parent / "out" / "explorer_pgrid.html").exists()
    assert len(text.encode()) <= explorer.MAX_EXPLORER_PAGE_BYTES


def test_nothing_is_loaded_from_an_address(page):
    """Every script and style is inline: no src=, no <link>, and the policy forbids any load."""
    _, text, _ = page
    assert not re.search(r"<(script|img|iframe|link)\b[^>]*\b(src|href)=", text, re.I)
    assert "default-src 'none'" in text
    assert "Plotly" in text and len(text) > 3_000_000  # the bundled plotly.min.js, inlined


def test_names_are_escaped_everywhere(page):
    _, text, _ = page
    assert HOSTILE not in text and "Yeast </script>" not in text
    assert str(markupsafe.escape(HOSTILE)) in text  # in the tables, escaped by the template
    data = _json_block(text, "explorer-data")  # in the data, read back as the name itself
    assert HOSTILE in {s["method"] for s in data["curves"]["CAL500"]["micro_f1"]["series"]}
    assert "Yeast </script>" in data["datasets"]


def test_plotted_curves_are_the_fold_means(page):
    results, text, job = page
    data = _json_block(text, "explorer-data")
    curves = agg.mean_curves(job.results, "hamming_loss")
    for dataset in DATASETS:
        shown = {s["method"]: s for s in data["curves"][job.name(dataset)]["hamming_loss"]["series"]}
        assert set(shown) == {job.name(m) for m in METHODS}
        for method, (x, mean, std) in curves[dataset].items():
            series = shown[job.name(method)]
            assert series["x"] == x.tolist()
            np.testing.assert_allclose(series["mean"], mean, rtol=1e-4)  # PLOT_DIGITS = 5 significant digits
            np.testing.assert_allclose(series["std"], std, rtol=1e-4, atol=1e-9)
    assert set(data["metrics"]) == set(job.metrics)
    assert data["metrics"]["hamming_loss"]["lower_is_better"] is True


def test_table_cells_carry_the_marks_of_the_latex_tables(page):
    """Each score table's rows: the printed texts and bold/underline marks of the ScoreTable the LaTeX renders."""
    _, text, job = page
    tables, _, _ = job.score_tables()
    sections = re.findall(r"<details[^>]*>\s*<summary><strong>(.*?)</strong>.*?<tbody>(.*?)</tbody>", text, re.S)
    assert [html.unescape(title) for title, _ in sections] == [t.title for t in tables.values()]
    for (_, body), table in zip(sections, tables.values()):
        rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
        assert len(rows) == len(table.row_names)
        for row, cells in zip(rows, table.cells()):
            shown = re.findall(r'<td data-key="[^"]*" class="([^"]*)">(.*?)</td>', row)
            assert [(mark, html.unescape(cell).split("\u2009")[0]) for mark, cell in shown] == [
                (mark, mean if std is None else f"{mean} ± {std}") for mean, std, mark, _ in cells]
    assert 'class="best"' in text and 'class="second"' in text


def test_the_csv_downloads_hold_the_fold_values_and_means(page):
    _, text, job = page
    links = dict(re.findall(r'<a download="([^"]+)" href="data:text/csv;charset=utf-8;base64,([^"]+)"', text))
    folds = pd.read_csv(io.StringIO(base64.b64decode(links["benchmark_folds_kgrid.csv"]).decode()))
    expected = job.folds.sort_values(["dataset", "method", "metric", "fold"], kind="mergesort")
    assert folds[["dataset", "method", "metric"]].values.tolist() == expected[["dataset", "method", "metric"]].values.tolist()
    np.testing.assert_allclose(folds["value"], expected["value"], rtol=1e-15)
    means = pd.read_csv(io.StringIO(base64.b64decode(links["benchmark_means_kgrid.csv"]).decode()))
    assert len(means) == len(job.means)


def test_outcomes_and_provenance(page):
    results, text, _ = page
    assert "EngineError" in text and "Octave said &lt;no&gt;" in text  # the failed task with its reason
    assert "python -m pipeline.report html" in text  # the command that makes the page again
    assert "No run record in the results folder." in text
    assert "synthetic" in text  # the engine the metrics files record


def test_pgrid_page_and_the_command_line(pgrid_results, tmp_path, capsys):
    from pipeline.cli import run_main
    from pipeline.report.__main__ import main

    assert run_main(main, ["html", str(pgrid_results), "--ref-method", "DAGFS", "--out-dir", str(tmp_path),
                           "--metrics", "micro_f1", "hamming_loss"]) == 0
    page = tmp_path / "explorer_pgrid.html"
    assert f"wrote {page}" in capsys.readouterr().out
    data = _json_block(page.read_text(encoding="utf-8"), "explorer-data")
    assert data["x_label"] == "% selected features" and set(data["metrics"]) == {"micro_f1", "hamming_loss"}
    assert max(data["curves"]["CAL500"]["micro_f1"]["series"][0]["x"]) <= 100


def test_a_bad_argument_is_one_config_error(kgrid_results, tmp_path):
    with pytest.raises(ConfigError, match="grids"):
        api.html(kgrid_results, tmp_path, ref_method="MIFS", grids=["egrid"])
    with pytest.raises(ConfigError, match="no metrics files"):
        api.html(tmp_path, ref_method="MIFS")


def test_a_page_beyond_the_bound_is_refused(kgrid_results, tmp_path, monkeypatch):
    monkeypatch.setattr(explorer, "MAX_EXPLORER_PAGE_BYTES", 1_000_000)
    with pytest.raises(PipelineError, match="more than its bound"):
        api.html(kgrid_results, tmp_path, ref_method="MIFS", metrics=["micro_f1"])
    assert not (tmp_path / "explorer_kgrid.html").exists()


def test_without_plotly_the_command_says_how_to_install_it(kgrid_results, tmp_path, monkeypatch):
    monkeypatch.setattr(explorer, "plotly_installed", lambda: False)
    with pytest.raises(ConfigError, match=r"plotly is not installed.*mlfs-bench\[explorer\]"):
        api.html(kgrid_results, tmp_path, ref_method="MIFS", metrics=["micro_f1"])
