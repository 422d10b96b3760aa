"""Seasonal period ``m`` from a pandas frequency string, as GluonTS ``get_seasonality``.

The base table (docs/forecast.md, "Seasonality") is GluonTS's: seconds 3600 (an hour of
seconds), minutes 1440, hours 24, days 1, weeks 1, months 12, business days 5, quarters 4, every
other frequency (years, milliseconds, ...) 1. Daily data get ``m = 1``, not 7, as in the
reference implementation the Chronos numbers come from.
"""

from __future__ import annotations

import warnings

import pandas as pd

from ...errors import ConfigError

# Keys are case-sensitive pandas codes: "ms" (milliseconds) is not "MS" (month start).
BASE_SEASONALITY = {
    "S": 3600, "s": 3600,
    "T": 1440, "min": 1440,
    "H": 24, "h": 24,
    "D": 1,
    "W": 1,
    "M": 12, "ME": 12,
    "B": 5,
    "Q": 4, "QE": 4,
}


def frequency_offset(freq: str) -> pd.DateOffset:
    """``pandas.tseries.frequencies.to_offset(freq)`` with a ConfigError for unparseable strings."""
    try:
        with warnings.catch_warnings():
            # legacy aliases ("H", "T", "S", "A-DEC") still parse; pandas only warns about them
            warnings.simplefilter("ignore", FutureWarning)
            return pd.tseries.frequencies.to_offset(freq)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"cannot parse frequency string {freq!r}",
                          expected="a pandas frequency like 'h', '15min', 'W-SUN'", found=freq) from exc


def base_code(offset: pd.DateOffset) -> str:
    """GluonTS ``norm_freq_str``: the offset's name without anchor, a trailing start ``S`` dropped."""
    code = offset.name.split("-")[0]
    return code[:-1] if len(code) >= 2 and code.endswith("S") else code


def seasonality_from_freq(freq: str) -> int:
    """Return the seasonal period for a frequency such as ``"15min"``, ``"W-SUN"`` or ``"10s"``.

    A multiple ``n`` of a base frequency gives ``base // n`` when ``n`` divides the base period,
    else 1 with a warning (GluonTS behaviour).
    """
    offset = frequency_offset(freq)
    base = BASE_SEASONALITY.get(base_code(offset), 1)
    if base % offset.n == 0:
        return base // offset.n
    warnings.warn(f"frequency {freq!r}: multiple {offset.n} does not divide the base seasonal "
                  f"period {base}; using seasonality 1", stacklevel=2)
    return 1
