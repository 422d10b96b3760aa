"""The growth model of ``bench/bench_growth.py``: how a method's cost grows with n and d, fitted
from the measured points, and the largest shipped dataset it is predicted to finish within the
default task budget.

A *series* is the list of points of one method along one axis (``"n"`` or ``"d"``), smallest
first; each point is a dict with ``n``, ``d``, ``status`` (``done``, ``out_of_budget`` or
``failed``), ``wall_s`` (the ranking's wall seconds), ``cpu_s``, ``peak_rss_mib`` and, when it did
not finish, ``budget`` and ``message``. A series ends at its first point that did not finish
(:func:`run_series`): larger points would not finish either. The cost fitted is a point's cost
above the floor method's at the same size (:func:`with_net_costs`: the task's fixed cost taken
off). The exponent of an axis is the slope of the least-squares line through (log size, log cost)
of the finished points, given at least :data:`MIN_FIT_POINTS` of them.

``bench/render_performance.py`` reads the same model from ``bench/results.json`` for
docs/performance.md and the catalogue of docs/methods/README.md.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

import numpy as np

from pipeline.data.registry import LARGE_DATASETS, REAL_DATASETS, REGISTRY

AXES = ("n", "d")
#: The floor: its task's cost at a point is the task's fixed cost there (worker set-up, fold
#: loading, the one-point evaluation; its ranking is d random draws), taken off every method's cost.
FLOOR_METHOD = "RANDOM"
#: Raw cost -> the net cost above the floor's at or below which a point says nothing about the
#: method: not fitted. The fixed cost of a task varies by about 0.1 s of CPU and a few MiB from one
#: task to the next on this machine (RANDOM against VARIANCE, whose rankings cost nearly nothing).
RESOLUTION = {"cpu_s": 0.2, "peak_rss_mib": 10.0}
#: The costs fitted: CPU seconds (one BLAS thread), which on an idle machine is the wall time and
#: which other work on a shared machine does not inflate as it does the wall time; and peak
#: resident memory; each above the floor's at the same (n, d).
TIME_COST, MEMORY_COST = "net_cpu_s", "net_peak_rss_mib"
#: Fewer finished points than this give no exponent ("too few points").
MIN_FIT_POINTS = 3
TOO_FEW_POINTS = "too few points"
#: The shipped datasets a prediction is made for: the paper's 17 and the 14 larger sets.
SHIPPED_DATASETS = (*REAL_DATASETS, *LARGE_DATASETS)


def run_series(sizes: Sequence[int], run_point: Callable[[int], dict]) -> list[dict]:
    """``run_point(size)`` for each size in order, up to and including the first point that did not
    finish (out of budget, or failed): the series ends there."""
    points = []
    for size in sizes:
        points.append(run_point(size))
        if points[-1]["status"] != "done":
            break
    return points


def finished(series: Sequence[Mapping]) -> list[Mapping]:
    return [point for point in series if point["status"] == "done"]


def series_end(series: Sequence[Mapping]) -> Mapping | None:
    """The point that ended the series (did not finish), or None when every point finished."""
    return next((point for point in series if point["status"] != "done"), None)


def with_net_costs(methods: Mapping[str, Mapping]) -> dict:
    """Every method's series ({"n": [...], "d": [...]}) with each point's :data:`TIME_COST` and
    :data:`MEMORY_COST` added: its cost above the floor method's at the same (n, d), None at or below
    the :data:`RESOLUTION` or where the floor has no finished point there."""
    floor = {(point["n"], point["d"]): point
             for axis in AXES for point in finished(methods.get(FLOOR_METHOD, {}).get(axis, []))}

    def net(point: Mapping) -> dict:
        base, costed = floor.get((point["n"], point["d"])), dict(point)
        for raw, resolution in RESOLUTION.items():
            value = None if base is None or point.get(raw) is None else point[raw] - base[raw]
            costed[f"net_{raw}"] = value if value is not None and value > resolution else None
        return costed

    return {method: {axis: [net(point) for point in series[axis]] for axis in AXES}
            for method, series in methods.items()}


def fit_power_law(sizes: Sequence[float], costs: Sequence[float]) -> tuple[float, float] | None:
    """(exponent, log-intercept) of ``cost = exp(intercept) * size ** exponent`` by least squares on
    the logarithms; None with fewer than :data:`MIN_FIT_POINTS` points or two distinct sizes."""
    if len(sizes) < MIN_FIT_POINTS or len(set(sizes)) < 2:
        return None
    slope, intercept = np.polyfit(np.log(np.asarray(sizes, float)), np.log(np.asarray(costs, float)), 1)
    return float(slope), float(intercept)


def axis_fit(series: Sequence[Mapping], axis: str, cost: str = TIME_COST) -> tuple[float, float] | None:
    """The power law of ``cost`` along ``axis`` through the series' finished points (positive costs)."""
    points = [point for point in finished(series) if point.get(cost) is not None and point[cost] > 0]
    return fit_power_law([point[axis] for point in points], [point[cost] for point in points])


def exponent(series: Sequence[Mapping], axis: str, cost: str = TIME_COST) -> float | None:
    fit = axis_fit(series, axis, cost)
    return None if fit is None else fit[0]


def predict(method: Mapping, n: int, d: int, cost: str) -> float | None:
    """``cost`` of ``method`` ({"n": series, "d": series}) at (n, d): the n-series' power law (taken
    at its fixed d) scaled by the d-series' exponent; None without both fits."""
    along_n, along_d = axis_fit(method["n"], "n", cost), axis_fit(method["d"], "d", cost)
    if along_n is None or along_d is None:
        return None
    fixed_d = method["n"][0]["d"]
    return math.exp(along_n[1] + along_n[0] * math.log(n) + along_d[0] * math.log(d / fixed_d))


def largest_within_budget(method: Mapping, seconds: float, memory_bytes: float) -> str | None:
    """The largest shipped dataset (most training cells, n_train * d) the method (its series with
    net costs, :func:`with_net_costs`) is predicted to rank within ``seconds`` and ``memory_bytes``;
    ``""`` when none is; None without a time model. Memory that never rose above the floor's by the
    resolution is not counted against the budget."""
    shapes = sorted(((REGISTRY[name].n_train, REGISTRY[name].d, name) for name in SHIPPED_DATASETS),
                    key=lambda shape: (shape[0] * shape[1], shape[2]))
    within = ""
    for n_train, d, name in shapes:
        cpu, rss = predict(method, n_train, d, TIME_COST), predict(method, n_train, d, MEMORY_COST)
        if cpu is None:
            return None
        if cpu <= seconds and (rss is None or rss * 2**20 <= memory_bytes):
            within = name
    return within


def describe_largest(method: Mapping, seconds: float, memory_bytes: float) -> str:
    """The catalogue's words: ``rcv1s1 (predicted)``, ``20NG, so all 31 (predicted)`` (the largest of
    them), ``none of the 31 (predicted)`` or ``too few points``."""
    largest = largest_within_budget(method, seconds, memory_bytes)
    if largest is None:
        return TOO_FEW_POINTS
    if not largest:
        return f"none of the {len(SHIPPED_DATASETS)} (predicted)"
    every = all(REGISTRY[name].n_train * REGISTRY[name].d <= REGISTRY[largest].n_train * REGISTRY[largest].d
                for name in SHIPPED_DATASETS)
    return f"{largest}{f', so all {len(SHIPPED_DATASETS)}' if every else ''} (predicted)"


def describe_end(series: Sequence[Mapping], axis: str) -> str:
    """How the series along ``axis`` ended: ``all finished``, ``out of budget (time) at n 8,000`` or
    ``failed at n 8,000``."""
    end = series_end(series)
    if end is None:
        return "all finished"
    where = f"at {axis} {end[axis]:,}"
    if end["status"] == "out_of_budget":
        return f"out of budget ({end['budget']}) {where}"
    return f"failed {where}"
