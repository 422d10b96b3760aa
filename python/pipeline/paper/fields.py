"""Checks of a suite file's fields: each error names the field, what it expected and what it found."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError


def mapping(data: Any, where: str, *, required: set, allowed: set | None) -> dict:
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


def integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError("must be an integer", field=where, found=repr(value))
    return value


def number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError("must be a number", field=where, found=repr(value))
    return float(value)
