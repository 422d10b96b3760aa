"""Validation of user-supplied names that become parts of file paths."""

from __future__ import annotations

import re

from .errors import ConfigError

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
#: Folder names a results folder uses for itself (the run history), never a method's.
RESERVED_METHOD_NAMES = ("runs",)


def validate_name(name: str, kind: str) -> str:
    """Return ``name`` if it is safe to use as one path component, else raise ConfigError.

    A safe name starts with a letter or digit and holds only letters, digits and ``_ . + -``;
    it never contains a path separator and is never ``.`` or ``..``.

    Parameters
    ----------
    name : str
        The method, dataset or model name.
    kind : str
        What the name is, for the message (``"method"``, ``"dataset"``, ...).
    """
    if not isinstance(name, str) or not _SAFE_NAME.match(name) or ".." in name:
        raise ConfigError(f"invalid {kind} name {name!r}: use letters, digits and _ . + - only, "
                          "no path separators or '..'")
    if kind.startswith("method") and name in RESERVED_METHOD_NAMES:
        raise ConfigError(f"invalid {kind} name {name!r}: it is reserved for the run history folder")
    return name
