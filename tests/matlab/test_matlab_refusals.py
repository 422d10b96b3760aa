"""The arguments ``run_suite`` once accepted though they were wrong (issue 32), refused now as the
Python front door refuses them (tests/runner/test_runner_refusals.py): one error naming the field
and what was expected, before any results folder is made. The names a results folder keeps for
itself come from results/layout.json and the parameters from the methods' definition files, the
files the Python package reads."""

from __future__ import annotations

import pytest

from matlab_test_paths import REPO
from pipeline.errors import EngineError

DATA = REPO / "data" / "paper_matlab_minmax"
DEMO_TRAINING_ROWS = 320


@pytest.mark.parametrize("methods, options, identifier, line", [
    # once ignored: a misspelt method in params, and a method the run does not run
    (["LRMFS"], ("params", {"LRMSF": {"alpha": 0.1}}), "mlfs:run_suite:badArgument",
     "run_suite: field 'params.LRMSF': parameters of a method this run does not run (they would be ignored) "
     "(expected one of the methods LRMFS)"),
    (["VARIANCE"], ("params", {"SRFS": {"alpha": 0.1}}), "mlfs:run_suite:badArgument",
     "field 'params.SRFS': parameters of a method this run does not run"),
    # once refused by each task only, after the run had started
    (["LRMFS"], ("params", {"LRMFS": {"alphax": 0.1}}), "mlfs:LRMFS:unknownParameter",
     "LRMFS: unknown parameter 'alphax' (known: alpha, beta, gamma, lambda, max_iter, mode, seed, tol)"),
    (["VARIANCE", "variance"], (), "mlfs:run_suite:badArgument",
     "run_suite: method 'variance' listed twice (it would run twice)"),
    (["Failures.json"], (), "mlfs:badName", "invalid method name 'Failures.json': a results folder uses it for "
                                            "itself (expected a name other than failures.json, runs, in any case)"),
    (["VARIANCE"], ("mlknn_k", float(DEMO_TRAINING_ROWS)), "mlfs:run_suite:tooFewTrainingRows",
     f"demo/fold0.mat, field 'X_train': ML-kNN needs more training instances than neighbours "
     f"(expected n_train > {DEMO_TRAINING_ROWS}; found n_train = {DEMO_TRAINING_ROWS})"),
])
def test_run_suite_refuses_before_any_task(octave, tmp_path, methods, options, identifier, line):
    results = tmp_path / "never"
    with pytest.raises(EngineError, match=identifier) as refused:
        octave.call("run_suite", str(results), str(DATA), ["demo"], methods, "folds", 1.0, "verbose", False,
                    *options, nout=1)
    assert line in str(refused.value) and "\n" not in str(refused.value)
    assert not results.exists()


def test_training_rows_are_read_from_the_fold_headers(octave):
    (rows,) = octave.call("mlfs_load_fold", str(DATA / "demo" / "fold0.mat"), "training_rows", nout=1)
    assert rows == DEMO_TRAINING_ROWS


def test_run_suite_into_a_file_says_so(octave, tmp_path):
    """Once ``mkdir: operation failed``."""
    taken = tmp_path / "results.txt"
    taken.write_text("mine")
    with pytest.raises(EngineError, match="mlfs:run_suite:badArgument") as refused:
        octave.call("run_suite", str(taken), str(DATA), ["demo"], ["VARIANCE"], "folds", 1.0, nout=1)
    assert f"run_suite: {taken}: cannot create results directory: a file of that name exists" in str(refused.value)
    assert taken.read_text() == "mine"
