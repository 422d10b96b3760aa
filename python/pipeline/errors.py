"""Errors a user can cause.

Every error that bad input (a file, a field, an argument) can trigger is a :class:`PipelineError`.
The CLIs turn it into one line on stderr and exit code 2, with no traceback. The message names
what was read (``file``), which part of it (``field``), what was expected and what was found, so a
user can fix the input without reading code.
"""

from __future__ import annotations

from pathlib import Path


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
            parts.append(self.file)
        if self.field is not None:
            parts.append(f"field '{self.field}'")
        head = ": ".join([", ".join(parts), self.message]) if parts else self.message
        details = []
        if self.expected is not None:
            details.append(f"expected {self.expected}")
        if self.found is not None:
            details.append(f"found {self.found}")
        text = f"{head} ({'; '.join(details)})" if details else head
        return " ".join(text.split())


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
