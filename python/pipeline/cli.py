"""Shared plumbing for the command-line front doors.

User errors (:class:`~pipeline.errors.PipelineError`) become one line on stderr and exit code 2;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
from typing import Callable, Sequence

from .errors import PipelineError


def run_main(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Call ``main(argv)`` and map a :class:`PipelineError` to exit code 2 with a one-line message."""
    try:
        code = main(argv)
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return int(code or 0)
