"""OctaveEngine / OctaveSession behaviour with a real Octave: ranking methods, argument passing,
errors with the task context and the Octave message, timeouts and crashes with a restart."""

from __future__ import annotations

import time

import numpy as np
import pytest

from engine_test_data import FIXTURES
from pipeline.data.folds import load_fold
from pipeline.engines import make_engine, make_evaluator
from pipeline.engines.octave import OctaveEngine, OctaveEvaluator, OctaveSession
from pipeline.errors import EngineError
from pipeline.methods import get_method
from pipeline.methods.anchors import label_correlation_scores
from pipeline.methods.base import MethodSpec

pytestmark = pytest.mark.octave

DEMO = "data/paper_matlab_minmax/demo/fold{}.mat"


def method_spec(function: str) -> MethodSpec:
    return MethodSpec(name=function, matlab_function=function)


@pytest.fixture(scope="module")
def demo_fold(request):
    root = request.config.rootpath
    return load_fold(root / DEMO.format(0))


@pytest.mark.parametrize("method", ["VARIANCE", "LABELCORR"])
def test_matlab_twins_rank_like_python(octave, demo_fold, method):
    engine = OctaveEngine(session=octave)
    ranking, info = engine.rank(get_method(method), demo_fold.X_train, demo_fold.Y_train, {}, None,
                                context=f"{method}/demo/fold0")
    expected, _ = get_method(method).run(demo_fold.X_train, demo_fold.Y_train, {})
    np.testing.assert_array_equal(ranking, expected)
    assert len(info["scores"]) == demo_fold.X_train.shape[1]


def test_labelcorr_scores_match_python_on_constant_columns(octave):
    rng = np.random.default_rng(5)
    X = rng.random((30, 6))
    X[:, 2] = 0.5                       # constant feature -> score 0
    Y = (rng.random((30, 9)) > 0.6).astype(np.uint8)
    Y[:, 4] = 1                         # constant label -> contributes 0
    _, info = OctaveEngine(session=octave).rank(get_method("LABELCORR"), X, Y, {}, None)
    np.testing.assert_allclose(info["scores"], label_correlation_scores(X, Y), rtol=0, atol=1e-14)
    assert info["scores"][2] == 0


def test_arguments_reach_the_method_unchanged(octave):
    X = np.arange(12.0).reshape(4, 3)
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=np.uint8)
    params = {"alpha": 0.25, "max_iter": 40, "flag": True, "name": "lift", "grid": [1, 2, 3]}
    init = {"W0": np.full((3, 2), 0.5)}
    ranking, info = OctaveEngine(session=octave).rank(method_spec("MLFS_TEST_ECHO"), X, Y, params, init)
    np.testing.assert_array_equal(ranking, [3, 2, 1])
    assert info["params"] == {"alpha": 0.25, "max_iter": 40.0, "flag": True, "name": "lift",
                              "grid": [1.0, 2.0, 3.0]}
    np.testing.assert_array_equal(info["init"]["W0"], np.full((3, 2), 0.5))
    assert info["size_x"] == [4, 3] and info["size_y"] == [4, 2]
    assert info["class_x"] == "double" and info["sum_y"] == 4


def test_method_error_names_task_and_octave_message(octave, demo_fold):
    engine = OctaveEngine(session=octave)
    with pytest.raises(EngineError) as caught:
        engine.rank(method_spec("MLFS_TEST_ERROR"), demo_fold.X_train, demo_fold.Y_train, {}, None,
                    context="MLFS_TEST_ERROR/demo/fold0")
    text = str(caught.value)
    assert "MLFS_TEST_ERROR/demo/fold0" in text
    assert "deliberate failure on a 320x120 training set" in text and "[mlfs_test:boom]" in text
    assert "\n" not in text
    # An Octave-side error does not cost the process: the same session keeps working.
    ranking, _ = engine.rank(get_method("VARIANCE"), demo_fold.X_train, demo_fold.Y_train, {}, None)
    assert ranking.size == 120


def test_bad_parameter_names_are_rejected_before_octave(octave):
    with pytest.raises(EngineError, match="valid MATLAB field name"):
        OctaveEngine(session=octave).rank(method_spec("MLFS_TEST_ECHO"), np.ones((3, 2)), np.ones((3, 1)),
                                                  {"bad-name": 1}, None)


def test_hang_times_out_and_process_restarts(demo_fold):
    session = OctaveSession(timeout=3, extra_paths=[FIXTURES])
    engine = OctaveEngine(session=session)
    try:
        start = time.perf_counter()
        with pytest.raises(EngineError, match=r"MLFS_TEST_HANG/demo/fold0: MLFS_TEST_HANG timed out in Octave"):
            engine.rank(method_spec("MLFS_TEST_HANG"), demo_fold.X_train, demo_fold.Y_train, {}, None,
                        context="MLFS_TEST_HANG/demo/fold0")
        assert time.perf_counter() - start < 30
        assert not session.running
        ranking, _ = engine.rank(get_method("VARIANCE"), demo_fold.X_train, demo_fold.Y_train, {}, None)
        assert ranking.size == 120 and session.starts == 2
    finally:
        engine.close()


def test_crash_is_reported_and_process_restarts(demo_fold):
    session = OctaveSession(timeout=60, extra_paths=[FIXTURES])
    engine = OctaveEngine(session=session)
    try:
        with pytest.raises(EngineError, match=r"x/demo/fold1: MLFS_TEST_CRASH crashed in Octave"):
            engine.rank(method_spec("MLFS_TEST_CRASH"), demo_fold.X_train, demo_fold.Y_train, {}, None,
                        context="x/demo/fold1")
        ranking, _ = engine.rank(get_method("VARIANCE"), demo_fold.X_train, demo_fold.Y_train, {}, None)
        assert ranking.size == 120 and session.starts == 2
    finally:
        engine.close()


def test_factory_builds_octave_engine_and_evaluator_with_timeout():
    engine = make_engine("octave", timeout=12.5)
    evaluator = make_evaluator("octave", timeout=7.0)
    assert isinstance(engine, OctaveEngine) and engine.session.timeout == 12.5
    assert isinstance(evaluator, OctaveEvaluator) and evaluator.session.timeout == 7.0
    assert not engine.session.running          # Octave starts lazily, at the first call
    # A worker's engine and evaluator with the same settings share one Octave process.
    assert make_evaluator("octave", timeout=12.5).session is engine.session
    assert engine.supports(get_method("VARIANCE")) and not engine.supports(get_method("DAGFS"))
    with pytest.raises(EngineError, match="positive number of seconds"):
        OctaveSession(timeout=0)


def test_missing_octave_executable_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("OCTAVE_EXECUTABLE", "/nonexistent/octave-cli")
    with pytest.raises(EngineError, match="cannot start GNU Octave"):
        OctaveSession(timeout=5).start()
