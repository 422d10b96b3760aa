"""YAML numbers mean what they say whatever YAML version the writer had in mind (issue 32): a plain
scalar that YAML 1.1 (PyYAML's resolvers) and YAML 1.2 read differently is refused with one line
naming the field; decimal integers and fractions read as both read them; quoted text stays text.
Before: ``seed: 042`` was used as 34 and ``seed: 1:30`` as 90."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from pipeline.documents import parse_document
from pipeline.errors import ConfigError

REFUSAL = ("field 'seed': a number written as YAML 1.1 and YAML 1.2 read differently (a leading zero, "
           "':' base 60, '_' separators, 0b or 0x) (expected decimal digits without a leading zero, or quotes "
           "for text; found {}")


def _seed(text: str):
    return parse_document(f"seed: {text}\n", "test document", kind="yaml")["seed"]


@pytest.mark.parametrize("text", ["042", "-042", "08", "00", "1:30", "1:30:00", "-1:30", "1:30.5", "1_000",
                                  "1_000.5", "0b101", "0x1F", "-0x1F", "0_1"])
def test_forms_the_two_yaml_versions_read_differently_are_refused(text):
    with pytest.raises(ConfigError) as info:
        _seed(text)
    assert str(info.value) == REFUSAL.format(text) + ")"


@pytest.mark.parametrize("text, value", [("0", 0), ("-0", 0), ("42", 42), ("+42", 42), ("-7", -7), ("1.5", 1.5),
                                         ("-0.25", -0.25), ("0.", 0.0), ("007.5", 7.5), (".5", 0.5),
                                         ("1.0e+3", 1000.0), ("'042'", "042"), ('"1:30"', "1:30"),
                                         ("0o17", "0o17"), ("1e5", "1e5"), ("12ab", "12ab")])
def test_forms_both_read_alike_keep_their_meaning(text, value):
    found = _seed(text)
    assert found == value and type(found) is type(value)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**20))
def test_every_decimal_integer_reads_as_itself_and_with_a_leading_zero_is_refused(n):
    assert _seed(str(n)) == n and _seed(f"-{n}") == -n
    with pytest.raises(ConfigError, match="YAML 1.1 and YAML 1.2 read differently"):
        _seed(f"0{n}")


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=0, max_value=59),
       st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=5))
def test_base_60_and_separated_forms_are_refused(hours, minutes, n, at):
    with pytest.raises(ConfigError, match="YAML 1.1 and YAML 1.2 read differently"):
        _seed(f"{hours}:{minutes:02d}")
    digits = str(n) + "000"
    with pytest.raises(ConfigError, match="YAML 1.1 and YAML 1.2 read differently"):
        _seed(digits[:at] + "_" + digits[at:])


def test_a_key_in_an_ambiguous_form_is_refused_too():
    with pytest.raises(ConfigError, match=r"field '042': a number written as YAML 1.1"):
        parse_document("042: x\n", "test document", kind="yaml")
