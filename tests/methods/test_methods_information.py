"""The information-theoretic engine and the five filters built on it (PMU, D2F, SCLS, MDMR, LRFS):
entropies against direct counting, the co-information's sign, the greedy selection's tie rule,
the discretiser, and parity with the reference ``Sadegh28/PyIT-MLFS`` on two real folds
(tests/fixtures/information_filters/, docs/methods/PMU.md and the other pages)."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from pipeline.data.folds import load_fold
from pipeline.errors import ConfigError
from pipeline.methods import get_method
from pipeline.methods.information import JointCounts, discretise, forward_selection, order_scores
from pipeline.methods.information_filters import CRITERIA, d2f_criterion, selection_order

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "information_filters" / "pyit_mlfs_rankings.json"
METHODS = tuple(CRITERIA)
#: Entropies from the count matrices against np.unique counting, in bits (sums of a few dozen terms).
ENTROPY_TOLERANCE = 1e-12


def _entropy(*columns: np.ndarray) -> float:
    """Plug-in joint entropy in bits of the given columns, by counting the distinct rows."""
    _, counts = np.unique(np.column_stack(columns), axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


@pytest.fixture(scope="module")
def small_discrete():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(40, 5))
    codes[:, 4] = 1  # a constant feature
    Y = (rng.random((40, 3)) > 0.6).astype(np.uint8)
    Y[:, 2] = 0      # an all-zero label
    return codes, Y


def test_entropies_from_count_matrices_equal_direct_counting(small_discrete):
    codes, Y = small_discrete
    counts = JointCounts.of(codes, Y)
    d, L = codes.shape[1], Y.shape[1]
    pairs = counts.feature_pair_counts()
    expected = {
        "H(f)": [_entropy(codes[:, f]) for f in range(d)],
        "H(f,y)": [[_entropy(codes[:, f], Y[:, l]) for l in range(L)] for f in range(d)],
        "H(f,s)": [[_entropy(codes[:, f], codes[:, s]) for s in range(d)] for f in range(d)],
        "sum_l H(f,s,y_l)": [[sum(_entropy(codes[:, f], codes[:, s], Y[:, l]) for l in range(L)) for s in range(d)]
                             for f in range(d)],
        "H(y_i,y_j)": [[_entropy(Y[:, i], Y[:, j]) for j in range(L)] for i in range(L)],
        "sum_ij H(f,y_i,y_j)": [sum(_entropy(codes[:, f], Y[:, i], Y[:, j]) for i, j in product(range(L), repeat=2))
                                for f in range(d)],
    }
    found = {
        "H(f)": counts.feature_entropies(),
        "H(f,y)": counts.feature_label_entropies(),
        "H(f,s)": counts.feature_pair_entropies(pairs),
        "sum_l H(f,s,y_l)": counts.feature_pair_label_entropy_sums(pairs),
        "H(y_i,y_j)": counts.label_pair_entropies(),
        "sum_ij H(f,y_i,y_j)": counts.feature_label_pair_entropy_sums(),
    }
    for name, values in expected.items():
        np.testing.assert_allclose(found[name], values, rtol=0, atol=ENTROPY_TOLERANCE, err_msg=name)


def test_coinformation_is_mutual_information_minus_conditional():
    """XOR: a, b independent fair bits, c = a xor b: I(a; b) = 0, I(a; b | c) = 1, so I(a; b; c) = -1 bit."""
    a, b = np.array(list(product((0, 1), repeat=2))).T.repeat(5, axis=1)
    counts = JointCounts.of(np.column_stack([a, b]), (a ^ b)[:, None])
    _, redundancy = d2f_criterion(counts)
    assert redundancy[0, 1] == pytest.approx(-1.0, abs=ENTROPY_TOLERANCE)


def test_forward_selection_takes_the_lowest_index_of_a_rounding_level_tie():
    redundancy = np.zeros((4, 4))
    base = np.array([1.0, 2.0, 2.0 * (1 + 1e-13), 2.0 - 1e-6])
    order = forward_selection(lambda accumulated, chosen: base - accumulated, redundancy)
    assert order.tolist() == [1, 2, 3, 0]
    assert order_scores(order).tolist() == [1.0, 4.0, 3.0, 2.0]


def test_forward_selection_adds_the_chosen_features_redundancy():
    redundancy = np.array([[0.0, 0.0, 5.0], [0.0, 0.0, 0.0], [5.0, 0.0, 0.0]])
    base = np.array([3.0, 2.0, 2.5])
    order = forward_selection(lambda accumulated, chosen: base - accumulated, redundancy)
    assert order.tolist() == [0, 1, 2]  # feature 2 falls behind once feature 0 (its redundant twin) is in


def test_discretiser_is_fitted_on_the_given_rows_with_equal_width_bins():
    X = np.array([[0.0, 5.0], [0.2, 5.0], [0.34, 5.0], [0.5, 5.0], [0.67, 5.0], [1.0, 5.0]])
    codes = discretise(X, 3, "uniform")
    assert codes[:, 0].tolist() == [0, 0, 1, 1, 2, 2] and codes[:, 1].tolist() == [0] * 6
    assert discretise(X * 10 + 3, 3, "uniform").tolist() == codes.tolist()
    with pytest.raises(ConfigError, match="discretiser"):
        discretise(X, 3, "entropy")
    with pytest.raises(ConfigError, match="n_bins"):
        discretise(X, 1, "uniform")


def test_harness_refuses_bad_parameters_and_ranks_degenerate_folds():
    rng = np.random.default_rng(0)
    X, Y = rng.random((30, 6)), (rng.random((30, 3)) > 0.5).astype(np.uint8)
    X[:, 1] = 0.5
    Y[:, 0] = 0
    for method in METHODS:
        spec = get_method(method)
        ranking, info = spec.run(X, Y, {})
        assert sorted(ranking.tolist()) == list(range(1, 7))
        assert np.array_equal(info["scores"][ranking - 1], np.arange(6, 0, -1))
        with pytest.raises(ConfigError, match="n_bins"):
            spec.run(X, Y, {"n_bins": 1})
        with pytest.raises(ConfigError, match="discretiser"):
            spec.run(X, Y, {"discretiser": "entropy"})


# ---------------------------------------------------------------- parity with PyIT-MLFS
def _reference_cases():
    record = json.loads(FIXTURE.read_text())
    return [(name, case) for name, case in record["cases"].items()]


@pytest.mark.parametrize("case_name,case", _reference_cases(), ids=[name for name, _ in _reference_cases()])
def test_rankings_equal_the_reference_on_real_folds(case_name, case, real_folds):
    folder = real_folds(case["dataset"], folds=1, seed=case["seed"]) / case["dataset"]
    assert json.loads((folder / "fold0.json").read_text())["fold_sha256"] == case["fold_sha256"]
    fold = load_fold(folder / "fold0.mat")
    X = fold.X_train[:, : case["features"]]
    for method in METHODS:
        order = selection_order(method, X, fold.Y_train, dict(get_method(method).defaults))
        assert order.tolist() == case["rankings_0based"][method], method


def test_the_reference_mdmr_is_d2f():
    """The reference's mdmr class is its d2f code (docs/methods/MDMR.md): their recorded rankings
    are equal, and so are the project's criteria."""
    for _, case in _reference_cases():
        assert case["rankings_0based"]["MDMR"] == case["rankings_0based"]["D2F"]
    assert CRITERIA["MDMR"] is CRITERIA["D2F"]
