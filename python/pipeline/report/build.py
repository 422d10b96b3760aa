"""``build_report``: the benchmark report of one results folder, the one way every front door makes it.

``python -m pipeline.tables``, :mod:`pipeline.report_api` and ``pipeline.paper run`` each turn
their input into :class:`~.options.ReportOptions` and call :func:`build_report`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import aggregate as agg
from .explorer import ExplorerExtras
from .job import TableJob
from .options import ReportOptions


@dataclass(frozen=True)
class ReportPart:
    """One folder of outputs: every result, or (``--separate-settings``) the results of one settings group."""

    out_dir: str
    written: list[Path]
    settings: object | None = None  # the group's settings, when results were separated by them

    def describe(self) -> str:
        """``wrote 24 files to OUT_DIR`` (with the settings group when there is one)."""
        where = self.out_dir if self.settings is None else f"{self.out_dir} ({self.settings})"
        return f"wrote {len(self.written)} files to {where}"


def build_report(options: ReportOptions, on_part: Callable[[ReportPart], None] | None = None, *,
                 explorer: ExplorerExtras | None = None) -> list[ReportPart]:
    """Write the report of ``options`` (tables, statistics, report.md, figures, main.tex and, with
    ``explorer``, the results explorer ``explorer_<grid>.html``); return
    what went where, each part also given to ``on_part`` as soon as it is written (so a later
    group's failure does not hide what was written before it). Results made with different settings
    are refused unless ``options.separate_settings``, which gives each settings group its own
    ``settings<i>`` folder (or ``out_dir`` itself when there is one group)."""
    def done(part: ReportPart) -> ReportPart:
        if on_part is not None:
            on_part(part)
        return part

    if not options.separate_settings:
        return [done(ReportPart(options.out_dir, TableJob(options).write(explorer)))]
    methods = options.methods or agg.list_methods(options.results_dir, options.grid)
    loaded = agg.load_results(options.results_dir, methods, options.grid, datasets=options.datasets,
                              n_folds=options.folds, separate_settings=True)
    groups = loaded.settings_groups()
    parts = []
    for i, settings in enumerate(groups, start=1):
        out_dir = options.out_dir if len(groups) == 1 else str(Path(options.out_dir) / f"settings{i}")
        written = TableJob(options.with_out_dir(out_dir), loaded.restricted_to(settings)).write(explorer)
        parts.append(done(ReportPart(out_dir, written, settings)))
    return parts


def draw_figures(options: ReportOptions) -> list[Path]:
    """Only the curve and CD figures of ``options`` (PNG + PDF under ``out_dir/figures``)."""
    return TableJob(options).figures()


def write_explorer_page(options: ReportOptions, extras: ExplorerExtras) -> Path:
    """Only the results explorer of ``options`` (``out_dir/explorer_<grid>.html``)."""
    return TableJob(options).explorer(extras)
