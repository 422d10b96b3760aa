"""The Octave evaluator (MLKNN_eval_kgrid through oct2py) and the native one agree on real folds.

Same ranking, same grid: every metric equal to the last bit (both sum in NumPy's pairwise order),
identical k values and label counts. The folds
are seeded row subsamples of the real data sets (tie-heavy sparse Yahoo and medical included).
"""

from __future__ import annotations

import numpy as np
import pytest

from engine_test_data import real_fold
from pipeline.engines.octave import OctaveEvaluator
from pipeline.engines.python import NativeEvaluator
from pipeline.evaluation.grids import k_grid
from pipeline.evaluation.metrics import METRICS
from pipeline.evaluation.mlknn import evaluate_grid
from pipeline.methods import get_method

pytestmark = pytest.mark.octave

# (dataset, n_train, n_test): subsamples keep the test time down.
FOLDS = [("emotions", 391, 202), ("yeast", 600, 300), ("scene", 600, 300), ("medical", 500, 300),
         ("Arts", 600, 300), ("Social", 600, 300)]


def assert_same_curves(native: dict, octave: dict, tol: float = 0.0) -> None:
    assert octave["k_values"] == [int(k) for k in native["k_values"]]
    assert octave["macro_pr_auc_labels_used"] == native["macro_pr_auc_labels_used"]
    assert octave["macro_pr_auc_labels_total"] == native["macro_pr_auc_labels_total"]
    for key in METRICS:
        a = np.asarray(native[key], dtype=np.float64)
        b = np.asarray(octave[key], dtype=np.float64)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=key)
        ok = ~np.isnan(a)
        assert np.max(np.abs(a[ok] - b[ok]), initial=0.0) <= tol, key


@pytest.mark.parametrize("name,n_train,n_test", FOLDS, ids=[f[0] for f in FOLDS])
def test_octave_evaluator_matches_native_on_real_fold(octave, mlc_dir, name, n_train, n_test):
    X_train, Y_train, X_test, Y_test = real_fold(mlc_dir, name, n_train, n_test)
    d = X_train.shape[1]
    # A filter ranking puts the densest columns first; a random one mixes sparse and dense columns.
    rankings = [get_method("VARIANCE" if name != "medical" else "LABELCORR").run(X_train, Y_train, {})[0],
                np.random.default_rng(7).permutation(d) + 1]
    evaluator = OctaveEvaluator(session=octave)
    for ranking in rankings:
        ks = k_grid(d, 10, 300, 10) if name in ("emotions", "yeast") else k_grid(d, 10, 150, 20)
        native = evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, ks, num=10, smooth=1.0)
        from_octave = evaluator.evaluate(X_train, Y_train, X_test, Y_test, ranking, ks, num=10, smooth=1.0,
                                         context=f"parity/{name}/fold0")
        assert_same_curves(native, from_octave)


def test_all_zero_prefix_ties_on_yahoo(octave, mlc_dir):
    """At k = 1..3 most Yahoo rows are all zero: massive exact ties settled by the training index."""
    X_train, Y_train, X_test, Y_test = real_fold(mlc_dir, "Business", 500, 200, seed=3)
    ranking = np.random.default_rng(3).permutation(X_train.shape[1]) + 1
    zero_rows = np.mean(~X_train[:, ranking[:3] - 1].any(axis=1))
    assert zero_rows > 0.5
    ks = [1, 2, 3, 5]
    native = evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, ks, num=10, smooth=1.0)
    from_octave = OctaveEvaluator(session=octave).evaluate(
        X_train, Y_train, X_test, Y_test, ranking, ks, num=10, smooth=1.0)
    assert_same_curves(native, from_octave)


def test_a_prepared_fold_gives_the_same_curves_in_both_evaluators(octave, mlc_dir):
    """A prepared fold shares the checks (the native evaluator also its label priors; Octave makes
    them at each call): both evaluators still give the curves of a fresh evaluation."""
    X_train, Y_train, X_test, Y_test = real_fold(mlc_dir, "emotions", 391, 202)
    ranking = np.random.default_rng(2).permutation(X_train.shape[1]) + 1
    ks = k_grid(X_train.shape[1], 10, 70, 10)
    fresh = evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, ks, num=10, smooth=1.0)
    for evaluator in (NativeEvaluator(), OctaveEvaluator(session=octave)):
        fold = evaluator.prepare(X_train, Y_train, X_test, Y_test, num=10, smooth=1.0)
        assert_same_curves(fresh, evaluator.evaluate_prepared(fold, ranking, ks, context="parity/prepared"))
