"""The suite's tables, statistics, figures and report, one folder per grid, redone only when stale.

Each grid's folder records what it was made from (``.made_from.json``: the SHA-256 of every metrics
and all-features reference file it reads, the table options and the fingerprint of the reporting
code); a later run with the same inputs leaves the folder as it is. The dataset table is made from
the suite's fold files (checked against their sidecars before any task runs).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import tables as tables_cli
from ..errors import DataError
from ..fileio import atomic_write_json
from ..results.layout import MADE_FROM_FILE, REFERENCE_FOLDER, all_features_path
from ..results.staleness import NO_STAMP, sha256_or_none, stamp_staleness
from ..runner.fingerprint import python_fingerprint
from ..runner.store import ResultStore
from ..runner.tasks import GridSpec
from .parameters import parameter_report_dir
from .suite import Suite


def table_dir(suite: Suite, root: Path, grid: GridSpec) -> Path:
    return root / suite.tables["out_dir"] / grid.mode


def tables_stamp(suite: Suite, results_dir: Path, root: Path, grid: GridSpec) -> dict:
    """What the tables of ``grid`` are made from: input files, options, reporting code."""
    store = ResultStore(results_dir)
    inputs = hashlib.sha256()
    for dataset in suite.datasets:
        for fold in suite.fold_indices:
            for entry in suite.methods:
                digest = sha256_or_none(store.files(entry.name, dataset, fold).metrics(grid.mode))
                inputs.update(f"{entry.name}/{dataset}/{fold}:{digest}\n".encode())
            reference = sha256_or_none(all_features_path(results_dir, dataset, fold))
            inputs.update(f"{REFERENCE_FOLDER}/{dataset}/{fold}:{reference}\n".encode())
    return {"inputs_sha256": inputs.hexdigest(), "arguments": table_arguments(suite, results_dir, root, grid),
            "code_sha256": python_fingerprint("tables.py")["sha256"]}


def tables_status(suite: Suite, results_dir: Path, root: Path, grid: GridSpec) -> str:
    """``up to date``, ``missing`` or ``stale``."""
    stamp = tables_stamp(suite, results_dir, root, grid)
    reason = stamp_staleness(table_dir(suite, root, grid) / MADE_FROM_FILE, stamp)
    return "up to date" if reason is None else "missing" if reason == NO_STAMP else "stale"


def make_tables(suite: Suite, results_dir: Path, root: Path, grid: GridSpec) -> str:
    """Make the tables of ``grid`` unless they are up to date; return ``made`` or ``up to date``.

    Raises
    ------
    DataError
        If ``pipeline.tables`` refuses the results (e.g. a fold is missing).
    """
    stamp = tables_stamp(suite, results_dir, root, grid)
    out = table_dir(suite, root, grid)
    if stamp_staleness(out / MADE_FROM_FILE, stamp) is None:
        return "up to date"
    code = tables_cli.main(stamp["arguments"])
    if code:
        raise DataError(f"pipeline.tables failed for the {grid.mode} tables (exit {code})", file=out)
    atomic_write_json(out / MADE_FROM_FILE, stamp)
    return "made"


def table_arguments(suite: Suite, results_dir: Path, root: Path, grid: GridSpec) -> list[str]:
    """The ``pipeline.tables`` command line the suite's table options stand for."""
    options = suite.tables
    args = ["--results-dir", str(results_dir), "--methods", *[m.name for m in suite.methods],
            "--datasets", *suite.datasets, "--ref-method", options["ref_method"],
            "--out-dir", str(table_dir(suite, root, grid)), "--grid", grid.mode,
            "--folds", str(len(suite.fold_indices)), "--folds-dir", str(root / suite.folds_dir)]
    if grid.mode == "pgrid":
        args += ["--p-target", repr(grid.p_target)]
    if options["display_map"]:
        args += ["--display-map", str(Path(suite.source_dir) / options["display_map"])]
    args += ["--metrics", *options["metrics"]]
    if not options["figures"]:
        args.append("--no-figures")
    if not options["fit_width"]:
        args.append("--no-fit-width")
    if any(entry.seeds for entry in suite.methods):
        args.append("--seed-spread")
    args += ["--include-tables", str(parameter_report_dir(suite, root))]
    return args
