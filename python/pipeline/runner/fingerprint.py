"""Fingerprints of the code that produced a result, so stale results can be found and redone.

A fingerprint covers the source files one piece of code runs, closed over what they use:

- a NumPy method or the native evaluator: its module and every ``pipeline`` module it imports
  (relative imports, followed transitively);
- a MATLAB/Octave method or the Octave evaluator: its ``.m`` file and every ``.m`` file under
  ``matlab/`` (and the method's plug-in folder) whose function name appears in it as a word,
  followed transitively (the twin, ``matlab/util/mlfs_code_fingerprint.m``, computes the same
  value for ``run_suite``);
- a Python plug-in: its file and the modules of its folder it imports (by name), transitively;
- external rankings: the ranking file.

A shipped method's fingerprint, in either engine, also covers its definition file,
``methods/definitions/<METHOD>.json`` (its defaults decide what it computes; the twin covers the
same file for ``run_suite``), and no other method's: editing LRMFS's defaults stales LRMFS's
results only. The MATLAB engine's rule keys on the function name (``LRMFS.m`` reads
``LRMFS.json``); both languages take the file from the package beside the MATLAB folder, which is
this package unless ``$MLFS_MATLAB_DIR`` names another checkout's code.

The fingerprint is the SHA-256 of the lines ``<path>\\0<sha256 of the file>\\n`` in path order
(paths relative to ``python/pipeline`` or ``matlab/``, with ``/``; a plug-in folder's files are
``plugin/<file>``; a definition file is ``methods/definitions/<METHOD>.json``). A code file's hash
is that of its normalised form (scheme :data:`~pipeline.limits.FINGERPRINT_SCHEME`, recorded with
the fingerprint), so that only an edit of what runs makes results stale: a ``.py`` file's syntax
tree without docstrings (``ast.dump``, no positions), a ``.m`` file without comments, blank lines
and the blanks around each line (:func:`matlab_canonical`); other files (definitions, external
rankings) as they are. Which functions a ``.m`` file uses is read from its normalised form too,
so a function named in a comment is not covered. It never covers
nothing: code that cannot be found or read is a ConfigError, and so is a code file that is not a
regular file (a FIFO or a link to a device would block or never end) or is larger than
``MAX_CODE_FILE_BYTES`` (:mod:`pipeline.limits`).
A result whose recorded fingerprint differs from the current one is stale;
:func:`~pipeline.results.staleness.changed_files` says which files differ. The MATLAB/Octave code is
found where the package is installed (:func:`~pipeline.locations.matlab_dir`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ..definitions import method_definition_file
from ..errors import ConfigError, StorageError
from ..fileio import atomic_write_bytes, open_regular_file, read_regular_file
from ..limits import FINGERPRINT_SCHEME, MAX_CACHE_ENTRY_BYTES, MAX_CODE_FILE_BYTES
from ..locations import PACKAGE_DIR, cache_dir, matlab_dir
from ..methods.plugins import source_file

REPO_DIR = PACKAGE_DIR.parents[1]
PLUGIN_PREFIX = "plugin/"
#: The module of MethodSpec.run, which checks a plug-in's inputs and ranks its scores.
HARNESS_MODULE = "methods/base.py"
NATIVE_EVALUATOR_MODULE = "evaluation/mlknn.py"
OCTAVE_EVALUATOR_FUNCTION = "MLKNN_eval_kgrid"
_WORD = re.compile(rb"[A-Za-z][A-Za-z0-9_]*")
#: Blanks around a line of MATLAB code (explicit: str.strip() would also take Latin-1 spaces).
_MATLAB_BLANKS = " \t\r\f\v"
#: After one of these a quote is a transpose (``x'``, ``a.'``, ``f(x)'``, ``'s''``), else it opens a string.
_TRANSPOSE_AFTER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.)]}'\"")


def code_fingerprint(files: dict[str, str]) -> dict:
    """``{"sha256": combined, "files": [[path, sha256], ...], "scheme": FINGERPRINT_SCHEME}`` (path
    order) for path -> sha256."""
    pairs = sorted(files.items())
    lines = "".join(f"{path}\0{digest}\n" for path, digest in pairs)
    return {"sha256": hashlib.sha256(lines.encode("utf-8")).hexdigest(), "files": [list(pair) for pair in pairs],
            "scheme": FINGERPRINT_SCHEME}


def python_canonical(tree: ast.Module) -> bytes:
    """What a parsed ``.py`` file runs: its syntax tree without docstrings, without positions, so
    that comments, docstrings and formatting do not count. (``tree`` loses its docstrings.)"""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                node.body = node.body[1:]
    return ast.dump(tree, include_attributes=False).encode("utf-8")


def matlab_canonical(source: bytes) -> bytes:
    """What a ``.m`` file runs: each line without its comment (``%`` or ``#`` outside a string, to
    the end of the line) and the blanks around it, without blank lines and block comments (``%{`` to
    ``%}``, or ``#{`` to ``#}``, each alone on its line, nested). Twin: ``mlfs_code_normalise.m``.

    Bytes are characters one to one (Latin-1), as Octave reads them.
    """
    kept, depth = [], 0
    for line in source.decode("latin-1").split("\n"):
        stripped = line.strip(_MATLAB_BLANKS)
        if stripped in ("%{", "#{"):
            depth += 1
        elif depth:
            depth -= stripped in ("%}", "#}")
        else:
            code = _without_comment(line).strip(_MATLAB_BLANKS)
            if code:
                kept.append(code + "\n")
    return "".join(kept).encode("latin-1")


def _without_comment(line: str) -> str:
    """The line up to its comment: a ``%`` or ``#`` outside a string. A quote opens a string unless
    it is a transpose; in a string a doubled quote is one, and in a double-quoted one a backslash
    escapes the next character (Octave)."""
    quote, i = "", 0
    while i < len(line):
        char = line[i]
        if not quote:
            if char in "%#":
                return line[:i]
            if char == '"' or (char == "'" and not (i and line[i - 1] in _TRANSPOSE_AFTER)):
                quote = char
        elif char == "\\" and quote == '"':
            i += 1
        elif char == quote:
            if line[i + 1:i + 2] == quote:
                i += 1
            else:
                quote = ""
        i += 1
    return line


def python_fingerprint(module_path: str, method: str | None = None) -> dict:
    """Fingerprint of ``python/pipeline/<module_path>`` and the package modules it imports (and
    of the definition file of ``method``, when the package ships one)."""
    return code_fingerprint({**_python_closure(module_path), **_definition_file(method)})


def matlab_fingerprint(function: str, plugin_dir: str | Path | None = None) -> dict:
    """Fingerprint of ``<function>.m`` (under ``matlab/`` or in ``plugin_dir``), the ``.m``
    functions of both it uses, transitively, and the package's definition file of ``function``
    when there is one; ConfigError when ``<function>.m`` is in neither."""
    files = _matlab_closure(function, matlab_dir(), None if plugin_dir is None else Path(plugin_dir))
    if not files:
        where = f"{matlab_dir()}" + (f" or {plugin_dir}" if plugin_dir else "")
        raise ConfigError(f"no code to fingerprint: {function}.m is not in {where}")
    return code_fingerprint({**files, **_definition_file(function)})


def method_fingerprint(method_spec, engine: str) -> dict:
    """Fingerprint of the code that ranks with ``method_spec`` on ``engine`` (``python``, ``octave``, ``matlab``).

    A NumPy method defined outside the package (a plug-in, an installed method package) is
    fingerprinted by its file and the modules of its folder it imports.
    """
    if engine != "python":
        return matlab_fingerprint(method_spec.matlab_function, method_spec.plugin_dir)
    function = method_spec.python_function
    try:
        path = source_file(function)
    except AttributeError:
        raise ConfigError(f"method {method_spec.name}: its Python function has no source file to fingerprint",
                          found=repr(function)) from None
    if PACKAGE_DIR not in path.parents:  # the plug-in's code and the harness that runs it
        return code_fingerprint({**_python_closure(HARNESS_MODULE), **plugin_closure(path)})
    return python_fingerprint(path.relative_to(PACKAGE_DIR).as_posix(), method_spec.name)


def ranking_fingerprint(path: Path) -> dict | None:
    """Fingerprint of an external ranking: the hash of its file (None while there is none)."""
    if not Path(path).exists():
        return None
    with open_regular_file(path, "ranking file", None, ConfigError) as handle:  # a FIFO would block
        try:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError as exc:
            raise ConfigError(f"cannot read the ranking file: {exc.strerror}", file=path) from None
    return code_fingerprint({f"external/{Path(path).name}": digest})


def plugin_closure(path: Path) -> dict[str, str]:
    """``plugin/<file>`` -> sha256 of a Python plug-in file and of the modules of its folder it
    imports by name (``import helper``, ``from helper import x``), transitively.

    Raises
    ------
    ConfigError
        When a file cannot be read or parsed: a fingerprint never covers nothing.
    """
    folder = path.parent
    seen: dict[str, str] = {}
    pending = [path]
    while pending:
        current = pending.pop()
        label = PLUGIN_PREFIX + current.relative_to(folder).as_posix()
        if label in seen:
            continue
        try:
            seen[label], imports = _read_once(current, _folder_imports, folder)
        except (OSError, SyntaxError, ValueError) as exc:
            raise ConfigError(f"cannot read the plug-in's code to fingerprint it: {exc}", file=current) from None
        pending.extend(imports)
    return seen


def evaluator_fingerprint(evaluator: str) -> dict:
    """Fingerprint of the ML-kNN evaluator (``native`` or ``octave``)."""
    if evaluator == "native":
        return python_fingerprint(NATIVE_EVALUATOR_MODULE)
    return matlab_fingerprint(OCTAVE_EVALUATOR_FUNCTION)


def git_state(exclude: tuple[str, ...] = ()) -> dict:
    """``{"commit": sha or None, "dirty": bool or None}`` of the checkout the code runs from;
    changes to the ``exclude`` paths (relative to the repository) do not make it dirty."""
    def git(*args: str) -> str | None:
        try:
            # No optional lock: `git status` would otherwise refresh the index under .git/index.lock, and a
            # run killed meanwhile (or this call timed out) leaves the lock behind, breaking the user's git.
            out = subprocess.run(["git", *args], cwd=REPO_DIR, capture_output=True, text=True, timeout=10,
                                 env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no", "--", ".", *(f":!{path}" for path in exclude))
    return {"commit": commit.strip() or None if commit else None,
            "dirty": None if status is None else bool(status.strip())}


def _definition_file(method: str | None) -> dict[str, str]:
    """Label -> sha256 of the package's definition file of shipped method ``method`` ({} for
    any other method, for which the package has none)."""
    if method is None:
        return {}
    path = method_definition_file(method)
    try:
        digest, _ = _read_once(path, _no_analysis)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read the method's definition to fingerprint it: {exc.strerror}", file=path) from None
    return {path.relative_to(PACKAGE_DIR).as_posix(): digest}


def _no_analysis(source: bytes) -> tuple[str, None]:
    """A file hashed as it is."""
    return hashlib.sha256(source).hexdigest(), None


def _python_closure(module_path: str) -> dict[str, str]:
    seen: dict[str, str] = {}
    pending = [module_path]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen[current], imports = _read_once(PACKAGE_DIR / current, _python_imports, current)
        pending.extend(imports)
    return seen


def _python_imports(source: bytes, module_path: str) -> tuple[str, tuple[str, ...]]:
    """The hash of the module's normalised form and the package modules it imports."""
    digest, relative = _python_analysis(source)
    return digest, tuple(_relative_imports(module_path, relative))


def _python_analysis(source: bytes) -> tuple[str, list[tuple[int, str | None, list[str]]]]:
    """The hash of a Python source's normalised form and its relative imports ``(level, module,
    names)``: kept in the cache folder (:func:`~pipeline.locations.cache_dir`) under the source's
    SHA-256, since parsing the hundred modules a run fingerprints takes about a second per command.
    The entry's name holds the Python version (``ast.dump`` differs between versions) and the scheme."""
    entry = (cache_dir() / "python-analysis" / f"{sys.implementation.cache_tag}-{FINGERPRINT_SCHEME}"
             / f"{hashlib.sha256(source).hexdigest()}.json")
    cached = _cached_analysis(entry)
    if cached is not None:
        return cached
    tree = ast.parse(source)
    relative = [(node.level, node.module, [alias.name for alias in node.names])
                for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level > 0]
    digest = hashlib.sha256(python_canonical(tree)).hexdigest()
    try:
        atomic_write_bytes(entry, json.dumps({"sha256": digest, "relative_imports": relative}).encode(), durable=False)
    except StorageError:  # a cache that cannot be written only costs the time it would save
        pass
    return digest, relative


def _cached_analysis(entry: Path) -> tuple[str, list[tuple[int, str | None, list[str]]]] | None:
    """The analysis kept in ``entry``, or None when there is none or it is not a well-formed one."""
    try:
        kept = json.loads(read_regular_file(entry, "cache entry", MAX_CACHE_ENTRY_BYTES, ConfigError))
        digest, relative = kept["sha256"], [tuple(item) for item in kept["relative_imports"]]
        well_formed = (isinstance(digest, str) and re.fullmatch("[0-9a-f]{64}", digest) is not None
                       and all(type(level) is int and level > 0 and (module is None or isinstance(module, str))
                               and isinstance(names, list) and all(isinstance(name, str) for name in names)
                               for level, module, names in relative))
    except (OSError, ConfigError, ValueError, KeyError, TypeError, RecursionError):
        return None
    return (digest, relative) if well_formed else None


def _relative_imports(module_path: str, relative: list[tuple[int, str | None, list[str]]]) -> list[str]:
    """Package-relative module files imported by ``module_path`` (``from .x import y`` forms)."""
    folder = Path(module_path).parent
    found = []
    for level, module, names in relative:
        base = folder
        for _ in range(level - 1):
            base = base.parent
        stems = [module.replace(".", "/")] if module else names
        for stem in stems:
            for candidate in (base / f"{stem}.py", base / stem / "__init__.py"):
                if (PACKAGE_DIR / candidate).is_file():
                    found.append(candidate.as_posix())
                    break
    return found


def _folder_imports(source: bytes, folder: Path) -> tuple[str, tuple[Path, ...]]:
    """The hash of the plug-in file's normalised form and the files of ``folder`` it imports by module name
    (absolute, top-level imports)."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            candidate = folder / f"{name.split('.')[0]}.py"
            if candidate.is_file():
                found.append(candidate)
    return hashlib.sha256(python_canonical(tree)).hexdigest(), tuple(found)


def _matlab_closure(function: str, code_dir: Path, plugin_dir: Path | None = None) -> dict[str, str]:
    """Label -> sha256 of ``function``'s file and the files it uses (``plugin/`` for the plug-in folder's)."""
    files = {name: (code_dir / path, path) for name, path in _matlab_functions(code_dir).items()}
    if plugin_dir is not None:
        files.update({path.stem: (path, PLUGIN_PREFIX + path.name) for path in sorted(plugin_dir.glob("*.m"))})
    seen: dict[str, str] = {}
    pending = [function]
    while pending:
        name = pending.pop()
        if name not in files or files[name][1] in seen:
            continue
        path, label = files[name]
        try:
            seen[label], words = _read_once(path, _matlab_words)
        except OSError as exc:
            raise ConfigError(f"cannot read the code to fingerprint it: {exc.strerror}", file=path) from None
        pending.extend(word for word in words if word in files)
    return seen


def _matlab_words(source: bytes) -> tuple[str, frozenset[str]]:
    """The hash of the file's normalised form and the words of its code (candidate function names)."""
    canonical = matlab_canonical(source)
    return hashlib.sha256(canonical).hexdigest(), frozenset(word.decode() for word in _WORD.findall(canonical))


def _read_once(path: Path, analyse, *args) -> tuple[str, object]:
    """(sha256 of the normalised form, analysis) of ``path``, as ``analyse(source, *args)`` gives
    them; reused while its size and modification time stay the same: every task of a run checks the
    same files."""
    stat = path.stat()
    return _analysed(path, stat.st_mtime_ns, stat.st_size, analyse, args)


@functools.lru_cache(maxsize=4096)
def _analysed(path: Path, _mtime_ns: int, _size: int, analyse, args: tuple) -> tuple[str, object]:
    source = read_regular_file(path, "code file", MAX_CODE_FILE_BYTES, ConfigError)
    return analyse(source, *args)


def _matlab_functions(code_dir: Path) -> dict[str, str]:
    """Function name -> path (relative to ``matlab/``) of every ``.m`` file below it."""
    return {path.stem: path.relative_to(code_dir).as_posix() for path in sorted(code_dir.rglob("*.m"))}
