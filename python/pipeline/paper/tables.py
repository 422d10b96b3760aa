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
from ..results.layout import MADE_FROM_FILE, REFERENCE_FOLDER, all_features_path, tuning_path
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
    """What the tables of ``grid`` are made from: input files (the metrics files, and the ranking and
    tuning records their warning marks and tuning times come from), options, reporting code, and
    whether the results explorer could be written (it is once plotly is installed)."""
    store = ResultStore(results_dir)
    inputs = hashlib.sha256()
    for dataset in suite.datasets:
        for fold in suite.fold_indices:
            for entry in suite.methods:
                files = store.files(entry.name, dataset, fold)
                digest = sha256_or_none(files.metrics(grid.mode))
                inputs.update(f"{entry.name}/{dataset}/{fold}:{digest}\n".encode())
                for path in (files.ranking_record, tuning_path(results_dir, entry.name, dataset, fold)):
                    inputs.update(f"{path.name}:{sha256_or_none(path)}\n".encode())
            reference = sha256_or_none(all_features_path(results_dir, dataset, fold))
            inputs.update(f"{REFERENCE_FOLDER}/{dataset}/{fold}:{reference}\n".encode())
    return {"inputs_sha256": inputs.hexdigest(), "options": asdict(report_options(suite, results_dir, root, grid)),
            "code_sha256": python_fingerprint(REPORT_MODULE)["sha256"], "explorer": plotly_installed()}


def tables_status(suite: Experiment, results_dir: Path, root: Path, grid: GridSpec, pending: int = 0) -> str:
    """``up to date``, ``missing`` or ``stale`` (with why), and whether a compiled ``main.pdf`` is
    older than the tables. ``pending``: the tasks the tables read that are missing, stale or failed,
    which a run redoes first: tables made before are stale then, though their files have not changed yet."""
    out = table_dir(suite, root, grid)
    reason = stamp_staleness(out / MADE_FROM_FILE, tables_stamp(suite, results_dir, root, grid))
    if reason == NO_STAMP:
        return "missing"
    if reason is not None:
        state = "stale (their inputs, options or code changed)"
    elif pending:
        state = f"stale ({pending} task(s) they read are not up to date)"
    else:
        state = "up to date"
    return state + _pdf_state(out / "main.pdf", [out, parameter_report_dir(suite, root)])


def _pdf_state(pdf: Path, folders: list[Path]) -> str:
    """``; main.pdf is older than ...: compile it again`` when a ``.tex`` or ``.pdf`` file it is made
    from (below ``folders``) is newer than the compiled ``pdf``, else nothing."""
    if not pdf.is_file():
        return ""
    sources = [p for folder in folders for suffix in ("tex", "pdf") for p in folder.rglob(f"*.{suffix}") if p != pdf]
    newer = [p for p in sources if p.stat().st_mtime_ns > pdf.stat().st_mtime_ns]
    if not newer:
        return ""
    return f"; {pdf.name} is older than {len(newer)} of the files it is made from (e.g. {newer[0].name}): compile it again"


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
