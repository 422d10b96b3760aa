"""The one range type (pipeline.validation.Interval), the definitions file both languages read, and
the one helper that shortens a value for a message."""

from __future__ import annotations

import dataclasses
import math
from typing import Annotated

import pytest
from hypothesis import assume, given, settings, strategies as st
from pydantic import BaseModel, ValidationError

from pipeline import definitions as definitions_module
from pipeline.definitions import METHOD_DEFINITIONS_DIR, RUN_OPTION_DEFAULTS, RUN_OPTION_RANGES, method_definition
from pipeline.errors import ConfigError
from pipeline.methods import available_methods, get_method
from pipeline.methods.base import MethodSpec
from pipeline.validation import Interval, option_range, shorten

finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)


@st.composite
def intervals(draw) -> Interval:
    """A numeric interval with one or two bounds, each open or closed."""
    low, high = draw(st.one_of(st.none(), finite)), draw(st.one_of(st.none(), finite))
    assume(low is not None or high is not None)
    assume(low is None or high is None or low < high - 1e-6 * max(1.0, abs(low), abs(high)))
    return Interval(low=low, high=high, low_open=draw(st.booleans()), high_open=draw(st.booleans()))


@given(intervals(), st.sampled_from([0, 0.5]))
def test_the_value_just_outside_is_refused_and_has_the_defaults_type(interval, default):
    outside = interval.just_outside(default)
    assert not interval.admits(outside)
    assert type(outside) is type(default) or (isinstance(default, int) and isinstance(outside, int))


@given(intervals(), st.floats(min_value=0, max_value=1))
def test_values_strictly_inside_are_admitted_and_a_bound_only_when_closed(interval, share):
    low = interval.low if interval.low is not None else interval.high - 10.0
    high = interval.high if interval.high is not None else interval.low + 10.0
    inside = low + share * (high - low)
    assume(low < inside < high)
    assert interval.admits(inside)
    if interval.low is not None:
        assert interval.admits(interval.low) is not interval.low_open
        assert not interval.admits(interval.low - 1.0 - abs(interval.low))
    if interval.high is not None:
        assert interval.admits(interval.high) is not interval.high_open
        assert not interval.admits(interval.high + 1.0 + abs(interval.high))


@given(intervals())
def test_nan_bools_and_text_are_never_in_a_numeric_range(interval):
    assert not any(interval.admits(value) for value in (math.nan, True, False, "1", None))


def test_choices_admit_exactly_their_texts():
    modes = Interval(choices=("fast", "faithful"))
    assert modes.admits("fast") and modes.admits("faithful")
    assert not any(modes.admits(value) for value in ("Fast", "", 1, None, modes.just_outside("fast")))


@pytest.mark.parametrize("interval, words", [
    (Interval(low=0), ">= 0"),
    (Interval(low=0, low_open=True), "> 0"),
    (Interval(low=0, high=1, high_open=True), ">= 0 and < 1"),
    (Interval(high=1e-3), "<= 0.001"),
    (Interval(choices=("fast", "faithful")), "one of ['fast', 'faithful']"),
    (option_range(0, 1, low_open=True), "a number in (0, 1]"),
    (option_range(1, 1_000_000), "a number in [1, 1000000]"),
    (option_range(0, 0.5), "a number in [0, 0.5]"),
])
def test_a_range_is_written_as_the_messages_have_always_written_it(interval, words):
    assert str(interval) == words


@settings(deadline=None)  # builds a pydantic model per example
@given(intervals(), st.one_of(finite, st.integers(min_value=-10**9, max_value=10**9)))
def test_the_pydantic_constraint_admits_what_the_interval_admits(interval, value):
    class Model(BaseModel):
        number: Annotated[float, interval.pydantic_field()]

    try:
        Model(number=value)
        admitted = True
    except ValidationError:
        admitted = False
    assert admitted == interval.admits(value)


@pytest.mark.parametrize("declaration, problem", [
    ({"low": 0, "hihg": 1}, "unknown key(s) ['hihg']"),
    ({"low": "0"}, "the low bound of a range must be a finite number"),
    ({"high": math.inf}, "the high bound of a range must be a finite number"),
    ({"low": True}, "the low bound of a range must be a finite number"),
    ({"low": 0, "low_open": 1}, "low_open of a range must be true or false"),
    ({"choices": "fast"}, "the choices of a range must be a list of texts"),
    ({"low": 1, "high": 1}, "lower bound must be below its upper bound"),
    ({"low": 0, "choices": ["a"]}, "either bounds or choices"),
    ({}, "a range needs a bound or choices"),
    ([0, 1], "a range must be a mapping"),
])
def test_a_bad_declaration_is_refused_naming_where_it_is(declaration, problem):
    with pytest.raises(ConfigError, match="field 'X.json: ranges.alpha'") as refused:
        Interval.from_declaration(declaration, where="X.json: ranges.alpha")
    assert problem in str(refused.value)


def test_every_definition_file_is_that_of_a_shipped_method_and_its_spec_holds_it():
    files = sorted(METHOD_DEFINITIONS_DIR.glob("*.json"))
    assert files and {file.stem for file in files} <= set(available_methods())
    for file in files:
        definition, method_spec = method_definition(file.stem), get_method(file.stem)
        assert dict(method_spec.defaults) == definition.defaults, file.stem
        assert dict(method_spec.allowed) == definition.ranges, file.stem


def test_a_definition_keeps_integer_and_real_parameters_apart():
    lrmfs = get_method("LRMFS")   # "max_iter": 10 and "beta": 1.0 in its file
    assert type(lrmfs.defaults["max_iter"]) is int
    assert type(lrmfs.defaults["beta"]) is float
    with pytest.raises(ConfigError, match="invalid value for parameter 'max_iter'"):
        lrmfs.resolve_params({"max_iter": 1.5})
    assert lrmfs.resolve_params({"beta": 2})["beta"] == 2


@pytest.mark.parametrize("text, problem", [
    (None, "cannot read the definition of method BAD"),
    ('{"defaults": ', "cannot read the definition of method BAD"),
    ('{"defaults": {}}', "the definition of method BAD is not of the expected form"),
    ('{"defaults": {"a": [1]}, "ranges": {}}', "the default of parameter 'a' of method BAD is not a number"),
    ('{"defaults": {"a": 1.0}, "ranges": {"a": {"low": "x"}}}', "the low bound of a range must be a finite number"),
])
def test_a_bad_definition_file_is_refused_naming_it(tmp_path, monkeypatch, text, problem):
    monkeypatch.setattr(definitions_module, "METHOD_DEFINITIONS_DIR", tmp_path)
    if text is not None:
        (tmp_path / "BAD.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=problem) as refused:
        method_definition("BAD")
    assert "BAD.json" in str(refused.value)


def test_a_range_for_a_parameter_the_method_lacks_or_refusing_its_default_is_refused():
    with pytest.raises(ConfigError, match=r"a range for parameter\(s\) \['alhpa'\] it does not have"):
        MethodSpec(name="M", defaults={"alpha": 1.0}, allowed={"alhpa": Interval(low=0)})
    with pytest.raises(ConfigError, match="the default of parameter 'alpha' lies outside its range"):
        MethodSpec(name="M", defaults={"alpha": -1.0}, allowed={"alpha": Interval(low=0)})


def test_every_run_option_default_lies_in_its_range():
    assert set(RUN_OPTION_DEFAULTS) == set(RUN_OPTION_RANGES)
    for name, default in RUN_OPTION_DEFAULTS.items():
        assert RUN_OPTION_RANGES[name].admits(default), name


def test_shorten_keeps_short_values_and_cuts_long_ones_saying_how_long():
    assert shorten("abc") == "'abc'"
    assert shorten("x" * 500, 10) == "'xxxxxxxxxx'... (500 characters)"
    assert shorten(list(range(1000)), 12) == "[0, 1, 2, 3,... (4890 characters)"
    assert shorten(12) == "12"


def test_an_interval_is_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Interval(low=0).low = 1  # type: ignore[misc]
