"""GNU Octave engine and evaluator through oct2py.

One long-lived Octave process per worker: an engine and an evaluator built with the same settings
share it (:func:`shared_session`). It starts on first use with ``matlab/`` (and its sub-folders) on
its path, is reused across tasks, and is replaced after a crash or a timeout. Arrays travel as
binary MAT files through a folder in the process's scratch folder on the RAM disk
(:func:`~pipeline.fileio.process_scratch_dir`), never as text; the folder goes with the session.

Process lifecycle (``docs/reliability.md``): Octave runs on a pseudo-terminal owned by the Python
process that started it, so the kernel hangs it up, and Octave exits, when that process dies,
however it dies. A signal that arrives while Octave computes (Ctrl-C, a stop request) kills
Octave at once and is then handed to the previous handler; the call never returns the outputs of
an earlier call. Octave's own start-up and exit chatter goes to the logger
``pipeline.engines.octave``, never to the terminal.

Every call goes through ``matlab/util/mlfs_engine_call.m``, which catches the Octave error and
returns its identifier, message and call stack; they are raised here as
:class:`~pipeline.errors.EngineError` naming the method and the task (``method/dataset/foldN``).

The value conversions (:func:`to_engine_value`, :func:`from_engine_value`) are shared with the
MATLAB engine (:mod:`pipeline.engines.matlab`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import io
import logging
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError, EngineError
from ..fileio import process_scratch_dir
from ..locations import matlab_dir as default_matlab_dir
from ..method_warnings import INFO_KEY
from ..methods.base import MethodSpec
from ..evaluation.metrics import METRICS
from ..validation import shorten
from .base import Engine, Evaluator

DEFAULT_TIMEOUT = 3600.0
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
STARTUP_FILE = "engine_octaverc"  # in matlab/: the site start-up file of the Octave the engine starts
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,62}$")
_LOG = logging.getLogger(__name__)


# -- value conversion shared by the Octave and MATLAB bridges ------------------------------------
def to_engine_value(value: Any, where: str = "params") -> Any:
    """Convert a parameter value to what the bridges turn into MATLAB types.

    dict -> struct (keys must be MATLAB identifiers), list/tuple of numbers -> float64 row vector,
    list of strings -> cell of char, bool -> logical, integers and reals -> double, NumPy arrays ->
    float64 arrays, None -> [] (empty double).

    Raises
    ------
    EngineError
        For a key that is not a valid MATLAB field name, or a value of an unsupported type.
    """
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str) or not _IDENTIFIER.match(key):
                raise EngineError("parameter name is not a valid MATLAB field name", field=f"{where}.{key}",
                                  expected="a letter followed by letters, digits or _ (max 63)")
            out[key] = to_engine_value(item, f"{where}.{key}")
        return out
    if value is None:
        return np.zeros((0, 0))
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (Integral, Real)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise EngineError("array parameter is not numeric", field=where, found=str(value.dtype))
        return np.asarray(value, dtype=np.float64)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, str) for v in value) and value:
            return list(value)
        if all(isinstance(v, (Integral, Real)) and not isinstance(v, bool) for v in value):
            return np.asarray(value, dtype=np.float64).reshape(1, -1)
    raise EngineError("parameter type cannot be passed to MATLAB/Octave", field=where,
                      found=type(value).__name__)


def from_engine_value(value: Any) -> Any:
    """Convert a bridge result to plain JSON-serialisable Python (dicts, lists, floats, str).

    Structs (dict subclasses) become dicts, cells and arrays become (nested) lists, 1x1 arrays
    become scalars, non-finite floats stay floats (the JSON writer turns them into null).
    """
    if isinstance(value, dict):
        return {str(k): from_engine_value(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return [from_engine_value(v) for v in value.ravel().tolist()]
        if value.size == 1:
            return value.reshape(-1)[0].item()
        return np.squeeze(value).tolist() if min(value.shape, default=0) == 1 else value.tolist()
    if isinstance(value, (list, tuple)):
        return [from_engine_value(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def defaults_from_engine(defaults: Any, logical_names: Any, is_struct: Any) -> Any:
    """The outputs of ``mlfs_plugin_defaults`` as Python: the defaults struct as a dict whose
    logical values are bools again (the bridge carries a logical as a number); ``{}`` for
    ``struct()``, which the bridge carries as a cell."""
    if not isinstance(defaults, dict):
        return {} if bool(is_struct) else defaults
    plain = from_engine_value(defaults)
    names = from_engine_value(logical_names)
    for name in [names] if isinstance(names, str) else names or []:
        plain[name] = bool(plain[name])
    return plain


def plugin_clash(files: Any, others: Any) -> ConfigError | None:
    """The error for the first clash ``mlfs_plugin_clashes`` found in a plug-in folder (None if none)."""
    files, others = from_engine_value(files), from_engine_value(others)
    if not files:
        return None
    first, other = (files, others) if isinstance(files, str) else (files[0], others[0])
    return ConfigError(f"the plug-in file is named like {other}: on the path it would replace it for every method, "
                       "the shipped ones included; rename it", file=first)


def ranking_from_engine(value: Any) -> np.ndarray:
    """The ranking output of a MATLAB/Octave method as a flat float array (validated by the caller)."""
    return np.asarray(value, dtype=np.float64).reshape(-1)


def curves_from_engine(result: dict) -> dict:
    """MLKNN_eval_kgrid's struct as the native evaluator's dict (ints for k and label counts)."""
    k_values = np.asarray(result["k_values"], dtype=np.float64).reshape(-1)
    curves = {"k_values": [int(k) for k in k_values]}
    for key in METRICS:
        curves[key] = [float(v) for v in np.asarray(result[key], dtype=np.float64).reshape(-1)]
    curves["macro_pr_auc_labels_used"] = int(result["macro_pr_auc_labels_used"])
    curves["macro_pr_auc_labels_total"] = int(result["macro_pr_auc_labels_total"])
    return curves


def failure_message(failure: Any) -> str | None:
    """One line from mlfs_engine_call's failure struct (None when the call succeeded)."""
    if not isinstance(failure, dict):
        return None
    identifier = str(failure.get("identifier") or "").strip()
    message = " ".join(str(failure.get("message") or "").split())
    stack = str(failure.get("stack") or "").strip()
    text = message if not identifier else f"{message} [{identifier}]"
    return f"{text} (at {stack})" if stack else text


def warning_messages(warned: Any) -> list[str]:
    """mlfs_engine_call's warning messages (one per line) as a list ([] for none)."""
    return warned.splitlines() if isinstance(warned, str) else []


def evaluation_inputs(X_train, Y_train, X_test, Y_test, ranking, k_values: Sequence[int]):
    """Restrict a fold to the ranked prefix the grid needs, in ranking order.

    Returns (X_train[:, prefix], Y_train, X_test[:, prefix], Y_test, ranking 1..k_max, k_values):
    the evaluator only ever reads the first max(k) ranked columns, so only those are sent over
    the bridge.
    """
    ranking = np.asarray(ranking, dtype=np.int64).reshape(-1)
    k_values = [int(k) for k in k_values]
    k_max = min(max(k_values), ranking.size) if k_values else 0
    columns = ranking[:max(k_max, 1)] - 1
    return (np.asarray(X_train, dtype=np.float64)[:, columns],
            np.asarray(Y_train, dtype=np.float64),
            np.asarray(X_test, dtype=np.float64)[:, columns],
            np.asarray(Y_test, dtype=np.float64),
            np.arange(1, columns.size + 1, dtype=np.float64),
            np.asarray(k_values, dtype=np.float64))


# -- the Octave process --------------------------------------------------------------------------
class OctaveSession:
    """A long-lived Octave process with ``matlab/`` on its path.

    Parameters
    ----------
    timeout : float
        Seconds one call may take; after that Octave is killed, an EngineError is raised and the
        next call starts a new process.
    matlab_dir : path, optional
        The repository's ``matlab/`` folder (added with all its sub-folders).
    extra_paths : sequence of paths
        More folders to add (e.g. a user's own methods).
    """

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, matlab_dir: str | Path | None = None,
                 extra_paths: Sequence[str | Path] = ()):
        if not (isinstance(timeout, Real) and timeout > 0 and math.isfinite(timeout)):
            raise EngineError("the Octave timeout must be a positive number of seconds", found=repr(timeout))
        self.timeout = float(timeout)
        self.matlab_dir = Path(matlab_dir) if matlab_dir is not None else default_matlab_dir()
        self.extra_paths = [Path(p) for p in extra_paths]
        self._octave = None
        self._exchange: Path | None = None
        self._killed = None  # the engine of a killed process, reaped at close()
        self._aborted = False
        self._expired = False
        self.starts = 0
        self.last_call_seconds = float("nan")
        self.last_call_warnings: list[str] = []

    @property
    def running(self) -> bool:
        return self._octave is not None

    @property
    def pid(self) -> int | None:
        """The Octave process id (None when not running)."""
        engine = getattr(self._octave, "_engine", None)
        return engine.repl.child.pid if engine is not None else None

    def start(self):
        """Start Octave if it is not running; return the oct2py session.

        Raises
        ------
        EngineError
            When oct2py or Octave is missing or Octave cannot start.
        KeyboardInterrupt
            When SIGINT or SIGTERM arrived during the start (Octave is stopped again).
        """
        if self._octave is not None:
            return self._octave
        session_class = _session_class()
        if not all((self.matlab_dir / name).is_file() for name in ("util/mlfs_engine_call.m", STARTUP_FILE)):
            raise EngineError("the MATLAB/Octave code folder was not found", file=self.matlab_dir)
        self._aborted = self._expired = False
        self._exchange = Path(tempfile.mkdtemp(prefix="octave.", dir=process_scratch_dir()))
        guard = _SignalsAbort(self)
        try:
            with guard, _stderr_to_log(), _signals_held(), _environment(_start_variables(self.matlab_dir)):
                self._octave = session_class(logger=_LOG, timeout=self.timeout, backend="disable",
                                             executable=_octave_command(self._exchange),
                                             temp_dir=str(self._exchange))
                self._octave.feval("cd", os.getcwd(), nout=0)  # it started in the scratch folder
                self._octave.addpath(self._octave.genpath(str(self.matlab_dir)))
                clash = None
                for extra in self.extra_paths:  # each checked before it is on the path
                    clash = plugin_clash(*self._octave.feval("mlfs_plugin_clashes", str(extra), nout=2))
                    if clash is not None:
                        break
                    self._octave.addpath(self._octave.genpath(str(extra)))
        except Exception as exc:  # oct2py raises OSError/Oct2PyError/pexpect errors when Octave is absent
            self.close()
            self._stop_if_aborted(guard)
            raise EngineError("cannot start GNU Octave: install it (Debian/Ubuntu: apt-get install -y "
                              f"--no-install-recommends octave) or set OCTAVE_EXECUTABLE ({exc})") from exc
        self._stop_if_aborted(guard)
        if clash is not None:
            self.close()
            raise clash
        self.starts += 1
        return self._octave

    def call(self, function: str, *args, nout: int, context: str = "", timeout: float | None = None) -> list:
        """Run ``function(*args)`` in Octave and return its ``nout`` outputs.

        ``last_call_seconds`` then holds the call's own time measured inside Octave (without the
        start-up and the data transfer), ``last_call_warnings`` the messages of the warnings it printed.

        Raises
        ------
        EngineError
            With the function, the task context and the Octave message when the function errors;
            on a timeout or a crash (the next call starts a new process).
        KeyboardInterrupt
            When SIGINT or SIGTERM arrived during the call: Octave was killed.
        """
        octave = self.start()
        limit = self.timeout if timeout is None else float(timeout)
        what = f"{context}: {function}" if context else function
        guard = _SignalsAbort(self)
        try:
            outputs, failure, seconds, warned = self._feval(octave, guard, limit, function, float(nout), *args)
        except Exception as exc:
            self._raise_if_stopped(guard, what, limit)
            if not isinstance(exc, _process_failures()):
                raise
            self.close()
            detail = str(exc).splitlines()[0] if type(exc).__name__ == "Oct2PyError" else "Octave died"
            raise EngineError(f"{what} crashed in Octave ({detail}); the Octave process was stopped") from None
        self._raise_if_stopped(guard, what, limit)
        message = failure_message(failure)
        if message is not None:
            raise EngineError(f"{what} failed in Octave: {message}")
        self.last_call_seconds = float(seconds)
        self.last_call_warnings = warning_messages(warned)
        return list(outputs.ravel()) if isinstance(outputs, np.ndarray) else list(outputs)

    def _feval(self, octave, guard: "_SignalsAbort", limit: float, *args):
        """``mlfs_engine_call(*args)`` under the signal guard and a timer that kills Octave at ``limit``."""
        timer = threading.Timer(limit, self._expire)
        timer.daemon = True
        with guard:
            timer.start()
            try:
                return octave.feval("mlfs_engine_call", *args, nout=4, timeout=limit + _OCT2PY_BACKSTOP,
                                    verbose=False)
            finally:
                timer.cancel()

    def _raise_if_stopped(self, guard: "_SignalsAbort", what: str, limit: float) -> None:
        """After the timer or a signal killed Octave: close, then raise EngineError (timeout) or
        hand the signal on and raise KeyboardInterrupt."""
        if self._expired:
            self.close()
            raise EngineError(f"{what} timed out in Octave after {limit:g} s; the Octave process was stopped")
        self._stop_if_aborted(guard)

    def abort(self) -> None:
        """Kill Octave at once; the running call or start then raises. Safe from a signal handler
        or another thread."""
        self._aborted = True
        octave = self._octave
        engine = getattr(octave, "_engine", None)
        if engine is None:
            return
        octave._engine = None  # oct2py then returns from the dead call instead of starting a new Octave
        self._killed = engine
        with contextlib.suppress(OSError):
            os.kill(engine.repl.child.pid, signal.SIGKILL)

    def close(self) -> None:
        """Stop the Octave process and remove its exchange folder (a later call starts a new one)."""
        octave, self._octave = self._octave, None
        if octave is not None:
            try:
                octave.exit()
            except Exception as exc:  # a dead process may fail to exit cleanly; it is gone either way
                _LOG.debug("ignoring error while stopping Octave: %s", exc)
        killed, self._killed = self._killed, None
        if killed is not None:
            atexit.unregister(killed._cleanup)
            with contextlib.suppress(Exception):
                killed.repl.child.close(force=True)  # reaps the killed process
        exchange, self._exchange = self._exchange, None
        if exchange is not None:
            shutil.rmtree(exchange, ignore_errors=True)

    def _expire(self) -> None:
        self._expired = True
        self.abort()

    def _stop_if_aborted(self, guard: "_SignalsAbort") -> None:
        """After a signal killed Octave: close, hand the signal on, and raise KeyboardInterrupt."""
        if not self._aborted:
            return
        self.close()
        guard.hand_on()
        raise KeyboardInterrupt("Octave was stopped by a signal")


# oct2py's own per-call timeout, a backstop behind the session's timer (which kills at once)
_OCT2PY_BACKSTOP = 60.0


class _SignalsAbort:
    """While Octave starts or computes, SIGINT and SIGTERM kill it (``session.abort()``) instead of
    raising inside oct2py; :meth:`hand_on` then gives the signal to the handler it replaced.

    A KeyboardInterrupt inside oct2py would interrupt Octave, wait for it (a long BLAS call does not
    listen) and then read the exchange file: possibly the outputs of the previous call. Handlers
    can only change in the main thread; elsewhere (Dask worker threads) nothing changes.
    """

    def __init__(self, session: OctaveSession):
        self.session = session
        self.caught: int | None = None
        self._replaced: dict[int, Any] = {}

    def __enter__(self) -> "_SignalsAbort":
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                if callable(signal.getsignal(signum)):  # an ignored or system-handled signal stays so
                    self._replaced[signum] = signal.signal(signum, self._abort)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._replaced.items():
            signal.signal(signum, handler)

    def _abort(self, signum, _frame) -> None:
        if self.caught is None:
            self.caught = signum
        self.session.abort()

    def hand_on(self) -> None:
        """Call the replaced handler with the caught signal (it may raise, e.g. KeyboardInterrupt)."""
        if self.caught is not None and self.caught in self._replaced:
            self._replaced[self.caught](self.caught, None)


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM back meanwhile (they arrive at the end).

    While it forks Octave, pexpect sets SIGINT to the system default for a moment: a Ctrl-C then
    would kill this process outright instead of stopping the run.
    """
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


_STDERR_LOCK = threading.Lock()


@contextlib.contextmanager
def _stderr_to_log():
    """Send what is written to file descriptor 2 meanwhile to the log.

    oct2py checks the executable by running ``octave --eval`` with our standard error, where
    Octave prints X11/GUI warnings and ``error: ignoring const execution_exception& while
    preparing to exit``.
    """
    with _STDERR_LOCK, tempfile.TemporaryFile() as sink:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            for line in sink.read().decode("utf-8", errors="replace").splitlines():
                if line.strip():
                    _LOG.info("octave start-up: %s", line.rstrip())


def import_oct2py():
    """Import oct2py without the default session it starts at import time.

    ``import oct2py`` starts an Octave for its module-level ``octave`` object: one more idle Octave
    in every process, a folder on /dev/shm that nothing removes, and chatter on the terminal.
    With ``OCTAVE_EXECUTABLE`` naming a file that is no program, that start fails at once; oct2py
    catches the failure and prints it, which goes to the log.

    pandas is kept out of that import (oct2py imports it, when it can, only to convert DataFrames,
    which nothing here passes): it was half of the import's time, 0.5-1 s of every process that
    starts Octave. A None in ``sys.modules`` makes that one import fail; it is removed afterwards,
    so pandas imports as usual later on.
    """
    module = sys.modules.get("oct2py")
    if module is not None:
        return module
    saved = os.environ.get("OCTAVE_EXECUTABLE")
    os.environ["OCTAVE_EXECUTABLE"] = os.devnull
    keep_pandas_out = "pandas" not in sys.modules
    if keep_pandas_out:
        sys.modules["pandas"] = None
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            import oct2py
    except ImportError as exc:
        raise EngineError("the Python package oct2py is not installed (pip install oct2py)") from exc
    finally:
        if keep_pandas_out and sys.modules.get("pandas", False) is None:
            del sys.modules["pandas"]
        if saved is None:
            del os.environ["OCTAVE_EXECUTABLE"]
        else:
            os.environ["OCTAVE_EXECUTABLE"] = saved
    _LOG.debug("oct2py imported without its default session: %s", printed.getvalue().strip())
    return oct2py


def _process_failures() -> tuple[type[BaseException], ...]:
    """What a call raises when the Octave process died or stopped answering: oct2py's error, or
    pexpect's when the death is noticed outside oct2py's own handling (e.g. while it sets up the
    plot settings before the call)."""
    from pexpect import ExceptionPexpect

    return import_oct2py().Oct2PyError, ExceptionPexpect, OSError


@functools.cache
def _session_class():
    """oct2py's session class, made to start Octave once only.

    When Octave dies during a call, oct2py starts a new one before raising (with the start-up
    chatter on the terminal, and about a second lost). The session stops instead and starts a new
    process at its next call, through :meth:`OctaveSession.start`.
    """
    oct2py = import_oct2py()

    class SingleStartOct2Py(oct2py.Oct2Py):
        def restart(self):
            if self.__dict__.get("_started_once"):  # not getattr: Oct2Py looks unknown names up in Octave
                raise oct2py.Oct2PyError("Octave died")
            self._started_once = True
            super().restart()

        def _handle_stdin(self, line):
            # oct2py would read the answer from this process's standard input, where nobody answers
            # in a run (and the read outlasts any timeout): a method must run unattended.
            prompt = " ".join(str(line).replace("__stdin_prompt>", "").split())
            raise oct2py.Oct2PyError(f"the code asked for keyboard input ({shorten(prompt)}): a method must run "
                                     "without input() or keyboard()")

    return SingleStartOct2Py


@contextlib.contextmanager
def _environment(variables: dict[str, str]):
    """Set these environment variables meanwhile (for the Octave started meanwhile)."""
    saved = {key: os.environ.get(key) for key in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _single_threaded_blas() -> dict[str, str]:
    """One BLAS thread: some methods (LRDG) give other results with other thread counts, and a run's
    results must not depend on the machine (parallelism comes from --jobs)."""
    return {key: "1" for key in BLAS_THREAD_VARIABLES}


def _start_variables(matlab_dir: Path) -> dict[str, str]:
    """The environment of an Octave the engine starts: one BLAS thread, and ``matlab/engine_octaverc``
    as its site start-up file (it turns off the workspace dump on SIGHUP/SIGTERM before anything
    else runs, then reads the site file Octave would have read, ``$OCTAVE_SITE_INITFILE`` if set)."""
    return {**_single_threaded_blas(), "OCTAVE_SITE_INITFILE": str(matlab_dir / STARTUP_FILE),
            "MLFS_OCTAVE_SITE_INITFILE": os.environ.get("OCTAVE_SITE_INITFILE", "")}


def _octave_command(start_dir: Path) -> str | None:
    """The command oct2py runs: the Octave executable, started in ``start_dir`` (the session's scratch
    folder) where ``env --chdir`` exists. Octave dumps its workspace into its working folder when it
    is hung up during the few milliseconds before it has read its site start-up file; that dump then
    lands in the scratch folder, which goes with the session (:meth:`OctaveSession.start` then
    changes Octave's folder to ours). None lets oct2py look for ``octave``."""
    executable = _octave_executable() or shutil.which("octave")
    if executable is None or not _env_can_chdir():
        return executable
    return f"env --chdir={shlex.quote(str(start_dir))} {executable}"


@functools.cache
def _env_can_chdir() -> bool:
    """Whether ``env`` takes ``--chdir`` (GNU coreutils 8.28 and later; not macOS's)."""
    try:
        return subprocess.run(["env", "--chdir=/", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _octave_executable() -> str | None:
    """``$OCTAVE_EXECUTABLE`` if set, else ``octave-cli`` when on the PATH (no GUI start-up
    warnings), else None (oct2py then looks for ``octave``)."""
    return os.environ.get("OCTAVE_EXECUTABLE") or shutil.which("octave-cli")


_SHARED: dict[tuple, OctaveSession] = {}


def shared_session(timeout: float = DEFAULT_TIMEOUT, matlab_dir: str | Path | None = None,
                   extra_paths: Sequence[str | Path] = ()) -> OctaveSession:
    """The process-wide session for these settings, so a worker's engine and evaluator share one
    Octave process (created lazily; a closed session starts again at its next call)."""
    key = (float(timeout), str(Path(matlab_dir) if matlab_dir is not None else default_matlab_dir()),
           tuple(str(Path(p)) for p in extra_paths))
    if key not in _SHARED:
        _SHARED[key] = OctaveSession(timeout, matlab_dir, extra_paths)
    return _SHARED[key]


def describe_octave() -> dict:
    """Octave's version, BLAS and LAPACK as a fresh single-threaded ``octave-cli`` reports them, for
    a run's record (a second of start-up; ``{"octave": None, "error": ...}`` if it cannot start)."""
    executable = _octave_executable() or "octave"
    code = "disp(version()); disp(version('-blas')); disp(version('-lapack'))"
    try:
        with _environment(_single_threaded_blas()):
            done = subprocess.run([executable, "--no-gui", "--quiet", "--no-init-file", "--eval", code],
                                  capture_output=True, text=True, timeout=60, env=dict(os.environ))
    except (OSError, subprocess.SubprocessError) as exc:
        return {"octave": None, "error": str(exc)}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(lines) < 3:
        return {"octave": None, "error": " ".join(done.stderr.split())[:200]}
    return {"octave": lines[0].strip(), "blas": " ".join(lines[1].split()), "lapack": " ".join(lines[2].split())}


def linear_algebra_libraries(session: OctaveSession) -> dict[str, str]:
    """The BLAS and LAPACK this session's Octave runs on, for the run record.

    Octave's ``version('-blas')`` and ``version('-lapack')`` on one line each, e.g. ``{"blas":
    "OpenBLAS (config: OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...)", "lapack": "Linear Algebra
    PACKage Version 3.11.0"}``; Debian's reference BLAS reports ``"unknown or reference BLAS"``.
    The baselines run several times faster on an optimised BLAS, and LRDG's rankings depend on it.
    Starts the session if it is not running.
    """
    versions = _runtime_versions(session)
    return {"blas": versions["blas"], "lapack": versions["lapack"]}


def _runtime_versions(session: OctaveSession) -> dict[str, str]:
    """``mlfs_runtime_versions`` in one call: ``{"octave", "blas", "lapack"}``, each on one line."""
    (versions,) = session.call("mlfs_runtime_versions", nout=1)
    return {key: str(versions[key]) for key in ("octave", "blas", "lapack")}


def _forget_shared_sessions_after_fork() -> None:
    """A forked worker starts its own Octave: the parent's processes and folders are not its own."""
    _SHARED.clear()


os.register_at_fork(after_in_child=_forget_shared_sessions_after_fork)


class OctaveEngine(Engine):
    """Runs a method's MATLAB twin (``method_spec.matlab_function``) in GNU Octave.

    ``rank`` calls ``[ranking, info] = FUNCTION(X_train, Y_train, params, init)``; the returned info
    gains ``compute_seconds``, the call's time inside Octave, and the call's warning messages
    (:data:`~pipeline.method_warnings.INFO_KEY`).
    """

    name = "octave"

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, matlab_dir: str | Path | None = None,
                 extra_paths: Sequence[str | Path] = (), session: OctaveSession | None = None):
        self.session = session or shared_session(timeout, matlab_dir, extra_paths)
        self._versions: dict | None = None
        self._versions_of = -1

    def supports(self, method_spec: MethodSpec) -> bool:
        return method_spec.matlab_function is not None

    def versions(self) -> dict:
        """Octave's version, BLAS and LAPACK (asked once per Octave process)."""
        if self._versions is None or self._versions_of != self.session.starts:
            self._versions = _runtime_versions(self.session)
            self._versions_of = self.session.starts
        return self._versions

    def rank(self, method_spec: MethodSpec, X_train, Y_train, params: dict, init: dict | None, *,
             context: str = "") -> tuple[np.ndarray, dict]:
        if method_spec.matlab_function is None:
            raise EngineError(f"method {method_spec.name} has no MATLAB/Octave implementation", field=context or None)
        ranking, info = self.session.call(
            method_spec.matlab_function, np.asarray(X_train, dtype=np.float64), np.asarray(Y_train, dtype=np.float64),
            to_engine_value(dict(params)), to_engine_value(dict(init or {}), "init"), nout=2, context=context)
        info = from_engine_value(info) if isinstance(info, dict) else {}
        return ranking_from_engine(ranking), {**info, "compute_seconds": self.session.last_call_seconds,
                                              INFO_KEY: self.session.last_call_warnings}

    def default_params(self, function: str) -> dict:
        return defaults_from_engine(*self.session.call("mlfs_plugin_defaults", function, nout=3))

    def start(self) -> None:
        self.session.start()

    def close(self) -> None:
        self.session.close()


class OctaveEvaluator(Evaluator):
    """ML-kNN over the grid in Octave (``matlab/_eval_mlknn/MLKNN_eval_kgrid.m``).

    Gives the same curves as the native evaluator (same neighbour rule, same metric conventions);
    only the ranked prefix of the fold up to the largest k is sent to Octave.
    """

    name = "octave"

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, matlab_dir: str | Path | None = None,
                 extra_paths: Sequence[str | Path] = (), session: OctaveSession | None = None):
        self.session = session or shared_session(timeout, matlab_dir, extra_paths)

    def evaluate(self, X_train, Y_train, X_test, Y_test, ranking, k_values: Sequence[int], *,
                 num: int, smooth: float, context: str = "") -> dict:
        inputs = evaluation_inputs(X_train, Y_train, X_test, Y_test, ranking, k_values)
        (result,) = self.session.call("MLKNN_eval_kgrid", *inputs, float(num), float(smooth), nout=1,
                                      context=context)
        return curves_from_engine(result)

    def close(self) -> None:
        self.session.close()
