"""The suite's tables, statistics, figures, report and results explorer, one folder per grid, and its
parameter report, each redone only when stale.

Each grid's folder records what it was made from (``.made_from.json``: the SHA-256 of every metrics
and all-features reference file it reads, the report options and the fingerprint of the reporting
code); a later run with the same inputs leaves the folder as it is. Deciding that imports nothing of
the reporting stack, which only a stale folder's remake needs. The dataset table is made from
the suite's fold files (checked against their sidecars before any task runs).
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from ..fileio import atomic_write_json
from ..report.options import DOCUMENT_OPTIONS, ReportOptions, plotly_installed
from ..report.layout import PAGE_OPTIONS, Page
from ..results.layout import MADE_FROM_FILE, REFERENCE_FOLDER, all_features_path, task_files, tuning_path
from ..results.staleness import NO_STAMP, sha256_or_none, stamp_staleness
from ..runner.fingerprint import PACKAGE_DIR, python_fingerprint
from ..runner.store import ResultStore
from ..runner.tasks import GridSpec
from ..experiment.model import Experiment

if TYPE_CHECKING:
    from ..report.explorer import ExplorerExtras

#: The module that makes the tables; its fingerprint covers every module it uses.
REPORT_MODULE = "report/build.py"
#: The module that writes the parameter report (named relative to the package, as fingerprints name files).
PARAMETER_REPORT_MODULE = Path(__file__).with_name("parameters.py").relative_to(PACKAGE_DIR).as_posix()


def table_dir(suite: Experiment, root: Path, grid: GridSpec) -> Path:
    return root / suite.tables["out_dir"] / grid.mode


def parameter_report_dir(suite: Experiment, root: Path) -> Path:
    return root / suite.tables["out_dir"] / "parameters"


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
    # the reporting stack (SciPy's statistics, matplotlib) is imported only to make tables: `status` needs none of it
    from ..report.build import build_report

    build_report(report_options(suite, results_dir, root, grid), on_part=lambda part: print(part.describe()),
                 explorer=explorer_extras(suite, results_dir))
    atomic_write_json(out / MADE_FROM_FILE, stamp)
    return "made"


def make_parameter_report(suite: Experiment, results_dir: Path, root: Path) -> str:
    """Write the suite's parameter report unless it is up to date; return ``made`` or ``up to date``."""
    out = parameter_report_dir(suite, root)
    folders = variant_folders(suite)
    stamp = parameter_report_stamp(results_dir, folders, suite)
    if stamp_staleness(out / MADE_FROM_FILE, stamp) is None:
        return "up to date"
    from .parameters import write_parameter_report  # draws figures: matplotlib only when stale

    write_parameter_report(results_dir, folders, suite.datasets, len(suite.fold_indices), out,
                           figures=suite.tables["figures"], page=suite_page(suite))
    atomic_write_json(out / MADE_FROM_FILE, stamp)
    return "made"


def parameter_report_stamp(results_dir: Path, folders: list[str], suite: Experiment) -> dict:
    """What the parameter report is made from: the tuning, ranking and metrics records of every
    variant folder, the table options, and the code that writes it."""
    inputs = hashlib.sha256()
    for folder in folders:
        for dataset in suite.datasets:
            for fold in suite.fold_indices:
                files = task_files(results_dir, folder, dataset, fold)
                for path in (tuning_path(results_dir, folder, dataset, fold), files.ranking_record,
                             *(files.metrics(g.mode) for g in suite.grids)):
                    inputs.update(f"{path.name}:{sha256_or_none(path)}\n".encode())
    return {"inputs_sha256": inputs.hexdigest(), "folders": folders, "datasets": list(suite.datasets),
            "figures": suite.tables["figures"], **{name: suite.tables[name] for name in PAGE_OPTIONS},
            "code_sha256": python_fingerprint(PARAMETER_REPORT_MODULE)["sha256"]}


def variant_folders(suite: Experiment) -> list[str]:
    """The results folder of every method variant of the suite (a sweep's values, a method's seeds)."""
    return [label for entry in suite.methods for label, _ in entry.variants()]


def suite_page(suite: Experiment) -> Page:
    """The document the suite's ``tables:`` section asks for."""
    return Page(**{name: suite.tables[name] for name in PAGE_OPTIONS})


def explorer_extras(suite: Experiment, results_dir: Path) -> ExplorerExtras | None:
    """The results explorer written beside main.tex, with the suite's parameter report; None (and
    a line saying why) where plotly, an optional extra, is not installed."""
    if not plotly_installed():
        print("results explorer not written: it needs plotly (pip install 'mlfs-bench[explorer]')", file=sys.stderr)
        return None
    from ..report.explorer import ExplorerExtras
    from .parameters import tuning_section

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
