"""The declaration of an experiment: what ``paper/suite.yaml`` says, validated (docs/paper.md).

A suite is data: datasets, how their folds are made, the methods with their parameters and seeds,
the engine, the ML-kNN settings, the grids, how the tasks are executed and which tables are made.
Paths of what the run writes (folds, results, tables) are relative to the run's root folder
(``--root``, default the working directory); paths of what it reads (the display map) are relative
to the suite file's folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ..data.export import ExportSettings
from ..engines import ENGINES, EVALUATORS
from ..errors import ConfigError
from ..fileio import read_config_text
from ..evaluation.metrics import METRICS
from ..methods import available_methods, get_method
from ..names import validate_name
from ..runner.executors import EXECUTORS
from ..runner.plugins import activate_plugins, engine_options, plugin_paths
from ..runner.tasks import GridSpec, Task, canonical_params

SUITE_KEYS = {"name", "description", "datasets", "folds", "methods", "engine", "evaluator", "mlknn", "grids",
              "run", "tables", "plugins"}
MAX_SUITE_BYTES = 1 << 20


@dataclass(frozen=True)
class MethodEntry:
    """One method of the suite: parameter overrides and, for random-start methods, several seeds."""

    name: str
    params: dict = field(default_factory=dict)
    seeds: tuple[int, ...] = ()
    external: bool = False

    def variants(self) -> list[tuple[str, dict]]:
        """(results folder, parameters) per seed; one variant under the method's own name without seeds."""
        if not self.seeds:
            return [(self.name, dict(self.params))]
        return [(seed_folder(self.name, seed), {**self.params, "seed": seed}) for seed in self.seeds]


def seed_folder(method: str, seed: int) -> str:
    """The results folder of one seed of a multi-seed method, e.g. ``LRDG__seed_3``."""
    return validate_name(f"{method}__seed_{seed}", "method label")


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
        """Every (method variant, dataset, fold) task, datasets outermost (as the tables read them)."""
        tasks = []
        for dataset in self.datasets:
            for fold in self.fold_indices:
                for entry in self.methods:
                    for label, params in entry.variants():
                        tasks.append(Task(entry.name, dataset, fold, canonical_params(params), label))
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
    """Read and validate a suite file (YAML, safe loader).

    The suite's ``plugins:`` folders (relative to the suite file) and ``plugins`` (more folders)
    are loaded first, for ``engine`` (default: the suite's), so that their methods can be named.

    Raises
    ------
    ConfigError
        Naming the file and the field for anything missing, unknown or of the wrong type.
    """
    path = Path(path)
    text = read_config_text(path, "suite file", MAX_SUITE_BYTES)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"cannot parse suite file: {exc}".splitlines()[0], file=path) from None
    try:
        folders = plugin_paths([*_plugin_folders(data, path.resolve().parent), *plugins])
        if folders:  # on the run's engine and session settings (its first tasks reuse that session)
            suite = _parse({**data, "methods": {}}, methods_required=False)
            activate_plugins(folders, engine or suite.engine, engine_options(suite.task_timeout, folders))
        return replace(_parse(data), source_dir=str(path.resolve().parent), plugins=folders)
    except ConfigError as exc:
        raise ConfigError(str(exc), file=path) from None


def _parse(data: Any, methods_required: bool = True) -> Suite:
    top = _mapping(data, "the suite", required={"name", "datasets", "folds", "methods", "grids"}, allowed=SUITE_KEYS)
    folds = _mapping(top["folds"], "folds", required={"mode", "count", "seed"},
                     allowed={"dir", "mode", "count", "seed", "test_size", "scaler", "clip_test"})
    test_size = folds.get("test_size", "reference")
    export = ExportSettings(mode=folds["mode"], n_folds=_int(folds["count"], "folds.count"),
                            seed=_int(folds["seed"], "folds.seed"),
                            test_size=test_size if isinstance(test_size, float) else None,
                            scaler=folds.get("scaler", "minmax"), clip_test=bool(folds.get("clip_test", False)))
    if test_size not in ("reference", None) and not isinstance(test_size, float):
        raise ConfigError("folds.test_size must be a fraction or 'reference'", field="folds.test_size", found=test_size)
    mlknn = _mapping(top.get("mlknn", {}), "mlknn", required=set(), allowed={"k", "smooth"})
    run = _mapping(top.get("run", {}), "run", required=set(),
                   allowed={"results_dir", "executor", "jobs", "task_timeout"})
    return Suite(
        name=validate_name(str(top["name"]), "suite"), description=str(top.get("description", "")),
        datasets=tuple(_names(top["datasets"], "datasets", "dataset")),
        folds=export, folds_dir=str(folds.get("dir", "data/paper_matlab_minmax")),
        methods=_methods(top["methods"]) if methods_required else (), engine=_choice(top.get("engine", "octave"), ENGINES, "engine"),
        evaluator=_choice(top.get("evaluator", "native"), EVALUATORS, "evaluator"),
        mlknn_k=_int(mlknn.get("k", 10), "mlknn.k"), mlknn_smooth=_float(mlknn.get("smooth", 1.0), "mlknn.smooth"),
        grids=_grids(top["grids"]), results_dir=str(run.get("results_dir", f"results/{top['name']}")),
        executor=_choice(run.get("executor", "process"), EXECUTORS, "run.executor"),
        jobs=_jobs(run.get("jobs", "auto")), task_timeout=_float(run.get("task_timeout", 3600.0), "run.task_timeout"),
        tables=_tables(top.get("tables", {}), top["methods"]) if methods_required else {})


def _plugin_folders(data: Any, suite_dir: Path) -> list[Path]:
    """The ``plugins:`` folders of the suite, relative to its folder."""
    folders = data.get("plugins", []) if isinstance(data, dict) else []
    if not isinstance(folders, list) or not all(isinstance(f, str) and f for f in folders):
        raise ConfigError("plugins must be a list of folders (relative to the suite file)", field="plugins",
                          found=repr(folders))
    return [suite_dir / folder for folder in folders]


def _methods(data: Any) -> tuple[MethodEntry, ...]:
    entries = []
    for name, body in _mapping(data, "methods", required=set(), allowed=None).items():
        body = _mapping(body or {}, f"methods.{name}", required=set(), allowed={"params", "seeds", "external"})
        if body.get("external", False) is not False:
            entries.append(_external_entry(str(name), body))
            continue
        method_spec = get_method(validate_name(str(name), "method"))
        params = _mapping(body.get("params", {}), f"methods.{name}.params", required=set(), allowed=None)
        seeds = tuple(_int(seed, f"methods.{name}.seeds") for seed in body.get("seeds", []))
        if seeds and method_spec.make_init is None and "seed" not in method_spec.defaults:
            raise ConfigError(f"{name} has no random start: seeds do not apply", field=f"methods.{name}.seeds")
        if len(set(seeds)) != len(seeds):
            raise ConfigError("a seed is listed twice", field=f"methods.{name}.seeds", found=list(seeds))
        method_spec.resolve_params(params)
        entries.append(MethodEntry(method_spec.name, dict(params), seeds))
    if not entries:
        raise ConfigError("the suite declares no method", field="methods")
    return tuple(entries)


def _external_entry(name: str, body: dict) -> MethodEntry:
    """``NAME: {external: true}``: rankings made elsewhere, under RESULTS/NAME/ (no params, no seeds)."""
    if body["external"] is not True or set(body) != {"external"}:
        raise ConfigError("an external method takes only 'external: true'", field=f"methods.{name}",
                          found=repr(body))
    validate_name(name, "method")
    if name in available_methods():
        raise ConfigError(f"external method {name} is named like a method the suite can run", field=f"methods.{name}",
                          expected="another name for the given rankings")
    return MethodEntry(name, external=True)


def _grids(data: Any) -> tuple[GridSpec, ...]:
    grids = _mapping(data, "grids", required=set(), allowed={"kgrid", "pgrid"})
    if not grids:
        raise ConfigError("the suite declares no grid", field="grids", expected="kgrid and/or pgrid")
    specs = []
    if "kgrid" in grids:
        k = _mapping(grids["kgrid"] or {}, "grids.kgrid", required=set(), allowed={"k_min", "k_max", "k_step"})
        specs.append(GridSpec("kgrid", **{key: _int(value, f"grids.kgrid.{key}") for key, value in k.items()}))
    if "pgrid" in grids:
        p = _mapping(grids["pgrid"] or {}, "grids.pgrid", required=set(),
                     allowed={"p_min", "p_max", "p_step", "p_target"})
        specs.append(GridSpec("pgrid", **{key: _float(value, f"grids.pgrid.{key}") for key, value in p.items()}))
    return tuple(specs)


def _tables(data: Any, methods: dict) -> dict:
    tables = _mapping(data, "tables", required=set(),
                      allowed={"out_dir", "ref_method", "display_map", "metrics", "figures", "fit_width"})
    ref = str(tables.get("ref_method", next(iter(methods))))
    if ref not in methods:
        raise ConfigError("tables.ref_method is not one of the suite's methods", field="tables.ref_method", found=ref)
    metrics = list(tables.get("metrics", METRICS))
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ConfigError("unknown metric", field="tables.metrics", expected=list(METRICS), found=unknown)
    return {"out_dir": str(tables.get("out_dir", "paper/tables")), "ref_method": ref,
            "display_map": tables.get("display_map"), "metrics": metrics,
            "figures": bool(tables.get("figures", True)), "fit_width": bool(tables.get("fit_width", True))}


def _mapping(data: Any, where: str, *, required: set, allowed: set | None) -> dict:
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping", field=where, found=type(data).__name__)
    missing = sorted(required - set(data))
    if missing:
        raise ConfigError(f"{where} lacks {missing}", field=where)
    if allowed is not None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ConfigError(f"unknown key(s) {unknown} in {where}", field=where, expected=sorted(allowed))
    return data


def _names(values: Any, where: str, kind: str) -> list[str]:
    if not isinstance(values, list) or not values:
        raise ConfigError(f"{where} must be a non-empty list", field=where)
    names = [validate_name(str(v), kind) for v in values]
    if len(set(n.lower() for n in names)) != len(names):
        raise ConfigError(f"a {kind} is listed twice", field=where, found=names)
    return names


def _subset(wanted, available, kind: str) -> list[str]:
    unknown = [w for w in wanted if w not in available]
    if unknown:
        raise ConfigError(f"{kind}(s) not in the suite: {unknown}", expected=list(available))
    return [a for a in available if a in wanted]


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError("must be an integer", field=where, found=repr(value))
    return value


def _float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError("must be a number", field=where, found=repr(value))
    return float(value)


def _choice(value: Any, choices, where: str) -> str:
    if value not in choices:
        raise ConfigError(f"unknown {where}", field=where, expected=list(choices), found=repr(value))
    return value


def _jobs(value: Any) -> int:
    """``auto`` (the machine's cores) or a positive integer."""
    if value == "auto":
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    jobs = _int(value, "jobs")
    if jobs < 1:
        raise ConfigError("jobs must be >= 1 or 'auto'", field="jobs", found=jobs)
    return jobs
