"""The suite's parameter report: how each method's parameters were chosen, and the evidence of tuning.

Read from the results folder (metrics files, tuning records, final ranking records) and written by
:mod:`pipeline.report.tuning` into ``<tables.out_dir>/parameters/`` (docs/tuning.md), with
``parameter_figures.tex`` placing every figure, captioned, in each grid's ``main.tex``. The folder
records what it was made from, so a rerun with the same inputs leaves it as it is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import DataError, PipelineError
from ..fileio import atomic_write_text
from ..methods import get_method
from ..report.explorer import Sensitivity, TuningSection
from ..report.document import DocumentFigure, figures_tex
from ..report.figures import inches
from ..report.layout import Page
from ..report.output import prepare_output_folder
from ..report.tuning import (CHOSEN_CAPTION, SELECTION_CAPTION, convergence_figure, level, sensitivity_figure,
                             write_table)
from ..results.layout import is_seed_folder, task_files, tuning_path, variant_method
from ..results.schema import read_ranking_record
from ..results.staleness import read_json
from ..runner.tuning import SELECTED_BY_INNER

KINDS = {"defaults": "defaults", "declared": "declared in the suite", "inner": "inner-split tuning",
         "sweep": "test-set sweep (optimistic)"}
SELECTION_HEADER = ["Method", "Parameters chosen by", "Details"]
#: The selection table's details wrap in a paragraph column.
SELECTION_ALIGN = "llp"
#: The figures' floats, input by each grid's main.tex with the folder's tables.
FIGURES_TEX = "parameter_figures.tex"


@dataclass(frozen=True)
class Selection:
    """How one results folder's parameters were chosen: ``kind`` (a key of :data:`KINDS`) and details."""

    folder: str
    kind: str
    detail: str


def selection_of(results_dir: Path, folder: str, datasets: Sequence[str], folds: int) -> Selection:
    """Classify a results folder from its records: inner-split tuning (a tuning record, or metrics that
    say ``selected_by: inner validation``), a test-set sweep (a sweep folder ``METHOD__name_value``),
    parameters declared in the suite, or the method's defaults."""
    tuning = _first(tuning_path(results_dir, folder, d, i) for d in datasets for i in range(folds))
    metrics = _first(task_files(results_dir, folder, d, i).metrics(g) for d in datasets for i in range(folds)
                     for g in ("kgrid", "pgrid")) or {}
    if tuning is not None or metrics.get("selected_by") == SELECTED_BY_INNER:
        return Selection(folder, "inner", _tuning_detail(tuning or {}))
    method = variant_method(folder)
    changed = _non_defaults(method, metrics.get("params") or {})
    described = ", ".join(f"{k}={v}" for k, v in changed.items())
    if folder != method and not is_seed_folder(folder):
        return Selection(folder, "sweep", (described + "; " if described else "") + "picked on the outer test part")
    return Selection(folder, "declared", described) if changed else Selection(folder, "defaults", "")


def selection_rows(selections: Sequence[Selection]) -> list[list[str]]:
    """Rows of the selection table (:data:`SELECTION_HEADER`)."""
    return [[s.folder, KINDS[s.kind], s.detail] for s in selections]


def chosen_parameters(results_dir: Path, folder: str, dataset: str, folds: int) -> dict[str, tuple[str, int, int]]:
    """Tuned parameter -> (most frequent chosen value, folds that chose it, folds with a tuning record);
    ties go to the value the earliest fold chose."""
    chosen = [r["chosen"]["overrides"] for r in tuning_records(results_dir, folder, dataset, folds)]
    table = {}
    for name in (chosen[0] if chosen else {}):
        value, count = Counter(level(c[name]) for c in chosen).most_common(1)[0]
        table[name] = (value, count, len(chosen))
    return table


def edge_warnings(results_dir: Path, folder: str, dataset: str, folds: int) -> list[str]:
    """A warning per tuned parameter and end of its grid that was chosen on at least half of the folds
    with a tuning record: the best value may lie beyond the grid. Only for grids of three or more
    distinct numbers (with two, every choice is an end; names have no order)."""
    records = tuning_records(results_dir, folder, dataset, folds)
    found = []
    for name in (records[0]["chosen"]["overrides"] if records else {}):
        values = [c["overrides"][name] for c in records[0]["candidates"]]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) or len(set(values)) < 3:
            continue
        grid = set(values)
        chosen = [r["chosen"]["overrides"][name] for r in records]
        for end, value in (("largest", max(grid)), ("smallest", min(grid))):
            count = sum(c == value for c in chosen)
            if 2 * count >= len(records):
                found.append(f"{folder} on {dataset}: {name} = {level(value)}, the {end} value of its grid, was "
                             f"chosen on {count} of {len(records)} folds; the grid may be too narrow")
    return found


def tuning_records(results_dir: Path, folder: str, dataset: str, folds: int) -> list[dict]:
    """The tuning records of one method variant and dataset, in fold order (missing ones left out)."""
    records = [read_json(tuning_path(results_dir, folder, dataset, i)) for i in range(folds)]
    return [r for r in records if r and r.get("candidates") and r.get("chosen")]


def write_parameter_report(results_dir: Path, folders: Sequence[str], datasets: Sequence[str], folds: int,
                           out_dir: Path, *, figures: bool = True, page: Page = Page()) -> list[Path]:
    """Write the selection and chosen-parameter tables and (``figures``) the sensitivity and convergence
    figures, laid out and sized for the document ``page``, with their floats; return the written paths."""
    out_dir = prepare_output_folder(out_dir, option="tables.out_dir")
    selections = [selection_of(results_dir, f, datasets, folds) for f in folders]
    written = write_table(out_dir, "parameter_selection", "How each method's parameters were chosen",
                          SELECTION_CAPTION, SELECTION_HEADER, selection_rows(selections), align=SELECTION_ALIGN,
                          page=page)
    tuned = [s.folder for s in selections if s.kind == "inner"]
    if tuned:
        written += _chosen_table(results_dir, tuned, datasets, folds, out_dir, page)
    floats = []
    if figures:
        for folder in tuned:
            for dataset in datasets:
                drawn = _sensitivity(results_dir, folder, dataset, folds, out_dir,
                                     width_in=inches(page.column_width_pt))
                written += drawn
                floats += [DocumentFigure(path.name, f"{folder} on {dataset}: the inner criterion over the candidate "
                                          "grid, mean over the outer folds (inner-split tuning; the chosen values are "
                                          "in the chosen-parameters table).", f"fig:sensitivity_{folder}_{dataset}",
                                          wide=False) for path in drawn if path.suffix == ".pdf"]
        for dataset in datasets:
            traces = {folder: objective_traces(results_dir, folder, dataset, folds) for folder in folders}
            traces = {folder: lines for folder, lines in traces.items() if lines}
            if traces:
                drawn = convergence_figure(out_dir / f"convergence_{dataset}", f"Convergence on {dataset}", traces,
                                           width_in=inches(page.text_width_pt))
                written += drawn
                floats += [DocumentFigure(path.name, f"Convergence on {dataset}: the objective per iteration of each "
                                          "method's final ranking, a line per outer fold.",
                                          f"fig:convergence_{dataset}")
                           for path in drawn if path.suffix == ".pdf"]
    if floats:
        written.append(atomic_write_text(out_dir / FIGURES_TEX, figures_tex(floats)))
    else:
        (out_dir / FIGURES_TEX).unlink(missing_ok=True)
    return written


def objective_traces(results_dir: Path, folder: str, dataset: str, folds: int) -> list[np.ndarray]:
    """The ``info.objective`` traces (two or more values) of a method's final rankings, in fold order."""
    traces = []
    for fold in range(folds):
        path = task_files(results_dir, folder, dataset, fold).ranking_record
        try:
            objective = read_ranking_record(path).objective() if path.is_file() else None
        except DataError:  # no trace to draw; the run that reads it recomputes the ranking
            objective = None
        if objective is not None and len(objective) > 1:
            traces.append(np.array([np.nan if v is None else float(v) for v in objective], dtype=float))
    return traces


def _chosen_table(results_dir: Path, tuned: list[str], datasets: Sequence[str], folds: int,
                  out_dir: Path, page: Page) -> list[Path]:
    header, rows = chosen_table(results_dir, tuned, datasets, folds)
    edges = [warning for folder in tuned for dataset in datasets
             for warning in edge_warnings(results_dir, folder, dataset, folds)]
    caption = CHOSEN_CAPTION + ("" if not edges else " Warning, at the edge of the grid: " + "; ".join(edges) + ".")
    return write_table(out_dir, "chosen_parameters", "Chosen parameters", caption, header, rows,
                       align="l" * len(header), page=page)


def chosen_table(results_dir: Path, tuned: list[str], datasets: Sequence[str], folds: int) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the chosen-parameter table: per dataset, each tuned parameter's most
    frequent value over the outer folds with its count."""
    columns, cells = [], {}
    for folder in tuned:
        for dataset in datasets:
            for name, (value, count, total) in chosen_parameters(results_dir, folder, dataset, folds).items():
                if (folder, name) not in columns:
                    columns.append((folder, name))
                cells[(dataset, folder, name)] = f"{value} ({count}/{total})"
    header = ["Dataset"] + [f"{folder} {name}" for folder, name in columns]
    return header, [[dataset] + [cells.get((dataset, f, n), "") for f, n in columns] for dataset in datasets]


def _sensitivity(results_dir: Path, folder: str, dataset: str, folds: int, out_dir: Path, *,
                 width_in: float) -> list[Path]:
    found = sensitivity(results_dir, folder, dataset, folds)
    if found is None:
        return []
    return sensitivity_figure(out_dir / f"sensitivity_{folder}_{dataset}", found.title, found.parameter_names,
                              found.candidates, found.scores, found.label, found.higher_is_better, width_in=width_in)


def sensitivity(results_dir: Path, folder: str, dataset: str, folds: int) -> Sensitivity | None:
    """The inner criterion of a tuned method on one dataset over its candidates, the mean over the
    folds with a tuning record (None without one)."""
    records = tuning_records(results_dir, folder, dataset, folds)
    if not records:
        return None
    candidates = [c["overrides"] for c in records[0]["candidates"]]
    scores = np.array([[np.nan if c["criterion"] is None else c["criterion"] for c in r["candidates"]]
                       for r in records], dtype=float)
    mean = np.array([np.nanmean(column) if np.isfinite(column).any() else np.nan for column in scores.T])
    criterion = records[0]["criterion"]
    label = f"inner {criterion['metric']} ({criterion['grid']} {criterion['statistic']}), mean of {len(records)} fold(s)"
    return Sensitivity(f"{folder} on {dataset}", list(candidates[0]), candidates, mean, label,
                       criterion["direction"] == "higher is better")


def tuning_section(results_dir: Path, folders: Sequence[str], datasets: Sequence[str], folds: int) -> TuningSection | None:
    """The parameter report for the results explorer; None when no folder was tuned on inner splits."""
    selections = [selection_of(results_dir, f, datasets, folds) for f in folders]
    tuned = [s.folder for s in selections if s.kind == "inner"]
    if not tuned:
        return None
    header, rows = chosen_table(results_dir, tuned, datasets, folds)
    found = [sensitivity(results_dir, folder, dataset, folds) for folder in tuned for dataset in datasets]
    return TuningSection(SELECTION_HEADER, selection_rows(selections), header, rows,
                         [s for s in found if s is not None])


def _tuning_detail(record: dict) -> str:
    criterion, inner, candidates = record.get("criterion") or {}, record.get("inner") or {}, record.get("candidates")
    if not criterion or not candidates:
        return ""
    values = {name: list(dict.fromkeys(level(c["overrides"][name]) for c in candidates))
              for name in candidates[0]["overrides"]}
    split = f"{inner.get('mode')} x{inner.get('count')}"
    if inner.get("mode") == "holdout":
        split += f", {inner.get('test_size'):g} validation"
    statistic = "mean" if criterion.get("statistic") == "mean" else "value at p_target"
    grid = "; ".join(f"{name} in {{{', '.join(v)}}}" for name, v in values.items())
    failed = sum("failed" in c for c in candidates)
    return (f"{criterion.get('metric')} ({statistic} over the {criterion.get('grid')}) on inner {split}; "
            f"{len(candidates)} candidates: {grid}" + (f"; {failed} failed (the method raised)" if failed else ""))


def _non_defaults(method: str, params: dict) -> dict:
    try:
        defaults = get_method(method).resolve_params({})
    except PipelineError:  # a method this checkout does not know: every parameter is shown
        return {k: v for k, v in params.items() if k != "seed"}
    return {k: v for k, v in params.items() if defaults.get(k) != v and k != "seed"}


def _first(paths):
    return next((record for record in map(read_json, paths) if record is not None), None)
