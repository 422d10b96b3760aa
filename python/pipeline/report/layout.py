"""The page the report is set on, and the layout of its tables and figures.

One definition of the document (an ``article`` of one or two columns, on letter or A4 paper, with a
10, 11 or 12 pt base font: :class:`Page`) serves the command line, the suite's ``tables:`` section,
``main.tex``'s class options, the tables' splitting and the figures' sizes.

Tables are set in ``\\footnotesize`` (8, 9 or 10 pt for a 10, 11 or 12 pt document). With ``fit_width`` a
table part may be shrunk to the line, but never below :data:`MIN_TYPE_PT` on the printed page: a table
wider than that, or taller than a page, is split into parts (column parts repeat the row names, row parts
the header). Widths are estimated from the printed text with Computer Modern's 8 pt advance widths
(cmr8 digits 4.25 pt, cmsy8's ± 7.06 pt, bold text 14 % wider; checked against TeX's own widths) and
scaled to the tables' type size, heights from the line of ``\\footnotesize``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Sequence

#: Smallest type on the printed page, for tables and figures alike (what publishers accept).
MIN_TYPE_PT = 7.0
#: The type size the advance widths of :func:`text_width_pt` are for.
ESTIMATE_TYPE_PT = 8.0
TYPE_SIZE = r"\footnotesize"
#: ``split``: parts in ``table*`` floats (across both columns of a two-column document);
#: ``landscape``: parts in ``sidewaystable*`` floats (package ``rotating``), a page each.
LAYOUTS = ("split", "landscape")
#: Columns of the document (``main.tex`` is a one- or a two-column ``article``; the first is the default).
COLUMN_COUNTS = (1, 2)
#: Paper sizes and base font sizes of the document, as ``article`` class options (the first is the default).
PAPER_SIZES = ("letterpaper", "a4paper")
FONT_SIZES = ("10pt", "11pt", "12pt")
#: The ``article`` class's own page (pdflatex's values): text width of one column and of two, the column
#: width of two, and the text height, per paper and font size.
_ARTICLE_PAGE_PT = {
    ("letterpaper", "10pt"): (345.0, 469.0, 229.5, 550.0), ("letterpaper", "11pt"): (360.0, 469.0, 229.5, 541.4),
    ("letterpaper", "12pt"): (390.0, 469.0, 229.5, 548.5), ("a4paper", "10pt"): (345.0, 452.0, 221.0, 598.0),
    ("a4paper", "11pt"): (360.0, 452.0, 221.0, 595.8), ("a4paper", "12pt"): (390.0, 452.0, 221.0, 592.0)}
#: ``\footnotesize`` of each base font size: its type size and line height.
_FOOTNOTESIZE_PT = {"10pt": (8.0, 9.5), "11pt": (9.0, 11.0), "12pt": (10.0, 12.0)}
#: What a landscape part leaves of the rotated page's width (the text height) for the caption's indent.
LANDSCAPE_MARGIN_PT = 30.0


@dataclass(frozen=True)
class Page:
    """The document the report is set in: ``columns`` (:data:`COLUMN_COUNTS`), ``paper_size``
    (:data:`PAPER_SIZES`) and ``font_size`` (:data:`FONT_SIZES`); ValueError for any other value."""

    columns: int = COLUMN_COUNTS[0]
    paper_size: str = PAPER_SIZES[0]
    font_size: str = FONT_SIZES[0]

    def __post_init__(self):
        for name, allowed in (("columns", COLUMN_COUNTS), ("paper_size", PAPER_SIZES), ("font_size", FONT_SIZES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {list(allowed)}, got {getattr(self, name)!r}")

    @property
    def class_options(self) -> str:
        """The ``\\documentclass`` options of ``main.tex``. Letter paper is the class's own default: named
        only when another paper is asked for, so a default document's ``main.tex`` reads as before."""
        paper = [self.paper_size] * (self.paper_size != PAPER_SIZES[0])
        return ",".join([self.font_size, *paper] + ["twocolumn"] * (self.columns == 2))

    @property
    def text_width_pt(self) -> float:
        """Width of the text: ``table*`` and ``figure*`` span it."""
        return _ARTICLE_PAGE_PT[self.paper_size, self.font_size][self.columns - 1]

    @property
    def column_width_pt(self) -> float:
        """Width of one column: a ``figure`` takes it."""
        one, _, two, _ = _ARTICLE_PAGE_PT[self.paper_size, self.font_size]
        return one if self.columns == 1 else two

    @property
    def text_height_pt(self) -> float:
        return _ARTICLE_PAGE_PT[self.paper_size, self.font_size][3]

    @property
    def landscape_width_pt(self) -> float:
        """Width a landscape part may take: the text height, less a margin for the caption's indent."""
        return self.text_height_pt - LANDSCAPE_MARGIN_PT

    @property
    def table_type_pt(self) -> float:
        """Type size of the tables (``\\footnotesize``)."""
        return _FOOTNOTESIZE_PT[self.font_size][0]

    @property
    def table_line_pt(self) -> float:
        return _FOOTNOTESIZE_PT[self.font_size][1]


#: The fields of :class:`Page`: the document options the command line and a suite's ``tables:`` name alike.
PAGE_OPTIONS = tuple(option.name for option in fields(Page))
#: The default page's text width and height, and the width of one column, per column count.
TEXT_WIDTH_PT = {columns: Page(columns).text_width_pt for columns in COLUMN_COUNTS}
COLUMN_WIDTH_PT = {columns: Page(columns).column_width_pt for columns in COLUMN_COUNTS}
TEXT_HEIGHT_PT = Page().text_height_pt
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


def part_width_pt(layout: str, page: Page, table_width: float | None = None) -> float:
    """Width a table part may take in the document: ``table_width`` when given, else the text width
    (``table*`` spans both columns) or, in the landscape layout, the rotated page's."""
    if table_width is not None:
        return table_width
    return page.landscape_width_pt if layout == "landscape" else page.text_width_pt


def part_height_pt(layout: str, page: Page) -> float:
    """Height a table float may take: the text height, or, rotated, the text width."""
    return page.text_width_pt if layout == "landscape" else page.text_height_pt


def width_budget_pt(width_pt: float, fit_width: bool, page: Page) -> float:
    """Width a part may have as :func:`column_width_pt` estimates it (at 8 pt): set at the tables' type
    size it must fit ``width_pt``, or, with ``fit_width``, which shrinks it to ``width_pt``, it must fit
    once shrunk to :data:`MIN_TYPE_PT` type."""
    return width_pt * ESTIMATE_TYPE_PT / (MIN_TYPE_PT if fit_width else page.table_type_pt)


def caption_height_pt(caption_chars: int, width_pt: float, page: Page) -> float:
    """Estimated height of a caption of ``caption_chars`` characters of the tables' type set ``width_pt`` wide."""
    char_pt = CAPTION_CHAR_PT * page.table_type_pt / ESTIMATE_TYPE_PT
    lines = math.ceil(caption_chars * char_pt / width_pt) + 1  # +1: the last line and word breaks
    return CAPTION_SKIP_PT + lines * page.table_line_pt


def rows_per_float(height_pt: float, width_pt: float, caption_chars: int, page: Page, *, other_lines: int,
                   rules: int = 3, row_lines: int = 1) -> int:
    """How many rows of ``row_lines`` lines of ``page``'s tables fit one float of ``height_pt`` besides
    ``other_lines`` lines (header, summary rows), ``rules`` rules and the caption (at least one row)."""
    free = (height_pt * PAGE_SHARE - caption_height_pt(caption_chars, width_pt, page) - rules * RULE_PT
            - other_lines * page.table_line_pt)
    return max(1, int(free // (row_lines * page.table_line_pt)))


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
