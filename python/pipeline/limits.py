"""Size limits a user may raise through environment variables (e.g. ``MLFS_MAX_FOLD_BYTES``)."""

from __future__ import annotations

import os

from .errors import ConfigError


def env_limit(variable: str, default: int) -> int:
    """The positive integer in environment ``variable``, or ``default`` when it is unset.

    Raises
    ------
    ConfigError
        If the variable is set to anything but a positive integer.
    """
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        limit = int(text)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise ConfigError("must be a positive integer", field=variable, found=repr(text))
    return limit


#: Bounds shared by a suite file (pipeline.paper) and the command lines (pipeline.kgrid, ...): the
#: largest ML-kNN neighbour count and smoothing, the longest task timeout (a week) and claim
#: age (30 days), the largest --max-tasks.
MAX_MLKNN_K = 1000
MAX_MLKNN_SMOOTH = 1e6
MAX_TASK_TIMEOUT = 7 * 24 * 3600.0
MAX_CLAIM_STALE_AFTER = 30 * 24 * 3600.0
MAX_TASKS_LIMIT = 10_000_000
