"""The reporting steps as Python functions, for notebooks: what ``python -m pipeline.tables`` does.

    from pipeline import report_api as api
    folds = api.load_results("results/run", grid="kgrid")           # tidy DataFrame, one row per fold
    comparison = api.compare(folds, "micro_f1", reference="DAGFS")   # ranks, Friedman, Nemenyi, Wilcoxon+Holm
    api.bonferroni_dunn(comparison)                                   # CD and who differs from the control
    written = api.tables("results/run", "out", ref_method="DAGFS", no_figures=True)
    figures = api.figures("results/run", "out", ref_method="DAGFS")
    pages = api.html("results/run", ref_method="DAGFS")             # explorer_<grid>.html per grid

Keyword options of :func:`tables` and :func:`figures` are the command-line options with ``_`` for
``-`` (``layout="landscape"``, ``columns=2``, ``folds_dir=...``, ``pdf=True``; a flag takes
``True``); every check and error of the command applies. This module's names are the stable API
(docs/stats-report.md, "Python API"). A bad argument (a wrong type, an unknown method, dataset,
metric or grid, a missing folder) is a :class:`~pipeline.errors.ConfigError` naming the argument,
with one line, as the command reports it; never a TypeError, ValueError or KeyError.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import fields
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from . import aggregate as agg
from .cli import check_option_bounds
from .errors import ConfigError
from .evaluation.metrics import METRICS
from .names import validate_name
from .report.build import build_report, draw_figures, write_explorer_page
from .report.explorer import ExplorerExtras
from .report import document
from .report.layout import COLUMN_COUNTS, FONT_SIZES, PAPER_SIZES, Page
from .report.options import LIST_OPTIONS, OPTION_BOUNDS, ReportOptions
from .results.layout import GRIDS, metrics_glob
from .stats.bonferroni_dunn import bonferroni_dunn_cd
from .stats.compare import Comparison, compare_methods
from .validation import shorten

__all__ = ["load_results", "load_all_features", "score_matrix", "compare", "bonferroni_dunn", "tables",
           "figures", "html", "write_main_tex", "compile_pdf"]


def load_results(results_dir: str | Path, *, grid: str = "kgrid", methods: Sequence[str] | None = None,
                 datasets: Sequence[str] | None = None, folds: int | None = None, p_target: float = 0.2,
                 allow_incomplete: bool = False) -> pd.DataFrame:
    """Per-fold values (columns dataset, method, fold, metric, value) as the tables summarise them:
    the k-grid mean, or the p-grid value at ``p_target``. Missing files are an error unless allowed."""
    results_dir = _folder(results_dir, "results_dir")
    _choice(grid, GRIDS, "grid")
    _flag(allow_incomplete, "allow_incomplete")
    if folds is not None and not _is_integer(folds):
        raise ConfigError("must be a whole number of folds or None", field="folds", found=_shown(folds))
    _number(p_target, "p_target")
    check_option_bounds(argparse.Namespace(folds=folds, p_target=p_target), OPTION_BOUNDS)
    methods = _names(methods, "methods", "method") if methods else agg.list_methods(results_dir, grid)
    results = agg.load_results(results_dir, methods, grid,
                               datasets=_names(datasets, "datasets", "dataset") if datasets else None, n_folds=folds)
    results.check_complete(allow_incomplete)
    table = agg.fold_table(results, p_target=p_target if grid == "pgrid" else None)
    table.attrs["fold_digests"] = results.fold_digests()  # which fold files were scored: see load_all_features
    return table


def load_all_features(results_dir: str | Path, folds: pd.DataFrame) -> pd.DataFrame:
    """Per-fold scores of ML-kNN on all features for the datasets and folds of ``folds`` (same
    columns, method ``""``; empty when the reference files are absent). A reference scored on another
    fold file than the methods of ``folds`` (as :func:`load_results` read them) is refused, as in the tables."""
    results_dir = _folder(results_dir, "results_dir")
    expected = {d: sorted(set(g["fold"])) for d, g in _fold_values(folds).groupby("dataset")}
    return agg.read_all_features(results_dir, list(expected), expected, folds.attrs.get("fold_digests"))


def score_matrix(folds: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Datasets x methods of the fold means of ``metric`` (rows with a missing value dropped)."""
    folds = _fold_values(folds)
    _choice(metric, METRICS, "metric")
    means = agg.summarise(folds[folds["metric"] == metric])
    matrix = means.pivot(index="dataset", columns="method", values="mean")
    return agg.complete_rows(matrix)[0]


def compare(folds: pd.DataFrame, metric: str, *, reference: str | None = None,
            bayesian_rope: float | None = None) -> Comparison:
    """Every statistic of the tables for one metric over the complete datasets (direction from the metric)."""
    matrix = score_matrix(folds, metric)
    if matrix.shape[1] < 2 or matrix.shape[0] < 1:
        raise ConfigError(f"too few methods or datasets with a value of {metric} on every fold to compare",
                          field="folds", expected="at least 2 methods with values on 1 dataset or more",
                          found=f"{matrix.shape[1]} method(s), {matrix.shape[0]} complete dataset(s)")
    if bayesian_rope is not None:
        _number(bayesian_rope, "bayesian_rope")
        check_option_bounds(argparse.Namespace(bayesian_rope=bayesian_rope), OPTION_BOUNDS)
    return compare_methods(matrix.to_numpy(), list(matrix.columns), blocks=list(matrix.index),
                           lower_is_better=metric in agg.LOWER_IS_BETTER, reference=reference,
                           bayesian_rope=bayesian_rope)


def bonferroni_dunn(comparison: Comparison, alpha: float = 0.05) -> tuple[float, dict[str, bool]]:
    """Bonferroni–Dunn critical difference against the comparison's reference, and per other method
    whether its average rank differs from the reference's by at least that much."""
    if not isinstance(comparison, Comparison):
        raise ConfigError("must be what compare() returns", field="comparison", found=_shown(comparison))
    if comparison.reference is None:
        raise ConfigError("the comparison has no reference method (the control)", field="comparison",
                          expected="compare(..., reference=METHOD)")
    if not (_is_number(alpha) and 0 < alpha < 1):
        raise ConfigError("out of range", field="alpha", expected="a number in (0, 1)", found=_shown(alpha))
    cd = bonferroni_dunn_cd(len(comparison.methods), len(comparison.blocks), alpha)
    ranks = dict(zip(comparison.methods, comparison.avg_ranks))
    control = ranks[comparison.reference]
    return cd, {m: abs(r - control) >= cd for m, r in ranks.items() if m != comparison.reference}


def write_main_tex(folder: str | Path, *, title: str, columns: int = 1, table_order: Sequence[str] = (),
                   include: Sequence[str | Path] = (), paper_size: str = PAPER_SIZES[0],
                   font_size: str = FONT_SIZES[0]) -> Path:
    """Write ``folder/main.tex``, an ``article`` of ``columns`` columns on ``paper_size`` paper
    (:data:`~pipeline.report.layout.PAPER_SIZES`) with a ``font_size`` base font
    (:data:`~pipeline.report.layout.FONT_SIZES`), inputting every ``table_*.tex`` there, ``figures.tex``
    if present, and every ``*.tex`` of each ``include`` folder (:func:`pipeline.report.document.write_main_tex`)."""
    folder = _folder(folder, "folder")
    if not isinstance(title, str):
        raise ConfigError("must be text", field="title", found=_shown(title))
    if not _is_integer(columns) or columns not in COLUMN_COUNTS:
        raise ConfigError("unknown value", field="columns", expected=f"one of {list(COLUMN_COUNTS)}",
                          found=_shown(columns))
    for name, value, allowed in (("paper_size", paper_size, PAPER_SIZES), ("font_size", font_size, FONT_SIZES)):
        if not isinstance(value, str) or value not in allowed:
            raise ConfigError("unknown value", field=name, expected=f"one of {list(allowed)}", found=_shown(value))
    if isinstance(table_order, str) or not isinstance(table_order, (list, tuple)) \
            or not all(isinstance(name, str) for name in table_order):
        raise ConfigError("must be a list of file names", field="table_order", found=_shown(table_order))
    if isinstance(include, (str, os.PathLike)) or not isinstance(include, (list, tuple)):
        raise ConfigError("must be a list of folders", field="include", found=_shown(include))
    return document.write_main_tex(folder, title=title, page=Page(columns, paper_size, font_size),
                                   table_order=table_order,
                                   include=[_folder(extra, "include") for extra in include])


def compile_pdf(tex: str | Path, *, timeout: float = 900.0) -> Path:
    """Run pdflatex twice on ``tex`` in its folder; return the PDF (:func:`pipeline.report.document.compile_pdf`)."""
    if not isinstance(tex, (str, os.PathLike)) or not str(tex) or "\0" in str(tex):
        raise ConfigError("must be the path of a .tex file (str or Path)", field="tex", found=_shown(tex))
    _number(timeout, "timeout")
    if timeout <= 0:
        raise ConfigError("out of range", field="timeout", expected="> 0 seconds", found=_shown(timeout))
    return document.compile_pdf(tex, timeout=timeout)


def _names(names: Any, argument: str, kind: str) -> list[str]:
    """A list of valid method or dataset names (a single name may be given as a string)."""
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, (list, tuple)):
        raise ConfigError(f"must be a {kind} name or a list of them", field=argument, found=_shown(names))
    for name in names:
        try:
            validate_name(name, kind)
        except ConfigError as exc:
            raise ConfigError(exc.message, field=argument, expected=exc.expected, found=exc.found) from None
    return list(names)


def _folder(path: Any, argument: str) -> Path:
    """``path`` (text or a path) of a folder that exists."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ConfigError("must be a folder path (str or Path)", field=argument, found=_shown(path))
    if "\0" in str(path):
        raise ConfigError("a path cannot hold a NUL character", field=argument, found=_shown(path))
    if not Path(path).is_dir():
        raise ConfigError("folder not found", file=path, field=argument)
    return Path(path)


def _choice(value: Any, choices: Sequence[str], argument: str) -> None:
    if not isinstance(value, str) or value not in choices:
        raise ConfigError("unknown value", field=argument, expected=f"one of {list(choices)}", found=_shown(value))


def _flag(value: Any, argument: str) -> None:
    if not isinstance(value, bool):
        raise ConfigError("must be True or False", field=argument, found=_shown(value))


def _number(value: Any, argument: str) -> None:
    if not (_is_number(value) and math.isfinite(value)):
        raise ConfigError("must be a finite number", field=argument, found=_shown(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _fold_values(folds: Any) -> pd.DataFrame:
    """``folds`` if it is the frame :func:`load_results` returns (its columns at least)."""
    if not isinstance(folds, pd.DataFrame) or not set(agg.TIDY_COLUMNS) <= set(folds.columns):
        raise ConfigError("must be the per-fold table load_results() returns", field="folds",
                          expected=f"a DataFrame with columns {list(agg.TIDY_COLUMNS)}", found=_shown(folds))
    return folds


def _shown(value: Any) -> str:
    """A bad argument in one line: a plain value as :func:`~pipeline.validation.shorten` shows it, with
    its type; anything else (a frame, an object, whose text may take many lines) by its type."""
    if isinstance(value, (str, int, float, bool, type(None), os.PathLike)):
        return f"{shorten(value)} ({type(value).__name__})"
    return type(value).__name__


def _options(results_dir, out_dir, ref_method: str, options: dict) -> ReportOptions:
    """The report options for keyword options; None leaves an option at its default and one name
    may be given as a string. A refused value is a ConfigError, as from the command line."""
    known = {option.name for option in fields(ReportOptions)}
    given = {}
    for key, value in options.items():
        if key.startswith("no_") and key[3:] in known:  # --no-fit-width, the negative of a flag that is on
            key, value = key[3:], None if value is None else not value
        if key not in known:
            raise ConfigError("unknown option (the options of python -m pipeline.tables, with _ for -)",
                              field=key)
        if value is not None:
            given[key] = [value] if key in LIST_OPTIONS and isinstance(value, str) else value
    return ReportOptions(results_dir=results_dir, out_dir=out_dir, ref_method=ref_method, **given)


def tables(results_dir: str | Path, out_dir: str | Path, *, ref_method: str, **options) -> list[Path]:
    """Write every output of ``python -m pipeline.tables`` (tables, CSV, JSON, report.md, figures,
    main.tex); return the files written."""
    _check_folders(results_dir, out_dir)
    parts = build_report(_options(results_dir, out_dir, ref_method, options))
    return [path for part in parts for path in part.written]


def figures(results_dir: str | Path, out_dir: str | Path, *, ref_method: str, **options) -> list[Path]:
    """Draw the curve and CD figures only (PNG + PDF under ``out_dir/figures``); return their paths."""
    _check_folders(results_dir, out_dir)
    return draw_figures(_options(results_dir, out_dir, ref_method, options))


def html(results_dir: str | Path, out_dir: str | Path | None = None, *, ref_method: str,
         grids: Sequence[str] | None = None, command: Sequence[str] | None = None, **options) -> list[Path]:
    """Write the results explorer, ``explorer_<grid>.html`` (a self-contained page, opened from disk),
    into ``out_dir`` (default: the results folder) for each of ``grids`` (default: every grid with
    results); return the pages. ``command`` is shown as the command that makes the page again
    (default: the equivalent ``python -m pipeline.report html``). The other options are those of
    :func:`tables` that choose what is shown (methods, datasets, metrics, display_map, p_target, ...)."""
    from .paper.parameters import tuning_section

    if "grid" in options:
        raise ConfigError("a page per grid: give grids=[...]", field="grid", expected=f"grids, a list of {list(GRIDS)}")
    results_dir = _folder(results_dir, "results_dir")
    out_dir = results_dir if out_dir is None else out_dir
    _check_folders(results_dir, out_dir)
    if grids is None:
        grids = [grid for grid in GRIDS if any(results_dir.glob(f"*/{metrics_glob(grid)}"))]
        if not grids:
            raise ConfigError("no metrics files of any grid in the results folder", file=results_dir,
                              field="results_dir", expected=f"<METHOD>/<DATASET>_fold<i>_<grid>_metrics.json, grid in {list(GRIDS)}")
    for grid in _names_of(grids, "grids"):
        _choice(grid, GRIDS, "grids")
    if command is not None and not (isinstance(command, (list, tuple)) and all(isinstance(part, str) for part in command)):
        raise ConfigError("must be a list of words", field="command", found=_shown(command))
    extras = ExplorerExtras(command=command, tuning=lambda folders, datasets, folds: tuning_section(
        results_dir, folders, datasets, folds))
    return [write_explorer_page(_options(results_dir, out_dir, ref_method, {**options, "grid": grid}), extras)
            for grid in grids]


def _names_of(values: Any, argument: str) -> list:
    if isinstance(values, str) or not isinstance(values, (list, tuple)):
        raise ConfigError("must be a list", field=argument, found=_shown(values))
    return list(values)


def _check_folders(results_dir: Any, out_dir: Any) -> None:
    """The results folder exists; the output folder is a path (made if absent)."""
    _folder(results_dir, "results_dir")
    if not isinstance(out_dir, (str, os.PathLike)) or not str(out_dir):
        raise ConfigError("must be a folder path (str or Path)", field="out_dir", found=_shown(out_dir))
