"""The Octave ML-kNN (matlab/_eval_mlknn) against the golden values of docs/evaluation.md, a hand example, a plain
reference written here, and the native metric functions. Real Octave, one process per session."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.evaluation import metrics as native_metrics
from pipeline.evaluation.grids import p_grid
from pipeline.evaluation.metrics import METRICS

pytestmark = pytest.mark.octave


# docs/evaluation.md, "Golden values" (reference output; compare to 1e-9).
E1_RANKING = [7, 29, 1, 17, 13, 4, 23, 3, 6, 30, 22, 21, 15, 27, 14, 18, 2, 10, 24, 9, 5, 12, 28, 16,
              11, 25, 20, 19, 8, 26]
E1_PGRID = {
    "k_values": [2, 3, 5, 6, 8, 9, 11, 12, 14, 15],
    "micro_f1": [0.0425531915, 0.0416666667, 0, 0.0434782609, 0.1481481481, 0.0851063830, 0.0851063830,
                 0.3103448276, 0.0909090909, 0.25],
    "macro_f1": [0.0219780220, 0.0238095238, 0, 0.0357142857, 0.0979591837, 0.0439560440, 0.0884353741,
                 0.2147695442, 0.0793650794, 0.1575091575],
    "hamming_loss": [0.3214285714, 0.3285714286, 0.2928571429, 0.3142857143, 0.3285714286, 0.3071428571,
                     0.3071428571, 0.2857142857, 0.2857142857, 0.2571428571],
    "micro_pr_auc": [0.2986524464, 0.3292345831, 0.2788715678, 0.2762866937, 0.3004607088, 0.2987648205,
                     0.2971183194, 0.4477770179, 0.2959344641, 0.4552657181],
    "macro_pr_auc": [0.3514392319, 0.4063698216, 0.3244251211, 0.2971126041, 0.3570376585, 0.3229802683,
                     0.3632988108, 0.4481885080, 0.3524520635, 0.4897785373],
    "avg_precision": [0.4818492063, 0.5144325397, 0.4200793651, 0.3933809524, 0.4350436508, 0.4776626984,
                      0.4585952381, 0.5900992063, 0.4227460317, 0.5594880952],
    "one_error": [0.6, 0.65, 0.8, 0.85, 0.75, 0.7, 0.75, 0.55, 0.7, 0.6],
}
E1_KGRID = {
    "micro_f1": [0, 0.1276595745, 0.0909090909],
    "macro_f1": [0, 0.0805194805, 0.0634920635],
    "hamming_loss": [0.3214285714, 0.2928571429, 0.2857142857],
    "micro_pr_auc": [0.2578793608, 0.3074869485, 0.3367190492],
    "macro_pr_auc": [0.3055641205, 0.3210881213, 0.3574501120],
    "avg_precision": [0.4420238095, 0.4575992063, 0.4487976190],
    "one_error": [0.8, 0.65, 0.7],
}
E2_KGRID = {
    "micro_f1": [0.2580645161, 0.2765957447, 0.2526315789],
    "macro_f1": [0.2056458947, 0.2198979592, 0.1952280912],
    "hamming_loss": [0.4928571429, 0.4857142857, 0.5071428571],
    "micro_pr_auc": [0.3235496969, 0.3576117991, 0.3196619981],
    "macro_pr_auc": [0.4583667256, 0.4264537330, 0.3868464312],
    "avg_precision": [0.4249900794, 0.5401706349, 0.4510853175],
    "one_error": [0.9, 0.7, 0.8],
}
# The golden values are printed with 10 decimals: 1e-9 is the tightest meaningful tolerance.
GOLDEN_TOL = 1e-9


def e1_data():
    rng = np.random.default_rng(1)
    Xtr = rng.random((40, 30))
    Ytr = rng.random((40, 7)) > 0.7
    Xte = rng.random((20, 30))
    Yte = rng.random((20, 7)) > 0.7
    return Xtr, Ytr.astype(float), Xte, Yte.astype(float)


def e2_data():
    rng = np.random.default_rng(2)
    Xtr = (rng.random((40, 30)) < 0.3).astype(float)
    Ytr = rng.random((40, 7)) > 0.6
    Xte = (rng.random((20, 30)) < 0.3).astype(float)
    Yte = rng.random((20, 7)) > 0.6
    return Xtr, Ytr.astype(float), Xte, Yte.astype(float)


def flat(value):
    return np.asarray(value, dtype=np.float64).reshape(-1)


def assert_golden(result, golden):
    for key, expected in golden.items():
        np.testing.assert_allclose(flat(result[key]), expected, rtol=0, atol=GOLDEN_TOL, err_msg=key)


def test_golden_e1_kgrid(oc):
    result = oc.MLKNN_eval_kgrid(*e1_data(), np.array(E1_RANKING, float), np.array([10., 20, 30]), 10., 1.)
    assert_golden(result, E1_KGRID)
    assert flat(result["k_values"]).tolist() == [10, 20, 30]
    assert result["macro_pr_auc_labels_used"] == 7 and result["macro_pr_auc_labels_total"] == 7


def test_golden_e1_pgrid_uses_half_even_rounding(oc):
    result = oc.MLKNN_eval_pgrid(*e1_data(), np.array(E1_RANKING, float), p_grid(), 10., 1.)
    assert_golden(result, E1_PGRID)
    np.testing.assert_array_equal(flat(result["p_values"]), p_grid())


def test_golden_e2_binary_ties(oc):
    result = oc.MLKNN_eval_kgrid(*e2_data(), np.arange(1, 31.), np.array([10., 20, 30]), 10., 1.)
    assert_golden(result, E2_KGRID)


def test_hand_example_with_tie_to_lower_index(oc):
    # 1-D, K = 1, s = 1: neighbours 0->1, 1->0, 2->1, 3->2; positives 0,1.
    # Prior = 3/6; Cond = [1/4, 3/4], CondN = [2/4, 2/4].
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    Y = np.array([[1.0], [1.0], [0.0], [0.0]])
    model = oc.MLKNN_train(X, Y, 1., 1.)
    assert float(model["Prior"]) == 0.5
    np.testing.assert_allclose(flat(model["Cond"]), [0.25, 0.75], rtol=0, atol=1e-15)
    np.testing.assert_allclose(flat(model["CondN"]), [0.5, 0.5], rtol=0, atol=1e-15)
    # x = 2 is equidistant from points 1 (positive) and 2 (negative): the lower index wins -> t = 1.
    outputs, pre = oc.MLKNN_test(model, np.array([[0.4], [6.0], [2.0]]), nout=2)
    np.testing.assert_allclose(flat(outputs), [0.6, 1 / 3, 0.6], rtol=0, atol=1e-15)
    assert flat(pre).tolist() == [1, -1, 1]


def reference_outputs(Xtr, Ytr, Xte, num, smooth):
    """Plain ML-kNN: canonical distances by a loop over features, (distance, index) by lexsort."""
    def sq(A, B):
        acc = np.zeros((A.shape[0], B.shape[0]))
        for f in range(A.shape[1]):
            t = A[:, f][:, None] - B[:, f][None, :]
            acc = acc + t * t
        return acc

    def nearest(D):
        idx = np.arange(D.shape[0])
        return np.array([np.lexsort((idx, D[:, j]))[:num] for j in range(D.shape[1])])

    Ytr = Ytr > 0
    Dtt = sq(Xtr, Xtr)
    np.fill_diagonal(Dtt, np.inf)
    train_counts = Ytr[nearest(Dtt)].sum(axis=1)
    test_counts = Ytr[nearest(sq(Xtr, Xte))].sum(axis=1)
    prior = (smooth + Ytr.sum(0)) / (2 * smooth + Ytr.shape[0])
    L = Ytr.shape[1]
    out = np.empty((Xte.shape[0], L))
    for label in range(L):
        a = np.bincount(train_counts[Ytr[:, label], label], minlength=num + 1)
        b = np.bincount(train_counts[~Ytr[:, label], label], minlength=num + 1)
        cond = (smooth + a) / (smooth * (num + 1) + a.sum() + np.finfo(float).eps)
        cond_n = (smooth + b) / (smooth * (num + 1) + b.sum() + np.finfo(float).eps)
        p1 = prior[label] * cond[test_counts[:, label]]
        p0 = (1 - prior[label]) * cond_n[test_counts[:, label]]
        out[:, label] = p1 / (p1 + p0)
    return out


@pytest.mark.parametrize("make", [e1_data, e2_data], ids=["continuous", "binary-ties"])
def test_train_test_match_plain_reference(oc, make):
    Xtr, Ytr, Xte, _ = make()
    model = oc.MLKNN_train(Xtr, Ytr, 10., 1.)
    outputs, pre = oc.MLKNN_test(model, Xte, nout=2)
    expected = reference_outputs(Xtr, Ytr, Xte, 10, 1.0)
    np.testing.assert_allclose(outputs.T, expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(pre.T, np.where(expected >= 0.5, 1, -1))


def test_kgrid_last_point_equals_train_test_on_all_features(oc):
    Xtr, Ytr, Xte, Yte = e2_data()
    model = oc.MLKNN_train(Xtr, Ytr, 10., 1.)
    outputs = oc.MLKNN_test(model, Xte)
    grid = oc.MLKNN_eval_kgrid(Xtr, Ytr, Xte, Yte, np.arange(1, 31.), np.array([30.]), 10., 1.)
    expected = native_metrics.compute_all(Yte, outputs.T >= 0.5, outputs.T)
    for key in METRICS:
        assert float(grid[key]) == pytest.approx(expected[key], abs=1e-15), key


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), L=st.integers(1, 12),
       levels=st.integers(1, 4))
def test_metrics_match_native_on_tie_heavy_scores(octave, seed, n, L, levels):
    """Scores with few distinct values (ties everywhere), labels with empty rows and columns."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels + 1, size=(n, L)) / levels
    truth = rng.random((n, L)) < rng.choice([0.0, 0.2, 0.6])
    pred = scores >= 0.5
    got, used = octave.call("mlknn_metrics", scores.T, truth.T.astype(float), nout=2)
    expected = native_metrics.compute_all(truth, pred, scores)
    for key in METRICS:
        if np.isnan(expected[key]):
            assert np.isnan(float(got[key])), key
        else:
            assert float(got[key]) == pytest.approx(expected[key], abs=1e-12), key
    for key in ("ranking_loss", "coverage"):  # integer counts, then the same divisions and pairwise sum
        assert np.array_equal(float(got[key]), expected[key], equal_nan=True), key
    assert int(used) == native_metrics.macro_pr_auc_labels_used(truth)


def test_metric_conventions_on_empty_labels(oc):
    truth = np.zeros((2, 3))          # L = 2 labels, 3 instances, nothing relevant
    outputs = np.array([[0.2, 0.7, 0.1], [0.2, 0.1, 0.3]])
    m, used = oc.mlknn_metrics(outputs, truth, nout=2)
    assert m["micro_f1"] == 0 and m["macro_f1"] == 0       # zero denominators count as 0
    assert np.isnan(m["micro_pr_auc"]) and np.isnan(m["macro_pr_auc"]) and used == 0
    assert m["avg_precision"] == 0 and m["one_error"] == 1  # instances without labels: 0 AP, errors
    assert m["hamming_loss"] == pytest.approx(1 / 6)
    assert np.isnan(m["ranking_loss"]) and np.isnan(m["coverage"])  # no instance qualifies


def test_bad_inputs_raise_identified_errors(octave):
    from pipeline.errors import EngineError

    Xtr, Ytr, Xte, Yte = e1_data()
    cases = {
        "mlfs:mlknn:badRanking": (Xtr, Ytr, Xte, Yte, np.arange(0, 30.), np.array([10.]), 10., 1.),
        "mlfs:mlknn:emptyGrid": (Xtr, Ytr, Xte, Yte, np.arange(1, 31.), np.array([40.]), 10., 1.),
        "mlfs:mlknn:badNum": (Xtr, Ytr, Xte, Yte, np.arange(1, 31.), np.array([10.]), 40., 1.),
        "mlfs:mlknn:badInput": (Xtr, Ytr[:5], Xte, Yte, np.arange(1, 31.), np.array([10.]), 10., 1.),
    }
    for identifier, args in cases.items():
        with pytest.raises(EngineError, match=identifier):
            octave.call("MLKNN_eval_kgrid", *args, nout=1, context="t/e1/fold0")
