"""A worker is forked with the code every task needs already imported by the driver: what a worker
imports itself, every worker pays again (0.2 s of its start; 1 s more for oct2py), and the process
executor and every phase of a suite fork workers anew. Octave itself is never started in the driver."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

ENTER_THE_POOL = """
import json, sys
import psutil
from pipeline.runner.pool import WorkerPool, _TASK_MODULES
from pipeline.runner.run import RunSettings
from pipeline.runner.tasks import GridSpec

settings = RunSettings(data_dir=".", results_dir=sys.argv[2], grids=(GridSpec(),), engine=sys.argv[1])
with WorkerPool(settings, jobs=1):
    print(json.dumps({"missing": [m for m in (*_TASK_MODULES, "oct2py") if m not in sys.modules],
                      "pandas": "pandas" in sys.modules,
                      "children": [p.name() for p in psutil.Process().children(recursive=True)]}))
"""


@pytest.mark.parametrize(("engine", "missing"), [("python", ["oct2py"]), ("octave", [])])
def test_the_driver_imports_what_every_task_imports_before_it_forks_a_worker(tmp_path, engine, missing):
    done = subprocess.run([sys.executable, "-c", ENTER_THE_POOL, engine, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"missing": missing, "pandas": False, "children": []}  # no worker, no Octave yet
