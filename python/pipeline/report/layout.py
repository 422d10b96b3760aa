"""Legible table layout: the type size of every table and the split of wide tables into parts.

Tables are set in ``\\footnotesize`` (8 pt in a 10 pt document) and never scaled down: a table
wider than the space a float has is split into parts, each repeating the row names and holding
some of the columns. Widths are estimated from the printed text with Computer Modern's 8 pt
advance widths (cmr8 digits 4.25 pt, cmsy8’s ± 7.06 pt, bold text 14 % wider; checked against TeX’s own widths).
"""

from __future__ import annotations

from typing import Sequence

TYPE_SIZE = r"\footnotesize"
#: ``split``: parts in ``table*`` floats (across both columns of a two-column document);
#: ``landscape``: parts in ``sidewaystable*`` floats (package ``rotating``), a page each.
LAYOUTS = ("split", "landscape")
#: Text width of a one-column 10 pt ``article`` (345 pt; a two-column one spans 505 pt with ``table*``).
DEFAULT_WIDTH_PT = {"split": 345.0, "landscape": 520.0}
COLUMN_SEP_PT = 3.0
#: Rows per float: a 10 pt article's text height holds about 50 rows of 8 pt type besides the caption.
MAX_ROWS = 44
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


def split_columns(fixed_pt: float, widths: Sequence[float], budget_pt: float) -> list[list[int]]:
    """Split columns (``widths``, in order) into as few contiguous parts as fit ``budget_pt`` next to
    the columns every part repeats (``fixed_pt``), with part sizes as even as possible.

    A column that cannot fit even alone gets a part of its own.
    """
    n = len(widths)
    if n == 0:
        return [[]]
    for n_parts in range(1, n):
        parts = _even_parts(n, n_parts)
        if all(fixed_pt + sum(widths[i] for i in part) <= budget_pt for part in parts):
            return parts
    return [[i] for i in range(n)]


def _even_parts(n: int, n_parts: int) -> list[list[int]]:
    bounds = [round(i * n / n_parts) for i in range(n_parts + 1)]
    return [list(range(bounds[i], bounds[i + 1])) for i in range(n_parts) if bounds[i + 1] > bounds[i]]


def split_rows(sizes: Sequence[int], max_rows: int = MAX_ROWS) -> list[list[int]]:
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
