"""MATLAB engine through the MATLAB Engine API for Python (package ``matlabengine``).

**Untested on machines without MATLAB** (the project's CI has none): what is tested here is the
part that needs no MATLAB — the lazy import with its error message when the package or MATLAB is
absent, and the argument/result conversions shared with the Octave engine
(:func:`~pipeline.engines.octave.to_engine_value`, :func:`~pipeline.engines.octave.from_engine_value`).

One MATLAB session per engine object (so one per worker), started on first use with the
repository's ``matlab/`` on its path. Calls go through ``matlab/util/mlfs_engine_call.m`` like the
Octave engine's, run in the background with a timeout; after a timeout or a crash the session is
discarded and a new one starts at the next call. A KeyboardInterrupt during a call (Ctrl-C, a run
that stops) cancels the call and quits the session (untested here, like the rest of this engine).

Requirements: MATLAB R2021a or newer and the matching ``matlabengine`` release
(``pip install "matlabengine==<MATLAB version>.*"``).
"""

from __future__ import annotations

import math
from numbers import Real
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import EngineError
from ..methods.base import MethodSpec
from .base import Engine
from ..locations import matlab_dir as default_matlab_dir
from ..method_warnings import INFO_KEY
from .octave import (DEFAULT_TIMEOUT, defaults_from_engine, failure_message, from_engine_value, plugin_clash,
                     ranking_from_engine, to_engine_value, warning_messages)

INSTALL_HINT = ("the MATLAB engine for Python is not available: install MATLAB R2021a+ and the matching "
                "package (pip install \"matlabengine==<your MATLAB version>.*\"), or use --engine octave")


def import_matlab_engine():
    """Import ``matlab.engine`` lazily; EngineError with installation advice when it is absent."""
    try:
        import matlab
        import matlab.engine  # noqa: F401  (the sub-module is what starts MATLAB)
    except ImportError as exc:
        raise EngineError(f"{INSTALL_HINT} ({exc})") from None
    except Exception as exc:  # the package exists but cannot find a MATLAB installation
        raise EngineError(f"{INSTALL_HINT} ({type(exc).__name__}: {exc})") from None
    return matlab


def to_matlab_array(matlab_module, array) -> object:
    """A float64 NumPy array as ``matlab.double`` (keeps the 2-D shape; 1-D becomes a row)."""
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    return matlab_module.double(array.tolist())


def to_matlab_value(matlab_module, value):
    """Convert :func:`to_engine_value` output to MATLAB engine types (arrays -> matlab.double)."""
    if isinstance(value, dict):
        return {key: to_matlab_value(matlab_module, item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return to_matlab_array(matlab_module, value)
    return value


class MatlabEngine(Engine):
    """Runs a method's MATLAB implementation (``method_spec.matlab_function``) in MATLAB.

    Parameters
    ----------
    timeout : float
        Seconds one call may take before the session is stopped and the task fails.
    matlab_dir : path, optional
        The repository's ``matlab/`` folder (added with all its sub-folders).
    extra_paths : sequence of paths
        More folders for the MATLAB path.
    """

    name = "matlab"

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, matlab_dir: str | Path | None = None,
                 extra_paths: Sequence[str | Path] = ()):
        if not (isinstance(timeout, Real) and timeout > 0 and math.isfinite(timeout)):
            raise EngineError("the MATLAB timeout must be a positive number of seconds", found=repr(timeout))
        self.timeout = float(timeout)
        self.matlab_dir = Path(matlab_dir) if matlab_dir is not None else default_matlab_dir()
        self.extra_paths = [Path(p) for p in extra_paths]
        self._matlab = None
        self._session = None

    def supports(self, method_spec: MethodSpec) -> bool:
        return method_spec.matlab_function is not None

    def _start(self):
        if self._session is not None:
            return self._session
        self._matlab = import_matlab_engine()
        try:
            session = self._matlab.engine.start_matlab("-nodisplay -nosplash")
        except Exception as exc:  # EngineError of the matlab package: no licence, no installation...
            raise EngineError(f"cannot start MATLAB ({type(exc).__name__}: {exc})") from None
        session.addpath(session.genpath(str(self.matlab_dir)), nargout=0)
        for folder in self.extra_paths:  # each checked before it is on the path
            clash = plugin_clash(*session.mlfs_plugin_clashes(str(folder), nargout=2))
            if clash is not None:
                session.quit()
                raise clash
            session.addpath(session.genpath(str(folder)), nargout=0)
        self._session = session
        return session

    def rank(self, method_spec: MethodSpec, X_train, Y_train, params: dict, init: dict | None, *,
             context: str = "") -> tuple[np.ndarray, dict]:
        if method_spec.matlab_function is None:
            raise EngineError(f"method {method_spec.name} has no MATLAB implementation", field=context or None)
        m = self._matlab_module()
        args = (to_matlab_array(m, X_train), to_matlab_array(m, Y_train),
                to_matlab_value(m, to_engine_value(dict(params))),
                to_matlab_value(m, to_engine_value(dict(init or {}), "init")))
        (ranking, info), seconds, warned = self._call(method_spec.matlab_function, 2, args, context)
        info = from_engine_value(info) if isinstance(info, dict) else {}
        return ranking_from_engine(ranking), {**info, "compute_seconds": float(seconds), INFO_KEY: warned}

    def default_params(self, function: str) -> dict:
        outputs, _, _ = self._call("mlfs_plugin_defaults", 3, (function,), "")
        return defaults_from_engine(*outputs)

    def start(self) -> None:
        self._start()

    def _matlab_module(self):
        self._start()
        return self._matlab

    def _call(self, function: str, nout: int, args: tuple, context: str) -> tuple[list, float, list[str]]:
        """``function(*args)`` through mlfs_engine_call: (its ``nout`` outputs, its seconds inside MATLAB,
        the messages of the warnings it printed)."""
        session = self._start()
        m = self._matlab
        where = f"{context}: " if context else ""
        future = session.mlfs_engine_call(function, float(nout), *args, nargout=4, background=True)
        timeout_errors = (TimeoutError, getattr(m.engine, "TimeoutError", TimeoutError))
        try:
            outputs, failure, seconds, warned = future.result(timeout=self.timeout)
        except KeyboardInterrupt:  # the run stops: do not leave MATLAB computing for nobody
            future.cancel()
            self.close()
            raise
        except timeout_errors:
            future.cancel()
            self.close()
            raise EngineError(f"{where}{function} timed out in MATLAB after {self.timeout:g} s; "
                              "the MATLAB session was stopped") from None
        except Exception as exc:  # the session died or the call could not be marshalled
            self.close()
            raise EngineError(f"{where}{function} crashed in MATLAB ({type(exc).__name__}: "
                              f"{exc})") from None
        message = failure_message(failure)
        if message is not None:
            raise EngineError(f"{where}{function} failed in MATLAB: {message}")
        return list(outputs), seconds, warning_messages(warned)

    def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            try:
                session.quit()
            except Exception:  # a dead session cannot quit; it is gone either way
                pass
