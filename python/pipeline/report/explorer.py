"""The results explorer: one self-contained HTML page per results folder and grid.

Opened from disk, with no server and no network: Plotly's bundled ``plotly.min.js``, the styles,
the data and the CSV download are all inside the file (``explorer_<grid>.html``). It shows the
curves over k or p per dataset with a metric selector (Plotly's legend hides a method on a click
and isolates it on a double click), the score tables with the marks of the LaTeX tables (the same
:class:`~.tables.ScoreTable` objects, sortable by any column), the average ranks and a
critical-difference chart per metric, the tuning report when the caller gives one, every outcome
that is not a number (failed tasks, missing folds, degenerate selections, notes) and the
provenance of the results (run records, code fingerprints, versions, the commands).

Every name reaches the page through Jinja2's HTML autoescape or inside a ``<script
type="application/json">`` block with ``<``, ``>`` and ``&`` escaped, so no method, dataset or
display name can add markup. The page is at most :data:`MAX_EXPLORER_PAGE_BYTES`.
"""

from __future__ import annotations

import base64
import json
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from .. import aggregate as agg
from ..errors import ConfigError, PipelineError
from ..fileio import atomic_write_text, csv_safe_frame
from ..limits import MAX_EXPLORER_PAGE_BYTES, MAX_EXPLORER_RUN_RECORDS
from ..results.layout import RUN_HISTORY_FOLDER, failures_path
from ..results.staleness import read_json
from ..stats.compare import Comparison
from .options import plotly_installed
from .tables import MISSING, RankTable, ScoreTable, StatsTable, format_number, format_p

#: Significant digits of the plotted values (a curve is read by eye, the tables give the printed digits).
PLOT_DIGITS = 5
TEMPLATE = "explorer.html.j2"


@dataclass(frozen=True)
class Sensitivity:
    """The inner-validation criterion of one tuned method on one dataset over its candidate grid."""

    title: str
    parameter_names: list[str]
    candidates: list[dict]
    scores: np.ndarray  # one mean criterion per candidate, NaN where every fold failed
    label: str
    higher_is_better: bool


@dataclass(frozen=True)
class TuningSection:
    """The parameter report of a suite: how each method's parameters were chosen, the chosen values,
    the sensitivity of the criterion (:mod:`pipeline.paper.parameters` reads them)."""

    selection_header: list[str]
    selection_rows: list[list[str]]
    chosen_header: list[str] = field(default_factory=list)
    chosen_rows: list[list[str]] = field(default_factory=list)
    sensitivities: list[Sensitivity] = field(default_factory=list)


#: Makes the tuning section from the method folders, the datasets and the number of folds.
TuningReader = Callable[[Sequence[str], Sequence[str], int], Optional[TuningSection]]


@dataclass(frozen=True)
class ExplorerExtras:
    """What the reporting layer cannot read itself: the command that makes this report again, and
    the reader of the tuning report (:func:`pipeline.paper.parameters.tuning_section`), both optional."""

    command: Sequence[str] | None = None
    tuning: TuningReader | None = None


def explorer_path(out_dir: str | Path, grid: str) -> Path:
    return Path(out_dir) / f"explorer_{grid}.html"


def write_explorer(job, tables: dict[str, ScoreTable], rank_table: RankTable, stats_table: StatsTable,
                   extras: ExplorerExtras) -> Path:
    """Render the explorer of ``job`` (a :class:`~.job.TableJob` whose tables are ``tables``,
    ``rank_table`` and ``stats_table``) into ``explorer_<grid>.html`` of its output folder."""
    import jinja2

    if not plotly_installed():
        raise ConfigError("the results explorer inlines Plotly's script, and plotly is not installed",
                          expected="pip install 'mlfs-bench[explorer]' (plotly)")
    from plotly.offline import get_plotlyjs

    environment = jinja2.Environment(loader=jinja2.PackageLoader("pipeline.report", "templates"),
                                     autoescape=True, undefined=jinja2.StrictUndefined,
                                     trim_blocks=True, lstrip_blocks=True)
    environment.filters["json_script"] = json_script
    path = explorer_path(job.out, job.options.grid)
    folds = max(max(indices) + 1 for indices in job.results.expected_folds.values())
    tuning = extras.tuning(job.methods, job.results.datasets, folds) if extras.tuning else None
    page = environment.get_template(TEMPLATE).render(
        title=f"Results explorer: {Path(job.options.results_dir).resolve().name} ({job.options.grid})",
        summary=_summary(job), plot_data=_plot_data(job, stats_table.cd_alpha), score_tables=[_score_table(t) for t in tables.values()],
        rank_table=_rank_table(rank_table), stats_rows=_stats_rows(stats_table), stats_caption=stats_table.caption,
        outcomes=_outcomes(job), provenance=_provenance(job, extras.command), tuning=tuning,
        sensitivities=[_sensitivity_plot(s) for s in tuning.sensitivities] if tuning else [],
        downloads=_downloads(job), plotly_js=get_plotlyjs())
    size = len(page.encode("utf-8"))
    if size > MAX_EXPLORER_PAGE_BYTES:
        raise PipelineError(f"the results explorer would take {size / 2 ** 20:.1f} MiB, more than its bound",
                            file=path, expected=f"at most {MAX_EXPLORER_PAGE_BYTES / 2 ** 20:g} MiB: choose fewer "
                                                "datasets or methods (--datasets, --methods)")
    return atomic_write_text(path, page)


def json_script(value) -> str:
    """``value`` as JSON that a ``<script type="application/json">`` element holds verbatim: the
    characters that could end the element or start markup are written as ``\\u`` escapes."""
    import markupsafe

    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return markupsafe.Markup(text)


def _rounded(values: np.ndarray) -> list[float | None]:
    """Plotted values to :data:`PLOT_DIGITS` significant digits, NaN as null (a gap in the line)."""
    return [float(f"{v:.{PLOT_DIGITS}g}") if math.isfinite(v) else None for v in np.asarray(values, dtype=float)]


def _summary(job) -> dict:
    options = job.options
    return {"results": Path(options.results_dir).resolve().name, "grid": options.grid,
            "reference": job.name(options.ref_method), "methods": [job.name(m) for m in job.methods],
            "datasets": len(job.results.datasets), "folds": job.fold_counts(),
            "operating_point": job.operating_point(), "seeds": job.seed_sentence()}


def _plot_data(job, alpha: float) -> dict:
    """Everything the scripts draw: per dataset and metric the mean and std curve of each method
    (display names), the all-features level, and per metric the average ranks with the CDs."""
    scale = 1.0 if job.options.grid == "kgrid" else 100.0
    curves = {}
    for metric in job.metrics:
        for dataset, by_method in agg.mean_curves(job.results, metric).items():
            series = [{"method": job.name(method), "x": _rounded(x * scale), "mean": _rounded(mean),
                       "std": _rounded(std)} for method, (x, mean, std) in by_method.items()]
            curves.setdefault(job.name(dataset), {})[metric] = {
                "series": series, "all_features": job.baseline_value(metric, [dataset])}
    return {"metrics": {m: {"display": agg.METRIC_DISPLAY[m], "lower_is_better": m in agg.LOWER_IS_BETTER}
                        for m in job.metrics},
            "x_label": "number of selected features k" if job.options.grid == "kgrid" else "% selected features",
            "datasets": [job.name(d) for d in job.results.datasets], "curves": curves,
            "ranks": {m: _cd_data(job, c, alpha) for m, c in job.comparisons.items()}}


def _cd_data(job, comparison: Comparison, alpha: float) -> dict:
    return {"methods": [job.name(m) for m in comparison.methods], "ranks": _rounded(comparison.avg_ranks),
            "nemenyi_cd": comparison.nemenyi_cd[alpha], "bonferroni_dunn_cd": job.bonferroni_dunn_cd(comparison),
            "cliques": [[job.name(m) for m in clique] for clique in comparison.cliques[alpha]],
            "reference": job.name(job.options.ref_method), "datasets": len(comparison.blocks), "alpha": alpha}


def _sort_key(text: str) -> float | None:
    """The number a sortable cell sorts by (None for ``--``)."""
    try:
        return float(text.split("/")[0]) if text != MISSING else None
    except ValueError:
        return None


def _score_table(table: ScoreTable) -> dict:
    """A score table as rows of cells (text, sort key, mark, footnote symbols), as the LaTeX prints it."""
    baseline = table.baseline_cells()
    rows = []
    for i, (name, cells) in enumerate(zip(table.row_names, table.cells())):
        row = [{"text": _meanstd(*baseline[i]), "key": _sort_key(baseline[i][0]), "mark": "", "notes": []}
               ] if baseline is not None else []
        row += [{"text": _meanstd(mean, std), "key": _sort_key(mean), "mark": mark,
                 "notes": [n.markdown_mark for n in notes]} for mean, std, mark, notes in cells]
        rows.append({"name": name, "cells": row})
    footer = []
    blank = [{"text": "", "mark": ""}] * (baseline is not None)
    if table.avg_ranks is not None:
        footer.append({"name": "Avg. rank", "cells": blank + [{"text": t, "mark": m} for t, m in table.rank_cells()]})
    if table.win_tie_loss is not None:
        footer.append({"name": f"W/T/L vs {table.reference}",
                       "cells": blank + [{"text": t, "mark": ""} for t in table.wtl_cells()]})
    return {"title": table.title, "lower_is_better": table.lower_is_better, "caption": table.caption,
            "spread_over": table.spread_over, "columns": ([table.baseline_name] if baseline is not None else [])
            + table.column_names, "rows": rows, "footer": footer,
            "notes": [(n.markdown_mark, n.text) for n in table.used_notes()]}


def _meanstd(mean: str, std: str | None) -> str:
    return mean if std is None else f"{mean} ± {std}"


def _rank_table(table: RankTable) -> dict:
    return {"columns": table.column_names, "caption": table.caption,
            "rows": [{"name": name, "cells": [{"text": t, "key": _sort_key(t), "mark": m, "notes": []} for t, m in cells]}
                     for name, cells in zip(table.row_names, table.cells())],
            "footer": [{"name": title, "cells": [{"text": format_p(v), "mark": ""} for v in values]}
                       for title, values in table.summary_rows.items()]}


def _stats_rows(table: StatsTable) -> list[list[str]]:
    """Per metric and compared method: the omnibus tests, the CDs and the pairwise comparison."""
    rows = []
    for block in table.blocks:
        omnibus = [f"{block.title} {'↓' if block.lower_is_better else '↑'} (N={block.n_blocks})",
                   f"{format_number(block.friedman_chi2, 2)} ({format_p(block.friedman_p)})",
                   f"{format_number(block.iman_davenport_f, 2)} ({format_p(block.iman_davenport_p)})",
                   f"{format_number(block.nemenyi_cd, 2)} / {format_number(block.bonferroni_dunn_cd, 2)}"]
        for row in block.rows or [None]:
            rows.append(omnibus + ([MISSING, "", "", "", "", "", ""] if row is None else [
                row.method, format_number(row.gain), f"{row.wins}/{row.ties}/{row.losses}", format_p(row.wilcoxon_p),
                format_p(row.holm_p), "✓" if math.isfinite(row.holm_p) and row.holm_p <= table.alpha else "",
                "✓" if row.beyond_bd_cd else ""]))
    return rows


def _outcomes(job) -> dict:
    """What is not a number: failed or interrupted tasks (the last run's ``failures.json``), missing
    folds, degenerate selections and the report's notes, each with its reason."""
    failures = read_json(failures_path(job.results.results_dir)) or {}
    failed = [[str(f.get(key, "")) for key in ("status", "method", "dataset", "fold", "error_type", "message")]
              for f in failures.get("failed", []) if isinstance(f, dict)]
    missing = [[job.name(m), job.name(d), str(fold)] for m, d, fold in job.results.missing()]
    degenerate = [[job.name(g.method), job.name(g.dataset), str(g.fold), str(len(g.points)),
                   str(g.n_constant_features), "yes" if g.in_tables else "no"] for g in job.degenerate]
    return {"failed": failed, "missing": missing, "degenerate": degenerate, "notes": list(job.notes)}


def _provenance(job, command: Sequence[str] | None) -> dict:
    """The run records of the results folder (newest first), each method's engines and code
    fingerprints as its metrics files record them, and the commands that reproduce the page."""
    folder = job.results.results_dir / RUN_HISTORY_FOLDER
    records = sorted(folder.glob("*.json"), reverse=True) if folder.is_dir() else []
    runs = []
    for path in records[:MAX_EXPLORER_RUN_RECORDS]:
        record = read_json(path) or {}
        git = record.get("git") or {}
        runs.append({"run_id": str(record.get("run_id", path.stem)), "command": _shell(record.get("command")),
                     "host": str(record.get("host", "")), "started": str(record.get("started", "")),
                     "finished": str(record.get("finished") or "not finished"),
                     "git": f"{git.get('commit') or 'unknown'}{' (dirty)' if git.get('dirty') else ''}",
                     "summary": _counts(record.get("summary")),
                     "versions": ", ".join(f"{k} {v}" for k, v in (record.get("versions") or {}).items() if v)})
    return {"runs": runs, "runs_left_out": max(0, len(records) - MAX_EXPLORER_RUN_RECORDS), "methods": _code_rows(job),
            "command": _shell(command) if command else _html_command(job)}


def _code_rows(job) -> list[list[str]]:
    """Per method: its engines, and the distinct method-code, evaluator-code and git fingerprints
    (shortened) over its metrics files."""
    rows = []
    for method in job.methods:
        found: dict[str, set[str]] = {"engine": set(), "method": set(), "evaluator": set(), "git": set()}
        for (m, _, _), result in job.results.results.items():
            if m != method:
                continue
            provenance = (read_json(result.path) or {}).get("provenance") or {}
            code = provenance.get("code") or {}
            found["engine"].add(str(provenance.get("engine") or "unknown"))
            for part in ("method", "evaluator"):
                found[part].add(_short((code.get(part) or {}).get("sha256")))
            found["git"].add(_short((provenance.get("git") or {}).get("commit")))
        rows.append([job.name(method)] + [", ".join(sorted(found[key])) for key in found])
    return rows


def _short(digest) -> str:
    return str(digest)[:12] if digest else "not recorded"


def _shell(command) -> str:
    return shlex.join(str(part) for part in command) if isinstance(command, list) else ""


def _counts(summary) -> str:
    if not isinstance(summary, dict):
        return "not finished"
    return ", ".join(f"{summary[k]} {k}" for k in ("done", "skipped", "done_elsewhere", "failed", "interrupted")
                     if isinstance(summary.get(k), int))


def _html_command(job) -> str:
    """The command that makes this page again."""
    options = job.options
    command = ["python", "-m", "pipeline.report", "html", str(options.results_dir), "--grid", options.grid,
               "--ref-method", options.ref_method, "--methods", *job.methods,
               "--datasets", *job.results.datasets, "--out-dir", str(options.out_dir)]
    if options.display_map:
        command += ["--display-map", options.display_map]
    if options.grid == "pgrid":
        command += ["--p-target", f"{options.p_target:g}"]
    return shlex.join(command)


def _downloads(job) -> list[dict]:
    """The per-fold values and the means behind the tables, as CSV data: addresses."""
    grid = job.options.grid
    folds = job.folds.sort_values(["dataset", "method", "metric", "fold"], kind="mergesort")
    means = job.means.sort_values(["dataset", "method", "metric"], kind="mergesort")[
        ["dataset", "method", "metric", "mean", "std", "n_folds"]]
    return [{"name": f"benchmark_folds_{grid}.csv", "what": "per-fold values (dataset, method, fold, metric, value)",
             "href": _csv_address(folds[agg.TIDY_COLUMNS])},
            {"name": f"benchmark_means_{grid}.csv", "what": "means and sample std over folds, as the tables",
             "href": _csv_address(means)}]


def _csv_address(frame) -> str:
    text = csv_safe_frame(frame).to_csv(index=False, lineterminator="\n")
    return "data:text/csv;charset=utf-8;base64," + base64.b64encode(text.encode("utf-8")).decode("ascii")


def _sensitivity_plot(sensitivity: Sensitivity) -> dict:
    """A sensitivity as one line over the candidates (each named by its parameter values)."""
    from .tuning import level

    labels = [", ".join(f"{name}={level(c[name])}" for name in sensitivity.parameter_names)
              for c in sensitivity.candidates]
    return {"title": sensitivity.title, "labels": labels, "scores": _rounded(sensitivity.scores),
            "label": sensitivity.label, "higher_is_better": sensitivity.higher_is_better}
