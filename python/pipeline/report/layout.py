"""The page the report is set on, and the layout of its tables and figures.

One definition of the document (a 10 pt ``article``, one or two columns) serves the command line,
the suite's ``tables:`` section, the tables' splitting and the figures' sizes.

Tables are set in ``\\footnotesize`` (8 pt in a 10 pt document). With ``fit_width`` a table part may
be shrunk to the line, but never below :data:`MIN_TYPE_PT` on the printed page: a table wider than
that, or taller than a page, is split into parts (column parts repeat the row names, row parts the
header). Widths are estimated from the printed text with Computer Modern's 8 pt advance widths
(cmr8 digits 4.25 pt, cmsy8's ± 7.06 pt, bold text 14 % wider; checked against TeX's own widths),
heights from the 9.5 pt line of ``\\footnotesize``.
"""

from __future__ import annotations

import math
from typing import Sequence

#: Smallest type on the printed page, for tables and figures alike (what publishers accept).
MIN_TYPE_PT = 7.0
#: Type size of the tables and its line height.
TABLE_TYPE_PT = 8.0
TABLE_LINE_PT = 9.5
TYPE_SIZE = r"\footnotesize"
#: ``split``: parts in ``table*`` floats (across both columns of a two-column document);
#: ``landscape``: parts in ``sidewaystable*`` floats (package ``rotating``), a page each.
LAYOUTS = ("split", "landscape")
#: Columns of the document (``main.tex`` is a one- or a two-column 10 pt ``article``; the first is the default).
COLUMN_COUNTS = (1, 2)
#: The 10 pt ``article``'s text width and height (letter paper; TeX's own values), and the width of one
#: column: ``table*`` and ``figure*`` span the text width, a ``figure`` the column.
TEXT_WIDTH_PT = {1: 345.0, 2: 469.0}
COLUMN_WIDTH_PT = {1: 345.0, 2: 229.5}
TEXT_HEIGHT_PT = 550.0
#: Width a landscape part may take (the text height, less a margin for the caption's indent).
LANDSCAPE_WIDTH_PT = 520.0
COLUMN_SEP_PT = 3.0
#: Height of a table's rules (booktabs \toprule, \midrule, \bottomrule with their separations) and of the
#: caption's skip.
RULE_PT = 4.0
CAPTION_SKIP_PT = 10.0
#: Mean advance assumed for a caption's 8 pt character, spaces included (an estimate: the compile tests check
#: that the floats fit).
CAPTION_CHAR_PT = 4.0
#: Share of the page a float may fill by estimate (the estimates are a few per cent off either way).
PAGE_SHARE = 0.95
_WIDTHS = {"digit": 4.25, "upper": 6.6, "narrow": 2.4, "space": 2.83, "sign": 7.06, "other": 4.5}
BOLD = 1.14


def text_width_pt(text: str, *, bold: bool = False) -> float:
    """Estimated printed width of ``text`` in 8 pt type (``bold``: in bold face)."""
    width = 0.0
    for ch in str(text):
        kind = ("digit" if ch.isdigit() else "upper" if ch.isupper() else "narrow" if ch in ".,:;'|!il()[]"
                else "space" if ch == " " else "sign" if ch in "±−–—+=<>•∘✓↑↓†‡" else "other")
        width += _WIDTHS[kind]
    return width * BOLD if bold else width


def column_width_pt(texts: Sequence[str], bold: Sequence[str] = ()) -> float:
    """Width of a table column holding ``texts`` (header included) and ``bold`` texts, with its separation."""
    widths = [text_width_pt(t) for t in texts] + [text_width_pt(t, bold=True) for t in bold]
    return max(widths, default=0.0) + 2 * COLUMN_SEP_PT


def part_width_pt(layout: str, columns: int, table_width: float | None = None) -> float:
    """Width a table part may take in the document: ``table_width`` when given, else the text width
    (``table*`` spans both columns) or, in the landscape layout, the rotated page's."""
    if table_width is not None:
        return table_width
    return LANDSCAPE_WIDTH_PT if layout == "landscape" else TEXT_WIDTH_PT[columns]


def part_height_pt(layout: str, columns: int) -> float:
    """Height a table float may take: the text height, or, rotated, the text width."""
    return TEXT_WIDTH_PT[columns] if layout == "landscape" else TEXT_HEIGHT_PT


def width_budget_pt(width_pt: float, fit_width: bool) -> float:
    """Natural (8 pt) width a part may have: with ``fit_width`` it is shrunk to ``width_pt``, down to
    :data:`MIN_TYPE_PT` type at most, so it may be wider by that ratio."""
    return width_pt * TABLE_TYPE_PT / MIN_TYPE_PT if fit_width else width_pt


def caption_height_pt(caption_chars: int, width_pt: float) -> float:
    """Estimated height of a caption of ``caption_chars`` characters of 8 pt text set ``width_pt`` wide."""
    lines = math.ceil(caption_chars * CAPTION_CHAR_PT / width_pt) + 1  # +1: the last line and word breaks
    return CAPTION_SKIP_PT + lines * TABLE_LINE_PT


def rows_per_float(height_pt: float, width_pt: float, caption_chars: int, *, other_lines: int,
                   rules: int = 3, row_lines: int = 1) -> int:
    """How many rows of ``row_lines`` lines fit one float of ``height_pt`` besides ``other_lines``
    lines (header, summary rows), ``rules`` rules and the caption (at least one row)."""
    free = (height_pt * PAGE_SHARE - caption_height_pt(caption_chars, width_pt) - rules * RULE_PT
            - other_lines * TABLE_LINE_PT)
    return max(1, int(free // (row_lines * TABLE_LINE_PT)))


def split_columns(fixed_pt: float, widths: Sequence[float], budget_pt: float) -> list[list[int]]:
    """Split columns (``widths``, in order) into as few contiguous parts as fit ``budget_pt`` next to
    the columns every part repeats (``fixed_pt``), with part sizes as even as possible.

    A column that cannot fit even alone gets a part of its own.
    """
    n = len(widths)
    if n == 0:
        return [[]]
    for n_parts in range(1, n):
        parts = even_parts(n, n_parts)
        if all(fixed_pt + sum(widths[i] for i in part) <= budget_pt for part in parts):
            return parts
    return [[i] for i in range(n)]


def split_rows_evenly(n_rows: int, max_rows: int) -> list[list[int]]:
    """Rows ``0..n_rows-1`` in as few contiguous, even groups of at most ``max_rows`` as possible."""
    return even_parts(n_rows, max(1, math.ceil(n_rows / max_rows))) if n_rows else [[]]


def even_parts(n: int, n_parts: int) -> list[list[int]]:
    bounds = [round(i * n / n_parts) for i in range(n_parts + 1)]
    return [list(range(bounds[i], bounds[i + 1])) for i in range(n_parts) if bounds[i + 1] > bounds[i]]


def split_rows(sizes: Sequence[int], max_rows: int) -> list[list[int]]:
    """Group consecutive blocks of ``sizes`` rows into floats of at most ``max_rows`` rows (a block
    larger than that stays whole)."""
    groups: list[list[int]] = []
    used = 0
    for i, size in enumerate(sizes):
        if groups and used + size <= max_rows:
            groups[-1].append(i)
            used += size
        else:
            groups.append([i])
            used = size
    return groups


def float_environment(layout: str) -> str:
    """The float a table part goes into."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return "sidewaystable*" if layout == "landscape" else "table*"
