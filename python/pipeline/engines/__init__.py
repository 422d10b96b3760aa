"""Where methods run and where ML-kNN evaluates: ``python`` / ``octave`` / ``matlab`` engines,
``native`` / ``octave`` evaluators. External engines are imported lazily, so a machine without
Octave or MATLAB can still use the native path."""

from __future__ import annotations

from ..errors import ConfigError
from .base import Engine, Evaluator

ENGINES = ("python", "octave", "matlab")
EVALUATORS = ("native", "octave")


def make_engine(name: str, **options) -> Engine:
    """Return a new engine by name (``python``, ``octave`` or ``matlab``)."""
    if name == "python":
        from .python import PythonEngine

        return PythonEngine()
    if name == "octave":
        from .octave import OctaveEngine

        return OctaveEngine(**options)
    if name == "matlab":
        from .matlab import MatlabEngine

        return MatlabEngine(**options)
    raise ConfigError(f"unknown engine {name!r}", expected=f"one of {list(ENGINES)}")


def make_evaluator(name: str, **options) -> Evaluator:
    """Return a new evaluator by name (``native`` or ``octave``)."""
    if name == "native":
        from .python import NativeEvaluator

        return NativeEvaluator()
    if name == "octave":
        from .octave import OctaveEvaluator

        return OctaveEvaluator(**options)
    raise ConfigError(f"unknown evaluator {name!r}", expected=f"one of {list(EVALUATORS)}")


__all__ = ["ENGINES", "EVALUATORS", "Engine", "Evaluator", "make_engine", "make_evaluator"]
