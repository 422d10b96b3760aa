"""Score, statistics, rank and value tables, rendered to LaTeX (Jinja2 templates) and to Markdown.

The objects here hold what a reader sees: row and column names (raw strings, escaped only when
rendered), means, standard deviations, the direction of the score, summary rows and footnote
marks. They know nothing about where the numbers came from.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..stats.signed_rank import EXACT_MAX_NONZERO
from .latex import latex_environment, latex_escape

TIE_TOLERANCE = 1e-12
MISSING = "--"
_LABEL = re.compile(r"^[A-Za-z0-9:_.+-]+$")
#: Footnote symbols: name -> (LaTeX source, Markdown text).
FOOTNOTE_SYMBOLS = {"dagger": (r"$^\dagger$", "†"), "ddagger": (r"$^\ddagger$", "‡"),
                    "approx": (r"$^{a}$", "ᵃ")}
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
        Shrink the tabular to ``\\textwidth`` when it is wider (needs ``graphicx``).
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


    def cells(self) -> list[list[tuple[str, str | None, str, list[CellNote]]]]:
        """Per row, per column: (mean text, std text or None if missing, mark, footnotes)."""
        out = []
        for i, row in enumerate(self.means):
            marks = cell_marks(row, lower_is_better=self.lower_is_better)
            out.append([self._cell(i, j, marks[j]) for j in range(row.size)])
        return out

    def _cell(self, i: int, j: int, mark: str) -> tuple[str, str | None, str, list[CellNote]]:
        mean, std = self.means[i, j], self.stds[i, j]
        decimals = significant_decimals(mean, self.digits) if self.significant else self.digits
        std_text = None if not math.isfinite(mean) else format_number(std, decimals)
        return format_number(mean, decimals), std_text, mark, [n for n in self.notes if (i, j) in n.cells]

    def used_notes(self) -> list[CellNote]:
        """The notes that mark at least one cell, in order."""
        return [n for n in self.notes if n.cells]

    def rank_cells(self) -> list[tuple[str, str]]:
        """Average-rank row: (text, mark), best = lowest rank."""
        marks = cell_marks(self.avg_ranks, lower_is_better=True)
        return [(format_number(r, 2), m) for r, m in zip(self.avg_ranks, marks)]

    def wtl_cells(self) -> list[str]:
        """Win/tie/loss row of the reference against each column (``--`` for the reference)."""
        return ["/".join(map(str, self.win_tie_loss[c])) if c in self.win_tie_loss else MISSING
                for c in self.column_names]


@dataclass
class ValueTable:
    """Plain numbers (no marks, no summary rows) in groups of rows, e.g. a spread per method.

    ``groups`` holds (group name, row names, values of shape (n_rows, n_columns)); the group name
    is printed on the first row of its group, NaN as ``--``. ``fit_width`` as in ScoreTable.
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

    def rows(self) -> list[list[tuple[str, str, list[str]]]]:
        """Per group, per row: (group text or "", row name, formatted values)."""
        return [[(group if i == 0 else "", name, [format_number(v, self.digits) for v in row])
                 for i, (name, row) in enumerate(zip(names, values))]
                for group, names, values in self.groups]


@dataclass
class RankTable:
    """Average ranks: one row per method, one column per score, plus omnibus p-value rows.

    ``ranks`` has shape (n_methods, n_scores) with NaN for "not computed"; the lowest rank of each
    column is bold, the second lowest underlined. ``summary_rows`` maps a row title (LaTeX-escaped
    when rendered) to one p value per column. ``fit_width`` as in :class:`ScoreTable`.
    """

    row_names: list[str]
    column_names: list[str]
    ranks: np.ndarray
    caption: str
    label: str
    summary_rows: dict[str, list[float | None]] = field(default_factory=dict)
    fit_width: bool = True

    def cells(self) -> list[list[tuple[str, str]]]:
        marks = [cell_marks(col, lower_is_better=True) for col in self.ranks.T]
        return [[(format_number(r, 2), marks[j][i]) for j, r in enumerate(row)]
                for i, row in enumerate(self.ranks)]


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


@dataclass
class StatsTable:
    """Several ``StatsBlock`` in one table; ``alpha`` decides the significance mark.

    ``fit_width`` shrinks the tabular to ``\\textwidth`` when it is wider (needs ``graphicx``).
    """

    blocks: list[StatsBlock]
    reference: str
    caption: str
    label: str
    alpha: float = 0.05
    cd_alpha: float = 0.05
    bayesian: bool = False
    fit_width: bool = True

    def wilcoxon_methods(self) -> set[str]:
        return {r.wilcoxon_method for b in self.blocks for r in b.rows}


def check_label(label: str) -> str:
    """Return ``label`` if it is a plain LaTeX label (letters, digits, ``: _ . + -``)."""
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        raise ValueError(f"LaTeX label {label!r} must use letters, digits and : _ . + - only")
    return label


def _latex_filters(env):
    env.filters["label"] = check_label
    env.filters["fnum"] = format_number
    env.filters["fp"] = format_p
    return env


def _wilcoxon_note(table: StatsTable, escape, approx_mark: str) -> str:
    """Which null distribution gave the Wilcoxon p values: exact, approximate, or both (marked)."""
    exact = escape("p from the exact null distribution of the signed-rank statistic over all sign "
                   "flips (mid-ranks for ties)")
    approx = escape(f"the normal approximation with the tie correction (more than {EXACT_MAX_NONZERO} "
                    "nonzero differences)")
    methods = table.wilcoxon_methods()
    if "asymptotic" not in methods:
        return exact
    if "exact" not in methods:
        return escape("p from ") + approx
    return f"{exact}; {approx_mark}{escape(': ')}{approx}"


def render_score_table_latex(table: ScoreTable, template: str = "score_table.tex.j2") -> str:
    """LaTeX (booktabs) source of a score table; needs ``booktabs``, ``amssymb`` and, with
    ``fit_width``, ``graphicx``."""
    env = _latex_filters(latex_environment())
    return env.get_template(template).render(t=table, cells=table.cells())


def render_stats_table_latex(table: StatsTable, template: str = "stats_table.tex.j2") -> str:
    """LaTeX (booktabs) source of a statistics table; needs ``booktabs`` and ``amssymb``."""
    env = _latex_filters(latex_environment())
    approx = FOOTNOTE_SYMBOLS["approx"][0]
    return env.get_template(template).render(t=table, approx_mark=approx,
                                             wilcoxon_note=_wilcoxon_note(table, latex_escape, approx))


def render_rank_table_latex(table: RankTable, template: str = "rank_table.tex.j2") -> str:
    """LaTeX (booktabs) source of an average-rank table; needs ``booktabs``."""
    env = _latex_filters(latex_environment())
    return env.get_template(template).render(t=table, cells=table.cells())


def render_value_table_latex(table: ValueTable, template: str = "value_table.tex.j2") -> str:
    """LaTeX (booktabs) source of a value table; needs ``booktabs``."""
    env = _latex_filters(latex_environment())
    return env.get_template(template).render(t=table, groups=table.rows())


def markdown_escape(text: object) -> str:
    """Make ``str(text)`` print literally in Markdown, inline or in a table cell.

    Every character that could open an inline construct (link, image, emphasis, code, raw HTML or
    entity, math, strikethrough) or end a table cell is backslash-escaped; control characters
    (line breaks included) become spaces, so a cell or a list item stays on its line.
    """
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else " " if unicodedata.category(ch) == "Cc" else ch
                   for ch in str(text))


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
    header = ["Dataset"] + [markdown_escape(c) for c in table.column_names]
    rows = []
    for name, row in zip(table.row_names, table.cells()):
        rows.append([markdown_escape(name)] + [
            _md_mark(mean if std is None else f"{mean} ± {std}", mark) + "".join(f" {n.markdown_mark}" for n in notes)
            for mean, std, mark, notes in row])
    if table.avg_ranks is not None:
        rows.append(["Avg. rank"] + [_md_mark(t, m) for t, m in table.rank_cells()])
    if table.win_tie_loss is not None:
        rows.append([f"W/T/L vs {markdown_escape(table.reference)}"] + table.wtl_cells())
    text = (f"### {markdown_escape(table.title)} ({arrow})\n\n{markdown_escape(table.caption)} "
            f"Cells: mean ± sample std (ddof = 1) over {markdown_escape(table.spread_over)}. ")
    text += "Best per row in bold, second underlined.\n\n" + _md_table(header, rows, ":--")
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
    text = (f"### Statistical tests\n\n{markdown_escape(table.caption)} Wilcoxon: "
            f"{_wilcoxon_note(table, markdown_escape, approx)}.\n\n")
    header = ["Metric", "Friedman χ² (p)", "Iman–Davenport F (p)", f"CD (α={table.cd_alpha:g})",
              "Compared", "Gain", "W/T/L", "Wilcoxon p", "Holm p", "Sig."]
    if table.bayesian:
        header.append(f"P({markdown_escape(table.reference)} better)")
    rows = []
    for block in table.blocks:
        arrow = "↓" if block.lower_is_better else "↑"
        omnibus = [f"{markdown_escape(block.title)} {arrow} (N={block.n_blocks})",
                   f"{format_number(block.friedman_chi2, 2)} ({format_p(block.friedman_p)})",
                   f"{format_number(block.iman_davenport_f, 2)} ({format_p(block.iman_davenport_p)})",
                   format_number(block.nemenyi_cd, 3)]
        if not block.rows:
            rows.append(omnibus + [MISSING] + [""] * (len(header) - 5))
        for i, row in enumerate(block.rows):
            cells = (omnibus if i == 0 else [""] * 4) + [
                markdown_escape(row.method), format_number(row.gain), f"{row.wins}/{row.ties}/{row.losses}",
                format_p(row.wilcoxon_p) + (approx if row.wilcoxon_method == "asymptotic" else ""),
                format_p(row.holm_p), "✓" if math.isfinite(row.holm_p) and row.holm_p <= table.alpha else ""]
            if table.bayesian:
                cells.append(format_number(row.p_better, 3))
            rows.append(cells)
    return text + _md_table(header, rows, ":--") + "\n"
