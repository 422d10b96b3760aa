"""Python plug-in code runs in processes of its own, never where anything else is computed.

A plug-in folder's ``*.py`` files are imported in a child process forked for that purpose, which
describes their methods (names, defaults, ranges, forms) and ends; the process that loads the
folder (a run's driver, a worker, ``methods check``) registers each method with
:class:`~pipeline.methods.plugins.IsolatedFunction` in place of its functions. Calling one forks a child of the calling
process that imports the plug-in file, calls the real function with the arguments (inherited by
the fork, never copied) and sends back its result or exception. So whatever a plug-in does when
imported or called (patching ``numpy`` or the evaluator, starting threads, ``os._exit``), it does
in a process that computes nothing else and then ends: other methods' rankings and every ML-kNN
evaluation run where no plug-in code was ever loaded (docs/reliability.md, Plug-ins cannot change
other results). The child is in the caller's process group: a run that ends a task's worker ends it
too.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import warnings
from typing import Any, Callable

from ..errors import EngineError
from ..processes import describe_exit_code

def call_in_child(body: Callable[[], Any], what: str) -> Any:
    """``body()`` run in a forked child process: its value, or its exception raised here.

    The warnings the child caught under the caller's filters are issued again here, as the caller
    would have seen them (a caller recording a method's numerical warnings records the plug-in's:
    :mod:`pipeline.method_warnings`).

    An exception of a class the plug-in defined is raised as an exception of the same name (its
    class cannot be loaded here without the plug-in's code). A child that ends without answering
    (``os._exit``, a signal) is an EngineError naming ``what``.
    """
    receiver, sender = multiprocessing.Pipe(duplex=False)
    pid = os.fork()  # not a multiprocessing.Process: a run's workers are daemonic, which may not have those
    if pid == 0:
        receiver.close()
        _child_main(body, sender)
    sender.close()
    try:
        outcome, payload, warned = receiver.recv()
    except EOFError:
        raise EngineError(f"{what} ended its process ({describe_exit_code(_wait(pid))}) instead of returning") from None
    except (pickle.UnpicklingError, AttributeError, ImportError) as exc:
        _wait(pid)
        raise EngineError(f"{what} returned an object that cannot leave its process: {exc}") from None
    except BaseException:  # this process is stopped (Ctrl-C, SIGTERM) while the child runs: it goes first
        os.kill(pid, signal.SIGKILL)
        _wait(pid)
        raise
    finally:
        receiver.close()
    _wait(pid)
    for message, category, filename, lineno in warned:
        warnings.warn_explicit(message, category, filename, lineno)
    if outcome == "exited":
        raise SystemExit(payload)
    if outcome == "raised":
        raise payload
    if outcome == "raised_own":
        name, message = payload
        raise type(name, (Exception,), {})(message)
    return payload


def _child_main(body: Callable[[], Any], sender) -> None:
    """The child's side: send ``("value", result)``, ``("exited", sys.exit's code)``, ``("raised", exception)`` or, for an
    exception of the plug-in's own class, ``("raised_own", (class name, message))``, each with the
    warnings the call caught; then end at once (threads the plug-in started do not keep the process
    alive)."""
    caught: list = []
    try:
        try:
            with warnings.catch_warnings(record=True) as caught:  # under the filters inherited from the caller
                answer = ("value", body())
        except SystemExit as exc:  # sent as its code: how an exception pickles can be changed (tblib)
            answer = ("exited", exc.code)
        except BaseException as exc:  # noqa: BLE001 - the plug-in's failure, whatever it is, is the caller's to report
            own = type(exc).__module__ not in ("builtins",) and not type(exc).__module__.startswith(("pipeline", "numpy"))
            answer = ("raised_own", (type(exc).__name__, str(exc))) if own else ("raised", exc)
        warned = [(str(w.message), _sendable(w.category), w.filename, w.lineno) for w in caught]
        try:
            sender.send((*answer, warned))
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            sender.send(("raised", EngineError(f"the plug-in's result cannot leave its process: {exc}"), warned))
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _sendable(category: type) -> type:
    """``category``, or for a warning class the plug-in defined (which cannot be loaded without its
    code) the nearest of its bases that Python, NumPy or SciPy define."""
    return next(c for c in category.__mro__ if c.__module__.split(".")[0] in ("builtins", "numpy", "scipy"))


def _wait(pid: int) -> int:
    """The child's exit code once it has ended (negative: the signal that killed it)."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
