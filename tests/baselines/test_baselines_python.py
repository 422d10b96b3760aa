"""The seven baselines in NumPy: the sanity properties of LRMFS, GRRO, SRFS, SCNMF, LSMFS, LRDG and
RFSFS (docs/methods/), their helpers and the divergence guard."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.spatial.distance import pdist
from sklearn.metrics import mutual_info_score

from baselines_data import PLANTED, RECIPE_SETTINGS, planted, recipe, start, training_fold
from pipeline.errors import ConfigError, DataError, EngineError
from pipeline.methods import available_methods, get_method
from pipeline.methods import grro, lrdg, lrmfs, lsmfs, mdfs, mifs, rfs, rfsfs, scnmf, srfs
from pipeline.methods._common import knn_binary_laplacian, label_cosine_distance, label_cosine_similarity
from pipeline.methods._divergence import check_iterates
from pipeline.rankings import rank_scores
from pipeline.rankings import validate_ranking

METHODS = ("LRMFS", "GRRO", "SRFS", "SCNMF", "LSMFS", "LRDG", "RFSFS", "RFS", "MIFS", "MDFS")
#: The methods with settings under which the planted-feature recipe's features are the top 5.
RECIPE_METHODS = tuple(RECIPE_SETTINGS)


def run(method, X, Y, **overrides):
    """``method`` in NumPy from the harness-drawn start -> (validated ranking, info, init)."""
    params, init = start(method, X, Y, overrides)
    ranking, info = get_method(method).run(X, Y, params, init)
    return validate_ranking(ranking, X.shape[1]), info, init


def recipe_run(method, X, Y, **overrides):
    """``method`` in NumPy at its recipe settings (``RECIPE_SETTINGS``) -> (ranking, info)."""
    ranking, info, _ = run(method, X, Y, **{**RECIPE_SETTINGS[method], **overrides})
    return ranking, info


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


@pytest.mark.parametrize("module", [lrmfs, grro, srfs, scnmf, rfs, mifs, mdfs])
def test_documented_grids_are_valid_parameter_values(module):
    spec = module.SPEC
    for key, values in module.GRID.items():
        assert key in spec.defaults and spec.defaults[key] in values
        for value in values:
            assert spec.resolve_params({key: value})[key] == value


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("method", RECIPE_METHODS)
def test_planted_features_rank_on_top(method, seed):
    X, Y = recipe(seed)
    ranking, _ = recipe_run(method, X, Y)
    validate_ranking(ranking, X.shape[1])
    assert set(ranking[:5].tolist()) == PLANTED


@pytest.mark.parametrize("method", RECIPE_METHODS)
def test_deterministic_given_the_seed(method):
    X, Y = recipe(7)
    first, info1 = recipe_run(method, X, Y)
    second, info2 = recipe_run(method, X, Y)
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
    fast, info_fast = recipe_run("LRMFS", X, Y, mode="fast")
    faithful, info_faithful = recipe_run("LRMFS", X, Y, mode="faithful")
    np.testing.assert_array_equal(fast, faithful)
    assert info_fast["objective"] == info_faithful["objective"]
    assert max(info_faithful["max_abs_Q"]) <= 1e-12


@pytest.mark.parametrize("name", ["emotions", "Arts"])
def test_lrmfs_fast_mode_equals_faithful_mode_real(mlc_dir, name):
    X, Y = training_fold(mlc_dir, name, 250, 80)
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
    reference, _ = recipe_run("LRMFS", X, Y, mode="faithful")
    changed, _ = recipe_run("LRMFS", X, Y, mode="faithful", beta=value, gamma=value)
    np.testing.assert_array_equal(reference, changed)
    other_lambda, _ = recipe_run("LRMFS", X, Y, mode="faithful", **{"lambda": 100.0})
    assert not np.array_equal(reference, other_lambda)


def test_lrmfs_objective_decreases_and_stops_on_tolerance():
    X, Y = recipe(4)
    _, info = recipe_run("LRMFS", X, Y)
    trace = np.array(info["objective"])
    assert info["iterations"] == len(trace) <= 10
    assert np.all(np.diff(trace) <= 1e-9 * trace[:-1])
    steps = np.abs(np.diff(trace))
    first = int(np.flatnonzero(steps < 1)[0])  # iteration first + 2 is the first with a change <= tol
    _, loose = recipe_run("LRMFS", X, Y, tol=float(steps[first]))
    assert loose["iterations"] == first + 2 and loose["objective"] == info["objective"][:first + 2]
    with pytest.raises(ConfigError, match="tol"):
        recipe_run("LRMFS", X, Y, tol=1.0)


def test_lrmfs_faithful_needs_21_features_and_fast_does_not():
    X, Y = recipe(1, n=60, d=20)
    with pytest.raises(DataError, match="d >= 21"):
        recipe_run("LRMFS", X, Y, mode="faithful")
    ranking, _ = recipe_run("LRMFS", X, Y, mode="fast")
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
    _, info = recipe_run("GRRO", X, Y)
    assert info["sylvester_residual"] < 1e-10


def test_grro_beta_zero_is_the_plain_linear_solve():
    X, Y = recipe(2)
    FL, FF, _ = grro.grro_statistics(X, Y, 2)
    W = np.linalg.solve(np.eye(100) + 100.0 * FF, FL)
    ranking, _ = recipe_run("GRRO", X, Y, beta=0.0)
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
    params = {**srfs.SPEC.defaults, "alpha": alpha, "beta": beta, "gamma": gamma}
    W0 = np.random.default_rng(0).random((100, 5))
    W, info = srfs.srfs(X, Y, params, W0)
    assert W.min() >= 0
    trace = np.array([srfs.objective(X, Y, W0, *_srfs_label_graph(Y), alpha, beta, gamma)] + info["objective"])
    assert np.all(np.diff(trace) <= 1e-10 * np.abs(trace[:-1]))
    assert info["iterations"] == 30
    assert trace[-1] == pytest.approx(srfs.objective(X, Y, W, *_srfs_label_graph(Y), alpha, beta, gamma), rel=1e-12)


def test_srfs_wide_data_path_matches_the_gram_path():
    X, Y = recipe(2, n=60, d=100)                              # d > n: X'(XW), no d×d matrix
    W0 = np.random.default_rng(1).random((100, 5))
    W, info = srfs.srfs(X, Y, srfs.SPEC.defaults, W0)
    W_gram, info_gram = srfs.srfs(np.vstack([X, np.zeros((50, 100))]), np.vstack([Y, np.zeros((50, 5))]),
                                  srfs.SPEC.defaults, W0)           # zero rows: same problem, d <= n
    np.testing.assert_allclose(W, W_gram, rtol=1e-10)
    np.testing.assert_allclose(info["objective"], info_gram["objective"], rtol=1e-10)


def _srfs_label_graph(Y):
    S = 1.0 - label_cosine_distance(Y)
    S[~np.isfinite(S)] = 0
    return S, np.diag(S.sum(axis=1))


def test_srfs_tolerance_stops_early():
    X, Y = recipe(3)
    _, info = recipe_run("SRFS", X, Y, tol=1e-2, max_iter=500)
    assert 2 <= info["iterations"] < 500


@pytest.mark.parametrize("lambda1,lambda2", [(1e-4, 1e-2), (1e-3, 1.0), (5e-2, 100.0)])
def test_scnmf_nonnegative_and_monotone(lambda1, lambda2):
    X, Y = recipe(4)
    W, info = scnmf.scnmf(X, Y, {**scnmf.SPEC.defaults, "lambda1": lambda1, "lambda2": lambda2})
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


@pytest.mark.parametrize("method", RECIPE_METHODS)
def test_bad_inputs_are_rejected(method):
    X, Y = recipe(1, n=40, d=30)
    spec = get_method(method)
    with pytest.raises(DataError, match="labels"):
        spec.run(X, 2 * Y - 1, spec.resolve_params({}), None)
    with pytest.raises(DataError, match="non-negative"):
        spec.run(X - 0.5, Y, spec.resolve_params({}), None)
    with pytest.raises(ConfigError, match="unknown parameter"):
        spec.resolve_params({"alpah": 1})


@pytest.mark.parametrize("method", RECIPE_METHODS)
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


@pytest.mark.parametrize("method", RECIPE_METHODS)
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


# -- LSMFS -----------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(n=st.integers(8, 40), n_labels=st.integers(2, 7), seed=st.integers(0, 10_000))
def test_lsmfs_label_laplacian_ignores_the_data(n, n_labels, seed):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.5).astype(float)
    Y[:n_labels, :] = np.eye(n_labels)                        # pairwise-distinct label columns
    np.testing.assert_array_equal(lsmfs.label_laplacian(Y), n_labels * np.eye(n_labels) - 1.0)


def test_lsmfs_label_laplacian_with_twin_columns_follows_the_stable_sort():
    Y = np.array([[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0]], dtype=float)   # columns 1 and 2 equal
    L = lsmfs.label_laplacian(Y)
    # rows 1 and 2 both sort as [1, 2, 3]: node 1 links to 2 and 3, node 2 to itself and 3 (a
    # self-loop, which cancels in L, and a lost edge to node 1); node 3 links to 1 and 2
    np.testing.assert_array_equal(L, [[1.5, -0.5, -1.0], [-0.5, 1.5, -1.0], [-1.0, -1.0, 2.0]])


def test_lsmfs_first_iteration_is_the_code_literally():
    X, Y = planted(1, n=80, d=30)
    params, init = start("LSMFS", X, Y, {"alpha": 0.7, "beta": 0.3, "gamma": 2.0, "lambda": 0.5, "max_iter": 1})
    _, info = get_method("LSMFS").run(X, Y, params, init)
    W0, V0, S0 = init["W0"], init["V0"], init["S0"]
    U, _, Pt = np.linalg.svd(W0, full_matrices=False)
    W = np.linalg.inv(X.T @ X + 2.0 * np.eye(30)) @ (X.T @ V0 - 0.5 * U @ Pt)
    L_y = lsmfs.label_laplacian(Y)
    M = Y + (2 * Y - 1) * S0
    V = (X @ W + 0.3 * M) @ np.linalg.inv(0.7 * np.eye(5) + 0.3 * L_y.T + 0.3 * L_y)
    np.testing.assert_allclose(info["W"], W, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(info["V"], V, rtol=1e-10, atol=1e-12)


def test_lsmfs_latent_labels_grow_with_unit_parameters():
    """The faithful V-step grows |V|_F every iteration for α = β = γ = λ = 1 (a "fixed" port would not)."""
    for seed in range(3):
        X, Y = planted(seed, n=120, d=40)
        norms = [np.linalg.norm(run("LSMFS", X, Y, alpha=1.0, beta=1.0, max_iter=t)[1]["V"]) for t in range(1, 9)]
        assert np.all(np.diff(norms) > 0), norms
        assert norms[-1] > 10 * norms[0]


def test_lsmfs_settles_for_large_alpha_and_stops_on_the_absolute_change():
    X, Y = planted(2, n=120, d=40)
    first = np.linalg.norm(run("LSMFS", X, Y, alpha=10.0, beta=0.1, max_iter=1)[1]["V"])
    _, info, _ = run("LSMFS", X, Y, alpha=10.0, beta=0.1)
    assert np.linalg.norm(info["V"]) < first                  # V shrinks instead of growing
    _, info, _ = run("LSMFS", X, Y, alpha=10.0, beta=0.1, gamma=0.01, tol=1e-4, **{"lambda": 0.0})
    changes = np.abs(np.diff(info["objective"]))
    assert 2 <= info["iterations"] < 20 and changes[-1] <= 1e-4 and np.all(changes[:-1] > 1e-4)
    with pytest.raises(ConfigError, match="tol"):             # the code starts with err = 1
        run("LSMFS", X, Y, tol=1.0)


def test_lsmfs_divergence_guard_names_method_and_iteration():
    X, Y = planted(3, n=120, d=40)
    with pytest.raises(EngineError, match=r"LSMFS diverged at iteration 1[0-9]: an entry of [WV] exceeds "
                                          r"divergence_limit"):
        run("LSMFS", X, Y, alpha=1e-6, beta=1.0)
    with pytest.raises(EngineError, match=r"LSMFS diverged at iteration 3:"):
        run("LSMFS", X, Y, alpha=0.1, beta=1.0, divergence_limit=1e3)
    run("LSMFS", X, Y, alpha=0.1, beta=1.0)                   # the sibling driver's values grow but stay below 1e100


def test_lsmfs_rejects_bad_parameters_and_starts():
    X, Y = planted(4, n=40, d=12)
    with pytest.raises(ConfigError, match="gamma"):
        run("LSMFS", X, Y, gamma=0.0)
    with pytest.raises(ConfigError, match="divergence_limit"):
        run("LSMFS", X, Y, divergence_limit=0.0)
    with pytest.raises(ConfigError, match="init.V0"):
        get_method("LSMFS").run(X, Y, get_method("LSMFS").resolve_params({}), {"W0": np.ones((12, 5))})


# -- LRDG ------------------------------------------------------------------------------------------
def test_lrdg_graph_is_symmetric_non_negative_with_unit_diagonal():
    rng = np.random.default_rng(5)
    F = rng.random((40, 6))
    A = lrdg.heat_knn_graph(F, 5).toarray()
    np.testing.assert_array_equal(A, A.T)
    assert A.min() >= 0
    np.testing.assert_allclose(np.diag(A), 1.0, rtol=0, atol=1e-15)   # exp(-rounding noise / 2)
    assert np.all((A > 0).sum(axis=1) >= 6)
    squared = ((F[:, None, :] - F[None, :, :]) ** 2).sum(axis=2)
    nearest = np.argsort(squared, axis=1, kind="stable")[:, :6]
    for i in range(40):                                        # the k+1 nearest carry exp(-dist/2)
        np.testing.assert_allclose(A[i, nearest[i]], np.maximum(np.exp(-squared[i, nearest[i]] / 2),
                                                                A[nearest[i], i]), rtol=1e-12)


def test_lrdg_graph_breaks_ties_by_index():
    F = np.array([[0.0, 0], [1, 0], [0, 0], [1, 0], [5, 5], [0, 0], [1, 0]])
    A = lrdg.heat_knn_graph(F, 1).toarray()
    # rows 0, 2 and 5 are equal: each takes the two lowest indices among them, so row 5 links to
    # rows 0 and 2 and not to itself (as MATLAB's stable sort does)
    assert A[5, 0] == 1.0 and A[5, 2] == 1.0 and A[5, 5] == 0.0
    assert A[2, 0] == 1.0 and A[2, 2] == 1.0
    assert A[4, 4] == 1.0 and A[4, 1] == np.exp(-41 / 2)     # (5,5)'s nearest: itself, then row 1


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 6), columns=st.integers(1, 30), count=st.integers(1, 8))
def test_lrdg_partial_selection_is_the_stable_sort_prefix(seed, rows, columns, count):
    rng = np.random.default_rng(seed)
    key = rng.choice([0.0, 1.0, 2.0, 7.0, np.inf, np.nan], size=(rows, columns))   # ties, inf and NaN
    count = min(count, columns)
    row, column = lrdg.smallest_in_rows(key, count)
    expected = np.sort(np.argsort(key, axis=1, kind="stable")[:, :count], axis=1)
    np.testing.assert_array_equal(row, np.repeat(np.arange(rows), count))
    np.testing.assert_array_equal(column.reshape(rows, count), expected)


def test_lrdg_graph_of_mostly_zero_data_equals_the_sorted_definition():
    """Sparse products and the partial selection give the graph of the literal definition (dense
    distances, stable sort of the snapped keys) on a sparse, tie-heavy block-spanning sample."""
    rng = np.random.default_rng(3)
    F = np.where(rng.random((1100, 40)) < 0.04, np.round(rng.random((1100, 40)), 1), 0.0)
    F[7] = F[900]
    norms = np.sum(F * F, axis=1)
    dist = np.abs(-2.0 * (F @ F.T) + norms[:, None] + norms[None, :])
    key = np.floor(dist / (lrdg.DISTANCE_RESOLUTION * norms.max()) + 0.5)
    nearest = np.argsort(key, axis=1, kind="stable")[:, :6]
    expected = np.zeros_like(dist)
    np.put_along_axis(expected, nearest, np.exp(-np.take_along_axis(dist, nearest, axis=1) / 2.0), axis=1)
    expected = np.maximum(expected, expected.T)
    A = lrdg.heat_knn_graph(F, 5)
    np.testing.assert_array_equal(A.toarray() != 0, expected != 0)
    np.testing.assert_allclose(A.toarray(), expected, rtol=1e-13, atol=0)


def test_lrdg_one_iteration_is_translation_invariant():
    X, Y = planted(6, n=90, d=25)
    shift = np.random.default_rng(0).random(25) * 3
    params, init = start("LRDG", X, Y, {"max_iter": 1})
    _, plain = get_method("LRDG").run(X, Y, params, init)
    _, shifted = get_method("LRDG").run(X + shift, Y, params, init)
    np.testing.assert_allclose(shifted["S"], plain["S"], rtol=1e-8, atol=1e-10 * np.max(np.abs(plain["S"])))


def test_lrdg_updates_can_change_sign_as_the_code_does():
    X, Y = planted(7, n=90, d=25)
    _, info, _ = run("LRDG", X, Y)
    assert info["iterations"] == 50 and len(info["objective"]) == 50
    assert np.min(info["S"]) < 0 or np.min(info["V"]) < 0    # not a sign-preserving scheme
    assert np.any(np.diff(info["objective"]) > 0)             # J is not monotone


def test_lrdg_needs_enough_rows_and_labels_and_guards_divergence():
    X, Y = planted(8, n=30, d=10, n_labels=3)
    with pytest.raises(DataError, match="4 labels"):
        run("LRDG", X, Y)
    X, Y = planted(8, n=60, d=10)
    with pytest.raises(EngineError, match=r"LRDG diverged at iteration 1: (V|S) has non-finite entries"):
        run("LRDG", X * 1e160, Y)


# -- RFSFS -----------------------------------------------------------------------------------------
@settings(max_examples=12, deadline=None)
@given(alpha=st.sampled_from([0.0, 0.01, 0.1, 1.0, 10.0]), beta=st.sampled_from([0.0, 0.01, 0.1, 1.0, 10.0]),
       gamma=st.sampled_from([0.0, 0.01, 0.1, 1.0, 10.0]), seed=st.integers(0, 1000))
def test_rfsfs_stays_non_negative_and_descends(alpha, beta, gamma, seed):
    X, Y = planted(seed, n=60, d=20, n_labels=4)
    Y[:, 3] = 0                                               # an empty label column
    params, init = start("RFSFS", X, Y, {"alpha": alpha, "beta": beta, "gamma": gamma, "max_iter": 40})
    _, info = get_method("RFSFS").run(X, Y, params, init)
    W = np.asarray(info["W"])
    assert np.all(np.isfinite(W)) and W.min() >= 0
    start_value = rfsfs.objective(X, Y, init["W0"], *_rfsfs_label_graph(Y), alpha, beta, gamma)
    trace = np.array([start_value] + info["objective"])
    assert np.all(np.diff(trace) <= 1e-10 * np.abs(trace[:-1])), np.diff(trace).max()


def _rfsfs_label_graph(Y):
    C = label_cosine_similarity(Y)
    return C, C.sum(axis=1)


def test_rfsfs_without_penalties_is_lee_seung_nnls():
    X, Y = planted(9, n=60, d=15, n_labels=3)
    params, init = start("RFSFS", X, Y, {"alpha": 0.0, "beta": 0.0, "gamma": 0.0, "max_iter": 1})
    _, info = get_method("RFSFS").run(X, Y, params, init)
    W0 = init["W0"]
    np.testing.assert_allclose(info["W"], W0 * (X.T @ Y) / (X.T @ X @ W0), rtol=1e-12)


def test_rfsfs_finds_the_informative_features():
    X, Y = planted(10, n=300, d=60)
    ranking, _, _ = run("RFSFS", X, Y)
    assert {1, 2, 3, 4, 5, 6} <= set(ranking[:10].tolist())


def test_guard_flags_non_finite_and_oversized_iterates():
    W = np.ones((4, 3))
    W[2, 1] = np.inf
    with pytest.raises(EngineError, match=r"RFSFS diverged at iteration 7: W has non-finite entries"):
        check_iterates("RFSFS", 7, 1e100, V=np.ones((2, 2)), W=W)
    with pytest.raises(EngineError, match=r"LRDG diverged at iteration 2: an entry of S exceeds divergence_limit"):
        check_iterates("LRDG", 2, 1e100, S=np.array([[-2e100]]))
    check_iterates("LRDG", 2, 1e100, S=np.array([[1e100]]))     # the limit itself is admissible


@pytest.mark.parametrize("method", METHODS)
def test_methods_are_deterministic_and_default_to_the_harness_start(method):
    X, Y = planted(12, n=80, d=20)
    spec = get_method(method)
    params = spec.resolve_params({})
    first, _ = spec.run(X, Y, params, None)
    second, _ = spec.run(X, Y, params, spec.initial_matrices(80, 20, 5, params))
    np.testing.assert_array_equal(first, second)
    assert sorted(first.tolist()) == list(range(1, 21))


def test_lrdg_never_forms_a_dense_n_by_n_matrix():
    """The centring uses its rank-one form and the graphs are sparse and built in row blocks, so
    the traced peak (33 MiB measured) stays below a third of one dense n×n float64 matrix (122 MiB,
    the code's H alone)."""
    X, Y = planted(13, n=4000, d=12)
    params, init = start("LRDG", X, Y, {"max_iter": 2})
    tracemalloc.start()
    get_method("LRDG").run(X, Y, params, init)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4000 * 4000 * 8 / 3, peak / 2**20
