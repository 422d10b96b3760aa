"""Checks of the numeric settings of the steering study (one ConfigError naming the setting)."""

from __future__ import annotations

from ...errors import ConfigError


def positive_int(value: object, field: str) -> int:
    """``value`` if it is an integer >= 1 (bools are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError("must be a positive integer", field=field, found=value)
    return value


def open_interval(value: float, low: float, high: float, field: str) -> float:
    """``value`` if ``low < value < high`` (NaN fails)."""
    if not low < value < high:
        raise ConfigError("out of range", field=field, expected=f"{low:g} < {field} < {high:g}", found=value)
    return value
