"""Score, statistics, rank and value tables, rendered to LaTeX (Jinja2 templates) and to Markdown.

The objects here hold what a reader sees: row and column names (raw strings, escaped only when
rendered), means, standard deviations, the direction of the score, summary rows and footnote
marks. They know nothing about where the numbers came from.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..stats.signed_rank import EXACT_TEST_NONZERO_CUTOFF
from .latex import latex_environment, latex_escape
from .layout import (COLUMN_SEP_PT, ESTIMATE_TYPE_PT, TYPE_SIZE, Page, column_width_pt, float_environment,
                     part_height_pt, part_width_pt, rows_per_float, split_columns, split_rows, split_rows_evenly,
                     text_width_pt, width_budget_pt)

TIE_TOLERANCE = 1e-12
MISSING = "--"
_LABEL = re.compile(r"^[A-Za-z0-9:_.+-]+$")
#: Footnote symbols: name -> (LaTeX source, Markdown text). Set at the table's type size, not as
#: superscripts, which would print below 8 pt. ``worse`` / ``better``: significance against a reference;
#: ``budget``: a fold ran out of its budget; ``warned``: the method warned numerically while ranking.
FOOTNOTE_SYMBOLS = {"dagger": (r"\,$\dagger$", "†"), "ddagger": (r"\,$\ddagger$", "‡"),
                    "approx": (r"\,(a)", "ᵃ"), "worse": (r"\,$\bullet$", "•"), "better": (r"\,$\circ$", "∘"),
                    "budget": (r"\,\S", "§"), "warned": (r"\,\P", "¶")}
BASELINE_NAME = "All features"
# Characters that open or delimit an inline construct: emphasis, code, links and images ([ and ]
# suffice), autolinks and raw HTML, entities, math, strikethrough, table cells, and GitHub's issue
# and user references. CommonMark renders "\c" as c for any ASCII punctuation c.
_MARKDOWN_SPECIALS = frozenset("\\`*_[]<>|$&~#@")


def cell_marks(values, *, lower_is_better: bool, tol: float = TIE_TOLERANCE) -> list[str]:
    """Mark the best (``"best"``) and second-best (``"second"``) entries of one row.

    Values within ``tol`` of the best are all best; the second-best are those within ``tol`` of the
    best of the remaining values. NaN entries are never marked and never change the marks.
    """
    row = np.asarray(values, dtype=float)
    oriented = row if lower_is_better else -row
    marks = [""] * row.size
    finite = np.isfinite(oriented)
    for mark in ("best", "second"):
        candidates = finite & np.array([m == "" for m in marks])
        if not candidates.any():
            break
        target = oriented[candidates].min()
        for j in np.flatnonzero(candidates & (np.abs(oriented - target) <= tol)):
            marks[j] = mark
    return marks


def printed_marks(texts: Sequence[str], *, lower_is_better: bool) -> list[str]:
    """:func:`cell_marks` decided on the values as printed: equal printed values share a mark
    (0.213064, 0.213073 and 0.213089 all print 0.2131 with four decimals)."""
    values = [float(t) if t != MISSING else math.nan for t in texts]
    return cell_marks(values, lower_is_better=lower_is_better, tol=0.0)


def format_number(value: float, digits: int = 4, missing: str = MISSING) -> str:
    """Fixed-point text for a finite value, ``missing`` otherwise; a value that rounds to zero
    prints unsigned (``0.0000``, never ``-0.0000``)."""
    if value is None or not math.isfinite(value):
        return missing
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def significant_decimals(value: float, digits: int = 3) -> int:
    """Decimals that show ``digits`` significant digits of ``value`` (0 for large or missing values):
    0.001234 -> 5, 12.345 -> 1, 1234.5 -> 0."""
    if value is None or not math.isfinite(value) or value == 0:
        return 0
    return max(0, digits - 1 - math.floor(math.log10(abs(value))))


def format_p(value: float) -> str:
    """Three significant digits for a p value, ``--`` when it is missing."""
    return f"{value:.3g}" if value is not None and math.isfinite(value) else MISSING


@dataclass(frozen=True)
class CellNote:
    """A footnote mark on some cells of a table, explained once in the caption (or under it).

    ``cells`` holds (row, column) indices; ``symbol`` is a key of :data:`FOOTNOTE_SYMBOLS`;
    ``text`` is plain text (escaped when rendered).
    """

    symbol: str
    text: str
    cells: frozenset = frozenset()

    def __post_init__(self):
        if self.symbol not in FOOTNOTE_SYMBOLS:
            raise ValueError(f"footnote symbol must be one of {sorted(FOOTNOTE_SYMBOLS)}, got {self.symbol!r}")

    @property
    def latex_mark(self) -> str:
        return FOOTNOTE_SYMBOLS[self.symbol][0]

    @property
    def markdown_mark(self) -> str:
        return FOOTNOTE_SYMBOLS[self.symbol][1]


@dataclass
class ScoreTable:
    """Rows x columns of mean +- std for one score, with its summary rows.

    Attributes
    ----------
    title : str
        Name of the score (e.g. "Micro-F1").
    row_names, column_names : list of str
        Display names (data sets, methods), unescaped.
    means, stds : ndarray, shape (n_rows, n_columns)
        NaN marks a missing cell.
    lower_is_better : bool
    caption : str
        Plain-text caption, escaped when rendered; the direction and the marking rule are appended.
    label : str
        LaTeX label.
    avg_ranks : ndarray, shape (n_columns,), optional
    win_tie_loss : mapping column name -> (wins, ties, losses) of the reference, optional
    reference : str, optional
        Column name of the reference method.
    notes : list of CellNote
        Footnote marks on cells (e.g. averaged over fewer folds); only notes that mark at least
        one cell are shown.
    spread_over : str
        What the std is taken over, for the caption (e.g. "5 folds").
    digits : int
        Decimals; with ``significant``, significant digits of each mean, its std getting the same
        decimals (e.g. running times from milliseconds to hours).
    fit_width : bool
        Shrink a part wider than the line to the line (needs ``graphicx``), to no less than
        :data:`~pipeline.report.layout.MIN_TYPE_PT` type: parts are split to fit at that size. Without
        it, parts are split to fit at 8 pt.
    baseline_means, baseline_stds : ndarray, shape (n_rows,), optional
        A reference outside the comparison (e.g. ML-kNN on all features): a column named
        ``baseline_name`` after the row names in every part, never marked or ranked; NaN: ``--``.
    layout : str
        ``split`` or ``landscape`` (:data:`~pipeline.report.layout.LAYOUTS`).
    width_pt, height_pt : float, optional
        Width and height a part may take (default: ``page``'s, :func:`~pipeline.report.layout.part_width_pt`);
        a table taller than a page is split into row parts, the summary rows in the last.
    page : Page
        The document (:class:`~pipeline.report.layout.Page`): its tables' type size and line height, and the
        default width and height.
    stacked : bool, optional
        Print the std under the mean in each cell (half the width, twice the height); by default
        (None) whenever that takes fewer parts.
    """

    title: str
    row_names: list[str]
    column_names: list[str]
    means: np.ndarray
    stds: np.ndarray
    lower_is_better: bool
    caption: str
    label: str
    avg_ranks: np.ndarray | None = None
    win_tie_loss: Mapping[str, tuple[int, int, int]] | None = None
    reference: str | None = None
    notes: list[CellNote] = field(default_factory=list)
    spread_over: str = "folds"
    digits: int = 4
    significant: bool = False
    fit_width: bool = True
    baseline_means: np.ndarray | None = None
    baseline_stds: np.ndarray | None = None
    baseline_name: str = BASELINE_NAME
    layout: str = "split"
    width_pt: float | None = None
    height_pt: float | None = None
    page: Page = Page()
    stacked: bool | None = None

    def cells(self) -> list[list[tuple[str, str | None, str, list[CellNote]]]]:
        """Per row, per column: (mean text, std text or None if missing, mark, footnotes)."""
        out = []
        for i in range(self.means.shape[0]):
            texts = [self._texts(self.means[i, j], self.stds[i, j]) for j in range(self.means.shape[1])]
            marks = printed_marks([mean for mean, _ in texts], lower_is_better=self.lower_is_better)
            out.append([(mean, std, marks[j], [n for n in self.notes if (i, j) in n.cells])
                        for j, (mean, std) in enumerate(texts)])
        return out

    def _texts(self, mean: float, std: float) -> tuple[str, str | None]:
        decimals = significant_decimals(mean, self.digits) if self.significant else self.digits
        return format_number(mean, decimals), None if not math.isfinite(mean) else format_number(std, decimals)

    def baseline_cells(self) -> list[tuple[str, str | None]] | None:
        """Per row: (mean text, std text or None) of the baseline column, or None without one."""
        if self.baseline_means is None:
            return None
        return [self._texts(m, s) for m, s in zip(self.baseline_means, self.baseline_stds)]

    def arrangement(self) -> tuple[bool, list[TablePart]]:
        """(stacked cells?, the parts) so that every part fits the page (``width_pt``, ``height_pt``):
        the arrangement with fewer parts, unstacked on a tie."""
        choices = [self.stacked] if self.stacked is not None else [False, True]
        options = []
        for stacked in choices:
            columns = self._parts(stacked)
            summary_lines = (self.avg_ranks is not None) + (self.win_tie_loss is not None)
            rows = split_rows_evenly(len(self.row_names), rows_per_float(
                _height(self), _width(self), self._caption_chars(), self.page, other_lines=1 + summary_lines,
                rules=3 + (summary_lines > 0), row_lines=2 if stacked else 1))
            parts = [TablePart(c, r, r is rows[-1]) for c in columns for r in rows]
            options.append((len(parts), stacked, parts))
        _, stacked, parts = min(options, key=lambda option: option[:2])
        return stacked, parts

    def _caption_chars(self) -> int:
        """Characters of the first part's caption: the table's, its notes' and the template's sentences."""
        return len(self.caption) + sum(len(n.text) + 4 for n in self.used_notes()) + SCORE_CAPTION_CHARS

    def _parts(self, stacked: bool) -> list[list[int]]:
        cells = self.cells()
        widths = [column_width_pt([self.column_names[j], *self._summary_texts(j)]
                                  + [t for row in cells if not row[j][2] for t in _cell_lines(row[j], stacked)],
                                  bold=[t for row in cells if row[j][2] for t in _cell_lines(row[j], stacked)])
                  for j in range(len(self.column_names))]
        labels = ["Avg. rank"] * (self.avg_ranks is not None) + [f"W/T/L vs {self.reference}"] * (
            self.win_tie_loss is not None)
        fixed = column_width_pt(["Dataset", *self.row_names, *labels])
        baseline = self.baseline_cells()
        if baseline is not None:
            fixed += column_width_pt([self.baseline_name] + [t for m, s in baseline
                                                             for t in _cell_lines((m, s, "", []), stacked)])
        return split_columns(fixed, widths, _budget(self))

    def _summary_texts(self, j: int) -> list[str]:
        texts = [] if self.avg_ranks is None else [self.rank_cells()[j][0]]
        return texts + ([] if self.win_tie_loss is None else [self.wtl_cells()[j]])

    def used_notes(self) -> list[CellNote]:
        """The notes that mark at least one cell, in order."""
        return [n for n in self.notes if n.cells]

    def rank_cells(self) -> list[tuple[str, str]]:
        """Average-rank row: (text, mark), best = lowest rank as printed."""
        texts = [format_number(r, 2) for r in self.avg_ranks]
        return list(zip(texts, printed_marks(texts, lower_is_better=True)))

    def wtl_cells(self) -> list[str]:
        """Win/tie/loss row: each column's record against the reference (``--`` for the reference)."""
        return ["/".join(map(str, self.win_tie_loss[c])) if c in self.win_tie_loss else MISSING
                for c in self.column_names]


@dataclass(frozen=True)
class TablePart:
    """One float of a table: its column indices, its row indices and whether the summary rows close it."""

    columns: list[int]
    rows: list[int]
    summary: bool = True


#: Characters of a score table's caption that its template adds (direction, cell format, marking rule).
SCORE_CAPTION_CHARS = 340
#: Characters of the statistics table's pairwise caption that its template adds.
PAIRWISE_CAPTION_CHARS = 900


def _width(table) -> float:
    """Width a part of ``table`` may take (its ``width_pt``, else its layout's on its page)."""
    return table.width_pt or part_width_pt(table.layout, table.page)


def _height(table) -> float:
    return table.height_pt or part_height_pt(table.layout, table.page)


def _budget(table) -> float:
    """Estimated width a part of ``table`` may have (wider with ``fit_width``, which shrinks it to the line)."""
    return width_budget_pt(_width(table), table.fit_width, table.page)


def _cell_lines(cell, stacked: bool) -> list[str]:
    """The printed lines of a score cell (a footnote mark is about as wide as ±)."""
    mean, std, _, notes = cell
    marks = "±" * len(notes)
    if std is None:
        return [mean + marks]
    return [mean, f"± {std}{marks}"] if stacked else [f"{mean} ± {std}{marks}"]


@dataclass
class ValueTable:
    """Plain numbers (no marks, no summary rows) in groups of rows, e.g. a spread per method.

    ``groups`` holds (group name, row names, values of shape (n_rows, n_columns)); the group name
    is printed on the first row of its group, NaN as ``--``. ``fit_width``, ``layout``,
    ``width_pt``, ``height_pt`` and ``page`` as in ScoreTable.
    """

    title: str
    group_header: str
    row_header: str
    column_names: list[str]
    groups: list[tuple[str, list[str], np.ndarray]]
    caption: str
    label: str
    digits: int = 4
    fit_width: bool = True
    layout: str = "split"
    width_pt: float | None = None
    height_pt: float | None = None
    page: Page = Page()

    def parts(self) -> list[TablePart]:
        """The floats of the table: each fits ``width_pt`` (shrunk to 7 pt at most with ``fit_width``)
        and ``height_pt``; ``rows`` holds the indices of its groups, a group never split."""
        rows = [row for group in self.rows() for row in group]
        widths = [column_width_pt([c] + [values[j] for _, _, values in rows]) for j, c in enumerate(self.column_names)]
        fixed = (column_width_pt([self.group_header] + [g for g, _, _ in rows])
                 + column_width_pt([self.row_header] + [name for _, name, _ in rows]))
        fitting = rows_per_float(_height(self), _width(self), len(self.caption) + len(self.title) + 40,
                                 self.page, other_lines=1, rules=2 + len(self.groups))
        groups = split_rows([len(names) for _, names, _ in self.groups], fitting)
        return [TablePart(columns, group_indices) for columns in split_columns(fixed, widths, _budget(self))
                for group_indices in groups]

    def rows(self) -> list[list[tuple[str, str, list[str]]]]:
        """Per group, per row: (group text or "", row name, formatted values)."""
        return [[(group if i == 0 else "", name, [format_number(v, self.digits) for v in row])
                 for i, (name, row) in enumerate(zip(names, values))]
                for group, names, values in self.groups]


#: Narrowest a paragraph column of a text table is set (printed), whatever the other columns leave.
PARAGRAPH_MIN_PT = 120.0


@dataclass
class TextTable:
    """Rows of ready-made cell texts (e.g. dataset characteristics); the first column names the row
    and is repeated in every part. ``align`` holds one LaTeX alignment letter per column: ``l``, ``c``,
    ``r``, or ``p`` for a paragraph, whose text wraps at the width the part's other columns leave (at
    least :data:`PARAGRAPH_MIN_PT`). ``fit_width``, ``layout``, ``width_pt``, ``height_pt`` and ``page``
    as in :class:`ScoreTable`."""

    title: str
    header: list[str]
    rows: list[list[str]]
    align: str
    caption: str
    label: str
    fit_width: bool = True
    layout: str = "split"
    width_pt: float | None = None
    height_pt: float | None = None
    page: Page = Page()

    def parts(self) -> list[TablePart]:
        """The floats of the table: column parts (indices of the columns after the first) that fit the
        width, shrunk to 7 pt at most with ``fit_width``, each in row parts that fit the page."""
        scale = self.page.table_type_pt / ESTIMATE_TYPE_PT  # printed width of an estimated (8 pt) one
        widths = [PARAGRAPH_MIN_PT / scale + 2 * COLUMN_SEP_PT if self.align[j] == "p" else
                  column_width_pt([self.header[j]] + [row[j] for row in self.rows]) for j in range(len(self.header))]
        columns = [[j + 1 for j in part] for part in split_columns(widths[0], widths[1:], _budget(self))]
        narrowest = {j: min(self.paragraph_width_pt(part) for part in columns if j in part)
                     for j in range(len(self.header)) if self.align[j] == "p"}
        lines = [max([1] + [math.ceil(text_width_pt(row[j]) * scale / width) for j, width in narrowest.items()])
                 for row in self.rows]
        fitting = rows_per_float(_height(self), _width(self), len(self.caption) + len(self.title) + 40,
                                 self.page, other_lines=1)
        return [TablePart(part, rows) for part in columns for rows in split_rows(lines, fitting)]

    def paragraph_width_pt(self, columns: list[int]) -> float:
        """Printed width of a paragraph column in the part of ``columns``: what the first column and the
        others leave of the line (at the tables' type size), at least :data:`PARAGRAPH_MIN_PT`."""
        scale = self.page.table_type_pt / ESTIMATE_TYPE_PT
        others = sum(column_width_pt([self.header[j]] + [row[j] for row in self.rows]) * scale
                     for j in [0, *columns] if self.align[j] != "p")
        paragraphs = sum(self.align[j] == "p" for j in columns)
        return max(PARAGRAPH_MIN_PT, (_width(self) - others) / max(paragraphs, 1) - 2 * COLUMN_SEP_PT)

    def column_spec(self, columns: list[int]) -> str:
        """The ``tabular`` column specification of the part of ``columns`` (the first column ahead)."""
        width = self.paragraph_width_pt(columns)
        return "".join(f"p{{{width:.1f}pt}}" if self.align[j] == "p" else self.align[j] for j in [0, *columns])


@dataclass
class RankTable:
    """Average ranks: one row per method, one column per score, plus omnibus p-value rows.

    ``ranks`` has shape (n_methods, n_scores) with NaN for "not computed"; the lowest rank of each
    column is bold, the second lowest underlined (as printed). ``summary_rows`` maps a row title
    (LaTeX-escaped when rendered) to one p value per column. ``fit_width``, ``layout``,
    ``width_pt`` and ``page`` as in :class:`ScoreTable`.
    """

    row_names: list[str]
    column_names: list[str]
    ranks: np.ndarray
    caption: str
    label: str
    summary_rows: dict[str, list[float | None]] = field(default_factory=dict)
    fit_width: bool = True
    layout: str = "split"
    width_pt: float | None = None
    page: Page = Page()

    def cells(self) -> list[list[tuple[str, str]]]:
        texts = [[format_number(r, 2) for r in row] for row in self.ranks]
        marks = [printed_marks(col, lower_is_better=True) for col in zip(*texts)]
        return [[(t, marks[j][i]) for j, t in enumerate(row)] for i, row in enumerate(texts)]

    def parts(self) -> list[list[int]]:
        """Column indices of each part, each fitting ``width_pt`` (shrunk to 7 pt at most with ``fit_width``)."""
        cells = self.cells()
        widths = [column_width_pt([c, "0.000"], bold=[row[j][0] for row in cells])
                  for j, c in enumerate(self.column_names)]
        fixed = column_width_pt(["Method", *self.row_names, *self.summary_rows])
        return split_columns(fixed, widths, _budget(self))


@dataclass
class StatsRow:
    """The reference against one other method (all numbers already computed).

    ``wilcoxon_method`` is the :class:`~pipeline.stats.signed_rank.SignedRankResult` method:
    ``"asymptotic"`` p values carry the ``approx`` footnote mark.
    """

    method: str
    gain: float
    wins: int
    ties: int
    losses: int
    wilcoxon_p: float
    holm_p: float
    p_better: float | None = None
    wilcoxon_method: str = "exact"
    beyond_bd_cd: bool = False


@dataclass
class StatsBlock:
    """Omnibus and pairwise results for one score."""

    title: str
    lower_is_better: bool
    n_blocks: int
    friedman_chi2: float | None
    friedman_p: float | None
    iman_davenport_f: float | None
    iman_davenport_p: float | None
    nemenyi_cd: float | None
    rows: list[StatsRow]
    bonferroni_dunn_cd: float | None = None


@dataclass
class StatsTable:
    """Several ``StatsBlock``: one table of the omnibus tests, then the comparisons with the
    reference in as many floats as their rows need; ``alpha`` decides the significance mark.

    ``fit_width`` shrinks the tabular to ``\\textwidth`` when it is wider (needs ``graphicx``);
    ``layout``, ``width_pt``, ``height_pt`` and ``page`` as in :class:`ScoreTable`.
    """

    blocks: list[StatsBlock]
    reference: str
    caption: str
    label: str
    alpha: float = 0.05
    cd_alpha: float = 0.05
    bayesian: bool = False
    fit_width: bool = True
    layout: str = "split"
    width_pt: float | None = None
    height_pt: float | None = None
    page: Page = Page()

    def wilcoxon_methods(self) -> set[str]:
        return {r.wilcoxon_method for b in self.blocks for r in b.rows}

    def pairwise_parts(self) -> list[list[StatsBlock]]:
        """The blocks with comparisons, grouped into floats that fit a page with the caption."""
        blocks = [b for b in self.blocks if b.rows]
        max_rows = rows_per_float(_height(self), _width(self), len(self.caption) + PAIRWISE_CAPTION_CHARS,
                                  self.page, other_lines=1)
        return [[blocks[i] for i in group] for group in split_rows([len(b.rows) + 1 for b in blocks], max_rows)
                ] if blocks else []


def check_label(label: str) -> str:
    """Return ``label`` if it is a plain LaTeX label (letters, digits, ``: _ . + -``)."""
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        raise ValueError(f"LaTeX label {label!r} must use letters, digits and : _ . + - only")
    return label


@functools.cache
def _environment():
    """The tables' LaTeX environment with their filters, made once per process: Jinja2 then compiles
    each template on its first use only (compiling took 0.1 s of every table rendered)."""
    env = latex_environment()
    env.filters["label"] = check_label
    env.filters["fnum"] = format_number
    env.filters["fp"] = format_p
    return env


def _float_settings(layout: str) -> dict:
    """Template variables every table shares: its float, placement and type size."""
    return {"float_env": float_environment(layout), "placement": "p" if layout == "landscape" else "tbp",
            "size": TYPE_SIZE, "colsep": f"{COLUMN_SEP_PT:g}"}


def _wilcoxon_note(table: StatsTable, escape, approx_mark: str) -> str:
    """Which null distribution gave the Wilcoxon p values: exact, approximate, or both (marked)."""
    exact = escape("p from the exact null distribution of the signed-rank statistic over all sign "
                   "flips (mid-ranks for ties)")
    approx = escape(f"the normal approximation with the tie correction (more than {EXACT_TEST_NONZERO_CUTOFF} "
                    "nonzero differences)")
    methods = table.wilcoxon_methods()
    if "asymptotic" not in methods:
        return exact
    if "exact" not in methods:
        return escape("p from ") + approx
    return f"{exact}; {approx_mark}{escape(': ')}{approx}"


def render_score_table_latex(table: ScoreTable, template: str = "score_table.tex.j2") -> str:
    """LaTeX (booktabs) source of a score table, one float per part; needs ``booktabs``,
    ``amssymb``, with ``fit_width`` ``graphicx`` and in the landscape layout ``rotating``."""
    env = _environment()
    stacked, parts = table.arrangement()
    return env.get_template(template).render(t=table, cells=table.cells(), parts=parts, stacked=stacked,
                                             baseline=table.baseline_cells(), **_float_settings(table.layout))


def render_stats_table_latex(table: StatsTable, template: str = "stats_table.tex.j2") -> str:
    """LaTeX (booktabs) source of a statistics table; needs ``booktabs`` and ``amssymb``."""
    env = _environment()
    approx = FOOTNOTE_SYMBOLS["approx"][0]
    return env.get_template(template).render(t=table, approx_mark=approx, parts=table.pairwise_parts(),
                                             wilcoxon_note=_wilcoxon_note(table, latex_escape, approx),
                                             **_float_settings(table.layout))


def render_rank_table_latex(table: RankTable, template: str = "rank_table.tex.j2") -> str:
    """LaTeX (booktabs) source of an average-rank table; needs ``booktabs``."""
    env = _environment()
    return env.get_template(template).render(t=table, cells=table.cells(), parts=table.parts(),
                                             **_float_settings(table.layout))


def render_text_table_latex(table: TextTable, template: str = "text_table.tex.j2") -> str:
    """LaTeX (booktabs) source of a text table; cells are escaped; needs ``booktabs``."""
    env = _environment()
    return env.get_template(template).render(t=table, parts=table.parts(), **_float_settings(table.layout))


def render_text_table_markdown(table: TextTable) -> str:
    """The same content as the LaTeX text table, as a GitHub Markdown section."""
    text = f"### {markdown_escape(table.title)}\n\n{markdown_escape(table.caption)}\n\n"
    rows = [[markdown_escape(cell) for cell in row] for row in table.rows]
    return text + _md_table([markdown_escape(h) for h in table.header], rows, ":--") + "\n"


def render_value_table_latex(table: ValueTable, template: str = "value_table.tex.j2") -> str:
    """LaTeX (booktabs) source of a value table; needs ``booktabs``."""
    env = _environment()
    return env.get_template(template).render(t=table, groups=table.rows(), parts=table.parts(),
                                             **_float_settings(table.layout))


def markdown_escape(text: object) -> str:
    """Make ``str(text)`` print literally in Markdown, inline or in a table cell.

    Every character that could open an inline construct (link, image, emphasis, code, raw HTML or
    entity, math, strikethrough) or end a table cell is backslash-escaped; control characters
    (line breaks included) become spaces, so a cell or a list item stays on its line.
    """
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else " " if unicodedata.category(ch) == "Cc" else ch
                   for ch in str(text))


def _md_meanstd(mean: str, std: str | None) -> str:
    return mean if std is None else f"{mean} ± {std}"


def _md_mark(text: str, mark: str) -> str:
    return f"**{text}**" if mark == "best" else f"<u>{text}</u>" if mark == "second" else text


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def render_rank_table_markdown(table: RankTable) -> str:
    """The same content as the LaTeX rank table, as a GitHub Markdown section."""
    header = ["Method"] + [markdown_escape(c) for c in table.column_names]
    rows = [[markdown_escape(name)] + [_md_mark(t, m) for t, m in row]
            for name, row in zip(table.row_names, table.cells())]
    rows += [[markdown_escape(title)] + [format_p(v) for v in values] for title, values in table.summary_rows.items()]
    text = f"### Average ranks\n\n{markdown_escape(table.caption)} Lowest rank in bold, second underlined.\n\n"
    return text + _md_table(header, rows, ":--") + "\n"


def render_score_table_markdown(table: ScoreTable) -> str:
    """The same content as the LaTeX score table, as a GitHub Markdown section."""
    arrow = "↓ lower is better" if table.lower_is_better else "↑ higher is better"
    baseline = table.baseline_cells()
    extra = [] if baseline is None else [markdown_escape(table.baseline_name)]
    header = ["Dataset"] + extra + [markdown_escape(c) for c in table.column_names]
    rows = []
    for i, (name, row) in enumerate(zip(table.row_names, table.cells())):
        rows.append([markdown_escape(name)] + ([] if baseline is None else [_md_meanstd(*baseline[i])]) + [
            _md_mark(_md_meanstd(mean, std), mark) + "".join(f" {n.markdown_mark}" for n in notes)
            for mean, std, mark, notes in row])
    blank = [""] * len(extra)
    if table.avg_ranks is not None:
        rows.append(["Avg. rank"] + blank + [_md_mark(t, m) for t, m in table.rank_cells()])
    if table.win_tie_loss is not None:
        rows.append([f"W/T/L vs {markdown_escape(table.reference)}"] + blank + table.wtl_cells())
    text = (f"### {markdown_escape(table.title)} ({arrow})\n\n{markdown_escape(table.caption)} "
            f"Cells: mean ± sample std (ddof = 1) over {markdown_escape(table.spread_over)}. ")
    text += "Best per row in bold, second underlined, decided on the printed values"
    if baseline is not None:
        text += f"; {markdown_escape(table.baseline_name)}: not ranked or marked"
    if table.win_tie_loss is not None:
        text += (f"; W/T/L vs {markdown_escape(table.reference)}: wins/ties/losses of each method against "
                 f"{markdown_escape(table.reference)} over the datasets")
    text += ".\n\n" + _md_table(header, rows, ":--")
    for note in table.used_notes():
        text += f"\n{note.markdown_mark} {markdown_escape(note.text)}\n"
    return text + "\n"


def render_value_table_markdown(table: ValueTable) -> str:
    """The same content as the LaTeX value table, as a GitHub Markdown section."""
    header = [markdown_escape(table.group_header), markdown_escape(table.row_header)] + [
        markdown_escape(c) for c in table.column_names]
    rows = [[markdown_escape(group), markdown_escape(name), *values]
            for group_rows in table.rows() for group, name, values in group_rows]
    text = f"### {markdown_escape(table.title)}\n\n{markdown_escape(table.caption)}\n\n"
    return text + _md_table(header, rows, ":--") + "\n"


def render_stats_table_markdown(table: StatsTable) -> str:
    """The same content as the LaTeX statistics table, as a GitHub Markdown section."""
    approx = FOOTNOTE_SYMBOLS["approx"][1]
    reference = markdown_escape(table.reference)
    text = (f"### Statistical tests\n\n{markdown_escape(table.caption)} Wilcoxon: "
            f"{_wilcoxon_note(table, markdown_escape, approx)}. CD N / B–D: critical differences of average "
            f"ranks for Nemenyi's test of all pairs and for the Bonferroni–Dunn test against {reference}; "
            f"B–D ✓: the average ranks differ by at least the latter. {reference} W/T/L: its wins/ties/losses "
            "against the compared method.\n\n")
    header = ["Metric", "Friedman χ² (p)", "Iman–Davenport F (p)", f"CD N / B–D (α={table.cd_alpha:g})",
              "Compared", "Gain", f"{markdown_escape(table.reference)} W/T/L", "Wilcoxon p", "Holm p", "Sig.", "B–D"]
    if table.bayesian:
        header.append(f"P({markdown_escape(table.reference)} better)")
    rows = []
    for block in table.blocks:
        arrow = "↓" if block.lower_is_better else "↑"
        omnibus = [f"{markdown_escape(block.title)} {arrow} (N={block.n_blocks})",
                   f"{format_number(block.friedman_chi2, 2)} ({format_p(block.friedman_p)})",
                   f"{format_number(block.iman_davenport_f, 2)} ({format_p(block.iman_davenport_p)})",
                   f"{format_number(block.nemenyi_cd, 2)} / {format_number(block.bonferroni_dunn_cd, 2)}"]
        if not block.rows:
            rows.append(omnibus + [MISSING] + [""] * (len(header) - 5))
        for i, row in enumerate(block.rows):
            cells = (omnibus if i == 0 else [""] * 4) + [
                markdown_escape(row.method), format_number(row.gain), f"{row.wins}/{row.ties}/{row.losses}",
                format_p(row.wilcoxon_p) + (approx if row.wilcoxon_method == "asymptotic" else ""),
                format_p(row.holm_p), "✓" if math.isfinite(row.holm_p) and row.holm_p <= table.alpha else "",
                "✓" if row.beyond_bd_cd else ""]
            if table.bayesian:
                cells.append(format_number(row.p_better, 3))
            rows.append(cells)
    return text + _md_table(header, rows, ":--") + "\n"
