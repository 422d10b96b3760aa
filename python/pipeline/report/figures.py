"""Figures with matplotlib's non-interactive Agg backend: curve panels and CD diagrams.

Every figure is written as PNG and PDF, atomically, with the date and software metadata removed so
that the same input gives byte-identical files.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402

from ..fileio import atomic_write_bytes  # noqa: E402

FORMATS = ("png", "pdf")
_METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "8")
LINESTYLES = ("-", "--", "-.", ":")


def mpl_escape(text: object) -> str:
    """Make a data-derived string print literally in matplotlib (no mathtext between ``$``)."""
    return str(text).replace("$", r"\$")


def save_figure(fig, stem: str | Path, *, dpi: int = 120, tight: bool = False) -> list[Path]:
    """Write ``fig`` to ``stem.png`` and ``stem.pdf`` atomically and close it; return the paths.

    ``tight=True`` crops to the drawn content, at the price of one extra draw per format.
    """
    paths = []
    for fmt in FORMATS:
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, dpi=dpi, bbox_inches="tight" if tight else None,
                    metadata=_METADATA[fmt])
        paths.append(atomic_write_bytes(Path(f"{stem}.{fmt}"), buffer.getvalue()))
    plt.close(fig)
    return paths


def series_style(index: int) -> dict:
    """Marker and line style of the ``index``-th series, stable across figures."""
    return {"marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[(index // len(MARKERS)) % len(LINESTYLES)],
            "linewidth": 1.6, "markersize": 4.5}


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


def plot_curve_panels(x, panels: Sequence[CurvePanel], stem: str | Path, *, xlabel: str,
                      suptitle: str | None = None, ncols: int = 3) -> list[Path]:
    """Draw mean lines with +-std bands, one panel per entry, and save PNG + PDF.

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
    """
    x = np.asarray(x, dtype=float)
    nrows = -(-len(panels) // ncols)
    ncols = min(ncols, len(panels))
    n_series = max((len(p.series) for p in panels), default=0)
    legend_rows = -(-n_series // 4)
    height = 3.0 * nrows + 0.35 * legend_rows + 0.9
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, height), squeeze=False)
    # Fixed margins instead of tight_layout: one draw per format keeps regeneration fast.
    fig.subplots_adjust(left=0.08, right=0.98, top=1 - 0.55 / height,
                        bottom=(0.75 + 0.35 * legend_rows) / height, wspace=0.3, hspace=0.45)
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
            line = ax.axhline(panel.reference, color="black", linestyle=(0, (6, 3)), linewidth=1.2)
            handles.setdefault(f"\0{panel.reference_name}", line)
        ax.set_title(panel.title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(panel.ylabel)
        ax.grid(True, alpha=0.3)
    if suptitle:
        fig.suptitle(suptitle)
    fig.legend(list(handles.values()), [mpl_escape(n.lstrip("\0")) for n in handles], loc="lower center",
               ncol=min(4, max(1, len(handles))), frameon=False)
    return save_figure(fig, stem)


def plot_cd_diagram(avg_ranks: Mapping[str, float], cd: float, stem: str | Path, *,
                    cliques: Sequence[Sequence[str]] = (), alpha: float = 0.05,
                    title: str | None = None, control: str | None = None) -> list[Path]:
    """Critical-difference diagram: an axis of average ranks (1 = best, on the left), one label
    per method, the CD bar and a thick line joining each group of methods not significantly
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
    height = 1.4 + 0.32 * half + 0.18 * len(spans)
    fig, ax = plt.subplots(figsize=(7.0, height))
    ax.set_xlim(0.3, k + 0.7)
    ax.set_ylim(height, 0)
    ax.axis("off")
    axis_y = 0.9
    ax.plot([1, k], [axis_y, axis_y], color="black", linewidth=1)
    for tick in np.arange(1, k + 0.01, 0.5):
        size = 0.1 if float(tick).is_integer() else 0.05
        ax.plot([tick, tick], [axis_y - size, axis_y], color="black", linewidth=0.8)
        if float(tick).is_integer():
            ax.text(tick, axis_y - 0.15, f"{int(tick)}", ha="center", va="bottom", fontsize=9)
    ax.plot([1, 1 + cd], [0.35, 0.35], color="black", linewidth=1.4)
    for end in (1, 1 + cd):
        ax.plot([end, end], [0.3, 0.4], color="black", linewidth=1)
    ax.text(1 + cd / 2, 0.28, f"CD = {cd:.3f} ($\\alpha$ = {alpha:g})", ha="center", va="bottom", fontsize=8)
    clique_y = axis_y + 0.18
    for low, high in spans:
        ax.plot([low - 0.03, high + 0.03], [clique_y, clique_y], color="black", linewidth=3)
        clique_y += 0.18
    label_y = clique_y + 0.15
    for i, name in enumerate(names):
        rank = avg_ranks[name]
        left = i < half
        row = i if left else k - 1 - i
        y = label_y + 0.32 * row
        x_text = 0.4 if left else k + 0.6
        ax.plot([rank, rank, x_text + (0.05 if left else -0.05)], [axis_y, y, y],
                color="black", linewidth=0.8)
        ax.text(x_text, y, f"{mpl_escape(name)} ({rank:.2f})", ha="right" if left else "left", va="center",
                fontsize=9, fontweight="bold" if name == control else "normal")
    if title:
        ax.set_title(title, fontsize=10)
    return save_figure(fig, stem, tight=True)
