"""Tables and figures of hyperparameter selection (docs/tuning.md); the data come from
:mod:`pipeline.paper.parameters`, which reads the results folder.

- ``parameter_selection.md`` / ``.tex``: per method, how its parameters were chosen;
- ``chosen_parameters.md`` / ``.tex``: per dataset and tuned parameter, the most frequent chosen value
  over the outer folds with its count;
- ``sensitivity_<METHOD>_<DATASET>.png/.pdf``: the inner criterion over the candidate grid, a curve
  for one tuned parameter, a heat map for two (with more, the best value over the others);
- ``convergence_<DATASET>.png/.pdf``: objective traces, a panel per method, a line per fold.

Names are escaped for LaTeX, Markdown and matplotlib.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from ..fileio import atomic_write_text
from .figures import inches, log_scale, mpl_escape, publication_style, save_figure, series_style
from .layout import COLUMN_WIDTH_PT, TEXT_WIDTH_PT, Page
from .tables import TextTable, markdown_escape, render_text_table_latex

SELECTION_CAPTION = ("Inner-split tuning uses the outer training part only; a test-set sweep picks on the data it "
                     "is scored on, so its scores are optimistic.")
CHOSEN_CAPTION = ("Parameters chosen by inner-split validation: the most frequent value over the outer folds, "
                  "with the number of folds that chose it.")


def write_table(out_dir: Path, stem: str, title: str, caption: str, header: list[str], rows: list[list[str]], *,
                align: str, page: Page) -> list[Path]:
    """``<stem>.md`` and ``<stem>.tex`` of a table of text cells (``align``: a letter per column, as
    :class:`~pipeline.report.tables.TextTable` takes them), the LaTeX laid out as the result tables are
    for ``page``: shrunk to 7 pt at most, else split into parts."""
    lines = [f"### {title}", "", markdown_escape(caption), "",
             "| " + " | ".join(markdown_escape(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in rows]
    table = TextTable(title, header, rows, align, caption, f"tab:{stem.replace('_', '-')}", page=page)
    return [atomic_write_text(out_dir / f"{stem}.md", "\n".join(lines) + "\n"),
            atomic_write_text(out_dir / f"{stem}.tex", render_text_table_latex(table))]


#: Panels per row of a convergence figure.
CONVERGENCE_COLUMNS = 3


@publication_style
def sensitivity_figure(stem: Path, title: str, names: list[str], candidates: list[dict], scores: np.ndarray,
                       label: str, higher_is_better: bool, *, width_in: float = inches(COLUMN_WIDTH_PT[1])
                       ) -> list[Path]:
    """The criterion ``scores`` (one per candidate, in the order of ``candidates``) over the grid, drawn
    ``width_in`` wide (a column of the document)."""
    size = (width_in, 0.7 * width_in)
    if len(names) == 1:
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        values = [c[names[0]] for c in candidates]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            order = np.argsort(values, kind="stable")
            ax.plot(np.asarray(values, dtype=float)[order], scores[order], **series_style(0))
            if min(values) > 0 and max(values) / min(values) >= 100:
                log_scale(ax, "x")
        else:
            ax.plot(range(len(values)), scores, **series_style(0))
            ax.set_xticks(range(len(values)), [mpl_escape(v) for v in values])
        ax.set_xlabel(mpl_escape(names[0]))
        ax.set_ylabel(mpl_escape(label))
    else:
        rows, cols = _levels(candidates, names[0]), _levels(candidates, names[1])
        grid = np.full((len(rows), len(cols)), np.nan)
        for candidate, value in zip(candidates, scores):
            i, j = rows.index(level(candidate[names[0]])), cols.index(level(candidate[names[1]]))
            if not math.isnan(value) and (math.isnan(grid[i, j]) or (value > grid[i, j]) == higher_is_better):
                grid[i, j] = value  # with more than two tuned parameters: the best over the others
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        image = ax.imshow(grid, cmap="viridis" if higher_is_better else "viridis_r", aspect="auto", origin="lower")
        ax.set_yticks(range(len(rows)), [mpl_escape(r) for r in rows])
        ax.set_xticks(range(len(cols)), [mpl_escape(c) for c in cols])
        ax.set_ylabel(mpl_escape(names[0]))
        ax.set_xlabel(mpl_escape(names[1]))
        fig.colorbar(image, ax=ax).set_label(mpl_escape(label))
        if len(names) > 2:
            title += f" (best over {', '.join(names[2:])})"
    ax.set_title(mpl_escape(title))
    return save_figure(fig, stem)


@publication_style
def convergence_figure(stem: Path, title: str, traces: dict[str, list[np.ndarray]], *,
                       width_in: float = inches(TEXT_WIDTH_PT[1])) -> list[Path]:
    """Objective per iteration: one panel per method (``traces`` keys), one line per fold, in rows of
    :data:`CONVERGENCE_COLUMNS` panels ``width_in`` wide (the text width)."""
    ncols = min(CONVERGENCE_COLUMNS, len(traces))
    nrows = -(-len(traces) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width_in, nrows * 0.75 * width_in / ncols + inches(14)),
                             squeeze=False, layout="constrained")
    for ax in axes.flat[len(traces):]:
        ax.set_visible(False)
    for ax, (method, lines) in zip(axes.flat, traces.items()):
        for fold, trace in enumerate(lines):
            ax.plot(np.arange(1, trace.size + 1), trace, label=f"fold {fold}", **series_style(fold))
        if all(np.nanmin(t) > 0 for t in lines):
            log_scale(ax, "y")
        ax.set_title(mpl_escape(method))
        ax.set_xlabel("iteration")
    for row in axes:
        row[0].set_ylabel("objective")
    axes[0][0].legend()
    fig.suptitle(mpl_escape(title))
    return save_figure(fig, stem)


def level(value) -> str:
    """A parameter value as a table cell or an axis label (floats in their shortest form)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _levels(candidates: list[dict], name: str) -> list[str]:
    def order(text: str):
        try:
            return (0, float(text), text)
        except ValueError:
            return (1, 0.0, text)
    return sorted({level(c[name]) for c in candidates}, key=order)
