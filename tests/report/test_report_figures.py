"""Figures: PNG + PDF written atomically, literal names, byte-identical reruns."""

import numpy as np

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
