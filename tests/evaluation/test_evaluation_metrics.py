"""Metric conventions (docs/evaluation.md, "Metrics"): properties, hand cases, and scikit-learn where they coincide."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm

from pipeline.errors import DataError
from pipeline.evaluation import metrics as M
from pipeline.evaluation.ordered_sums import pairwise_sum

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def label_matrices(draw, min_n=1, max_n=12, min_l=1, max_l=6):
    n = draw(st.integers(min_n, max_n))
    L = draw(st.integers(min_l, max_l))
    return draw(arrays(np.bool_, (n, L)))


@st.composite
def truth_pred_scores(draw, distinct=False, min_l=1):
    Y = draw(label_matrices(min_l=min_l))
    P = draw(arrays(np.bool_, Y.shape))
    if distinct:
        seed = draw(st.integers(0, 2**32 - 1))
        S = np.random.default_rng(seed).permutation(Y.size).reshape(Y.shape) / Y.size
    else:
        S = draw(arrays(np.float64, Y.shape, elements=st.sampled_from([0.0, 0.25, 0.5, 1.0])))
    return Y, P, S


def test_metric_tables_are_consistent():
    assert M.METRICS == ("micro_f1", "macro_f1", "hamming_loss", "micro_pr_auc", "macro_pr_auc",
                         "avg_precision", "one_error", "ranking_loss", "coverage")
    assert set(M.HIGHER_IS_BETTER) == set(M.METRICS) == set(M.METRIC_CONVENTIONS)
    assert [m for m in M.METRICS if not M.HIGHER_IS_BETTER[m]] == ["hamming_loss", "one_error", "ranking_loss",
                                                                  "coverage"]


@SETTINGS
@given(truth_pred_scores())
def test_all_metrics_lie_in_unit_interval(case):
    Y, P, S = case
    values = M.compute_all(Y, P, S)
    for name, value in values.items():
        top = Y.shape[1] - 1 if name == "coverage" else 1.0  # coverage counts labels: 0 .. L - 1
        assert np.isnan(value) or 0.0 <= value <= top, name
    assert np.isnan(values["coverage"]) == (not Y.any())
    assert np.isnan(values["ranking_loss"]) == (not (Y.any(axis=1) & ~Y.all(axis=1)).any())
    assert np.isnan(values["micro_pr_auc"]) == (not Y.any())
    assert np.isnan(values["macro_pr_auc"]) == (M.macro_pr_auc_labels_used(Y) == 0)


@SETTINGS
@given(label_matrices())
def test_perfect_prediction_values(Y):
    S = Y.astype(float)
    values = M.compute_all(Y, Y, S)
    assert values["hamming_loss"] == 0.0
    assert values["micro_f1"] == (1.0 if Y.any() else 0.0)
    # labels without positives have a zero denominator and contribute 0 to macro-F1
    assert values["macro_f1"] == pytest.approx(np.mean(Y.any(axis=0)))
    has_pos = Y.any(axis=1)
    assert values["avg_precision"] == pytest.approx(np.mean(has_pos))
    # one-error of a perfect score is 0 except for instances without any relevant label
    assert values["one_error"] == pytest.approx(1 - np.mean(has_pos))
    if Y.any():
        assert values["micro_pr_auc"] == 1.0
    if M.macro_pr_auc_labels_used(Y):
        assert values["macro_pr_auc"] == 1.0
    if Y.any():  # every relevant label above every irrelevant one: coverage is |Y_i| - 1 on average
        assert values["coverage"] == pytest.approx(Y[has_pos].sum(axis=1).mean() - 1)
    if (has_pos & ~Y.all(axis=1)).any():
        assert values["ranking_loss"] == 0.0


@SETTINGS
@given(truth_pred_scores(min_l=2))  # scikit-learn reads a single column as binary, not multilabel
def test_f1_and_hamming_match_scikit_learn(case):
    Y, P, _ = case
    yi, pi = Y.astype(int), P.astype(int)
    assert M.micro_f1(Y, P) == pytest.approx(skm.f1_score(yi, pi, average="micro", zero_division=0))
    assert M.macro_f1(Y, P) == pytest.approx(skm.f1_score(yi, pi, average="macro", zero_division=0))
    assert M.hamming_loss(Y, P) == pytest.approx(skm.hamming_loss(yi, pi))


@SETTINGS
@given(truth_pred_scores(distinct=True))
def test_ap_variants_match_scikit_learn_without_ties(case):
    Y, _, S = case
    if Y.any():
        expected = skm.average_precision_score(Y.T.ravel(), S.T.ravel())
        assert M.micro_pr_auc(Y, S) == pytest.approx(expected)
    used = [j for j in range(Y.shape[1]) if 0 < Y[:, j].sum() < Y.shape[0]]
    if used:
        expected = np.mean([skm.average_precision_score(Y[:, j], S[:, j]) for j in used])
        assert M.macro_pr_auc(Y, S) == pytest.approx(expected)
    rows = Y.any(axis=1)
    if rows.any():
        lrap = skm.label_ranking_average_precision_score(Y[rows], S[rows])
        assert M.avg_precision(Y, S) == pytest.approx(lrap * rows.sum() / Y.shape[0])


def zhang_coverage_ranks(Y, S) -> np.ndarray:
    """Coverage ranks as Zhang & Zhou's coverage.m defines them: a stable ascending sort of each instance's
    scores, rank = L + 1 - (first position of a relevant label); for the instances with a relevant label."""
    ranks = []
    for y, s in zip(Y, S):
        if y.any():
            ascending = np.argsort(s, kind="stable")
            ranks.append(len(s) - int(np.flatnonzero(y[ascending])[0]))
    return np.array(ranks)


def pairs_misordered(Y, S) -> list[float]:
    """Per instance with both kinds of labels: share of (relevant, irrelevant) pairs with s_rel <= s_irr."""
    return [np.mean([s[j] <= s[k] for j in np.flatnonzero(y) for k in np.flatnonzero(~y)])
            for y, s in zip(Y, S) if y.any() and not y.all()]


@SETTINGS
@given(truth_pred_scores(min_l=2))
def test_ranking_loss_and_coverage_follow_their_definitions_with_ties(case):
    """Tie-heavy scores: ranking loss counts tied pairs as misordered; coverage breaks ties as coverage.m."""
    Y, _, S = case
    shares = pairs_misordered(Y, S)
    if shares:
        assert M.ranking_loss(Y, S) == pytest.approx(np.mean(shares), abs=1e-15)
    ranks = zhang_coverage_ranks(Y, S)
    if ranks.size:
        assert M.coverage(Y, S) == ranks.sum() / ranks.size - 1


@SETTINGS
@given(truth_pred_scores(min_l=2))  # scikit-learn reads a single column as binary, not multilabel
def test_ranking_loss_and_coverage_against_scikit_learn(case):
    """docs/evaluation.md: scikit-learn averages over all n instances (those left out here count 0
    there), its coverage is ours + 1 and counts every tied label (maximal rank); ranking loss counts
    ties as misordered in both."""
    Y, _, S = case
    n, yi = Y.shape[0], Y.astype(int)
    both = Y.any(axis=1) & ~Y.all(axis=1)
    if both.any():
        assert M.ranking_loss(Y, S) == pytest.approx(skm.label_ranking_loss(yi, S) * n / both.sum(), abs=1e-12)
    else:
        assert np.isnan(M.ranking_loss(Y, S)) and skm.label_ranking_loss(yi, S) == 0
    some = Y.any(axis=1)
    if not some.any():
        assert np.isnan(M.coverage(Y, S)) and skm.coverage_error(yi, S) == 0
        return
    sklearn_offset = skm.coverage_error(yi, S) * n / some.sum() - 1
    ties = any(len(np.unique(s)) < len(s) for s in S[some])
    if ties:  # scikit-learn gives a tied group its maximal rank, coverage.m orders it
        assert M.coverage(Y, S) <= sklearn_offset + 1e-12
    else:
        assert M.coverage(Y, S) == pytest.approx(sklearn_offset, abs=1e-12)
    distinct = np.random.default_rng(int(S.sum() * 1e6)).permutation(S.size).reshape(S.shape)
    assert M.coverage(Y, distinct) == pytest.approx(skm.coverage_error(yi, distinct) * n / some.sum() - 1,
                                                    abs=1e-12)


def test_coverage_and_ranking_loss_by_hand():
    S = np.array([[0.2, 0.2, 0.9], [0.5, 0.1, 0.4], [0.3, 0.3, 0.3]])
    Y = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]])
    # instance 0: labels 0 and 1 tie; coverage.m ranks the higher index (1) first, so label 0 has
    # rank 3; instance 1: label 1 is last (rank 3); instance 2 has no relevant label and is left out
    assert M.coverage(Y, S) == (3 + 3) / 2 - 1
    # instance 0: pairs (0,1) tie -> misordered, (0,2) misordered: 2/2; instance 1: (1,0) wrong,
    # (2,0) wrong: 2/2; instance 2 left out
    assert M.ranking_loss(Y, S) == 1.0
    assert M.ranking_loss(np.array([[1, 0, 1]]), np.array([[0.9, 0.1, 0.1]])) == 0.5  # the tie (2, 1) is wrong
    assert np.isnan(M.ranking_loss(np.ones((2, 3)), S[:2]))
    assert np.isnan(M.coverage(np.zeros((2, 3)), S[:2]))


@SETTINGS
@given(truth_pred_scores())
def test_flipping_one_wrong_cell_right_improves_hamming_and_micro_f1(case):
    Y, P, _ = case
    wrong = np.argwhere(Y != P)
    if wrong.size == 0:
        return
    better = P.copy()
    i, j = wrong[0]
    better[i, j] = Y[i, j]
    assert M.hamming_loss(Y, better) < M.hamming_loss(Y, P)
    assert M.micro_f1(Y, better) >= M.micro_f1(Y, P)


def test_tied_scores_keep_label_major_order_for_micro_ap():
    # two instances, two labels, all scores tied: order is (l0,i0), (l0,i1), (l1,i0), (l1,i1)
    Y = np.array([[0, 0], [1, 1]])
    S = np.full((2, 2), 0.5)
    # positives at positions 2 and 4 -> (1/2 + 2/4) / 2
    assert M.micro_pr_auc(Y, S) == 0.5
    # example-based: instance 1 has both labels at ranks 1, 2 -> AP 1; instance 0 adds 0
    assert M.avg_precision(Y, S) == 0.5
    # one-error: top label of every instance is label 0 (lowest index)
    assert M.one_error(np.array([[0, 1], [1, 0]]), S) == 0.5


def test_macro_pr_auc_skips_constant_labels():
    Y = np.array([[1, 1, 0], [0, 1, 0], [1, 1, 0]])
    S = np.array([[0.9, 0.1, 0.3], [0.2, 0.2, 0.3], [0.8, 0.3, 0.3]])
    assert M.macro_pr_auc_labels_used(Y) == 1
    assert M.macro_pr_auc(Y, S) == 1.0
    assert np.isnan(M.macro_pr_auc(np.ones((3, 2)), np.zeros((3, 2))))
    assert np.isnan(M.micro_pr_auc(np.zeros((3, 2)), np.zeros((3, 2))))


def test_empty_labels_count_as_zero_in_macro_f1_and_errors_in_one_error():
    Y = np.array([[1, 0], [0, 0]])
    P = np.array([[1, 0], [0, 0]])
    assert M.macro_f1(Y, P) == 0.5
    assert M.micro_f1(np.zeros((2, 2)), np.zeros((2, 2))) == 0.0
    assert M.one_error(Y, np.array([[0.9, 0.1], [0.9, 0.1]])) == 0.5


def test_plus_minus_one_labels_are_accepted():
    Y = np.array([[1, -1], [-1, 1]])
    assert M.hamming_loss(Y, np.array([[1, 0], [0, 0]])) == 0.25


@pytest.mark.parametrize("call,text", [
    (lambda: M.micro_f1(np.array([[0, 2]]), np.array([[0, 1]])), "values in"),
    (lambda: M.micro_f1(np.array([[0, 1]]), np.array([[0, 1, 1]])), "shape"),
    (lambda: M.micro_pr_auc(np.array([[0, 1]]), np.array([[0.1, np.nan]])), "finite"),
    (lambda: M.hamming_loss(np.array([0, 1]), np.array([0, 1])), "2-D"),
    (lambda: M.one_error(np.array([[0, 1]]), np.array([[0.5]])), "shape"),
])
def test_bad_metric_inputs(call, text):
    with pytest.raises(DataError, match=text):
        call()


@settings(deadline=None)  # the first example compiles the kernel
@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), max_size=700), st.integers(0, 9))
def test_pairwise_sum_is_numpys_sum_to_the_bit(values, offset):
    """The AP kernel sums in NumPy's pairwise order, which mlfs_np_sum.m mirrors in Octave."""
    padded = np.concatenate([np.full(offset, 7.0), np.array(values, dtype=np.float64)])
    assert pairwise_sum(padded, offset, len(values)) == np.sum(padded[offset:])
