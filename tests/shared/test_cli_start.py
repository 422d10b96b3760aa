"""The command lines start without their heavy libraries (issue 31, "Fast start").

``--help`` and ``python -m pipeline.methods list`` need the option declarations and the method
names only; each library below takes longer to import than NumPy itself, so a command that imports
one at start is several times slower to answer (bench/bench_startup.py measures the time). Each
command runs in a fresh interpreter, as ``python -m`` runs it, and reports what it imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
#: Imported by the functions that compute, read records or make reports, never at start.
HEAVY_LIBRARIES = ("sklearn", "skmultilearn", "scipy", "pandas", "matplotlib", "statsmodels", "dask", "numba",
                   "oct2py", "pydantic", "jinja2")
#: Runs ``python -m <module> <arguments>`` in this process, then prints what it wrote and imported.
DRIVER = """
import contextlib, io, json, runpy, sys
module, arguments = sys.argv[1], sys.argv[2:]
sys.argv = [module, *arguments]
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        code = stop.code
print(json.dumps({"code": code, "printed": printed.getvalue(), "modules": sorted(sys.modules)}))
"""
# (command, a line its output must hold)
COMMANDS = [
    (["pipeline.kgrid", "--help"], "usage: python -m pipeline.kgrid"),
    (["pipeline.pgrid", "--help"], "usage: python -m pipeline.pgrid"),
    (["pipeline.evaluate", "--help"], "usage: python -m pipeline.evaluate"),
    (["pipeline.paper", "--help"], "usage: python -m pipeline.paper"),
    (["pipeline.methods", "list"], "DAGFS: "),
]


def started(command: list[str]) -> dict:
    """Exit code, standard output and imported modules of ``python -m <command>`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PYTHON_DIR), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", DRIVER, *command], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def heavy_among(modules: list[str]) -> list[str]:
    return sorted({name.split(".")[0] for name in modules} & set(HEAVY_LIBRARIES))


@pytest.mark.parametrize("command,expected", COMMANDS, ids=[" ".join(c) for c, _ in COMMANDS])
def test_command_answers_without_its_heavy_libraries(command, expected):
    result = started(command)
    assert result["code"] == 0
    assert expected in result["printed"]
    assert heavy_among(result["modules"]) == [], f"{' '.join(command)} imports them at start"


def test_the_driver_reports_what_the_command_imported():
    """An empty list above means something: the driver lists the command's own imports, and a
    submodule counts as its library."""
    result = started(["pipeline.methods", "check", "--help"])
    assert result["code"] == 0 and "pipeline.methods.base" in result["modules"] and "numpy" in result["modules"]
    assert heavy_among(["numpy", "scipy.stats._stats_py", "pandas", "pipeline"]) == ["pandas", "scipy"]
