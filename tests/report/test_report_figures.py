"""Figures: PNG + PDF written atomically, literal names, byte-identical reruns."""

import numpy as np
import pytest

from pipeline.report import figures
from pipeline.report.figures import CurvePanel, mpl_escape, plot_cd_diagram, plot_curve_panels

NAMES = ["a$\\frac{$b", "x$y$", "plain"]


def test_curve_panels_write_png_and_pdf_with_literal_names(tmp_path):
    x = np.arange(10, 60, 10.0)
    series = {n: (np.linspace(0.2, 0.5, 5) + i / 10, np.full(5, 0.02)) for i, n in enumerate(NAMES)}
    series["no band"] = (np.linspace(0.1, 0.3, 5), None)
    panels = [CurvePanel("Micro-F1", "y", series), CurvePanel("Hamming", "y", {"plain": (np.ones(5), None)})]
    paths = plot_curve_panels(x, panels, tmp_path / "curves", xlabel="k", suptitle=mpl_escape("$\\x$"))
    assert [p.name for p in paths] == ["curves.png", "curves.pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and paths[1].read_bytes()[:5] == b"%PDF-"
    assert not list(tmp_path.glob(".*.tmp"))


def test_curve_figures_are_byte_identical_across_runs(tmp_path):
    x = np.arange(5.0)
    panels = [CurvePanel("m", "y", {n: (x / 10 + i, x / 100) for i, n in enumerate(NAMES)})]
    first = plot_curve_panels(x, panels, tmp_path / "a", xlabel="k")
    second = plot_curve_panels(x, panels, tmp_path / "b", xlabel="k")
    for p, q in zip(first, second):
        assert p.read_bytes() == q.read_bytes()


def test_cd_diagram_is_deterministic(tmp_path):
    ranks = {n: r for n, r in zip(NAMES + ["d"], [1.2, 2.0, 2.9, 3.9])}
    first = plot_cd_diagram(ranks, 1.1, tmp_path / "a", cliques=[(NAMES[0], NAMES[1]), (NAMES[1], NAMES[2])])
    second = plot_cd_diagram(ranks, 1.1, tmp_path / "b", cliques=[(NAMES[0], NAMES[1]), (NAMES[1], NAMES[2])])
    for p, q in zip(first, second):
        assert p.read_bytes() == q.read_bytes() and p.stat().st_size > 1000


@pytest.mark.parametrize(("n_panels", "n_series"), [(1, 2), (3, 9), (5, 8), (6, 14)])
def test_no_text_of_a_curve_figure_overlaps_its_legend_or_leaves_the_figure(tmp_path, monkeypatch, n_panels,
                                                                             n_series):
    """The x label once printed over the legend (constrained layout gives a figure-level label and a
    figure-level legend the same bottom margin): the legend now has a strip of its own."""
    drawn, saved = [], figures.save_figure
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem, **kwargs: drawn.append(fig) or saved(fig, stem))
    monkeypatch.setattr(figures.plt, "close", lambda fig: None)
    x = np.arange(10, 310, 10.0)
    series = {f"METHOD{i}": (np.linspace(0.2, 0.5, x.size), np.full(x.size, 0.02)) for i in range(n_series)}
    panels = [CurvePanel(f"Dataset {j}", "Micro-F1", series, reference=0.4) for j in range(n_panels)]
    plot_curve_panels(x, panels, tmp_path / "curves", xlabel="number of selected features k", suptitle="Title")
    (fig,) = drawn
    renderer = fig.canvas.get_renderer()
    (legend,) = [legend for part in (fig, *fig.subfigs) for legend in part.legends]
    entries = [text.get_window_extent(renderer) for text in legend.get_texts()]
    assert len(entries) == n_series + 1
    plots = [ax for ax in fig.axes if ax.get_visible()]
    texts = [fig._suptitle, fig._supxlabel, *(part._supxlabel for part in fig.subfigs)] + [
        text for ax in plots for text in (ax.yaxis.label, ax.title, *drawn_tick_labels(ax.xaxis),
                                          *drawn_tick_labels(ax.yaxis))]
    assert any(text is not None and text.get_text() == "number of selected features k" for text in texts)
    texts = [text for text in texts if text is not None]
    inside = fig.bbox.padded(1)  # a pixel of rounding
    for text in texts:
        box = text.get_window_extent(renderer)
        assert not any(box.overlaps(entry) for entry in entries), text.get_text()
        assert all(inside.contains(*corner) for corner in box.corners()), (text.get_text(), box, fig.bbox)


def drawn_tick_labels(axis) -> list:
    """The tick labels ``axis`` prints: those of ticks inside its view limits."""
    low, high = sorted(axis.get_view_interval())
    return [tick.label1 for tick in axis.get_major_ticks() if low <= tick.get_loc() <= high and tick.label1.get_text()]
