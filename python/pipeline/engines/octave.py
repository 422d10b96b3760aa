"""GNU Octave engine and evaluator through oct2py.

One long-lived Octave process per worker: an engine and an evaluator built with the same settings
share it (:func:`shared_session`). It starts on first use with ``matlab/`` (and its sub-folders) on
its path, is reused across tasks, and is replaced after a crash or a timeout. Arrays travel as binary MAT files on a RAM disk (oct2py's exchange), never as text.

Every call goes through ``matlab/util/mlfs_engine_call.m``, which catches the Octave error and
returns its identifier, message and call stack; they are raised here as
:class:`~pipeline.errors.EngineError` naming the method and the task (``method/dataset/foldN``).

The value conversions (:func:`to_engine_value`, :func:`from_engine_value`) are shared with the
MATLAB engine (:mod:`pipeline.engines.matlab`).
"""

from __future__ import annotations

import logging
import math
import os
import re
import shutil
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import EngineError
from ..methods.base import MethodSpec
from ..evaluation.metrics import METRICS
from .base import Engine, Evaluator

MATLAB_DIR = Path(__file__).resolve().parents[3] / "matlab"
DEFAULT_TIMEOUT = 3600.0
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
        Seconds one call may take; after that the call is interrupted, the process is replaced and
        an EngineError is raised.
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
        self.matlab_dir = Path(matlab_dir) if matlab_dir is not None else MATLAB_DIR
        self.extra_paths = [Path(p) for p in extra_paths]
        self._octave = None
        self.starts = 0
        self.last_call_seconds = float("nan")

    @property
    def running(self) -> bool:
        return self._octave is not None

    def start(self):
        """Start Octave if it is not running; return the oct2py session."""
        if self._octave is not None:
            return self._octave
        try:
            from oct2py import Oct2Py
        except ImportError as exc:
            raise EngineError("the Python package oct2py is not installed (pip install oct2py)") from exc
        if not (self.matlab_dir / "util" / "mlfs_engine_call.m").is_file():
            raise EngineError("the repository's matlab/ folder was not found", file=self.matlab_dir)
        try:
            octave = Oct2Py(logger=_LOG, timeout=self.timeout, backend="disable", executable=_octave_executable())
        except Exception as exc:  # oct2py raises OSError/Oct2PyError/pexpect errors when Octave is absent
            raise EngineError("cannot start GNU Octave: install it (Debian/Ubuntu: apt-get install -y "
                              f"--no-install-recommends octave) or set OCTAVE_EXECUTABLE ({exc})") from exc
        try:
            octave.addpath(octave.genpath(str(self.matlab_dir)))
            for extra in self.extra_paths:
                octave.addpath(octave.genpath(str(extra)))
        except Exception:
            octave.exit()
            raise
        self._octave = octave
        self.starts += 1
        return octave

    def call(self, function: str, *args, nout: int, context: str = "", timeout: float | None = None) -> list:
        """Run ``function(*args)`` in Octave and return its ``nout`` outputs.

        ``last_call_seconds`` then holds the call's own time measured inside Octave (without the
        start-up and the data transfer).

        Raises
        ------
        EngineError
            With the function, the task context and the Octave message when the function errors;
            on a timeout or a crash (the process is then restarted for the next call).
        """
        from oct2py import Oct2PyError

        octave = self.start()
        limit = self.timeout if timeout is None else float(timeout)
        where = f"{context}: " if context else ""
        try:
            outputs, failure, seconds = octave.feval("mlfs_engine_call", function, float(nout), *args,
                                                     nout=3, timeout=limit, verbose=False)
        except Oct2PyError as exc:
            self.close()
            reason = "timed out" if "Timed out" in str(exc) else "crashed"
            detail = f"after {limit:g} s" if reason == "timed out" else str(exc).splitlines()[0]
            raise EngineError(f"{where}{function} {reason} in Octave ({detail}); the Octave process "
                              "was restarted") from None
        message = failure_message(failure)
        if message is not None:
            raise EngineError(f"{where}{function} failed in Octave: {message}")
        self.last_call_seconds = float(seconds)
        return list(outputs.ravel()) if isinstance(outputs, np.ndarray) else list(outputs)

    def close(self) -> None:
        """Stop the Octave process (a later call starts a new one)."""
        octave, self._octave = self._octave, None
        if octave is not None:
            try:
                octave.exit()
            except Exception as exc:  # a dead process may fail to exit cleanly; it is gone either way
                _LOG.debug("ignoring error while stopping Octave: %s", exc)


def _octave_executable() -> str | None:
    """``$OCTAVE_EXECUTABLE`` if set, else ``octave-cli`` when on the PATH (no GUI start-up
    warnings), else None (oct2py then looks for ``octave``)."""
    return os.environ.get("OCTAVE_EXECUTABLE") or shutil.which("octave-cli")


_SHARED: dict[tuple, OctaveSession] = {}


def shared_session(timeout: float = DEFAULT_TIMEOUT, matlab_dir: str | Path | None = None,
                   extra_paths: Sequence[str | Path] = ()) -> OctaveSession:
    """The process-wide session for these settings, so a worker's engine and evaluator share one
    Octave process (created lazily; a closed session starts again at its next call)."""
    key = (float(timeout), str(Path(matlab_dir) if matlab_dir is not None else MATLAB_DIR),
           tuple(str(Path(p)) for p in extra_paths))
    if key not in _SHARED:
        _SHARED[key] = OctaveSession(timeout, matlab_dir, extra_paths)
    return _SHARED[key]


def linear_algebra_libraries(session: OctaveSession) -> dict[str, str]:
    """The BLAS and LAPACK this session's Octave runs on, for the run record.

    Octave's ``version('-blas')`` and ``version('-lapack')`` on one line each, e.g. ``{"blas":
    "OpenBLAS (config: OpenBLAS 0.3.21 ... Haswell MAX_THREADS=64)", "lapack": "Linear Algebra
    PACKage Version 3.11.0"}``; Debian's reference BLAS reports ``"unknown or reference BLAS"``.
    The baselines run several times faster on an optimised BLAS, and LRDG's rankings depend on it.
    Starts the session if it is not running.
    """
    return {key: " ".join(str(session.call("version", f"-{key}", nout=1)[0]).split())
            for key in ("blas", "lapack")}


class OctaveEngine(Engine):
    """Runs a method's MATLAB twin (``spec.matlab_function``) in GNU Octave.

    ``rank`` calls ``[ranking, info] = FUNCTION(X_train, Y_train, params, init)``; the returned info
    gains ``compute_seconds``, the call's time inside Octave.
    """

    name = "octave"

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, matlab_dir: str | Path | None = None,
                 extra_paths: Sequence[str | Path] = (), session: OctaveSession | None = None):
        self.session = session or shared_session(timeout, matlab_dir, extra_paths)

    def supports(self, spec: MethodSpec) -> bool:
        return spec.matlab_function is not None

    def rank(self, spec: MethodSpec, X_train, Y_train, params: dict, init: dict | None, *,
             context: str = "") -> tuple[np.ndarray, dict]:
        if spec.matlab_function is None:
            raise EngineError(f"method {spec.name} has no MATLAB/Octave implementation", field=context or None)
        ranking, info = self.session.call(
            spec.matlab_function, np.asarray(X_train, dtype=np.float64), np.asarray(Y_train, dtype=np.float64),
            to_engine_value(dict(params)), to_engine_value(dict(init or {}), "init"), nout=2, context=context)
        info = from_engine_value(info) if isinstance(info, dict) else {}
        return ranking_from_engine(ranking), {**info, "compute_seconds": self.session.last_call_seconds}

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
