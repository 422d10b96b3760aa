"""The package's imports follow its two conventions (README, "Architecture").

1. Inside ``python/pipeline`` modules import each other relatively (``from ..errors import ...``):
   the code fingerprint of a result (``pipeline.runner.fingerprint``) follows relative imports, so
   an absolute ``pipeline`` import would hide a dependency from the stale-result check.
2. Dependencies point one way: a module imports only from its own layer or lower ones (the
   helpers at the bottom, then data, evaluation, methods and statistics, then reporting, engines
   and aggregation, then the runner, then the experiment model); command-line modules
   (``__main__.py`` and the CLI modules) are the top layer. No two modules import each other, even
   through others or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "pipeline"

#: Layer of each top-level module or subpackage: a module may import only from its layer or lower ones.
LAYERS = {
    **dict.fromkeys(["__init__", "__version__", "errors", "validation", "definitions", "names", "fileio", "limits", "cli",
                     "rankings", "locations", "documents", "processes", "method_warnings"], 0),
    **dict.fromkeys(["data", "evaluation", "methods", "stats"], 1),
    **dict.fromkeys(["report", "engines", "aggregate", "results"], 2),
    "runner": 3,
    "experiment": 4,
    **dict.fromkeys(["suite_cli", "paper", "protocols", "tables", "report_api", "kgrid", "pgrid", "evaluate", "datasets",
                     "export_splits"], 5),
}
TOP = max(LAYERS.values())


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def unit(path: Path) -> str:
    """The top-level module or subpackage a file belongs to."""
    return path.relative_to(PACKAGE).with_suffix("").parts[0]


def layer(path: Path) -> int:
    return TOP if path.name == "__main__.py" else LAYERS[unit(path)]


def relative_imports(path: Path, source: bytes) -> list[tuple[ast.ImportFrom, list[str]]]:
    """Each relative import of ``source`` (the file ``path``) with the module path it names."""
    package = list(path.relative_to(PACKAGE).parent.parts)
    return [(node, package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else []))
            for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom) and node.level]


def imported_units(path: Path, source: bytes) -> set[str]:
    """Top-level units of ``pipeline`` that ``source`` (the file ``path``) imports relatively."""
    found = set()
    for node, target in relative_imports(path, source):
        found |= {target[0]} if target else {alias.name for alias in node.names}
    return found


def absolute_imports(source: bytes) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of ``pipeline`` in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        found += [(node.lineno, n) for n in names if n == "pipeline" or n.startswith("pipeline.")]
    return found


def upward_imports(path: Path, source: bytes) -> list[str]:
    return sorted(name for name in imported_units(path, source) - {unit(path)}
                  if name in LAYERS and LAYERS[name] > layer(path))


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports relatively (anywhere in the file)."""
    names = {module_name(p) for p in modules()}
    graph = {}
    for path in modules():
        found = set()
        for node, parts in relative_imports(path, path.read_bytes()):
            target = ".".join(parts)
            submodules = {f"{target}.{a.name}".lstrip(".") for a in node.names} & names
            found |= submodules if not node.module and submodules else {target} & names
        me = module_name(path)
        # a module's own packages are its parents, not its dependencies (``from . import x``)
        graph[me] = {name for name in found if name != me and not me.startswith(f"{name}.")}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle (its modules in order, the first repeated at the end), or []."""
    state: dict[str, int] = {}  # 1 on the current path, 2 finished
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return []

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return []


def test_no_import_cycle():
    assert find_cycle(module_graph()) == []


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_every_unit_has_a_layer():
    assert {unit(p) for p in modules()} <= set(LAYERS)


def test_no_absolute_import_of_the_package_inside_it():
    absolute = [f"{path.relative_to(PACKAGE)}:{line}: {name}" for path in modules()
                for line, name in absolute_imports(path.read_bytes())]
    assert not absolute, "absolute imports (use relative ones):\n" + "\n".join(absolute)


def test_imports_point_down():
    upward = [f"{path.relative_to(PACKAGE)} (layer {layer(path)}) imports {names}" for path in modules()
              if (names := upward_imports(path, path.read_bytes()))]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_checks_see_violations():
    source = b'"""from pipeline.data import x"""\nfrom ..runner import store\nimport pipeline.errors\n'
    assert upward_imports(PACKAGE / "stats" / "probe.py", source) == ["runner"]
    assert upward_imports(PACKAGE / "stats" / "__main__.py", source) == []
    assert absolute_imports(source) == [(3, "pipeline.errors")]
