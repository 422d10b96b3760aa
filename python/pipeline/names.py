"""Validation of user-supplied names that become parts of file paths."""

from __future__ import annotations

import re

from .errors import ConfigError
from .validation import shorten

#: Longest accepted name. The longest file a name becomes part of is a temporary such as
#: ``.<NAME>_fold<i>_kgrid_metrics.json.<pid>-<start>@<host>.<8 random>.tmp`` (the name plus at most
#: about 105 bytes, the host cut to 40 characters), which must stay within the 255-byte limit most
#: file systems put on one path component.
MAX_NAME_LENGTH = 128

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", re.ASCII)
_SHOWN_CHARACTERS = 40
#: Folder names a results folder uses for itself (the run history), never a method's.
RESERVED_METHOD_NAMES = ("runs",)


def validate_name(name: str, kind: str) -> str:
    """Return ``name`` if it is safe to use as one path component, else raise ConfigError.

    A safe name has 1 to :data:`MAX_NAME_LENGTH` characters, starts with an ASCII letter or digit
    and holds only ASCII letters, digits and ``_ . + -`` (no whitespace, not even a trailing
    newline); it never contains a path separator and is never ``.`` or ``..``.

    Parameters
    ----------
    name : str
        The method, dataset or model name.
    kind : str
        What the name is, for the message (``"method"``, ``"dataset"``, ...).
    """
    if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name) or ".." in name:
        raise ConfigError(f"invalid {kind} name {shorten(name, _SHOWN_CHARACTERS)}: use letters, digits and _ . + - "
                          "only, no path separators or '..'")
    if len(name) > MAX_NAME_LENGTH:
        raise ConfigError(f"{kind} name too long", expected=f"at most {MAX_NAME_LENGTH} characters",
                          found=shorten(name, _SHOWN_CHARACTERS))
    if kind.startswith("method") and name in RESERVED_METHOD_NAMES:
        raise ConfigError(f"invalid {kind} name {name!r}: it is reserved for the run history folder")
    return name

