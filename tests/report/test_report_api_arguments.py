"""Every public function of ``pipeline.report_api`` answers a bad argument (a wrong type, an unknown
method, dataset, metric or grid, a missing folder) with the project's error and one line naming
the argument, never a TypeError, ValueError or KeyError (issue 32): hypothesis replaces one
argument of a good call by junk; the call either works (the junk was a valid value) or is refused so."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from results_factory import write_all_features, write_result_set

from pipeline import report_api as api
from pipeline.errors import ConfigError, PipelineError

METHODS = ["AAA", "BBB", "CCC"]
MISSING = Path("/nonexistent/mlfs-bench/folder")
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["kgrid", "micro_f1", "AAA", "toy", "../x", "a\0b", "", "\n"]),
    st.lists(st.one_of(st.integers(), st.text(max_size=4), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.just(MISSING), st.just(object()),
    st.just(b"bytes"), st.just({"a"}), st.just(st)
)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    write_result_set(root, METHODS, ["toy", "other"], folds=2, n_features=[40, 60])
    write_all_features(root, ["toy", "other"], folds=2, n_features=[40, 60])
    return root


@pytest.fixture(scope="module")
def folds(results):
    return api.load_results(results)


def _refused_or_done(call) -> None:
    try:
        call()
    except PipelineError as exc:
        assert "\n" not in str(exc).strip(), str(exc)
    # anything else (TypeError, ValueError, KeyError, ...) fails the test with its traceback


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
LOAD_ARGUMENTS = ["results_dir", "grid", "methods", "datasets", "folds", "p_target", "allow_incomplete"]


@SETTINGS
@given(argument=st.sampled_from(LOAD_ARGUMENTS), junk=JUNK)
def test_load_results(results, argument, junk):
    arguments = {"results_dir": results, **{argument: junk}}
    _refused_or_done(lambda: api.load_results(arguments.pop("results_dir"), **arguments))


@SETTINGS
@given(argument=st.sampled_from(["results_dir", "folds"]), junk=JUNK)
def test_load_all_features(results, folds, argument, junk):
    arguments = {"results_dir": results, "folds": folds, argument: junk}
    _refused_or_done(lambda: api.load_all_features(**arguments))


@SETTINGS
@given(argument=st.sampled_from(["folds", "metric", "reference", "bayesian_rope"]), junk=JUNK)
def test_score_matrix_and_compare(folds, argument, junk):
    arguments = {"folds": folds, "metric": "micro_f1", argument: junk}
    if argument in ("folds", "metric"):
        _refused_or_done(lambda: api.score_matrix(arguments["folds"], arguments["metric"]))
    _refused_or_done(lambda: api.compare(arguments.pop("folds"), arguments.pop("metric"), **arguments))


@SETTINGS
@given(argument=st.sampled_from(["comparison", "alpha"]), junk=JUNK)
def test_bonferroni_dunn(folds, argument, junk):
    arguments = {"comparison": api.compare(folds, "micro_f1", reference="AAA"), argument: junk}
    _refused_or_done(lambda: api.bonferroni_dunn(**arguments))


@SETTINGS
@given(function=st.sampled_from([api.tables, api.figures]), argument=st.sampled_from(["results_dir", "ref_method",
                                                                                       "out_dir", "option"]),
       junk=JUNK)
def test_tables_and_figures_refuse_before_writing(results, tmp_path_factory, function, argument, junk):
    if argument == "out_dir" and isinstance(junk, (str, os.PathLike)):
        return  # a valid folder name: it would be written (relative to the working directory)
    out = tmp_path_factory.mktemp("out")
    arguments = {"results_dir": results, "out_dir": out, "ref_method": "AAA", "no_figures": True, "metrics": "micro_f1"}
    if function is api.figures:
        del arguments["no_figures"]
    if argument == "option":
        arguments["grid"] = junk
    else:
        arguments[argument] = junk
    _refused_or_done(lambda: function(arguments.pop("results_dir"), arguments.pop("out_dir"), **arguments))


@settings(SETTINGS, max_examples=20)
@given(argument=st.sampled_from(["results_dir", "ref_method", "out_dir", "grids", "command", "option"]), junk=JUNK)
def test_html_refuses_or_writes(results, tmp_path_factory, argument, junk):
    if argument == "out_dir" and isinstance(junk, (str, os.PathLike)):
        return  # a valid folder name: it would be written (relative to the working directory)
    arguments = {"results_dir": results, "out_dir": tmp_path_factory.mktemp("html"), "ref_method": "AAA",
                 "metrics": "micro_f1", argument if argument != "option" else "datasets": junk}
    _refused_or_done(lambda: api.html(arguments.pop("results_dir"), arguments.pop("out_dir"), **arguments))


@SETTINGS
@given(argument=st.sampled_from(["folder", "title", "columns", "paper_size", "font_size", "table_order", "include"]),
       junk=JUNK)
def test_write_main_tex(tmp_path_factory, argument, junk):
    arguments = {"folder": tmp_path_factory.mktemp("tex"), "title": "T", argument: junk}
    _refused_or_done(lambda: api.write_main_tex(arguments.pop("folder"), **arguments))


@SETTINGS
@given(argument=st.sampled_from(["tex", "timeout"]), junk=JUNK)
def test_compile_pdf_arguments(argument, junk):
    arguments = {"tex": MISSING / "main.tex", argument: junk}
    if argument == "timeout" and isinstance(junk, (int, float)) and not isinstance(junk, bool) and junk > 0:
        return  # a valid timeout; the missing file is refused, as tested below
    _refused_or_done(lambda: api.compile_pdf(arguments.pop("tex"), **arguments))


@pytest.mark.parametrize("call, line", [
    (lambda root: api.load_results(root, grid="xgrid"), "field 'grid': unknown value (expected one of ['kgrid', 'pgrid']"),
    (lambda root: api.load_results(root, methods=["AAA", 3]), "field 'methods': invalid method name 3"),
    (lambda root: api.load_results(root / "nope"), "nope, field 'results_dir': folder not found"),
    (lambda root: api.load_results(root, folds="2"), "field 'folds': must be a whole number of folds or None"),
    (lambda root: api.score_matrix(api.load_results(root), "micro-F1"), "field 'metric': unknown value"),
    (lambda root: api.compare(api.load_results(root), "micro_f1", reference="ZZZ"),
     "field 'reference': reference method is not among the compared methods (expected one of ['AAA', 'BBB', 'CCC']"),
    (lambda root: api.bonferroni_dunn(api.compare(api.load_results(root), "micro_f1")),
     "field 'comparison': the comparison has no reference method"),
    (lambda root: api.tables(root, root / "out", ref_method="AAA", layout="wide"), "field '--layout': invalid choice"),
])
def test_bad_arguments_name_the_argument(results, call, line):
    with pytest.raises(ConfigError) as refused:
        call(results)
    assert line in str(refused.value) and "\n" not in str(refused.value)


def test_compile_pdf_names_a_log_that_exists(tmp_path):
    with pytest.raises(ConfigError, match="main.tex: LaTeX file not found"):
        api.compile_pdf(tmp_path / "main.tex")
    (tmp_path / "main.tex").write_text("\\documentclass{article}\\begin{document}\\undefinedcommand\\end{document}\n")
    with pytest.raises(ConfigError) as refused:
        api.compile_pdf(tmp_path / "main.tex", timeout=120)
    assert str(refused.value).startswith(f"{tmp_path / 'main.log'}: pdflatex failed; see its log")
    assert (tmp_path / "main.log").is_file()


def test_compile_pdf_says_when_no_log_was_written(tmp_path, monkeypatch):
    """A pdflatex that fails before it writes a log (here a stand-in on PATH): its last line, no log named."""
    fake = tmp_path / "bin" / "pdflatex"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'I cannot write on file main.log'\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "main.tex").write_text("x")
    with pytest.raises(ConfigError) as refused:
        api.compile_pdf(tmp_path / "main.tex")
    assert str(refused.value) == (f"{tmp_path / 'main.tex'}: pdflatex failed and wrote no log "
                                  "(found I cannot write on file main.log)")


@pytest.mark.parametrize("option", ["methods", "datasets", "metrics"])
@pytest.mark.parametrize("function", [api.tables, api.html])
def test_an_empty_list_of_names_is_refused_not_read_as_nothing_to_report(results, tmp_path, function, option):
    # html(datasets=[]) once reached min() of an empty sequence (found by test_html_refuses_or_writes)
    with pytest.raises(ConfigError) as refused:
        function(results, tmp_path / "out", ref_method="AAA", no_figures=True, **{option: []})
    assert refused.value.field == f"--{option}" and not (tmp_path / "out").exists()
