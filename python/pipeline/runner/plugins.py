"""Plug-in folders for a run: loaded in the driver and in every worker (docs/plugins.md).

A ``.m`` plug-in's defaults are read from its no-argument call on the run's MATLAB/Octave engine
(the session the run's first tasks then reuse); on the Python engine ``.m``-only methods are
registered without defaults and refused by :func:`check_runnable` before any work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..engines import make_engine
from ..errors import ConfigError
from ..methods import get_method, origin_of
from ..methods.plugins import load_plugin_folders, plugin_folder


def plugin_paths(folders: Sequence[str | Path]) -> tuple[str, ...]:
    """The folders resolved (ConfigError for one that is missing), in order, each once."""
    resolved: list[str] = []
    for folder in folders:
        path = str(plugin_folder(folder))
        if path not in resolved:
            resolved.append(path)
    return tuple(resolved)


def activate_plugins(folders: Sequence[str], engine: str, engine_options: dict | None = None) -> list[str]:
    """Register the methods of ``folders`` for a run on ``engine``; return their names."""
    if not folders:
        return []
    reader = None
    if engine != "python":
        options = {**(engine_options or {}), "extra_paths": list(folders)}
        if any(next(Path(folder).glob("*.m"), None) for folder in folders):
            make_engine(engine, **options).start()  # refuses a .m named like a function elsewhere

        def reader(function: str, _path: Path) -> dict:
            return make_engine(engine, **options).default_params(function)
    return load_plugin_folders(folders, reader)


def engine_options(timeout: float, folders: Sequence[str]) -> dict:
    """The options of the run's MATLAB/Octave engines: the call timeout and the plug-in folders."""
    return {"timeout": timeout, "extra_paths": list(folders)}


def check_runnable(methods: Sequence[str], engine: str) -> None:
    """ConfigError, before any work, for a method that exists only as MATLAB/Octave code when the
    engine is Python (or that has no code for the engine at all)."""
    for name in methods:
        method_spec = get_method(name)
        if engine == "python" and not method_spec.has_python:
            raise ConfigError(f"method {name} exists only as MATLAB/Octave code ({origin_of(name)}): "
                              "run it with --engine octave or matlab")
        if engine != "python" and method_spec.matlab_function is None and not method_spec.has_python:
            raise ConfigError(f"method {name} has no code to run ({origin_of(name)})")
