"""A method that raises fails its own task only; the run carries on and reports it."""

from __future__ import annotations

import json

import numpy as np

from runner_helpers import make_fold_dir
from pipeline.methods.base import MethodSpec
from pipeline.runner.executors import run_all
from pipeline.runner.manifest import write_failures
from pipeline.runner.run import RunSettings
from pipeline.runner.tasks import GridSpec, Task
import pipeline.methods as methods


def _explodes_on_fold_one(X, Y, params, init):
    if X.shape[0] == 60 and X[0, 0] > 0.5:
        raise KeyError("a bug inside the method")
    return np.arange(X.shape[1], 0, -1), {"scores": np.arange(X.shape[1], dtype=float)}


def test_method_exception_fails_only_its_task(tmp_path, monkeypatch):
    folds = make_fold_dir(tmp_path / "folds", n_folds=3)
    spec = MethodSpec(name="FRAGILE", python=_explodes_on_fold_one)
    monkeypatch.setitem(methods._REGISTRY, "FRAGILE", spec)
    settings = RunSettings(data_dir=str(folds), results_dir=str(tmp_path / "res"), grids=(GridSpec(),), engine="python")
    outcomes = run_all([Task("FRAGILE", "toy", f) for f in range(3)], settings, progress=False)
    statuses = {o.task.fold: o.status for o in outcomes}
    failed = [o for o in outcomes if o.status == "failed"]
    assert list(statuses.values()).count("done") >= 1 and failed
    assert all(o.error_type == "EngineError" and "KeyError: 'a bug inside the method'" in o.message for o in failed)
    write_failures(tmp_path / "res", outcomes)
    report = json.loads((tmp_path / "res" / "failures.json").read_text())["failed"]
    assert {entry["fold"] for entry in report} == {o.task.fold for o in failed}
    for outcome in failed:
        assert not (tmp_path / "res" / "FRAGILE" / f"toy_fold{outcome.task.fold}_ranking.csv").exists()
