"""Numerical warnings of a method are results (issue 35, item 4): recorded per task in its ranking
record, counted in the run summary and ``status``, listed in the report and marked in the tables.

Two tiny plug-ins on the demo folds: WARNOCT (Octave) inverts a singular matrix, WARNPY (Python)
divides by zero; both rank by variance, so only their warnings differ from VARIANCE's. The same
run shows ``status`` saying tables stale whose tasks are (item 8).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from pipeline import methods
from pipeline.cli import run_main
from pipeline.methods import plugins
from pipeline.definitions import MAX_RECORDED_WARNINGS, MAX_WARNING_CHARS
from pipeline.method_warnings import numerical_warnings_caught, warnings_summary
from pipeline.paper.__main__ import main as paper_main
from pipeline.report.job import WARNED_NOTE
from pipeline.report.tables import FOOTNOTE_SYMBOLS
from pipeline.results.schema import read_ranking_record

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "paper_matlab_minmax"
SINGULAR = "matrix singular to machine precision"

WARNOCT = """function [ranking, info] = WARNOCT(X_train, Y_train, params, init)
  if nargin == 0
    ranking = struct();
    return
  end
  inverse = inv(zeros(2));
  scores = var(X_train, 1, 1);
  ranking = mlfs_rank_scores(scores, 'WARNOCT');
  info = struct('scores', scores);
end
"""
WARNPY = """import numpy as np
from pipeline.methods.base import MethodSpec

def scores(X, Y, params):
    np.float64(1.0) / np.float64(0.0)
    return X.var(axis=0)

SPEC = MethodSpec(name='WARNPY', defaults={}, scores=scores)
"""


def test_the_summary_counts_every_warning_and_lists_the_most_frequent_distinct_ones_bounded():
    messages = ["b  message\n"] * 2 + ["a message"] * 3 + [f"other {i}" for i in range(MAX_RECORDED_WARNINGS)]
    messages.append("x" * (MAX_WARNING_CHARS + 50))
    summary = warnings_summary(messages)
    assert summary["count"] == len(messages)
    assert summary["messages"][:3] == [{"text": "a message", "count": 3}, {"text": "b message", "count": 2},
                                       {"text": "other 0", "count": 1}]  # ties keep their order of appearance
    assert len(summary["messages"]) == MAX_RECORDED_WARNINGS and summary["unlisted"] == 3  # of 13 distinct
    assert warnings_summary([]) == {"count": 0, "messages": [], "unlisted": 0}
    assert warnings_summary(["y" * (MAX_WARNING_CHARS + 1)])["messages"][0]["text"] == "y" * MAX_WARNING_CHARS


def test_numerical_warnings_are_caught_each_time_even_where_numpy_was_told_to_ignore_them():
    with np.errstate(all="ignore"), numerical_warnings_caught() as found:
        for _ in range(2):
            np.array([1.0]) / np.array([0.0])
    assert found == ["RuntimeWarning: divide by zero encountered in divide"] * 2
    with pytest.warns(UserWarning, match="not numerical"), numerical_warnings_caught() as found:
        warnings.warn("not numerical", UserWarning)  # shown as before, not recorded
    assert found == []


def run_paper(*arguments: str) -> tuple[int, str, str]:
    """``python -m pipeline.paper`` in this process: (exit code, stderr, stdout); the plug-ins it
    loads do not stay registered for other tests."""
    saved = dict(methods._REGISTRY), dict(methods._ORIGINS), dict(plugins._LOADED)
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = run_main(paper_main, list(arguments))
    finally:
        for registry, before in zip((methods._REGISTRY, methods._ORIGINS, plugins._LOADED), saved):
            registry.clear()
            registry.update(before)
    return code, err.getvalue(), out.getvalue()


# One test: a suite run costs seconds, and a second test could run its own on another xdist worker.
@pytest.mark.octave
def test_octave_and_numpy_warnings_reach_the_record_summary_status_report_and_tables(tmp_path, octave):
    plugin_dir = tmp_path / "suite" / "mine"
    plugin_dir.mkdir(parents=True)
    (plugin_dir / "WARNOCT.m").write_text(WARNOCT)
    (plugin_dir / "warnpy.py").write_text(WARNPY)
    shutil.copytree(DEMO, tmp_path / "root" / "folds")
    suite = tmp_path / "suite" / "suite.yaml"
    suite.write_text(SUITE)
    arguments = [str(suite), "--root", str(tmp_path / "root"), "--folds", "2"]
    code, err, _ = run_paper("run", *arguments, "--no-progress")
    assert code == 0, err
    results = tmp_path / "root" / "results" / "warned"
    check_records(results)
    (record,) = (results / "runs").glob("*.json")
    summary = json.loads(record.read_text())["summary"]
    assert summary["warned_tasks"] == 4 and summary["numerical_warnings"] == 4
    assert "warning: 4 task(s) warned numerically while ranking: " in err
    code, err, out = run_paper("status", *arguments)
    assert code == 0 and "numerical warnings: 4 in 4 done task(s)" in out and "tables kgrid: up to date" in out, out
    check_report(tmp_path / "root" / "paper" / "tables" / "kgrid")
    check_run_suite(octave, plugin_dir, results, tmp_path / "suite_door")
    check_stale_tables(arguments, plugin_dir, tmp_path / "root" / "paper" / "tables" / "kgrid")


SUITE = """
name: warned
datasets: [demo]
folds: {dir: folds, mode: kfold, count: 5, seed: 0}
plugins: [mine]
engine: octave
methods: {VARIANCE: {}, WARNOCT: {}, WARNPY: {}}
grids: {kgrid: {k_max: 30}}
run: {executor: serial}
tables: {ref_method: VARIANCE, figures: false}
"""


def check_records(results: Path) -> None:
    for fold in range(2):
        octave = read_ranking_record(results / "WARNOCT" / f"demo_fold{fold}_ranking.json").warnings
        assert octave.count == 1 and [(m.text, m.count) for m in octave.messages] == [(SINGULAR, 1)]
        python = read_ranking_record(results / "WARNPY" / f"demo_fold{fold}_ranking.json").warnings
        assert python.count == 1 and python.messages[0].text.startswith("RuntimeWarning: divide by zero")
        assert read_ranking_record(results / "VARIANCE" / f"demo_fold{fold}_ranking.json").warnings.count == 0


def check_report(tables: Path) -> None:
    report = (tables / "report.md").read_text()
    section = report.split("## Numerical warnings")[1].split("## ")[0]
    assert f"| WARNOCT | demo | 0 | 1 | {SINGULAR} (×1) |" in section
    assert "| WARNPY | demo | 1 | 1 | RuntimeWarning: divide by zero" in section and "VARIANCE" not in section
    assert "numerical warnings while ranking: 4 in 4 fold(s), 2 table cell(s) marked ¶" in report
    latex = (tables / "table_microf1.tex").read_text()
    row = next(line for line in latex.splitlines() if line.lstrip().startswith("demo"))
    assert row.count(FOOTNOTE_SYMBOLS["warned"][0]) == 2, row  # WARNOCT and WARNPY, not VARIANCE
    assert WARNED_NOTE.split(" (")[0] in latex


def check_run_suite(octave, plugin_dir: Path, results: Path, suite_results: Path) -> None:
    """run_suite records the same warnings as the Python front door."""
    (summary,) = octave.call("run_suite", str(suite_results), str(DEMO), ["demo"], ["WARNOCT"], "folds", 1.0,
                             "k_max", 30.0, "plugins", [str(plugin_dir)], "verbose", False, nout=1)
    assert summary["done"] == 1, summary
    suite_side = json.loads((suite_results / "WARNOCT" / "demo_fold0_ranking.json").read_text())["warnings"]
    python_side = json.loads((results / "WARNOCT" / "demo_fold0_ranking.json").read_text())["warnings"]
    assert suite_side == python_side == {"count": 1, "messages": [{"text": SINGULAR, "count": 1}], "unlisted": 0}


def check_stale_tables(arguments: list[str], plugin_dir: Path, tables: Path) -> None:
    """Issue 35 item 8: the tables are stale once tasks they read are, though no file they read has
    changed yet; a compiled main.pdf older than what it is made from is said."""
    (tables / "main.pdf").write_bytes(b"%PDF-1.5\n")
    os.utime(tables / "main.pdf", ns=((tables / "main.tex").stat().st_mtime_ns - 10**9,) * 2)
    with (plugin_dir / "warnpy.py").open("a") as plugin:
        plugin.write("SCALE = 2\n")  # a code edit: WARNPY's two tasks are stale
    code, err, out = run_paper("status", *arguments)
    assert code == 0, err
    assert "tables kgrid: stale (2 task(s) they read are not up to date); main.pdf is older than" in out, out
    assert "compile it again" in out
