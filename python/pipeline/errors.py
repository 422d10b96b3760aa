"""Errors a user can cause.

Every error that bad input (a file, a field, an argument) can trigger is a :class:`PipelineError`.
The CLIs turn it into one line on stderr and exit code 2, with no traceback. The message names
what was read (``file``), which part of it (``field``), what was expected and what was found, so a
user can fix the input without reading code.

Whatever a user wrote is cut to a readable length where the message is made (each part has its
own bound, :data:`PART_LIMITS`), and control characters are shown escaped, so no input, however
large or strange, can flood or garble a terminal or a log.
"""

from __future__ import annotations

import reprlib
from pathlib import Path

#: Most characters each part of a message keeps (a longer part ends with "... (N characters)").
PART_LIMITS = {"file": 300, "field": 120, "message": 400, "expected": 300, "found": 120}


def _summary(longest: int, items: int) -> reprlib.Repr:
    summary = reprlib.Repr()
    summary.maxstring = summary.maxother = longest
    summary.maxlist = summary.maxtuple = summary.maxdict = summary.maxset = items
    summary.maxlevel = 3
    return summary


_FOUND_REPR = _summary(PART_LIMITS["found"], 6)      # what a user wrote: a glimpse
_EXPECTED_REPR = _summary(PART_LIMITS["expected"], 64)  # what the program allows: in full


class PipelineError(Exception):
    """A user-caused error with a precise, single-line message.

    Parameters
    ----------
    message : str
        What went wrong, in words.
    file : str or Path, optional
        The file being read or written.
    field : str, optional
        The key, column, argument or variable inside that file.
    expected, found : object, optional
        What the field should have been and what it was.
    """

    def __init__(self, message: str, *, file: str | Path | None = None, field: str | None = None,
                 expected: object = None, found: object = None):
        self.message = message
        self.file = None if file is None else str(file)
        self.field = field
        self.expected = expected
        self.found = found
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(readable(self.file, PART_LIMITS["file"]))
        if self.field is not None:
            parts.append(f"field '{readable(self.field, PART_LIMITS['field'])}'")
        message = readable(self.message, PART_LIMITS["message"])
        head = ": ".join([", ".join(parts), message]) if parts else message
        details = []
        if self.expected is not None:
            details.append(f"expected {readable(self.expected, PART_LIMITS['expected'], _EXPECTED_REPR)}")
        if self.found is not None:
            details.append(f"found {readable(self.found, PART_LIMITS['found'])}")
        return f"{head} ({'; '.join(details)})" if details else head


def readable(value: object, limit: int, summary: reprlib.Repr = _FOUND_REPR) -> str:
    """``value`` as one line of at most about ``limit`` characters: whitespace runs (line and
    paragraph separators included) become one space, other control characters are escaped, and a
    longer text is cut and says how long it was. A container is summarised without being expanded."""
    text = summary.repr(value) if isinstance(value, (list, tuple, dict, set, frozenset)) else str(value)
    head = text[:limit + 1]
    shown = " ".join(head.split())
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in shown)
    if len(text) > limit or len(shown) > limit:
        return f"{shown[:limit]}... ({len(text)} characters)"
    return shown


class DataError(PipelineError):
    """A dataset, fold or prediction file is missing, unreadable or malformed."""


class RankingError(PipelineError):
    """A feature ranking is not a 1-based permutation of 1..d."""


class ConfigError(PipelineError):
    """An argument, parameter file or grid specification is invalid."""


class EngineError(PipelineError):
    """A method failed inside an engine (Python, Octave or MATLAB)."""


class StorageError(PipelineError):
    """A folder or file cannot be created or written: no permission, read-only or full file
    system, a path through a regular file, a symbolic-link loop."""
