"""Validation of user-supplied names that become parts of file paths."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from .errors import ConfigError
from .validation import shorten

#: Longest accepted name. The longest file a name becomes part of is a temporary such as
#: ``.<NAME>_fold<i>_kgrid_metrics.json.<pid>-<start>@<host>.<8 random>.tmp`` (the name plus at most
#: about 105 bytes, the host cut to 40 characters), which must stay within the 255-byte limit most
#: file systems put on one path component.
MAX_NAME_LENGTH = 128

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", re.ASCII)
_SHOWN_CHARACTERS = 40
#: The names of a results folder (``pipeline.results.layout`` reads the same file; this module is below it).
_LAYOUT_FILE = Path(__file__).resolve().parent / "results" / "layout.json"


@functools.cache
def reserved_method_names() -> frozenset[str]:
    """Names a results folder uses for itself (the run history folder, the failures file), in lower
    case: a method folder so named (in any case, for file systems that ignore it) would mix with them."""
    layout = json.loads(_LAYOUT_FILE.read_text(encoding="utf-8"))
    return frozenset(layout[key].lower() for key in ("run_history_folder", "failures_file"))


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
    if kind.startswith("method") and name.lower() in reserved_method_names():
        raise ConfigError(f"invalid {kind} name {name!r}: a results folder uses it for itself",
                          expected=f"a name other than {sorted(reserved_method_names())} (in any case)")
    return name


def distinct_names(values: list[str], where: str, kind: str) -> list[str]:
    """``values`` validated (:func:`validate_name`), none listed twice, also in another case: on a file
    system that ignores case, ``variance`` and ``VARIANCE`` are one results folder, so the second
    would run twice into the first one's files."""
    names = [validate_name(value, kind) for value in values]
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            raise ConfigError("listed twice (it would run twice)", field=where, found=name)
        seen.add(name.lower())
    return names

