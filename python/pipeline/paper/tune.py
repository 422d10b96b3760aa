"""The suite's ``tuning:`` section and the methods' ``tune:`` grids, validated (docs/tuning.md).

Kept apart from the rest of the suite's parsing: every check names the field and what it expected,
and nothing here expands a candidate set (its size is checked against ``--max-tasks`` first).
"""

from __future__ import annotations

import math
from typing import Any

from ..data.export import ExportSettings
from ..data.splits import SPLIT_MODES, check_split_settings
from ..errors import ConfigError
from ..evaluation.metrics import METRICS
from ..runner.inner import TuningSpec
from ..runner.tasks import GridSpec
from .fields import integer as _int, mapping as _mapping, number

DEFAULT_INNER_TEST_SIZE = 0.25


def parse_tuning(data: Any, folds: ExportSettings, grids: tuple[GridSpec, ...]) -> TuningSpec:
    """The ``tuning:`` section: ``inner`` (mode, count, seed, test_size) and ``criterion`` (metric, grid, at)."""
    top = _mapping(data, "tuning", required={"inner", "criterion"}, allowed={"inner", "criterion"})
    inner = _mapping(top["inner"], "tuning.inner", required={"mode", "count"},
                     allowed={"mode", "count", "seed", "test_size"})
    mode = inner["mode"]
    if mode not in SPLIT_MODES:
        raise ConfigError("unknown inner split mode", field="tuning.inner.mode", expected=list(SPLIT_MODES),
                          found=repr(mode))
    count, seed = _int(inner["count"], "tuning.inner.count"), _int(inner.get("seed", 0), "tuning.inner.seed")
    test_size = None
    if mode == "holdout":
        test_size = number(inner.get("test_size", DEFAULT_INNER_TEST_SIZE), "tuning.inner.test_size")
    elif "test_size" in inner:
        raise ConfigError("test_size applies to holdout only", field="tuning.inner.test_size")
    try:
        check_split_settings(mode, count, seed, test_size)
    except ConfigError as exc:
        raise ConfigError(f"tuning.inner: {exc}") from None
    criterion = _mapping(top["criterion"], "tuning.criterion", required={"metric", "grid"},
                         allowed={"metric", "grid", "at"})
    metric = criterion["metric"]
    if metric not in METRICS:
        raise ConfigError("unknown metric", field="tuning.criterion.metric", expected=list(METRICS), found=repr(metric))
    by_mode = {grid.mode: grid for grid in grids}
    if criterion["grid"] not in by_mode:
        raise ConfigError("the criterion's grid is not one of the suite's grids", field="tuning.criterion.grid",
                          expected=sorted(by_mode), found=repr(criterion["grid"]))
    statistic = criterion.get("at", "mean")
    allowed = ("mean", "p_target") if criterion["grid"] == "pgrid" else ("mean",)
    if statistic not in allowed:
        raise ConfigError("unknown criterion statistic for this grid", field="tuning.criterion.at",
                          expected=list(allowed), found=repr(statistic))
    return TuningSpec(mode=mode, count=count, seed=seed, test_size=test_size, scaler=folds.scaler,
                      clip_test=folds.clip_test, metric=metric, grid=by_mode[criterion["grid"]], statistic=statistic)


def parse_tune(data: Any, method_spec, where: str, fixed: dict) -> tuple[tuple[str, tuple], ...]:
    """A method's ``tune:`` grid: parameter -> non-empty list of distinct values of the parameter's type.

    ``fixed`` holds the method's ``params``; a parameter may not be both fixed and tuned, and
    ``seed`` is never tuned (random starts are declared with ``seeds``).
    """
    grid = _mapping(data, where, required=set(), allowed=None)
    if not grid:
        raise ConfigError("tune declares no parameter", field=where)
    parsed = []
    for name, values in grid.items():
        field = f"{where}.{name}"
        if name == "seed":
            raise ConfigError("seed is not tuned: list random starts under seeds", field=field)
        if name in fixed:
            raise ConfigError("a parameter is both fixed (params) and tuned (tune)", field=field)
        if not isinstance(values, list) or not values:
            raise ConfigError("must be a non-empty list of candidate values", field=field, found=repr(values))
        for value in values:
            try:
                method_spec.resolve_params({name: value})
            except ConfigError as exc:
                raise ConfigError(f"{field}: {exc}") from None
        if len({repr(v) for v in values}) != len(values):
            raise ConfigError("a candidate value is listed twice (it would run twice)", field=field,
                              found=repr(values))
        parsed.append((str(name), tuple(values)))
    return tuple(parsed)


def candidate_count(tune: tuple[tuple[str, tuple], ...]) -> int:
    """Size of the Cartesian product of a ``tune`` grid, without expanding it."""
    return math.prod(len(values) for _, values in tune) if tune else 0
