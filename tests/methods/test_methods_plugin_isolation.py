"""Plug-ins cannot change what the methods after them compute (docs/plugins.md, "What a plug-in may
rely on, and what is put back"):
hostile plug-ins run before the shipped VARIANCE, LABELCORR and GRRO in the same Octave session
(run_suite) and the same process and session (``pipeline.kgrid --engine octave``), and the shipped
methods' files are the same as in a run without them; the session and process state a plug-in
changes is back after its call.

The hostile plug-ins: SHADOWER puts a folder with its own ``var.m`` and ``mean.m`` on the Octave
path, WANDERER changes Octave's working folder to that folder (functions there shadow the path),
RESEEDER reseeds and switches Octave's random generators and turns warnings off, PYHOSTILE (Python)
calls ``os.chdir``, ``np.random.seed``, ``random.seed`` and ``np.seterr(all='ignore')``.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest

from pipeline.cli import run_main
from pipeline.engines.python import PythonEngine
from pipeline.kgrid import main as kgrid_main
from pipeline.methods import get_method
from pipeline.methods.plugins import load_plugin_folders

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "paper_matlab_minmax"
SHIPPED = ["VARIANCE", "LABELCORR", "GRRO"]  # GRRO: a baseline that is quick on the demo fold
OCTAVE_HOSTILE = ["SHADOWER", "WANDERER", "RESEEDER"]
# Record entries that differ between two runs of the same code on the same data: timings (time_*,
# info.seconds), and the provenance and content digest that cover them. Everything else must be equal.
NOT_COMPARED = ("provenance", "content_sha256", "git", "versions")

# not a mean: a shipped method that reaches it ranks otherwise (VARIANCE centres with mean)
SHADOW_MEAN = """function m = mean(x, dim)
  if nargin < 2
    dim = 1;
  end
  m = max(x, [], dim);
end
"""
SHADOW_VAR = """function v = var(x, varargin)
  v = zeros(1, size(x, 2));
end
"""
PLUGIN_M = """function [ranking, info] = {name}(X, Y, params, init) %#ok<INUSD>
  if nargin == 0
    ranking = struct();
    return
  end
  shadow = fullfile(fileparts(fileparts(mfilename('fullpath'))), 'shadow');
  {action}
  ranking = 1:size(X, 2);
  info = struct('scores', size(X, 2):-1:1);
end
"""
ACTIONS = {
    "SHADOWER": "addpath(shadow);",
    "WANDERER": "cd(shadow);",
    "RESEEDER": "rand('seed', 1); randn('state', 2); rande('state', 3); warning('off', 'all');",
}
PLUGIN_PY = """import os
import random

import numpy as np

from pipeline.methods.base import MethodSpec


def scores(X, Y, params):
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    np.random.seed(12345)
    random.seed(12345)
    np.seterr(all="ignore")
    return np.arange(X.shape[1], 0, -1, dtype=float)


PYHOSTILE = MethodSpec(name="PYHOSTILE", scores=scores)
"""


@pytest.fixture(scope="module")
def plugins(tmp_path_factory) -> Path:
    """The hostile plug-in folder; the shadowing functions are in ``../shadow``, off the path."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "shadow").mkdir()
    (root / "shadow" / "mean.m").write_text(SHADOW_MEAN)
    (root / "shadow" / "var.m").write_text(SHADOW_VAR)
    folder = root / "plugins"
    folder.mkdir()
    for name, action in ACTIONS.items():
        (folder / f"{name}.m").write_text(PLUGIN_M.format(name=name, action=action))
    (folder / "pyhostile.py").write_text(PLUGIN_PY)
    return folder


def comparable_files(results: Path, method: str) -> dict[str, object]:
    """The method's result files by name: CSV files as bytes, JSON records without timings and provenance."""
    files: dict[str, object] = {}
    for path in sorted((results / method).iterdir()):
        if path.suffix == ".csv":
            files[path.name] = path.read_bytes()
        elif path.suffix == ".json":
            record = json.loads(path.read_text())
            record.get("info", {}).pop("seconds", None)  # a method's own timing (GRRO's)
            files[path.name] = {key: value for key, value in record.items()
                                if key not in NOT_COMPARED and not key.startswith("time_")}
    return files


def assert_same_results(plain: Path, hostile: Path) -> None:
    for method in SHIPPED:
        expected = comparable_files(plain, method)
        assert len(expected) == 4, sorted(expected)  # scores, ranking, its record, metrics
        assert comparable_files(hostile, method) == expected, method


def run_suite(octave, results: Path, methods: list[str], *plugins: Path) -> None:
    folders = ["plugins", [str(p) for p in plugins]] if plugins else []
    (summary,) = octave.call("run_suite", str(results), str(DEMO), ["demo"], methods, "folds", 1.0,
                             "k_max", 30.0, *folders, "verbose", False, nout=1)
    assert summary["failed"] == 0 and summary["done"] == len(methods), summary


@pytest.fixture(scope="module")
def run_suite_plain(octave, tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("suite") / "plain"
    run_suite(octave, results, SHIPPED)
    return results


# All the hostile plug-ins in one run: each one's own effect is checked by the state tests below.
def test_run_suite_gives_the_shipped_methods_the_same_files_after_hostile_plugins(
        octave, plugins, run_suite_plain, tmp_path):
    run_suite(octave, tmp_path / "hostile", [*OCTAVE_HOSTILE, *SHIPPED], plugins)
    assert_same_results(run_suite_plain, tmp_path / "hostile")


def octave_state(octave) -> dict:
    """What a later call in the session inherits: path, working folder, generator states, a warning's state."""
    (path,) = octave.call("path", nout=1)
    (folder,) = octave.call("pwd", nout=1)
    state = {"path": path, "folder": folder}
    for generator in ("rand", "randn", "rande"):
        (state[generator],) = octave.call(generator, "state", nout=1)
        state[generator] = np.asarray(state[generator]).tolist()
    (warning,) = octave.call("warning", "query", "Octave:shadowed-function", nout=1)
    state["warning"] = warning["state"]
    return state


@pytest.mark.parametrize("hostile", OCTAVE_HOSTILE)
def test_the_octave_session_state_a_plugin_changes_is_back_after_its_call(octave, plugins, hostile):
    session = octave.start()
    session.addpath(str(plugins))  # directly: a bridge call's path change would be undone
    try:
        before = octave_state(octave)
        X = np.random.default_rng(0).random((6, 4))
        octave.call(hostile, X, np.ones((6, 2)), {}, {}, nout=2)
        assert octave_state(octave) == before
    finally:
        session.rmpath(str(plugins))


def test_the_process_state_a_python_plugin_changes_is_back_after_its_call(plugins, registry, tmp_path,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    load_plugin_folders([str(plugins)], None)
    np.random.seed(7)
    random.seed(7)
    with np.errstate(all="warn"):
        before = (os.getcwd(), np.random.get_state()[1].tolist(), random.getstate(), np.geterr())
        PythonEngine().rank(get_method("PYHOSTILE"), np.random.default_rng(0).random((6, 4)), np.ones((6, 2)), {},
                            None)
        after = (os.getcwd(), np.random.get_state()[1].tolist(), random.getstate(), np.geterr())
    assert after == before


def kgrid(results: str, methods: list[str], *plugins: Path) -> int:
    return run_main(kgrid_main, ["--engine", "octave", "--datasets", "demo", "--folds", "1", "--data-dir",
                                 str(DEMO), "--results-dir", results, "--k-max", "30", "--no-progress",
                                 *(["--plugins", *map(str, plugins)] if plugins else []), "--methods", *methods])


@pytest.fixture(scope="module")
def kgrid_plain(tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("kgrid") / "plain"
    assert kgrid(str(results), SHIPPED) == 0
    return results


@pytest.mark.octave
def test_kgrid_gives_the_shipped_methods_the_same_files_after_hostile_plugins(
        plugins, kgrid_plain, registry, tmp_path, monkeypatch):
    # a relative results folder: a plug-in's os.chdir must not send the files elsewhere
    monkeypatch.chdir(tmp_path)
    assert kgrid("hostile", [*OCTAVE_HOSTILE, "PYHOSTILE", *SHIPPED], plugins) == 0
    assert os.getcwd() == str(tmp_path)
    assert_same_results(kgrid_plain, tmp_path / "hostile")
