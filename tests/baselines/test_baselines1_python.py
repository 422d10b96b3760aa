"""Baselines I in NumPy: the sanity properties of LRMFS, GRRO, SRFS and SCNMF (docs/methods/) and
the helpers."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.spatial.distance import pdist
from sklearn.metrics import mutual_info_score

from baselines1_data import PLANTED, RECIPE_SETTINGS, real_training_fold, recipe
from pipeline.errors import ConfigError, DataError
from pipeline.methods import available_methods, get_method
from pipeline.methods import grro, lrmfs, scnmf, srfs
from pipeline.methods._common import knn_binary_laplacian, label_cosine_distance
from pipeline.rankings import rank_scores
from pipeline.rankings import validate_ranking

METHODS = ("LRMFS", "GRRO", "SRFS", "SCNMF")


def run(method, X, Y, **overrides):
    spec = get_method(method)
    params = spec.resolve_params({**RECIPE_SETTINGS[method], **overrides})
    init = spec.initial_matrices(X.shape[0], X.shape[1], Y.shape[1], params)
    return spec.run(X, Y, params, init)


def test_registered_with_documented_defaults():
    assert set(METHODS) <= set(available_methods())
    assert get_method("LRMFS").defaults == {"alpha": 0.1, "beta": 1.0, "gamma": 1.0, "lambda": 1.0,
                                            "max_iter": 10, "tol": 1e-3, "mode": "fast", "seed": 0}
    assert get_method("GRRO").defaults == {"alpha": 100.0, "beta": 0.1, "num_bins": 2}
    assert get_method("SRFS").defaults == {"alpha": 0.1, "beta": 0.1, "gamma": 0.1, "max_iter": 30,
                                           "tol": 0.0, "seed": 0}
    assert get_method("SCNMF").defaults == {"lambda1": 1e-3, "lambda2": 1.0, "max_iter": 1001, "tol": 1e-2}
    for name in METHODS:
        assert get_method(name).matlab_function == name
    assert get_method("LRMFS").make_init is not None and get_method("SRFS").make_init is not None
    assert get_method("GRRO").make_init is None and get_method("SCNMF").make_init is None


@pytest.mark.parametrize("module", [lrmfs, grro, srfs, scnmf])
def test_documented_grids_are_valid_parameter_values(module):
    spec = module.SPEC
    for key, values in module.GRID.items():
        assert key in spec.defaults and spec.defaults[key] in values
        for value in values:
            assert spec.resolve_params({key: value})[key] == value


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("method", METHODS)
def test_planted_features_rank_on_top(method, seed):
    X, Y = recipe(seed)
    ranking, _ = run(method, X, Y)
    validate_ranking(ranking, X.shape[1])
    assert set(ranking[:5].tolist()) == PLANTED


@pytest.mark.parametrize("method", METHODS)
def test_deterministic_given_the_seed(method):
    X, Y = recipe(7)
    first, info1 = run(method, X, Y)
    second, info2 = run(method, X, Y)
    np.testing.assert_array_equal(first, second)
    assert info1.get("objective") == info2.get("objective")


def test_init_none_draws_what_the_harness_draws():
    X, Y = recipe(3)
    for method in ("LRMFS", "SRFS"):
        spec = get_method(method)
        params = spec.resolve_params({"seed": 11})
        harness, _ = spec.run(X, Y, params, spec.initial_matrices(*X.shape, Y.shape[1], params))
        alone, _ = spec.run(X, Y, params, None)
        np.testing.assert_array_equal(harness, alone)


# -- LRMFS ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2])
def test_lrmfs_fast_mode_equals_faithful_mode_synthetic(seed):
    X, Y = recipe(seed)
    fast, info_fast = run("LRMFS", X, Y, mode="fast")
    faithful, info_faithful = run("LRMFS", X, Y, mode="faithful")
    np.testing.assert_array_equal(fast, faithful)
    assert info_fast["objective"] == info_faithful["objective"]
    assert max(info_faithful["max_abs_Q"]) <= 1e-12


@pytest.mark.parametrize("name", ["emotions", "Arts"])
def test_lrmfs_fast_mode_equals_faithful_mode_real(mlc_dir, name):
    X, Y = real_training_fold(mlc_dir, name, 250, 80)
    spec = get_method("LRMFS")
    params = spec.resolve_params({})
    init = spec.initial_matrices(*X.shape, Y.shape[1], params)
    fast, info_fast = spec.run(X, Y, params, init)
    faithful, info_faithful = spec.run(X, Y, {**params, "mode": "faithful"}, init)
    np.testing.assert_array_equal(fast, faithful)
    np.testing.assert_allclose(info_fast["objective"], info_faithful["objective"], rtol=1e-12)
    assert max(info_faithful["max_abs_Q"]) <= 1e-12


@pytest.mark.parametrize("value", [1e-3, 1e3])
def test_lrmfs_beta_gamma_are_inert(value):
    X, Y = recipe(2)
    reference, _ = run("LRMFS", X, Y, mode="faithful")
    changed, _ = run("LRMFS", X, Y, mode="faithful", beta=value, gamma=value)
    np.testing.assert_array_equal(reference, changed)
    other_lambda, _ = run("LRMFS", X, Y, mode="faithful", **{"lambda": 100.0})
    assert not np.array_equal(reference, other_lambda)


def test_lrmfs_objective_decreases_and_stops_on_tolerance():
    X, Y = recipe(4)
    _, info = run("LRMFS", X, Y)
    trace = np.array(info["objective"])
    assert info["iterations"] == len(trace) <= 10
    assert np.all(np.diff(trace) <= 1e-9 * trace[:-1])
    steps = np.abs(np.diff(trace))
    first = int(np.flatnonzero(steps < 1)[0])  # iteration first + 2 is the first with a change <= tol
    _, loose = run("LRMFS", X, Y, tol=float(steps[first]))
    assert loose["iterations"] == first + 2 and loose["objective"] == info["objective"][:first + 2]
    with pytest.raises(ConfigError, match="tol"):
        run("LRMFS", X, Y, tol=1.0)


def test_lrmfs_faithful_needs_21_features_and_fast_does_not():
    X, Y = recipe(1, n=60, d=20)
    with pytest.raises(DataError, match="d >= 21"):
        run("LRMFS", X, Y, mode="faithful")
    ranking, _ = run("LRMFS", X, Y, mode="fast")
    validate_ranking(ranking, 20)


def test_lrmfs_bad_mode_and_bad_init():
    X, Y = recipe(1)
    spec = get_method("LRMFS")
    with pytest.raises(ConfigError, match="mode"):
        spec.run(X, Y, spec.resolve_params({"mode": "literal"}), None)
    with pytest.raises(ConfigError, match="init.S0"):
        spec.run(X, Y, spec.resolve_params({}), {"W0": np.zeros((100, 5)), "Q0": np.zeros((100, 5))})


def test_knn_laplacian_of_labels_is_the_complete_graph():
    Y = recipe(1)[1]
    L = Y.shape[1]
    np.testing.assert_array_equal(knn_binary_laplacian(Y, L - 1), L * np.eye(L) - np.ones((L, L)))


def test_knn_laplacian_feature_graph():
    X = recipe(2)[0][:, :30]
    lap = knn_binary_laplacian(X, 20)
    np.testing.assert_array_equal(lap, lap.T)
    np.testing.assert_allclose(lap.sum(axis=1), 0.0, atol=0)
    assert set(np.unique(-lap[~np.eye(30, dtype=bool)])) <= {0.0, 0.5, 1.0}


# -- GRRO -----------------------------------------------------------------------------------------
def test_grro_statistics_and_sylvester_residual():
    X, Y = recipe(1)
    FL, FF, LL = grro.grro_statistics(X, Y, 2)
    np.testing.assert_array_equal(FF, FF.T)
    np.testing.assert_array_equal(np.diag(FF), 1.0)
    assert FL.min() >= 0 and FL.max() <= 1
    np.testing.assert_allclose(np.diag(LL), 0, atol=1e-15)
    _, info = run("GRRO", X, Y)
    assert info["sylvester_residual"] < 1e-10


def test_grro_beta_zero_is_the_plain_linear_solve():
    X, Y = recipe(2)
    FL, FF, _ = grro.grro_statistics(X, Y, 2)
    W = np.linalg.solve(np.eye(100) + 100.0 * FF, FL)
    ranking, _ = run("GRRO", X, Y, beta=0.0)
    np.testing.assert_array_equal(ranking, rank_scores(W.sum(axis=1), "GRRO"))


def test_grro_mutual_information_matches_sklearn_in_bits():
    rng = np.random.default_rng(5)
    X = rng.random((150, 6)) * (rng.random((150, 6)) < 0.4)
    Y = (rng.random((150, 3)) < 0.3).astype(float)
    codes = grro.discretize_equal_frequency(X, 3)
    features = [(codes == s).astype(float) for s in (1, 2, 3)]
    labels = [(Y == s).astype(float) for s in (0, 1)]
    FL = grro.mutual_information(features, labels)
    FF = grro.mutual_information(features, features)
    for j in range(6):
        for label in range(3):
            assert FL[j, label] == pytest.approx(mutual_info_score(codes[:, j], Y[:, label]) / np.log(2), abs=1e-12)
        for k in range(6):
            assert FF[j, k] == pytest.approx(mutual_info_score(codes[:, j], codes[:, k]) / np.log(2), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), bins=st.integers(2, 4))
def test_discretization_matches_the_definition(seed, n, bins):
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((n, 3)) * rng.integers(1, 4), 1) * (rng.random((n, 3)) < 0.6)
    if n < bins:
        return
    codes = grro.discretize_equal_frequency(X, bins)
    for j in range(3):
        s = np.sort(X[:, j])
        thresholds = np.unique([s[int(np.floor(k * n / bins + 0.5)) - 1] for k in range(1, bins + 1)])
        expected = 1 + (X[:, j][:, None] > thresholds[None, :]).sum(axis=1)
        np.testing.assert_array_equal(codes[:, j], expected)


def test_discretization_two_bins_rounds_half_away_from_zero():
    # n = 5: position round(2.5) = 3 (MATLAB), not 2 (NumPy's half-to-even)
    X = np.array([[0.1], [0.2], [0.3], [0.4], [0.5]])
    np.testing.assert_array_equal(grro.discretize_equal_frequency(X, 2).ravel(), [1, 1, 1, 2, 2])


# -- SRFS and SCNMF -------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha,beta,gamma", [(0.01, 0.01, 0.01), (0.1, 0.1, 0.1), (1.0, 0.01, 1.0),
                                              (0.01, 1.0, 0.1)])
def test_srfs_nonnegative_and_monotone(alpha, beta, gamma):
    X, Y = recipe(3)
    params = {**srfs.DEFAULTS, "alpha": alpha, "beta": beta, "gamma": gamma}
    W0 = np.random.default_rng(0).random((100, 5))
    W, info = srfs.srfs(X, Y, params, W0)
    assert W.min() >= 0
    trace = np.array([srfs.objective(X, Y, W0, *_label_graph(Y), alpha, beta, gamma)] + info["objective"])
    assert np.all(np.diff(trace) <= 1e-10 * np.abs(trace[:-1]))
    assert info["iterations"] == 30
    assert trace[-1] == pytest.approx(srfs.objective(X, Y, W, *_label_graph(Y), alpha, beta, gamma), rel=1e-12)


def test_srfs_wide_data_path_matches_the_gram_path():
    X, Y = recipe(2, n=60, d=100)                              # d > n: X'(XW), no d×d matrix
    W0 = np.random.default_rng(1).random((100, 5))
    W, info = srfs.srfs(X, Y, srfs.DEFAULTS, W0)
    W_gram, info_gram = srfs.srfs(np.vstack([X, np.zeros((50, 100))]), np.vstack([Y, np.zeros((50, 5))]),
                                  srfs.DEFAULTS, W0)           # zero rows: same problem, d <= n
    np.testing.assert_allclose(W, W_gram, rtol=1e-10)
    np.testing.assert_allclose(info["objective"], info_gram["objective"], rtol=1e-10)


def _label_graph(Y):
    S = 1.0 - label_cosine_distance(Y)
    S[~np.isfinite(S)] = 0
    return S, np.diag(S.sum(axis=1))


def test_srfs_tolerance_stops_early():
    X, Y = recipe(3)
    _, info = run("SRFS", X, Y, tol=1e-2, max_iter=500)
    assert 2 <= info["iterations"] < 500


@pytest.mark.parametrize("lambda1,lambda2", [(1e-4, 1e-2), (1e-3, 1.0), (5e-2, 100.0)])
def test_scnmf_nonnegative_and_monotone(lambda1, lambda2):
    X, Y = recipe(4)
    W, info = scnmf.scnmf(X, Y, {**scnmf.DEFAULTS, "lambda1": lambda1, "lambda2": lambda2})
    assert W.min() >= 0
    trace = np.array(info["objective"])
    assert np.all(np.diff(trace) <= 1e-10 * np.abs(trace[:-1]))
    assert abs(trace[-1] - trace[-2]) <= 1e-2 and info["iterations"] < 1001
    H, _ = scnmf.gaussian_feature_kernel(X.T @ X)
    direct = scnmf.objective(X, Y, W, H, label_cosine_distance(Y), lambda1, lambda2)
    assert trace[-1] == pytest.approx(direct, rel=1e-12)


def test_scnmf_kernel_width_is_the_mean_pairwise_distance():
    X = recipe(1)[0][:, :40]
    H, sigma = scnmf.gaussian_feature_kernel(X.T @ X)
    assert sigma == pytest.approx(pdist(X.T).mean(), rel=1e-10)
    np.testing.assert_array_equal(np.diag(H), 1.0)


# -- shared conventions ---------------------------------------------------------------------------
def test_label_cosine_distance_of_an_empty_label_is_zero():
    Y = np.array([[1, 0, 1], [0, 0, 1], [1, 0, 0]], dtype=float)
    LL = label_cosine_distance(Y)
    assert np.all(LL[1] == 0) and np.all(LL[:, 1] == 0)
    assert LL[0, 2] == pytest.approx(0.5)


@pytest.mark.parametrize("method", METHODS)
def test_bad_inputs_are_rejected(method):
    X, Y = recipe(1, n=40, d=30)
    spec = get_method(method)
    with pytest.raises(DataError, match="labels"):
        spec.run(X, 2 * Y - 1, spec.resolve_params({}), None)
    with pytest.raises(DataError, match="non-negative"):
        spec.run(X - 0.5, Y, spec.resolve_params({}), None)
    with pytest.raises(ConfigError, match="unknown parameter"):
        spec.resolve_params({"alpah": 1})


@pytest.mark.parametrize("method", METHODS)
def test_feature_permutation_permutes_the_ranking(method):
    X, Y = recipe(5, d=40)
    perm = np.random.default_rng(0).permutation(40)
    spec = get_method(method)
    params = spec.resolve_params(RECIPE_SETTINGS[method])
    init = spec.initial_matrices(*X.shape, Y.shape[1], params)
    permuted_init = None
    if init is not None:
        permuted_init = {k: (v[perm] if v.shape[0] == 40 else v) for k, v in init.items()}
    ranking, _ = spec.run(X, Y, params, init)
    permuted, _ = spec.run(X[:, perm], Y, params, permuted_init)
    np.testing.assert_array_equal(perm[permuted[:10] - 1] + 1, ranking[:10])


@pytest.mark.parametrize("method", METHODS)
def test_no_n_by_n_matrix(method):
    """Memory grows with n·d, never n² (LRMFS keeps Dz as a vector; the others work in d×d)."""
    X, Y = recipe(1, n=3000, d=25)
    spec = get_method(method)
    params = spec.resolve_params(RECIPE_SETTINGS[method])
    init = spec.initial_matrices(*X.shape, Y.shape[1], params)
    tracemalloc.start()
    try:
        spec.run(X, Y, params, init)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.1 * 3000 * 3000 * 8
