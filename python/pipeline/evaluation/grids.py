"""Feature-count grids: the k-grid (10, 20, ..., 300) and the p-grid (share of features).

The grids follow the reference evaluator (docs/evaluation.md, "Grids"). p_min, p_max, p_step and
p_target must each lie in (0, 1] with p_min <= p_max (anything else is refused, never narrowed).
The p values are ``numpy.arange(p_min, p_max + 1e-12, p_step)`` (so they carry arange's float
noise, e.g. 0.15000000000000002) without the values above 1, as in the reference: with
p_max = 1 the noise can put the last point a few ulps above 1. p maps to ``k = min(d, max(1, round(p * d)))`` with
NumPy's round-half-to-even on the float64 product. MATLAB rounds halves away from zero and would
give different k at exact halves (d = 50: 2.5 -> 2 here, 3 in MATLAB).

The k-grid is ``k_min, k_min + k_step, ...`` up to ``min(k_max, d)``, not padded with d
(d = 294 ends at 290). **Small-d rule (ours):** when d < k_min the grid would be empty; we use
``[d]`` (all features) instead, so a fold with few features still gets one evaluation.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ..errors import ConfigError
from ..definitions import RUN_OPTION_DEFAULTS
from ..limits import MAX_GRID_POINTS, RUN_OPTION_RANGES

#: A share of the features: the range of p_min, p_max, p_step and p_target.
def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ConfigError("must be a positive integer", field=name, expected="an integer >= 1",
                          found=repr(value))
    return int(value)


def _finite_real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value):
        raise ConfigError("must be a finite number", field=name, found=repr(value))
    return float(value)


def p_share(value, name: str) -> float:
    """``value`` as a float if it is a share of the features in the range that definitions.json
    declares for the option ``name`` (p_min, p_max, p_step or p_target); ConfigError naming it otherwise."""
    value = _finite_real(value, name)
    allowed = RUN_OPTION_RANGES[name]
    if not allowed.admits(value):
        raise ConfigError("out of range", field=name, expected=str(allowed), found=repr(value))
    return value


def k_grid(d: int, k_min: int = RUN_OPTION_DEFAULTS["k_min"], k_max: int = RUN_OPTION_DEFAULTS["k_max"],
           k_step: int = RUN_OPTION_DEFAULTS["k_step"]) -> list[int]:
    """Return the k-grid ``k_min:k_step:min(k_max, d)`` for a fold with ``d`` features.

    Returns ``[d]`` when ``d < k_min`` (documented small-d rule; the reference raises instead).

    Raises
    ------
    ConfigError
        If an argument is not a positive integer or ``k_min > k_max``.
    """
    d = _positive_int(d, "d")
    k_min, k_max, k_step = (_positive_int(v, n) for v, n in
                            ((k_min, "k_min"), (k_max, "k_max"), (k_step, "k_step")))
    if k_min > k_max:
        raise ConfigError("k_min is larger than k_max", field="k_min",
                          expected=f"<= k_max = {k_max}", found=str(k_min))
    if d < k_min:
        return [d]
    return list(range(k_min, min(k_max, d) + 1, k_step))


def p_grid(p_min: float = RUN_OPTION_DEFAULTS["p_min"], p_max: float = RUN_OPTION_DEFAULTS["p_max"],
           p_step: float = RUN_OPTION_DEFAULTS["p_step"]) -> np.ndarray:
    """Return ``numpy.arange(p_min, p_max + 1e-12, p_step)`` without arange's noise above 1.

    With the defaults the float64 values are exactly 0.05, 0.1, 0.15000000000000002, 0.2, 0.25,
    0.3, 0.35000000000000003, 0.4, 0.45, 0.5.

    Raises
    ------
    ConfigError
        If an argument is not a number in (0, 1], ``p_min > p_max``, or the grid would have more
        than :data:`MAX_GRID_POINTS` points.
    """
    p_min, p_max, p_step = (p_share(v, n) for v, n in ((p_min, "p_min"), (p_max, "p_max"), (p_step, "p_step")))
    if p_min > p_max:
        raise ConfigError("p_min is larger than p_max", field="p_min", expected=f"<= p_max = {p_max!r}",
                          found=repr(p_min))
    points = (p_max + 1e-12 - p_min) / p_step  # numpy.arange's count, before it allocates
    if points > MAX_GRID_POINTS:
        raise ConfigError("the p-grid has too many points", field="p_step",
                          expected=f"at most {MAX_GRID_POINTS} points from p_min to p_max",
                          found=f"{points:.3g} points (p_min={p_min}, p_max={p_max}, p_step={p_step})")
    values = np.arange(p_min, p_max + 1e-12, p_step, dtype=np.float64)
    return values[values <= 1]  # only float noise can pass 1 (p_max <= 1); p_min <= 1 stays


def p_to_k(p_values, d: int) -> list[int]:
    """Map each p to ``k = min(d, max(1, round(p * d)))``, rounding halves to even.

    >>> p_to_k(p_grid(), 50)
    [2, 5, 8, 10, 12, 15, 18, 20, 22, 25]
    """
    d = _positive_int(d, "d")
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    if p.size == 0 or not np.all(np.isfinite(p)) or np.any(p <= 0) or np.any(p > 1):
        raise ConfigError("p values must be finite and in (0, 1]", field="p_values",
                          found=np.array2string(p, precision=6))
    k = np.clip(np.round(p * d), 1, d).astype(np.int64)
    return [int(v) for v in k]


def p_target_index(p_values, p_target: float) -> int:
    """Return the first index minimising ``|p - p_target|`` (ties go to the earlier entry)."""
    p_target = p_share(p_target, "p_target")
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    if p.size == 0:
        raise ConfigError("the p-grid is empty", field="p_values", expected="at least one value")
    return int(np.argmin(np.abs(p - p_target)))
