"""Shared plumbing for the command-line front doors.

User errors (:class:`~pipeline.errors.PipelineError`) become one line on stderr and exit code 2;
a reader that closes standard output early (``... | head``) ends the command quietly with exit
code 141, as ``yes | head`` does; Ctrl-C and SIGTERM outside a run (a run reports them itself)
end it with 130 and 143; anything else is a bug and keeps its traceback. Numeric options
are bounded where they are parsed (:func:`check_option_bounds`), so a count such as
``--bootstrap 1000000000`` is refused before it is allocated.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable, Sequence

from .errors import ConfigError, PipelineError
from .locations import MATLAB_DIR_VARIABLE, matlab_dir
from .validation import Interval

BROKEN_PIPE_EXIT = 128 + 13  # killed by SIGPIPE, the status shells report for `yes | head`


def run_main(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Call ``main(argv)`` and map a :class:`PipelineError` to exit code 2 with a one-line message,
    Ctrl-C to 130 and SIGTERM to 143 (128 + the signal, as a run that a signal stops)."""
    try:
        try:
            with _sigterm_raises():
                code = main(argv)
        finally:  # buffered output reaches a closed pipe here, inside the handler, not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        return BROKEN_PIPE_EXIT
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print("interrupted", file=sys.stderr)
        return 128 + (signal.SIGTERM if isinstance(exc, _Terminated) else signal.SIGINT)
    return int(code or 0)


def exit_process(code: int) -> None:
    """End the command with ``code``, also while threads a plug-in started still run (a normal exit
    would wait for them): then, output flushed, the process ends at once."""
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


class _Terminated(KeyboardInterrupt):
    """SIGTERM reached the command: it unwinds as for Ctrl-C (temporaries removed), then exits 143."""


@contextlib.contextmanager
def _sigterm_raises():
    """SIGTERM raises :class:`_Terminated` meanwhile (in the main thread; a run takes it over while
    its tasks run, see :class:`~pipeline.runner.lifecycle.RunStop`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise_terminated(_signum, _frame) -> None:
    raise _Terminated


def add_code_options(parser: argparse.ArgumentParser) -> None:
    """``--plugins`` and ``--matlab-dir``, of the run commands, ``pipeline.paper`` and ``pipeline.methods``."""
    parser.add_argument("--plugins", nargs="+", default=[], metavar="DIR",
                        help="plug-in folders: every *.py MethodSpec and every NAME.m with the method signature "
                             "in them is a method (docs/plugins.md)")
    parser.add_argument("--matlab-dir", type=Path, default=None,
                        help=f"the MATLAB/Octave code folder to use (default: ${MATLAB_DIR_VARIABLE}, else the "
                             "installed package's copy, else the checkout's matlab/)")


def use_matlab_dir(args: argparse.Namespace) -> None:
    """``--matlab-dir``: the code folder of this process and of the workers it starts."""
    if args.matlab_dir is not None:
        os.environ[MATLAB_DIR_VARIABLE] = str(args.matlab_dir.resolve())
        matlab_dir()  # a folder without the code is said now, before any work


def check_option_bounds(args: argparse.Namespace, bounds: dict[str, Interval]) -> None:
    """ConfigError (one line, exit 2) for the first numeric option outside its bounds, before any work
    or allocation; ``bounds`` maps an option (``--bootstrap``) to its range. Options left at None
    and options not given to this command are skipped; a list option is checked value by value."""
    for option, bound in bounds.items():
        value = getattr(args, option.lstrip("-").replace("-", "_"), None)
        for item in value if isinstance(value, list) else [value]:
            if item is not None and not bound.admits(item):
                raise ConfigError("out of range", field=option, expected=str(bound), found=item)


def _discard_stdout() -> None:
    """Point standard output at the null device so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
