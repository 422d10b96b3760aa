"""``ReportOptions``: the options of a report, checked once whoever makes them (the command line,
``report_api``, ``paper run``), with the command line's names in every refusal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeline.errors import ConfigError
from pipeline.report.options import ReportOptions
from pipeline.tables import build_parser


def test_the_command_line_gives_every_option_and_only_report_options():
    # an option the model lacks would be a TypeError here, a default that differs an inequality
    parsed = build_parser().parse_args(["--results-dir", "r", "--ref-method", "A"])
    assert ReportOptions(**vars(parsed)) == ReportOptions(results_dir="r", ref_method="A")


def test_values_are_read_as_the_command_line_reads_their_text():
    options = ReportOptions(results_dir=Path("r"), ref_method="A", jobs="2", folds=np.int64(3), p_target="0.5",
                            methods=("A", "B"), include_tables=[Path("t")])
    assert (options.results_dir, options.jobs, options.folds, options.p_target) == ("r", 2, 3, 0.5)
    assert options.methods == ["A", "B"] and options.include_tables == ["t"]
    assert options.with_out_dir(Path("o") / "settings1").out_dir == str(Path("o") / "settings1")


@pytest.mark.parametrize("given, field, message", [
    ({"jobs": "many"}, "--jobs", "invalid int value: 'many'"),
    ({"folds": 2.5}, "--folds", "invalid int value: 2.5"),
    ({"jobs": True}, "--jobs", "invalid int value: True"),
    ({"columns": 3}, "--columns", "invalid choice"),
    ({"paper_size": "a5paper"}, "--paper-size", "expected one of ['letterpaper', 'a4paper']"),
    ({"font_size": "9pt"}, "--font-size", "expected one of ['10pt', '11pt', '12pt']"),
    ({"grid": "qgrid"}, "--grid", "invalid choice"),
    ({"metrics": ["micro_f1", "nope"]}, "--metrics", "invalid choice"),
    ({"metrics": ["micro_f1", "micro_f1"]}, "--metrics", "--metrics lists a metric twice"),
    ({"methods": "A"}, "--methods", "must be a list of names"),
    ({"pdf": "yes"}, "--pdf", "must be True or False"),
    ({"display_map": 3}, "--display-map", "must be text or a path"),
    ({"p_target": 0}, "--p-target", "out of range (expected a number in (0, 1]"),
    ({"jobs": 0}, "--jobs", "out of range (expected a number in [1, 1024]"),
    ({"folds": 0}, "--folds", "out of range"),
    ({"bayesian_rope": -1.0}, "--bayesian-rope", "out of range"),
    ({"jobs": 2000}, "--jobs", "out of range"),
    ({"table_width": 50}, "--table-width", "out of range (expected a number in [100, 2000]"),
    ({"caption_note": "x" * 1001}, "--caption-note", "--caption-note is too long"),
    ({"label_suffix": "a b"}, "--label-suffix", "--label-suffix may hold letters"),
])
def test_a_refused_value_names_its_command_line_option(given, field, message):
    with pytest.raises(ConfigError) as refused:
        ReportOptions(results_dir="r", ref_method="A", **given)
    assert refused.value.field == field and message in str(refused.value)


@pytest.mark.parametrize("keyword, fit_width", [({"no_fit_width": True}, False), ({"no_fit_width": False}, True),
                                                ({"fit_width": False}, False), ({}, True)])
def test_api_keywords_are_the_command_line_options_negative_flags_included(keyword, fit_width):
    from pipeline.report_api import _options

    assert _options("r", "out", "A", keyword).fit_width is fit_width
