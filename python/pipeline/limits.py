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
