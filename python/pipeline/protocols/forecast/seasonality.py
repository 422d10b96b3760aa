"""Seasonal period ``m`` from a pandas frequency string (spec §4.2, GluonTS ``get_seasonality``).

Daily data get ``m = 1`` (not 7), as in the reference implementation the Chronos numbers come from.
"""

from __future__ import annotations

import re
import warnings

from pipeline.errors import ConfigError

# Base seasonal period per frequency code; codes not listed (yearly, seconds, ...) give 1.
BASE_SEASONALITY = {
    "T": 1440, "MIN": 1440,
    "H": 24,
    "D": 1,
    "W": 1,
    "M": 12, "MS": 12, "ME": 12,
    "B": 5,
    "Q": 4, "QS": 4, "QE": 4,
}

_FREQ = re.compile(r"^\s*(\d*)\s*([A-Za-z]+)(?:-[A-Za-z]+)?\s*$")


def seasonality_from_freq(freq: str) -> int:
    """Return the seasonal period for a pandas frequency string such as ``"15min"`` or ``"W-SUN"``.

    A multiple ``n`` of a base frequency gives ``base // n`` when ``n`` divides the base period,
    else 1 with a warning (GluonTS behaviour).
    """
    match = _FREQ.match(str(freq))
    if match is None:
        raise ConfigError(f"cannot parse frequency string {freq!r}",
                          expected="a pandas frequency like 'h', '15min', 'W-SUN'", found=freq)
    multiple = int(match.group(1) or 1)
    base = BASE_SEASONALITY.get(match.group(2).upper(), 1)
    if base % multiple == 0:
        return base // multiple
    warnings.warn(f"frequency {freq!r}: multiple {multiple} does not divide the base seasonal "
                  f"period {base}; using seasonality 1", stacklevel=2)
    return 1
