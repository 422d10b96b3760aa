"""Read MLFS result files into tidy tables: per-fold scalars, fold means, score matrices, curves.

The file names come from :mod:`pipeline.results.layout` (``docs/results-schema.md``). It reduces each
fold's curve to one number — the mean over the grid points (k-grid) or the value at the grid point
nearest to ``p_target`` (p-grid) — and then summarises each (dataset, method, metric) over folds
with the mean and the *sample* standard deviation (ddof = 1).

A task stopped at its budget (an out-of-budget record, :mod:`pipeline.results.budget`) is no
missing file: its cell (method, dataset) has no value in any table (not the mean of the folds that
finished), is marked, and :attr:`ResultSet.out_of_budget` says which budget it ran out of.

Missing folds are never averaged away silently: :meth:`ResultSet.check_complete` raises a
``DataError`` listing every missing file unless the caller explicitly allows incomplete cells, in
which case each cell carries its own ``n_folds`` and the gaps are returned as notes.

The same reduction applies to the optional fields of a metrics file: the ranking time
(``time_rank_seconds``), the constant-feature check (``degenerate`` points among those a cell
summarises) and, for seed-averaged runs, the std over seeds (``seeds``, ``<metric>_seed_std``,
``<metric>_mean_seed_std``). Every name read back from a folder or file name is validated.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from .errors import ConfigError, DataError
from .evaluation.grids import p_target_index
from .evaluation.metrics import HIGHER_IS_BETTER, LATER_METRICS, METRIC_SPECS, METRICS
from .names import validate_name
from .results.budget import read_budget_record
from .results.layout import (GRIDS, OUT_OF_BUDGET_SUFFIX, all_features_path, metrics_glob, metrics_name,
                             metrics_name_pattern, out_of_budget_name_pattern, ranking_record_name, seed_folder,
                             tuning_path)
from .validation import shorten

# The record schemas (pydantic, about half a second to import) are imported by the functions that
# read records: the runner imports this module, and so does every command line at start.
if TYPE_CHECKING:
    import pandas as pd

    from .results.schema import MetricsFile

LOWER_IS_BETTER = frozenset(m for m in METRICS if not HIGHER_IS_BETTER[m])
METRIC_DISPLAY = {metric.key: metric.display for metric in METRIC_SPECS}
METRIC_TABLE_STEM = {**{m: m for m in METRICS}, "micro_f1": "microf1", "macro_f1": "macrof1",
                     "hamming_loss": "hamming"}
MAIN_METRICS = ("micro_f1", "macro_f1", "hamming_loss")
GRID_TOLERANCE = 1e-9
TIDY_COLUMNS = ["dataset", "method", "fold", "metric", "value"]
TIME_FIELD = "time_rank_seconds"
TUNING_TIME_FIELD = "tuning_seconds"


def name_order(names: Iterable[str]) -> list[str]:
    """The documented default order of methods and datasets: alphabetical, ignoring case."""
    return sorted(names, key=lambda name: (name.casefold(), name))


def _name_from_disk(name: str, kind: str, path: Path) -> str:
    """``validate_name`` for a name read back from a file or folder name (DataError naming it)."""
    try:
        return validate_name(name, kind)
    except ConfigError as exc:
        raise DataError(f"{exc.message}; rename or move it", file=path) from None


@dataclass(frozen=True)
class SelectionCheck:
    """The runner's check of constant features among the selected ones, aligned with the grid.

    ``k_values``, ``n_constant_selected`` (ints) and ``degenerate`` (bools) have shape (n_points,);
    a point is degenerate when more than half of its top-k features are constant on the fold's
    training part although non-constant features were left unselected. ``n_constant_features``
    counts the features constant on the training part.
    """

    k_values: np.ndarray
    n_constant_selected: np.ndarray
    degenerate: np.ndarray
    n_constant_features: int


@dataclass(frozen=True)
class SeedSpread:
    """Spread over the seeds of a seed-averaged fold (its curves are the mean over ``seeds``).

    ``curve_std[m]`` has shape (n_points,): std over seeds (ddof = 1) per grid point;
    ``grid_mean_std[m]`` is the std over seeds of each seed's grid mean. NaN with a single seed.
    """

    seeds: tuple[int, ...]
    curve_std: dict[str, np.ndarray]
    grid_mean_std: dict[str, float]


@dataclass
class FoldResult:
    """One metrics file: the grid (k or p values), the metric curves aligned with it and extras.

    ``absent_metrics``: metrics of :data:`LATER_METRICS` the file predates (their curves are NaN).
    """

    method: str
    dataset: str
    fold: int
    x: np.ndarray
    curves: dict[str, np.ndarray]
    path: Path
    p_target_file: float | None = None
    time_rank_seconds: float | None = None
    selection: SelectionCheck | None = None
    seed_spread: SeedSpread | None = None
    absent_metrics: frozenset = frozenset()
    settings: str = "{}"
    fold_sha256: str | None = None
    #: the method's parameters as canonical JSON ("null": the file does not say); ``selected_by``:
    #: how they were chosen per fold (a tuned method's "inner validation"), None when declared
    params: str = "null"
    selected_by: str | None = None
    #: rows of the fold file's training and test parts, as it was scored (None: the file does not say)
    n_train: int | None = None
    n_test: int | None = None

    def summary_points(self, p_target: float | None = None) -> slice | list[int]:
        """Grid points a table cell summarises: all (k-grid) or the one nearest ``p_target``."""
        return slice(None) if p_target is None else [p_target_index(self.x, p_target)]


def _selection_check(record: MetricsFile) -> SelectionCheck | None:
    if record.n_constant_features is None:  # the schema holds the check's fields all or none
        return None
    return SelectionCheck(k_values=np.array(record.k_values, dtype=int),
                          n_constant_selected=np.array(record.n_constant_selected, dtype=int),
                          degenerate=np.array(record.degenerate, dtype=bool),
                          n_constant_features=record.n_constant_features)


def _seed_spread(record: MetricsFile, size: int) -> SeedSpread | None:
    from .results.schema import absent_metrics

    if record.seeds is None:
        return None
    absent = absent_metrics(record)
    grid_mean_std = {m: math.nan if m in absent or getattr(record, f"{m}_mean_seed_std") is None
                     else float(getattr(record, f"{m}_mean_seed_std")) for m in METRICS}
    curve_std = {m: np.full(size, np.nan) if m in absent else _curve(getattr(record, f"{m}_seed_std"))
                 for m in METRICS}
    return SeedSpread(tuple(record.seeds), curve_std, grid_mean_std)


def _curve(values: list) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def read_fold_result(path: str | Path, method: str, dataset: str, fold: int, grid: str) -> FoldResult:
    """Read one ``_kgrid_metrics.json`` / ``_pgrid_metrics.json`` file, validated by its schema
    (:mod:`pipeline.results.schema`) and against the names of its path."""
    from .results.schema import absent_metrics, read_metrics_file, settings_key

    path = Path(path)
    record = read_metrics_file(path, grid)
    _check_own_names(record, path, {"method": method, "dataset": dataset, "fold": fold})
    x = record.axis
    absent = absent_metrics(record)
    curves = {m: np.full(len(x), np.nan) if m in absent else _curve(record.curve(m)) for m in METRICS}
    digest = record.provenance.fold_sha256 if record.provenance is not None else None
    return FoldResult(method, dataset, fold, np.asarray(x, dtype=float), curves, path,
                      record.p_target if grid == "pgrid" else None,
                      time_rank_seconds=None if record.time_rank_seconds is None else float(record.time_rank_seconds),
                      selection=_selection_check(record), seed_spread=_seed_spread(record, len(x)),
                      absent_metrics=absent, settings=settings_key(record), fold_sha256=digest,
                      params=json.dumps(record.value("params"), sort_keys=True), selected_by=record.value("selected_by"),
                      n_train=record.n_train, n_test=record.n_test)


def absent_metric_notes(results: "ResultSet") -> list[str]:
    """One note per later metric that some files lack (written before the evaluator computed it)."""
    notes = []
    for metric in sorted(LATER_METRICS, key=METRICS.index):
        lacking = sum(metric in r.absent_metrics for r in results.results.values())
        if lacking:
            notes.append(f"{METRIC_DISPLAY[metric]}: {lacking} of {len(results.results)} metrics files were "
                         "written before the evaluator computed it ('--' in its cells); rerun them to fill it in")
    return notes




def _check_own_names(record: MetricsFile, path: Path, names: dict) -> None:
    """The method, dataset and fold a metrics file names inside must be those of its path: a file
    copied or renamed from another dataset would otherwise be tabulated as this one."""
    for key, expected in names.items():
        found = getattr(record, key)
        if found is not None and found != expected:
            raise DataError(f"the file names another {key} than its path", file=path, field=key,
                            expected=repr(expected), found=shorten(found))


def discover_files(results_dir: str | Path, methods: Sequence[str], grid: str) -> dict[tuple[str, str, int], Path]:
    """Map (method, dataset, fold) to its metrics file for every listed method.

    Every ``*_<grid>_metrics.json`` file must be named ``<DATASET>_fold<i>_<grid>_metrics.json``
    with a valid dataset name and a fold number without leading zeros; anything else is a
    DataError naming the file, never skipped.
    """
    root = Path(results_dir)
    pattern = metrics_name_pattern(grid)
    found = {}
    for method in methods:
        folder = root / validate_name(method, "method")
        if not folder.is_dir():
            raise DataError("method folder not found in the results directory", file=folder)
        for path in sorted(folder.glob(metrics_glob(grid))):
            match = pattern.fullmatch(path.name)
            if match is None or str(int(match["fold"])) != match["fold"]:
                raise DataError(f"metrics file name must read <DATASET>_fold<i>_{grid}_metrics.json "
                                "(i without leading zeros)", file=path)
            found[(method, _name_from_disk(match["dataset"], "dataset", path), int(match["fold"]))] = path
    return found


def discover_budget_records(results_dir: str | Path, methods: Sequence[str]) -> dict[tuple[str, str, int], dict]:
    """Map (method, dataset, fold) to its out-of-budget record for every listed method's folder."""
    found = {}
    for method in methods:
        for path in sorted((Path(results_dir) / validate_name(method, "method")).glob("*" + OUT_OF_BUDGET_SUFFIX)):
            match = out_of_budget_name_pattern().fullmatch(path.name)
            if match is None:
                raise DataError(f"out-of-budget record name must read <DATASET>_fold<i>{OUT_OF_BUDGET_SUFFIX}", file=path)
            dataset, fold = _name_from_disk(match["dataset"], "dataset", path), int(match["fold"])
            found[(method, dataset, fold)] = read_budget_record(results_dir, method, dataset, fold)
    return found


def list_methods(results_dir: str | Path, grid: str) -> list[str]:
    """Sub-folders of ``results_dir`` holding ``*_<grid>_metrics.json`` files, in :func:`name_order`."""
    root = Path(results_dir)
    if not root.is_dir():
        raise DataError("results directory not found", file=root)
    folders = [p for p in root.iterdir() if p.is_dir() and next(p.glob(metrics_glob(grid)), None)]
    if not folders:
        raise DataError(f"no method folder holds {metrics_glob(grid)} files", file=root)
    return name_order(_name_from_disk(p.name, "method", p) for p in folders)


@dataclass
class ResultSet:
    """All fold results of one run for the chosen methods, datasets and grid."""

    grid: str
    methods: list[str]
    datasets: list[str]
    results: dict[tuple[str, str, int], FoldResult]
    results_dir: Path
    expected_folds: dict[str, list[int]] = field(default_factory=dict)
    #: (method, dataset, fold) -> the out-of-budget record of a task stopped at its budget.
    out_of_budget: dict[tuple[str, str, int], dict] = field(default_factory=dict)

    def missing(self) -> list[tuple[str, str, int]]:
        """(method, dataset, fold) triples expected but absent (and not out of budget), sorted."""
        return sorted((m, d, f) for d in self.datasets for m in self.methods for f in self.expected_folds[d]
                      if (m, d, f) not in self.results and (m, d, f) not in self.out_of_budget)

    def out_of_budget_cells(self) -> set[tuple[str, str]]:
        """(method, dataset) cells with a fold stopped at its budget: no value in the tables."""
        return {(m, d) for m, d, _ in self.out_of_budget if d in self.datasets and m in self.methods}

    def check_complete(self, allow_incomplete: bool = False) -> list[str]:
        """Raise DataError naming the missing files, or (if allowed) return them as notes."""
        missing = self.missing()
        if not missing:
            return []
        names = [self._name(key) for key in missing]
        if not allow_incomplete:
            shown = ", ".join(names[:8]) + (f", ... ({len(names) - 8} more)" if len(names) > 8 else "")
            raise DataError(f"{len(names)} result files missing ({shown}); rerun them, restrict "
                            "--methods/--datasets, or pass --allow-incomplete to average each cell "
                            "over the folds it has (flagged in the tables)", file=self.results_dir)
        return [f"missing: {n}" for n in names]

    def settings_groups(self) -> dict[str, list[tuple[str, str, int]]]:
        """The distinct settings (canonical JSON of the grid and ML-kNN settings) and their files."""
        groups: dict[str, list[tuple[str, str, int]]] = {}
        for key, result in sorted(self.results.items()):
            groups.setdefault(result.settings, []).append(key)
        return groups

    def settings(self) -> dict:
        """The grid and ML-kNN settings all files share (after :meth:`check_consistent`)."""
        groups = self.settings_groups()
        return json.loads(next(iter(groups))) if len(groups) == 1 else {}

    def check_consistent(self, separate_settings: bool = False) -> None:
        """Refuse results that cannot be compared: made with different grid or ML-kNN settings
        (unless they are to be tabulated separately), or scored on different files of the same
        fold (DataError naming files that disagree)."""
        groups = {} if separate_settings else self.settings_groups()
        if len(groups) > 1:
            described = [f"{settings} in {len(keys)} file(s), e.g. {self._name(keys[0])}"
                         for settings, keys in sorted(groups.items(), key=lambda item: -len(item[1]))]
            raise DataError(f"results made with different settings: {'; '.join(described[:3])}"
                            f"{' ...' if len(described) > 3 else ''}; rerun them alike, restrict "
                            "--methods/--datasets, or pass --separate-settings for one set of tables per "
                            "setting", file=self.results_dir)
        self.fold_digests()
        self._check_same_params()

    def fold_digests(self) -> dict[tuple[str, int], str]:
        """(dataset, fold) -> the SHA-256 of the fold file its metrics files were scored on (files
        that name none are left out).

        Raises
        ------
        DataError
            If two methods were scored on different files of one fold.
        """
        digests: dict[tuple[str, int], tuple[str, tuple]] = {}
        for key, result in sorted(self.results.items()):
            if result.fold_sha256 is None:
                continue
            first = digests.setdefault((key[1], key[2]), (result.fold_sha256, key))
            if first[0] != result.fold_sha256:
                raise DataError(f"methods were scored on different files of one fold: {self._name(first[1])} "
                                f"and {self._name(key)} name different fold digests (provenance.fold_sha256)",
                                file=self.results_dir)
        return {fold: digest for fold, (digest, _) in digests.items()}

    def _check_same_params(self) -> None:
        """Refuse a table cell (method, dataset) whose folds were made with different declared
        parameters (files copied from other runs); a tuned method's folds may differ (chosen per fold)."""
        cells: dict[tuple[str, str], dict[str, list[int]]] = {}
        for (method, dataset, fold), result in sorted(self.results.items()):
            if result.selected_by is None:
                cells.setdefault((method, dataset), {}).setdefault(result.params, []).append(fold)
        for (method, dataset), by_params in cells.items():
            if len(by_params) > 1:
                groups = sorted(by_params.values())
                described = "; ".join(f"fold(s) {', '.join(map(str, folds))}" for folds in groups)
                raise DataError(f"{method} on {dataset}: folds scored with different parameters ({described}); "
                                "rerun them with one setting (--skip-existing redoes what differs from the suite)",
                                file=self.results_dir / method, field="params")

    def restricted_to(self, settings: str) -> "ResultSet":
        """The results made with ``settings`` (one of :meth:`settings_groups`)."""
        results = {key: r for key, r in self.results.items() if r.settings == settings}
        datasets = [d for d in self.datasets if any(key[1] == d for key in results)]
        methods = [m for m in self.methods if any(key[0] == m for key in results)]
        return ResultSet(self.grid, methods, datasets, results, self.results_dir,
                         {d: self.expected_folds[d] for d in datasets},
                         {key: r for key, r in self.out_of_budget.items() if key[0] in methods and key[1] in datasets})

    def _name(self, key: tuple[str, str, int]) -> str:
        method, dataset, fold = key
        return f"{method}/{metrics_name(dataset, fold, self.grid)}"


def load_results(results_dir: str | Path, methods: Sequence[str], grid: str = "kgrid", *,
                 datasets: Sequence[str] | None = None, n_folds: int | None = None,
                 separate_settings: bool = False) -> ResultSet:
    """Load every metrics file of ``methods`` (and ``datasets``, if given) for ``grid``, and check
    that they can be compared (:meth:`ResultSet.check_consistent`).

    Parameters
    ----------
    datasets : sequence of str, optional
        The datasets and their order (the table rows). Each must have metrics files. By default
        every dataset found, in :func:`name_order`.
    n_folds : int, optional
        Expected folds 0..n_folds-1 for every dataset. By default the folds expected for a dataset
        are the union of the folds any method has for it.
    separate_settings : bool
        Accept files made with different grid or ML-kNN settings (to be split with
        :meth:`ResultSet.settings_groups` and :meth:`ResultSet.restricted_to`).
    """
    if grid not in GRIDS:
        raise ConfigError("unknown grid", field="grid", expected=" or ".join(GRIDS), found=grid)
    files = discover_files(results_dir, methods, grid)
    stopped = {key: record for key, record in discover_budget_records(results_dir, methods).items() if key not in files}
    found = {d for _, d, _ in files}
    if not found:
        raise DataError(f"no {metrics_glob(grid)} files for the chosen methods", file=results_dir)
    found |= {d for _, d, _ in stopped}  # a dataset on which every method ran out of budget keeps its row
    names = name_order(found) if datasets is None else _chosen_datasets(datasets, found, grid, results_dir)
    files = {key: path for key, path in files.items() if key[1] in names}
    stopped = {key: record for key, record in stopped.items() if key[1] in names}
    results = {key: read_fold_result(path, *key, grid) for key, path in sorted(files.items())}
    expected = {d: list(range(n_folds)) if n_folds else sorted({f for _, dd, f in [*results, *stopped] if dd == d})
                for d in names}
    loaded = ResultSet(grid, list(methods), names, results, Path(results_dir), expected, stopped)
    loaded.check_consistent(separate_settings)
    return loaded


def _chosen_datasets(datasets: Sequence[str], found: set[str], grid: str, results_dir) -> list[str]:
    """The requested datasets in the requested order, each validated, listed once and present."""
    names = [validate_name(d, "dataset") for d in datasets]
    if len(set(names)) != len(names):
        raise ConfigError("a dataset is listed twice", field="datasets", found=names)
    absent = [d for d in names if d not in found]
    if absent:
        by_case = {d.casefold(): d for d in found}
        hints = [f"{d} (found {by_case[d.casefold()]})" if d.casefold() in by_case else d for d in absent]
        raise DataError(f"no {metrics_glob(grid)} files for {', '.join(hints)}; names are case-sensitive",
                        file=results_dir)
    return names


def fold_scalar(result: FoldResult, metric: str, *, p_target: float | None = None) -> float:
    """The fold's single value: curve mean over the grid (k-grid) or value nearest ``p_target``."""
    return float(result.curves[metric][result.summary_points(p_target)].mean())


def _table_target(results: ResultSet, p_target: float | None) -> float | None:
    if results.grid == "pgrid" and p_target is None:
        raise ConfigError("p-grid aggregation needs p_target", field="p_target")
    return p_target if results.grid == "pgrid" else None


def tidy_frame(rows: list[tuple]) -> pd.DataFrame:
    """A frame of :data:`TIDY_COLUMNS` from ``(dataset, method, fold, metric, value)`` rows."""
    # pandas takes about a second to import: a command that makes no table (a run) does not pay it
    import pandas as pd

    return pd.DataFrame(rows, columns=TIDY_COLUMNS)


def fold_table(results: ResultSet, *, p_target: float | None = None) -> pd.DataFrame:
    """Tidy per-fold scalars: columns dataset, method, fold, metric, value; a cell with a fold out
    of budget has none (its finished folds are no value of the method on that dataset)."""
    target = _table_target(results, p_target)
    stopped = results.out_of_budget_cells()
    rows = [(d, m, f, metric, fold_scalar(r, metric, p_target=target))
            for (m, d, f), r in results.results.items() if (m, d) not in stopped for metric in METRICS]
    return tidy_frame(rows)


def time_table(results: ResultSet) -> pd.DataFrame:
    """Tidy ranking times (metric ``time_rank_seconds``) of the files that carry one."""
    rows = [(d, m, f, TIME_FIELD, r.time_rank_seconds) for (m, d, f), r in results.results.items()
            if r.time_rank_seconds is not None]
    return tidy_frame(rows)


def tuning_time_table(results: ResultSet) -> pd.DataFrame:
    """Tidy tuning times (metric ``tuning_seconds``) of the folds whose method was tuned: the seconds
    of all its candidates, ranking and scoring on every inner split (the tuning record's ``timings``)."""
    rows = []
    for (m, d, f) in results.results:
        seconds = _tuning_seconds(tuning_path(results.results_dir, m, d, f))
        if seconds is not None:
            rows.append((d, m, f, TUNING_TIME_FIELD, seconds))
    return tidy_frame(rows)


def _tuning_seconds(path: Path) -> float | None:
    """``candidates_rank_seconds + candidates_eval_seconds`` of a tuning record; None without one.

    Raises
    ------
    DataError
        Naming the file and ``timings`` when the record does not hold them as non-negative numbers.
    """
    from .documents import read_result_file

    if not path.is_file():
        return None
    record = read_result_file(path, "tuning record")
    timings = record.get("timings") if isinstance(record, dict) else None
    keys = ("candidates_rank_seconds", "candidates_eval_seconds")
    values = [timings.get(key) for key in keys] if isinstance(timings, dict) else []
    if len(values) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < math.inf
                                   for v in values):
        raise DataError("the tuning record's times are not readable", file=path, field="timings",
                        expected=f"{' and '.join(keys)}: non-negative numbers", found=shorten(timings))
    return float(sum(values))


def seed_spread_table(results: ResultSet, *, p_target: float | None = None) -> pd.DataFrame:
    """Tidy per-fold std over seeds of the value a table cell summarises, for seed-averaged files.

    k-grid: the std over seeds of each seed's grid mean; p-grid: the std over seeds at the grid
    point nearest ``p_target``.
    """
    target = _table_target(results, p_target)
    rows = []
    for (m, d, f), r in results.results.items():
        if r.seed_spread is None:
            continue
        for metric in METRICS:
            std = (r.seed_spread.grid_mean_std[metric] if target is None
                   else float(r.seed_spread.curve_std[metric][r.summary_points(target)][0]))
            rows.append((d, m, f, metric, std))
    return tidy_frame(rows)


def seed_runs(results: ResultSet) -> dict[str, dict[tuple[int, ...] | None, int]]:
    """Per method with any seed-averaged file: number of files per seed list (None = single run)."""
    runs = {m: Counter() for m in results.methods}
    for (method, _, _), r in sorted(results.results.items()):
        runs[method][None if r.seed_spread is None else r.seed_spread.seeds] += 1
    return {m: dict(c) for m, c in runs.items() if any(seeds is not None for seeds in c)}


@dataclass(frozen=True)
class DegenerateFold:
    """A fold whose selection is degenerate at some grid points.

    ``points`` holds (grid index, x, k, n_constant_selected) per degenerate point, x being k or p;
    ``in_tables`` says whether one of them is a point the table cell summarises.
    """

    method: str
    dataset: str
    fold: int
    points: tuple[tuple[int, float, int, int], ...]
    n_constant_features: int
    in_tables: bool


def degenerate_folds(results: ResultSet, *, p_target: float | None = None) -> list[DegenerateFold]:
    """Every fold with a degenerate grid point, in table order (dataset, method) and by fold."""
    target = _table_target(results, p_target)
    out = []
    for (m, d, f), r in results.results.items():
        check = r.selection
        if check is None or not check.degenerate.any():
            continue
        points = tuple((int(i), float(r.x[i]), int(check.k_values[i]), int(check.n_constant_selected[i]))
                       for i in np.flatnonzero(check.degenerate))
        out.append(DegenerateFold(m, d, f, points, check.n_constant_features,
                                  bool(check.degenerate[r.summary_points(target)].any())))
    order = {d: i for i, d in enumerate(results.datasets)}
    return sorted(out, key=lambda g: (order[g.dataset], results.methods.index(g.method), g.fold))


def p_target_used(results: ResultSet, p_target: float) -> tuple[float, list[str]]:
    """The grid point used for ``p_target`` (identical in every file) and notes on mismatches."""
    used = {float(r.x[p_target_index(r.x, p_target)]) for r in results.results.values()}
    if max(used) - min(used) > GRID_TOLERANCE:
        raise DataError(f"the p grids differ between files: p_target {p_target} maps to {sorted(used)}",
                        file=results.results_dir)
    notes = []
    value = min(used)
    if abs(value - p_target) > GRID_TOLERANCE:
        notes.append(f"p_target {p_target} is not on the grid; the nearest point p = {value:g} is used")
    file_targets = sorted({r.p_target_file for r in results.results.values()
                           if r.p_target_file is not None and abs(r.p_target_file - p_target) > GRID_TOLERANCE})
    if file_targets:
        notes.append(f"the evaluator wrote *_at_p_target for p_target {file_targets}; "
                     f"tables use the curve value at p = {value:g} instead")
    return value, notes


def summarise(folds: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample std (ddof=1; NaN for a single fold) per dataset, method and metric.

    A NaN fold value makes the cell's mean NaN: it is reported, not dropped.
    Columns: dataset, method, metric, mean, std, n_folds.
    """
    grouped = folds.groupby(["dataset", "method", "metric"], sort=False)["value"]
    out = grouped.agg(mean=lambda v: float(np.mean(v.to_numpy())),
                      std=lambda v: float(np.std(v.to_numpy(), ddof=1)) if len(v) > 1 else math.nan,
                      n_folds="size").reset_index()
    return out


def score_frames(means: pd.DataFrame, metric: str, methods: Sequence[str],
                 datasets: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Datasets x methods frames of mean, std and n_folds for one metric (NaN where missing)."""
    sub = means[means["metric"] == metric]
    frames = tuple(sub.pivot(index="dataset", columns="method", values=col)
                   .reindex(index=list(datasets), columns=list(methods)) for col in ("mean", "std", "n_folds"))
    return frames


def complete_rows(matrix: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Rows of ``matrix`` with a finite value for every method, and the names of the others."""
    finite = np.isfinite(matrix.to_numpy(dtype=float)).all(axis=1)
    return matrix[finite], [str(d) for d in matrix.index[~finite]]


def mean_curves(results: ResultSet, metric: str) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """Per dataset and method: (x, mean over folds, sample std over folds) of a metric curve.

    All folds of a (dataset, method) must share the grid (within 1e-9), else DataError.
    """
    out: dict[str, dict[str, tuple]] = {}
    for dataset in results.datasets:
        for method in results.methods:
            folds = [r for (m, d, _), r in sorted(results.results.items()) if m == method and d == dataset]
            if not folds:
                continue
            x = folds[0].x
            for r in folds[1:]:
                if r.x.shape != x.shape or np.abs(r.x - x).max() > GRID_TOLERANCE:
                    raise DataError("folds of one dataset have different grids", file=r.path,
                                    expected=x.tolist(), found=r.x.tolist())
            stack = np.vstack([r.curves[metric] for r in folds])
            std = stack.std(axis=0, ddof=1) if len(folds) > 1 else np.full(x.shape, np.nan)
            out.setdefault(dataset, {})[method] = (x, stack.mean(axis=0), std)
    return out


def curve_over_datasets(per_dataset: dict[str, dict[str, tuple]], method: str) -> tuple[np.ndarray, np.ndarray]:
    """Unweighted mean over datasets of a method's fold-mean curves, on the grid points every
    dataset has (k-grids end at min(300, d), so the common k range is the smallest one)."""
    curves = [per_dataset[d][method] for d in per_dataset if method in per_dataset[d]]
    if not curves:
        return np.array([]), np.array([])
    common = sorted(set.intersection(*(set(np.round(x, 9).tolist()) for x, _, _ in curves)))
    values = [np.array([dict(zip(np.round(x, 9).tolist(), mean))[c] for c in common]) for x, mean, _ in curves]
    return np.array(common), np.mean(values, axis=0)


def read_all_features(results_dir: str | Path, datasets: Sequence[str],
                      folds: dict[str, list[int]], fold_digests: dict[tuple[str, int], str] | None = None
                      ) -> pd.DataFrame:
    """Tidy per-fold scores of ML-kNN on every feature (``_reference/<DATASET>_fold<i>_all_features.json``).

    Only the expected folds of the given datasets are read; absent files give no rows (a dataset
    without any has no reference). A present file must be valid: DataError naming it otherwise; a
    metric it lacks (made before the evaluator computed it) reads as missing. ``fold_digests``
    ((dataset, fold) -> SHA-256, :meth:`ResultSet.fold_digests`): the fold files the methods were
    scored on; a reference scored on another file is refused (DataError), so no table puts it
    beside them. Columns as :func:`fold_table` (method ``""``).
    """
    rows = []
    for dataset in datasets:
        for fold in folds[dataset]:
            path = all_features_path(results_dir, dataset, fold)
            if path.is_file():
                values = _read_all_features_file(path, dataset, fold, (fold_digests or {}).get((dataset, fold)))
                rows += [(dataset, "", fold, metric, values[metric]) for metric in METRICS]
    return tidy_frame(rows)


def _read_all_features_file(path: Path, dataset: str, fold: int, fold_sha256: str | None) -> dict[str, float]:
    from .results.schema import read_all_features_file

    record = read_all_features_file(path)
    if record.dataset != dataset or record.fold != fold:
        raise DataError("file name and content disagree", file=path, field="dataset/fold",
                        expected=f"{dataset} fold {fold}", found=f"{record.dataset!r} fold {record.fold!r}")
    scored_on = record.provenance.fold_sha256 if record.provenance is not None else None
    if fold_sha256 is not None and scored_on is not None and scored_on != fold_sha256:
        raise DataError(f"the all-features reference of {dataset} fold {fold} was scored on another fold file "
                        "than the methods; rerun with --skip-existing to redo what is stale", file=path,
                        field="provenance.fold_sha256", expected=fold_sha256, found=scored_on)
    # a metric the file predates is missing ('--'), not an error
    return {metric: math.nan if record.metrics.get(metric) is None else float(record.metrics[metric])
            for metric in METRICS}


def ranking_engines(results: ResultSet) -> dict[tuple[str, str, int], str]:
    """Per (method, dataset, fold): the engine that ranked the features.

    The engine comes from the ranking record (``_ranking.json``) beside the metrics file, or from
    those of its seed folders (``<METHOD>__seed_<s>``) for a seed-averaged file (several engines
    joined by ``+``); ``external`` when the metrics file says the ranking was made outside the
    pipeline, ``unknown`` when nothing says.
    """
    engines = {}
    for (method, dataset, fold), r in results.results.items():
        folders = [method] if r.seed_spread is None else [seed_folder(method, s) for s in r.seed_spread.seeds]
        name = ranking_record_name(dataset, fold)
        found = sorted({_record_engine(results.results_dir / folder / name) for folder in folders} - {None})
        if not found:
            found = ["external" if _provenance_engine(r.path) == "external" else "unknown"]
        engines[(method, dataset, fold)] = "+".join(found)
    return engines


def _record_engine(path: Path) -> str | None:
    """The engine a ranking record names; None when it is absent or unreadable (the caption then
    says the engine is not known, nothing fails)."""
    record = _ranking_record(path)
    return None if record is None else record.engine


def _ranking_record(path: Path):
    """The ranking record at ``path``; None when it is absent or unreadable."""
    from .results.schema import read_ranking_record

    try:
        return read_ranking_record(path) if path.is_file() else None
    except DataError:
        return None


@dataclass(frozen=True)
class WarnedFold:
    """A fold whose ranking's method call warned (:mod:`pipeline.method_warnings`), summed over its
    seed folders for a seed-averaged file: ``count`` warnings, ``messages`` (distinct text, count),
    the most frequent first, ``unlisted`` distinct messages the records do not list."""

    method: str
    dataset: str
    fold: int
    count: int
    messages: tuple[tuple[str, int], ...]
    unlisted: int


def warned_folds(results: ResultSet) -> list[WarnedFold]:
    """Every fold whose ranking record (or those of its seed folders) counts numerical warnings, in
    table order (dataset, method) and by fold. Records written before warnings were recorded count none."""
    out = []
    for (method, dataset, fold), r in results.results.items():
        folders = [method] if r.seed_spread is None else [seed_folder(method, s) for s in r.seed_spread.seeds]
        records = [_ranking_record(results.results_dir / folder / ranking_record_name(dataset, fold))
                   for folder in folders]
        summaries = [record.warnings for record in records if record is not None and record.warnings is not None]
        count = sum(w.count for w in summaries)
        if count:
            messages = Counter()
            for summary in summaries:
                for message in summary.messages:
                    messages[message.text] += message.count
            out.append(WarnedFold(method, dataset, fold, count, tuple(messages.most_common()),
                                  sum(w.unlisted for w in summaries)))
    order = {d: i for i, d in enumerate(results.datasets)}
    return sorted(out, key=lambda g: (order[g.dataset], results.methods.index(g.method), g.fold))


def _provenance_engine(path: Path) -> str | None:
    from .results.schema import read_metrics_file

    try:
        provenance = read_metrics_file(path).provenance
    except DataError:
        return None
    return None if provenance is None else provenance.engine
