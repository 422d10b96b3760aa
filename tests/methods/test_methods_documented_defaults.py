"""Each method's page (docs/methods/<METHOD>.md) documents exactly the defaults the code uses.

The page's table ``| parameter | default | ... |`` lists every parameter (backticked names, several
per row allowed: ``| `alpha`, `beta` | 10, 0.1 | ... |``); rows without a backticked name are
fixed constants of the code, not parameters. The Octave twins record the same defaults as the
NumPy ports (the front-door test compares the recorded parameters), so this guards both engines.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.methods import available_methods, get_method

PAGES = Path(__file__).resolve().parents[2] / "docs" / "methods"
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def documented_value(text: str):
    """A default as the page writes it: ``10⁻⁶``, ``1e100``, ``0 (off)``, ```fast```, ``"directed"``, ``true``."""
    text = re.sub(r"\(.*?\)", "", text).strip().strip("`").strip('"')
    power = re.fullmatch(r"10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    if power:
        return 10.0 ** int(power.group(1).translate(SUPERSCRIPT))
    if text in ("true", "false"):
        return text == "true"
    try:
        return float(text)
    except ValueError:
        return text


def documented_defaults(page: Path) -> dict:
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| parameter | default |"))
    found = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        names_cell, values_cell = (cell.strip() for cell in line.strip("|").split("|")[:2])
        names = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", names_cell)
        if not names:
            continue  # a fixed constant of the code
        values = [part.strip() for part in values_cell.split(",")] if len(names) > 1 else [values_cell]
        assert len(values) == len(names), line
        found.update({name: documented_value(value) for name, value in zip(names, values)})
    return found


METHODS_WITH_PARAMETERS = [name for name in available_methods() if get_method(name).defaults]


@pytest.mark.parametrize("method", METHODS_WITH_PARAMETERS)
def test_the_page_lists_the_code_defaults(method):
    documented = documented_defaults(PAGES / f"{method}.md")
    code = dict(get_method(method).defaults)
    assert set(documented) == set(code), f"{method}: page {sorted(documented)} vs code {sorted(code)}"
    for name, value in code.items():
        assert documented[name] == pytest.approx(value) if isinstance(value, float) else documented[name] == value, \
            f"{method}.{name}: page {documented[name]!r}, code {value!r}"


@pytest.mark.parametrize("text,value", [("10⁻⁶", 1e-6), ("1e100", 1e100), ("0 (off)", 0.0), ("`fast`", "fast"),
                                        ('`"directed"`', "directed"), ("true", True), ("0.50", 0.5)])
def test_documented_values_are_read_as_written(text, value):
    assert documented_value(text) == value
