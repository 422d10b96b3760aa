"""The native engine: NumPy methods in this process, and the native ML-kNN evaluator."""

from __future__ import annotations

import signal
import time
from typing import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from ..errors import EngineError, PipelineError
from ..method_warnings import INFO_KEY, numerical_warnings_caught
from ..methods.base import MethodSpec
from ..processes import WorkerStopped
from .base import Engine, Evaluator
from .process_state import process_state_restored


class PythonEngine(Engine):
    """Runs a method's NumPy implementation in the calling process, through the harness
    (:meth:`~pipeline.methods.base.MethodSpec.run`: input checks, parameters, ranking rule); the
    working folder, random generators and floating-point error handling the method changes are
    put back when it returns or raises (:func:`~.process_state.process_state_restored`). Its
    numerical warnings are recorded (:mod:`pipeline.method_warnings`)."""

    name = "python"

    def supports(self, method_spec: MethodSpec) -> bool:
        return method_spec.has_python

    def rank(self, method_spec: MethodSpec, X_train, Y_train, params: dict, init: dict | None, *,
             context: str = "") -> tuple[np.ndarray, dict]:
        if not method_spec.has_python:
            raise EngineError(f"method {method_spec.name} has no Python implementation", field=context or None)
        try:
            # results must not depend on the core count, nor a method change what is computed after it
            with process_state_restored(), threadpool_limits(limits=1, user_api="blas"), \
                    numerical_warnings_caught() as warned:
                started = time.perf_counter()
                ranking, info = method_spec.run(X_train, Y_train, params, init)
                seconds = time.perf_counter() - started
        except (PipelineError, MemoryError):  # a MemoryError stays one: the task ran out of memory
            # (of its memory budget, when it has one), not the method's own failure
            raise
        except SystemExit as exc:  # plugged-in code calling sys.exit() must not end the whole run
            raise EngineError(f"{method_spec.name} called sys.exit({exc.code!r}) instead of returning its scores or "
                              "raising an exception", field=context or None) from None
        except KeyboardInterrupt as exc:
            if isinstance(exc, WorkerStopped) or signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
                raise  # the worker is stopped, or Ctrl-C in a process the user runs a method in
            raise EngineError(f"{method_spec.name} raised KeyboardInterrupt itself (no Ctrl-C reaches a worker "
                              "process)", field=context or None) from None
        except BaseException as exc:  # a method's own failure (plugged-in code included, GeneratorExit and
            # other BaseException subclasses too) fails its task only
            raise EngineError(f"{method_spec.name} failed: {type(exc).__name__}: {exc}", field=context or None) from exc
        return np.asarray(ranking), {**info, "compute_seconds": seconds, INFO_KEY: warned}


class NativeEvaluator(Evaluator):
    """ML-kNN over a grid in this process (``pipeline.evaluation.mlknn.evaluate_grid``)."""

    name = "native"

    def evaluate(self, X_train, Y_train, X_test, Y_test, ranking, k_values: Sequence[int], *,
                 num: int, smooth: float, context: str = "") -> dict:
        from ..evaluation.mlknn import evaluate_grid

        return evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, list(k_values),
                             num=num, smooth=smooth)

    def evaluate_prepared(self, fold, ranking, k_values: Sequence[int], *, context: str = "") -> dict:
        """Scores ``ranking`` with the fold's checks and label priors made once, by :meth:`prepare`."""
        from ..evaluation.mlknn import evaluate_prepared

        return evaluate_prepared(fold, ranking, list(k_values))
