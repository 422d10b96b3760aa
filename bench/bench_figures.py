"""Time of a report's figures as shipped against two previous ways: the previous face (DejaVu Sans)
and the previous measure of a label's width (the extents of its glyphs' outlines).

A report draws, per grid, a curve figure per dataset and their mean and two CD diagrams per metric;
each is written as PNG and PDF, and each PDF embeds a subset of every font it uses (TrueType, as
publishers require). DejaVu Sans's subsets, with its large glyph-positioning table, take about three
times as long to make as STIX's. The legend and the CD diagram measure their labels to lay them out
(:func:`pipeline.report.figures.text_inches`): from FreeType's metrics now, from the outlines of the
glyphs before (25 ms a label). This script draws the figures of a study of :data:`N_DATASETS`
datasets x :data:`N_METHODS` methods as shipped, with the previous face and with the previous width
measure, taking turns in each repetition, and records the seconds of each set with the two previous
ways as peers. The figures go to bench/results.json.

    python bench/bench_figures.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import numpy as np
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath

from pipeline.cli import run_main
from pipeline.report import figures
from pipeline.report.layout import MIN_TYPE_PT
from record import BenchRun, Measurement

N_DATASETS = 6
N_METHODS = 8
METRICS = ("micro_f1", "macro_f1", "hamming_loss")
PREVIOUS_FACE = {"font.family": "DejaVu Sans", "mathtext.fontset": "dejavusans"}
WORKLOAD = (f"{N_DATASETS + 1} curve figures ({N_DATASETS} datasets and their mean, {len(METRICS)} panels, "
            f"{N_METHODS} methods) + {2 * len(METRICS)} CD diagrams, PNG + PDF")


def draw_report_figures(out: Path) -> None:
    """The figures one grid of a report draws for the study (synthetic curves and ranks)."""
    rng = np.random.default_rng(0)
    x = np.arange(10, 310, 10.0)
    methods = [f"METHOD{i}" for i in range(N_METHODS)]
    for index in range(N_DATASETS + 1):
        panels = [figures.CurvePanel(metric, "score", {m: (np.sort(rng.random(x.size)), np.full(x.size, 0.02))
                                                       for m in methods}, reference=0.5) for metric in METRICS]
        figures.plot_curve_panels(x, panels, out / f"curves_{index}", xlabel="number of selected features k",
                                  suptitle=f"Dataset {index}")
    for metric in METRICS:
        ranks = dict(zip(methods, np.linspace(1.5, N_METHODS - 0.5, N_METHODS)))
        figures.plot_cd_diagram(ranks, 1.8, out / f"cd_{metric}", cliques=[methods[:3], methods[2:6]])
        figures.plot_cd_diagram(ranks, 1.8, out / f"cd_bd_{metric}", control=methods[0])


def outline_inches(text: str, size_pt: float = MIN_TYPE_PT, *, bold: bool = False) -> float:
    """The previous width measure: the extents of the glyphs' outlines."""
    font = FontProperties(size=size_pt, weight="bold" if bold else "normal")
    return figures.inches(TextPath((0, 0), text, prop=font).get_extents().width)


def seconds(out: Path, style: dict | None = None, text_inches=figures.text_inches) -> float:
    started = time.perf_counter()
    with mock.patch.dict(figures.STYLE, style or {}), mock.patch.object(figures, "text_inches", text_inches):
        draw_report_figures(out)
    return time.perf_counter() - started


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="rounds of both sets (default 3)")
    args = parser.parse_args(argv)
    with BenchRun(__file__) as run, tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        seconds(out)  # imports, font caches
        shipped, previous_face, previous_widths = [], [], []
        for _ in range(args.repeats):
            shipped.append(seconds(out))
            previous_face.append(seconds(out, PREVIOUS_FACE))
            previous_widths.append(seconds(out, text_inches=outline_inches))
        run.figure(f"a report's figures as shipped (STIX, label widths from the font's metrics), {WORKLOAD}",
                   Measurement(tuple(shipped)), "s",
                   peers={"the same figures in DejaVu Sans (the previous face)": Measurement(tuple(previous_face)),
                          "the same figures, label widths from the glyphs' outlines (the previous measure)":
                              Measurement(tuple(previous_widths))})


if __name__ == "__main__":
    sys.exit(run_main(main))
