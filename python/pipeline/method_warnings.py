"""The numerical warnings of a method's call, recorded with its ranking (docs/results-schema.md).

A method that warns (a singular matrix, a division by zero, an overflow) may have produced a
ranking worth less than its scores say: its warnings are results. Both engines hand them to the
runner the same way, as :data:`INFO_KEY` in the info of :meth:`~pipeline.engines.base.Engine.rank`,
a list of message texts, one per occurrence:

- Python: :func:`numerical_warnings_caught` around the call records every ``RuntimeWarning``
  (NumPy's floating-point errors, ``ComplexWarning``, SciPy's ``LinAlgWarning``), with NumPy set to
  warn on division by zero, overflow and invalid operations for the call; other warnings are shown
  as before. A plug-in's call runs in a child process, which sends its warnings back
  (:func:`~pipeline.methods.isolated.call_in_child`).
- MATLAB/Octave: every ``warning(...)`` the call prints (``matlab/util/mlfs_isolated_call.m``).

The ranking record keeps their :func:`warnings_summary` (``warnings``): the count, the distinct
messages with their counts (the most frequent first, at most ``MAX_RECORDED_WARNINGS``, each cut at
``MAX_WARNING_CHARS`` characters) and how many distinct messages are not listed. Twin:
``matlab/util/mlfs_warning_summary.m`` (``run_suite`` writes the same field).
"""

from __future__ import annotations

import contextlib
import warnings
from collections import Counter
from typing import Iterator, Sequence

import numpy as np

from .definitions import MAX_RECORDED_WARNINGS, MAX_WARNING_CHARS

#: The info key an engine adds (beside ``compute_seconds``): the call's warning messages.
INFO_KEY = "numerical_warnings"


def is_numerical(category: type) -> bool:
    """Whether a warning of ``category`` says something about the numbers a method computed."""
    return issubclass(category, RuntimeWarning)


def message_text(message: warnings.WarningMessage) -> str:
    """``RuntimeWarning: divide by zero encountered in divide``."""
    return f"{message.category.__name__}: {message.message}"


@contextlib.contextmanager
def numerical_warnings_caught() -> Iterator[list[str]]:
    """Meanwhile, numerical warnings are recorded, every occurrence (not once per line of code);
    on leaving, the yielded list holds their texts (:func:`message_text`) and the other warnings
    caught are shown as they would have been."""
    found: list[str] = []
    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn", over="warn", invalid="warn"):
        warnings.simplefilter("always", RuntimeWarning)
        try:
            yield found
        finally:
            shown = [w for w in caught if not is_numerical(w.category)]
            found += [message_text(w) for w in caught if is_numerical(w.category)]
    for w in shown:
        warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)


def warnings_summary(messages: Sequence[str]) -> dict:
    """``{"count", "messages": [{"text", "count"}, ...], "unlisted"}`` of every occurrence in
    ``messages``: blanks collapsed, texts cut, the most frequent first (ties in order of appearance)."""
    counts = Counter(" ".join(str(m).split())[:MAX_WARNING_CHARS] for m in messages)
    listed = counts.most_common(MAX_RECORDED_WARNINGS)
    return {"count": len(messages), "messages": [{"text": text, "count": n} for text, n in listed],
            "unlisted": len(counts) - len(listed)}
