"""One declaration of a shipped method's defaults and ranges, or of the metrics, reaches both front doors.

A copy of the package and of its MATLAB folder, in a checkout's layout (``python/pipeline``
beside ``matlab``) and in an installed package's (``pipeline/matlab``), gets a change written in
the copy's ``methods/definitions/<METHOD>.json`` and nowhere else:

- a range for a parameter that had none: ``python -m pipeline.kgrid`` run from the copy and
  ``run_suite`` in a real Octave with the copy's MATLAB folder both refuse a value outside it,
  before any task, naming the parameter; the unchanged package admits that value through both;
- another default: the copy's Python method and the Octave no-argument call both return it, and
  the method's code fingerprint changes in both engines and both languages (to the same value),
  by that file alone, while another method's stays that of the unchanged package.

Likewise the metrics reordered in the copy's ``evaluation/metrics.json`` are the order of Python's
``METRICS`` and of Octave's ``mlknn_metric_names``.
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
from pipeline.runner.fingerprint import method_fingerprint

pytestmark = pytest.mark.octave

METHOD, PARAMETER = "GRRO", "alpha"
NEW_RANGE = {"low": 0, "high": 1000}
OUTSIDE = 5000.0
#: A default changed in the copy, and a method whose definition stays as it is.
CHANGED_DEFAULT, NEW_DEFAULT, OTHER_METHOD = "beta", 0.25, "LRMFS"
REFUSAL = (f"value out of range for parameter '{PARAMETER}' of method {METHOD} "
           f"(expected >= 0 and <= 1000; found 5000")


@pytest.fixture(params=["checkout", "installed"])
def copied_package(request, tmp_path) -> tuple[Path, Path]:
    """(folder to put on PYTHONPATH, MATLAB folder) of a copy of the package and its MATLAB code
    in either layout."""
    skip_caches = shutil.ignore_patterns("__pycache__", "*.pyc")
    if request.param == "checkout":
        python_path = tmp_path / "checkout" / "python"
        matlab = tmp_path / "checkout" / "matlab"
    else:
        python_path = tmp_path / "site-packages"
        matlab = python_path / "pipeline" / "matlab"
    shutil.copytree(REPO / "python" / "pipeline", python_path / "pipeline", ignore=skip_caches)
    shutil.copytree(REPO / "matlab", matlab, ignore=skip_caches)
    return python_path, matlab


def edit_definition(python_path: Path, method: str, part: str, name: str, value) -> None:
    """Set ``part`` (``defaults`` or ``ranges``) ``name`` in the copy's definition of ``method``."""
    definition = python_path / "pipeline" / "methods" / "definitions" / f"{method}.json"
    declared = json.loads(definition.read_text(encoding="utf-8"))
    declared[part][name] = value
    definition.write_text(json.dumps(declared, indent=2), encoding="utf-8")


@pytest.fixture
def ranged_package(copied_package) -> tuple[Path, Path]:
    """The copy with NEW_RANGE declared for PARAMETER of METHOD."""
    assert PARAMETER not in get_method(METHOD).allowed, "the test needs a parameter without a range"
    edit_definition(copied_package[0], METHOD, "ranges", PARAMETER, NEW_RANGE)
    return copied_package


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


def test_the_python_front_door_of_the_copy_refuses_a_value_outside_the_new_range(ranged_package, fold_dir, tmp_path):
    params = tmp_path / "params.json"
    params.write_text(json.dumps({METHOD: {PARAMETER: OUTSIDE}}))
    environment = {key: value for key, value in os.environ.items() if key != "MLFS_MATLAB_DIR"}
    environment["PYTHONPATH"] = str(ranged_package[0])
    done = subprocess.run([sys.executable, "-m", "pipeline.kgrid", "--engine", "python", "--methods", METHOD,
                           "--params", str(params), "--data-dir", str(fold_dir),
                           "--results-dir", str(tmp_path / "results"), "--no-progress"],
                          capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=300)
    assert done.returncode == 2, done.stderr
    assert REFUSAL in done.stderr
    assert not (tmp_path / "results" / METHOD).exists()


def test_run_suite_of_the_copy_refuses_a_value_outside_the_new_range(ranged_package, fold_dir, tmp_path):
    results = tmp_path / "results"
    script = (f"addpath(genpath('{ranged_package[1]}'));"
              f"try, run_suite('{results}', '{fold_dir}', {{'toy'}}, {{'{METHOD}'}}, 'verbose', false, "
              f"'params', struct('{METHOD}', struct('{PARAMETER}', {OUTSIDE}))); disp('admitted');"
              "catch refusal, fprintf('%s\\n%s\\n', refusal.identifier, refusal.message); end")
    done = subprocess.run(["octave-cli", "--no-gui", "--norc", "--quiet", "--eval", script],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    identifier, message = done.stdout.strip().splitlines()[-2:]
    assert identifier == f"mlfs:{METHOD}:badParameter", done.stdout + done.stderr
    assert REFUSAL in message
    assert not (results / METHOD).exists()


def python_view_of(python_path: Path) -> dict:
    """What the copy's Python package says: METHOD's CHANGED_DEFAULT and the code fingerprints."""
    script = ("import json; from pipeline.methods import get_method; "
              "from pipeline.runner.fingerprint import method_fingerprint; "
              f"print(json.dumps({{'default': get_method({METHOD!r}).defaults[{CHANGED_DEFAULT!r}], 'code': "
              f"{{f'{{m}}/{{e}}': method_fingerprint(get_method(m), e) for m in ({METHOD!r}, {OTHER_METHOD!r}) "
              "for e in ('python', 'octave')}}))")
    environment = {key: value for key, value in os.environ.items() if key != "MLFS_MATLAB_DIR"}
    environment["PYTHONPATH"] = str(python_path)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def octave_view_of(matlab: Path, tmp_path: Path) -> list[str]:
    """What run_suite's side says in a real Octave: the no-argument call's CHANGED_DEFAULT and the
    fingerprints mlfs_code_fingerprint gives METHOD and OTHER_METHOD."""
    script = (f"addpath(genpath('{matlab}')); d = {METHOD}(); f = mlfs_code_fingerprint('{METHOD}'); "
              f"g = mlfs_code_fingerprint('{OTHER_METHOD}'); "
              f"printf('%.17g\\n%s\\n%s\\n', d.{CHANGED_DEFAULT}, f.sha256, g.sha256);")
    done = subprocess.run(["octave-cli", "--no-gui", "--norc", "--quiet", "--eval", script],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    return done.stdout.strip().splitlines()[-3:]


def changed_files(now: dict, then: dict) -> set[str]:
    """The paths one fingerprint covers and the other does not, or with another digest."""
    return {path for path, _ in set(map(tuple, now["files"])) ^ set(map(tuple, then["files"]))}


def test_a_default_changed_in_the_definition_file_reaches_both_front_doors_and_stales_that_method_only(
        copied_package, tmp_path):
    python_path, matlab = copied_package
    assert get_method(METHOD).defaults[CHANGED_DEFAULT] != NEW_DEFAULT, "the test needs another default"
    edit_definition(python_path, METHOD, "defaults", CHANGED_DEFAULT, NEW_DEFAULT)
    python_side = python_view_of(python_path)
    octave_default, octave_code, octave_other = octave_view_of(matlab, tmp_path)

    assert python_side["default"] == NEW_DEFAULT and float(octave_default) == NEW_DEFAULT
    for engine in ("python", "octave"):
        now, then = python_side["code"][f"{METHOD}/{engine}"], method_fingerprint(get_method(METHOD), engine)
        assert now["sha256"] != then["sha256"], engine
        assert changed_files(now, then) == {f"methods/definitions/{METHOD}.json"}, engine
        assert python_side["code"][f"{OTHER_METHOD}/{engine}"] == method_fingerprint(get_method(OTHER_METHOD), engine)
    assert octave_code == python_side["code"][f"{METHOD}/octave"]["sha256"]    # both front doors record one value
    assert octave_other == method_fingerprint(get_method(OTHER_METHOD), "octave")["sha256"]


def test_the_metric_order_of_the_copy_is_the_one_both_languages_use(copied_package, tmp_path):
    python_path, matlab = copied_package
    metrics_file = python_path / "pipeline" / "evaluation" / "metrics.json"
    declared = json.loads(metrics_file.read_text(encoding="utf-8"))
    declared["metrics"].reverse()
    metrics_file.write_text(json.dumps(declared), encoding="utf-8")
    reversed_keys = [entry["key"] for entry in declared["metrics"]]

    environment = {**os.environ, "PYTHONPATH": str(python_path)}
    done = subprocess.run([sys.executable, "-c", "from pipeline.evaluation.metrics import METRICS; print(*METRICS)"],
                          capture_output=True, text=True, env=environment, timeout=300)
    script = f"addpath(genpath('{matlab}')); printf('%s ', mlknn_metric_names(){{:}}); printf('\\n');"
    octave = subprocess.run(["octave-cli", "--no-gui", "--norc", "--quiet", "--eval", script],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.stdout.split() == reversed_keys, done.stderr
    assert octave.stdout.split() == reversed_keys, octave.stderr
