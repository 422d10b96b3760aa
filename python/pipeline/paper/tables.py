"""The suite's tables, statistics, figures, report and results explorer, one folder per grid, redone only when stale.

Each grid's folder records what it was made from (``.made_from.json``: the SHA-256 of every metrics
and all-features reference file it reads, the report options and the fingerprint of the reporting
code); a later run with the same inputs leaves the folder as it is. The dataset table is made from
the suite's fold files (checked against their sidecars before any task runs).
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import asdict
from pathlib import Path

from ..fileio import atomic_write_json
from ..report.build import build_report
from ..report.options import DOCUMENT_OPTIONS, ReportOptions
from ..results.layout import MADE_FROM_FILE, REFERENCE_FOLDER, all_features_path
from ..results.staleness import NO_STAMP, sha256_or_none, stamp_staleness
from ..runner.fingerprint import python_fingerprint
from ..runner.store import ResultStore
from ..runner.tasks import GridSpec
from ..report.explorer import ExplorerExtras, plotly_installed
from .parameters import parameter_report_dir, tuning_section, variant_folders
from ..experiment.model import Experiment

#: The module that makes the tables; its fingerprint covers every module it uses.
REPORT_MODULE = "report/build.py"


def table_dir(suite: Experiment, root: Path, grid: GridSpec) -> Path:
    return root / suite.tables["out_dir"] / grid.mode


def tables_stamp(suite: Experiment, results_dir: Path, root: Path, grid: GridSpec) -> dict:
    """What the tables of ``grid`` are made from: input files, options, reporting code, and whether
    the results explorer could be written (it is once plotly is installed)."""
    store = ResultStore(results_dir)
    inputs = hashlib.sha256()
    for dataset in suite.datasets:
        for fold in suite.fold_indices:
            for entry in suite.methods:
                digest = sha256_or_none(store.files(entry.name, dataset, fold).metrics(grid.mode))
                inputs.update(f"{entry.name}/{dataset}/{fold}:{digest}\n".encode())
            reference = sha256_or_none(all_features_path(results_dir, dataset, fold))
            inputs.update(f"{REFERENCE_FOLDER}/{dataset}/{fold}:{reference}\n".encode())
    return {"inputs_sha256": inputs.hexdigest(), "options": asdict(report_options(suite, results_dir, root, grid)),
            "code_sha256": python_fingerprint(REPORT_MODULE)["sha256"], "explorer": plotly_installed()}


def tables_status(suite: Experiment, results_dir: Path, root: Path, grid: GridSpec) -> str:
    """``up to date``, ``missing`` or ``stale``."""
    stamp = tables_stamp(suite, results_dir, root, grid)
    reason = stamp_staleness(table_dir(suite, root, grid) / MADE_FROM_FILE, stamp)
    return "up to date" if reason is None else "missing" if reason == NO_STAMP else "stale"


def make_tables(suite: Experiment, results_dir: Path, root: Path, grid: GridSpec) -> str:
    """Make the tables of ``grid`` unless they are up to date; return ``made`` or ``up to date``.

    Raises
    ------
    PipelineError
        If :func:`~pipeline.report.build.build_report` refuses the results (e.g. a fold is missing).
    """
    stamp = tables_stamp(suite, results_dir, root, grid)
    out = table_dir(suite, root, grid)
    if stamp_staleness(out / MADE_FROM_FILE, stamp) is None:
        return "up to date"
    build_report(report_options(suite, results_dir, root, grid), on_part=lambda part: print(part.describe()),
                 explorer=explorer_extras(suite, results_dir))
    atomic_write_json(out / MADE_FROM_FILE, stamp)
    return "made"


def explorer_extras(suite: Experiment, results_dir: Path) -> ExplorerExtras | None:
    """The results explorer written beside main.tex, with the suite's parameter report; None (and
    a line saying why) where plotly, an optional extra, is not installed."""
    if not plotly_installed():
        print("results explorer not written: it needs plotly (pip install 'mlfs-bench[explorer]')", file=sys.stderr)
        return None
    folders = variant_folders(suite)
    return ExplorerExtras(tuning=lambda _methods, datasets, folds: tuning_section(results_dir, folders, datasets, folds))


def report_options(suite: Experiment, results_dir: Path, root: Path, grid: GridSpec) -> ReportOptions:
    """The report the suite's table options stand for."""
    options = suite.tables
    display_map = options["display_map"]
    operating_point = {"p_target": grid.p_target} if grid.mode == "pgrid" else {}
    return ReportOptions(
        results_dir=str(results_dir), methods=[m.name for m in suite.methods], datasets=list(suite.datasets),
        ref_method=options["ref_method"], out_dir=str(table_dir(suite, root, grid)), grid=grid.mode,
        folds=len(suite.fold_indices), folds_dir=str(root / suite.folds_dir),
        display_map=None if not display_map else str(Path(suite.source_dir) / display_map),
        metrics=list(options["metrics"]), no_figures=not options["figures"], fold_test=options["fold_test"],
        **{name: options[name] for name in DOCUMENT_OPTIONS},
        seed_spread=any(entry.seeds for entry in suite.methods),
        include_tables=[str(parameter_report_dir(suite, root))], **operating_point)
