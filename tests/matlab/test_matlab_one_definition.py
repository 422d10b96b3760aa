"""One declaration of what a parameter may be reaches both front doors.

A copy of the package and of its MATLAB folder, in a checkout's layout (``python/pipeline``
beside ``matlab``) and in an installed package's (``pipeline/matlab``), gets a range for a
parameter of a shipped method that had none, written in the copy's ``definitions.json`` and
nowhere else. Then ``python -m pipeline.kgrid`` run from the copy and ``run_suite`` in a real
Octave with the copy's MATLAB folder both refuse a value outside it, before any task, naming the
parameter; the unchanged package admits that value through both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from matlab_test_paths import REPO
from pipeline.data.folds import save_fold
from pipeline.methods import get_method

pytestmark = pytest.mark.octave

METHOD, PARAMETER = "GRRO", "alpha"
NEW_RANGE = {"low": 0, "high": 1000}
OUTSIDE = 5000.0
REFUSAL = (f"value out of range for parameter '{PARAMETER}' of method {METHOD} "
           f"(expected >= 0 and <= 1000; found 5000")


@pytest.fixture(params=["checkout", "installed"])
def copied_package(request, tmp_path) -> tuple[Path, Path]:
    """(folder to put on PYTHONPATH, MATLAB folder) of a copy of the package and its MATLAB code
    in either layout, with NEW_RANGE added to the copy's definitions.json."""
    skip_caches = shutil.ignore_patterns("__pycache__", "*.pyc")
    if request.param == "checkout":
        python_path = tmp_path / "checkout" / "python"
        matlab = tmp_path / "checkout" / "matlab"
    else:
        python_path = tmp_path / "site-packages"
        matlab = python_path / "pipeline" / "matlab"
    shutil.copytree(REPO / "python" / "pipeline", python_path / "pipeline", ignore=skip_caches)
    shutil.copytree(REPO / "matlab", matlab, ignore=skip_caches)
    definitions = python_path / "pipeline" / "definitions.json"
    declared = json.loads(definitions.read_text(encoding="utf-8"))
    assert PARAMETER not in declared["method_ranges"][METHOD], "the test needs a parameter without a range"
    declared["method_ranges"][METHOD][PARAMETER] = NEW_RANGE
    definitions.write_text(json.dumps(declared, indent=2), encoding="utf-8")
    return python_path, matlab


@pytest.fixture
def fold_dir(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    X = rng.random((40, 6))
    Y = (X[:, :3] + 0.3 * rng.random((40, 3)) > 0.8).astype(np.int8)
    save_fold(tmp_path / "folds" / "toy" / "fold0.mat", X[:30], Y[:30], X[30:], Y[30:])
    return tmp_path / "folds"


def test_the_unchanged_package_admits_the_value(octave):
    assert get_method(METHOD).resolve_params({PARAMETER: OUTSIDE})[PARAMETER] == OUTSIDE
    octave.call("mlfs_check_param_ranges", METHOD, {PARAMETER: OUTSIDE}, nout=0)  # no error


def test_the_python_front_door_of_the_copy_refuses_a_value_outside_the_new_range(copied_package, fold_dir, tmp_path):
    params = tmp_path / "params.json"
    params.write_text(json.dumps({METHOD: {PARAMETER: OUTSIDE}}))
    environment = {key: value for key, value in os.environ.items() if key != "MLFS_MATLAB_DIR"}
    environment["PYTHONPATH"] = str(copied_package[0])
    done = subprocess.run([sys.executable, "-m", "pipeline.kgrid", "--engine", "python", "--methods", METHOD,
                           "--params", str(params), "--data-dir", str(fold_dir),
                           "--results-dir", str(tmp_path / "results"), "--no-progress"],
                          capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=300)
    assert done.returncode == 2, done.stderr
    assert REFUSAL in done.stderr
    assert not (tmp_path / "results" / METHOD).exists()


def test_run_suite_of_the_copy_refuses_a_value_outside_the_new_range(copied_package, fold_dir, tmp_path):
    results = tmp_path / "results"
    script = (f"addpath(genpath('{copied_package[1]}'));"
              f"try, run_suite('{results}', '{fold_dir}', {{'toy'}}, {{'{METHOD}'}}, 'verbose', false, "
              f"'params', struct('{METHOD}', struct('{PARAMETER}', {OUTSIDE}))); disp('admitted');"
              "catch refusal, fprintf('%s\\n%s\\n', refusal.identifier, refusal.message); end")
    done = subprocess.run(["octave-cli", "--no-gui", "--norc", "--quiet", "--eval", script],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    identifier, message = done.stdout.strip().splitlines()[-2:]
    assert identifier == f"mlfs:{METHOD}:badParameter", done.stdout + done.stderr
    assert REFUSAL in message
    assert not (results / METHOD).exists()
