"""The reporting steps as Python functions, for notebooks: what ``python -m pipeline.tables`` does.

    from pipeline import report_api as api
    folds = api.load_results("results/run", grid="kgrid")           # tidy DataFrame, one row per fold
    comparison = api.compare(folds, "micro_f1", reference="DAGFS")   # ranks, Friedman, Nemenyi, Wilcoxon+Holm
    api.bonferroni_dunn(comparison)                                   # CD and who differs from the control
    written = api.tables("results/run", "out", ref_method="DAGFS", no_figures=True)
    figures = api.figures("results/run", "out", ref_method="DAGFS")

Keyword options of :func:`tables` and :func:`figures` are the command-line options with ``_`` for
``-`` (``layout="landscape"``, ``columns=2``, ``folds_dir=...``, ``pdf=True``; a flag takes
``True``); every check and error of the command applies. This module's names are the stable API
(docs/stats-report.md, "Python API").
"""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path
from typing import Sequence

import pandas as pd

from . import aggregate as agg
from .cli import check_option_bounds
from .errors import ConfigError
from .report.build import build_report, draw_figures
from .report.document import compile_pdf, write_main_tex
from .report.options import LIST_OPTIONS, OPTION_BOUNDS, ReportOptions
from .stats.bonferroni_dunn import bonferroni_dunn_cd
from .stats.compare import Comparison, compare_methods

__all__ = ["load_results", "load_all_features", "score_matrix", "compare", "bonferroni_dunn", "tables",
           "figures", "write_main_tex", "compile_pdf"]


def load_results(results_dir: str | Path, *, grid: str = "kgrid", methods: Sequence[str] | None = None,
                 datasets: Sequence[str] | None = None, folds: int | None = None, p_target: float = 0.2,
                 allow_incomplete: bool = False) -> pd.DataFrame:
    """Per-fold values (columns dataset, method, fold, metric, value) as the tables summarise them:
    the k-grid mean, or the p-grid value at ``p_target``. Missing files are an error unless allowed."""
    check_option_bounds(argparse.Namespace(folds=folds, p_target=p_target), OPTION_BOUNDS)
    methods = _names(methods) if methods else agg.list_methods(results_dir, grid)
    results = agg.load_results(results_dir, methods, grid, datasets=_names(datasets) if datasets else None,
                               n_folds=folds)
    results.check_complete(allow_incomplete)
    table = agg.fold_table(results, p_target=p_target if grid == "pgrid" else None)
    table.attrs["fold_digests"] = results.fold_digests()  # which fold files were scored: see load_all_features
    return table


def load_all_features(results_dir: str | Path, folds: pd.DataFrame) -> pd.DataFrame:
    """Per-fold scores of ML-kNN on all features for the datasets and folds of ``folds`` (same
    columns, method ``""``; empty when the reference files are absent). A reference scored on another
    fold file than the methods of ``folds`` (as :func:`load_results` read them) is refused, as in the tables."""
    expected = {d: sorted(set(g["fold"])) for d, g in folds.groupby("dataset")}
    return agg.read_all_features(results_dir, list(expected), expected, folds.attrs.get("fold_digests"))


def score_matrix(folds: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Datasets x methods of the fold means of ``metric`` (rows with a missing value dropped)."""
    means = agg.summarise(folds[folds["metric"] == metric])
    matrix = means.pivot(index="dataset", columns="method", values="mean")
    return agg.complete_rows(matrix)[0]


def compare(folds: pd.DataFrame, metric: str, *, reference: str | None = None,
            bayesian_rope: float | None = None) -> Comparison:
    """Every statistic of the tables for one metric over the complete datasets (direction from the metric)."""
    matrix = score_matrix(folds, metric)
    return compare_methods(matrix.to_numpy(), list(matrix.columns), blocks=list(matrix.index),
                           lower_is_better=metric in agg.LOWER_IS_BETTER, reference=reference,
                           bayesian_rope=bayesian_rope)


def bonferroni_dunn(comparison: Comparison, alpha: float = 0.05) -> tuple[float, dict[str, bool]]:
    """Bonferroni–Dunn critical difference against the comparison's reference, and per other method
    whether its average rank differs from the reference's by at least that much."""
    cd = bonferroni_dunn_cd(len(comparison.methods), len(comparison.blocks), alpha)
    ranks = dict(zip(comparison.methods, comparison.avg_ranks))
    control = ranks[comparison.reference]
    return cd, {m: abs(r - control) >= cd for m, r in ranks.items() if m != comparison.reference}


def _names(names: str | Sequence[str]) -> list[str]:
    """A list of method or dataset names (a single name may be given as a string)."""
    return [names] if isinstance(names, str) else list(names)


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
    parts = build_report(_options(results_dir, out_dir, ref_method, options))
    return [path for part in parts for path in part.written]


def figures(results_dir: str | Path, out_dir: str | Path, *, ref_method: str, **options) -> list[Path]:
    """Draw the curve and CD figures only (PNG + PDF under ``out_dir/figures``); return their paths."""
    return draw_figures(_options(results_dir, out_dir, ref_method, options))
