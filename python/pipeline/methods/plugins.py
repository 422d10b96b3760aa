"""Plug-in folders: a user's methods, in Python or MATLAB/Octave, used like the shipped ones.

- Every ``*.py`` file of a folder is imported (the folder goes on ``sys.path``, so a plug-in can
  import its helper modules by name) and every module-level :class:`MethodSpec` in it is a method;
  the import and every call of the method's functions happen in child processes of their own
  (:mod:`pipeline.methods.isolated`), never in the process that loads the folder.
- Every ``NAME.m`` of a folder whose function has the baselines' signature
  ``function [ranking, info] = NAME(X_train, Y_train, params, init)`` is a method named NAME for
  the MATLAB/Octave engines; its call with no argument returns its default parameters (asked
  through ``matlab_defaults``), each a value or an ``mlfs_parameter`` declaration that adds its
  range (read into ``MethodSpec.allowed``). A ``.m`` named by a Python plug-in's
  ``matlab_function`` is that method's twin, not another method; other ``.m`` files are helpers.

A name clash, a file that fails to import, a ``.py`` or ``.m`` that is not a regular file (a FIFO,
a link to a device) or is larger than ``MAX_CODE_FILE_BYTES``, or a ``.m`` whose no-argument call
fails is a ConfigError naming the file; nothing is registered from a folder that fails (docs/plugins.md).
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from ..errors import ConfigError, EngineError
from ..fileio import open_regular_file, read_regular_file
from ..limits import MAX_CODE_FILE_BYTES
from ..validation import Interval, is_finite_number
from . import available_methods, get_method, register
from .base import MethodSpec
from .isolated import call_in_child

#: ``matlab_defaults(function, file) -> dict``: the no-argument call of a ``.m`` method.
DefaultsReader = Callable[[str, Path], dict]
_SIGNATURE = re.compile(r"^\s*function\s*\[\s*\w+\s*,\s*\w+\s*\]\s*=\s*(\w+)\s*\(([^)]*)\)", re.MULTILINE)
#: Folders loaded so far (resolved) -> whether their .m methods got their defaults.
_LOADED: dict[Path, bool] = {}


#: The function slots of a MethodSpec that hold a plug-in's code.
FUNCTION_ROLES = ("python", "scores", "make_init")


class IsolatedFunction:
    """The function ``role`` of the plug-in method ``method`` defined in the file ``path``,
    called in a child process (:func:`~pipeline.methods.isolated.call_in_child`)."""

    def __init__(self, path: str, method: str, role: str):
        self.path, self.method, self.role = path, method, role

    def __call__(self, *args):
        return call_in_child(lambda: getattr(plugin_spec(Path(self.path), self.method), self.role)(*args),
                             f"{self.method} ({Path(self.path).name})")

    def __repr__(self) -> str:
        return f"IsolatedFunction({self.path!r}, {self.method!r}, {self.role!r})"


def source_file(function: Callable) -> Path:
    """The file that defines ``function`` (a plug-in's, or one loaded in this process)."""
    if isinstance(function, IsolatedFunction):
        return Path(function.path).resolve()
    return Path(function.__code__.co_filename).resolve()


def plugin_spec(path: Path, method: str):
    """In a child process: the MethodSpec named ``method`` that the plug-in file ``path`` defines."""
    module = import_plugin_file(path)
    for value in vars(module).values():
        if isinstance(value, MethodSpec) and value.name == method:
            return value
    raise EngineError(f"the plug-in file no longer defines method {method}", field=str(path))


def load_plugin_folders(folders: Iterable[str | Path], matlab_defaults: DefaultsReader | None = None
                        ) -> list[str]:
    """Register the methods of each plug-in folder; return their names (loading order).

    ``matlab_defaults`` reads a ``.m`` method's defaults (None: ``.m`` methods are registered
    without defaults, for engines that cannot run them). A folder loaded already is not loaded
    again (a worker and its driver load the same folders).
    """
    names: list[str] = []
    for folder in folders:
        names += _load_folder(plugin_folder(folder), matlab_defaults)
    return names


def plugin_folder(folder: str | Path) -> Path:
    """The resolved folder, or ConfigError when it is not one."""
    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        raise ConfigError("plug-in folder not found", file=path)
    return path


def matlab_methods(folder: Path) -> dict[str, Path]:
    """Function name -> file of every ``.m`` of ``folder`` with the method signature (4 in, 2 out)."""
    found = {}
    for path in sorted(folder.glob("*.m")):
        match = _SIGNATURE.search(_read_text(path))
        if match and match.group(1) == path.stem and len([a for a in match.group(2).split(",") if a.strip()]) == 4:
            found[path.stem] = path
    return found


def _load_folder(folder: Path, matlab_defaults: DefaultsReader | None) -> list[str]:
    with_defaults = matlab_defaults is not None
    if folder in _LOADED and (_LOADED[folder] or not with_defaults):
        return [name for name in available_methods() if get_method(name).plugin_dir == str(folder)]
    _check_code_files(folder)
    specs = _python_specs(folder)
    twins = {method_spec.matlab_function for method_spec, _ in specs}
    for name, path in matlab_methods(folder).items():
        if name in twins:
            continue
        if folder in _LOADED:  # registered before without defaults: read them now
            _set_defaults(name, path, matlab_defaults)
            continue
        defaults, allowed = _read_defaults(name, path, matlab_defaults) if with_defaults else ({}, {})
        specs.append((MethodSpec(name=_method_name(name, path), defaults=defaults, allowed=allowed,
                                 matlab_function=name, summary=f"MATLAB/Octave plug-in {path.name}"), path))
    if folder not in _LOADED:
        for method_spec, path in specs:
            register(replace(method_spec, plugin_dir=str(folder)), str(path))
    _LOADED[folder] = with_defaults
    return [method_spec.name for method_spec, _ in specs]


def _python_specs(folder: Path) -> list[tuple[MethodSpec, Path]]:
    """Every module-level MethodSpec of the folder's ``*.py`` files, each once, with its file.

    The files are imported in a child process (:mod:`pipeline.methods.isolated`), which sends
    back each method without its functions; here they become :class:`IsolatedFunction` calls, so
    no plug-in code ever runs in this process.
    """
    try:
        described = call_in_child(lambda: _described_specs(folder), f"importing the plug-in folder {folder}")
    except EngineError as exc:  # the import ended the child's process
        raise ConfigError(f"cannot import the plug-in: {exc}", file=folder) from None
    return [(replace(method_spec, **{role: IsolatedFunction(str(path), method_spec.name, role) for role in roles}), path)
            for method_spec, path, roles in described]


def _described_specs(folder: Path) -> list[tuple[MethodSpec, Path, list[str]]]:
    """In the child: every module-level MethodSpec of the folder's ``*.py`` files, each once, with
    its file and the function slots it fills, its functions left out (they cannot leave the child)."""
    found: list[tuple[MethodSpec, Path, list[str]]] = []
    seen: set[int] = set()
    for path in sorted(folder.glob("*.py")):
        module = import_plugin_file(path)
        for value in vars(module).values():
            if isinstance(value, MethodSpec) and id(value) not in seen:
                seen.add(id(value))
                roles = [role for role in FUNCTION_ROLES if getattr(value, role) is not None]
                found.append((replace(value, **dict.fromkeys(FUNCTION_ROLES)), path, roles))
    return found


def import_plugin_file(path: Path):
    """Import the plug-in file ``path`` as the module of its stem, its folder on ``sys.path`` (so
    that it can import its helpers by name); ConfigError on any failure. Only ever called in a
    child process of :mod:`pipeline.methods.isolated`."""
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    loaded = sys.modules.get(path.stem)
    if loaded is not None:
        if Path(getattr(loaded, "__file__", "") or "").resolve() == path:
            return loaded
        raise ConfigError(f"the plug-in file's name is taken by the module {loaded.__name__} "
                          f"({getattr(loaded, '__file__', None) or 'built in'})", file=path,
                          expected="another file name")
    try:
        return importlib.import_module(path.stem)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the user's code: any failure (sys.exit() included) is one line naming the file
        sys.modules.pop(path.stem, None)
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise ConfigError(f"cannot import the plug-in: {detail}", file=path) from None


def _method_name(name: str, path: Path) -> str:
    try:
        return MethodSpec(name=name).name
    except ConfigError as exc:
        raise ConfigError(str(exc), file=path) from None


def _read_defaults(name: str, path: Path, matlab_defaults: DefaultsReader) -> tuple[dict, dict[str, Interval]]:
    """The no-argument call's defaults, split into plain values and the ranges declared with them."""
    try:
        defaults = matlab_defaults(name, path)
    except ConfigError:
        raise
    except Exception as exc:  # EngineError from the engine, or a bridge failure
        raise ConfigError(f"calling {name}() with no argument must return its default parameters: "
                          f"{' '.join(str(exc).split())}", file=path) from None
    if not isinstance(defaults, dict):
        raise ConfigError(f"calling {name}() with no argument must return its default parameters as a struct",
                          file=path, found=type(defaults).__name__)
    plain: dict = {}
    allowed: dict[str, Interval] = {}
    for parameter, value in defaults.items():
        if isinstance(value, dict) and "default" in value:
            plain[parameter] = value["default"]
            allowed[parameter] = declared_range(value, where=f"{name}(): parameter {parameter!r}", file=path)
        else:
            plain[parameter] = value
        if not _is_parameter_value(plain[parameter]):
            raise ConfigError(f"{name}(): the default of parameter {parameter!r} cannot be a parameter value",
                              file=path, expected="a logical, a real number, a text, or a list or struct of them",
                              found=repr(plain[parameter]))
    return plain, allowed


def _is_parameter_value(value) -> bool:
    """What a parameter can be in a suite, a params file and across the bridge (a complex number cannot)."""
    if isinstance(value, list):
        return all(_is_parameter_value(item) for item in value)
    if isinstance(value, dict):
        return all(_is_parameter_value(item) for item in value.values())
    return value is None or isinstance(value, (bool, int, float, str))


#: The fields of an ``mlfs_parameter`` declaration.
_RANGE_FIELDS = {"low", "high", "low_open", "high_open", "choices"}


def declared_range(value: dict, where: str, file: Path | None = None) -> Interval:
    """The :class:`~pipeline.validation.Interval` of a range struct as the MATLAB/Octave engine
    returns it (``[]`` for no bound, 0/1 for the open flags, a list of texts for choices); a declaration made by
    ``mlfs_parameter`` also holds its ``default``, which must lie in the range."""
    declaration = {key: item for key, item in value.items() if key != "default"}
    problem = _range_problem(declaration)
    if problem is not None:
        raise ConfigError(f"{where}: not a range made by mlfs_parameter: {problem}", file=file,
                          expected="mlfs_parameter(default, '>=', low, '<', high) or mlfs_parameter(text, {choices})")
    bounds = {key: None if _is_empty(declaration[key]) else float(declaration[key]) for key in ("low", "high")}
    try:
        allowed = Interval(**bounds, low_open=bool(declaration["low_open"]), high_open=bool(declaration["high_open"]),
                           choices=tuple(declaration["choices"] or ()))
    except ConfigError as exc:
        raise ConfigError(f"{where}: not a range made by mlfs_parameter: {exc.message}", file=file) from None
    if "default" in value and not allowed.admits(value["default"]):
        raise ConfigError(f"{where}: the default lies outside its declared range", file=file,
                          expected=str(allowed), found=repr(value["default"]))
    return allowed


def _range_problem(declaration: dict) -> str | None:
    if set(declaration) != _RANGE_FIELDS:
        return f"fields {sorted(declaration)}"
    for key in ("low", "high"):
        bound = declaration[key]
        if not _is_empty(bound) and not is_finite_number(bound):
            return f"{key} is {bound!r}"
    if any(declaration[key] not in (0, 1) for key in ("low_open", "high_open")):
        return "the open flags are not true or false"
    choices = declaration["choices"]
    if not _is_empty(choices) and not (isinstance(choices, list) and all(isinstance(c, str) for c in choices)):
        return f"choices {choices!r}"
    return None


def _is_empty(value) -> bool:
    return value is None or (isinstance(value, (list, tuple)) and len(value) == 0)


def _set_defaults(name: str, path: Path, matlab_defaults: DefaultsReader) -> None:
    from . import _REGISTRY

    defaults, allowed = _read_defaults(name, path, matlab_defaults)
    _REGISTRY[name] = replace(_REGISTRY[name], defaults=defaults, allowed=allowed)


def _read_text(path: Path) -> str:
    return read_regular_file(path, "plug-in file", MAX_CODE_FILE_BYTES, ConfigError).decode("utf-8", errors="replace")


def _check_code_files(folder: Path) -> None:
    """ConfigError for a ``.py`` or ``.m`` file of ``folder`` that is not a regular file or is too
    large, before any is imported or read: importing a FIFO would wait forever for a writer, and
    a link to ``/dev/zero`` would be read until memory runs out."""
    for path in sorted([*folder.glob("*.py"), *folder.glob("*.m")]):
        open_regular_file(path, "plug-in file", MAX_CODE_FILE_BYTES, ConfigError).close()
