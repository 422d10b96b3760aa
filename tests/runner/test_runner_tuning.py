"""Tuning candidates as runner tasks: the same inner scores from the Octave and the Python engine,
resumed when fresh, redone when the tuning rule changes (docs/tuning.md)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from pipeline.data.folds import save_fold
from pipeline.results.layout import candidate_path
from pipeline.runner.executors import run_all
from pipeline.runner.inner import TuningSpec
from pipeline.runner.run import RunSettings
from pipeline.runner.tasks import GridSpec, Task, canonical_params
from pipeline.runner.tuning import select
from runner_helpers import record_calls

GRID = GridSpec("kgrid", k_min=2, k_max=8, k_step=2)
RULE = TuningSpec(mode="kfold", count=2, seed=5, test_size=None, scaler="minmax", clip_test=False,
                  metric="micro_f1", grid=GRID)


@pytest.fixture
def folds(tmp_path):
    rng = np.random.default_rng(11)
    X = rng.random((90, 12))
    Y = (X[:, :3] + 0.3 * rng.random((90, 3)) > 0.7).astype(np.int8)
    save_fold(tmp_path / "folds" / "toy" / "fold0.mat", X[:70], Y[:70], X[70:], Y[70:])
    return tmp_path / "folds"


def _candidates(alphas) -> list[Task]:
    return [Task("GRRO", "toy", 0, canonical_params({"alpha": a}), "GRRO", "candidate") for a in alphas]


def _candidate_record(results_dir, task: Task) -> dict:
    return json.loads(candidate_path(results_dir, task.folder, task.dataset, task.fold, task.params_json).read_text())


@pytest.mark.octave
def test_candidates_score_alike_on_octave_and_python_and_resume(folds, tmp_path):
    records = {}
    for engine in ("octave", "python"):
        settings = RunSettings(data_dir=str(folds), results_dir=str(tmp_path / engine), grids=(GRID,), engine=engine,
                               mlknn_k=5, skip_existing=True, tuning=RULE)
        tasks = _candidates([1.0, 100.0])
        assert {o.status for o in run_all(tasks, settings, progress=False)} == {"done"}
        records[engine] = [_candidate_record(settings.results_dir, t) for t in tasks]
        assert select(settings.results_dir, tasks, settings) in ({"alpha": 1.0}, {"alpha": 100.0})
        assert {o.status for o in run_all(tasks, settings, progress=False)} == {"skipped"}
    for octave, python in zip(records["octave"], records["python"]):
        assert octave["inner_splits"] == python["inner_splits"] and len(octave["splits"]) == 2
        assert octave["criterion"] == pytest.approx(python["criterion"], abs=1e-12)
        assert octave["code"]["method"] != python["code"]["method"]  # GRRO.m against grro.py


def test_a_changed_tuning_rule_makes_the_candidates_stale(folds, tmp_path):
    settings = RunSettings(data_dir=str(folds), results_dir=str(tmp_path / "r"), grids=(GRID,), engine="python",
                           mlknn_k=5, skip_existing=True, tuning=RULE)
    tasks = _candidates([1.0])
    assert [o.status for o in run_all(tasks, settings, progress=False)] == ["done"]
    other = replace(settings, tuning=replace(RULE, seed=6))
    (outcome,) = run_all(tasks, other, progress=False)
    assert outcome.status == "done" and outcome.reason == "other tuning settings"


def _fails_for_large_alpha(X, Y, params, init):
    if params["alpha"] > 1:
        raise np.linalg.LinAlgError("Singular matrix")
    scores = np.abs(X.T @ Y).sum(axis=1)
    return np.argsort(-scores, kind="stable") + 1, {"scores": scores}


def test_a_candidate_whose_method_fails_is_recorded_and_loses(folds, tmp_path, monkeypatch):
    import pipeline.methods as methods
    from pipeline.methods.base import MethodSpec

    monkeypatch.setitem(methods._REGISTRY, "BRITTLE", MethodSpec(name="BRITTLE", defaults={"alpha": 1.0},
                                                                 python=_fails_for_large_alpha))
    settings = RunSettings(data_dir=str(folds), results_dir=str(tmp_path / "r"), grids=(GRID,), engine="python",
                           mlknn_k=5, skip_existing=True, tuning=replace(RULE, metric="hamming_loss"))
    tasks = [Task("BRITTLE", "toy", 0, canonical_params({"alpha": a}), "BRITTLE", "candidate") for a in (10.0, 0.5)]
    outcomes = run_all(tasks, settings, progress=False)
    assert [o.status for o in outcomes] == ["done", "done"]
    assert "the method failed, the candidate loses" in outcomes[0].reason
    assert select(settings.results_dir, tasks, settings) == {"alpha": 0.5}  # NaN loses, whatever the direction
    record = json.loads((tmp_path / "r" / "BRITTLE" / "toy_fold0_tuning.json").read_text())
    assert record["candidates"][0]["criterion"] is None
    assert "LinAlgError: Singular matrix" in record["candidates"][0]["failed"]
    assert [o.status for o in run_all(tasks, settings, progress=False)] == ["skipped", "skipped"]


def test_the_evaluator_prepares_each_inner_split_once_for_all_candidates(folds, tmp_path, monkeypatch):
    """Inner splits, their scaling and the evaluator's fold set-up are made once per outer fold."""
    from pipeline.engines.python import NativeEvaluator

    prepared = record_calls(monkeypatch, NativeEvaluator, "prepare", tmp_path / "prepared.txt")
    settings = RunSettings(data_dir=str(folds), results_dir=str(tmp_path / "r"), grids=(GRID,), engine="python",
                           mlknn_k=5, tuning=RULE)
    tasks = _candidates([0.1, 1.0, 10.0, 100.0])
    assert {o.status for o in run_all(tasks, settings, progress=False)} == {"done"}
    assert len(prepared()) == RULE.count  # one per inner split, not one per candidate and split
    fresh = RunSettings(data_dir=str(folds), results_dir=str(tmp_path / "one_by_one"), grids=(GRID,),
                        engine="python", mlknn_k=5, tuning=RULE)
    for task in tasks:  # a run per candidate: each prepares its own splits; the records agree exactly
        run_all([task], fresh, progress=False)
        shared = _candidate_record(settings.results_dir, task)
        alone = _candidate_record(fresh.results_dir, task)
        assert [s["micro_f1"] for s in shared["splits"]] == [s["micro_f1"] for s in alone["splits"]]
    assert len(prepared()) == RULE.count * (1 + len(tasks))
