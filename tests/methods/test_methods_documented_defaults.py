"""Each method page's default column is written from the method's definition file
(scripts/render_method_defaults.py), the file both engines read: the pages are current, and the
renderer writes a changed default, refuses a table naming a parameter the method lacks and one
leaving a parameter out."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
renderer = importlib.util.spec_from_file_location("render_method_defaults", ROOT / "scripts" / "render_method_defaults.py")
render = importlib.util.module_from_spec(renderer)
renderer.loader.exec_module(render)

PAGE = """# M

| parameter | default | source |
|---|---|---|
| `alpha`, `tol` | 7, 1 | the script, line 3 |
| graph k | 5 | fixed |
| `mode` | `slow` | project |

Text after the table.
"""
DEFAULTS = {"alpha": 100.0, "tol": 1e-6, "mode": "fast"}


def test_every_page_is_current():
    assert render.stale_pages(write=False) == []


def test_the_default_cells_are_written_from_the_definition_and_nothing_else_changes():
    written = render.rendered_page(PAGE, DEFAULTS, Path("M.md"))
    assert written == PAGE.replace("| 7, 1 |", "| 100, 10⁻⁶ |").replace("| `slow` |", "| `fast` |")
    assert render.rendered_page(written, DEFAULTS, Path("M.md")) == written


@pytest.mark.parametrize("defaults, message", [
    ({"alpha": 1.0, "mode": "fast"}, r"M.md: the table names \['tol'\], which the method's definition does not have"),
    ({**DEFAULTS, "seed": 0}, r"M.md: the parameter table leaves out \['seed'\]"),
])
def test_a_table_that_does_not_match_the_parameters_is_refused(defaults, message):
    with pytest.raises(ValueError, match=message):
        render.rendered_page(PAGE, defaults, Path("M.md"))


@pytest.mark.parametrize("value, written", [(1e-6, "10⁻⁶"), (1e100, "10¹⁰⁰"), (1e-3, "10⁻³"), (0.5, "0.5"),
                                            (3.0, "3"), (20, "20"), (True, "true"), ("fast", "`fast`")])
def test_values_are_written_as_the_pages_write_them(value, written):
    assert render.written_value(value) == written
