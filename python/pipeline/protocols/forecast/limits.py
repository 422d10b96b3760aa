"""Size and structure limits, checked before anything of that size is allocated.

A task list or a dataset is user input: a ``num_rolls: 1000000000`` or a crafted Arrow file must
end in a one-line error, not in gigabytes of empty windows. Every limit is documented in
``docs/forecast.md``; the two a real workload may need to raise are command-line options
(``--max-windows``, ``--max-points``).
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass

from ...errors import ConfigError
from ...limits import (FORECAST_MAX_POINTS, FORECAST_MAX_PREDICTION_LENGTH, FORECAST_MAX_SERIES, FORECAST_MAX_TARGETS,
                       FORECAST_MAX_TASK_FILE_BYTES, FORECAST_MAX_TASKS, FORECAST_MAX_WINDOWS)


@dataclass(frozen=True)
class Limits:
    """Upper bounds on task lists and datasets (defaults: the ``FORECAST_MAX_*`` of :mod:`pipeline.limits`).

    Attributes
    ----------
    max_task_file_bytes : size of a YAML task list, checked before it is read.
    max_tasks : entries in one task list.
    max_targets : target columns of one (multivariate) task.
    max_windows : evaluation windows of one task (``num_rolls`` / ``num_windows``).
    max_prediction_length : forecast horizon H of one task.
    max_points : target values of one dataset (all series together), counted per Arrow record
        batch or per CSV line before the values are converted; also bounds offsets and steps.
    max_series : series of one dataset (rows x target columns x variates).
    """

    max_task_file_bytes: int = FORECAST_MAX_TASK_FILE_BYTES
    max_tasks: int = FORECAST_MAX_TASKS
    max_targets: int = FORECAST_MAX_TARGETS
    max_windows: int = FORECAST_MAX_WINDOWS
    max_prediction_length: int = FORECAST_MAX_PREDICTION_LENGTH
    max_points: int = FORECAST_MAX_POINTS
    max_series: int = FORECAST_MAX_SERIES

    def __post_init__(self):
        for name, value in vars(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError("limit must be a positive integer", field=name, found=value)

    def check(self, name: str, value: int, *, file=None, field: str | None = None) -> int:
        """Return ``value`` or raise ConfigError when it exceeds limit ``name``."""
        limit = getattr(self, name)
        if value > limit:
            option = {"max_windows": " (raise it with --max-windows)",
                      "max_points": " (raise it with --max-points)"}.get(name, "")
            raise ConfigError(f"exceeds the limit {name}={limit}{option}", file=file, field=field,
                              found=value)
        return value


DEFAULT_LIMITS = Limits()


def _brief_repr() -> reprlib.Repr:
    short = reprlib.Repr()  # keyword arguments need Python >= 3.12
    short.maxlevel, short.maxstring, short.maxother, short.maxlong = 2, 60, 60, 40
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = 4
    return short


_BRIEF = _brief_repr()


def brief(value: object) -> str:
    """A short repr of user input for error messages: nested aliases can make a YAML value with
    10**9 leaves, which a plain ``str`` would walk entirely."""
    return _BRIEF.repr(value)
