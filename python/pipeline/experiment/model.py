"""The declaration of an experiment, validated: what a suite file (``paper/suite.yaml``, docs/paper.md)
or the options of ``pipeline.kgrid`` / ``pgrid`` / ``evaluate`` say.

An experiment is data: datasets, how their folds are made (or which fold files it uses), the methods
with their parameters, sweeps and seeds, the engine, the ML-kNN settings, the grids, how the tasks
are executed and which tables are made. In a suite file, paths of what the run writes (folds,
results, tables) are relative to the run's root folder (``--root``, default the working directory)
and paths of what it reads (the display map) to the suite file's folder; a command line's paths
are used as given.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from numbers import Real
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..data.export import ExportSettings
from ..data.folds import discover_datasets, list_fold_indices
from ..data.splits import check_split_settings
from ..documents import CONFIG_LIMITS, read_document, schema_error
from ..engines import ENGINES
from ..errors import ConfigError
from ..evaluation.metrics import METRICS
from ..limits import DEFAULT_MAX_TASKS, JOB_COUNT, MAX_JOBS, MAX_SUITE_BYTES, usable_cores
from ..methods import available_methods, get_method
from ..names import distinct_names, validate_name
from ..report.options import DOCUMENT_OPTIONS, read_display_map
from ..results.layout import seed_folder, task_files, variant_folder
from ..runner.claims import DEFAULT_STALE_AFTER
from ..runner.plugins import activate_plugins, engine_options, plugin_paths
from ..runner.reference import reference_tasks
from ..runner.tasks import GridSpec, Task, canonical_params
from ..runner.inner import TuningSpec
from .schema import PATHS_AS_GIVEN, GridsSection, MethodSection, SuiteFile, TablesSection, TuningSection

SUITE_LIMITS = replace(CONFIG_LIMITS, max_bytes=MAX_SUITE_BYTES)


@dataclass(frozen=True)
class MethodEntry:
    """One method of the experiment: parameter overrides, for random-start methods several seeds, a
    parameter sweep (``sweep``: (parameter, values) pairs, one variant per combination), and the
    grid its parameters are tuned over on inner splits (``tune``: (parameter, values) pairs)."""

    name: str
    params: dict = field(default_factory=dict)
    seeds: tuple[int, ...] = ()
    external: bool = False
    tune: tuple[tuple[str, tuple], ...] = ()
    sweep: tuple[tuple[str, tuple], ...] = ()

    def variant_count(self) -> int:
        """How many variants :meth:`variants` makes, without expanding a sweep."""
        return len(self.seeds) or math.prod(len(values) for _, values in self.sweep)

    def candidate_count(self) -> int:
        """Size of the tune grid's Cartesian product, without expanding it (0 untuned)."""
        return math.prod(len(values) for _, values in self.tune) if self.tune else 0

    def candidates(self) -> list[dict]:
        """The tune grid's Cartesian product in declared order (the first parameter varies slowest); none untuned."""
        if not self.tune:
            return []
        names = [name for name, _ in self.tune]
        return [dict(zip(names, values)) for values in itertools.product(*(values for _, values in self.tune))]

    def variants(self) -> list[tuple[str, dict]]:
        """(results folder, parameters) per seed or sweep combination; one variant under the method's own
        name without either."""
        if self.sweep:
            return parameter_variants(self.name, {**self.params, **{name: list(values) for name, values in self.sweep}})
        if not self.seeds:
            return [(self.name, dict(self.params))]
        return [(seed_folder(self.name, seed), {**self.params, "seed": seed}) for seed in self.seeds]


def parameter_variants(method: str, overrides: dict, max_variants: int = DEFAULT_MAX_TASKS
                       ) -> list[tuple[str, dict]]:
    """Expand list-valued parameters into their Cartesian product.

    Returns ``(results folder, parameters)`` pairs. Without lists there is one variant stored under
    the method's own name; with lists each combination gets its own folder
    ``METHOD__name_value__name_value`` (swept names in sorted order), e.g. ``LRMFS__alpha_0.1``.
    More than ``max_variants`` combinations raise ConfigError before any is built.
    """
    swept = sorted(name for name, value in overrides.items() if isinstance(value, list))
    if not swept:
        return [(method, dict(overrides))]
    if any(len(overrides[name]) == 0 for name in swept):
        raise ConfigError(f"empty value list in the parameter sweep of {method}", field=swept[0])
    _check_combinations(method, [len(overrides[name]) for name in swept], max_variants)
    variants = []
    for combination in itertools.product(*(overrides[name] for name in swept)):
        params = {**overrides, **dict(zip(swept, combination))}
        label = variant_folder(method, zip(swept, combination))
        variants.append((validate_name(label, "parameter-sweep folder"), params))
    _check_distinct_folders(method, variants)
    return variants


def _check_distinct_folders(method: str, variants: list[tuple[str, dict]]) -> None:
    """ConfigError if two combinations would share a results folder (also on a file system that
    ignores case): the second would silently overwrite or reuse the first one's results."""
    seen: dict[str, dict] = {}
    for label, params in variants:
        other = seen.setdefault(label.lower(), params)
        if other is not params:
            raise ConfigError(f"two combinations of the parameter sweep of {method} map to the same results "
                              "folder", field=label, expected="values that differ in their written form",
                              found=f"{other} and {params}")


def _check_combinations(method: str, sizes: list[int], limit: int) -> None:
    """ConfigError if swept lists of ``sizes`` values have more than ``limit`` combinations."""
    combinations = math.prod(sizes)
    if combinations > limit:
        raise ConfigError(f"the parameter sweep of {method} has {combinations} combinations",
                          field="run.max_tasks", expected=f"at most {limit} (raise --max-tasks to run them)")


def _sweep_key(value) -> object:
    """What makes two swept values the same run: numbers by value (1 == 1.0), others by type and text."""
    if isinstance(value, Real) and not isinstance(value, bool):
        return float(value)
    return type(value).__name__, repr(value)


@dataclass(frozen=True)
class Experiment:
    """A validated experiment (see :func:`load_suite` and :func:`experiment_from_options`).

    ``folds`` is None when the experiment uses fold files already in ``folds_dir`` (``mode: files``);
    then :meth:`located` finds its datasets (when none are named) and each dataset's folds.
    """

    name: str
    datasets: tuple[str, ...]
    folds: ExportSettings | None
    folds_dir: str
    methods: tuple[MethodEntry, ...]
    engine: str
    evaluator: str
    mlknn_k: int
    mlknn_smooth: float
    grids: tuple[GridSpec, ...]
    results_dir: str
    executor: str
    jobs: int
    task_timeout: float
    tables: dict | None
    task_memory: int | None = None
    description: str = ""
    fold_count: int | None = None
    source_dir: str = "."
    tuning: TuningSpec | None = None
    plugins: tuple[str, ...] = ()
    skip_existing: bool = True
    overwrite: bool = False
    scheduler: str | None = None
    #: a Dask cluster the run starts itself, as ``dask_jobqueue`` takes it: ``{"slurm": {...}}``
    cluster: dict | None = None
    claim_stale_after: float = DEFAULT_STALE_AFTER
    max_tasks: int = DEFAULT_MAX_TASKS
    progress: bool = True
    score_only: bool = False
    named_datasets: bool = True  # False: the datasets are every folder of fold files (discovered)
    #: Found by :meth:`located`: each dataset's fold files (fold-file experiments), and the
    #: (results folder, dataset, fold)s that have a ranking (score-only experiments without named datasets).
    fold_files: tuple[tuple[str, tuple[int, ...]], ...] = ()
    given_rankings: frozenset | None = None

    @property
    def external_methods(self) -> tuple[str, ...]:
        """Methods whose rankings are given (``external: true``): scored, never computed."""
        return tuple(m.name for m in self.methods if m.external)

    @property
    def fold_indices(self) -> list[int]:
        """The folds this run uses: all declared ones, or the first ``--folds`` of them (fold files:
        those every dataset has)."""
        if self.folds is None:
            common = set.intersection(*(set(folds) for _, folds in self.fold_files)) if self.fold_files else set()
            return sorted(common)
        return list(range(self.fold_count or self.folds.n_folds))

    def folds_of(self, dataset: str) -> list[int]:
        """The folds of ``dataset`` this run uses."""
        return list(dict(self.fold_files)[dataset]) if self.folds is None else self.fold_indices

    def located(self, folds_dir: Path, results_dir: Path) -> "Experiment":
        """The experiment with what its folders hold: for fold files, the datasets (every folder of
        ``folds_dir`` with fold0.mat, unless named) and the folds of each (every one present, or
        0..``fold_count``-1, which must all exist); for given rankings without named datasets, the
        (dataset, fold)s that have one. ConfigError when there is nothing to run."""
        experiment = self
        if self.folds is None:
            if not Path(folds_dir).is_dir():
                raise ConfigError("data directory not found", file=folds_dir)
            datasets = self.datasets or tuple(distinct_names(discover_datasets(folds_dir), "datasets", "dataset"))
            if not datasets:
                raise ConfigError("no dataset folder with fold0.mat found", file=folds_dir)
            experiment = replace(self, datasets=datasets, fold_files=tuple(
                (dataset, tuple(_fold_files(folds_dir, dataset, self.fold_count))) for dataset in datasets))
        if self.score_only:
            experiment = experiment._with_given_rankings(Path(results_dir))
        return experiment

    def _with_given_rankings(self, results_dir: Path) -> "Experiment":
        for entry in self.methods:
            if not (results_dir / entry.name).is_dir():
                raise ConfigError("method folder not found", file=results_dir / entry.name)
        if self.named_datasets:
            return self
        given = frozenset((label, dataset, fold) for dataset in self.datasets for fold in self.folds_of(dataset)
                          for entry in self.methods for label, _ in entry.variants()
                          if task_files(results_dir, label, dataset, fold).ranking.is_file())
        if not given:
            raise ConfigError("no ranking to score for these methods", file=results_dir,
                              expected="<METHOD>/<DATASET>_fold<i>_ranking.csv")
        return replace(self, given_rankings=given)

    def tasks(self) -> list[Task]:
        """Every (method variant, dataset, fold) task, datasets outermost (as the tables read them), then
        (unless every ranking is given) the all-features reference of every (dataset, fold).

        A tuned method's tasks have stage ``"tuned"`` and its fixed parameters only: the parameters
        inner validation chooses are added once its candidates are scored (:mod:`pipeline.experiment.tuning`).
        """
        tasks = []
        for dataset in self.datasets:
            for fold in self.folds_of(dataset):
                for entry in self.methods:
                    for label, params in entry.variants():
                        if self.given_rankings is None or (label, dataset, fold) in self.given_rankings:
                            tasks.append(Task(entry.name, dataset, fold, canonical_params(params), label,
                                              "tuned" if entry.tune else ""))
        if self.score_only:
            return tasks
        return tasks + reference_tasks({dataset: self.folds_of(dataset) for dataset in self.datasets})

    def candidate_tasks(self) -> list[Task]:
        """Every tuning candidate: (dataset, fold, method variant, candidate), candidates in declared order."""
        tasks = []
        for dataset in self.datasets:
            for fold in self.folds_of(dataset):
                for entry in self.methods:
                    for label, params in entry.variants():
                        tasks.extend(Task(entry.name, dataset, fold, canonical_params({**params, **candidate}), label,
                                          "candidate") for candidate in entry.candidates())
        return tasks

    def restricted(self, *, datasets=None, methods=None, folds=None, engine=None, jobs=None, max_tasks=None,
                   progress=None) -> "Experiment":
        """The same suite limited to some datasets, methods or folds, or on another engine / job count,
        task limit or progress display."""
        changes: dict[str, Any] = {"max_tasks": max_tasks, "progress": progress}
        changes = {key: value for key, value in changes.items() if value is not None}
        if datasets:
            changes["datasets"] = tuple(_subset(datasets, self.datasets, "dataset"))
        if methods:
            wanted = _subset(methods, [m.name for m in self.methods], "method")
            changes["methods"] = tuple(m for m in self.methods if m.name in wanted)
        if folds is not None:  # of fold files: the first --folds of them, which must exist (located)
            if self.folds is not None and not 1 <= folds <= self.folds.n_folds:
                raise ConfigError("--folds must be between 1 and the suite's fold count",
                                  expected=f"1..{self.folds.n_folds}", found=folds)
            changes["fold_count"] = folds
        if engine is not None:
            changes["engine"] = _choice(engine, ENGINES, "engine")
        if jobs is not None:
            changes["jobs"] = _jobs(jobs)
        return replace(self, **changes)


def load_suite(path: str | Path, *, plugins=(), engine: str | None = None) -> Experiment:
    """Read and validate a suite file: the strict YAML reader (:mod:`pipeline.documents`), then the
    schema (:class:`SuiteFile`), then the checks that need the registry (methods and their
    parameters, fold settings, grids) and the display map it names. ``status`` and ``run`` both
    call this, so they accept and refuse the same files.

    The suite's ``plugins:`` folders (relative to the suite file) and ``plugins`` (more folders)
    are loaded first, for ``engine`` (default: the suite's), so that their methods can be named.

    Raises
    ------
    ConfigError
        One line naming the file, the field, what was expected and what was found.
    """
    path = Path(path)
    data = read_document(path, "suite file", limits=SUITE_LIMITS, kind="yaml")
    data = {} if data is None else data
    try:
        model = SuiteFile.model_validate(data)
        source = path.resolve().parent
        folders = _load_plugins(model, [*(source / folder for folder in model.plugins), *plugins], engine)
        suite = replace(_parse(model), source_dir=str(source), plugins=folders)
        if suite.tables and suite.tables["display_map"]:
            read_display_map(source / suite.tables["display_map"])
        return suite
    except ValidationError as exc:
        raise schema_error(exc, data, SuiteFile, file=path) from None
    except ConfigError as exc:
        raise exc if exc.file else ConfigError(exc.message, file=path, field=exc.field, expected=exc.expected,
                                               found=exc.found) from None


def experiment_from_options(data: dict, plugins=()) -> Experiment:
    """The experiment a command line's options describe (``data``: a suite's keys, its paths as the
    user gave them), validated by the same schema and checks as a suite file, once the ``plugins``
    folders are loaded. ConfigError naming the key (``mlknn.k``) for anything refused."""
    try:
        model = SuiteFile.model_validate(data, context=PATHS_AS_GIVEN)
        folders = _load_plugins(model, plugins)  # first: the experiment may name their methods
        return replace(_parse(model), plugins=folders)
    except ValidationError as exc:
        raise schema_error(exc, data, SuiteFile) from None


def _load_plugins(model: SuiteFile, folders, engine: str | None = None) -> tuple[str, ...]:
    """Load the plug-in ``folders`` (resolved) for ``engine`` (default: the experiment's), on the run's
    session settings (its first tasks reuse that session), so that their methods can be named."""
    folders = plugin_paths(folders)
    if folders:
        activate_plugins(folders, engine or model.engine, engine_options(model.run.task_timeout, folders))
    return folders


def _parse(suite: "SuiteFile") -> Experiment:
    folds, run = suite.folds, suite.run
    export = _export_settings(folds) if folds.mode != "files" else None
    grids = _grids(suite.grids)
    methods = _methods(suite.methods, run.max_tasks, suite.score_only)
    tuning = _tuning(suite.tuning, export, grids) if suite.tuning is not None else None
    untuned = [entry.name for entry in methods if entry.tune] if tuning is None else []
    if untuned:
        raise ConfigError("tune needs the suite's tuning section (inner splits and criterion)",
                          field=f"methods.{untuned[0]}.tune")
    return Experiment(
        name=_within("name", validate_name, suite.name, "suite"), description=suite.description,
        datasets=tuple(distinct_names(suite.datasets or [], "datasets", "dataset")), folds=export, folds_dir=folds.dir,
        fold_count=folds.count if export is None else None,
        methods=methods, tuning=tuning, engine=suite.engine, evaluator=suite.evaluator,
        mlknn_k=suite.mlknn.k, mlknn_smooth=suite.mlknn.smooth, grids=grids,
        results_dir=run.results_dir or f"results/{suite.name}", executor=run.executor,
        jobs=_jobs(run.jobs), task_timeout=run.task_timeout, task_memory=run.task_memory, skip_existing=run.skip_existing,
        overwrite=run.overwrite, scheduler=run.scheduler, claim_stale_after=run.claim_stale_after,
        cluster=run.cluster.model_dump() if run.cluster is not None else None,
        max_tasks=run.max_tasks, progress=run.progress, score_only=suite.score_only,
        named_datasets=suite.datasets is not None,
        tables=_tables(suite.tables, suite.methods) if suite.tables is not None else None)


def _export_settings(folds) -> ExportSettings:
    """The export settings of ``folds`` (mode holdout or kfold), checked as the export checks them."""
    export = ExportSettings(mode=folds.mode, n_folds=folds.count, seed=folds.seed,
                            test_size=None if folds.test_size in ("reference", None) else folds.test_size,
                            scaler=folds.scaler, clip_test=folds.clip_test)
    reference = export.mode == "holdout" and export.test_size is None  # each dataset's own n_test / n
    _within("folds", replace(export, test_size=0.5).validate if reference else export.validate)
    return export


def _within(section: str, check, *args, **kwargs):
    """``check(*args, **kwargs)``, with the field of a ConfigError it raises put under ``section``."""
    try:
        return check(*args, **kwargs)
    except ConfigError as exc:
        field = f"{section}.{exc.field}" if exc.field and exc.field != section else section
        raise ConfigError(exc.message, field=field, expected=exc.expected, found=exc.found) from None


def _methods(methods: dict[str, "MethodSection | None"], max_tasks: int, score_only: bool
             ) -> tuple[MethodEntry, ...]:
    distinct_names(list(methods), "methods", "method")
    entries = []
    for name, body in methods.items():
        body = body or MethodSection()
        where = f"methods.{name}"
        if body.external or score_only:
            entries.append(_external_entry(name, body, score_only))
            continue
        method_spec = _within(where, lambda: get_method(validate_name(name, "method")))
        seeds = tuple(body.seeds)
        if seeds and method_spec.make_init is None and "seed" not in method_spec.defaults:
            raise ConfigError(f"{name} has no random start: seeds do not apply", field=f"{where}.seeds")
        if len(set(seeds)) != len(seeds):
            raise ConfigError("a seed is listed twice", field=f"{where}.seeds", found=list(seeds))
        _within(f"{where}.params", method_spec.resolve_params, body.params)
        tune = _tune_grid(body.tune or {}, method_spec, f"{where}.tune")
        sweep = _sweep(body, method_spec, max_tasks, where)
        entries.append(MethodEntry(method_spec.name, dict(body.params), seeds, tune=tune, sweep=sweep))
    if not entries:
        raise ConfigError("the suite declares no method", field="methods")
    return tuple(entries)


def _sweep(body: "MethodSection", method_spec, max_tasks: int, where: str) -> tuple[tuple[str, tuple], ...]:
    """``sweep`` as (parameter, values) pairs: each value checked by the method, none repeated (1 and
    1.0 are the same run), at most ``max_tasks`` combinations (counted before they are expanded),
    no two combinations in the same results folder."""
    if not body.sweep:
        return ()
    clash = "seeds" if body.seeds else "tune" if body.tune else None
    if clash:
        raise ConfigError(f"a sweep cannot be combined with {clash} (each makes its own variants)",
                          field=f"{where}.sweep")
    name = method_spec.name
    _check_combinations(name, [len(values) if isinstance(values, list) else 1 for values in body.sweep.values()],
                        max_tasks)
    for parameter, values in body.sweep.items():
        field = f"{where}.sweep.{parameter}"
        if parameter in body.params:
            raise ConfigError("a parameter both fixed in params and swept", field=field)
        if not isinstance(values, list) or not values:
            raise ConfigError(f"empty value list in the parameter sweep of {name}" if values == [] else
                              "a list of values", field=field, found=values)
        seen = set()
        for value in values:
            _within(f"{where}.sweep", method_spec.resolve_params, {parameter: value})
            if _sweep_key(value) in seen:
                raise ConfigError(f"value listed twice in the parameter sweep of {name} (it would run twice)",
                                  field=field, found=repr(value))
            seen.add(_sweep_key(value))
    sweep = tuple((parameter, tuple(values)) for parameter, values in body.sweep.items())
    MethodEntry(name, dict(body.params), sweep=sweep).variants()  # two combinations, one folder: refused now
    return sweep


def _tune_grid(tune: dict[str, list], method_spec, where: str) -> tuple[tuple[str, tuple], ...]:
    """``tune`` as (parameter, values) pairs, each value checked by the method as a parameter of its own,
    none repeated (1 and 1.0 are the same candidate, as in a sweep)."""
    for parameter, values in tune.items():
        seen = set()
        for value in values:
            try:
                method_spec.resolve_params({parameter: value})
            except ConfigError as exc:
                raise ConfigError(exc.message, field=f"{where}.{parameter}", expected=exc.expected,
                                  found=exc.found) from None
            if _sweep_key(value) in seen:
                raise ConfigError(f"candidate value listed twice in the tune grid of {method_spec.name} "
                                  "(it would be scored twice)", field=f"{where}.{parameter}", found=repr(value))
            seen.add(_sweep_key(value))
    return tuple((parameter, tuple(values)) for parameter, values in tune.items())


def _tuning(tuning: "TuningSection", folds: ExportSettings | None, grids: tuple[GridSpec, ...]) -> TuningSpec:
    """The inner splits (scaled as the outer folds are) and the criterion, on one of the suite's grids."""
    if folds is None:
        raise ConfigError("tuning needs exported folds (their scaler scales the inner splits too)",
                          field="folds.mode", expected="holdout or kfold", found="files")
    inner, criterion = tuning.inner, tuning.criterion
    test_size = inner.test_size if inner.mode == "holdout" else None
    _within("tuning.inner", check_split_settings, inner.mode, inner.count, inner.seed, test_size)
    by_mode = {grid.mode: grid for grid in grids}
    if criterion.grid not in by_mode:
        raise ConfigError("the criterion's grid is not one of the suite's grids", field="tuning.criterion.grid",
                          expected=sorted(by_mode), found=repr(criterion.grid))
    return TuningSpec(mode=inner.mode, count=inner.count, seed=inner.seed, test_size=test_size,
                      scaler=folds.scaler, clip_test=folds.clip_test, metric=criterion.metric,
                      grid=by_mode[criterion.grid], statistic=criterion.at)


def _external_entry(name: str, body: "MethodSection", score_only: bool) -> MethodEntry:
    """``NAME: {external: true}``: rankings made elsewhere, under RESULTS/NAME/ (no params, no seeds).
    When every ranking is given (``score_only``), NAME may be a method's: its rankings are scored as they are."""
    if body.model_fields_set - {"external"}:
        raise ConfigError("an external method takes only 'external: true'", field=f"methods.{name}",
                          found=sorted(body.model_fields_set))
    validate_name(name, "method")
    if not score_only and name in available_methods():
        raise ConfigError(f"external method {name} is named like a method the suite can run", field=f"methods.{name}",
                          expected="another name for the given rankings")
    return MethodEntry(name, external=True)


def _grids(grids: "GridsSection") -> tuple[GridSpec, ...]:
    specs = []
    for mode in ("kgrid", "pgrid"):
        section = getattr(grids, mode)
        if section is not None:
            specs.append(_within(f"grids.{mode}", GridSpec, mode, **section.model_dump(exclude_unset=True)))
    if not specs:
        raise ConfigError("the suite declares no grid", field="grids", expected="kgrid and/or pgrid")
    return tuple(specs)


def _tables(tables: "TablesSection", methods: dict) -> dict:
    ref = tables.ref_method or next(iter(methods))
    if ref not in methods:
        raise ConfigError("not one of the suite's methods", field="tables.ref_method", expected=list(methods),
                          found=ref)
    metrics = list(tables.metrics or METRICS)
    if len(set(metrics)) != len(metrics):
        raise ConfigError("a metric is listed twice", field="tables.metrics", found=metrics)
    return {"out_dir": tables.out_dir, "ref_method": ref, "display_map": tables.display_map, "metrics": metrics,
            "figures": tables.figures, "fold_test": tables.fold_test,
            **{name: getattr(tables, name) for name in DOCUMENT_OPTIONS}}


def _fold_files(folds_dir: Path, dataset: str, count: int | None) -> list[int]:
    """Every fold file of ``dataset`` present, or 0..count-1, which must all exist."""
    present = list_fold_indices(folds_dir, dataset)
    if not present:
        raise ConfigError("no fold files", file=Path(folds_dir) / dataset, expected="fold0.mat, fold1.mat, ...")
    if count is None:
        return present
    missing = sorted(set(range(count)) - set(present))
    if missing:
        raise ConfigError("fold files missing", file=Path(folds_dir) / dataset,
                          expected=f"fold0..fold{count - 1}", found=f"no fold{missing[0]}.mat")
    return list(range(count))


def _subset(wanted, available, kind: str) -> list[str]:
    unknown = [w for w in wanted if w not in available]
    if unknown:
        raise ConfigError(f"{kind}(s) not in the suite: {unknown}", expected=list(available))
    return [a for a in available if a in wanted]


def _choice(value: Any, choices, where: str) -> str:
    if value not in choices:
        raise ConfigError(f"unknown {where}", field=where, expected=list(choices), found=repr(value))
    return value


def _jobs(value: Any) -> int:
    """``auto`` (the cores this process may use) or an integer in 1..MAX_JOBS."""
    if value == "auto":
        return usable_cores()
    if isinstance(value, bool) or not isinstance(value, int) or not JOB_COUNT.admits(value):
        raise ConfigError("must be 'auto' or a whole number of workers", field="jobs",
                          expected=f"1..{MAX_JOBS}", found=value)
    return value
