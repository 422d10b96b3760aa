"""Zhang & Zhou sanity checks (a hand example n = 4, Num = 1; priors and conditionals sum to 1) and bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import ConfigError, DataError, RankingError
from hypothesis import given, settings, strategies as st

from pipeline.evaluation.mlknn import (MLkNN, clean_k_values, conditionals, evaluate_grid, evaluate_prepared,
                                       label_priors, neighbour_label_counts, prepare_fold)

EPS = np.finfo(float).eps


def test_hand_example_n4_k1():
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    y = np.array([[1], [1], [0], [0]])
    model = MLkNN(num=1, smooth=1.0).fit(X, y)
    # neighbours: 0->1, 1->0, 2->1, 3->2; counts of positive neighbours 1, 1, 1, 0
    np.testing.assert_array_equal(model.train_neighbours_.ravel(), [1, 0, 1, 2])
    assert model.prior_[0] == 0.5 and model.prior_n_[0] == 0.5
    np.testing.assert_allclose(model.cond_[0], [1 / (4 + EPS), 3 / (4 + EPS)], rtol=0, atol=0)
    np.testing.assert_allclose(model.cond_n_[0], [2 / (4 + EPS), 2 / (4 + EPS)], rtol=0, atol=0)
    # x=0.4 -> neighbour 0 (positive), x=5.5 -> neighbour 3, x=2 ties 1 and 3 -> lower index 1
    proba = model.predict_proba(np.array([[0.4], [5.5], [2.0]]))
    np.testing.assert_allclose(proba.ravel(), [0.6, 1 / 3, 0.6], rtol=1e-15)
    np.testing.assert_array_equal(model.predict(np.array([[0.4], [5.5], [2.0]])).ravel(), [1, 0, 1])


def test_probabilities_sum_to_one_and_outputs_in_open_interval():
    rng = np.random.default_rng(3)
    X, Y = rng.random((80, 5)), rng.random((80, 6)) < 0.3
    Y[:, 0] = False  # a label without positives
    Y[:, 1] = True   # a label positive everywhere
    model = MLkNN(num=7).fit(X, Y)
    np.testing.assert_allclose(model.prior_ + model.prior_n_, 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(model.cond_.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(model.cond_n_.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(model.cond_[0], 1 / 8)  # empty positive histogram -> uniform
    np.testing.assert_allclose(model.cond_n_[1], 1 / 8)
    assert model.prior_[0] == 1 / 82 and model.prior_n_[1] == pytest.approx(1 / 82, abs=1e-15)
    proba = model.predict_proba(rng.random((30, 5)))
    assert np.all((proba > 0) & (proba < 1))


def test_zero_one_and_plus_minus_one_targets_give_identical_outputs():
    rng = np.random.default_rng(4)
    X, Y = rng.random((50, 4)), (rng.random((50, 3)) < 0.4).astype(int)
    Xq = rng.random((20, 4))
    a = MLkNN().fit(X, Y).predict_proba(Xq)
    b = MLkNN().fit(X, 2 * Y - 1).predict_proba(Xq)
    np.testing.assert_array_equal(a, b)


def test_training_point_is_not_its_own_neighbour_but_duplicates_are():
    rng = np.random.default_rng(5)
    X = rng.random((30, 3))
    X[20] = X[3]
    model = MLkNN(num=3).fit(X, rng.random((30, 2)) < 0.5)
    nb = model.train_neighbours_
    assert not np.any(nb == np.arange(30)[:, None])
    assert 20 in nb[3] and 3 in nb[20]
    assert 7 in model.kneighbors(X[7:8])[0]


def test_permuting_training_rows_keeps_outputs_without_ties():
    rng = np.random.default_rng(6)
    X, Y, Xq = rng.random((60, 5)), rng.random((60, 4)) < 0.4, rng.random((25, 5))
    perm = rng.permutation(60)
    a = MLkNN().fit(X, Y).predict_proba(Xq)
    b = MLkNN().fit(X[perm], Y[perm]).predict_proba(Xq)
    np.testing.assert_array_equal(a, b)


def test_statistics_helpers_shapes():
    Y = np.array([[1, 0], [0, 0], [1, 1]], dtype=bool)
    nb = np.array([[1, 2], [0, 2], [0, 1]])
    counts = neighbour_label_counts(Y, nb)
    np.testing.assert_array_equal(counts, [[1, 1], [2, 1], [1, 0]])
    cond, cond_n = conditionals(Y, counts, 2, 1.0)
    assert cond.shape == cond_n.shape == (2, 3)
    prior, prior_n = label_priors(Y, 1.0)
    np.testing.assert_allclose(prior, [3 / 5, 2 / 5])


# ---------------------------------------------------------------- bad input
def small_fold():
    rng = np.random.default_rng(7)
    return rng.random((20, 6)), rng.random((20, 3)) < 0.5, rng.random((8, 6)), rng.random((8, 3)) < 0.5


@pytest.mark.parametrize("kwargs,error,text", [
    ({"num": 20}, ConfigError, "num < n_train = 20"),
    ({"num": 0}, ConfigError, "positive integer"),
    ({"smooth": 0.0}, ConfigError, "smoothing"),
    ({"k_values": [0, 7, 100]}, ConfigError, "empty after cleaning"),
    ({"k_values": [2.5]}, ConfigError, "integers"),
    ({"ranking": [0, 1, 2, 3, 4, 5]}, RankingError, "0-based"),
    ({"ranking": [1, 2, 3, 4, 5, 5]}, RankingError, "repeats"),
    ({"ranking": [1, 2, 3]}, RankingError, "wrong length"),
])
def test_evaluate_grid_rejects_bad_arguments(kwargs, error, text):
    Xtr, Ytr, Xte, Yte = small_fold()
    args = {"ranking": np.arange(1, 7), "k_values": [2, 4], **kwargs}
    with pytest.raises(error, match=text):
        evaluate_grid(Xtr, Ytr, Xte, Yte, args.pop("ranking"), args.pop("k_values"), **args)


@pytest.mark.parametrize("mutate,field", [
    (lambda f: (f[0][:, :5], *f[1:]), "X_test"),
    (lambda f: (f[0], f[1][:, :2], *f[2:]), "Y_test"),
    (lambda f: (f[0], f[1][:10], *f[2:]), "Y_train"),
    (lambda f: (f[0], f[1].astype(int) * 2, *f[2:]), "Y_train"),
    (lambda f: (np.where(f[0] > 0.9, np.nan, f[0]), *f[1:]), "X_train"),
    (lambda f: (f[0], f[1], f[2].ravel(), f[3]), "X_test"),
])
def test_evaluate_grid_rejects_bad_data(mutate, field):
    Xtr, Ytr, Xte, Yte = mutate(small_fold())
    with pytest.raises(DataError, match=f"field '{field}'"):
        evaluate_grid(Xtr, Ytr, Xte, Yte, np.arange(1, 7), [2, 4])


def test_clean_k_values_follows_spec():
    assert clean_k_values([30, 10, 10, -1, 0, 99, 20.0], 30) == [10, 20, 30]


def test_mlknn_requires_fit_and_matching_columns():
    with pytest.raises(ConfigError, match="not fitted"):
        MLkNN().predict(np.zeros((2, 3)))
    model = MLkNN(num=2).fit(np.random.default_rng(0).random((5, 3)), np.eye(5, 2))
    with pytest.raises(DataError, match="feature count"):
        model.predict(np.zeros((2, 4)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_rankings=st.integers(1, 4), num=st.integers(1, 6))
def test_a_prepared_fold_scores_every_ranking_as_a_fresh_evaluation(seed, n_rankings, num):
    """One prepared fold (checks, label priors) shared by many rankings changes no number, nor the fold."""
    rng = np.random.default_rng(seed)
    n_train, n_test, d, n_labels = rng.integers(8, 30), rng.integers(1, 12), rng.integers(1, 9), rng.integers(1, 5)
    X_train = rng.integers(0, 3, (n_train, d)).astype(float)  # few values: ties and duplicates
    X_test = rng.integers(0, 3, (n_test, d)).astype(float)
    Y_train, Y_test = rng.random((n_train, n_labels)) < 0.4, rng.random((n_test, n_labels)) < 0.4
    fold = prepare_fold(X_train, Y_train, X_test, 2 * Y_test.astype(int) - 1, num=num, smooth=1.0)
    kept = [array.copy() for array in (fold.X_train, fold.Y_train, fold.X_test, fold.Y_test, fold.prior)]
    ks = list(range(1, d + 1))
    for _ in range(n_rankings):
        ranking = rng.permutation(d) + 1
        shared = evaluate_prepared(fold, ranking, ks)
        fresh = evaluate_grid(X_train, Y_train, X_test, Y_test, ranking, ks, num=num, smooth=1.0)
        assert shared.keys() == fresh.keys()
        for key, value in fresh.items():
            np.testing.assert_array_equal(np.asarray(shared[key], dtype=float), np.asarray(value, dtype=float))
    for before, after in zip(kept, (fold.X_train, fold.Y_train, fold.X_test, fold.Y_test, fold.prior)):
        np.testing.assert_array_equal(before, after)


def test_prepare_fold_refuses_what_evaluate_grid_refuses():
    X, Y = np.zeros((5, 2)), np.zeros((5, 1))
    with pytest.raises(ConfigError, match="more training instances than neighbours"):
        prepare_fold(X, Y, X, Y, num=5)
    with pytest.raises(DataError, match="different feature counts"):
        prepare_fold(X, Y, np.zeros((3, 3)), np.zeros((3, 1)), num=2)
