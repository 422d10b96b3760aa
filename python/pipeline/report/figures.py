"""Figures with matplotlib's non-interactive Agg backend: curve panels and CD diagrams.

Every figure is written as PNG and PDF, atomically, with the date and software metadata removed so
that the same input gives byte-identical files. Figures are drawn at the width they are printed at
(:data:`~pipeline.report.layout.TEXT_WIDTH_PT`), so the type sizes of :data:`STYLE` are the printed
ones, none below :data:`~pipeline.report.layout.MIN_TYPE_PT`; the PDF embeds its fonts as TrueType
(Type 42), which publishers accept, where matplotlib's default Type 3 fonts are refused.
"""

from __future__ import annotations

import functools
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402

from ..fileio import atomic_write_bytes  # noqa: E402
from .layout import MIN_TYPE_PT, TEXT_WIDTH_PT  # noqa: E402

FORMATS = ("png", "pdf")
_METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "8")
LINESTYLES = ("-", "--", "-.", ":")
POINTS_PER_INCH = 72.27
#: The type of every figure (printed sizes, in pt), its face and its embedding: the one place they are set.
#: STIX (shipped with matplotlib) is a Times face, the body type of most venues; each PDF embeds a subset of
#: every font it uses, and STIX's subsets are made about 3x faster than DejaVu Sans's (whose glyph-positioning
#: table is much larger): a report's figures take 1.1-1.3x less time (bench/bench_figures.py).
STYLE = {"font.family": "STIXGeneral", "mathtext.fontset": "stix", "pdf.fonttype": 42, "ps.fonttype": 42,
         "font.size": 8.0, "axes.titlesize": 8.0, "axes.labelsize": 8.0,
         "xtick.labelsize": MIN_TYPE_PT, "ytick.labelsize": MIN_TYPE_PT, "legend.fontsize": MIN_TYPE_PT,
         "figure.titlesize": 8.0, "axes.linewidth": 0.6, "lines.linewidth": 1.0, "lines.markersize": 3.0}


def inches(points: float) -> float:
    return points / POINTS_PER_INCH


def text_inches(text: str, size_pt: float = MIN_TYPE_PT, *, bold: bool = False) -> float:
    """Width of ``text`` set in the figures' type, without mathtext: the box FreeType lays the string out
    in. Read from the font's metrics, it takes 0.5 ms where the extents of the glyphs' outlines took 25 ms
    (a CD diagram measures every label: 0.5 s of a 21-method diagram)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    font = FontProperties(size=size_pt, weight="bold" if bold else "normal")
    return inches(text_to_path.get_text_width_height_descent(text, font, ismath=False)[0])


def log_scale(ax, which: str) -> None:
    """A logarithmic ``which`` axis (``"x"``, ``"y"``) of ``ax`` labelled in plain numbers (``100``, ``1e+06``):
    the default labels' exponents are superscripts at 70 % of the tick size, below the smallest type."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    getattr(ax, f"set_{which}scale")("log")
    axis = getattr(ax, f"{which}axis")
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def publication_style(draw):
    """Run the figure function ``draw`` (which saves its figure) with :data:`STYLE`."""
    @functools.wraps(draw)
    def styled(*args, **kwargs):
        with plt.rc_context(STYLE):
            return draw(*args, **kwargs)
    return styled


def mpl_escape(text: object) -> str:
    """Make a data-derived string print literally in matplotlib (no mathtext between ``$``)."""
    return str(text).replace("$", r"\$")


def save_figure(fig, stem: str | Path, *, dpi: int = 120) -> list[Path]:
    """Write ``fig`` to ``stem.png`` and ``stem.pdf`` atomically, at its own size, and close it; return the paths.

    The layout (constrained layout: a sixth of a curve figure's time) is computed once, for the first
    format, and kept for the other: both print the same figure."""
    paths = []
    for fmt in FORMATS:
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, dpi=dpi, metadata=_METADATA[fmt])
        paths.append(atomic_write_bytes(Path(f"{stem}.{fmt}"), buffer.getvalue()))
        fig.set_layout_engine("none")
    plt.close(fig)
    return paths


def series_style(index: int) -> dict:
    """Marker and line style of the ``index``-th series, stable across figures."""
    return {"marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[(index // len(MARKERS)) % len(LINESTYLES)]}


@dataclass
class CurvePanel:
    """One subplot: several series over the same x values.

    ``series`` maps a legend name to ``(mean, std)``, two arrays of shape (len(x),); ``std`` may be
    None (no band). NaN points are not drawn. ``reference`` (e.g. the score with all features) is
    drawn as a horizontal line labelled ``reference_name``.
    """

    title: str
    ylabel: str
    series: dict[str, tuple[np.ndarray, np.ndarray | None]] = field(default_factory=dict)
    reference: float | None = None
    reference_name: str = "All features"


def legend_columns(names: Sequence[str], width_in: float) -> int:
    """Legend entries per row that fit ``width_in`` (an entry: its marker and line, then the name)."""
    entry = max((text_inches(n) for n in names), default=0.0) + inches(30)
    return max(1, min(len(names), int(width_in // entry)))


@publication_style
def plot_curve_panels(x, panels: Sequence[CurvePanel], stem: str | Path, *, xlabel: str,
                      suptitle: str | None = None, ncols: int = 3,
                      width_in: float = inches(TEXT_WIDTH_PT[1])) -> list[Path]:
    """Draw mean lines with +-std bands, one panel per entry, and save PNG + PDF ``width_in`` wide.

    Series names are printed literally; ``title``, ``ylabel``, ``xlabel`` and ``suptitle`` are
    matplotlib text (pass data-derived parts through :func:`mpl_escape`).

    Parameters
    ----------
    x : array-like, shape (n_points,)
    panels : sequence of CurvePanel
    stem : path without extension
    xlabel : str
    suptitle : str, optional
    ncols : int
        Panels per row.
    width_in : float
        Printed width in inches (the text width of the document).
    """
    x = np.asarray(x, dtype=float)
    ncols = min(ncols, len(panels))
    nrows = -(-len(panels) // ncols)
    names = [mpl_escape(n) for n in dict.fromkeys(n for p in panels for n in p.series)]
    names += [mpl_escape(p.reference_name) for p in panels if p.reference is not None][:1]
    legend_rows = -(-len(names) // legend_columns(names, width_in)) if names else 0
    # The legend has a strip of its own below the panels (a row of 7 pt type with its spacing is 10.5 pt): a
    # figure-level legend and x label would share one bottom margin, and the label would print over the legend.
    legend_height = inches(11 * legend_rows + 6) if legend_rows else 0.0
    height = nrows * 0.8 * width_in / ncols + inches(10) + legend_height + inches(14) * bool(suptitle)
    # constrained layout fits the labels inside the figure: its size is the printed size
    fig = plt.figure(figsize=(width_in, height), layout="constrained")
    if legend_rows:
        plots, strip = fig.subfigures(2, 1, height_ratios=[height - legend_height, legend_height])
    else:
        plots, strip = fig, None
    axes = plots.subplots(nrows, ncols, squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    handles = {}
    for ax, panel in zip(axes.flat, panels):
        for index, (name, (mean, std)) in enumerate(panel.series.items()):
            (line,) = ax.plot(x, mean, label=mpl_escape(name), **series_style(index))
            handles.setdefault(name, line)
            if std is not None:
                ax.fill_between(x, np.asarray(mean) - std, np.asarray(mean) + std,
                                color=line.get_color(), alpha=0.15, linewidth=0)
        if panel.reference is not None and np.isfinite(panel.reference):
            line = ax.axhline(panel.reference, color="black", linestyle=(0, (6, 3)), linewidth=1.0)
            handles.setdefault(f"\0{panel.reference_name}", line)
        ax.set_title(panel.title)
        ax.set_ylabel(panel.ylabel)
        ax.grid(True, alpha=0.3)
    plots.supxlabel(xlabel, fontsize=STYLE["axes.labelsize"])  # once: the panels share the x axis
    if suptitle:
        fig.suptitle(suptitle)
    labels = [mpl_escape(n.lstrip("\0")) for n in handles]
    if handles:
        strip.legend(list(handles.values()), labels, loc="center", ncol=legend_columns(labels, width_in),
                     frameon=False)
    return save_figure(fig, stem)


@publication_style
def plot_cd_diagram(avg_ranks: Mapping[str, float], cd: float, stem: str | Path, *,
                    cliques: Sequence[Sequence[str]] = (), alpha: float = 0.05,
                    title: str | None = None, control: str | None = None,
                    width_in: float = inches(TEXT_WIDTH_PT[1])) -> list[Path]:
    """Critical-difference diagram ``width_in`` wide: an axis of average ranks (1 = best, on the left),
    one label per method, the CD bar and a thick line joining each group of methods not significantly
    different (Nemenyi). With ``control`` (Bonferroni–Dunn), a thick line spans the control's
    rank ± CD instead: methods outside it differ significantly from the control, whose label is bold.

    Parameters
    ----------
    avg_ranks : mapping name -> average rank
    cd : float
        Critical difference at level ``alpha``.
    stem : path without extension
    cliques : groups of names (see :func:`pipeline.stats.nemenyi.cd_cliques`)
    """
    names = sorted(avg_ranks, key=lambda n: (avg_ranks[n], n))
    k = len(names)
    half = (k + 1) // 2
    spans = [(avg_ranks[g[0]], avg_ranks[g[-1]]) for g in cliques]
    if control is not None:
        centre = avg_ranks[control]
        spans = [(max(1.0, centre - cd), min(float(k), centre + cd))]
    labels = {name: f"{mpl_escape(name)} ({avg_ranks[name]:.2f})" for name in names}
    # Inches on both sides for the labels (the control's in bold); the ranks 1..k share the rest.
    margin = max(text_inches(t, STYLE["font.size"], bold=name == control) for name, t in labels.items()) + 0.15
    per_rank = max(width_in - 2 * margin, 0.5) / max(k - 1, 1)
    tick_step = math.ceil(inches(2.5 * MIN_TYPE_PT) / per_rank)  # rank numbers at least two digits apart
    row = inches(11)  # one label line of 8 pt type
    top = inches(14) * bool(title)
    axis_y = top + 0.55
    label_y = axis_y + 0.1 + 0.1 * (len(spans) + 1)
    height = label_y + row * half + 0.1
    fig = plt.figure(figsize=(width_in, height))
    ax = fig.add_axes((0, 0, 1, 1))  # one data unit across is ``per_rank`` inches, one down is an inch
    ax.set_xlim(1 - margin / per_rank, 1 + (width_in - margin) / per_rank)
    ax.set_ylim(height, 0)
    ax.axis("off")
    ax.plot([1, k], [axis_y, axis_y], color="black", linewidth=0.8)
    for tick in np.arange(1, k + 0.01, 0.5):
        size = 0.07 if float(tick).is_integer() else 0.035
        ax.plot([tick, tick], [axis_y - size, axis_y], color="black", linewidth=0.6)
        if float(tick).is_integer() and (tick - 1) % tick_step == 0:
            ax.text(tick, axis_y - 0.09, f"{int(tick)}", ha="center", va="bottom", fontsize=MIN_TYPE_PT)
    bar_y = top + 0.25
    ax.plot([1, 1 + cd], [bar_y, bar_y], color="black", linewidth=1.0)
    for end in (1, 1 + cd):
        ax.plot([end, end], [bar_y - 0.04, bar_y + 0.04], color="black", linewidth=0.8)
    ax.text(1 + cd / 2, bar_y - 0.05, f"CD = {cd:.3f} ($\\alpha$ = {alpha:g})", ha="center", va="bottom")
    clique_y = axis_y + 0.1
    for low, high in spans:
        ax.plot([low - 0.03, high + 0.03], [clique_y, clique_y], color="black", linewidth=2.5)
        clique_y += 0.1
    gap = 0.05 / per_rank
    for i, name in enumerate(names):
        left = i < half
        y = label_y + row * (i if left else k - 1 - i)
        x_text = 1 - 2 * gap if left else k + 2 * gap
        ax.plot([avg_ranks[name], avg_ranks[name], x_text + (gap if left else -gap)], [axis_y, y, y],
                color="black", linewidth=0.6)
        ax.text(x_text, y, labels[name], ha="right" if left else "left", va="center",
                fontweight="bold" if name == control else "normal")
    if title:
        ax.text((1 + k) / 2, 0.04, title, ha="center", va="top")
    return save_figure(fig, stem)
