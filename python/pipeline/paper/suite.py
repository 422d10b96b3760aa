"""The declaration of an experiment: what ``paper/suite.yaml`` says, validated (docs/paper.md).

A suite is data: datasets, how their folds are made, the methods with their parameters and seeds,
the engine, the ML-kNN settings, the grids, how the tasks are executed and which tables are made.
Paths of what the run writes (folds, results, tables) are relative to the run's root folder
(``--root``, default the working directory); paths of what it reads (the display map) are relative
to the suite file's folder.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..data.export import ExportSettings
from ..data.splits import check_split_settings
from ..documents import CONFIG_LIMITS, read_document, schema_error
from ..engines import ENGINES
from ..errors import ConfigError
from ..evaluation.metrics import METRICS
from ..limits import JOB_COUNT, MAX_JOBS, MAX_SUITE_BYTES, usable_cores
from ..methods import available_methods, get_method
from ..names import validate_name
from ..report.options import read_display_map
from ..results.layout import seed_folder
from ..runner.plugins import activate_plugins, engine_options, plugin_paths
from ..runner.reference import reference_tasks
from ..runner.tasks import GridSpec, Task, canonical_params
from ..runner.inner import TuningSpec
from .schema import GridsSection, MethodSection, SuiteFile, TablesSection, TuningSection

SUITE_LIMITS = replace(CONFIG_LIMITS, max_bytes=MAX_SUITE_BYTES)


@dataclass(frozen=True)
class MethodEntry:
    """One method of the suite: parameter overrides, for random-start methods several seeds, and
    the grid its parameters are tuned over on inner splits (``tune``: (parameter, values) pairs)."""

    name: str
    params: dict = field(default_factory=dict)
    seeds: tuple[int, ...] = ()
    external: bool = False
    tune: tuple[tuple[str, tuple], ...] = ()

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
        """(results folder, parameters) per seed; one variant under the method's own name without seeds."""
        if not self.seeds:
            return [(self.name, dict(self.params))]
        return [(seed_folder(self.name, seed), {**self.params, "seed": seed}) for seed in self.seeds]


@dataclass(frozen=True)
class Suite:
    """A validated suite file (see :func:`load_suite`)."""

    name: str
    datasets: tuple[str, ...]
    folds: ExportSettings
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
    tables: dict
    description: str = ""
    fold_count: int | None = None
    source_dir: str = "."
    tuning: TuningSpec | None = None
    plugins: tuple[str, ...] = ()

    @property
    def external_methods(self) -> tuple[str, ...]:
        """Methods whose rankings are given (``external: true``): scored, never computed."""
        return tuple(m.name for m in self.methods if m.external)

    @property
    def fold_indices(self) -> list[int]:
        """The folds this run uses: all declared ones, or the first ``--folds`` of them."""
        return list(range(self.fold_count or self.folds.n_folds))

    def tasks(self) -> list[Task]:
        """Every (method variant, dataset, fold) task, datasets outermost (as the tables read them), then
        the all-features reference of every (dataset, fold).

        A tuned method's tasks have stage ``"tuned"`` and its fixed parameters only: the parameters
        inner validation chooses are added once its candidates are scored (:mod:`pipeline.paper.tuning`).
        """
        tasks = []
        for dataset in self.datasets:
            for fold in self.fold_indices:
                for entry in self.methods:
                    for label, params in entry.variants():
                        tasks.append(Task(entry.name, dataset, fold, canonical_params(params), label,
                                          "tuned" if entry.tune else ""))
        return tasks + reference_tasks({dataset: list(self.fold_indices) for dataset in self.datasets})

    def candidate_tasks(self) -> list[Task]:
        """Every tuning candidate: (dataset, fold, method variant, candidate), candidates in declared order."""
        tasks = []
        for dataset in self.datasets:
            for fold in self.fold_indices:
                for entry in self.methods:
                    for label, params in entry.variants():
                        tasks.extend(Task(entry.name, dataset, fold, canonical_params({**params, **candidate}), label,
                                          "candidate") for candidate in entry.candidates())
        return tasks

    def restricted(self, *, datasets=None, methods=None, folds=None, engine=None, jobs=None) -> "Suite":
        """The same suite limited to some datasets, methods or folds, or on another engine / job count."""
        changes: dict[str, Any] = {}
        if datasets:
            changes["datasets"] = tuple(_subset(datasets, self.datasets, "dataset"))
        if methods:
            wanted = _subset(methods, [m.name for m in self.methods], "method")
            changes["methods"] = tuple(m for m in self.methods if m.name in wanted)
        if folds is not None:
            if not 1 <= folds <= self.folds.n_folds:
                raise ConfigError("--folds must be between 1 and the suite's fold count",
                                  expected=f"1..{self.folds.n_folds}", found=folds)
            changes["fold_count"] = folds
        if engine is not None:
            changes["engine"] = _choice(engine, ENGINES, "engine")
        if jobs is not None:
            changes["jobs"] = _jobs(jobs)
        return replace(self, **changes)


def load_suite(path: str | Path, *, plugins=(), engine: str | None = None) -> Suite:
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
        folders = plugin_paths([*(source / folder for folder in model.plugins), *plugins])
        if folders:  # on the run's engine and session settings (its first tasks reuse that session)
            activate_plugins(folders, engine or model.engine, engine_options(model.run.task_timeout, folders))
        suite = replace(_parse(model), source_dir=str(source), plugins=folders)
        if suite.tables["display_map"]:
            read_display_map(source / suite.tables["display_map"])
        return suite
    except ValidationError as exc:
        raise schema_error(exc, data, SuiteFile, file=path) from None
    except ConfigError as exc:
        raise exc if exc.file else ConfigError(exc.message, file=path, field=exc.field, expected=exc.expected,
                                               found=exc.found) from None


def _parse(suite: "SuiteFile") -> Suite:
    folds = suite.folds
    export = ExportSettings(mode=folds.mode, n_folds=folds.count, seed=folds.seed,
                            test_size=None if folds.test_size in ("reference", None) else folds.test_size,
                            scaler=folds.scaler, clip_test=folds.clip_test)
    reference = export.mode == "holdout" and export.test_size is None  # each dataset's own n_test / n
    _within("folds", replace(export, test_size=0.5).validate if reference else export.validate)
    grids = _grids(suite.grids)
    methods = _methods(suite.methods)
    tuning = _tuning(suite.tuning, export, grids) if suite.tuning is not None else None
    untuned = [entry.name for entry in methods if entry.tune] if tuning is None else []
    if untuned:
        raise ConfigError("tune needs the suite's tuning section (inner splits and criterion)",
                          field=f"methods.{untuned[0]}.tune")
    return Suite(
        name=_within("name", validate_name, suite.name, "suite"), description=suite.description,
        datasets=tuple(_names(suite.datasets, "datasets", "dataset")), folds=export, folds_dir=folds.dir,
        methods=methods, tuning=tuning, engine=suite.engine, evaluator=suite.evaluator,
        mlknn_k=suite.mlknn.k, mlknn_smooth=suite.mlknn.smooth, grids=grids,
        results_dir=suite.run.results_dir or f"results/{suite.name}", executor=suite.run.executor,
        jobs=_jobs(suite.run.jobs), task_timeout=suite.run.task_timeout,
        tables=_tables(suite.tables, suite.methods))


def _within(section: str, check, *args, **kwargs):
    """``check(*args, **kwargs)``, with the field of a ConfigError it raises put under ``section``."""
    try:
        return check(*args, **kwargs)
    except ConfigError as exc:
        field = f"{section}.{exc.field}" if exc.field and exc.field != section else section
        raise ConfigError(exc.message, field=field, expected=exc.expected, found=exc.found) from None


def _methods(methods: dict[str, "MethodSection | None"]) -> tuple[MethodEntry, ...]:
    entries = []
    for name, body in methods.items():
        body = body or MethodSection()
        where = f"methods.{name}"
        if body.external:
            entries.append(_external_entry(name, body))
            continue
        method_spec = get_method(validate_name(name, "method"))
        seeds = tuple(body.seeds)
        if seeds and method_spec.make_init is None and "seed" not in method_spec.defaults:
            raise ConfigError(f"{name} has no random start: seeds do not apply", field=f"{where}.seeds")
        if len(set(seeds)) != len(seeds):
            raise ConfigError("a seed is listed twice", field=f"{where}.seeds", found=list(seeds))
        _within(f"{where}.params", method_spec.resolve_params, body.params)
        tune = _tune_grid(body.tune or {}, method_spec, f"{where}.tune")
        entries.append(MethodEntry(method_spec.name, dict(body.params), seeds, tune=tune))
    if not entries:
        raise ConfigError("the suite declares no method", field="methods")
    return tuple(entries)


def _tune_grid(tune: dict[str, list], method_spec, where: str) -> tuple[tuple[str, tuple], ...]:
    """``tune`` as (parameter, values) pairs, each value checked by the method as a parameter of its own."""
    for parameter, values in tune.items():
        for value in values:
            try:
                method_spec.resolve_params({parameter: value})
            except ConfigError as exc:
                raise ConfigError(exc.message, field=f"{where}.{parameter}", expected=exc.expected,
                                  found=exc.found) from None
    return tuple((parameter, tuple(values)) for parameter, values in tune.items())


def _tuning(tuning: "TuningSection", folds: ExportSettings, grids: tuple[GridSpec, ...]) -> TuningSpec:
    """The inner splits (scaled as the outer folds are) and the criterion, on one of the suite's grids."""
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


def _external_entry(name: str, body: "MethodSection") -> MethodEntry:
    """``NAME: {external: true}``: rankings made elsewhere, under RESULTS/NAME/ (no params, no seeds)."""
    if body.model_fields_set != {"external"}:
        raise ConfigError("an external method takes only 'external: true'", field=f"methods.{name}",
                          found=sorted(body.model_fields_set))
    validate_name(name, "method")
    if name in available_methods():
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
            "figures": tables.figures, "fit_width": tables.fit_width}


def _names(values: list[str], where: str, kind: str) -> list[str]:
    names = [validate_name(v, kind) for v in values]
    if len(set(n.lower() for n in names)) != len(names):
        raise ConfigError(f"a {kind} is listed twice", field=where, found=names)
    return names


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
